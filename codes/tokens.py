"""Tokens as ``int`` bitmasks, and the overlap arithmetic on them (docs/math.md §1).

A token is a vector ``x ∈ {0,1}^m``. Internally it is a Python ``int`` whose bit
``k`` is coordinate ``k``; in files it is a 0/1 string of length ``m`` whose
character ``k`` is coordinate ``k`` (so the string reads the bits from the least
significant end).

>>> x = from_bits("1100")
>>> x, to_bits(x, 4)
(3, '1100')
>>> overlap(from_bits("1100"), from_bits("0110"))
1
>>> directed_distance(from_bits("1100"), from_bits("0110"))
1
>>> complement(from_bits("1100"), 4) == from_bits("0011")
True
>>> from_bits("12")
Traceback (most recent call last):
...
codes.tokens.TokenFormatError: token '12': character 1 is '2'; expected only '0' and '1'
"""
from __future__ import annotations

__all__ = [
    "TokenFormatError",
    "from_bits",
    "to_bits",
    "weight",
    "overlap",
    "directed_distance",
    "complement",
    "indicator",
    "support",
]


class TokenFormatError(ValueError):
    """A token string or integer does not describe a token of the stated length."""


def from_bits(bits: str, m: int | None = None) -> int:
    """Parse a 0/1 string (character ``k`` = coordinate ``k``) into a bitmask.

    Parameters
    ----------
    bits : str
        The token, e.g. ``"0101"``.
    m : int, optional
        Required length; checked when given.

    Raises
    ------
    TokenFormatError
        On any character other than ``0``/``1``, or a length other than ``m``.
    """
    if not isinstance(bits, str):
        raise TokenFormatError(f"token must be a 0/1 string, not {type(bits).__name__}")
    if m is not None and len(bits) != m:
        raise TokenFormatError(f"token {bits!r}: length {len(bits)}, expected {m}")
    for k, ch in enumerate(bits):
        if ch not in "01":
            raise TokenFormatError(
                f"token {bits!r}: character {k} is {ch!r}; expected only '0' and '1'"
            )
    return int(bits[::-1], 2) if bits else 0


def to_bits(x: int, m: int) -> str:
    """Write bitmask ``x`` as a 0/1 string of length ``m`` (character ``k`` = bit ``k``).

    Raises
    ------
    TokenFormatError
        If ``x`` is negative or has a bit at position ``m`` or above.
    """
    if x < 0 or x >> m:
        raise TokenFormatError(f"integer {x} is not a token of length {m}")
    return format(x, f"0{m}b")[::-1] if m else ""


def weight(x: int) -> int:
    """``‖x‖₁``, the number of ones (= the self-overlap ``⟨x,x⟩``)."""
    return x.bit_count()


def overlap(x: int, z: int) -> int:
    """The overlap ``⟨x,z⟩ = popcount(x & z)`` (docs/math.md §1)."""
    return (x & z).bit_count()


def directed_distance(s: int, u: int) -> int:
    """Directed distance ``|S \\ U|`` between the sets with indicators ``s`` and ``u``.

    For sets of equal size it equals ``|U \\ S|``, half the Hamming distance (docs/math.md §1).
    """
    return (s & ~u).bit_count()


def complement(x: int, m: int) -> int:
    """The indicator of the complement ``S^c`` within ``[m]``."""
    return ((1 << m) - 1) ^ x


def indicator(indices) -> int:
    """The bitmask ``x_S`` of a set ``S`` of coordinates."""
    x = 0
    for k in indices:
        x |= 1 << k
    return x


def support(x: int) -> tuple[int, ...]:
    """The coordinates where ``x`` is 1, in increasing order."""
    out = []
    k = 0
    while x:
        if x & 1:
            out.append(k)
        x >>= 1
        k += 1
    return tuple(out)
