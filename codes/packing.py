"""Packing counts in the middle layer (A.2 "Packing the middle layer", A.3; docs/math.md §7).

``V_g(M) = Σ_{a=0}^{g−1} C(M/2, a)²`` counts the middle-layer sets (size ``M/2``) at
directed distance ``< g`` from a fixed one: choose ``a`` elements to leave ``S`` and
``a`` to enter. A maximal code with directed distance ``≥ Δ`` therefore has at least
``⌈C(M, M/2) / V_Δ(M)⌉`` words (Gilbert–Varshamov: the balls cover the layer).

>>> middle_ball(4, 2), gv_count(4, 2)
(5, 2)
>>> [middle_ball(24, g) for g in (1, 2, 7)]
[1, 145, 1778966]
>>> middle_ball(5, 2)
Traceback (most recent call last):
...
codes.constant_weight.CodeError: Argument 'M' must be a positive even int, not 5
"""
from __future__ import annotations

from math import comb

from .constant_weight import CodeError

__all__ = ["middle_ball", "gv_count", "MiddleLayer"]


def _check_m(M: int) -> int:
    if not isinstance(M, int) or isinstance(M, bool) or M < 2 or M % 2:
        raise CodeError(f"Argument 'M' must be a positive even int, not {M!r}")
    return M // 2


def middle_ball(M: int, g: int) -> int:
    """``V_g(M) = Σ_{a<g} C(M/2, a)²`` (exact)."""
    h = _check_m(M)
    if not isinstance(g, int) or g < 1:
        raise CodeError(f"Argument 'g' must be a positive int, not {g!r}")
    return sum(comb(h, a) ** 2 for a in range(min(g, h + 1)))


def gv_count(M: int, delta: int) -> int:
    """``⌈C(M, M/2) / V_Δ(M)⌉``: the size every maximal distance-``Δ`` middle-layer code reaches."""
    total = comb(M, _check_m(M))
    return -(-total // middle_ball(M, delta))


class MiddleLayer:
    """Incremental ``V_Δ(M)`` and ``⌈C(M, M/2)/V_Δ(M)⌉`` for ``Δ = 1, 2, …`` (exact ints).

    Used by the bound optimizers, which scan ``Δ`` upwards and stop early; the prefix
    sums are kept so that several sections at the same ``M`` share the work.
    """

    def __init__(self, M: int) -> None:
        self.h = _check_m(M)
        self.M = M
        self.total = comb(M, self.h)
        self._ball = [0]  # _ball[Δ] = V_Δ
        self._term = 1  # C(h, len(_ball) - 1)

    def ball(self, delta: int) -> int:
        """``V_Δ(M)`` (for ``Δ > M/2 + 1`` this is the whole layer)."""
        while len(self._ball) <= delta:
            a = len(self._ball) - 1
            self._ball.append(self._ball[-1] + (self._term * self._term if a <= self.h else 0))
            self._term = self._term * (self.h - a) // (a + 1) if a < self.h else 0
        return self._ball[delta]

    def code_size(self, delta: int) -> int:
        """``T_Δ = ⌈C(M, M/2) / V_Δ(M)⌉``."""
        return -(-self.total // self.ball(delta))
