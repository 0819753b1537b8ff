"""Train a head given as PyTorch modules on a family: :func:`fit` (``certify.torch``; docs/torch.md).

For experiments and the worked examples; the head trained is the one ``certify.torch.check``
checks (docs/math.md §2), one head or several. :func:`head_predictions` is that head's
prediction in floating point, shared with ``certify.torch.predict``.
"""
from __future__ import annotations

import math
from typing import Any

import numpy as np

from ..check import Progress
from .table import callable_parts, head_labels, head_widths, part_widths
from .tensors import (MAX_TENSOR_INPUTS, KeyEps, call_on_tokens, declared_heads, delta_float, denominator_extra,
                      family_tensors, float_dtype, import_torch, modules_of)


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


def _run(fn: Any, X: Any, name: str, dtype: Any = None) -> Any:
    """Each callable of ``fn`` (one, or one per head) on ``X`` in its own dtype and device; float64 on the CPU, side by side.

    A plain callable gets ``X`` in ``dtype`` (default float64).
    """
    torch = import_torch()
    parts = callable_parts(fn)
    if not parts:
        raise ValueError(f"{name}: an empty list of heads")
    labels = head_labels(name, parts)
    outs = [_tensor(call_on_tokens(f, X, dtype, None, n, eval_mode=False), n, X.shape[0]) for f, n in zip(parts, labels)]
    widths = [w for f, o, n in zip(parts, outs, labels) for w in part_widths(f, o.shape[1], n)]
    return outs[0] if len(outs) == 1 else torch.cat(outs, dim=1), widths, any(declared_heads(f) > 1 for f in parts)


def head_predictions(fq, fk, v, beta, w, idx, mask, q, delta, heads=None, value_heads=None):
    """``t̂ = β(x) + Σ_h ⟨w_h(x), Σ_j α_h(x, x_j) v_h(x_j) / (δ + Σ_j α_h(x, x_j))⟩`` at each input's query, in float.

    ``fq``, ``fk``: ``(N, Σ r_h)``; ``v``, ``w``: ``(N, Σ d_h)``; ``beta``: ``(N,)``; ``idx``:
    ``(B, L)`` token indices (padding clamped to any index, ``mask`` 0 there); ``q``:
    ``(B,)`` the query's token. ``heads``/``value_heads``: the column cuts (one head if ``None``).
    ``delta``: a float, or a :class:`~certify.torch.tensors.KeyEps` (``eps·Σ_i φ_{Q,h,i}(x)`` in head ``h``).
    """
    heads = list(heads) if heads is not None else [fq.shape[1]]
    value_heads = list(value_heads) if value_heads is not None else [v.shape[1]]
    if len(heads) != len(value_heads):
        raise ValueError(f"{len(heads)} heads of features, {len(value_heads)} of values")
    out = beta[q]
    c = d = 0
    for r, dv in zip(heads, value_heads):
        alpha = (fq[q][:, None, c:c + r] * fk[idx][:, :, c:c + r]).sum(-1) * mask
        den = alpha.sum(1) + denominator_extra(delta, fq[q][:, c:c + r])
        head = (alpha[:, :, None] * v[idx][:, :, d:d + dv]).sum(1) / den[:, None]
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


def _head_widths(given: Any, derived: list[int], total: int, name: str, what: str, declared: bool) -> list[int] | None:
    """The column cuts of one kind (heads or value_heads), checked as :func:`certify.torch.check` checks them."""
    widths = head_widths(given, derived, name, what, declared)
    if widths is not None and sum(widths) != total:
        raise ValueError(f"{name} = {widths} sums to {sum(widths)}; the {what} have {total} columns")
    return widths


def predict_tensors(phi_q, phi_k, values, readout, X, idx, mask, q, delta, heads=None, value_heads=None, dtype=None):
    if isinstance(readout, (list, tuple)):
        raise ValueError("readout: one callable, returning β and every head's w side by side, not a list")
    if readout is None or values is None:
        raise ValueError(READOUT_NEEDED)
    (fq, wq, dq), (fk, wk, dk) = _run(phi_q, X, "phi_q", dtype), _run(phi_k, X, "phi_k", dtype)
    v, wv, dv = _run(values, X, "values", dtype)
    beta, w = _readout(call_on_tokens(readout, X, dtype, None, "readout", eval_mode=False), X.shape[0])
    if fq.shape[1] != fk.shape[1] or (len(wq) > 1 or len(wk) > 1) and wq != wk:
        raise ValueError(f"phi_q's heads have widths {wq}, phi_k's {wk}")
    if w.shape[1] != v.shape[1]:
        raise ValueError(f"readout w has width {w.shape[1]}, values {v.shape[1]}")
    h = _head_widths(heads, wq, fq.shape[1], "heads", "feature maps", dq or dk)
    vh = _head_widths(value_heads, wv, v.shape[1], "value_heads", "values", dv)
    if (h is not None and len(h) > 1) != (vh is not None and len(vh) > 1) or h and vh and len(h) != len(vh):
        raise ValueError(f"heads {h} and value_heads {vh} must give the same number of heads")
    return head_predictions(fq, fk, v, beta, w, idx, mask, q, delta, h, vh)


#: fit and predict without a readout: what to give.
READOUT_NEEDED = ("a head predicts through its values and readout: give values=… (the tokenwise values) and "
                  "readout=… (β and w; certify.torch.LinearHead builds both from a layer's parts)")


def parameters_of(*fns: Any) -> list:
    """The trainable parameters a head uses, each once: its modules', and those of the modules its plain callables use."""
    seen: dict[int, Any] = {}
    for fn in fns:
        for f in callable_parts(fn):
            for mod in modules_of(f):
                for p in mod.parameters():
                    if p.requires_grad:
                        seen.setdefault(id(p), p)
    return list(seen.values())


class TrainingDiverged(FloatingPointError):
    """:func:`fit` stopped: the loss is not finite. The modules are back at the last parameters that gave a finite loss."""


def fit(phi_q: Any, phi_k: Any, values: Any, readout: Any, *, family: Any = "rank-nine", steps: int = 500,
        lr: float = 0.01, delta: Any = 0.0, seed: int = 0, heads: Any = None, value_heads: Any = None,
        threads: int = 1, dtype: Any = None) -> float:
    """Train the head on a family's inputs (full batch, Adam, mean squared error); return the final loss.

    The head is the one ``certify.torch.check`` checks: ``α = ⟨phi_q(x), phi_k(z)⟩``,
    ``t̂ = β(x) + ⟨w(x), Σ_j α v(x_j) / (Σ_j α + δ)⟩``; several heads as lists of per-head
    callables (or ``heads=`` / ``value_heads=``), each head with its own denominator.
    Modules in any floating dtype (float64, float32, bfloat16, …) and on any device get the
    tokens in their own dtype and device; plain callables get them in ``dtype`` (default
    float64) on the CPU. The outputs meet in float64 on the CPU, where the loss is computed.
    Every trainable parameter the head uses is trained: its modules' (a
    :class:`~certify.torch.Layout` 's included) and those of the modules a plain callable
    uses (:func:`~certify.torch.tensors.modules_used_by`); at least one is needed. ``threads``
    torch threads (1, the default, is bit-for-bit reproducible); seeded: the same seed and
    modules give the same parameters. The modules are trained in place. A long run shows its
    progress on stderr (``CERTIFY_PROGRESS=0`` silences it). A loss that is not finite raises
    :class:`TrainingDiverged`, naming the step and the first non-finite tensor with its cause
    (an overflow, a zero denominator, …), and puts the parameters back to the last ones that
    gave a finite loss.
    """
    torch = import_torch()
    if type(steps) is not int or steps < 0:
        raise ValueError(f"steps = {steps!r}: an integer ≥ 0")
    if type(threads) is not int or threads < 1:
        raise ValueError(f"threads = {threads!r}: an integer ≥ 1")
    dtype = float_dtype(dtype)
    if isinstance(lr, bool) or not isinstance(lr, (int, float)) or not math.isfinite(lr) or lr <= 0:
        raise ValueError(f"lr = {lr!r}: a finite number > 0")
    ft = family_tensors(family)
    if ft.inputs is None:
        raise ValueError(f"{ft.family.source}: more than {MAX_TENSOR_INPUTS:,} inputs; train on a smaller family")
    if values is None or readout is None:
        raise ValueError(READOUT_NEEDED)
    params = parameters_of(phi_q, phi_k, values, readout)
    if not params:
        raise ValueError("nothing to train: none of phi_q, phi_k, values, readout is (or uses) a torch.nn.Module "
                         "with parameters")
    d = delta if isinstance(delta, KeyEps) else delta_float(delta)
    torch.manual_seed(seed)
    old = torch.get_num_threads()
    torch.set_num_threads(threads)
    X, idx, mask, q, target = ft.tokens, ft.inputs.clamp(min=0), ft.mask, ft.query, ft.targets
    parts = (phi_q, phi_k, values, readout)
    args = (X, idx, mask, q, d, heads, value_heads, dtype)
    progress = Progress(f"fit on {ft.inputs.shape[0]:,} inputs (steps)", total=steps, eta=True)
    last = (-1, [p.detach().clone() for p in params])  # the step whose parameters gave a finite loss, and them
    try:
        opt = torch.optim.Adam(params, lr=lr)
        for step in range(steps + 1):
            with torch.no_grad() if step == steps else torch.enable_grad():
                loss = ((predict_tensors(*parts, *args) - target) ** 2).mean()
            value = float(loss.detach())
            if not math.isfinite(value):
                with torch.no_grad():
                    why = diagnose(parts, params, args, names=("phi_q", "phi_k", "values", "readout"))
                    for p, saved in zip(params, last[1]):
                        p.copy_(saved)
                back = (f"the parameters are back at those of step {last[0]} (the last finite loss)" if last[0] >= 0
                        else "the loss was not finite at the start; the parameters are as given")
                raise TrainingDiverged(f"fit: the loss is {value} at step {step} of {steps} (lr {lr}): {why}; {back}")
            if step == steps:
                return value
            last = (step, [p.detach().clone() for p in params]) if step else (0, last[1])
            opt.zero_grad()
            loss.backward()
            opt.step()
            progress.update(step + 1, f"loss {value:.4g}")
        raise AssertionError("unreachable")
    finally:
        progress.close()
        torch.set_num_threads(old)


def _parameter_name(p: Any, parts: tuple, names: tuple) -> str | None:
    """``phi_k[1].owned.0.weight``: where a parameter sits in the head's callables, or None."""
    for name, fn in zip(names, parts):
        fns = callable_parts(fn)
        for f, label in zip(fns, head_labels(name, fns)):
            for mod in modules_of(f):
                prefix = "" if mod is f else f"<{type(mod).__name__}>."
                for sub, q in mod.named_parameters():
                    if q is p:
                        return f"{label}.{prefix}{sub}"
    return None


def diagnose(parts: tuple, params: list, args: tuple, names: tuple) -> str:
    """The first non-finite tensor of a diverged head and its cause, in the order the head computes them.

    A parameter; a callable's output on the tokens (``inf``: an overflow of its dtype; ``nan``:
    an invalid operation such as ``∞ − ∞`` or ``0·∞``); an input's denominator ``Σ_j α + δ``
    that is 0; else the predictions (an overflow in ``Σ_j α v``).
    """
    torch = import_torch()
    for i, p in enumerate(params):
        if not torch.isfinite(p).all():
            return (f"the parameter {_parameter_name(p, parts, names) or i} (shape {tuple(p.shape)}) is not finite: a "
                    "step made it so (an infinite or NaN gradient, e.g. from an overflow in the backward pass); "
                    "lower lr, or train in a wider dtype")
    X, idx, mask, q, d, heads, value_heads, dtype = args
    for name, fn in zip(names, parts):
        for f, label in zip(callable_parts(fn), head_labels(name, callable_parts(fn))):
            raw = call_on_tokens(f, X, dtype, None, label, eval_mode=False)
            tensors = raw if isinstance(raw, (tuple, list)) else [raw]
            for t in tensors:
                t = t if isinstance(t, torch.Tensor) else torch.as_tensor(np.asarray(t, dtype=np.float64))
                bad = torch.nonzero(~torch.isfinite(t))
                if len(bad):
                    k = tuple(int(v) for v in bad[0])
                    v = float(t[k])
                    cause = (f"an overflow: {str(t.dtype).replace('torch.', '')} holds at most "
                             f"{torch.finfo(t.dtype).max:.3g}" if math.isinf(v) and t.is_floating_point()
                             else "an invalid operation (∞ − ∞, 0·∞, 0/0) or an overflow before it")
                    return f"{label} is {v} at token {k[0]} ({''.join(str(int(b)) for b in X[k[0]].tolist())}): {cause}"
    fq, derived, _ = _run(parts[0], X, "phi_q", dtype)
    fk, _, _ = _run(parts[1], X, "phi_k", dtype)
    widths = derived if heads is None else list(heads)
    c = 0
    for h, r in enumerate(widths):
        den = (fq[q][:, None, c:c + r] * fk[idx][:, :, c:c + r]).sum(-1).mul(mask).sum(1) \
            + denominator_extra(d, fq[q][:, c:c + r])
        zero = torch.nonzero(den == 0)
        if len(zero):
            where = f"head {h}, " if len(widths) > 1 else ""
            return (f"a zero denominator: {where}family.inputs[{int(zero[0, 0])}] has Σ_j α + δ = 0 ({len(zero):,} "
                    "such inputs), as a ReLU-type feature map can make it; add delta (a library's eps)")
        c += r
    return "the predictions overflow (Σ_j α v or the readout) although every map's output is finite; lower lr"
