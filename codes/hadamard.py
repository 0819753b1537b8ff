"""Codes from Paley Hadamard matrices, and the fixed rank-nine code (docs/math.md §6).

For a prime ``q ≡ 3 (mod 4)`` the Paley I construction gives a Hadamard matrix ``H``
of order ``n = q + 1``: entries ±1 with ``H Hᵀ = n I``. Normalize it so the first
row and column are all +1. Every other row then has ``n/2`` entries +1, and two
distinct rows agree in exactly ``n/2`` places. Reading +1 as 1, the ``n − 1``
non-first rows are words of weight ``n/2`` with pairwise directed distance exactly
``n/4``; adding their complements gives ``2(n − 1)`` words, pairwise directed
distance ≥ ``n/4`` (a row and its own complement are at distance ``n/2``).

For ``n = 24`` (``q = 23``) this is the "46 words from a Hadamard matrix of order 24"
of docs/math.md §6. **The rank-nine code** is its first fifteen rows (rows 1–15 of the
normalized matrix): 15 words of length 24, weight 12, every ordered pair at directed
distance exactly 6.

>>> code = rank_nine_code()
>>> code.size, code.length, code.weight, code.min_distance, dict(code.distance_counts)
(15, 24, 12, 6, {6: 210})
>>> hadamard_code(24).size
46
>>> paley_hadamard(13)
Traceback (most recent call last):
...
codes.constant_weight.CodeError: Paley I needs a prime q ≡ 3 (mod 4), not 13
"""
from __future__ import annotations

from .constant_weight import CodeError, ConstantWeightCode
from .tokens import complement

__all__ = ["paley_hadamard", "hadamard_code", "rank_nine_code"]


def _is_prime(q: int) -> bool:
    return q >= 2 and all(q % p for p in range(2, int(q**0.5) + 1))


def paley_hadamard(q: int) -> tuple[tuple[int, ...], ...]:
    """The normalized Paley I Hadamard matrix of order ``q + 1`` (rows of ±1).

    ``Q_{ij} = χ(j − i)`` (quadratic character mod ``q``) is antisymmetric for
    ``q ≡ 3 (mod 4)``; ``H = I + [[0, 1ᵀ], [−1, Q]]``; rows and columns are then
    negated so that the first row and column are +1. ``H Hᵀ = (q+1) I`` is checked
    exactly before returning.

    Raises
    ------
    CodeError
        If ``q`` is not a prime ≡ 3 (mod 4).
    """
    if not isinstance(q, int) or q % 4 != 3 or not _is_prime(q):
        raise CodeError(f"Paley I needs a prime q ≡ 3 (mod 4), not {q}")
    squares = {(a * a) % q for a in range(1, q)}

    def chi(a: int) -> int:
        a %= q
        return 0 if a == 0 else (1 if a in squares else -1)

    n = q + 1
    h = [[0] * n for _ in range(n)]
    for j in range(1, n):
        h[0][j] = 1
        h[j][0] = -1
    for i in range(1, n):
        for j in range(1, n):
            h[i][j] = chi(j - i)
    for i in range(n):
        h[i][i] += 1
    for i in range(n):  # first column → +1
        if h[i][0] < 0:
            h[i] = [-v for v in h[i]]
    for j in range(n):  # first row → +1
        if h[0][j] < 0:
            for i in range(n):
                h[i][j] = -h[i][j]
    for i in range(n):
        for k in range(n):
            dot = sum(a * b for a, b in zip(h[i], h[k]))
            if dot != (n if i == k else 0):
                raise AssertionError(f"Paley matrix of order {n} fails H Hᵀ = nI at ({i}, {k})")
    return tuple(tuple(row) for row in h)


def _row_word(row: tuple[int, ...]) -> int:
    x = 0
    for k, v in enumerate(row):
        if v > 0:
            x |= 1 << k
    return x


def hadamard_code(order: int = 24, with_complements: bool = True) -> ConstantWeightCode:
    """Rows 1.. of the normalized Paley Hadamard matrix of ``order`` (and their complements).

    Words are ordered row 1, …, row ``order − 1``, then the complements in the same
    order. Weight ``order/2``; directed distance exactly ``order/4`` between distinct
    rows, ≥ ``order/4`` overall (docs/math.md §6).
    """
    h = paley_hadamard(order - 1)
    rows = [_row_word(r) for r in h[1:]]
    words = rows + ([complement(x, order) for x in rows] if with_complements else [])
    desc = f"Paley Hadamard matrix of order {order}, normalized: rows 1–{order - 1}"
    if with_complements:
        desc += " and their complements"
    return ConstantWeightCode(order, order // 2, tuple(words), desc)


def rank_nine_code() -> ConstantWeightCode:
    """The fixed rank-nine code: rows 1–15 of the normalized Paley Hadamard matrix of order 24.

    15 words of length 24 and weight 12, pairwise directed distance exactly 6
    (docs/math.md §6; the paper's own code is unpublished, this one is ours).
    """
    rows = hadamard_code(24, with_complements=False).words[:15]
    return ConstantWeightCode(
        24, 12, rows, "rows 1–15 of the normalized Paley Hadamard matrix of order 24 (q = 23)"
    )
