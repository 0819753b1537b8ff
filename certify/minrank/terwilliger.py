"""The Terwilliger algebra of the cube (and products of it), as the LP producer sees it (docs/math.md §11).

A kernel invariant under ``S_{a_1} × … × S_{a_p}`` (consecutive parts of the coordinates) is
``A[x, z] = f(c_1, …, c_p)``, ``c_l`` the cell ``(|x_l|, |z_l|, |x_l ∧ z_l|)`` of part ``l``.
Its blocks ``B_κ`` (``κ = (k_1, …, k_p)``) have rows and columns indexed by the weight tuples
``(i_1, …, i_p)``; the value ``f`` on a cell is a linear form in the blocks' entries at
``(i, j)`` alone (the inverse map of docs/math.md §11, "Invariant kernels"). So a row of the
row condition — a query weight tuple ``w`` — involves only the ``w``-th rows of the blocks:
:class:`Algebra` lists, for each ``w``, every key cell with its level and the coefficients of
``f`` on it, per block, in exact rationals.

Block entries are written ``B_κ[i, j] = σ_κ(i) σ_κ(j) G_κ[i, j]`` with ``σ`` a power of two
chosen so that the coefficients in ``G`` are of order one (they span some 27 orders of
magnitude in ``B`` at ``m = 48``): the LP works on ``G``, the certificate holds ``B``, and a
diagonal scaling changes no rank. Nothing here is trusted: the certificate made from it is
checked by ``certify/check_symmetric.py``, which uses only its own code.
"""
from __future__ import annotations

import itertools
import math
from dataclasses import dataclass
from fractions import Fraction

from ..check_symmetric import beta, mult

__all__ = ["Algebra", "Cell", "multiplicity", "part_tops"]


def _binom(n: int, k: int) -> int:
    return math.comb(n, k) if 0 <= k <= n else 0


def multiplicity(parts: tuple[int, ...], kappa: tuple[int, ...]) -> int:
    """How many times block ``κ`` occurs in the kernel: ``Π_l (C(a_l, k_l) − C(a_l, k_l − 1))``."""
    return math.prod(mult(a, k) for a, k in zip(parts, kappa))


def part_tops(parts: tuple[int, ...], top: int) -> tuple[int, ...]:
    """The highest block index of each part when every part may reach ``top`` (capped at ``⌊a/2⌋``)."""
    return tuple(min(top, a // 2) for a in parts)


class _Part:
    """One part of size ``a``: the inverse-map coefficients ``φ_k(i, j, t)`` and the scales ``σ_k(i)``."""

    def __init__(self, a: int, top: int) -> None:
        self.a = a
        self.range = {(i, j): (max(0, i + j - a), min(i, j)) for i in range(a + 1) for j in range(a + 1)}
        self.phi: dict[tuple[int, int, int], list[Fraction]] = {}
        for (i, j), (lo, hi) in self.range.items():
            for k in range(min(i, j, a - i, a - j, top) + 1):
                scale = mult(a, k)
                self.phi[i, j, k] = [Fraction(scale * beta(a, i, j, k, t),
                                              _binom(a, i) * _binom(i, t) * _binom(a - i, j - t)
                                              * _binom(a - 2 * k, i - k) * _binom(a - 2 * k, j - k))
                                     for t in range(lo, hi + 1)]
        self.sigma: dict[tuple[int, int], Fraction] = {}
        for k in range(min(top, a // 2) + 1):
            for i in range(k, a - k + 1):
                largest = max(abs(x) for x in self.phi[i, i, k])
                self.sigma[k, i] = Fraction(2) ** round(-0.5 * math.log2(largest))

    def coefficient(self, i: int, j: int, k: int, t: int) -> Fraction | None:
        values = self.phi.get((i, j, k))
        return None if values is None else values[t - self.range[i, j][0]]


@dataclass(frozen=True)
class Cell:
    """A key cell of one query row: the key's weight tuple ``j``, its level, and ``f``'s coefficients per block."""
    j: tuple[int, ...]
    level: int
    coefficients: dict[tuple[int, ...], Fraction]  # on G_κ[w, j] (the scaled entries)


class Algebra:
    """The blocks ``κ ≤ tops`` of the parts' algebra and, per query weight tuple, its key cells (module docstring)."""

    def __init__(self, parts: tuple[int, ...], tops: tuple[int, ...]) -> None:
        self.parts, self.tops = tuple(parts), tuple(tops)
        self.m = sum(parts)
        self._parts = [_Part(a, k) for a, k in zip(parts, tops)]
        self.kappas = list(itertools.product(*[range(min(k, a // 2) + 1) for a, k in zip(parts, tops)]))
        self.rows = list(itertools.product(*[range(a + 1) for a in parts]))
        self.index = {kappa: [w for w in self.rows if all(k <= x <= a - k for k, x, a in zip(kappa, w, parts))]
                      for kappa in self.kappas}
        self.position = {kappa: {w: n for n, w in enumerate(rows)} for kappa, rows in self.index.items()}
        self.cells = {w: self._row(w) for w in self.rows}

    def multiplicity(self, kappa: tuple[int, ...]) -> int:
        return multiplicity(self.parts, kappa)

    def sigma(self, kappa: tuple[int, ...], w: tuple[int, ...]) -> Fraction:
        return math.prod((p.sigma[k, x] for p, k, x in zip(self._parts, kappa, w)), start=Fraction(1))

    def _row(self, w: tuple[int, ...]) -> list[Cell]:
        choices = []
        for part, x in zip(self._parts, w):
            choices.append([(j, t) for j in range(part.a + 1) for t in range(part.range[x, j][0], part.range[x, j][1] + 1)])
        cells = []
        for combo in itertools.product(*choices):
            j = tuple(c[0] for c in combo)
            t = tuple(c[1] for c in combo)
            coefficients = {}
            for kappa in self.kappas:
                value = Fraction(1)
                for part, k, x, y, s in zip(self._parts, kappa, w, j, t):
                    c = part.coefficient(x, y, k, s)
                    if not c:
                        value = Fraction(0)
                        break
                    value *= c
                if value:
                    coefficients[kappa] = value * self.sigma(kappa, w) * self.sigma(kappa, j)
            cells.append(Cell(j, sum(t), coefficients))
        return cells

    def diagonal(self, w: tuple[int, ...]) -> int:
        """The position in ``cells[w]`` of the query's own cell (key = query: weight ``w``, level ``|w|``)."""
        return next(n for n, c in enumerate(self.cells[w]) if c.j == w and c.level == sum(w))
