"""Middle-layer code sizes ``T_Δ = ⌈C(M, M/2)/V_Δ(M)⌉`` (Gilbert–Varshamov; A.2, docs/bounds.md).

Exactly (python-flint ``fmpz``, :class:`MiddleLayerSizes`, one per ``M`` shared by the
sections), as a certified interval (:func:`T_interval`), and as a float model for choosing
``Δ`` only (:func:`log2_T_float`).
"""
from __future__ import annotations

import math


__all__ = ["MiddleLayerSizes", "binom_sq_sum", "layer_sizes", "log2_binom_float", "log2_T_float", "T_interval"]


class MiddleLayerSizes:
    """``V_Δ(M)`` and ``T_Δ = ⌈C(M, M/2)/V_Δ(M)⌉`` at the few ``Δ`` an optimizer asks for (exact, flint ``fmpz``).

    The same numbers as :class:`codes.MiddleLayer`, which adds the terms ``C(h, a)²`` one
    by one from ``a = 0``; here a ball far from every known one is summed by binary
    splitting (:func:`binom_sq_sum`) and a neighbouring one from the nearest known ball,
    so reaching ``Δ ≈ 0.15·M`` costs a few big multiplications instead of ``Δ`` of them.
    """

    def __init__(self, M: int) -> None:
        from flint import fmpz

        self.M, self.h = M, M // 2
        self.total = fmpz.bin_uiui(M, self.h)
        self._ball = {0: fmpz(0)}  # Δ → V_Δ (Δ ≤ h + 1: beyond, the ball is the whole layer)

    def ball(self, delta: int):
        """``V_Δ(M) = Σ_{a<Δ} C(M/2, a)²`` as an ``fmpz``."""
        delta = min(delta, self.h + 1)
        V = self._ball.get(delta)
        if V is None:
            near = min(self._ball, key=lambda d: abs(d - delta))
            if near < delta:
                V = self._ball[near] + binom_sq_sum(self.h, near, delta)
            else:
                V = self._ball[near] - binom_sq_sum(self.h, delta, near)
            self._ball[delta] = V
        return V

    def code_size(self, delta: int):
        """``T_Δ = ⌈C(M, M/2)/V_Δ(M)⌉`` as an ``fmpz`` (``Δ ≥ 1``)."""
        return -((-self.total) // self.ball(delta))


def binom_sq_sum(h: int, a: int, b: int):
    """``Σ_{a ≤ j < b} C(h, j)²`` exactly (``fmpz``), by binary splitting.

    The terms are hypergeometric: ``C(h, j+1)²/C(h, j)² = ((h−j)/(j+1))²``. Writing the
    sum as ``C(h, a)² · Σ_j Π_{a≤i<j} p(i)/q(i)`` with ``p(i) = (h−i)²``, ``q(i) = (i+1)²``,
    the inner sum over ``[a, b)`` is ``R/Q`` with ``P = Π p``, ``Q = Π q`` and
    ``R(a, b) = R(a, c)·Q(c, b) + P(a, c)·R(c, b)`` — O(log) levels of big products
    (the classic evaluation of hypergeometric partial sums).
    """
    from flint import fmpz

    b = min(b, h + 1)
    if b <= a:
        return fmpz(0)

    def split(lo: int, hi: int):
        if hi - lo <= 32:  # leaf, in Python ints (small here): Horner from the right, [j, hi) = 1 + p(j)/q(j)·[j+1, hi)
            P, Q, R = 1, 1, 0
            for j in range(hi - 1, lo - 1, -1):
                p, q = (h - j) ** 2, (j + 1) ** 2
                R = Q * q + R * p
                Q *= q
                P *= p
            return fmpz(P), fmpz(Q), fmpz(R)
        mid = (lo + hi) // 2
        P1, Q1, R1 = split(lo, mid)
        P2, Q2, R2 = split(mid, hi)
        return P1 * P2, Q1 * Q2, R1 * Q2 + P1 * R2

    _, Q, R = split(a, b)
    return fmpz.bin_uiui(h, a) ** 2 * R // Q


_LAYERS: dict[int, MiddleLayerSizes] = {}


def layer_sizes(M: int) -> MiddleLayerSizes:
    """The :class:`MiddleLayerSizes` of ``M``, shared by the sections at the same ``M`` (the balls one section sums serve the next)."""
    layer = _LAYERS.get(M)
    if layer is None:
        if len(_LAYERS) >= 4:  # only the current M (and a few before it) are worth keeping
            _LAYERS.clear()
        layer = _LAYERS[M] = MiddleLayerSizes(M)
    return layer


def log2_binom_float(n: int, k: int) -> float:
    return (math.lgamma(n + 1) - math.lgamma(k + 1) - math.lgamma(n - k + 1)) / math.log(2)


def log2_T_float(M: int, delta: int) -> float:
    """Float estimate of ``log₂ T_Δ`` (non-increasing in ``Δ``), for choosing ``Δ`` only."""
    h = M // 2
    a = min(delta - 1, h // 2)  # past the middle the largest term stays C(h, h/2)²
    rho = (h - a + 1) / a if a > 0 else math.inf
    tail = -math.log2(1 - rho ** -2) if rho > 1.01 else math.log2(delta)
    return log2_binom_float(M, h) - 2 * log2_binom_float(h, a) - tail


def T_interval(M: int, delta: int):
    """Certified ``[T_lo, T_hi]`` (arb) for ``T_Δ = ⌈C(M, M/2)/V_Δ(M)⌉`` from ``C(h,Δ−1)² ≤ V_Δ ≤ …``."""
    from flint import arb

    h = M // 2
    a = delta - 1
    total = (arb(M + 1).lgamma() - 2 * arb(h + 1).lgamma()).exp()
    last = (arb(h + 1).lgamma() - arb(a + 1).lgamma() - arb(h - a + 1).lgamma()).exp()
    v_lo = last * last
    if 2 * a <= h - 1:  # terms increase up to a: geometric tail with ratio ρ = (h−a+1)/a > 1
        rho = arb(h - a + 1) / arb(a) if a > 0 else None
        v_hi = v_lo / (1 - 1 / (rho * rho)) if rho is not None else v_lo
    else:  # fall back on (number of terms) × (largest term)
        top = (arb(h + 1).lgamma() - arb(h // 2 + 1).lgamma() - arb(h - h // 2 + 1).lgamma()).exp()
        v_hi = delta * top * top  # every term is at most the middle binomial squared
    return total / v_hi, total / v_lo + 1
