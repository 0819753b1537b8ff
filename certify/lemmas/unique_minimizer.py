"""Unique minimizer: four distinct-token inputs force ``K(x,y) > ((d−1)/2)·K(x,z)`` (A.4; docs/math.md §7).

With ``q = q(x)``, ``k₀``, ``k₁`` the typed tokens of ``witnesses.unique_minimizer``, write

    a = α(q,q),  b₀ = α(q,k₀(y)),  b₁ = α(q,k₁(y)),  c₀ = α(q,k₀(z)),  c₁ = α(q,k₁(z))

and ``p, q₀, q₁, s₀, s₁`` for the readout ``g_q(·) − t`` at ``q, k₀(y), k₁(y), k₀(z), k₁(z)``.
The four inputs ``Y, Z, M₀, M₁`` have targets ``t, t+d, t, t+1``, and their numerators
satisfy the exact identity ``N_{M₀} + N_{M₁} = N_Y + N_Z`` (the readout values cancel).
Error ``< 1/2`` on all four gives

    0 < ½D_{M₀} + 3/2·D_{M₁} + ½D_Y − (d−½)D_Z = (3−d)a + b₀ + 2b₁ − (d−2)c₀ − (d−1)c₁,

and for ``d ≥ 3`` (``a, c₀ ≥ 0``) the effective kernel ``K(x,w) = α(q,k₀(w)) + 2α(q,k₁(w))``
satisfies ``K(x,y) > ((d−1)/2)·K(x,z)``: factor 1 at gap 3, 2 at gap 5, 3 at gap 7.
``certify identities`` checks both identities with sympy.

>>> effective_factor(3), effective_factor(7), effective_factor(8)
(Fraction(1, 1), Fraction(3, 1), Fraction(7, 2))
>>> effective_factor(2)
Fraction(1, 2)
>>> effective_factor(0)
Traceback (most recent call last):
...
ValueError: Argument 'gap' must be an int ≥ 1, not 0
"""
from __future__ import annotations

from fractions import Fraction
from typing import NamedTuple

from ..exact import exact

__all__ = ["effective_factor", "FourInputSums", "four_input_sums", "four_inputs_correct"]

_HALF = Fraction(1, 2)


def effective_factor(gap: int) -> Fraction:
    """``(d−1)/2``: what the four inputs of one jump of gap ``d`` prove about ``K`` (A.4).

    It proves a preference ``K(x,y) > f·K(x,z)`` usable in a chain only when ``f ≥ 1``,
    i.e. ``d ≥ 3``; the identity behind it needs ``d ≥ 3`` as well (the coefficient
    ``3 − d`` of ``a`` must be ``≤ 0``).

    Raises
    ------
    ValueError
        If ``gap`` is not an int ``≥ 1``.
    """
    if not isinstance(gap, int) or isinstance(gap, bool) or gap < 1:
        raise ValueError(f"Argument 'gap' must be an int ≥ 1, not {gap!r}")
    return Fraction(gap - 1, 2)


class FourInputSums(NamedTuple):
    """``(N_X, D_X)`` for ``Y, Z, M₀, M₁``, with ``N_X = Σ_j α(q,x_j)(g_q(x_j) − t)``."""

    Y: tuple
    Z: tuple
    M0: tuple
    M1: tuple


def four_input_sums(a, b0, b1, c0, c1, p, q0, q1, s0, s1) -> FourInputSums:
    """Numerators and denominators of the four inputs of A.4 (any ring: Fractions or sympy symbols).

    ``Y = (q, k₀(y), k₁(y))``, ``Z = (q, k₀(z), k₁(z))``, ``M₀ = (q, k₀(y), k₁(z))``,
    ``M₁ = (q, k₀(z), k₁(y))``; the prediction on ``X`` is ``t + N_X / D_X``.
    """
    return FourInputSums(
        Y=(a * p + b0 * q0 + b1 * q1, a + b0 + b1),
        Z=(a * p + c0 * s0 + c1 * s1, a + c0 + c1),
        M0=(a * p + b0 * q0 + c1 * s1, a + b0 + c1),
        M1=(a * p + c0 * s0 + b1 * q1, a + c0 + b1),
    )


def four_inputs_correct(kernel, readout, gap: int, error=_HALF) -> bool:
    """Whether a head has error ``< ε`` on all four inputs (targets ``0, d, 0, 1`` relative to ``t``).

    ``kernel = (a, b₀, b₁, c₀, c₁)``, ``readout = (p, q₀, q₁, s₀, s₁)``, all exact;
    denominators must be positive (docs/math.md §2).
    """
    eps = exact(error, "error")
    k = [exact(v, "kernel entry") for v in kernel]
    g = [exact(v, "readout value") for v in readout]
    sums = four_input_sums(*k, *g)
    for (num, den), target in zip(sums, (0, gap, 0, 1)):
        if den <= 0 or not abs(num / den - target) < eps:
            return False
    return True
