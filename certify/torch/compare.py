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
from .tensors import MAX_TENSOR_INPUTS, call_on_tokens, family_of, import_torch, family_tensors, positive_ints
from .tokenwise import dtype_name

#: Relative tolerance of :func:`compare` by the layer's output dtype (relative to max(1, largest prediction)):
#: a layer computes the same sums in another order, so its float result differs by rounding.
COMPARE_RTOL = {"float64": 1e-9, "float32": 1e-4, "float16": 1e-2, "bfloat16": 5e-2}


def predict(phi_q: Any, phi_k: Any, *, values: Any, readout: Callable, family: Any = "rank-nine", delta: Any = 0,
            heads: Any = None, value_heads: Any = None) -> np.ndarray:
    """The head's prediction at every input's query, in float64 (``(B,)``): the float counterpart of the exact check.

    The callables are evaluated once on the family's tokens as :func:`certify.torch.check`
    does (the same table); then ``t̂ = β + Σ_h ⟨w_h, Σ_j α_h v_h / (δ + Σ_j α_h)⟩`` in float64.
    A listed family only (at most ``MAX_TENSOR_INPUTS`` inputs).
    """
    torch = import_torch()
    if values is None or readout is None:
        raise ValueError("predict needs values and readout (a kernel alone predicts nothing)")
    fam = family_of(family)
    if fam.streamed:
        raise ValueError(f"{fam.source}: more than {MAX_TENSOR_INPUTS:,} inputs; give a listed family")
    table, arrays, _ = head_table(phi_q, phi_k, values, readout, fam, delta, heads, value_heads)
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

    @property
    def agrees(self) -> bool:
        """Every input's prediction is its table's up to float rounding of the layer's dtype (:data:`COMPARE_RTOL`)."""
        return self.inputs_checked > 0 and self.worst_relative <= Fraction(self.rtol)

    def text(self) -> str:
        part = "" if self.inputs_checked == self.inputs else f" (the first {self.inputs_checked:,} of {self.inputs:,})"
        where = f"family.inputs[{self.input_index}]" if self.input_index is not None else "no input"
        head = (f"layer vs its table on {self.inputs_checked:,} inputs{part}: largest difference "
                f"{float(self.max_difference):.3g}, worst relative to max(1, |t̂|) {float(self.worst_relative):.3g} "
                f"({where}; {self.dtype} rounding allows {self.rtol:.0e})")
        verdict = ("the layer computes its table's head, so the exact verdict on the table is about this layer"
                   if self.agrees else
                   "the layer is NOT its table's head (something in it sees the sequence: positional terms such as "
                   "rotary embeddings, a stabilizer over positions, …; or it computes in a lower precision than its "
                   "output dtype, then pass rtol=); the exact verdict is about the table, not this layer")
        errors = (f"max error: layer {decimal_text(self.layer_max_error)} (its floats), table "
                  f"{decimal_text(self.table_max_error)} (exact)")
        return f"{head}: {verdict}\n{errors}"

    def to_json(self) -> dict[str, Any]:
        return {"agrees": self.agrees, "max_difference": {"exact": str(self.max_difference),
                                                          "decimal": decimal_text(self.max_difference)},
                "worst_relative": {"exact": str(self.worst_relative), "decimal": decimal_text(self.worst_relative)},
                "input_index": self.input_index, "max_difference_index": self.max_difference_index,
                "inputs_checked": self.inputs_checked, "inputs": self.inputs, "rtol": self.rtol, "dtype": self.dtype,
                "layer_max_error": decimal_text(self.layer_max_error), "table_max_error": decimal_text(self.table_max_error)}


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
    (causal layers: ``family_tensors(..., query_last=True)``). The first ``max_inputs``
    inputs, ``batch`` at a time, sequences of one length per call. The differences are
    exact (each float output read as the rational it is); ``rtol`` defaults to
    :data:`COMPARE_RTOL` of the output dtype.
    """
    torch = import_torch()
    positive_ints(max_inputs=max_inputs, batch=batch)
    if rtol is not None and not (isinstance(rtol, (int, float)) and np.isfinite(rtol) and rtol >= 0):
        raise ValueError(f"rtol = {rtol!r}: a finite number ≥ 0")
    fam = family_of(family)
    if fam.streamed:
        raise ValueError(f"{fam.source}: more than {MAX_TENSOR_INPUTS:,} inputs; give a listed family")
    table, _, _ = head_table(phi_q, phi_k, values, readout, fam, delta, heads, value_heads)
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
                out = call_on_tokens(layer, X[idx[rows, :L]], dtype, device)
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
    tol = COMPARE_RTOL.get(out_dtype, 1e-9) if rtol is None else float(rtol)
    largest = max((abs(p) for p in exact), default=Fraction(0))
    return CompareReport(worst, rel_where, total, len(fam.inputs), largest, tol, out_dtype, layer_err, table_err,
                         rel_worst, where)
