"""Train a head given as PyTorch modules on a family: :func:`fit` (``certify.torch``; docs/torch.md).

For experiments and the worked examples; the head trained is the one ``certify.torch.check``
checks (docs/math.md §2), one head or several. :func:`head_predictions` is that head's
prediction in floating point, shared with ``certify.torch.predict``.
"""
from __future__ import annotations

import math
from typing import Any, Callable

from ..check import Progress
from .torch_tensors import MAX_TENSOR_INPUTS, _placed, _torch, family_tensors


def _parts(fn: Any) -> list[Callable]:
    return list(fn) if isinstance(fn, (list, tuple)) else [fn]


def _run(fn: Any, X: Any) -> Any:
    """Each callable of ``fn`` (one, or one per head) on ``X`` in its own dtype and device; float64 on the CPU, side by side."""
    torch = _torch()
    outs = [f(_placed(X, f)).cpu().to(torch.float64) for f in _parts(fn)]
    return outs[0] if len(outs) == 1 else torch.cat(outs, dim=1), [o.shape[1] for o in outs]


def head_predictions(fq, fk, v, beta, w, idx, mask, q, delta, heads=None, value_heads=None):
    """``t̂ = β(x) + Σ_h ⟨w_h(x), Σ_j α_h(x, x_j) v_h(x_j) / (δ + Σ_j α_h(x, x_j))⟩`` at each input's query, in float.

    ``fq``, ``fk``: ``(N, Σ r_h)``; ``v``, ``w``: ``(N, Σ d_h)``; ``beta``: ``(N,)``; ``idx``:
    ``(B, L)`` token indices (padding clamped to any index, ``mask`` 0 there); ``q``:
    ``(B,)`` the query's token. ``heads``/``value_heads``: the column cuts (one head if ``None``).
    """
    heads = list(heads) if heads is not None else [fq.shape[1]]
    value_heads = list(value_heads) if value_heads is not None else [v.shape[1]]
    if len(heads) != len(value_heads):
        raise ValueError(f"{len(heads)} heads of features, {len(value_heads)} of values")
    out = beta[q]
    c = d = 0
    for r, dv in zip(heads, value_heads):
        alpha = (fq[q][:, None, c:c + r] * fk[idx][:, :, c:c + r]).sum(-1) * mask
        head = (alpha[:, :, None] * v[idx][:, :, d:d + dv]).sum(1) / (alpha.sum(1) + delta)[:, None]
        out = out + (w[q][:, d:d + dv] * head).sum(1)
        c, d = c + r, d + dv
    return out


def _readout(r: Any):
    torch = _torch()
    if isinstance(r, (tuple, list)):
        beta, w = r
        return beta.cpu().to(torch.float64).reshape(-1), w.cpu().to(torch.float64)
    r = r.cpu().to(torch.float64)
    return r[:, 0], r[:, 1:]


def _predict(phi_q, phi_k, values, readout, X, idx, mask, q, delta, heads=None, value_heads=None):
    (fq, wq), (fk, _), (v, wv) = _run(phi_q, X), _run(phi_k, X), _run(values, X)
    beta, w = _readout(readout(_placed(X, readout)))
    return head_predictions(fq, fk, v, beta, w, idx, mask, q, delta,
                            heads if heads is not None else (wq if len(wq) > 1 else None),
                            value_heads if value_heads is not None else (wv if len(wv) > 1 else None))


class TrainingDiverged(FloatingPointError):
    """:func:`fit` stopped: the loss is not finite."""


def fit(phi_q: Any, phi_k: Any, values: Any, readout: Any, *, family: Any = "rank-nine", steps: int = 500,
        lr: float = 0.01, delta: float = 0.0, seed: int = 0, heads: Any = None, value_heads: Any = None,
        threads: int = 1) -> float:
    """Train the head on a family's inputs (full batch, Adam, mean squared error); return the final loss.

    The head is the one ``certify.torch.check`` checks: ``α = ⟨phi_q(x), phi_k(z)⟩``,
    ``t̂ = β(x) + ⟨w(x), Σ_j α v(x_j) / (Σ_j α + δ)⟩``; several heads as lists of per-head
    callables (or ``heads=`` / ``value_heads=``), each head with its own denominator.
    Modules in any floating dtype (float64, float32, bfloat16, …) and on any device get the
    tokens in their own dtype and device; their outputs meet in float64 on the CPU, where
    the loss is computed. Plain callables are used as they are (they are not trained; at
    least one module must have parameters). ``threads`` torch threads (1, the default, is
    bit-for-bit reproducible); seeded: the same seed and modules give the same parameters.
    The modules are trained in place. A long run shows its progress on stderr
    (``CERTIFY_PROGRESS=0`` silences it). A loss that is not finite raises
    :class:`TrainingDiverged` naming the step (the modules keep the parameters that gave it).
    """
    torch = _torch()
    if type(steps) is not int or steps < 0:
        raise ValueError(f"steps = {steps!r}: an integer ≥ 0")
    if type(threads) is not int or threads < 1:
        raise ValueError(f"threads = {threads!r}: an integer ≥ 1")
    ft = family_tensors(family)
    if ft.inputs is None:
        raise ValueError(f"{ft.family.source}: more than {MAX_TENSOR_INPUTS:,} inputs; train on a smaller family")
    params = list({id(p): p for fn in (phi_q, phi_k, values, readout) for f in _parts(fn)
                   if isinstance(f, torch.nn.Module) for p in f.parameters() if p.requires_grad}.values())
    if not params:
        raise ValueError("nothing to train: none of phi_q, phi_k, values, readout is a torch.nn.Module with parameters")
    torch.manual_seed(seed)
    old = torch.get_num_threads()
    torch.set_num_threads(threads)
    X, idx, mask, q, target = ft.tokens, ft.inputs.clamp(min=0), ft.mask, ft.query, ft.targets
    args = (X, idx, mask, q, delta, heads, value_heads)
    progress = Progress(f"fit on {ft.inputs.shape[0]:,} inputs (steps)", total=steps)
    try:
        opt = torch.optim.Adam(params, lr=lr)
        for step in range(steps):
            loss = ((_predict(phi_q, phi_k, values, readout, *args) - target) ** 2).mean()
            _finite(loss, step, steps, lr)
            opt.zero_grad()
            loss.backward()
            opt.step()
            progress.update(step + 1, f"loss {float(loss.detach()):.4g}")
        with torch.no_grad():
            loss = ((_predict(phi_q, phi_k, values, readout, *args) - target) ** 2).mean()
        _finite(loss, steps, steps, lr)
        return float(loss)
    finally:
        progress.close()
        torch.set_num_threads(old)


def _finite(loss: Any, step: int, steps: int, lr: float) -> None:
    value = float(loss.detach())
    if not math.isfinite(value):
        raise TrainingDiverged(f"fit: the loss is {value} at step {step} of {steps} (lr {lr}); the modules keep the "
                               "parameters that gave it. Lower lr, or add delta if a denominator Σ_j α can be 0 "
                               "(a ReLU-type feature map)")
