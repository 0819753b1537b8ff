"""Constant-weight codes in the middle layer: build, verify, describe (docs/math.md §5, §7).

A code here is a set of ``t`` subsets ``S ⊆ [M]``, all of the same size ``w``, stored
as ``int`` bitmasks. Its *minimum directed distance* is ``min |S \\ U|`` over distinct
words; for equal-size sets this is half the minimum Hamming distance. The rank
argument of A.2 uses ``w = M/2`` (query ``x_S``, preferred key ``x_{S^c}``).

>>> code = greedy_code(8, 4, 2)
>>> code.size, code.min_distance
(14, 2)
>>> verify_code([0b0011, 0b0101], length=4, weight=2, min_distance=2)
Traceback (most recent call last):
...
codes.constant_weight.CodeError: words 0 ('1100') and 1 ('1010') have directed distance 1, below the required 2
"""
from __future__ import annotations

from dataclasses import dataclass
from math import comb
from typing import Iterable, Iterator

from .tokens import TokenFormatError, directed_distance, from_bits, to_bits
from .views import CodeViews

__all__ = [
    "CodeError",
    "ConstantWeightCode",
    "verify_code",
    "greedy_code",
    "greedy_scan_bound",
    "colex_words",
]


class CodeError(ValueError):
    """A set of words is not a code with the stated parameters; the message names the word or pair."""


@dataclass(frozen=True)
class ConstantWeightCode(CodeViews):
    """An immutable, validated constant-weight code.

    Parameters
    ----------
    length : int
        ``M``, the number of coordinates (≥ 1).
    weight : int
        ``w``, the common number of ones of every word.
    words : tuple of int
        The codewords as bitmasks, distinct, in a fixed order (the order is part of
        the code: certificates index words by position).
    description : str
        How the code was made (for humans; written into certificates).

    Raises
    ------
    CodeError
        If a word has the wrong length or weight, or two words are equal.

    Notes
    -----
    Derived values (``size``, ``min_distance``, ``distance_counts``) are computed once,
    on first use.
    """

    length: int
    weight: int
    words: tuple[int, ...]
    description: str = ""

    def __post_init__(self) -> None:
        if not isinstance(self.length, int) or self.length < 1:
            raise CodeError(f"Argument 'length' must be a positive int, not {self.length!r}")
        if not isinstance(self.weight, int) or not 0 <= self.weight <= self.length:
            raise CodeError(
                f"Argument 'weight' must be an int in [0, {self.length}], not {self.weight!r}"
            )
        words = tuple(self.words)
        object.__setattr__(self, "words", words)
        seen: dict[int, int] = {}
        for i, x in enumerate(words):
            if not isinstance(x, int) or x < 0 or x >> self.length:
                raise CodeError(f"word {i} ({x!r}) is not a token of length {self.length}")
            if x.bit_count() != self.weight:
                raise CodeError(
                    f"word {i} ('{to_bits(x, self.length)}') has weight {x.bit_count()}, "
                    f"expected {self.weight}"
                )
            if x in seen:
                raise CodeError(
                    f"words {seen[x]} and {i} are equal ('{to_bits(x, self.length)}')"
                )
            seen[x] = i

    @classmethod
    def from_bits(cls, words: Iterable[str], description: str = "") -> "ConstantWeightCode":
        """Build a code from 0/1 strings; length and weight are read off the first word."""
        words = list(words)
        if not words:
            raise CodeError("a code needs at least one word")
        m = len(words[0])
        try:
            masks = tuple(from_bits(s, m) for s in words)
        except TokenFormatError as exc:
            raise CodeError(str(exc)) from None
        return cls(m, masks[0].bit_count(), masks, description)


def verify_code(
    words: Iterable[int], length: int, weight: int, min_distance: int
) -> ConstantWeightCode:
    """Check that ``words`` is a constant-weight code with the stated parameters.

    Parameters
    ----------
    words : iterable of int
        Bitmasks.
    length, weight, min_distance : int
        ``M``, ``w`` and the required minimum directed distance ``Δ``.

    Returns
    -------
    ConstantWeightCode

    Raises
    ------
    CodeError
        Naming the first offending word (length, weight, repetition) or pair
        (distance below ``Δ``), in index order.
    """
    code = ConstantWeightCode(length, weight, tuple(words))
    ws = code.words
    for i, a in enumerate(ws):
        for j in range(i + 1, len(ws)):
            d = directed_distance(a, ws[j])
            if d < min_distance:
                raise CodeError(
                    f"words {i} ('{to_bits(a, length)}') and {j} ('{to_bits(ws[j], length)}') "
                    f"have directed distance {d}, below the required {min_distance}"
                )
    return code


def colex_words(length: int, weight: int) -> Iterator[int]:
    """All ``weight``-subsets of ``[length]`` as bitmasks, in increasing integer order.

    Increasing integer order is colexicographic order on sets (Gosper's hack: the next
    larger integer with the same popcount).
    """
    if weight == 0:
        yield 0
        return
    x = (1 << weight) - 1
    limit = 1 << length
    while x < limit:
        yield x
        low = x & -x
        ripple = x + low
        x = (((ripple ^ x) >> 2) // low) | ripple


def greedy_scan_bound(length: int, weight: int, min_distance: int, cap: int | None = None) -> int:
    """An upper bound on the distance checks of :func:`greedy_code`, from its arguments alone.

    Each of the ``C(M, w)`` candidates is compared with at most ``size`` kept words, and
    ``size ≤ C(M, w − Δ + 1) / C(w, w − Δ + 1)`` (two words at directed distance ``≥ Δ``
    share no ``(w − Δ + 1)``-subset; the packing bound), at most ``cap`` when capped.
    Conflicts usually end a candidate's comparisons early, so the real count is often far
    lower. With ``Δ = 1`` every word is kept, without comparisons (one step per candidate).
    """
    n = comb(length, weight)
    if min_distance <= 1:  # every other word of the weight is at directed distance ≥ 1: kept without comparisons
        return n
    k = weight - min_distance + 1
    size = n if k < 1 else min(n, comb(length, k) // comb(weight, k))
    if cap is not None:
        size = min(size, cap)
    return n * size


def greedy_code(
    length: int, weight: int, min_distance: int, cap: int | None = None
) -> ConstantWeightCode:
    """The greedy (colex) constant-weight code: deterministic, maximal unless capped.

    Scans all ``weight``-subsets of ``[length]`` in increasing integer order and keeps
    each one whose directed distance to every word kept so far is at least
    ``min_distance``; stops after ``cap`` words when a cap is given. This is the
    Gilbert–Varshamov greedy argument of A.2 (docs/math.md §7, "Packing"): without a cap
    the result is maximal, so it has at least ``C(M, w) / V`` words where ``V`` counts
    the words within directed distance ``< Δ`` of a fixed one.

    Parameters
    ----------
    length, weight, min_distance : int
        ``M``, ``w``, ``Δ`` (``Δ ≥ 1``).
    cap : int, optional
        Stop after this many words.

    Raises
    ------
    CodeError
        On parameters out of range.

    Notes
    -----
    Cost is ``C(M, w) × size`` popcounts in the worst case; for ``M = 24, w = 12,
    Δ = 6`` the uncapped scan takes under a second and finds 24 words.
    """
    for name, value in (("length", length), ("weight", weight), ("min_distance", min_distance)):
        if not isinstance(value, int) or isinstance(value, bool):
            raise CodeError(f"Argument {name!r} must be an int, not {value!r}")
    if length < 1 or not 0 <= weight <= length:
        raise CodeError(f"need 1 ≤ length and 0 ≤ weight ≤ length, not length={length}, weight={weight}")
    if min_distance < 1:
        raise CodeError(f"Argument 'min_distance' must be ≥ 1, not {min_distance}")
    if cap is not None and (not isinstance(cap, int) or cap < 1):
        raise CodeError(f"Argument 'cap' must be a positive int, not {cap!r}")
    words: list[int] = []
    if min_distance == 1:  # distinct words of one weight are at directed distance ≥ 1: the scan keeps them all
        for x in colex_words(length, weight):
            words.append(x)
            if cap is not None and len(words) >= cap:
                break
    for x in (() if min_distance == 1 else colex_words(length, weight)):
        for u in reversed(words):  # a conflict is likeliest with a recent word: ≈ 3× faster, same result
            if (x & ~u).bit_count() < min_distance:
                break
        else:
            words.append(x)
            if cap is not None and len(words) >= cap:
                break
    desc = f"greedy colex code: length {length}, weight {weight}, directed distance ≥ {min_distance}"
    if cap is not None:
        desc += f", capped at {cap} words"
    return ConstantWeightCode(length, weight, tuple(words), desc)
