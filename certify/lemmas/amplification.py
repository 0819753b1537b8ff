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
    favour = frozenset(prefer)
    mus = [Fraction(0)] + [domination_factor(g, length, eps) if factor is None else factor(g) for g in range(1, rise + 1)]
    if all(m.denominator == 1 for m in mus):  # integer factors (n = 3, ε = 1/2: μ_g = g − 1): the same DP on ints,
        mus = [m.numerator for m in mus]     # exactly the same comparisons, without Fraction's gcd per step
    # best[a] = (factor, -jumps, preferred levels, gaps) of the best chain from level a to rise.
    best: list[tuple[Fraction | int, int, int, tuple[int, ...]] | None] = [None] * (rise + 1)
    best[rise] = (1, 0, 0, ()) if isinstance(mus[0], int) else (Fraction(1), 0, 0, ())
    for a in range(rise - 1, -1, -1):
        top = None
        for g in range(rise - a, 0, -1):
            rest = best[a + g]
            if mus[g] < 1 or rest is None:
                continue
            b = a + g
            cand = (mus[g] * rest[0], rest[1] - 1, rest[2] + (b < rise and b in favour), (g,) + rest[3])
            if top is None or cand[:3] > top[:3]:
                top = cand
        best[a] = top
    if best[0] is None:
        raise ValueError(f"no split of an overlap rise of {rise} has every jump factor ≥ 1")
    return Fraction(best[0][0]), best[0][3]


def levels_from_gaps(gaps: Iterable[int]) -> tuple[int, ...]:
    """Chain levels ``0, g_1, g_1+g_2, …`` from a list of gaps."""
    levels = [0]
    for g in gaps:
        levels.append(levels[-1] + g)
    return tuple(levels)
