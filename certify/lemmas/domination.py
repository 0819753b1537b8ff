"""Weight domination: three witnesses force ``α(x,y) > μ·α(x,z)`` (A.2; docs/math.md §3).

For tokens with ``t = ⟨x,y⟩ < u = ⟨x,z⟩ ≤ ⟨x,x⟩`` and gap ``d = u − t``, correctness with
error ``< ε`` on the three witnesses of exact length ``n``

    Y = (x, y^{n−1}),  Z = (x, z^{n−1}),  W = (x, y, z^{n−2})

gives ``D_Y > μ D_Z`` with ``μ_d = (n−2)(d−2ε)/(2ε)``, and when ``μ ≥ 1`` (because
``α(x,x) ≥ 0``) the kernel preference ``α(x,y) > μ·α(x,z)``. At ``n = 3``, ``ε = 1/2``:
``μ = d − 1``.

The proof rests on an exact identity — the values cancel:
``N_W = N_Y/(n−1) + (n−2)N_Z/(n−1)`` and likewise for ``D`` — which
:func:`witness_sums` lets the tests check symbolically and numerically.

>>> domination_factor(3), domination_factor(5), domination_factor(6)
(Fraction(2, 1), Fraction(4, 1), Fraction(5, 1))
>>> domination_factor(2, length=4)
Fraction(2, 1)
>>> domination_factor(3, error=0.5)
Traceback (most recent call last):
...
TypeError: Argument 'error' must be exact (int, Fraction or fmpq), not float 0.5
"""
from __future__ import annotations

from fractions import Fraction
from typing import NamedTuple

from ..exact import exact

__all__ = ["HALF", "domination_factor", "WitnessSums", "witness_sums", "witnesses_correct"]

HALF = Fraction(1, 2)


def domination_factor(gap: int, length: int = 3, error: Fraction | int = HALF) -> Fraction:
    """``μ_d = (n−2)(d−2ε)/(2ε)``, the factor one jump of overlap gap ``d`` proves (A.2).

    Parameters
    ----------
    gap : int
        ``d = ⟨x,z⟩ − ⟨x,y⟩ ≥ 1``.
    length : int
        Exact input length ``n ≥ 3``.
    error : Fraction
        The error threshold ``ε > 0`` (exact).

    Returns
    -------
    Fraction
        ``μ``; the preference ``α(x,y) > μ α(x,z)`` follows only when ``μ ≥ 1``
        (a gap-1 jump at ``n = 3, ε = 1/2`` gives 0: no information).

    Raises
    ------
    TypeError
        If ``error`` is not exact.
    ValueError
        If ``gap < 1``, ``length < 3`` or ``error ≤ 0``.
    """
    eps = exact(error, "error")
    if not isinstance(gap, int) or gap < 1:
        raise ValueError(f"Argument 'gap' must be an int ≥ 1, not {gap!r}")
    if not isinstance(length, int) or length < 3:
        raise ValueError(f"Argument 'length' must be an int ≥ 3, not {length!r}")
    if eps <= 0:
        raise ValueError(f"Argument 'error' must be positive, not {eps}")
    return (length - 2) * (gap - 2 * eps) / (2 * eps)


class WitnessSums(NamedTuple):
    """``(N_X, D_X)`` for the three witnesses, with ``N_X = Σ_j α(x,x_j)(g_x(x_j) − t)``."""

    Y: tuple
    Z: tuple
    W: tuple


def witness_sums(a, b, c, p, q, s, length: int = 3) -> WitnessSums:
    """Numerators and denominators of the three witnesses (A.2; docs/math.md §3).

    ``a, b, c = α(x,x), α(x,y), α(x,z)`` and ``p, q, s = g_x(x)−t, g_x(y)−t, g_x(z)−t``.
    Works for any ring elements (Fractions, sympy symbols), so the identity can be
    checked symbolically. The prediction on ``X`` is ``t + N_X / D_X``.
    """
    n = length
    return WitnessSums(
        Y=(a * p + (n - 1) * b * q, a + (n - 1) * b),
        Z=(a * p + (n - 1) * c * s, a + (n - 1) * c),
        W=(a * p + b * q + (n - 2) * c * s, a + b + (n - 2) * c),
    )


def witnesses_correct(a, b, c, p, q, s, gap: int, length: int = 3, error=HALF) -> bool:
    """Whether a head with these kernel and readout values has error ``< ε`` on all three witnesses.

    Targets relative to ``t`` are ``0, d, 0``; denominators must be positive (the model
    requires it, docs/math.md §2). Everything is exact.
    """
    eps = exact(error, "error")
    vals = [exact(v, name) for v, name in zip((a, b, c, p, q, s), "abcpqs")]
    sums = witness_sums(*vals, length=length)
    for (num, den), target in zip(sums, (0, gap, 0)):
        if den <= 0 or not abs(num / den - target) < eps:
            return False
    return True
