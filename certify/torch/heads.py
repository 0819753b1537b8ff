"""The exact check of a head given as PyTorch callables, and its export as a kernel table (docs/torch.md).

:func:`check` evaluates the callables once on the family's tokens (:mod:`certify.torch.table`),
builds the kernel table in memory and hands it to :func:`certify.kernels.audit.check_kernel`;
:func:`export` writes the same table as an ``.npz`` file.
"""
from __future__ import annotations

from typing import Any, Callable

import numpy as np

from ..kernels.audit import KernelReport, check_kernel
from ..kernels.table import npz_bytes
from .table import head_table
from .tensors import family_of

__all__ = ["check", "export"]


def check(phi_q: Any, phi_k: Any, *, values: Any = None, readout: Callable | None = None,
          family: Any = "rank-nine", delta: Any = 0, heads: Any = None, value_heads: Any = None,
          search_readout: bool = False, first_failure: bool = False, clip_negative_alpha: Any = None,
          dtype: Any = None) -> KernelReport:
    """The exact check of a head given as callables (see the module docstring); returns ``check-kernel``'s report.

    ``report.ok`` is the verdict (readout given: it solves the family; kernel only: some
    readout does); ``report.kernel_rank`` the exact rank on the family's query tokens;
    ``report.text()`` the lines ``certify check-kernel`` prints. Several heads (lists of
    per-head callables, or ``heads=`` / ``value_heads=``; see :func:`evaluate`): exact
    predictions with ``δ`` in every head's denominator, ``report.head_ranks`` each head's
    exact rank, no bound carried (docs/kernel-table-format.md, "Several heads"). Bad outputs
    (wrong shape, NaN, negative ``α`` on a used pair) raise ``ValueError`` /
    :class:`~certify.kernels.table.TableFormatError`; a contradiction with the certified
    theorem raises :class:`~certify.kernels.audit.KernelContradiction`. ``dtype``: the tokens'
    dtype for plain callables (default float64; modules get their own).
    """
    from fractions import Fraction

    from ..kernels.audit import parse_tolerance

    fam = family_of(family)
    table, _, _ = head_table(phi_q, phi_k, values, readout, fam, delta, heads, value_heads, dtype)
    if clip_negative_alpha is not None:
        tol = clip_negative_alpha
        table.clip_negative_alpha(Fraction(tol) if not isinstance(tol, str) else parse_tolerance(tol, "clip_negative_alpha"))
    return check_kernel(table, fam, search_readout=search_readout, first_failure=first_failure)


def export(path: str, phi_q: Any, phi_k: Any, *, values: Any = None, readout: Callable | None = None,
           family: Any = "rank-nine", delta: Any = 0, heads: Any = None, value_heads: Any = None, note: str = "",
           dtype: Any = None) -> str:
    """Write the table :func:`check` would check as an ``.npz`` file (docs/kernel-table-format.md); return ``path``.

    The same bytes for the same arrays (members dated 1980-01-01). Check it later with
    ``certify check-kernel PATH --family …``.
    """
    from fractions import Fraction

    fam = family_of(family)
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
