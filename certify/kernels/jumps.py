"""The jump checks of ``check-kernel`` (stage 4; weight domination, A.2; docs/math.md §3).

A family's jump ``(x, y, z, n)`` — its three witnesses are in the family — forces every
solving head to have ``α(x, y) > μ·α(x, z)`` with ``μ = (n−2)(d−2ε)/(2ε)`` and gap
``d = |x∧z| − |x∧y|`` (:func:`certify.lemmas.domination.domination_factor`). :class:`JumpTally`
checks them exactly, one at a time, listed and streamed families alike, and keeps the
violations (the first ``cap`` listed; the count exact).
"""
from __future__ import annotations

from fractions import Fraction
from typing import Any

from ..check import format_rational
from ..lemmas.domination import domination_factor
from .report import token_bits, decimal_text, _frac

__all__ = ["JumpTally"]


class JumpTally:
    """Jumps checked in order: the count of violated ones and their report entries."""

    def __init__(self, m: int, eps: Fraction, cap: int | None = None) -> None:
        from flint import fmpq

        self.m, self.eps, self.cap, self._fmpq = m, eps, cap, fmpq
        self.factors: dict[tuple[int, int], tuple[Fraction, Any]] = {}  # (n, d) → μ, as Fraction and as fmpq
        self.count = 0
        self.violations: list[dict[str, Any]] = []

    def check(self, index: int, x: int, y: int, z: int, n: int, axy, axz) -> bool:
        """Jump ``index`` with ``α(x, y) = axy`` and ``α(x, z) = axz`` (``fmpq``): True when it is violated."""
        d = (x & z).bit_count() - (x & y).bit_count()
        mu = self.factors.get((n, d))
        if mu is None:
            f = domination_factor(d, n, self.eps)
            mu = self.factors[(n, d)] = (f, self._fmpq(f.numerator, f.denominator))
        if axy > mu[1] * axz:
            return False
        self.count += 1
        if self.cap is None or len(self.violations) < self.cap:
            m = self.m
            fxy, fxz = _frac(axy), _frac(axz)
            self.violations.append({
                "index": index, "x": token_bits(x, m), "y": token_bits(y, m), "z": token_bits(z, m), "gap": d,
                "factor": format_rational(mu[0]), "alpha_xy": format_rational(fxy), "alpha_xz": format_rational(fxz),
                "alpha_xy_decimal": decimal_text(fxy), "alpha_xz_decimal": decimal_text(fxz)})
        return True
