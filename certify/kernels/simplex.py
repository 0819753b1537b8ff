"""The exact simplex: two-phase, Bland's rule, python-flint ``fmpq``, sparse rows.

:func:`simplex` minimizes ``c·x`` subject to ``A x = b``, ``x ≥ 0``, exactly, and returns an
optimal dual solution with the optimum. ``certify.kernels.lp`` solves its certificate LP
with it (:func:`_simplex`, on ``fmpq`` data) and verifies every answer independently.

Rows are sparse: a tableau row is a dict ``{column: nonzero}``, so both the pivots and
their cost follow the nonzeros, not ``rows × columns``. Exact inputs only: :func:`as_fmpq`
takes ints, ``Fraction``, ``fmpz`` and ``fmpq`` and refuses floats.

>>> simplex([1, 2], [[1, 1]], [3])    # min x + 2y s.t. x + y = 3, x, y ≥ 0
(Fraction(3, 1), [Fraction(3, 1), Fraction(0, 1)], [Fraction(1, 1)])
"""
from __future__ import annotations

from fractions import Fraction
from functools import lru_cache
from typing import Any, Mapping, Sequence

__all__ = ["LPError", "as_fmpq", "simplex"]


class LPError(RuntimeError):
    """The solver's answer failed its own exact verification (a bug: exit 3)."""


# Raised here and by certify.kernels.lp's verification; its public name is certify.kernels.lp.LPError
# (re-exported there), which is what tracebacks and pickles keep calling it.
LPError.__module__ = "certify.kernels.lp"


def as_fmpq(v: Any, name: str = "value"):
    """``v`` as a python-flint ``fmpq``; ``TypeError`` unless it is exact (int, Fraction, fmpz or fmpq).

    The flint counterpart of :func:`certify.exact.exact`: the LP works in ``fmpq``
    throughout, so exact inputs are taken as they come, without a detour through
    ``Fraction``.
    """
    fmpq, fmpz = _flint_types()
    if isinstance(v, fmpq):
        return v
    if isinstance(v, Fraction):
        return fmpq(v.numerator, v.denominator)
    if isinstance(v, (int, fmpz)) and not isinstance(v, bool):
        return fmpq(v)
    raise TypeError(f"Argument {name!r} must be exact (int, Fraction or fmpq), not {type(v).__name__} {v!r}")


@lru_cache(maxsize=None)
def _flint_types():
    """``(fmpq, fmpz)``, imported once (``as_fmpq`` runs per coefficient; flint stays a lazy import)."""
    from flint import fmpq, fmpz

    return fmpq, fmpz


def _frac(v) -> Fraction:
    return Fraction(int(v.p), int(v.q))


def _sparse_row(row: Sequence | Mapping, name: str) -> dict[int, Any]:
    """The nonzeros of a dense or ``{index: value}`` row, as ``fmpq``."""
    items = row.items() if isinstance(row, Mapping) else enumerate(row)
    out = {}
    for j, v in items:
        q = as_fmpq(v, f"{name}[{j}]")
        if q != 0:
            out[j] = q
    return out


def simplex(c: Sequence, A: Sequence[Sequence | Mapping], b: Sequence):
    """Minimize ``c·x`` subject to ``A x = b``, ``x ≥ 0``, exactly (two-phase simplex, Bland's rule).

    Rows of ``A`` are dense sequences or ``{column: value}`` mappings. Returns
    ``(value, x, w)`` with ``w`` an optimal dual solution (``Aᵀw ≤ c``, ``b·w = value``),
    or raises ``LPError`` if the problem is infeasible or unbounded (the certificate LP
    of :func:`certify.kernels.lp.strict_feasibility` is neither).
    """
    value, x, w = _simplex([as_fmpq(v, f"c[{j}]") for j, v in enumerate(c)],
                           [_sparse_row(r, f"A[{i}]") for i, r in enumerate(A)],
                           [as_fmpq(v, f"b[{i}]") for i, v in enumerate(b)])
    return _frac(value), [_frac(v) for v in x], [_frac(v) for v in w]


def _simplex(c: list, rows: list[dict[int, Any]], b: list, rule: str = "bland"):
    """:func:`simplex` on ``fmpq`` data with sparse rows; returns ``fmpq`` values.

    A tableau row is a dict ``{column: nonzero}``; column ``n + i`` is the artificial of
    row ``i`` and column ``n + m`` the right-hand side. Pivots touch only the rows with
    a nonzero in the entering column and only the pivot row's nonzeros, and exact zeros
    are dropped, so the work follows the nonzeros. Bland's rule (smallest entering
    index; ties in the ratio test to the smallest basic index) makes the run, and so
    the answer, a function of the data alone. ``rule="dantzig"`` enters the most
    negative reduced cost instead (about half the pivots on the readout problems; the
    optimum reached may be another vertex), and falls back to Bland's rule, which
    cannot cycle, after ``m`` pivots in a row that do not move.
    """
    from flint import fmpq

    m, n = len(rows), len(c)
    zero, one = fmpq(0), fmpq(1)
    W = n + m  # the right-hand-side column
    sign = [1] * m
    tab: list[dict[int, Any]] = []
    for i in range(m):
        row = dict(rows[i])
        if b[i] != 0:
            row[W] = b[i]
        if b[i] < 0:
            row = {k: -v for k, v in row.items()}
            sign[i] = -1
        row[n + i] = one
        tab.append(row)
    basis = list(range(n, n + m))

    def pivot(obj: dict, neg: set, r: int, j: int) -> None:
        inv = one / tab[r][j]
        pr = {k: v * inv for k, v in tab[r].items()}
        tab[r] = pr
        items = list(pr.items())
        for i in range(m):
            row = tab[i]
            f = row.get(j) if i != r else None
            if f is None:
                continue
            for k, v in items:
                nv = row.get(k, zero) - f * v
                if nv == 0:
                    row.pop(k, None)
                else:
                    row[k] = nv
        f = obj.get(j)
        if f is not None:
            for k, v in items:
                nv = obj.get(k, zero) - f * v
                if nv == 0:
                    obj.pop(k, None)
                    neg.discard(k)
                else:
                    obj[k] = nv
                    if nv < zero:
                        neg.add(k)
                    else:
                        neg.discard(k)
        basis[r] = j

    def run(obj: dict, allowed: int) -> None:
        # neg: the columns with a negative reduced cost, kept up to date by pivot (Bland's rule reads its minimum).
        neg = {k for k, v in obj.items() if v < zero}
        stalled = 0  # consecutive degenerate pivots (Dantzig's rule can cycle on those)
        while True:
            if rule == "dantzig" and stalled <= m:
                entering = min((k for k in neg if k < allowed), key=lambda k: (obj[k], k), default=None)
            else:
                entering = min((k for k in neg if k < allowed), default=None)
            if entering is None:
                return
            best = None
            for r in range(m):
                a = tab[r].get(entering)
                if a is not None and a > zero:
                    ratio = tab[r].get(W, zero) / a
                    if best is None or ratio < best[0] or (ratio == best[0] and basis[r] < basis[best[1]]):
                        best = (ratio, r)
            if best is None:
                raise LPError("the linear program is unbounded")
            stalled = stalled + 1 if best[0] == 0 else 0
            pivot(obj, neg, best[1], entering)

    def subtract(obj: dict, f, row: dict, limit: int) -> None:
        for k, v in row.items():
            if k < limit or k == W:
                nv = obj.get(k, zero) - f * v
                if nv == 0:
                    obj.pop(k, None)
                else:
                    obj[k] = nv

    # Phase 1: minimize the sum of artificials; reduced costs = −(sum of rows) on non-artificials.
    obj1: dict[int, Any] = {}
    for row in tab:
        subtract(obj1, one, row, n)
    run(obj1, n)
    if obj1.get(W, zero) != 0:
        raise LPError("the linear program is infeasible")
    for r in range(m):  # drive artificials at level zero out of the basis where possible
        if basis[r] >= n:
            j = min((k for k in tab[r] if k < n), default=None)
            if j is not None:
                pivot(obj1, set(), r, j)
    # Phase 2: reduced costs of c with respect to the current basis.
    obj2 = {k: v for k, v in enumerate(c) if v != 0}
    for r in range(m):
        if basis[r] < n and c[basis[r]] != 0:
            subtract(obj2, c[basis[r]], tab[r], W)
    run(obj2, n)
    x = [zero] * n
    for r in range(m):
        if basis[r] < n:
            x[basis[r]] = tab[r].get(W, zero)
    # Dual: w_i = c_B B⁻¹ e_i, read from the artificial columns (B⁻¹ lives there), sign-corrected.
    w = [sign[i] * -obj2.get(n + i, zero) for i in range(m)]
    value = sum((c[k] * x[k] for k in range(n) if x[k] != 0), zero)
    return value, x, w
