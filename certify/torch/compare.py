"""The user's whole layer against its table: :func:`compare` and the float :func:`predict` (``certify.torch``).

``certify.torch.check`` proves a verdict about the *table* of a head: each map evaluated on
each token alone (docs/math.md §2). A layer as a library runs it may not be that head — a
stabilizer over the sequence, rotary or other positional terms, a softmax over positions
make its outputs depend on more than the tokens. :func:`compare` runs the layer on the
family's sequences and measures, exactly, how far its predictions are from the table's
exact predictions (``certify.kernels.predict.exact_predictions``): a faithful layer differs
by float rounding, a layer with positional terms by far more. :func:`predict` is the
table's head in floating point, for users who want the float numbers themselves.
"""
from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction
from typing import Any, Callable

import numpy as np

from ..kernels.predict import exact_predictions
from ..kernels.report import decimal_text
from .fit import head_predictions
from .table import head_table
from .tensors import (MAX_TENSOR_INPUTS, call_on_tokens, family_of, family_tensors, float_dtype, import_torch,
                      positive_ints, raised)
from .tokenwise import dtype_name

#: The least relative tolerance of :func:`compare` by the layer's output dtype (relative to max(1, |t̂|)):
#: a layer computes the same sums in another order, so its float result differs by rounding.
COMPARE_RTOL = {"float64": 1e-9, "float32": 1e-4, "float16": 1e-2, "bfloat16": 5e-2}
#: Unit roundoff ``u`` of each dtype (half the distance from 1 to the next float).
UNIT_ROUNDOFF = {"float64": 2.0**-53, "float32": 2.0**-24, "float16": 2.0**-11, "bfloat16": 2.0**-8}


def depth(m: int, r: int, L: int, dv: int) -> int:
    """How many roundings a prediction goes through in a row: a token's projection (``m`` terms), a head's kernel
    (``r``), the sums over the ``L`` positions, the readout over the heads' ``Σ d_v`` values, the division and ``β``."""
    return m + r + L + dv + 2


def tolerance(dtype: str, n: int) -> float:
    """:func:`compare` 's default ``rtol``: the larger of :data:`COMPARE_RTOL` and ``n·u`` — the first-order bound
    ``γ_n ≈ n·u`` on the relative rounding of ``n`` operations in a row (Higham, *Accuracy and Stability of
    Numerical Algorithms*, §3.1), taken relative to max(1, |t̂|): a layer whose terms cancel far more needs rtol=."""
    return max(COMPARE_RTOL.get(dtype, 1e-9), n * UNIT_ROUNDOFF.get(dtype, 2.0**-53))


def predict(phi_q: Any, phi_k: Any, *, values: Any, readout: Callable, family: Any = "rank-nine", delta: Any = 0,
            heads: Any = None, value_heads: Any = None, dtype: Any = None) -> np.ndarray:
    """The head's prediction at every input's query, in float64 (``(B,)``): the float counterpart of the exact check.

    The callables are evaluated once on the family's tokens as :func:`certify.torch.check`
    does (the same table); then ``t̂ = β + Σ_h ⟨w_h, Σ_j α_h v_h / (δ + Σ_j α_h)⟩`` in float64.
    A listed family only (at most ``MAX_TENSOR_INPUTS`` inputs). ``dtype``: as for ``check``.
    """
    torch = import_torch()
    if values is None or readout is None:
        raise ValueError("predict needs values and readout (a kernel alone predicts nothing)")
    fam = family_of(family)
    if fam.streamed:
        raise ValueError(f"{fam.source}: more than {MAX_TENSOR_INPUTS:,} inputs; give a listed family")
    table, arrays, _ = head_table(phi_q, phi_k, values, readout, fam, delta, heads, value_heads, dtype)
    ft = family_tensors(fam)
    t = {k: torch.from_numpy(np.asarray(arrays[k], dtype=np.float64)) for k in ("phi_q", "phi_k", "values", "beta", "w")}
    with torch.no_grad():
        out = head_predictions(t["phi_q"], t["phi_k"], t["values"], t["beta"], t["w"], ft.inputs.clamp(min=0), ft.mask,
                               ft.query, float(table.delta), table.heads if table.head_count > 1 else None,
                               table.value_heads if table.head_count > 1 else None)
    return out.numpy()


@dataclass
class CompareReport:
    """A layer's predictions against its table's exact ones (:func:`compare`); differences are exact.

    Each input is judged on its own: ``|layer − t̂| ≤ rtol · max(1, |t̂|)``. ``worst_relative``
    is the largest ``|layer − t̂| / max(1, |t̂|)``, at ``input_index``; ``max_difference`` the
    largest absolute difference (``max_difference_index``).
    """

    max_difference: Fraction
    input_index: int | None
    inputs_checked: int
    inputs: int
    largest_prediction: Fraction
    rtol: float
    dtype: str
    layer_max_error: Fraction  # the layer's own |t̂ − t|, its floats read exactly
    table_max_error: Fraction  # the table's, exact
    worst_relative: Fraction = Fraction(0)
    max_difference_index: int | None = None
    depth: int | None = None  # the roundings in a row behind the default rtol (:func:`tolerance`); None: rtol= given
    float32: "CompareReport | None" = None  # a layer below float32: the same weights re-evaluated in float32
    float32_failed: str = ""  # why that re-evaluation could not run (a tensor outside any module, …)
    query_last_relative: Fraction | None = None  # disagreeing without query_last: the worst relative with it

    @property
    def within(self) -> bool:
        """Every input's prediction is its table's up to ``rtol`` (the layer in its own dtype)."""
        return self.inputs_checked > 0 and self.worst_relative <= Fraction(self.rtol)

    @property
    def agrees(self) -> bool:
        """The layer computes its table's head up to rounding. A layer below float32 re-evaluated in float32 is
        judged by that re-evaluation (its own dtype's tolerance is loose, and cannot tell a small positional term
        from rounding); otherwise by ``rtol`` in its own dtype."""
        return self.float32.within if self.float32 is not None else self.within

    def _allows(self) -> str:
        if self.depth is None:
            return f"rtol {self.rtol:.2g} as given"
        u = UNIT_ROUNDOFF.get(self.dtype)
        return (f"{self.dtype} rounding allows {self.rtol:.2g}: the larger of {COMPARE_RTOL.get(self.dtype, 1e-9):.0e} "
                f"and {self.depth} roundings in a row × u = 2^{int(np.log2(u)) if u else '?'}")

    def _line(self, what: str) -> str:
        part = "" if self.inputs_checked == self.inputs else f" (the first {self.inputs_checked:,} of {self.inputs:,})"
        where = f"family.inputs[{self.input_index}]" if self.input_index is not None else "no input"
        return (f"{what} vs its table on {self.inputs_checked:,} inputs{part}: largest difference "
                f"{float(self.max_difference):.3g}, worst relative to max(1, |t̂|) {float(self.worst_relative):.3g} "
                f"({where}; {self._allows()})")

    def text(self) -> str:
        head = self._line("layer")
        if self.agrees and self.float32 is not None:
            verdict = (f"the same weights in float32 compute their table's head (below), so the layer is the checked "
                       f"head up to {self.dtype} rounding — of its outputs, shown here, and of the table's features, "
                       "which the exact check takes as they are")
        elif self.agrees:
            verdict = "the layer computes its table's head, so the exact verdict on the table is about this layer"
        elif self.float32 is not None and self.within:
            verdict = (f"NOT its table's head: within {self.dtype}'s loose tolerance, but the same weights in float32 "
                       "differ from their table by far more than float32 rounding (below) — something in the layer "
                       "sees the sequence; the exact verdict is about the table, not this layer")
        else:
            verdict = ("the layer is NOT its table's head (something in it sees the sequence: positional terms such as "
                       "rotary embeddings, a stabilizer over positions, …; or it computes in a lower precision than its "
                       "output dtype, then pass rtol=); the exact verdict is about the table, not this layer")
            if self.query_last_relative is not None:
                verdict += (f". With each query last it agrees (worst relative {float(self.query_last_relative):.3g}): "
                            "a causal layer, whose last position sees the whole input; pass query_last=True")
        lines = [f"{head}: {verdict}"]
        if self.float32 is not None:
            lines.append(f"{self.float32._line('the same weights in float32')}: "
                         f"{'they compute' if self.float32.within else 'they do NOT compute'} the table's head")
        elif self.float32_failed:
            lines.append(f"no float32 re-evaluation: {self.float32_failed}")
        lines.append(f"max error: layer {decimal_text(self.layer_max_error)} (its floats), table "
                     f"{decimal_text(self.table_max_error)} (exact)")
        return "\n".join(lines)

    def to_json(self) -> dict[str, Any]:
        return {"agrees": self.agrees, "max_difference": {"exact": str(self.max_difference),
                                                          "decimal": decimal_text(self.max_difference)},
                "worst_relative": {"exact": str(self.worst_relative), "decimal": decimal_text(self.worst_relative)},
                "input_index": self.input_index, "max_difference_index": self.max_difference_index,
                "inputs_checked": self.inputs_checked, "inputs": self.inputs, "rtol": self.rtol, "dtype": self.dtype,
                "layer_max_error": decimal_text(self.layer_max_error), "table_max_error": decimal_text(self.table_max_error),
                "within": self.within, "depth": self.depth,
                "float32": None if self.float32 is None else self.float32.to_json(),
                "float32_failed": self.float32_failed or None,
                "query_last_relative": None if self.query_last_relative is None else {
                    "exact": str(self.query_last_relative), "decimal": decimal_text(self.query_last_relative)}}


def _query_outputs(out: Any, rows: int, L: int, qpos: Any) -> np.ndarray:
    """The layer's prediction at each sequence's query: ``(B, L)``/``(B, L, 1)`` per position, or ``(B,)``/``(B, 1)``."""
    a = out.detach().cpu().to(import_torch().float64).numpy() if hasattr(out, "detach") else np.asarray(out, dtype=np.float64)
    if a.ndim == 3 and a.shape[2] == 1:
        a = a[:, :, 0]
    if a.ndim == 2 and a.shape == (rows, L) and L > 1:
        return a[np.arange(rows), qpos]
    if a.ndim == 2 and a.shape[1] == 1:
        a = a[:, 0]
    if a.shape == (rows, L) and L == 1:
        a = a[:, 0]
    if a.shape != (rows,):
        raise ValueError(f"layer: expected predictions of shape ({rows}, {L}), ({rows}, {L}, 1) or ({rows},), "
                         f"got {tuple(a.shape)}")
    return a


def compare(layer: Callable, phi_q: Any, phi_k: Any, *, values: Any, readout: Callable, family: Any = "rank-nine",
            delta: Any = 0, heads: Any = None, value_heads: Any = None, query_last: bool = False,
            max_inputs: int = 100_000, batch: int = 4096, rtol: float | None = None, dtype: Any = None,
            device: Any = None) -> CompareReport:
    """Run ``layer`` on the family's sequences and compare its predictions with the exact ones of its table.

    ``layer`` maps sequences ``(B, L, m)`` of 0/1 tokens to predictions per position
    (``(B, L)`` or ``(B, L, 1)``; the query's is taken) or at the query (``(B,)``); a module
    gets them on its own device and in its own dtype, a plain function float64 on the CPU
    or ``dtype`` on ``device`` when given. ``phi_q`` … ``value_heads``: the
    tokenwise head the layer is meant to be, as for :func:`certify.torch.check`; its table's
    exact predictions are the reference. ``query_last=True`` puts each input's query last
    (causal layers: ``family_tensors(..., query_last=True)``); a layer that disagrees without
    it is tried with it, and the report says when that agrees. The first ``max_inputs``
    inputs, ``batch`` at a time, sequences of one length per call. The differences are
    exact (each float output read as the rational it is); ``rtol`` defaults to
    :func:`tolerance` of the output dtype and the head's depth. A layer whose output is below
    float32 (bfloat16, float16) is also re-evaluated with every floating parameter and buffer
    of the modules involved raised to float32 (exact for those dtypes, and put back after;
    plain callables given ``dtype=`` get float32 tokens): ``report.float32``, which then
    decides ``report.agrees``.
    """
    torch = import_torch()
    positive_ints(max_inputs=max_inputs, batch=batch)
    if rtol is not None and not (isinstance(rtol, (int, float, Fraction, np.floating, np.integer))
                                 and not isinstance(rtol, bool) and np.isfinite(float(rtol)) and rtol >= 0):
        raise ValueError(f"rtol = {rtol!r}: a finite number ≥ 0")
    fam = family_of(family)
    if fam.streamed:
        raise ValueError(f"{fam.source}: more than {MAX_TENSOR_INPUTS:,} inputs; give a listed family")
    dtype = float_dtype(dtype, "dtype")
    parts = (phi_q, phi_k, values, readout)
    args = (fam, delta, heads, value_heads, max_inputs, batch, rtol, dtype, device)
    report = _measure(layer, parts, query_last, *args)
    low = (torch.bfloat16, torch.float16)
    if report.dtype in ("bfloat16", "float16"):
        with raised(torch.float32, layer, *parts) as changed:
            if changed or dtype in low:
                try:
                    report.float32 = _measure(layer, parts, query_last, *args[:-2],
                                              torch.float32 if dtype in low else dtype, device)
                except ValueError as exc:  # a tensor held outside any module stays low: say so, keep the report
                    report.float32_failed = str(exc)
    if not report.agrees and not query_last and max(len(x.tokens) for x in fam.inputs) > 1:
        other = _measure(layer, parts, True, *args)
        if other.within:
            report.query_last_relative = other.worst_relative
    return report


def _measure(layer: Callable, parts: tuple, query_last: bool, fam: Any, delta: Any, heads: Any, value_heads: Any,
             max_inputs: int, batch: int, rtol: Any, dtype: Any, device: Any) -> CompareReport:
    """One run of the layer against its table (:func:`compare`)."""
    torch = import_torch()
    table, arrays, _ = head_table(*parts, fam, delta, heads, value_heads, dtype)
    total = min(len(fam.inputs), max_inputs)
    exact = exact_predictions(table, fam.inputs[:total], fam.m)
    ft = family_tensors(fam, query_last=query_last)
    X = ft.tokens
    worst, where, out_dtype = Fraction(0), None, "float64"
    rel_worst, rel_where = Fraction(0), None
    layer_err = Fraction(0)
    with torch.no_grad():
        for start in range(0, total, batch):
            idx = ft.inputs[start:min(start + batch, total)]
            lengths = (idx >= 0).sum(1)
            for L in sorted(set(int(v) for v in lengths)):
                rows = torch.nonzero(lengths == L)[:, 0]
                out = call_on_tokens(layer, X[idx[rows, :L]], dtype, device, "layer")
                if hasattr(out, "dtype"):
                    out_dtype = dtype_name(out.dtype)
                got = _query_outputs(out, len(rows), L, ft.query_position[start + rows].numpy())
                for k, value in zip(rows.tolist(), got.tolist()):
                    i = start + k
                    if not np.isfinite(value):
                        raise ValueError(f"layer: prediction {value} on family.inputs[{i}]; every output must be finite")
                    f = Fraction(value)  # exact: the float's own rational
                    d = abs(f - exact[i])
                    if d > worst:
                        worst, where = d, i
                    rel = d / max(Fraction(1), abs(exact[i]))
                    if rel > rel_worst:
                        rel_worst, rel_where = rel, i
                    layer_err = max(layer_err, abs(f - fam.inputs[i].target))
    table_err = max((abs(p - X_.target) for p, X_ in zip(exact, fam.inputs)), default=Fraction(0))
    n = None
    if rtol is None:
        widths = [int(v) for v in arrays["heads"]] if "heads" in arrays else [arrays["phi_q"].shape[1]]
        n = depth(fam.m, max(widths), max(len(x.tokens) for x in fam.inputs), arrays["values"].shape[1])
    tol = tolerance(out_dtype, n) if rtol is None else float(rtol)  # display and comparison: Fraction(tol) below
    largest = max((abs(p) for p in exact), default=Fraction(0))
    return CompareReport(worst, rel_where, total, len(fam.inputs), largest, tol, out_dtype, layer_err, table_err,
                         rel_worst, where, n)
