"""The exact check of a head given as PyTorch callables, and its export as a kernel table (docs/torch.md).

:func:`check` evaluates the callables once on the family's tokens (:mod:`certify.torch.table`),
builds the kernel table in memory and hands it to :func:`certify.kernels.audit.check_kernel`;
:func:`export` writes the same table as an ``.npz`` file.
"""
from __future__ import annotations

from dataclasses import dataclass, fields
from typing import Any, Callable

import numpy as np

from ..kernels.audit import KernelReport, check_kernel
from ..kernels.table import TableFormatError, npz_bytes
from .table import head_table
from .tensors import KeyEps, Stages, family_of

__all__ = ["check", "export", "CheckReport"]

#: What the exact check says of a zero denominator, and what to add: the way out that ``fit`` gives too.
ZERO_DENOMINATOR = "Σ_j α = 0; the model needs it positive"
ADD_DELTA = "; a ReLU-type feature map can vanish on a whole input: add delta (a library's eps)"


@dataclass
class CheckReport(KernelReport):
    """``check-kernel`` 's report (:class:`~certify.kernels.report.KernelReport`) of a head given as callables.

    ``text()`` is one string, as ``compare`` 's and ``verify_tokenwise`` 's are; ``lines()`` the
    list of lines ``certify check-kernel`` prints (``KernelReport.text``), with one more for
    ``delta=KeyEps(eps)``.
    """

    def lines(self) -> list[str]:
        lines = KernelReport.text(self)
        form = self.table.get("delta_form")
        if form:
            lines.insert(2, f"delta        {form}: checked as the head with query features φ_Q/Σ_i φ_Q,i and δ = eps, "
                            "whose predictions and kernel ranks are the same (docs/math.md §2, \"A query-dependent "
                            "denominator\")")
        return lines

    def text(self) -> str:  # type: ignore[override]
        return "\n".join(self.lines())


def check(phi_q: Any, phi_k: Any, *, values: Any = None, readout: Callable | None = None,
          family: Any = "rank-nine", delta: Any = 0, heads: Any = None, value_heads: Any = None,
          search_readout: bool = False, first_failure: bool = False, clip_negative_alpha: Any = None,
          dtype: Any = None) -> CheckReport:
    """The exact check of a head given as callables (see the module docstring); returns ``check-kernel``'s report.

    ``report.ok`` is the verdict (readout given: it solves the family; kernel only: some
    readout does); ``report.kernel_rank`` the exact rank on the family's query tokens;
    ``report.text()`` what ``certify check-kernel`` prints, one string (``report.lines()``: its
    lines). Several heads (lists of per-head callables, a :class:`~certify.torch.Layout` that
    declares them, or ``heads=`` / ``value_heads=``; see :func:`evaluate`): exact
    predictions with ``δ`` in every head's denominator, ``report.head_ranks`` each head's
    exact rank, no bound carried (docs/kernel-table-format.md, "Several heads"). ``delta``: a
    number, or :class:`~certify.torch.KeyEps` for ``δ(x) = eps·Σ_i φ_Q,i(x)`` (checked as
    :class:`~certify.torch.table.QueryScaledTable`). A zero denominator says to add ``delta``,
    as ``fit`` does. Progress on stderr after 2 s (``CERTIFY_PROGRESS``). Bad outputs
    (wrong shape, NaN, negative ``α`` on a used pair) raise ``ValueError`` /
    :class:`~certify.kernels.table.TableFormatError`; a contradiction with the certified
    theorem raises :class:`~certify.kernels.audit.KernelContradiction`. ``dtype``: the tokens'
    dtype for plain callables (default float64; modules get their own).
    """
    from fractions import Fraction

    from ..kernels.audit import parse_tolerance

    fam = family_of(family)
    with Stages("certify.torch.check") as progress:
        progress.update(stage=f"evaluating the head on the family's tokens ({fam.source})")
        table, _, _ = head_table(phi_q, phi_k, values, readout, fam, delta, heads, value_heads, dtype)
        if clip_negative_alpha is not None:
            tol = clip_negative_alpha
            table.clip_negative_alpha(Fraction(tol) if not isinstance(tol, str)
                                      else parse_tolerance(tol, "clip_negative_alpha"))
        progress.update(stage="the exact check (predictions, kernel rank)")
        try:
            report = check_kernel(table, fam, search_readout=search_readout, first_failure=first_failure)
        except TableFormatError as exc:
            raise with_way_out(exc) from None
    out = CheckReport(**{f.name: getattr(report, f.name) for f in fields(KernelReport)})
    if isinstance(delta, KeyEps):
        out.table["delta_form"] = f"δ(x) = {delta.eps:.3g}·Σ_i φ_Q,i(x) per head (KeyEps)"
    return out


def with_way_out(exc: TableFormatError) -> TableFormatError:
    """``exc``, with the way out that ``fit`` gives when it is a zero denominator (only possible with ``δ = 0``); the
    table file's hint (its ``delta`` field) is check-kernel's, not this API's."""
    text = str(exc)
    if ZERO_DENOMINATOR not in text:
        return exc
    return TableFormatError(text.split(" (a library's denominator constant goes in")[0] + ADD_DELTA)


def export(path: str, phi_q: Any, phi_k: Any, *, values: Any = None, readout: Callable | None = None,
           family: Any = "rank-nine", delta: Any = 0, heads: Any = None, value_heads: Any = None, note: str = "",
           dtype: Any = None) -> str:
    """Write the table :func:`check` would check as an ``.npz`` file (docs/kernel-table-format.md); return ``path``.

    The same bytes for the same arrays (members dated 1980-01-01). Check it later with
    ``certify check-kernel PATH --family …``.
    """
    from fractions import Fraction

    fam = family_of(family)
    if isinstance(delta, KeyEps):
        raise ValueError(f"delta={delta!r}: an .npz table holds float64 features and one constant δ, and the head of "
                         "KeyEps is φ_Q/Σ_i φ_Q,i with δ = eps, whose features are no float64; check() checks it exactly "
                         "in memory (docs/math.md §2, \"A query-dependent denominator\")")
    table, arrays, bits = head_table(phi_q, phi_k, values, readout, fam, delta, heads, value_heads, dtype)
    out: dict[str, Any] = {"tokens": np.array(bits)}
    out.update({k: arrays[k] for k in ("phi_q", "phi_k", "beta", "w", "values", "heads", "value_heads") if k in arrays})
    if table.delta:
        d = table.delta
        try:
            exact_float = float(d) if Fraction(float(d)) == d else None
        except OverflowError:
            exact_float = None
        if exact_float is None:
            raise ValueError(f"delta {d if len(str(d)) < 60 else '≈ %.3g' % float(min(d, 10**308))} is not a float64; "
                             "check() keeps it exact in memory, but an .npz table holds float64 (use a float64 delta)")
        out["delta"] = np.float64(exact_float)
    if note:
        out["note"] = np.array(note)
    from ..outputs import write_atomic

    write_atomic(path, npz_bytes(out, compress=True))
    return path
