"""Trace–Frobenius rank bounds, exactly (A.2; docs/math.md §5).

For every real square matrix ``C``, ``rank(C) ≥ (tr C)² / ‖C‖_F²`` (the nuclear norm is at
least ``|tr C|``; Cauchy–Schwarz on the singular values). If a family certifies
``α(x_S, x_{S^c}) > F_{SU} α(x_S, x_{U^c})`` for all ``t ≥ 2`` codewords, then
``C = diag(B)⁻¹B`` has unit diagonal and ``0 ≤ C_{SU} < 1/F_{SU}``, so
``rank(B) > t² / (t + Σ F_{SU}⁻²)`` and ``r ≥ ⌊t² / (t + Σ F⁻²)⌋ + 1``.

>>> certified_rank(15, [4] * 210), certified_rank(15, [5] * 210)
(9, 10)
>>> trace_frobenius_ratio(15, [4] * 210)
Fraction(8, 1)
>>> certified_rank(1, [])
Traceback (most recent call last):
...
ValueError: the strict bound needs t ≥ 2 codewords, not 1

Exact ranks of rational matrices, against which the tests check this law, are
:mod:`certify.linalg.rank`.
"""
from __future__ import annotations

from fractions import Fraction
from typing import Iterable, Sequence

from ..exact import exact

__all__ = ["sum_inverse_squares", "trace_frobenius_ratio", "certified_rank", "uniform_bound", "matrix_trace_frobenius"]


def sum_inverse_squares(factors: Iterable) -> Fraction:
    """``Σ F⁻²`` over the off-diagonal factors (each ``F > 0``, exact)."""
    total = Fraction(0)
    for i, f in enumerate(factors):
        f = exact(f, f"factors[{i}]")
        if f <= 0:
            raise ValueError(f"factor {i} is {f}; factors must be positive")
        total += 1 / (f * f)
    return total


def trace_frobenius_ratio(t: int, factors: Sequence) -> Fraction:
    """``t² / (t + Σ F⁻²)``, which ``rank(B)`` strictly exceeds when ``t ≥ 2`` (A.2).

    ``factors`` lists ``F_{SU}`` for the ``t(t−1)`` ordered pairs ``S ≠ U``.
    """
    if not isinstance(t, int) or t < 1:
        raise ValueError(f"Argument 't' must be a positive int, not {t!r}")
    if len(factors) != t * (t - 1):
        raise ValueError(f"expected t(t−1) = {t * (t - 1)} factors, got {len(factors)}")
    return Fraction(t * t) / (t + sum_inverse_squares(factors))


def certified_rank(t: int, factors: Sequence) -> int:
    """The certified integer bound ``⌊t² / (t + Σ F⁻²)⌋ + 1`` (A.2; docs/math.md §5).

    Raises
    ------
    ValueError
        If ``t < 2``: with one codeword ``‖C‖_F² = 1`` exactly, the inequality is not
        strict, and ``⌊1⌋ + 1 = 2`` would be false (one positive entry has rank 1).
    """
    if not isinstance(t, int) or t < 2:
        raise ValueError(f"the strict bound needs t ≥ 2 codewords, not {t}")
    ratio = trace_frobenius_ratio(t, factors)
    return ratio.numerator // ratio.denominator + 1


def uniform_bound(t: int, lam) -> Fraction:
    """``t / (1 + (t−1)/λ²)``: the bound when every off-diagonal entry is ``≤ 1/λ`` (A.2)."""
    lam = exact(lam, "lam")
    return Fraction(t) / (1 + Fraction(t - 1) / (lam * lam))


def matrix_trace_frobenius(matrix: Sequence[Sequence]) -> Fraction:
    """``(tr C)² / ‖C‖_F²`` of an exact square matrix (a lower bound on its rank).

    Raises
    ------
    ValueError
        If the matrix is not square or is zero.
    """
    rows = [[exact(v, "matrix entry") for v in row] for row in matrix]
    n = len(rows)
    if any(len(r) != n for r in rows):
        raise ValueError("matrix must be square")
    frob = sum(v * v for r in rows for v in r)
    if frob == 0:
        raise ValueError("the zero matrix has no trace–Frobenius bound")
    trace = sum(rows[i][i] for i in range(n))
    return trace * trace / frob
