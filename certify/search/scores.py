"""The exact score of a code under the best chains (docs/math.md §4–§5; ``certify search``).

With the best chain per pair (factor ``F(d)`` for directed distance ``d``, :func:`factor_table`)
a code of ``t`` words certifies ``R = t² / (t + Σ F⁻²)`` (:func:`exact_ratio`; the local search
climbs it) and, by the sharpest last step of docs/math.md §5, :func:`sharp_bound` (by which the
search ranks the codes it chooses between). :func:`adding_keeps_ratio` says when a new word
does not lower ``R``.
"""
from __future__ import annotations

from collections import Counter
from fractions import Fraction
from typing import Sequence

from codes import distance_counts

from ..exact import exact
from ..lemmas.amplification import best_split
from ..lemmas.domination import HALF

__all__ = ["factor_table", "exact_pairs", "ratio_of_pairs", "exact_ratio", "sharp_bound", "adding_keeps_ratio"]

def factor_table(m: int, length: int = 3, error=HALF) -> list[Fraction | None]:
    """``F(d)`` for ``d = 0 … m``: the best chain factor of a rise ``d``, or ``None`` where no chain exists."""
    eps = exact(error, "error")
    table: list[Fraction | None] = [None]
    for d in range(1, m + 1):
        try:
            table.append(best_split(d, length, eps)[0])
        except ValueError:
            table.append(None)
    return table


def exact_pairs(words: Sequence[int], m: int) -> Counter:
    """Directed-distance counts over ordered pairs of distinct words (``codes.distance_counts``: numpy rows, exact)."""
    return distance_counts(words)


def ratio_of_pairs(t: int, pairs: Counter, F: Sequence[Fraction | None]) -> Fraction | None:
    if t < 2 or any(F[d] is None for d in pairs):
        return None
    sigma = sum((Fraction(c) / (F[d] * F[d]) for d, c in pairs.items()), Fraction(0))
    return Fraction(t * t) / (t + sigma)


def exact_ratio(words: Sequence[int], m: int, F: Sequence[Fraction | None]) -> Fraction | None:
    """``R = t² / (t + Σ F⁻²)`` of distinct ``words``, exactly; ``None`` if some pair has no chain."""
    return ratio_of_pairs(len(words), exact_pairs(words, m), F)


def sharp_bound(words: Sequence[int], m: int, F: Sequence[Fraction | None], pairs: Counter | None = None) -> int | None:
    """The largest bound the last steps of docs/math.md §5 prove for ``words`` under the best chains, exactly.

    Trace–Frobenius, null-shifted (Theorem A, exact best ``s``), square and, for a code of one
    weight, square-kernel (Lemma N; float search, exact value): the score by which the search
    ranks its seeds and the codes its local searches end with. ``None`` if some pair has no chain.
    Each costs milliseconds to a quarter of a second (it depends on the distinct distances only).
    """
    from ..lemmas.choice import best_argument
    from ..lemmas.sharper import factors_of

    pairs = exact_pairs(words, m) if pairs is None else pairs
    t = len(words)
    if t < 2 or any(F[d] is None for d in pairs):
        return None
    classes = {(F[d], d): c for d, c in pairs.items()}
    factors = factors_of(classes)
    one_weight = len({w.bit_count() for w in words}) == 1
    allowed = ("trace-frobenius", "null-shifted", "square", "square-kernel")
    return best_argument(t, factors, allowed, classes if one_weight else None, m if one_weight else None).rank_at_least


def adding_keeps_ratio(t: int, sigma, delta) -> bool:
    """Whether adding a word with new terms ``δ`` keeps ``t²/(t + σ)`` from dropping.

    ``(t+1)²/(t+1+σ+δ) ≥ t²/(t+σ)  ⇔  δ ≤ 1 + 1/t + σ(2t+1)/t²`` (exact; ``t ≥ 1``).
    """
    sigma, delta = exact(sigma, "sigma"), exact(delta, "delta")
    return delta <= 1 + Fraction(1, t) + sigma * (2 * t + 1) / (t * t)
