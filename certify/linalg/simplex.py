"""The exact simplex: two-phase, Bland's rule, python-flint ``fmpq``, sparse rows.

:func:`simplex` minimizes ``c·x`` subject to ``A x = b``, ``x ≥ 0``, exactly, and returns an
optimal dual solution with the optimum. :mod:`certify.linalg.lp` solves its certificate LP
with it (:func:`simplex_fmpq`, on ``fmpq`` data) and verifies every answer independently.

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

__all__ = ["LPError", "as_fmpq", "as_fraction", "sparse_row", "simplex", "simplex_fmpq"]


class LPError(RuntimeError):
    """The solver's answer failed its own exact verification (a bug: exit 3)."""


# Raised here and by certify.linalg.lp's verification; its public name is certify.linalg.lp.LPError
# (re-exported there), which is what tracebacks and pickles keep calling it.
LPError.__module__ = "certify.linalg.lp"


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


def as_fraction(v) -> Fraction:
    return Fraction(int(v.p), int(v.q))


def sparse_row(row: Sequence | Mapping, name: str) -> dict[int, Any]:
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
    of :func:`certify.linalg.lp.strict_feasibility` is neither).
    """
    value, x, w = simplex_fmpq([as_fmpq(v, f"c[{j}]") for j, v in enumerate(c)],
                           [sparse_row(r, f"A[{i}]") for i, r in enumerate(A)],
                           [as_fmpq(v, f"b[{i}]") for i, v in enumerate(b)])
    return as_fraction(value), [as_fraction(v) for v in x], [as_fraction(v) for v in w]


def simplex_fmpq(c: list, rows: list[dict[int, Any]], b: list, rule: str = "bland"):
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
    tableau = _Tableau(rows, b, len(c), rule)
    tableau.phase_one()
    obj = tableau.phase_two(c)
    return tableau.solution(c, obj)


class _Tableau:
    """The tableau of :func:`simplex_fmpq`: ``A x = b`` with one artificial per row, and its basis.

    ``rows[i]``: row ``i`` as ``{column: nonzero}``, negated where ``b[i] < 0`` (``sign[i] = −1``)
    so that every right-hand side is ``≥ 0``; ``basis[i]``: the column basic in row ``i``,
    at first its artificial. An objective is a dict of reduced costs over the same columns,
    with minus its current value in column ``W``.
    """

    def __init__(self, rows: list[dict[int, Any]], b: list, n: int, rule: str) -> None:
        from flint import fmpq

        m = len(rows)
        self.m, self.n, self.rule = m, n, rule
        self.zero, self.one = zero, one = fmpq(0), fmpq(1)
        self.W = W = n + m  # the right-hand-side column
        self.sign = [1] * m
        self.rows: list[dict[int, Any]] = []
        for i in range(m):
            row = dict(rows[i])
            if b[i] != 0:
                row[W] = b[i]
            if b[i] < 0:
                row = {k: -v for k, v in row.items()}
                self.sign[i] = -1
            row[n + i] = one
            self.rows.append(row)
        self.basis = list(range(n, n + m))

    def pivot(self, obj: dict, neg: set, r: int, j: int) -> None:
        """Make column ``j`` basic in row ``r``: every row and ``obj`` (``neg``: its negative columns) updated."""
        tab, zero = self.rows, self.zero
        inv = self.one / tab[r][j]
        pr = {k: v * inv for k, v in tab[r].items()}
        tab[r] = pr
        items = list(pr.items())
        for i in range(self.m):
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
        self.basis[r] = j

    @staticmethod
    def entering(obj: dict, neg: set, allowed: int, dantzig: bool):
        """The entering column among ``neg`` below ``allowed``, ``None`` at the optimum.

        Bland's rule: the smallest column. Dantzig's: the most negative reduced cost (ties
        to the smallest column).
        """
        if dantzig:
            return min((k for k in neg if k < allowed), key=lambda k: (obj[k], k), default=None)
        return min((k for k in neg if k < allowed), default=None)

    def leaving(self, j: int):
        """The ratio test for entering column ``j``: ``(ratio, row)`` of the smallest ratio, ties
        to the smallest basic index; ``None`` if no row bounds ``j`` (unbounded)."""
        tab, basis, zero, W = self.rows, self.basis, self.zero, self.W
        best = None
        for r in range(self.m):
            a = tab[r].get(j)
            if a is not None and a > zero:
                ratio = tab[r].get(W, zero) / a
                if best is None or ratio < best[0] or (ratio == best[0] and basis[r] < basis[best[1]]):
                    best = (ratio, r)
        return best

    def run(self, obj: dict, allowed: int) -> None:
        """Pivot until no column below ``allowed`` has a negative reduced cost in ``obj``."""
        # neg: the columns with a negative reduced cost, kept up to date by pivot (Bland's rule reads its minimum).
        neg = {k for k, v in obj.items() if v < self.zero}
        stalled = 0  # consecutive degenerate pivots (Dantzig's rule can cycle on those)
        while True:
            entering = self.entering(obj, neg, allowed, self.rule == "dantzig" and stalled <= self.m)
            if entering is None:
                return
            best = self.leaving(entering)
            if best is None:
                raise LPError("the linear program is unbounded")
            stalled = stalled + 1 if best[0] == 0 else 0
            self.pivot(obj, neg, best[1], entering)

    def subtract(self, obj: dict, f, row: dict, limit: int) -> None:
        """``obj −= f·row`` on the columns below ``limit`` and the right-hand side."""
        zero, W = self.zero, self.W
        for k, v in row.items():
            if k < limit or k == W:
                nv = obj.get(k, zero) - f * v
                if nv == 0:
                    obj.pop(k, None)
                else:
                    obj[k] = nv

    def phase_one(self) -> None:
        """Minimize the sum of the artificials (``LPError`` if it stays positive), then drive
        those left basic at level zero out of the basis where possible."""
        n = self.n
        # reduced costs = −(sum of rows) on non-artificials.
        obj1: dict[int, Any] = {}
        for row in self.rows:
            self.subtract(obj1, self.one, row, n)
        self.run(obj1, n)
        if obj1.get(self.W, self.zero) != 0:
            raise LPError("the linear program is infeasible")
        for r in range(self.m):
            if self.basis[r] >= n:
                j = min((k for k in self.rows[r] if k < n), default=None)
                if j is not None:
                    self.pivot(obj1, set(), r, j)

    def phase_two(self, c: list) -> dict:
        """Minimize ``c·x`` from phase one's basis; returns the final reduced costs."""
        n, basis = self.n, self.basis
        obj2 = {k: v for k, v in enumerate(c) if v != 0}  # reduced costs of c with respect to the current basis
        for r in range(self.m):
            if basis[r] < n and c[basis[r]] != 0:
                self.subtract(obj2, c[basis[r]], self.rows[r], self.W)
        self.run(obj2, n)
        return obj2

    def solution(self, c: list, obj2: dict):
        """``(value, x, w)`` at the optimum, ``obj2`` phase two's reduced costs."""
        n, m, zero = self.n, self.m, self.zero
        x = [zero] * n
        for r in range(m):
            if self.basis[r] < n:
                x[self.basis[r]] = self.rows[r].get(self.W, zero)
        # Dual: w_i = c_B B⁻¹ e_i, read from the artificial columns (B⁻¹ lives there), sign-corrected.
        w = [self.sign[i] * -obj2.get(n + i, zero) for i in range(m)]
        value = sum((c[k] * x[k] for k in range(n) if x[k] != 0), zero)
        return value, x, w
