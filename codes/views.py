"""What every code object offers, computed from its words (docs/math.md §1, §5).

:class:`codes.ConstantWeightCode` and :class:`codes.BinaryCode` both keep ``length``
and ``words``; :class:`CodeViews` derives the rest, once, on first use.

>>> distance_row(0b0011, [0b0011, 0b0110, 0b1100])
[0, 1, 2]
>>> sorted(distance_counts([0b0011, 0b0110, 0b1100]).items())
[(1, 4), (2, 2)]
"""
from __future__ import annotations

from collections import Counter
from functools import cached_property
from typing import Iterator, Sequence

from .tokens import to_bits

__all__ = ["CodeViews", "distance_row", "distance_counts"]


def distance_row(s: int, words: Sequence[int]) -> list[int]:
    """``[|S \\ U| for U in words]``: the directed distances from ``s`` (0 for ``s`` itself)."""
    return [(s & ~u).bit_count() for u in words]


def distance_counts(words: Sequence[int]) -> Counter:
    """``Counter`` of directed distances ``|S \\ U|`` over ordered pairs of distinct words.

    ``t(t−1)`` popcounts, a row at a time: in numpy (exact ``uint64`` bit counts) when every
    word has at most 64 bits, about 0.1 s for the 2,576 Golay dodecads and 1 s for 8,000
    words; else in Python ints (about a second for the dodecads).
    """
    if words and max(words) < 2**64 and len(words) > 32:
        return _distance_counts_uint64(words)
    counts: Counter = Counter()
    for s in words:
        counts.update(distance_row(s, words))
    counts[0] -= len(words)  # the diagonal S = S
    if counts[0] == 0:
        del counts[0]
    return counts


def popcount(a):
    """Bit counts of a ``uint64`` numpy array (exact integer arithmetic)."""
    import numpy as np

    if hasattr(np, "bitwise_count"):
        return np.bitwise_count(a).astype(np.int64)
    a = a - ((a >> np.uint64(1)) & np.uint64(0x5555555555555555))
    a = (a & np.uint64(0x3333333333333333)) + ((a >> np.uint64(2)) & np.uint64(0x3333333333333333))
    a = (a + (a >> np.uint64(4))) & np.uint64(0x0F0F0F0F0F0F0F0F)
    return ((a * np.uint64(0x0101010101010101)) >> np.uint64(56)).astype(np.int64)


def _distance_counts_uint64(words: Sequence[int]) -> Counter:
    import numpy as np

    w = np.array(words, dtype=np.uint64)
    counts = np.zeros(65, dtype=np.int64)
    for x in w:
        counts += np.bincount(popcount(x & ~w), minlength=65)
    counts[0] -= len(w)
    return Counter({d: int(c) for d, c in enumerate(counts) if c})


class CodeViews:
    """Derived values of a code with attributes ``length`` (``m``) and ``words`` (distinct bitmasks)."""

    length: int
    words: tuple[int, ...]

    @property
    def size(self) -> int:
        """``t``, the number of words."""
        return len(self.words)

    @cached_property
    def distance_counts(self) -> Counter:
        """``Counter`` of directed distances over ordered pairs of distinct words."""
        return distance_counts(self.words)

    @cached_property
    def min_distance(self) -> int | None:
        """Minimum directed distance ``min |S \\ U|`` over distinct words (None if ``t < 2``)."""
        return min(self.distance_counts) if self.size >= 2 else None

    def to_bits(self) -> list[str]:
        """The words as 0/1 strings."""
        return [to_bits(x, self.length) for x in self.words]

    def __len__(self) -> int:
        return len(self.words)

    def __iter__(self) -> Iterator[int]:
        return iter(self.words)
