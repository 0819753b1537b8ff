"""Train a head given as PyTorch modules on a family: :func:`fit` (``certify.torch``; docs/torch.md).

For experiments and the worked examples; the head trained is the one ``certify.torch.check``
checks (docs/math.md §2), one head or several. :func:`head_predictions` is that head's
prediction in floating point, shared with ``certify.torch.predict``.
"""
from __future__ import annotations

import math
from fractions import Fraction
from typing import Any

import numpy as np

from ..check import Progress
from .table import callable_parts, head_widths
from .tensors import MAX_TENSOR_INPUTS, placed, import_torch, family_tensors


def _tensor(out: Any, name: str, rows: int) -> Any:
    """A callable's output as a float64 CPU tensor of ``rows`` rows (a module's keeps its autograd graph)."""
    torch = import_torch()
    t = out if isinstance(out, torch.Tensor) else torch.as_tensor(np.asarray(out, dtype=np.float64))
    t = t.cpu().to(torch.float64)
    if t.dim() == 1:
        t = t[:, None]
    if t.dim() != 2 or t.shape[0] != rows:
        raise ValueError(f"{name}: expected shape ({rows}, …), got {tuple(t.shape)}")
    return t


def _run(fn: Any, X: Any, name: str) -> Any:
    """Each callable of ``fn`` (one, or one per head) on ``X`` in its own dtype and device; float64 on the CPU, side by side."""
    torch = import_torch()
    parts = callable_parts(fn)
    if not parts:
        raise ValueError(f"{name}: an empty list of heads")
    outs = [_tensor(f(placed(X, f)), f"{name}[{h}]" if len(parts) > 1 else name, X.shape[0]) for h, f in enumerate(parts)]
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


def _readout(r: Any, rows: int):
    if isinstance(r, (tuple, list)):
        if len(r) != 2:
            raise ValueError(f"readout: expected (beta, w), got {len(r)} outputs")
        beta = _tensor(r[0], "readout beta", rows)
        if beta.shape[1] != 1:
            raise ValueError(f"readout beta: expected shape ({rows},) or ({rows}, 1), got {tuple(beta.shape)}")
        return beta[:, 0], _tensor(r[1], "readout w", rows)
    both = _tensor(r, "readout", rows)
    return both[:, 0], both[:, 1:]


def _head_widths(given: Any, derived: list[int], total: int, name: str, what: str) -> list[int] | None:
    """The column cuts of one kind (heads or value_heads), checked as :func:`certify.torch.check` checks them."""
    widths = head_widths(given, derived, name, what)
    if widths is not None and sum(widths) != total:
        raise ValueError(f"{name} = {widths} sums to {sum(widths)}; the {what} have {total} columns")
    return widths


def predict_tensors(phi_q, phi_k, values, readout, X, idx, mask, q, delta, heads=None, value_heads=None):
    if isinstance(readout, (list, tuple)):
        raise ValueError("readout: one callable, returning β and every head's w side by side, not a list")
    (fq, wq), (fk, wk), (v, wv) = _run(phi_q, X, "phi_q"), _run(phi_k, X, "phi_k"), _run(values, X, "values")
    beta, w = _readout(readout(placed(X, readout)), X.shape[0])
    if fq.shape[1] != fk.shape[1] or (len(wq) > 1 or len(wk) > 1) and wq != wk:
        raise ValueError(f"phi_q's heads have widths {wq}, phi_k's {wk}")
    if w.shape[1] != v.shape[1]:
        raise ValueError(f"readout w has width {w.shape[1]}, values {v.shape[1]}")
    h = _head_widths(heads, wq, fq.shape[1], "heads", "feature maps")
    vh = _head_widths(value_heads, wv, v.shape[1], "value_heads", "values")
    if (h is not None and len(h) > 1) != (vh is not None and len(vh) > 1) or h and vh and len(h) != len(vh):
        raise ValueError(f"heads {h} and value_heads {vh} must give the same number of heads")
    return head_predictions(fq, fk, v, beta, w, idx, mask, q, delta, h, vh)


def _delta(delta: Any) -> float:
    """``delta`` as the float the loss uses: a number ``≥ 0`` (int, float, ``Fraction`` or ``"p/q"``) that a float64 holds."""
    try:
        value = Fraction(delta) if isinstance(delta, (str, Fraction, int)) else Fraction(float(delta))
        d = float(value)
    except (ValueError, TypeError, OverflowError, ZeroDivisionError):
        raise ValueError(f"delta = {delta!r}: a finite number ≥ 0") from None
    if value < 0 or not math.isfinite(d) or (value and d == 0):
        raise ValueError(f"delta = {delta!r}: a finite number ≥ 0 that a float64 holds")
    return d


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
    torch = import_torch()
    if type(steps) is not int or steps < 0:
        raise ValueError(f"steps = {steps!r}: an integer ≥ 0")
    if type(threads) is not int or threads < 1:
        raise ValueError(f"threads = {threads!r}: an integer ≥ 1")
    ft = family_tensors(family)
    if ft.inputs is None:
        raise ValueError(f"{ft.family.source}: more than {MAX_TENSOR_INPUTS:,} inputs; train on a smaller family")
    params = list({id(p): p for fn in (phi_q, phi_k, values, readout) for f in callable_parts(fn)
                   if isinstance(f, torch.nn.Module) for p in f.parameters() if p.requires_grad}.values())
    if not params:
        raise ValueError("nothing to train: none of phi_q, phi_k, values, readout is a torch.nn.Module with parameters")
    d = _delta(delta)
    torch.manual_seed(seed)
    old = torch.get_num_threads()
    torch.set_num_threads(threads)
    X, idx, mask, q, target = ft.tokens, ft.inputs.clamp(min=0), ft.mask, ft.query, ft.targets
    args = (X, idx, mask, q, d, heads, value_heads)
    progress = Progress(f"fit on {ft.inputs.shape[0]:,} inputs (steps)", total=steps)
    try:
        opt = torch.optim.Adam(params, lr=lr)
        for step in range(steps):
            loss = ((predict_tensors(phi_q, phi_k, values, readout, *args) - target) ** 2).mean()
            _finite(loss, step, steps, lr)
            opt.zero_grad()
            loss.backward()
            opt.step()
            progress.update(step + 1, f"loss {float(loss.detach()):.4g}")
        with torch.no_grad():
            loss = ((predict_tensors(phi_q, phi_k, values, readout, *args) - target) ** 2).mean()
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
