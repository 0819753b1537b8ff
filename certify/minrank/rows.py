"""The row condition of r*(m, 3): when does one kernel row admit a correct readout? (docs/math.md §11)

A head solves Min-IP on every length-3 input over m-bit tokens exactly when its kernel
``A = [α(x, v)]`` (``2^m × 2^m``, ``A ≥ 0``) passes, row by row, the condition below; with
one-hot values the readout ``g_x`` of each row is free, so the rows decouple. For a query
``x`` of weight ``w``, with ``ℓ(v) = ⟨x, v⟩`` the level of a key ``v`` and ``a(v) = A[x, v]``
(``a₀ = a(x)``; ``x`` is a key of level ``w`` itself):

1. ``a₀ > 0`` and ``a(v) > 0`` for every key of level ``ℓ(v) < w``;
2. for all levels ``T < s ≤ w`` with ``d = s − T ≥ 2``:
   ``min_{ℓ(y)=T} a(y) > ((d − 2)/2)·a₀ + (d − 1)·max_{ℓ(z)=s} a(z)``.

docs/math.md §11 proves both directions: (2) is the weight-domination lemma (§3) with the
self term kept, (1) comes from the inputs ``(x, y, x)`` and ``(x, x, x)``, and when both
hold the explicit readout of :func:`readout` is correct on every input with some
``ε_x > 0`` (:func:`row_epsilon` gives one). Everything here is exact (integers or
``Fraction``); a row's condition is checked from its level minima and maxima, ``O(2^m)``.
"""
from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction
from typing import Sequence

__all__ = ["bits", "RowFailure", "row_levels", "row_failure", "matrix_failure", "row_epsilon", "readout"]


def bits(v: int, m: int) -> str:
    """Token ``v`` as a 0/1 string of length ``m``, character ``i`` coordinate ``i`` (the kernel-table spelling)."""
    return format(v, f"0{m}b")[::-1]


@dataclass(frozen=True)
class RowFailure:
    """Why row ``x`` has no readout: ``kind`` is ``"self"``, ``"zero"`` (a key below level ``w`` with ``a = 0``),
    ``"negative"`` or ``"levels"`` (condition 2 fails for levels ``T < s``)."""

    x: int
    kind: str
    T: int | None = None
    s: int | None = None
    key: int | None = None

    def describe(self, m: int) -> str:
        x = bits(self.x, m)
        if self.kind == "self":
            return f"row {x}: A[x, x] ≤ 0 (the input (x, x, x) needs a positive denominator 3·A[x, x])"
        if self.kind == "negative":
            return f"row {x}: A[x, {bits(self.key, m)}] < 0 (the kernel must be nonnegative)"
        if self.kind == "zero":
            return (f"row {x}: A[x, {bits(self.key, m)}] = 0 at level {self.T} < |x| = {x.count('1')} "
                    "(the inputs (x, v, x) and (x, x, x) would get the same prediction)")
        d = self.s - self.T
        return (f"row {x}: min over level {self.T} ≤ ({d} − 2)/2 · A[x, x] + ({d} − 1) · max over level {self.s} "
                "(weight domination with the self term, docs/math.md §11)")


def row_levels(x: int, row: Sequence, m: int) -> tuple[int, list, list]:
    """``(w, minima, maxima)``: the weight of ``x`` and the least and largest ``a(v)`` at each level ``0 … w``.

    Every level ``0 … w`` is present: ``⟨x, v⟩`` takes each value for some ``v``.
    """
    w = x.bit_count()
    lo: list = [None] * (w + 1)
    hi: list = [None] * (w + 1)
    for v in range(1 << m):
        level = (x & v).bit_count()
        a = row[v]
        if lo[level] is None or a < lo[level]:
            lo[level] = a
        if hi[level] is None or a > hi[level]:
            hi[level] = a
    return w, lo, hi


def row_failure(x: int, row: Sequence, m: int) -> RowFailure | None:
    """The first way row ``x`` violates the condition (module docstring), or ``None``: integers or rationals, exactly."""
    a0 = row[x]
    if not a0 > 0:
        return RowFailure(x, "self")
    for v in range(1 << m):
        if row[v] < 0:
            return RowFailure(x, "negative", key=v)
    w, lo, hi = row_levels(x, row, m)
    for T in range(w):
        if not lo[T] > 0:
            key = next(v for v in range(1 << m) if (x & v).bit_count() == T and row[v] == lo[T])
            return RowFailure(x, "zero", T=T, key=key)
    for T in range(w + 1):
        for s in range(T + 2, w + 1):
            d = s - T
            if not 2 * lo[T] > (d - 2) * a0 + 2 * (d - 1) * hi[s]:
                return RowFailure(x, "levels", T=T, s=s)
    return None


def matrix_failure(A: Sequence[Sequence], m: int) -> RowFailure | None:
    """The first failing row of ``A`` (rows and columns indexed by tokens ``0 … 2^m − 1``), or ``None``."""
    for x in range(1 << m):
        bad = row_failure(x, A[x], m)
        if bad is not None:
            return bad
    return None


def row_epsilon(x: int, row: Sequence, m: int) -> Fraction:
    """An ``ε_x > 0`` for which :func:`readout` is correct on every input of query ``x`` (docs/math.md §11).

    On an input ``(x, y, z)`` with ``ℓ(y) ≤ ℓ(z)``, ``δ = ℓ(z) − ℓ(y) ≥ 1`` and ``a(y) > 0`` the
    readout's error stays below 1/2 exactly when ``gap = a(y) − a₀(δ − 2)/2 − a(z)(δ − 1)``
    exceeds ``2ε·D`` (``D = a₀ + a(y) + a(z)``); ``gap/D`` grows with ``a(y)`` and falls with
    ``a(z)``, so its least value over two levels is at the level's minimum and maximum. This
    returns half the least ``gap/(2D)`` (at most 1/8; ``δ = 0`` and keys with ``a = 0``
    need only ``ε < 1/2``). The row must pass :func:`row_failure`.
    """
    a0 = Fraction(row[x])
    w, lo, hi = row_levels(x, row, m)
    best = Fraction(1, 4)
    for T in range(w + 1):
        for s in range(T + 1, w + 1):
            delta = s - T
            gap = Fraction(lo[T]) - a0 * (delta - 2) / 2 - Fraction(hi[s]) * (delta - 1)
            best = min(best, gap / (2 * (a0 + Fraction(lo[T]) + Fraction(hi[s]))))
    if best <= 0:
        raise ValueError(f"row {x} fails the condition; it has no readout")
    return best / 2


def readout(x: int, row: Sequence, m: int, eps: Fraction) -> list[Fraction]:
    """The explicit readout of row ``x``: ``g(v) = ℓ(v) − 1/2 + 2ε − a₀(w − ℓ(v))/(2a(v))`` (``a(v) > 0``), else ``w``."""
    a0 = Fraction(row[x])
    w = x.bit_count()
    out = []
    for v in range(1 << m):
        level = (x & v).bit_count()
        a = row[v]
        out.append(Fraction(level) - Fraction(1, 2) + 2 * eps - a0 * (w - level) / (2 * Fraction(a)) if a > 0
                   else Fraction(w))
    return out
