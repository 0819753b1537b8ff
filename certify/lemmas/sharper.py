"""Sharper rank bounds from the same chain factors: trace–Frobenius after a shift or an entrywise square.

docs/math.md §5 ("Sharper arguments"); the paper's A.2 uses plain trace–Frobenius.

A certified family gives, for ``C = diag(B)⁻¹B``, a unit diagonal and off-diagonal entries
``0 ≤ C_SU < 1/F_SU``. Trace–Frobenius on ``C`` itself uses only ``|C_SU| < 1/F_SU``. Because
the kernel is nonnegative, the entries lie in an interval that starts at 0, and a matrix
built from ``C`` whose entries are more nearly centred proves more:

``shifted`` (parameter ``0 ≤ s < 1``)
    ``M = C − sJ``: ``rank M ≤ rank C + 1``, ``M_SS = 1 − s``, ``|M_SU| ≤ max(s, 1/F − s)``;
    ``rank C ≥ ⌈R⌉ − 1`` with ``R = t²(1−s)² / (t(1−s)² + Σ max(s, 1/F − s)²)``.
``square`` (parameters ``b, g`` with ``1 + b + g ≠ 0``)
    ``M = C∘C + bC + gJ``: ``rank M ≤ binom(r+2, 2)`` when ``rank C = r``, ``M_SS = 1 + b + g``,
    ``|M_SU| ≤ max_{x∈[0,1/F]} |x² + bx + g|``; the bound is the least ``r`` with
    ``binom(r+2, 2) ≥ ⌈R⌉``, ``R = t²(1+b+g)² / (t(1+b+g)² + Σ (that max)²)``.

Everything a certificate states is computed here in exact rationals. The *choice* of
parameters (:mod:`certify.lemmas.choice`) may use floating point (a Nelder–Mead search for
``(b, g)``); every candidate is then evaluated exactly and only exact values are compared,
so the result is a rational parameter whose bound is exact, and the checker
(``certify/check.py``) recomputes it independently.

``factors`` maps each chain factor ``F`` to the number of ordered pairs that have it.

>>> from fractions import Fraction
>>> paper = {Fraction(4): 210}                      # rank-nine, paper chains: t = 15, F = 4
>>> trace_frobenius(15, paper).rank_at_least
9
>>> a = shifted(15, paper, Fraction(1, 8)); a.label(), a.ratio, a.rank_at_least
('shifted (s = 1/8)', Fraction(35, 3), 11)
>>> shifted(15, paper, Fraction(1)).rank_at_least
Traceback (most recent call last):
...
ValueError: the shift needs 0 ≤ s < 1, not 1
>>> golay = {Fraction(3): 1275120, Fraction(5): 4080384, Fraction(9): 1275120, Fraction(27): 2576}
>>> square(2576, golay, Fraction(-178, 577), Fraction(11, 925)).rank_at_least
50
"""
from __future__ import annotations

import math
from dataclasses import dataclass, field
from fractions import Fraction
from typing import Any, Mapping

from ..exact import exact

__all__ = ["ARGUMENTS", "MAX_KERNEL_TERMS", "Argument", "trace_frobenius", "shifted", "square", "null_shifted",
           "square_kernel", "quadratic_max_abs", "least_square_rank", "factors_of"]

#: The names a certificate's ``argument`` may have (docs/certificate-format.md, "argument").
ARGUMENTS = ("trace-frobenius", "shifted", "square", "null-shifted", "square-kernel")


_PARAMETERS = {"trace-frobenius": (), "shifted": ("s",), "square": ("b", "g"), "null-shifted": ("s",),
               "square-kernel": ("b", "g", "mu")}


#: The most kernel terms ``μ_1 … μ_k`` a certificate may carry (``certify.check.MAX_KERNEL_TERMS``).
MAX_KERNEL_TERMS = 8


@dataclass(frozen=True)
class Argument:
    """One argument with its parameters and exact numbers.

    ``frobenius_squared`` is the bound on ``‖M‖_F²`` (for trace–Frobenius the strict bound
    ``t + Σ F⁻²`` on ``‖C‖_F²``), ``ratio`` is ``(tr M)² / frobenius_squared`` and
    ``rank_at_least`` the integer bound on ``rank C`` (so on ``r``) it gives.
    """

    name: str
    params: dict[str, Fraction] = field(default_factory=dict)
    frobenius_squared: Fraction = Fraction(0)
    ratio: Fraction = Fraction(0)
    rank_at_least: int = 0

    def label(self) -> str:
        """``'shifted (s = 1/8)'``, ``'square (b = -178/577, g = 11/925)'`` or ``'trace–Frobenius'``."""
        if self.name == "trace-frobenius":
            return "trace–Frobenius"
        return f"{self.name} ({', '.join(_param_text(k, v) for k, v in self.params.items())})"

    @classmethod
    def from_json(cls, obj: Mapping[str, Any] | None) -> "Argument":
        """The name and parameters of a certificate's ``argument`` (numbers to be re-evaluated by :func:`choose`)."""
        if obj is None:
            return cls("trace-frobenius")
        name = obj["name"]
        if name not in ARGUMENTS:
            raise ValueError(f"unknown argument {name!r}")
        return cls(name, {k: (tuple(Fraction(v) for v in obj[k]) if k == "mu" else Fraction(obj[k]))
                          for k in _PARAMETERS[name]})

    def to_json(self) -> dict[str, Any] | None:
        """The certificate's ``argument`` object; ``None`` for trace–Frobenius (the field is then omitted)."""
        if self.name == "trace-frobenius":
            return None
        out: dict[str, Any] = {"name": self.name}
        out.update({k: ([rational_text(x) for x in v] if k == "mu" else rational_text(v)) for k, v in self.params.items()})
        out.update(frobenius_squared_at_most=rational_text(self.frobenius_squared), ratio=rational_text(self.ratio),
                   rank_at_least=self.rank_at_least)
        return out


def rational_text(q: Fraction) -> str:
    return str(q.numerator) if q.denominator == 1 else f"{q.numerator}/{q.denominator}"


def _param_text(key: str, value) -> str:
    if key == "mu":
        return f"μ = [{', '.join(rational_text(v) for v in value)}]"
    return f"{key} = {rational_text(value)}"


def factor_counts(factors: Mapping) -> dict[Fraction, int]:
    out: dict[Fraction, int] = {}
    for f, c in factors.items():
        f = exact(f, "factor")
        if f < 1 or not isinstance(c, int) or c < 0:
            raise ValueError(f"chain factors must be ≥ 1 with counts ≥ 0, not {f} ×{c}")
        out[f] = out.get(f, 0) + c
    return out


def check_t(t: int, factors: Mapping) -> None:
    if not isinstance(t, int) or t < 2:
        raise ValueError(f"the bounds need t ≥ 2 codewords, not {t!r}")
    if sum(factors.values()) != t * (t - 1):
        raise ValueError(f"expected t(t−1) = {t * (t - 1)} ordered pairs, got {sum(factors.values())}")


def ceil_fraction(q: Fraction) -> int:
    return -(-q.numerator // q.denominator)


def trace_frobenius(t: int, factors: Mapping) -> Argument:
    """Plain trace–Frobenius on ``C``: ``r ≥ ⌊t² / (t + Σ F⁻²)⌋ + 1`` (A.2; docs/math.md §5)."""
    factors = factor_counts(factors)
    check_t(t, factors)
    frob = t + sum((Fraction(c) / (f * f) for f, c in factors.items()), Fraction(0))
    ratio = Fraction(t * t) / frob
    return Argument("trace-frobenius", {}, frob, ratio, ratio.numerator // ratio.denominator + 1)


def shifted(t: int, factors: Mapping, s) -> Argument:
    """Trace–Frobenius on ``C − sJ`` (docs/math.md §5): ``rank C ≥ ⌈R⌉ − 1``.

    Raises
    ------
    ValueError
        If ``s`` is not in ``[0, 1)``.
    """
    s = exact(s, "s")
    if not 0 <= s < 1:
        raise ValueError(f"the shift needs 0 ≤ s < 1, not {rational_text(s)}")
    factors = factor_counts(factors)
    check_t(t, factors)
    d2 = (1 - s) ** 2
    frob = t * d2 + sum((c * max(s, 1 / f - s) ** 2 for f, c in factors.items()), Fraction(0))
    ratio = t * t * d2 / frob
    return Argument("shifted", {"s": s}, frob, ratio, ceil_fraction(ratio) - 1)


def null_shifted(t: int, factors: Mapping, s) -> Argument:
    """Theorem A (docs/math.md §5, "The null-space step"): the ratio ``R`` of :func:`shifted`, and
    ``rank C ≥ min(t, ⌊R⌋ + 1)``.

    The projector ``Π`` onto ``ker C`` has ``tr(CΠ) = 0``; with ``C ≥ 0``, ``C_SU < 1/F`` and
    ``s⟨J, Π⟩ ≥ 0`` this gives ``t − rank C < t − R`` whenever the kernel is not trivial.

    >>> from fractions import Fraction
    >>> a = null_shifted(15, {Fraction(4): 210}, Fraction(1, 8)); a.ratio, a.rank_at_least
    (Fraction(35, 3), 12)
    """
    a = shifted(t, factors, s)
    return Argument("null-shifted", dict(a.params), a.frobenius_squared, a.ratio,
                    min(t, a.ratio.numerator // a.ratio.denominator + 1))


def factors_of(classes: Mapping) -> dict[Fraction, int]:
    """``{F: pairs}`` from ``{(F, d): pairs}`` (chain factor and directed distance of each ordered pair)."""
    out: dict[Fraction, int] = {}
    for (f, _), c in classes.items():
        out[f] = out.get(f, 0) + c
    return out


def pair_classes(classes: Mapping, length: int) -> dict[tuple[Fraction, int], int]:
    if not isinstance(length, int) or length < 1:
        raise ValueError(f"square-kernel needs the code's length, not {length!r}")
    out: dict[tuple[Fraction, int], int] = {}
    for (f, d), c in classes.items():
        f = exact(f, "factor")
        if f < 1 or not isinstance(d, int) or not 0 <= d <= length or not isinstance(c, int) or c < 0:
            raise ValueError(f"pair classes must be (F ≥ 1, 0 ≤ d ≤ length) with counts ≥ 0, not ({f}, {d}) ×{c}")
        out[(f, d)] = out.get((f, d), 0) + c
    return out


def square_kernel(t: int, classes: Mapping, length: int, b, g, mu) -> Argument:
    """Lemma N on ``C∘C + bC + gJ`` less the kernel ``Σ_j μ_j Y^{∘j}`` (docs/math.md §5).

    ``classes`` maps ``(F, d)`` (chain factor, directed distance) to ordered pairs; the code
    has one weight, so the Gram entry of the ±1 words of a pair is ``y = length − 4d`` and
    the kernel's diagonal ``m₀ = Σ μ_j length^j``. The bound is the least ``r`` with
    ``binom(r+2, 2) ≥ ⌈R⌉``, ``R = t²(1+b+g−m₀)² / (t(1+b+g−m₀)² + Σ max |x² + bx + g − K_y|²)``.

    Raises
    ------
    ValueError
        If some ``μ_j < 0`` (the kernel would not be positive semidefinite), there are more
        than ``MAX_KERNEL_TERMS``, or ``1 + b + g ≤ m₀``.
    """
    b, g = exact(b, "b"), exact(g, "g")
    mu = tuple(exact(v, "mu") for v in mu)
    while mu and mu[-1] == 0:  # one spelling per kernel (the checker refuses a trailing 0)
        mu = mu[:-1]
    if len(mu) > MAX_KERNEL_TERMS or any(v < 0 for v in mu):
        raise ValueError(f"the kernel needs at most {MAX_KERNEL_TERMS} coefficients μ_j ≥ 0, not {[rational_text(v) for v in mu]}")
    classes = pair_classes(classes, length)
    check_t(t, factors_of(classes))
    m0 = sum((v * length ** j for j, v in enumerate(mu, 1)), Fraction(0))
    diag = 1 + b + g - m0
    if diag <= 0:
        raise ValueError(f"square-kernel needs 1 + b + g > m₀ = {rational_text(m0)}")
    frob = t * diag * diag
    for (f, d), c in classes.items():
        y = length - 4 * d
        k = sum((v * y ** j for j, v in enumerate(mu, 1)), Fraction(0))
        frob += c * quadratic_max_abs(b, g - k, 1 / f) ** 2
    ratio = t * t * diag * diag / frob
    return Argument("square-kernel", {"b": b, "g": g, "mu": mu}, frob, ratio, least_square_rank(ceil_fraction(ratio)))


def quadratic_max_abs(b, g, hi) -> Fraction:
    """``max |x² + bx + g|`` over ``x ∈ [0, hi]``, exactly: at an end point or at the vertex ``−b/2``.

    >>> quadratic_max_abs(Fraction(-1, 2), Fraction(1, 32), Fraction(1, 2))   # Chebyshev: equal at 0, 1/4, 1/2
    Fraction(1, 32)
    """
    b, g, hi = exact(b, "b"), exact(g, "g"), exact(hi, "hi")
    values = [abs(g), abs(hi * hi + b * hi + g)]
    if 0 <= -b / 2 <= hi:
        values.append(abs(g - b * b / 4))
    return max(values)


def least_square_rank(k: int) -> int:
    """The least ``r ≥ 0`` with ``binom(r+2, 2) = (r+1)(r+2)/2 ≥ k``.

    >>> least_square_rank(1287), least_square_rank(1326), least_square_rank(1327)
    (50, 50, 51)
    """
    r = max(0, math.isqrt(2 * max(k, 0)) - 2)
    while (r + 1) * (r + 2) // 2 < k:
        r += 1
    return r


def square(t: int, factors: Mapping, b, g) -> Argument:
    """Trace–Frobenius on ``C∘C + bC + gJ`` (docs/math.md §5): the least ``r`` with ``binom(r+2, 2) ≥ ⌈R⌉``.

    Raises
    ------
    ValueError
        If ``1 + b + g = 0`` (the diagonal, hence the trace, would vanish).
    """
    b, g = exact(b, "b"), exact(g, "g")
    if 1 + b + g == 0:
        raise ValueError("the square argument needs 1 + b + g ≠ 0")
    factors = factor_counts(factors)
    check_t(t, factors)
    d2 = (1 + b + g) ** 2
    frob = t * d2 + sum((c * quadratic_max_abs(b, g, 1 / f) ** 2 for f, c in factors.items()), Fraction(0))
    ratio = t * t * d2 / frob
    return Argument("square", {"b": b, "g": g}, frob, ratio, least_square_rank(ceil_fraction(ratio)))
