"""Reed–Muller codes and shortened constant-weight codes from them (seeds for ``certify search``).

``RM(r, k)`` is the binary linear code of length ``2^k`` spanned by the evaluations of
the monomials of degree ``≤ r`` in ``k`` Boolean variables (coordinate ``p`` is the
point whose binary digits are ``p``'s bits). Its words of one weight ``w`` form a
constant-weight code whose directed distances are ``≥ d_min / 2``; **shortening** at
the first ``s`` coordinates keeps the words that vanish there and deletes those
coordinates — the distances between the kept words do not change, the length drops
to ``2^k − s``. This gives, for every length up to 32, codes with thousands of words
and directed distance ≥ 4 (``RM(2, 5)`` has minimum distance 8), which ``certify
search`` uses as starting points (docs/results.md).

>>> sorted(weight_distribution(reed_muller(2, 5)).items())
[(0, 1), (8, 620), (12, 13888), (16, 36518), (20, 13888), (24, 620), (32, 1)]
>>> code = shortened_words(2, 5, weight=12, length=26)
>>> code.size, code.length, code.weight, code.min_distance
(576, 26, 12, 4)
>>> reed_muller(3, 2)
Traceback (most recent call last):
...
codes.constant_weight.CodeError: RM(r, k) needs 0 ≤ r ≤ k ≤ 6, not r = 3, k = 2
"""
from __future__ import annotations

from collections import Counter
from itertools import combinations

from .constant_weight import CodeError, ConstantWeightCode

__all__ = ["reed_muller", "weight_distribution", "shortened_words"]


def reed_muller(r: int, k: int) -> tuple[int, ...]:
    """All ``2^{Σ_{i≤r} C(k,i)}`` words of ``RM(r, k)`` as ``2^k``-bit masks, sorted (``k ≤ 6``)."""
    if not (isinstance(r, int) and isinstance(k, int) and 0 <= r <= k <= 6):
        raise CodeError(f"RM(r, k) needs 0 ≤ r ≤ k ≤ 6, not r = {r}, k = {k}")
    rows = []
    for degree in range(r + 1):
        for monomial in combinations(range(k), degree):
            rows.append(sum(1 << p for p in range(1 << k) if all(p >> v & 1 for v in monomial)))
    words = [0]
    for row in rows:
        words += [w ^ row for w in words]
    if len(set(words)) != len(words):
        raise AssertionError(f"RM({r}, {k}): the monomial evaluations are not independent")
    return tuple(sorted(words))


def weight_distribution(words) -> Counter:
    """``Counter`` of word weights."""
    return Counter(w.bit_count() for w in words)


def shortened_words(r: int, k: int, weight: int, length: int) -> ConstantWeightCode:
    """The weight-``weight`` words of ``RM(r, k)`` that vanish on coordinates ``0 … 2^k − length − 1``, with those deleted.

    Raises
    ------
    CodeError
        If ``length`` is not in ``[1, 2^k]`` or fewer than two words remain.
    """
    n = 1 << k
    if not isinstance(length, int) or not 1 <= length <= n:
        raise CodeError(f"shortened length must be in [1, {n}], not {length!r}")
    s = n - length
    low = (1 << s) - 1
    words = tuple(w >> s for w in reed_muller(r, k) if w.bit_count() == weight and not w & low)
    if len(words) < 2:
        raise CodeError(f"RM({r}, {k}) shortened to length {length} has {len(words)} word(s) of weight {weight}")
    desc = f"the weight-{weight} words of RM({r}, {k})" + (f", shortened at {s} coordinates" if s else "")
    return ConstantWeightCode(length, weight, words, desc)
