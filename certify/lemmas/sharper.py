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
    "CHOICES",
    "choose",
]

#: The names a certificate's ``argument`` may have (docs/certificate-format.md, "argument").
ARGUMENTS = ("trace-frobenius", "shifted", "square")
_PARAMETERS = {"trace-frobenius": (), "shifted": ("s",), "square": ("b", "g")}


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
        return f"{self.name} ({', '.join(f'{k} = {_text(v)}' for k, v in self.params.items())})"

    @classmethod
    def from_json(cls, obj: Mapping[str, Any] | None) -> "Argument":
        """The name and parameters of a certificate's ``argument`` (numbers to be re-evaluated by :func:`choose`)."""
        if obj is None:
            return cls("trace-frobenius")
        name = obj["name"]
        if name not in ARGUMENTS:
            raise ValueError(f"unknown argument {name!r}")
        return cls(name, {k: Fraction(obj[k]) for k in _PARAMETERS[name]})

    def to_json(self) -> dict[str, Any] | None:
        """The certificate's ``argument`` object; ``None`` for trace–Frobenius (the field is then omitted)."""
        if self.name == "trace-frobenius":
            return None
        out: dict[str, Any] = {"name": self.name}
        out.update({k: _text(v) for k, v in self.params.items()})
        out.update(frobenius_squared_at_most=_text(self.frobenius_squared), ratio=_text(self.ratio),
                   rank_at_least=self.rank_at_least)
        return out


def _text(q: Fraction) -> str:
    return str(q.numerator) if q.denominator == 1 else f"{q.numerator}/{q.denominator}"


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

    return all(len(_text(q)) <= MAX_RATIONAL_CHARS for q in (*a.params.values(), a.frobenius_squared, a.ratio))


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
        size = max(p.denominator for p in params) if params else 1
        key = (a.rank_at_least, -size, a.ratio)
        if best is None or key > best[0]:
            best = (key, a)
    if best is None:
        raise ValueError("no admissible parameter")
    return best[1]


def _roundings(x: Fraction, limit: int = 2**24):
    d = 1
    while d <= limit:
        yield x.limit_denominator(d)
        d *= 2
    yield x


def best_shift(t: int, factors: Mapping) -> Argument:
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
    first = _simplest([(s,) for s in cands], lambda s: shifted(t, factors, s))
    s0 = first.params["s"]
    return _simplest([(s,) for s in _roundings(s0) if 0 <= s < 1] + [(s0,)], lambda s: shifted(t, factors, s))


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
    flt = [(1.0 / float(f), c) for f, c in factors.items()]

    def ratio(b: float, g: float) -> float:
        return _float_square_ratio(t, flt, b, g)

    starts = [(0.0, 0.0)] + [(-1.0 / float(f), 1.0 / (8.0 * float(f) ** 2)) for f in sorted(factors)]
    best_point, best_val = (0.0, 0.0), -1.0
    for b0, g0 in starts:
        p = _nelder_mead(ratio, (b0, g0), (0.05 + abs(b0) / 4, 0.01 + abs(g0) / 4))
        v = ratio(*p)
        if v > best_val:
            best_point, best_val = p, v
    b, g = (Fraction(x) for x in best_point)  # exact conversion of the floats
    cands = list(zip(_roundings(b), _roundings(g))) + [(Fraction(0), Fraction(0))]
    return _simplest(cands, lambda b, g: square(t, factors, b, g))


def best_argument(t: int, factors: Mapping, allowed=ARGUMENTS) -> Argument:
    """The argument among ``allowed`` with the largest bound (ties: trace–Frobenius, then shifted, then square).

    >>> from fractions import Fraction
    >>> best_argument(46, {Fraction(5): 2024, Fraction(27): 46}).label()
    'shifted (s = 1/10)'
    """
    for name in allowed:
        if name not in ARGUMENTS:
            raise ValueError(f"unknown argument {name!r}; choose from {', '.join(ARGUMENTS)}")
    found = []
    if "trace-frobenius" in allowed:
        found.append(trace_frobenius(t, factors))
    for name, best in (("shifted", best_shift), ("square", best_square)):
        if name in allowed:
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


def choose(t: int, factors: Mapping, choice: "str | Argument | None") -> Argument | None:
    """The argument a producer writes: ``None`` for plain trace–Frobenius (no ``argument`` field).

    ``"best"``: the largest bound of :func:`best_argument`; ``"shifted"``/``"square"``: the best
    parameters of that argument; an :class:`Argument`: its parameters, re-evaluated exactly
    on these factors.
    """
    if choice is None or choice == "trace-frobenius":
        return None
    if isinstance(choice, Argument):
        if choice.name == "trace-frobenius":
            return None
        evaluate = shifted if choice.name == "shifted" else square
        return evaluate(t, factors, *choice.params.values())
    if choice == "best":
        a = best_argument(t, factors)
        return None if a.name == "trace-frobenius" else a
    if choice == "shifted":
        return best_shift(t, factors)
    if choice == "square":
        return best_square(t, factors)
    raise ValueError(f"unknown argument {choice!r}; choose from {', '.join(CHOICES)}")
