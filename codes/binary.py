"""Codes of 0/1 words of any weights, and their directed-distance distributions (docs/math.md §1, §5).

The rank argument of A.2 (docs/math.md §5) needs, for each ordered pair of distinct
words ``S ≠ U``, a chain of jumps from ``x_{S^c}`` (overlap 0 with ``x_S``) to
``x_{U^c}`` (overlap ``|S \\ U|``). Nothing in it needs the words to have one weight:
``|S \\ U| ≤ |S| = ⟨x_S, x_S⟩`` always holds. :class:`BinaryCode` is therefore a set of
distinct words of one length and any weights; :class:`codes.ConstantWeightCode` is the
special case the version-1 certificate format requires.

>>> code = BinaryCode(4, (0b0011, 0b1100, 0b0111))
>>> code.weight is None, sorted(code.weights.items()), sorted(code.distance_counts.items())
(True, [(2, 2), (3, 1)], [(0, 1), (1, 2), (2, 3)])
>>> code.min_distance  # word 0 lies inside word 2: no chain can bridge that pair
0
>>> BinaryCode(4, (0b0011, 0b0011))
Traceback (most recent call last):
...
codes.constant_weight.CodeError: words 0 and 1 are equal ('1100')
"""
from __future__ import annotations

from collections import Counter
from dataclasses import dataclass
from functools import cached_property

from .constant_weight import CodeError
from .tokens import to_bits
from .views import CodeViews, distance_counts, distance_row

__all__ = ["BinaryCode", "distance_counts", "distance_row"]


@dataclass(frozen=True)
class BinaryCode(CodeViews):
    """An immutable, validated code of distinct 0/1 words of length ``length``, any weights.

    Parameters
    ----------
    length : int
        ``m``, the number of coordinates (≥ 1).
    words : tuple of int
        Distinct bitmasks below ``2^m``, in a fixed order (certificates index words by
        position).
    description : str
        How the code was made (for humans; written into certificates).

    Raises
    ------
    CodeError
        If a word does not fit in ``length`` bits or two words are equal.

    Notes
    -----
    Same attributes as :class:`codes.ConstantWeightCode` (``length``, ``words``,
    ``description``, ``size``, ``weight``, ``distance_counts``, ``min_distance``,
    ``to_bits``), so either can be passed where a code is expected; ``weight`` is the
    common weight, or ``None`` when the weights differ.
    """

    length: int
    words: tuple[int, ...]
    description: str = ""

    def __post_init__(self) -> None:
        if not isinstance(self.length, int) or isinstance(self.length, bool) or self.length < 1:
            raise CodeError(f"Argument 'length' must be a positive int, not {self.length!r}")
        words = tuple(self.words)
        object.__setattr__(self, "words", words)
        seen: dict[int, int] = {}
        for i, x in enumerate(words):
            if not isinstance(x, int) or isinstance(x, bool) or x < 0 or x >> self.length:
                raise CodeError(f"word {i} ({x!r}) is not a token of length {self.length}")
            if x in seen:
                raise CodeError(f"words {seen[x]} and {i} are equal ('{to_bits(x, self.length)}')")
            seen[x] = i

    @classmethod
    def of(cls, code) -> "BinaryCode":
        """The same words as a :class:`BinaryCode` (from any object with ``length``, ``words``, ``description``)."""
        return code if isinstance(code, cls) else cls(code.length, tuple(code.words), code.description)

    @cached_property
    def weights(self) -> Counter:
        """``Counter`` of word weights."""
        return Counter(x.bit_count() for x in self.words)

    @property
    def weight(self) -> int | None:
        """The common weight, or ``None`` if the words have different weights (or there are none)."""
        return next(iter(self.weights)) if len(self.weights) == 1 else None
