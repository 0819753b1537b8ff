"""The choice of the last step and of its parameters (docs/math.md §5, "Sharper arguments").

:func:`best_shift`, :func:`best_null_shift`, :func:`best_square` and :func:`best_square_kernel`
find each argument's parameters; :func:`best_argument` the argument that proves most;
:func:`choose` what a producer writes for ``--argument``. Floats only propose (a Nelder–Mead
search for ``(b, g)`` and the kernel's ``μ``): every candidate is evaluated exactly by
:mod:`certify.lemmas.sharper`, only exact values are compared, and only parameters a
certificate can spell are kept.

>>> from fractions import Fraction
>>> a = best_shift(15, {Fraction(4): 210}); a.label(), a.ratio, a.rank_at_least   # rank-nine, paper chains
('shifted (s = 1/8)', Fraction(35, 3), 11)
"""
from __future__ import annotations

from fractions import Fraction
from typing import Mapping

from .sharper import (ARGUMENTS, Argument, check_t, factor_counts, factors_of, null_shifted, pair_classes, rational_text,
                      shifted, square, square_kernel, trace_frobenius)

__all__ = ["best_shift", "best_null_shift", "best_square", "best_square_kernel", "best_argument", "CHOICES", "choose"]


def _spellable(a: Argument) -> bool:
    """Whether a certificate can state ``a``'s numbers (rationals of at most ``MAX_RATIONAL_CHARS`` characters)."""
    from ..check import MAX_RATIONAL_CHARS

    return all(len(rational_text(q)) <= MAX_RATIONAL_CHARS for q in (*_flat(a.params.values()), a.frobenius_squared, a.ratio))


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
    factors = factor_counts(factors)
    check_t(t, factors)
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
    factors = factor_counts(factors)
    check_t(t, factors)
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
    classes = pair_classes(classes, length)
    factors = factors_of(classes)
    check_t(t, factors)
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
