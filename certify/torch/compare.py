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

from contextlib import nullcontext
from dataclasses import dataclass, field
from fractions import Fraction
from typing import Any, Callable

import numpy as np

from ..kernels.predict import exact_predictions
from ..kernels.report import decimal_text
from .fit import head_predictions
from .table import head_table
from .tensors import (MAX_TENSOR_INPUTS, KeyEps, Stages, call_on_tokens, family_of, family_tensors, float_dtype,
                      import_torch, positive_ints, raised)
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
    with Stages("certify.torch.predict") as progress:
        progress.update(stage=f"evaluating the head on the family's tokens ({fam.source})")
        table, arrays, _ = head_table(phi_q, phi_k, values, readout, fam, delta, heads, value_heads, dtype)
        progress.update(stage=f"predicting {len(fam.inputs):,} inputs in float64")
        ft = family_tensors(fam)
        d = delta if isinstance(delta, KeyEps) else float(table.delta)
        return _table_predictions(arrays, table, d, ft.inputs, ft.mask, ft.query).numpy()


def _table_predictions(arrays: dict, table: Any, d: Any, idx: Any, mask: Any, query: Any) -> Any:
    """The table's head in float64 with the denominator ``d`` (a float, or a ``KeyEps``) on the inputs ``idx``
    (``(B, L)`` token indices, ``-1`` padding; ``mask``) whose query tokens are ``query``:
    :func:`certify.torch.fit.head_predictions` on the table's arrays."""
    torch = import_torch()
    t = {k: torch.from_numpy(np.asarray(arrays[k], dtype=np.float64)) for k in ("phi_q", "phi_k", "values", "beta", "w")}
    with torch.no_grad():
        return head_predictions(t["phi_q"], t["phi_k"], t["values"], t["beta"], t["w"], idx.clamp(min=0), mask, query,
                                d, table.heads if table.head_count > 1 else None,
                                table.value_heads if table.head_count > 1 else None)


#: How far above its tolerance a difference must be before ``compare`` stops offering ``rtol=`` as a way out:
#: beyond it the difference is no rounding, and a looser rtol would accept a layer that is not its table's head.
FAR_ABOVE = 10


@dataclass
class CompareReport:
    """A layer's predictions against its table's exact ones (:func:`compare`); differences are exact.

    Each input is judged on its own: ``|layer − t̂| ≤ rtol · max(1, |t̂|)``. ``worst_relative``
    is the largest ``|layer − t̂| / max(1, |t̂|)``, at ``input_index``; ``max_difference`` the
    largest absolute difference (``max_difference_index``). A layer that disagrees is probed
    for the cause (``cause``, ``cause_text``, ``suggested_delta``: :func:`compare`); ``outputs``
    and ``predictions`` (float64, one per input checked) are what :meth:`plot` draws.
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
    cause: str | None = None  # a disagreeing layer's probes (:func:`_diagnose`): "order", "delta", "alone", "sequence"
    cause_text: str = ""
    suggested_delta: Any = None  # cause "delta": the denominator that makes the layer its table's head (float or KeyEps)
    outputs: Any = field(default=None, repr=False)  # the layer's prediction per input checked (float64)
    predictions: Any = field(default=None, repr=False)  # the table's exact prediction per input checked, as float64
    table_arrays: Any = field(default=None, repr=False)  # (table, arrays) of the head: the probes' reference

    @property
    def within(self) -> bool:
        """Every input's prediction is its table's up to ``rtol`` (the layer in its own dtype)."""
        return self.inputs_checked > 0 and self.worst_relative <= Fraction(self.rtol)

    @property
    def decisive(self) -> "CompareReport":
        """The comparison that decides: the float32 re-evaluation of a layer below float32 where there is one (its
        own dtype's tolerance is loose, and cannot tell a small positional term from rounding), else this one."""
        return self.float32 if self.float32 is not None else self

    @property
    def agrees(self) -> bool:
        """The layer computes its table's head up to rounding: the :attr:`decisive` comparison is within ``rtol``."""
        return self.decisive.within

    @property
    def far_above_rounding(self) -> bool:
        """The decisive comparison's worst relative difference is more than :data:`FAR_ABOVE` times its tolerance."""
        return self.decisive.worst_relative > FAR_ABOVE * Fraction(self.decisive.rtol)

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
                       "differ from their table by far more than float32 rounding (below)")
        else:
            verdict = "the layer is NOT its table's head"
        if not self.agrees:
            verdict += f"; the exact verdict is about the table, not this layer. {self._why()}"
        lines = [f"{head}: {verdict}"]
        if self.float32 is not None:
            lines.append(f"{self.float32._line('the same weights in float32')}: "
                         f"{'they compute' if self.float32.within else 'they do NOT compute'} the table's head")
        elif self.float32_failed:
            lines.append(f"no float32 re-evaluation: {self.float32_failed}")
        lines.append(f"max error: layer {decimal_text(self.layer_max_error)} (its floats), table "
                     f"{decimal_text(self.table_max_error)} (exact)")
        return "\n".join(lines)

    def _why(self) -> str:
        """The cause the probes found, and the way out; ``rtol=`` only for a difference near rounding."""
        if self.query_last_relative is not None:
            return (f"With each query last it agrees (worst relative {float(self.query_last_relative):.3g}): a causal "
                    "layer, whose last position sees the whole input; pass query_last=True")
        why = self.cause_text or "Probes found no single cause"
        if self.far_above_rounding:
            ratio = float(self.decisive.worst_relative / Fraction(self.decisive.rtol))
            return (f"{why}. The difference is {ratio:.3g} times the rounding tolerance: no rtol= makes it rounding "
                    "(a looser rtol would accept a layer that is not its table's head)")
        return (f"{why}. The difference is within {FAR_ABOVE}× the rounding tolerance: if the layer computes in a lower "
                "precision than its output dtype, pass rtol=")

    def plot(self, path: str, title: str | None = None) -> str:
        """Draw the layer's output against the table's prediction over the family as a PNG at ``path``; return it.

        Left: one point per input, the layer's output against the table's exact prediction,
        coloured by ``|layer − t̂| / max(1, |t̂|)``, with the line ``layer = t̂`` and the band
        ``± rtol·max(1, |t̂|)``. Right: that relative difference per input (``family.inputs[i]``)
        on a log scale, the tolerance drawn as a line and the worst input marked. Needs
        matplotlib (the optional extra ``plot``).
        """
        from .plot import compare_plot

        return compare_plot(self, path, title)

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
                    "exact": str(self.query_last_relative), "decimal": decimal_text(self.query_last_relative)},
                "cause": self.cause, "cause_text": self.cause_text or None,
                "suggested_delta": None if self.suggested_delta is None else repr(self.suggested_delta)}


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
    tokenwise head the layer is meant to be, as for :func:`certify.torch.check` (``delta``
    a number or a :class:`~certify.torch.tensors.KeyEps`); its table's
    exact predictions are the reference. ``query_last=True`` puts each input's query last
    (causal layers: ``family_tensors(..., query_last=True)``); a layer that disagrees without
    it is tried with it, and the report says when that agrees. The first ``max_inputs``
    inputs, ``batch`` at a time, sequences of one length per call. The differences are
    exact (each float output read as the rational it is); ``rtol`` defaults to
    :func:`tolerance` of the output dtype and the head's depth. A layer whose output is below
    float32 (bfloat16, float16) is also re-evaluated with every floating parameter and buffer
    of the modules involved raised to float32 (exact for those dtypes, and put back after;
    plain callables given ``dtype=`` get float32 tokens): ``report.float32``, which then
    decides ``report.agrees``. A layer that disagrees is probed for the cause
    (:func:`_diagnose`: the other tokens reversed, each query token alone, the denominator
    refitted); ``report.text()`` names it and the way out. Long runs show their progress on
    stderr (``CERTIFY_PROGRESS``, as the CLI).
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
    low = (torch.bfloat16, torch.float16)
    with Stages("certify.torch.compare", total=min(len(fam.inputs), max_inputs)) as progress:
        args = (fam, delta, heads, value_heads, max_inputs, batch, rtol, dtype, device, progress)
        report = _measure(layer, parts, query_last, *args)
        decisive = report
        if report.dtype in ("bfloat16", "float16"):
            with raised(torch.float32, layer, *parts) as changed:
                if changed or dtype in low:
                    try:
                        f32 = (torch.float32 if dtype in low else dtype, device)
                        report.float32 = decisive = _measure(layer, parts, query_last, *args[:-3], *f32, progress)
                    except ValueError as exc:  # a tensor held outside any module stays low: say so, keep the report
                        report.float32_failed = str(exc)
        causal = False
        if not report.agrees and not query_last and max(len(x.tokens) for x in fam.inputs) > 1:
            other = _measure(layer, parts, True, *args)
            if other.within:
                report.query_last_relative = other.worst_relative
            elif decisive is report and other.worst_relative < report.worst_relative and np.any(
                    np.abs(other.outputs - report.outputs) > report.rtol * np.maximum(1, np.abs(report.predictions))):
                decisive, causal = other, True  # it sees where the query is, and is nearer its table with it last
        if not report.agrees and report.query_last_relative is None:
            progress.update(stage="probing the layer for the cause of the difference")
            with raised(torch.float32, layer, *parts) if decisive.dtype != report.dtype else nullcontext():
                probe_dtype = (torch.float32 if dtype in low else dtype) if decisive.dtype != report.dtype else dtype
                found = _diagnose(layer, parts, decisive, query_last or causal, fam, delta, heads, value_heads,
                                  probe_dtype, device)
                if causal and found[0] == "order":
                    found = _diagnose(layer, parts, report, False, fam, delta, heads, value_heads, dtype, device)
                elif causal:
                    found = (found[0], f"With each query last — a causal layer, whose last position sees the whole "
                             f"input: pass query_last=True — it is nearer its table (worst relative "
                             f"{float(decisive.worst_relative):.3g}) but still not its head. {found[1]}", found[2])
            report.cause, report.cause_text, report.suggested_delta = found
    return report


def _measure(layer: Callable, parts: tuple, query_last: bool, fam: Any, delta: Any, heads: Any, value_heads: Any,
             max_inputs: int, batch: int, rtol: Any, dtype: Any, device: Any, progress: Any = None) -> CompareReport:
    """One run of the layer against its table (:func:`compare`)."""
    torch = import_torch()
    if progress is not None:
        progress.update(0, f"evaluating the head on the family's tokens ({fam.source})")
    table, arrays, _ = head_table(*parts, fam, delta, heads, value_heads, dtype)
    total = min(len(fam.inputs), max_inputs)
    if progress is not None:
        progress.update(0, "the table's exact predictions")
    exact = exact_predictions(table, fam.inputs[:total], fam.m)
    ft = family_tensors(fam, query_last=query_last)
    outputs, out_dtype = _layer_outputs(layer, ft.tokens, ft.inputs[:total], ft.query_position[:total], batch, dtype,
                                        device, progress)
    worst, where, rel_worst, rel_where, layer_err = Fraction(0), None, Fraction(0), None, Fraction(0)
    for i, value in enumerate(outputs.tolist()):
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
                         rel_worst, where, n, outputs=outputs, predictions=np.array([float(p) for p in exact]),
                         table_arrays=(table, arrays))


def _layer_outputs(layer: Callable, X: Any, idx: Any, qpos: Any, batch: int, dtype: Any, device: Any,
                   progress: Any = None) -> tuple[np.ndarray, str]:
    """``(outputs, dtype name)``: the layer's prediction at each row's query as float64, and its output dtype. The
    rows of ``idx`` (token indices, ``-1`` padding; the query at ``qpos``) run ``batch`` at a time, one call per
    sequence length (no padding enters a sequence)."""
    torch = import_torch()
    total = idx.shape[0]
    outputs, out_dtype = np.zeros(total), "float64"
    with torch.no_grad():
        for start in range(0, total, batch):
            block = idx[start:min(start + batch, total)]
            lengths = (block >= 0).sum(1)
            for L in sorted(set(int(v) for v in lengths)):
                rows = torch.nonzero(lengths == L)[:, 0]
                out = call_on_tokens(layer, X[block[rows, :L]], dtype, device, "layer")
                if hasattr(out, "dtype"):
                    out_dtype = dtype_name(out.dtype)
                got = _query_outputs(out, len(rows), L, qpos[start + rows].numpy())
                bad = np.flatnonzero(~np.isfinite(got))
                if len(bad):
                    i = start + int(rows[bad[0]])
                    raise ValueError(f"layer: prediction {got[bad[0]]} on family.inputs[{i}]; every output must be finite")
                outputs[(start + rows).numpy()] = got
            if progress is not None:
                progress.update(min(start + batch, total), "inputs run through the layer")
    return outputs, out_dtype


def _diagnose(layer: Callable, parts: tuple, decisive: CompareReport, query_last: bool, fam: Any, delta: Any,
              heads: Any, value_heads: Any, dtype: Any, device: Any) -> tuple[str, str, Any]:
    """Why a layer is not its table's head: ``(cause, text, suggested delta or None)`` (docs/torch.md, "When compare
    disagrees"). Probes, in this order, each judged at ``decisive.rtol`` relative to ``max(1, |t̂|)``:

    * ``"order"``: each input with its other tokens in reverse order (the query where it was). The model's
      prediction does not see the order of the keys (docs/math.md §2); a layer whose output moves has positional
      terms (rotary embeddings, cosFormer's position-dependent reweighting) or a causal mask.
    * ``"delta"``: the table's predictions with another denominator — a constant ``δ``, or
      ``δ(x) = ε·Σ_i φ_Q,i(x)`` (:class:`~certify.torch.tensors.KeyEps`), ``ε`` searched on a log scale. One that
      brings every input within ``rtol`` is the layer's denominator: the suggestion, for ``compare`` to confirm.
    * ``"alone"``: each query token alone, a sequence of one, against the table's head on it. A layer that differs
      there has something after attention that the affine readout does not hold (a norm such as RMSNorm, no
      denominator at all, a nonlinearity), or parts that are not the layer's.
    * ``"sequence"``: none of these — it agrees on tokens alone and does not see the order, but its maps see the
      other tokens (a per-feature normalisation over the sequence, a stabilizer with an eps).

    Floats throughout: a diagnosis of a layer already shown to differ, not a proof.
    """
    torch = import_torch()
    table, arrays = decisive.table_arrays
    total, tol = decisive.inputs_checked, decisive.rtol
    ft = family_tensors(fam, query_last=query_last)
    idx, mask, q, qpos = ft.inputs[:total], ft.mask[:total], ft.query[:total], ft.query_position[:total]
    out, scale = decisive.outputs, np.maximum(1.0, np.abs(decisive.predictions))
    run = lambda rows, at: _layer_outputs(layer, ft.tokens, rows, at, 4096, dtype, device)[0]  # noqa: E731

    rev = idx.clone()
    for i in range(total):
        others = [p for p in range(int(mask[i].sum())) if p != int(qpos[i])]
        rev[i, others] = idx[i, others[::-1]]
    moved = np.abs(run(rev, qpos) - out) / scale
    if moved.max() > tol:
        i = int(np.argmax(moved))
        return ("order", f"Its output depends on the order of the other tokens: with them in reverse order "
                f"family.inputs[{i}]'s prediction moves by {moved[i]:.3g} (relative to max(1, |t̂|)). The model's "
                "prediction does not see the order (docs/math.md §2): positional terms — rotary embeddings, a "
                "position-dependent reweighting such as cosFormer's — or a causal mask are outside its class", None)

    given = delta if isinstance(delta, KeyEps) else float(table.delta)

    def worst(d: Any) -> float:
        pred = _table_predictions(arrays, table, d, idx, mask, q).numpy()
        rel = np.abs(pred - out) / np.maximum(1.0, np.abs(pred))
        return float(rel.max()) if np.isfinite(rel).all() else float("inf")

    for form in (float, KeyEps):  # a constant first: δ = 0 is one, and KeyEps(ε → 0) would mimic it
        eps = _best_eps(lambda e: worst(form(e) if e else 0.0), allow_zero=form is float)
        if eps is not None and worst(form(eps) if eps else 0.0) <= tol:
            found = form(eps) if eps else 0.0
            if form is KeyEps:
                return ("delta", f"Its denominator depends on the query: with δ(x) = ε·Σ_i φ_Q,i(x), ε = {eps:.3g} — "
                        "a library that adds eps to every coordinate of the key sum, as performer-pytorch's causal op "
                        f"does — the table's predictions are the layer's within {tol:.2g}: pass "
                        f"delta=certify.torch.KeyEps({eps:.3g}) (docs/math.md §2, \"A query-dependent denominator\")",
                        found)
            return ("delta", f"Its denominator constant is not the one given ({_number(given)}): with δ = {eps:.3g} "
                    f"the table's predictions are the layer's within {tol:.2g}: pass delta={eps:.3g}", found)

    alone = run(q[:, None], torch.zeros(total, dtype=torch.int64))
    ones = torch.ones(total, 1, dtype=torch.float64)
    pred = _table_predictions(arrays, table, given, q[:, None], ones, q).numpy()
    off = np.abs(alone - pred) / np.maximum(1.0, np.abs(pred))
    if off.max() > tol:
        i = int(np.argmax(off))
        return ("alone", f"It differs from its table on a query token alone, a sequence of one "
                f"(family.inputs[{i}]'s query token: by {off[i]:.3g}), where no other token is in sight and no "
                "refitted denominator helps: something the affine readout of normalized averages does not hold — a "
                "norm after attention (RMSNorm, LayerNorm), no division by Σ_j α, a nonlinearity, or a key map that "
                "changes on a sequence of one (a per-feature normalisation over the sequence) — or parts that are not "
                "the layer's", None)
    return ("sequence", "It agrees with its table on each token alone and does not see the order of the other "
            "tokens, but differs on sequences: a map that sees the other tokens — a per-feature normalisation over "
            "the sequence (a softmax of the keys over positions), a stabilizer with an eps added after it; "
            "verify_tokenwise on its key map tells which", None)


def _number(d: Any) -> str:
    return repr(d) if isinstance(d, KeyEps) else f"{d:.3g}"


def _best_eps(worst: Callable[[float], float], allow_zero: bool) -> float | None:
    """The ``ε`` in ``[10⁻¹², 1]`` (and 0 when ``allow_zero``) with the least ``worst(ε)``: a grid of quarter decades,
    refined by golden section between the best point's neighbours, then rounded to two digits when that is as good
    (a library's eps is a round number)."""
    grid = [0.0] * allow_zero + [10.0 ** (k / 4) for k in range(-48, 1)]
    scores = [worst(e) for e in grid]
    k = int(np.argmin(scores))
    if not np.isfinite(scores[k]):
        return None
    best, score = grid[k], scores[k]
    if best > 0:
        lo, hi = np.log10(best) - 0.25, np.log10(best) + 0.25
        g = (np.sqrt(5) - 1) / 2
        for _ in range(40):
            a, b = hi - g * (hi - lo), lo + g * (hi - lo)
            if worst(10.0 ** a) <= worst(10.0 ** b):
                hi = b
            else:
                lo = a
        mid = 10.0 ** ((lo + hi) / 2)
        if worst(mid) < score:
            best, score = mid, worst(mid)
        rounded = float(f"{best:.2g}")
        if worst(rounded) <= score * 1.01 + 1e-300:
            best = rounded
    return best
