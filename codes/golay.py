"""The extended binary Golay code and its 2,576 dodecads (docs/math.md §6).

The binary quadratic-residue code of length 23 is the cyclic code spanned by the
shifts of its idempotent ``Σ_{r ∈ N} X^r`` (``N`` the quadratic non-residues mod 23;
for ``q = 23 ≡ −1 (mod 8)`` this is an idempotent of the QR code); it has dimension 12
and minimum weight 7 (the perfect Golay code). Appending a parity bit
gives a linear ``[24, 12, 8]`` code, which is **the** extended binary Golay code: every
binary code with ``2^12`` words of length 24 and minimum distance 8 is equivalent to it
(Pless 1968; Delsarte–Goethals 1975). :func:`golay_code` builds it and checks the
parameters that identify it — 4,096 distinct words, closed under addition, weight
enumerator ``1 + 759 z^8 + 2576 z^12 + 759 z^16 + z^24`` — before returning.

Its **dodecads** (words of weight 12) are a constant-weight code of length 24 and
weight 12 in which two words meet in 0, 4, 6, 8 or 12 coordinates: every word has
exactly 495 words at directed distance 4, 1,584 at 6, 495 at 8 and its complement at
12. docs/math.md §6 names it as a larger code than the rank-nine code.

>>> code = golay_dodecads()
>>> code.size, code.length, code.weight
(2576, 24, 12)
>>> sorted(dodecad_neighbours(code).items())
[(4, 495), (6, 1584), (8, 495), (12, 1)]
>>> golay_code(generator=0b101)
Traceback (most recent call last):
...
codes.constant_weight.CodeError: the code spanned by the shifts of 0b101 has dimension 22, not 12: not the Golay code
"""
from __future__ import annotations

from collections import Counter

from .constant_weight import CodeError, ConstantWeightCode

__all__ = ["GOLAY_WEIGHTS", "golay_generator", "golay_code", "golay_dodecads", "dodecad_neighbours"]

#: Weight enumerator of the extended Golay code: weight → number of words.
GOLAY_WEIGHTS = {0: 1, 8: 759, 12: 2576, 16: 759, 24: 1}


def golay_generator() -> int:
    """``Σ X^r`` over the quadratic non-residues ``r`` mod 23, as a 23-bit mask (bit ``k`` = ``X^k``)."""
    residues = {(a * a) % 23 for a in range(1, 23)}
    g = 0
    for r in range(1, 23):
        if r not in residues:
            g |= 1 << r
    return g


def _span_of_shifts(g: int, n: int) -> list[int]:
    """A GF(2) basis (reduced echelon, as bitmasks) of the cyclic shifts of ``g`` in length ``n``."""
    full = (1 << n) - 1
    basis: dict[int, int] = {}  # leading bit → row
    for k in range(n):
        v = ((g << k) | (g >> (n - k))) & full
        for lead in sorted(basis, reverse=True):
            if v >> lead & 1:
                v ^= basis[lead]
        if v:
            lead = v.bit_length() - 1
            for other in list(basis):
                if basis[other] >> lead & 1:
                    basis[other] ^= v
            basis[lead] = v
    return [basis[k] for k in sorted(basis)]


def golay_code(generator: int | None = None) -> tuple[int, ...]:
    """All 4,096 words of the extended binary Golay code, sorted, as 24-bit masks.

    Parameters
    ----------
    generator : int, optional
        The 23-bit polynomial whose cyclic shifts span the length-23 code (default
        :func:`golay_generator`); exposed so the failure path can be tested.

    Raises
    ------
    CodeError
        If the span does not have dimension 12 or the extended code does not have the
        Golay weight enumerator :data:`GOLAY_WEIGHTS`.
    """
    g = golay_generator() if generator is None else generator
    basis = _span_of_shifts(g, 23)
    if len(basis) != 12:
        raise CodeError(f"the code spanned by the shifts of {bin(g)} has dimension {len(basis)}, not 12: not the Golay code")
    words = [0]
    for row in basis:
        words += [w ^ row for w in words]
    # Parity bit at coordinate 23 makes every weight even.
    ext = sorted(w | ((w.bit_count() & 1) << 23) for w in words)
    counts = Counter(w.bit_count() for w in ext)
    if len(set(ext)) != 4096 or dict(counts) != GOLAY_WEIGHTS:
        raise CodeError(f"weight enumerator {dict(sorted(counts.items()))} is not the Golay code's {GOLAY_WEIGHTS}")
    return tuple(ext)


def golay_dodecads() -> ConstantWeightCode:
    """The 2,576 weight-12 words of the extended Golay code, in increasing integer order."""
    words = tuple(w for w in golay_code() if w.bit_count() == 12)
    return ConstantWeightCode(24, 12, words, "the 2,576 dodecads (weight-12 words) of the extended binary Golay code")


def dodecad_neighbours(code: ConstantWeightCode) -> Counter:
    """Directed distances from word 0 to every other word (the same multiset for every word, by the code's symmetry)."""
    s = code.words[0]
    return Counter((s & ~u).bit_count() for u in code.words[1:])
