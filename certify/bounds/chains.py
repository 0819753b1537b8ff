"""Best chain factors per overlap rise (A.2; docs/math.md §4): ``Λ(d) = max Π μ_{g_i}`` over splits ``Σ g_i = d``.

:class:`ChainTable` is the exact dynamic program over gaps 2–7; :func:`pattern_split` a
valid split for interval mode, where ``d`` is too large for the program.
"""
from __future__ import annotations

import math

from .quantities import BoundsInputError

__all__ = ["MAX_GAP", "ChainTable", "chain_table", "pattern_split", "pattern_log2_squared", "split_log2"]


MAX_GAP = 7  # optimal chain gaps never exceed 7 (split g ≥ 8 into 3 + (g−3): 2A(g−4) ≥ g−1)


class ChainTable:
    """Best chain factors ``Λ(d) = max Π μ_{g_i}`` over splits ``Σ g_i = d`` (A.2; docs/math.md §4).

    Error ``< 1/2`` at exact length ``n``: ``μ_g = A·(g − 1)`` with ``A = n − 2``.
    Gaps of 1 prove nothing (``μ = 0``), and no gap above 7 is ever needed (splitting
    ``g ≥ 8`` into ``3 + (g − 3)`` gives ``2A²(g − 4) ≥ A(g − 1)``), so the exact
    dynamic program uses gaps 2–7. ``Λ`` is non-decreasing in ``d`` (lengthen the last
    gap), so pairs at distance ``≥ Δ`` all get at least ``Λ(Δ)``.
    """

    def __init__(self, A: int = 1) -> None:
        if not isinstance(A, int) or A < 1:
            raise BoundsInputError(f"chain multiplier A = n − 2 must be ≥ 1, not {A!r}")
        self.A = A
        self._best: list[int | None] = [1, None]
        self._arg: list[int | None] = [None, None]

    def _extend(self, d: int) -> None:
        A = self.A
        while len(self._best) <= d:
            e = len(self._best)
            top, arg = None, None
            for g in range(2, min(e, MAX_GAP) + 1):
                rest = self._best[e - g]
                if rest is not None:
                    cand = A * (g - 1) * rest
                    if top is None or cand > top:
                        top, arg = cand, g
            self._best.append(top)
            self._arg.append(arg)

    def squared(self, d: int) -> int | None:
        """``Λ(d)²`` (the trace–Frobenius bound uses the square), or None when ``Λ(d)`` is."""
        f = self.factor(d)
        return None if f is None else f * f

    def factor(self, d: int) -> int | None:
        """``Λ(d)``, or None when no split of ``d`` has every factor ≥ 1 (``d = 1``)."""
        self._extend(d)
        return self._best[d]

    def gaps(self, d: int) -> dict[int, int]:
        """An optimal split of ``d``, as ``{gap: count}``."""
        self._extend(d)
        out: dict[int, int] = {}
        while d > 0 and self._arg[d] is not None:
            g = self._arg[d]
            out[g] = out.get(g, 0) + 1
            d -= g
        return dict(sorted(out.items()))


_CHAIN_TABLES: dict[int, ChainTable] = {}


def chain_table(A: int) -> ChainTable:
    """One :class:`ChainTable` per ``A``, shared by all ``m`` (``Λ`` does not depend on ``M``), so a range extends one table."""
    table = _CHAIN_TABLES.get(A)
    if table is None:
        if len(_CHAIN_TABLES) >= 8:  # bounded: a caller cycling through many lengths does not pile up tables
            _CHAIN_TABLES.clear()
        table = _CHAIN_TABLES[A] = ChainTable(A)
    return table


def pattern_split(d: int, A: int) -> dict[int, int]:
    """A valid split of ``d`` for interval mode (no DP over huge ``d``).

    ``A = 1``: gaps of 5 and 4 with ``b = 4d mod 5`` fours (for ``d ≥ 16``; this equals
    the exact optimum for every ``d`` checked in the tests). Otherwise: the gap with
    the best factor per unit of overlap, the remainder added to the last gap.
    """
    if A == 1 and d >= 16:
        b = (4 * d) % 5
        return {4: b, 5: (d - 4 * b) // 5} if b else {5: d // 5}
    if d < 64:
        return chain_table(A).gaps(d)
    g = max(range(2, MAX_GAP + 1), key=lambda g: math.log(A * (g - 1)) / g)
    k, r = divmod(d, g)
    return {g: k} if r == 0 else {g: k - 1, g + r: 1}


def pattern_log2_squared(d: int, A: int) -> float:
    """Float ``log₂ Λ²`` of :func:`pattern_split` (for choosing ``Δ`` only)."""
    return 2 * sum(c * math.log2(A * (g - 1)) for g, c in pattern_split(d, A).items())


def split_log2(gaps: dict[int, int], A: int):
    """``log₂ Π μ_g`` as an arb ball."""
    from flint import arb

    total = arb(0)
    for g, c in gaps.items():
        total += c * arb(A * (g - 1)).log()
    return total / arb(2).log()
