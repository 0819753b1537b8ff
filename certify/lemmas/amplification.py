"""Chain amplification: factors multiply along a chain of jumps (A.2; docs/math.md §4).

Keys ``y_0, …, y_k`` with strictly increasing overlaps with ``x``, each consecutive
triple a jump with factor ``f_i ≥ 1``, give ``α(x,y_0) > (Π f_i)·α(x,y_k)``.

>>> chain_factor([2, 2])
Fraction(4, 1)
>>> [best_split(d)[0] for d in range(2, 13)]
[Fraction(1, 1), Fraction(2, 1), Fraction(3, 1), Fraction(4, 1), Fraction(5, 1), Fraction(6, 1), Fraction(9, 1), Fraction(12, 1), Fraction(16, 1), Fraction(20, 1), Fraction(27, 1)]
>>> best_split(9)[1], best_split(12)[1]
((5, 4), (4, 4, 4))
>>> chain_factor([2, Fraction(1, 2)])
Traceback (most recent call last):
...
ValueError: jump 1 has factor 1/2 < 1; weight domination gives no preference there
"""
from __future__ import annotations

from fractions import Fraction
from typing import Callable, Iterable

from .domination import HALF, domination_factor
from ..exact import exact

__all__ = ["chain_factor", "best_split", "levels_from_gaps"]


def chain_factor(factors: Iterable) -> Fraction:
    """``Π f_i`` for jump factors ``f_i ≥ 1`` (A.2 amplification; docs/math.md §4).

    Raises
    ------
    ValueError
        If the chain is empty or some ``f_i < 1`` (weight domination needs ``μ ≥ 1``).
    TypeError
        If some factor is not exact.
    """
    product = Fraction(1)
    count = 0
    for i, f in enumerate(factors):
        f = exact(f, f"factors[{i}]")
        if f < 1:
            raise ValueError(f"jump {i} has factor {f} < 1; weight domination gives no preference there")
        product *= f
        count += 1
    if count == 0:
        raise ValueError("a chain needs at least one jump")
    return product


def best_split(
    rise: int, length: int = 3, error=HALF, factor: Callable[[int], Fraction] | None = None,
    prefer: Iterable[int] = (),
) -> tuple[Fraction, tuple[int, ...]]:
    """The split of an overlap rise into gaps that maximizes the chain factor ``Π μ_{g_i}``.

    Only gaps with ``μ_g ≥ 1`` are used (at ``n = 3, ε = 1/2``: ``g ≥ 2``, ``μ_g = g − 1``);
    docs/math.md §4 lists the maxima 1, 2, 3, 4, 5, 6, 9, 12, 16, 20, 27 for ``d = 2..12``.
    This is the longest path from level 0 to level ``rise`` in the DAG whose nodes are
    the overlap levels and whose edge ``a → b`` has weight ``μ_{b−a}`` (multiplied, not
    added); it is solved by exact dynamic programming over the levels, from the top
    down. Ties go to fewer jumps, then to more intermediate levels in ``prefer``, then
    to the larger first gap.

    Parameters
    ----------
    rise : int
        The overlap rise ``d ≥ 1``.
    length, error
        ``n ≥ 3`` and ``ε`` (exact) of weight domination.
    factor : callable, optional
        Replaces ``μ_g`` by another per-gap factor (e.g. ``(g−1)/2`` of A.4).
    prefer : iterable of int
        Levels to favour among equally good chains (e.g. levels where a codeword's
        complement can serve as the key, so that chains share jumps).

    Returns
    -------
    (factor, gaps)

    Raises
    ------
    ValueError
        If no split of ``rise`` has all factors ``≥ 1``.
    """
    eps = exact(error, "error")
    if not isinstance(rise, int) or isinstance(rise, bool) or rise < 1:
        raise ValueError(f"Argument 'rise' must be an int ≥ 1, not {rise!r}")
    key = (length, eps, factor, frozenset(prefer))
    table = _TABLES.pop(key, None) or _SplitTable(length, eps, factor, key[3])
    _TABLES[key] = table  # most recently used last
    while len(_TABLES) > MAX_TABLES:
        del _TABLES[next(iter(_TABLES))]
    entry = table.upto(rise)
    if entry is None:
        raise ValueError(f"no split of an overlap rise of {rise} has every jump factor ≥ 1")
    return Fraction(entry[0]), entry[3]


#: Tables of :class:`_SplitTable` kept (least recently used dropped first): one per length, error, factor and
#: preferred levels; a plan asks for every distance of its code from the same table.
MAX_TABLES = 32
_TABLES: dict = {}


class _SplitTable:
    """The best chains from level 0 to every level ``b ≤`` the largest rise asked so far, extended on demand.

    ``best[b] = (factor, −jumps, preferred intermediate levels, gaps)`` of the best chain
    ``0 → b``; a chain to ``b`` is a best chain to ``a = b − g`` and one more gap ``g``, whose
    level ``a`` becomes intermediate. Among chains of equal (factor, −jumps, preferred) the
    gap sequence that is lexicographically largest wins: this is :func:`best_split`'s "larger
    first gap", at every position (two different splits of one rise first differ at a position
    both have, so comparing their extensions by one more gap is comparing them). The levels are
    counted from 0, so one table answers every rise: ``best_split(d) = best[d]``, and a plan's
    148 distances cost one ``O(D²)`` pass instead of 148 (4,096-bit codes: 93 s → under 3 s).
    Factors are ints while every ``μ_g`` is an integer (``n = 3, ε = 1/2``), else ``Fraction`` s.
    """

    def __init__(self, length: int, eps: Fraction, factor, favour: frozenset) -> None:
        self.length, self.eps, self.factor, self.favour = length, eps, factor, favour
        self.mus: list = [0]
        self.best: list = [(1, 0, 0, ())]

    def upto(self, rise: int):
        mus, best, favour = self.mus, self.best, self.favour
        for g in range(len(mus), rise + 1):
            mu = domination_factor(g, self.length, self.eps) if self.factor is None else self.factor(g)
            mus.append(mu.numerator if mu.denominator == 1 else mu)
        for b in range(len(best), rise + 1):
            top = None
            for g in range(1, b + 1):
                prev = best[b - g]
                if prev is None or mus[g] < 1:
                    continue
                a = b - g
                cand = (mus[g] * prev[0], prev[1] - 1, prev[2] + (a > 0 and a in favour), prev[3] + (g,))
                if top is None or cand > top:
                    top = cand
            best.append(top)
        return best[rise]


def levels_from_gaps(gaps: Iterable[int]) -> tuple[int, ...]:
    """Chain levels ``0, g_1, g_1+g_2, …`` from a list of gaps."""
    levels = [0]
    for g in gaps:
        levels.append(levels[-1] + g)
    return tuple(levels)
