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
parameters may use floating point (a Nelder–Mead search for ``(b, g)``); every candidate
is then evaluated exactly and only exact values are compared, so the result is a
rational parameter whose bound is exact, and the checker (``certify/check.py``)
recomputes it independently.

``factors`` maps each chain factor ``F`` to the number of ordered pairs that have it.

>>> from fractions import Fraction
>>> paper = {Fraction(4): 210}                      # rank-nine, paper chains: t = 15, F = 4
>>> trace_frobenius(15, paper).rank_at_least
9
>>> a = best_shift(15, paper); a.label(), a.ratio, a.rank_at_least
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

__all__ = [
    "ARGUMENTS",
    "Argument",
    "trace_frobenius",
    "shifted",
    "square",
    "quadratic_max_abs",
    "least_square_rank",
    "best_shift",
    "best_square",
    "best_argument",
    "null_shifted",
    "square_kernel",
    "best_null_shift",
    "best_square_kernel",
    "factors_of",
    "CHOICES",
    "choose",
]

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
        out.update({k: ([_text(x) for x in v] if k == "mu" else _text(v)) for k, v in self.params.items()})
        out.update(frobenius_squared_at_most=_text(self.frobenius_squared), ratio=_text(self.ratio),
                   rank_at_least=self.rank_at_least)
        return out


def _text(q: Fraction) -> str:
    return str(q.numerator) if q.denominator == 1 else f"{q.numerator}/{q.denominator}"


def _param_text(key: str, value) -> str:
    if key == "mu":
        return f"μ = [{', '.join(_text(v) for v in value)}]"
    return f"{key} = {_text(value)}"


def _factors(factors: Mapping) -> dict[Fraction, int]:
    out: dict[Fraction, int] = {}
    for f, c in factors.items():
        f = exact(f, "factor")
        if f < 1 or not isinstance(c, int) or c < 0:
            raise ValueError(f"chain factors must be ≥ 1 with counts ≥ 0, not {f} ×{c}")
        out[f] = out.get(f, 0) + c
    return out


def _check_t(t: int, factors: Mapping) -> None:
    if not isinstance(t, int) or t < 2:
        raise ValueError(f"the bounds need t ≥ 2 codewords, not {t!r}")
    if sum(factors.values()) != t * (t - 1):
        raise ValueError(f"expected t(t−1) = {t * (t - 1)} ordered pairs, got {sum(factors.values())}")


def _ceil(q: Fraction) -> int:
    return -(-q.numerator // q.denominator)


def trace_frobenius(t: int, factors: Mapping) -> Argument:
    """Plain trace–Frobenius on ``C``: ``r ≥ ⌊t² / (t + Σ F⁻²)⌋ + 1`` (A.2; docs/math.md §5)."""
    factors = _factors(factors)
    _check_t(t, factors)
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
        raise ValueError(f"the shift needs 0 ≤ s < 1, not {_text(s)}")
    factors = _factors(factors)
    _check_t(t, factors)
    d2 = (1 - s) ** 2
    frob = t * d2 + sum((c * max(s, 1 / f - s) ** 2 for f, c in factors.items()), Fraction(0))
    ratio = t * t * d2 / frob
    return Argument("shifted", {"s": s}, frob, ratio, _ceil(ratio) - 1)


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


def _classes(classes: Mapping, length: int) -> dict[tuple[Fraction, int], int]:
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
        raise ValueError(f"the kernel needs at most {MAX_KERNEL_TERMS} coefficients μ_j ≥ 0, not {[_text(v) for v in mu]}")
    classes = _classes(classes, length)
    _check_t(t, factors_of(classes))
    m0 = sum((v * length ** j for j, v in enumerate(mu, 1)), Fraction(0))
    diag = 1 + b + g - m0
    if diag <= 0:
        raise ValueError(f"square-kernel needs 1 + b + g > m₀ = {_text(m0)}")
    frob = t * diag * diag
    for (f, d), c in classes.items():
        y = length - 4 * d
        k = sum((v * y ** j for j, v in enumerate(mu, 1)), Fraction(0))
        frob += c * quadratic_max_abs(b, g - k, 1 / f) ** 2
    ratio = t * t * diag * diag / frob
    return Argument("square-kernel", {"b": b, "g": g, "mu": mu}, frob, ratio, least_square_rank(_ceil(ratio)))


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
    factors = _factors(factors)
    _check_t(t, factors)
    d2 = (1 + b + g) ** 2
    frob = t * d2 + sum((c * quadratic_max_abs(b, g, 1 / f) ** 2 for f, c in factors.items()), Fraction(0))
    ratio = t * t * d2 / frob
    return Argument("square", {"b": b, "g": g}, frob, ratio, least_square_rank(_ceil(ratio)))


def _spellable(a: Argument) -> bool:
    """Whether a certificate can state ``a``'s numbers (rationals of at most ``MAX_RATIONAL_CHARS`` characters)."""
    from ..check import MAX_RATIONAL_CHARS

    return all(len(_text(q)) <= MAX_RATIONAL_CHARS for q in (*_flat(a.params.values()), a.frobenius_squared, a.ratio))


def _flat(values) -> list[Fraction]:
    out: list[Fraction] = []
    for v in values:
        out.extend(v if isinstance(v, tuple) else (v,))
    return out


def _simplest(candidates, evaluate) -> Argument:
    """Of exactly evaluated candidates a certificate can spell, the best bound; then the smallest
    denominators; then the largest ratio."""
    best = None
    for params in candidates:
        try:
            a = evaluate(*params)
        except ValueError:
            continue
        if not _spellable(a):
            continue
        size = max((p.denominator for p in _flat(params)), default=1)
        key = (a.rank_at_least, -size, a.ratio)
        if best is None or key > best[0]:
            best = (key, a)
    if best is None:
        from ..check import MAX_RATIONAL_CHARS

        raise ValueError(f"no admissible parameter: every candidate's exact numbers need more than {MAX_RATIONAL_CHARS} "
                         "characters (the certificate format's limit) or break the argument's hypotheses")
    return best[1]


def _roundings(x: Fraction, limit: int = 2**24):
    d = 1
    while d <= limit:
        yield x.limit_denominator(d)
        d *= 2
    yield x


def best_shift(t: int, factors: Mapping, evaluate=shifted) -> Argument:
    """The shift ``s`` that maximizes the bound, found exactly.

    ``R(s)`` is piecewise a ratio of quadratics, with breakpoints ``s = 1/(2F)`` (where
    ``max(s, 1/F − s)`` switches branch). On each piece, maximizing ``R`` means minimizing
    ``Q(s)/(1 − s)²`` with ``Q(s) = q₂s² + q₁s + q₀``, whose only stationary point is the
    rational ``s* = −(q₁ + 2q₀)/(2q₂ + q₁)``. The candidates are the breakpoints, 0 and each
    piece's ``s*``; all are evaluated exactly. Of those with the best bound, the one
    with the smallest denominator (or a simpler rounding with the same bound) is returned.
    """
    factors = _factors(factors)
    _check_t(t, factors)
    breaks = sorted({Fraction(0)} | {1 / (2 * f) for f in factors if 1 / (2 * f) < 1})
    cands = set(breaks)
    edges = breaks + [Fraction(1)]
    for lo, hi in zip(edges, edges[1:]):
        mid = (lo + hi) / 2
        q2 = q1 = q0 = Fraction(0)
        for f, c in factors.items():
            if 1 / (2 * f) <= mid:  # max(s, 1/F − s) = s on this piece
                q2 += c
            else:  # (1/F − s)²
                q2 += c
                q1 -= 2 * c / f
                q0 += c / (f * f)
        if 2 * q2 + q1 != 0:
            star = -(q1 + 2 * q0) / (2 * q2 + q1)
            if lo <= star < hi:
                cands.add(star)
    first = _simplest([(s,) for s in cands], lambda s: evaluate(t, factors, s))
    s0 = first.params["s"]
    return _simplest([(s,) for s in _roundings(s0) if 0 <= s < 1] + [(s0,)], lambda s: evaluate(t, factors, s))


def best_null_shift(t: int, factors: Mapping) -> Argument:
    """The ``s`` of Theorem A with the largest bound, exactly: the candidates of :func:`best_shift`.

    Both bounds increase with the same ratio ``R(s)`` (``⌈R⌉ − 1`` and ``⌊R⌋ + 1``), so the
    exact maximizers of ``R`` over the pieces between the breakpoints ``1/(2F)`` serve both.

    >>> from fractions import Fraction
    >>> best_null_shift(15, {Fraction(5): 210}).label(), best_null_shift(15, {Fraction(5): 210}).rank_at_least
    ('null-shifted (s = 1/10)', 13)
    """
    return best_shift(t, factors, null_shifted)


def _float_square_ratio(t: int, factors: list[tuple[float, int]], b: float, g: float) -> float:
    diag = 1 + b + g
    total = t * diag * diag
    for x, c in factors:  # x = 1/F
        e = max(abs(g), abs(x * x + b * x + g))
        if 0 <= -b / 2 <= x:
            e = max(e, abs(g - b * b / 4))
        total += c * e * e
    return t * t * diag * diag / total if total > 0 else 0.0


def _nelder_mead(f, start: tuple[float, float], scale: tuple[float, float], steps: int = 400) -> tuple[float, float]:
    """Maximize ``f`` on the plane from ``start`` (plain Nelder–Mead; floats only choose candidates)."""
    pts = [start, (start[0] + scale[0], start[1]), (start[0], start[1] + scale[1])]
    vals = [f(*p) for p in pts]
    for _ in range(steps):
        order = sorted(range(3), key=lambda i: -vals[i])
        pts, vals = [pts[i] for i in order], [vals[i] for i in order]
        cx, cy = (pts[0][0] + pts[1][0]) / 2, (pts[0][1] + pts[1][1]) / 2
        worst = pts[2]

        def along(k: float) -> tuple[float, float]:
            return (cx + k * (worst[0] - cx), cy + k * (worst[1] - cy))

        refl = along(-1.0)
        fr = f(*refl)
        if fr > vals[0]:
            exp_ = along(-2.0)
            fe = f(*exp_)
            pts[2], vals[2] = (exp_, fe) if fe > fr else (refl, fr)
        elif fr > vals[1]:
            pts[2], vals[2] = refl, fr
        else:
            con = along(0.5)
            fc = f(*con)
            if fc > vals[2]:
                pts[2], vals[2] = con, fc
            else:  # shrink towards the best point
                for i in (1, 2):
                    pts[i] = ((pts[i][0] + pts[0][0]) / 2, (pts[i][1] + pts[0][1]) / 2)
                    vals[i] = f(*pts[i])
    i = max(range(3), key=lambda k: vals[k])
    return pts[i]


def best_square(t: int, factors: Mapping) -> Argument:
    """Parameters ``(b, g)`` of the square argument with the largest bound: float search, exact choice.

    Nelder–Mead on the float ratio from one start per chain factor ``F`` — the Chebyshev
    quadratic of ``[0, 1/F]``, ``b = −1/F``, ``g = 1/(8F²)``, which makes ``|x² + bx + g|``
    equal at both ends and the vertex — and from ``b = g = 0``; the best point is rounded
    to rationals with denominators ``2^k`` (``limit_denominator``), each rounding evaluated
    exactly, and the simplest rounding with the best exact bound is returned.
    """
    factors = _factors(factors)
    _check_t(t, factors)
    flt = [(float(1 / f), c) for f, c in factors.items()]  # float(1/F): no overflow for huge F

    def ratio(b: float, g: float) -> float:
        return _float_square_ratio(t, flt, b, g)

    starts = [(0.0, 0.0)] + [(-float(1 / f), float(1 / f) ** 2 / 8.0) for f in sorted(factors)]
    best_point, best_val = (0.0, 0.0), -1.0
    for b0, g0 in starts:
        p = _nelder_mead(ratio, (b0, g0), (0.05 + abs(b0) / 4, 0.01 + abs(g0) / 4))
        v = ratio(*p)
        if v > best_val:
            best_point, best_val = p, v
    b, g = (Fraction(x) for x in best_point)  # exact conversion of the floats
    cands = list(zip(_roundings(b), _roundings(g))) + [(Fraction(0), Fraction(0))]
    return _simplest(cands, lambda b, g: square(t, factors, b, g))


def _nelder_mead_n(f, start: list[float], scale: list[float], steps: int = 600) -> list[float]:
    """Maximize ``f`` over ``R^n`` from ``start`` (plain Nelder–Mead; floats only choose candidates)."""
    n = len(start)
    pts = [list(start)] + [[x + (scale[i] if i == k else 0.0) for i, x in enumerate(start)] for k in range(n)]
    vals = [f(p) for p in pts]
    for _ in range(steps):
        order = sorted(range(n + 1), key=lambda i: -vals[i])
        pts, vals = [pts[i] for i in order], [vals[i] for i in order]
        centre = [sum(p[i] for p in pts[:n]) / n for i in range(n)]
        worst = pts[n]

        def along(k: float) -> list[float]:
            return [c + k * (w - c) for c, w in zip(centre, worst)]

        refl = along(-1.0)
        fr = f(refl)
        if fr > vals[0]:
            ex = along(-2.0)
            fe = f(ex)
            pts[n], vals[n] = (ex, fe) if fe > fr else (refl, fr)
        elif fr > vals[n - 1]:
            pts[n], vals[n] = refl, fr
        else:
            con = along(0.5)
            fc = f(con)
            if fc > vals[n]:
                pts[n], vals[n] = con, fc
            else:  # shrink towards the best point
                for i in range(1, n + 1):
                    pts[i] = [(x + y) / 2 for x, y in zip(pts[i], pts[0])]
                    vals[i] = f(pts[i])
    return pts[max(range(n + 1), key=lambda k: vals[k])]


def _decimal(x: float, digits: int) -> Fraction:
    """``x`` rounded to ``digits`` significant decimal digits, exactly (``0.000764`` → ``191/250000``)."""
    return Fraction(f"{x:.{digits - 1}e}") if x != 0 else Fraction(0)


def best_square_kernel(t: int, classes: Mapping, length: int, terms: int = 2) -> Argument:
    """Parameters ``(b, g, μ_1 … μ_terms)`` of the square-kernel argument: float search, exact choice.

    The float search runs on ``ν_j = μ_j·length^j`` (each term's share of the diagonal, so
    every coordinate is of the same size) with ``μ_j = |ν_j|/length^j``, Nelder–Mead from
    the best ``square`` parameters with no kernel and with a small one; the best point is
    rounded to 1, 2, … 12 significant decimal digits (all coordinates at once), every
    rounding evaluated exactly, and the simplest rounding with the best exact bound is
    returned — so a kernel is kept only when the exact ratio clears the next threshold
    ``binom(r+2, 2)``.
    """
    classes = _classes(classes, length)
    factors = factors_of(classes)
    _check_t(t, factors)
    flt = [(float(1 / f), (length - 4 * d) / length, c) for (f, d), c in classes.items()]

    def ratio(p: list[float]) -> float:
        b, g, nu = p[0], p[1], [abs(v) for v in p[2:]]
        diag = 1 + b + g - sum(nu)
        if diag <= 0:
            return 0.0
        total = t * diag * diag
        for x, y, c in flt:
            k = sum(v * y ** j for j, v in enumerate(nu, 1))
            e = max(abs(g - k), abs(x * x + b * x + g - k))
            if 0 <= -b / 2 <= x:
                e = max(e, abs(g - b * b / 4 - k))
            total += c * e * e
        return t * t * diag * diag / total

    try:
        plain = best_square(t, factors)
        b0, g0 = float(plain.params["b"]), float(plain.params["g"])
    except ValueError:  # no square parameters a certificate can spell: start from the Chebyshev quadratic
        h = float(1 / min(factors))
        b0, g0 = -h, h * h / 8
    best_point, best_val = None, -1.0
    for nu0 in (0.0, 0.02):
        start = [b0, g0] + [nu0] * terms
        p = _nelder_mead_n(ratio, start, [0.02, 0.005] + [0.01] * terms)
        p = _nelder_mead_n(ratio, p, [0.005, 0.001] + [0.002] * terms)  # a restart refines
        if ratio(p) > best_val:
            best_point, best_val = p, ratio(p)
    point = [best_point[0], best_point[1]] + [abs(v) / length ** j for j, v in enumerate(best_point[2:], 1)]
    cands = []
    for digits in range(1, 13):  # every coordinate to this many significant decimal digits: -259/1000, 191/250000
        rounded = [_decimal(x, digits) for x in point]
        cands.append((rounded[0], rounded[1], tuple(rounded[2:])))
    return _simplest(cands, lambda b, g, mu: square_kernel(t, classes, length, b, g, mu))


def best_argument(t: int, factors: Mapping, allowed=ARGUMENTS, classes: Mapping | None = None,
                  length: int | None = None) -> Argument:
    """The argument among ``allowed`` with the largest bound (ties: the earlier in :data:`ARGUMENTS`:
    trace–Frobenius, shifted, square, null-shifted, square-kernel).

    ``square-kernel`` is a candidate only with ``classes`` (``{(F, d): pairs}``) and the code's
    ``length`` (a code of one weight).

    >>> from fractions import Fraction
    >>> best_argument(46, {Fraction(5): 2024, Fraction(27): 46}).label()
    'null-shifted (s = 1/10)'
    """
    for name in allowed:
        if name not in ARGUMENTS:
            raise ValueError(f"unknown argument {name!r}; choose from {', '.join(ARGUMENTS)}")
    found = []
    if "trace-frobenius" in allowed:
        found.append(trace_frobenius(t, factors))
    kernel = None if classes is None or length is None else (lambda t, _: best_square_kernel(t, classes, length))
    for name, best in (("shifted", best_shift), ("square", best_square), ("null-shifted", best_null_shift),
                       ("square-kernel", kernel)):
        if name in allowed and best is not None:
            try:
                found.append(best(t, factors))
            except ValueError:  # no parameter whose numbers a certificate can spell: not a candidate
                if "trace-frobenius" not in allowed:
                    raise
    if not found:
        raise ValueError("no argument allowed")
    return max(found, key=lambda a: a.rank_at_least)  # max keeps the first of equal bounds


#: What producers accept for ``argument``: a name, ``"best"``, or ``None`` (trace–Frobenius, no field).
CHOICES = ("best",) + ARGUMENTS


def _need_classes(classes: Mapping | None, length: int | None) -> None:
    if classes is None or length is None:
        raise ValueError("square-kernel needs a code of one weight (pairs counted by distance)")


def choose(t: int, factors: Mapping, choice: "str | Argument | None", classes: Mapping | None = None,
           length: int | None = None) -> Argument | None:
    """The argument a producer writes: ``None`` for plain trace–Frobenius (no ``argument`` field).

    ``"best"``: the largest bound of :func:`best_argument`; a name: the best parameters of that
    argument; an :class:`Argument`: its parameters, re-evaluated exactly on these factors.
    ``classes`` (``{(F, d): pairs}``) and ``length`` are what ``square-kernel`` reads (a code
    of one weight); without them it is not available.
    """
    if choice is None or choice == "trace-frobenius":
        return None
    if isinstance(choice, Argument):
        name = choice.name
        if name == "trace-frobenius":
            return None
        if name == "square-kernel":
            _need_classes(classes, length)
            return square_kernel(t, classes, length, *choice.params.values())
        evaluate = {"shifted": shifted, "square": square, "null-shifted": null_shifted}[name]
        return evaluate(t, factors, *choice.params.values())
    if choice == "best":
        a = best_argument(t, factors, classes=classes, length=length)
        return None if a.name == "trace-frobenius" else a
    if choice == "shifted":
        return best_shift(t, factors)
    if choice == "null-shifted":
        return best_null_shift(t, factors)
    if choice == "square":
        return best_square(t, factors)
    if choice == "square-kernel":
        _need_classes(classes, length)
        return best_square_kernel(t, classes, length)
    raise ValueError(f"unknown argument {choice!r}; choose from {', '.join(CHOICES)}")
