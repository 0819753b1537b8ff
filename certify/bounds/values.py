"""Bound values for a given ``m``: the paper's closed forms and the same arguments evaluated exactly.

docs/math.md §7 restates each bound; ``docs/bounds.md`` derives every value printed by
``certify bounds``. The sections:

* :func:`theorem1` — one head, length 3, error < 1/2 (A.2): the closed form
  ``2^{4⌊M/40⌋−1}`` (even ``M ≥ 168``) and the argument evaluated exactly — the
  Gilbert–Varshamov code size ``T_Δ = ⌈C(M, M/2)/V_Δ(M)⌉``, the best chain split of
  the overlap rise ``Δ`` (factor ``Λ_Δ``), and the trace–Frobenius bound
  ``⌊T Λ² / (Λ² + T − 1)⌋ + 1``, maximized over ``Δ``;
* :func:`shell` (A.3) and :func:`unique_minimizer` (A.4): ``2^{cM}/(μ²(M+1)V_g(M))``;
* :func:`growing_context` (A.2), :func:`heads` (B.1–B.2), :func:`degree` (B.4),
  :func:`transcripts` (C.3–C.4).

Values are exact integers up to ``M = EXACT_LIMIT``; above it the exact evaluation
would need integers of hundreds of thousands of digits, and values become certified
intervals (python-flint ``arb``) of ``log₂``, with the distance chosen by a
floating-point search (any distance gives a valid bound; the value at the chosen one
is certified). Every value carries its kind: ``closed_form``, ``exact`` or
``interval``.

>>> t = theorem1(168)
>>> t.closed_form.value, t.exact.value, t.parameters["distance"]
(32768, 1389433, 26)
>>> g_heads(1), g_heads(2), g_heads(3)
(8, 172, 5468)
>>> theorem1(0)
Traceback (most recent call last):
...
certify.bounds.values.BoundsInputError: m must be an integer between 1 and 1000000, not 0
"""
from __future__ import annotations

import math
from contextlib import contextmanager
from dataclasses import dataclass, field
from fractions import Fraction
from typing import Any, Callable, Iterable, Sequence

from codes import middle_ball

__all__ = [
    "EXACT_LIMIT",
    "M_MAX",
    "BoundsInputError",
    "Quantity",
    "Section",
    "ChainTable",
    "tf_bound",
    "shifted_tf_bound",
    "null_shifted_tf_bound",
    "g_heads",
    "constants",
    "theorem1",
    "shell",
    "unique_minimizer",
    "growing_context",
    "heads",
    "degree",
    "transcripts",
    "all_bounds",
    "to_json",
    "range_rows",
]

EXACT_LIMIT = 20_000  # largest even M evaluated with exact integers
M_MAX = 10**6
PREC = 192  # bits of arb precision for interval mode
MAX_GAP = 7  # optimal chain gaps never exceed 7 (split g ≥ 8 into 3 + (g−3): 2A(g−4) ≥ g−1)


class BoundsInputError(ValueError):
    """An argument is out of the supported range (the CLI turns this into exit 2)."""


# --------------------------------------------------------------------------- numbers


@contextmanager
def _precision(bits: int = PREC):
    from flint import ctx

    old = ctx.prec
    ctx.prec = bits
    try:
        yield
    finally:
        ctx.prec = old


def _outward(lo, hi) -> tuple[float, float]:
    """Float endpoints rounded outward from arb endpoints (display only; still enclose)."""
    return math.nextafter(float(lo), -math.inf), math.nextafter(float(hi), math.inf)


def _arb_log2(x) -> tuple[float, float]:
    from flint import arb

    with _precision():
        y = x.log() / arb(2).log()
        return _outward(y.lower(), y.upper())


def _log2_int(n: int) -> tuple[float, float]:
    from flint import arb, fmpz

    with _precision():
        return _arb_log2(arb(fmpz(n)))


@dataclass(frozen=True)
class Quantity:
    """A lower bound on a rank (or a size), with what it is.

    ``kind`` is ``"closed_form"`` (the paper's formula), ``"exact"`` (the argument
    evaluated with integers and rationals) or ``"interval"`` (evaluated with certified
    interval arithmetic; ``value`` is then the integer when the interval pins it down,
    else None). ``log2`` is a certified enclosure of ``log₂`` of the value.
    """

    kind: str
    value: int | None
    log2: tuple[float, float]

    @classmethod
    def of_int(cls, n: int, kind: str = "exact") -> "Quantity":
        return cls(kind, n, _log2_int(n) if n > 0 else (-math.inf, -math.inf))

    @property
    def nontrivial(self) -> bool:
        """Whether the bound says more than ``r ≥ 1`` (every head has rank ≥ 1)."""
        return self.value >= 2 if self.value is not None else self.log2[0] >= 1

    def to_json(self) -> dict[str, Any]:
        lo, hi = self.log2
        return {
            "kind": self.kind,
            "value": self.value,
            "log2": None if math.isinf(lo) else round((lo + hi) / 2, 6),
            "log2_interval": None if math.isinf(lo) else [lo, hi],
            "nontrivial": self.nontrivial,
        }


@dataclass(frozen=True)
class Section:
    """One bound of the paper at one ``m``: its values, parameters and notes."""

    name: str
    ref: str
    applies: bool
    values: dict[str, Quantity] = field(default_factory=dict)
    parameters: dict[str, Any] = field(default_factory=dict)
    notes: tuple[str, ...] = ()

    @property
    def closed_form(self) -> Quantity | None:
        return self.values.get("closed_form")

    @property
    def exact(self) -> Quantity | None:
        return self.values.get("exact")

    def to_json(self) -> dict[str, Any]:
        def plain(v):
            if isinstance(v, Fraction):
                return str(v)
            if isinstance(v, tuple):
                return list(v)
            return v

        return {
            "section": self.ref,
            "applies": self.applies,
            "values": {k: q.to_json() for k, q in self.values.items()},
            "parameters": {k: plain(v) for k, v in self.parameters.items()},
            "notes": list(self.notes),
        }


def _check_m(m: Any) -> int:
    if isinstance(m, bool) or not isinstance(m, int) or not 1 <= m <= M_MAX:
        raise BoundsInputError(f"m must be an integer between 1 and {M_MAX}, not {m!r}")
    return m


def _even(m: int) -> int:
    return 2 * (m // 2)


# --------------------------------------------------------------------------- chains


class ChainTable:
    """Best chain factors ``Λ(d) = max Π μ_{g_i}`` over splits ``Σ g_i = d`` (A.2; docs/math.md §4).

    Error ``< 1/2`` at exact length ``n``: ``μ_g = A·(g − 1)`` with ``A = n − 2``.
    Gaps of 1 prove nothing (``μ = 0``), and no gap above 7 is ever needed (splitting
    ``g ≥ 8`` into ``3 + (g − 3)`` gives ``2A²(g − 4) ≥ A(g − 1)``), so the exact
    dynamic program uses gaps 2–7. ``Λ`` is non-decreasing in ``d`` (lengthen the last
    gap), so pairs at distance ``≥ Δ`` all get at least ``Λ(Δ)``.
    """

    def __init__(self, A: int = 1) -> None:
        if not isinstance(A, int) or A < 1:
            raise BoundsInputError(f"chain multiplier A = n − 2 must be ≥ 1, not {A!r}")
        self.A = A
        self._best: list[int | None] = [1, None]
        self._arg: list[int | None] = [None, None]

    def _extend(self, d: int) -> None:
        A = self.A
        while len(self._best) <= d:
            e = len(self._best)
            top, arg = None, None
            for g in range(2, min(e, MAX_GAP) + 1):
                rest = self._best[e - g]
                if rest is not None:
                    cand = A * (g - 1) * rest
                    if top is None or cand > top:
                        top, arg = cand, g
            self._best.append(top)
            self._arg.append(arg)

    def squared(self, d: int) -> int | None:
        """``Λ(d)²`` (the trace–Frobenius bound uses the square), or None when ``Λ(d)`` is."""
        f = self.factor(d)
        return None if f is None else f * f

    def factor(self, d: int) -> int | None:
        """``Λ(d)``, or None when no split of ``d`` has every factor ≥ 1 (``d = 1``)."""
        self._extend(d)
        return self._best[d]

    def gaps(self, d: int) -> dict[int, int]:
        """An optimal split of ``d``, as ``{gap: count}``."""
        self._extend(d)
        out: dict[int, int] = {}
        while d > 0 and self._arg[d] is not None:
            g = self._arg[d]
            out[g] = out.get(g, 0) + 1
            d -= g
        return dict(sorted(out.items()))


def _pattern_split(d: int, A: int) -> dict[int, int]:
    """A valid split of ``d`` for interval mode (no DP over huge ``d``).

    ``A = 1``: gaps of 5 and 4 with ``b = 4d mod 5`` fours (for ``d ≥ 16``; this equals
    the exact optimum for every ``d`` checked in the tests). Otherwise: the gap with
    the best factor per unit of overlap, the remainder added to the last gap.
    """
    if A == 1 and d >= 16:
        b = (4 * d) % 5
        return {4: b, 5: (d - 4 * b) // 5} if b else {5: d // 5}
    if d < 64:
        return _chain_table(A).gaps(d)
    g = max(range(2, MAX_GAP + 1), key=lambda g: math.log(A * (g - 1)) / g)
    k, r = divmod(d, g)
    return {g: k} if r == 0 else {g: k - 1, g + r: 1}


def _pattern_log2_squared(d: int, A: int) -> float:
    """Float ``log₂ Λ²`` of :func:`_pattern_split` (for choosing ``Δ`` only)."""
    return 2 * sum(c * math.log2(A * (g - 1)) for g, c in _pattern_split(d, A).items())


def _split_log2(gaps: dict[int, int], A: int):
    """``log₂ Π μ_g`` as an arb ball."""
    from flint import arb

    total = arb(0)
    for g, c in gaps.items():
        total += c * arb(A * (g - 1)).log()
    return total / arb(2).log()


# --------------------------------------------------------------------------- core bounds


def tf_bound(T: int, L2: int) -> int:
    """``⌊T Λ² / (Λ² + T − 1)⌋ + 1``: trace–Frobenius with ``T`` words, off-diagonals ``< 1/Λ`` (A.2).

    ``t² / ‖C‖_F² > t² / (t + t(t−1)/Λ²)``; with ``T < 2`` only ``r ≥ 1`` follows.
    """
    if T < 2:
        return 1
    return T * L2 // (L2 + T - 1) + 1


def shifted_tf_bound(T: int, L2: int) -> int:
    """The shifted argument with ``T`` words, off-diagonals ``< 1/Λ``, ``s = 1/(2Λ)`` (docs/math.md §5).

    ``t²(1−s)² / (t(1−s)² + t(t−1)s²) = T(2Λ−1)² / ((2Λ−1)² + T − 1)`` and ``r ≥ ⌈·⌉ − 1``:
    ``Λ²`` of :func:`tf_bound` becomes ``(2Λ−1)² < 4Λ²`` (``Λ = √L2``, an integer chain factor).

    >>> tf_bound(15, 16), shifted_tf_bound(15, 16)
    (9, 11)
    """
    lam = math.isqrt(L2)
    if T < 2 or lam * lam != L2:
        return tf_bound(T, L2)
    k = (2 * lam - 1) ** 2
    return max(1, -(-(T * k) // (k + T - 1)) - 1)


def null_shifted_tf_bound(T: int, L2: int) -> int:
    """Theorem A (docs/math.md §5, "The null-space step") with ``T`` words, off-diagonals ``< 1/Λ``, ``s = 1/(2Λ)``.

    The same ratio ``R = T(2Λ−1)² / ((2Λ−1)² + T − 1)`` as :func:`shifted_tf_bound`, and
    ``r ≥ min(T, ⌊R⌋ + 1)`` (the projector ``Π`` on ``ker C``: ``tr(CΠ) = 0``, ``C ≥ 0``,
    ``s⟨J, Π⟩ ≥ 0``, Cauchy–Schwarz). For uniform off-diagonals ``< 1/Λ`` the best ``s`` is
    ``1/(2Λ)``, as for the shifted bound. ``Λ = √L2`` must be an integer ``≥ 1`` (a chain
    factor); otherwise, and for ``T < 2``, the value is :func:`tf_bound`'s, as for
    :func:`shifted_tf_bound`.

    Exactly, for ``T ≥ 2`` and ``L2 = Λ²`` with ``Λ ≥ 1``: ``1 ≤ R < T``, so the value is
    ``⌊R⌋ + 1`` (the cap ``T`` never binds there; it keeps the value ``≤ T`` by construction),
    and ``⌊R⌋ + 1 − (⌈R⌉ − 1)`` is 1 when ``R`` is not an integer and 2 when it is. So the
    value is ``shifted_tf_bound(T, L2) + 2`` when ``R`` is an integer ``≥ 2``, and
    ``shifted_tf_bound(T, L2) + 1`` otherwise (``R`` not an integer, or ``R = 1``, i.e.
    ``Λ = 1``, where the shifted value ``⌈1⌉ − 1 = 0`` is held at 1). It is never below
    :func:`tf_bound` (``(2Λ−1)² ≥ Λ²``) and never above ``T``.

    >>> tf_bound(15, 16), shifted_tf_bound(15, 16), null_shifted_tf_bound(15, 16)  # R = 35/3: one more
    (9, 11, 12)
    >>> shifted_tf_bound(4, 4), null_shifted_tf_bound(4, 4)  # R = 4·9/12 = 3, an integer: two more
    (2, 4)
    >>> shifted_tf_bound(5, 1), null_shifted_tf_bound(5, 1), null_shifted_tf_bound(1, 16)  # R = 1; T = 1
    (1, 2, 1)
    """
    if T < 2 or L2 < 1:
        return tf_bound(T, L2)
    lam = math.isqrt(L2)
    if lam * lam != L2:
        return tf_bound(T, L2)
    k = (2 * lam - 1) ** 2
    return min(T, T * k // (k + T - 1) + 1)


def _half_min(T: int, L2: int) -> int:
    """``⌈½ min{T, Λ²}⌉``: the paper's uniform form ``r ≥ ½ min{t, Λ²}`` (A.2), as an integer."""
    return max(1, -(-min(T, L2) // 2))


class _Layer:
    """``V_Δ(M)`` and ``T_Δ = ⌈C(M, M/2)/V_Δ(M)⌉`` at the few ``Δ`` an optimizer asks for (exact, flint ``fmpz``).

    The same numbers as :class:`codes.MiddleLayer`, which adds the terms ``C(h, a)²`` one
    by one from ``a = 0``; here a ball far from every known one is summed by binary
    splitting (:func:`_binom_sq_sum`) and a neighbouring one from the nearest known ball,
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
                V = self._ball[near] + _binom_sq_sum(self.h, near, delta)
            else:
                V = self._ball[near] - _binom_sq_sum(self.h, delta, near)
            self._ball[delta] = V
        return V

    def code_size(self, delta: int):
        """``T_Δ = ⌈C(M, M/2)/V_Δ(M)⌉`` as an ``fmpz`` (``Δ ≥ 1``)."""
        return -((-self.total) // self.ball(delta))


def _binom_sq_sum(h: int, a: int, b: int):
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


def _optimize_exact(layer: _Layer, candidates: Iterable[int], lam2: Callable[[int], int | None],
                    value: Callable[[int, int], int] = tf_bound,
                    balance: Callable[[int], float] | None = None) -> tuple[int, int | None, int | None, int | None]:
    """``max_Δ value(T_Δ, Λ_Δ²)`` over ``candidates`` (the smallest ``Δ`` on ties), exactly.

    Returns ``(bound, Δ, T_Δ, Λ_Δ²)``, or ``(1, None, None, None)`` when no ``Δ`` gives
    more than ``r ≥ 1``. The maximum is exact, found from a few ``Δ`` instead of all:

    * start where ``T_Δ`` and ``Λ_Δ²`` cross, located by bisection on the float model
      ``balance(Δ) ≈ log₂ T_Δ − log₂ Λ_Δ²`` (the bound peaks there; any start is correct,
      a poor one only costs more steps);
    * upwards: ``value(T, ·) ≤ max(T, 1)`` and ``T_Δ`` does not increase, so once
      ``T_Δ`` is no larger than the best value found, no later ``Δ`` beats it;
    * downwards: ``value`` does not decrease in ``T`` or ``Λ²`` and ``Λ²`` does not
      decrease in ``Δ``, so ``value(C(M, M/2), Λ_Δ²)`` bounds every ``Δ' ≤ Δ``; once
      below the best, no earlier ``Δ`` reaches it.

    ``candidates`` must increase; ``lam2`` (``None``: no chain split, skipped) must not
    decrease along them; ``value`` is :func:`tf_bound`, :func:`_half_min`,
    :func:`shifted_tf_bound` or :func:`null_shifted_tf_bound` (the last two at square ``Λ²``).
    """
    if isinstance(candidates, range) and candidates.step > 0:  # the common case, without a list of h items
        cands: Sequence[int] = candidates[:max(0, len(range(candidates.start, layer.h + 1, candidates.step)))]
    else:
        cands = [d for d in candidates if d <= layer.h]
    best: tuple = (1, None, None, None)
    if not cands:
        return best
    start = 0
    if balance is not None:
        lo, hi = 0, len(cands) - 1  # first candidate with balance ≤ 0 (or the last)
        while lo < hi:
            mid = (lo + hi) // 2
            if balance(cands[mid]) <= 0:
                hi = mid
            else:
                lo = mid + 1
        start = lo
    for d in cands[start:]:
        T = layer.code_size(d)
        if T <= best[0]:
            break
        L2 = lam2(d)
        if L2 is None:
            continue
        b = value(T, L2)
        if b > best[0]:
            best = (b, d, T, L2)
    for d in reversed(cands[:start]):
        L2 = lam2(d)
        if L2 is None:
            continue
        if value(layer.total, L2) < best[0]:
            break
        T = layer.code_size(d)
        b = value(T, L2)
        if b > 1 and b >= best[0]:
            best = (b, d, T, L2)
    b, d, T, L2 = best
    return (int(b), d, None if T is None else int(T), None if L2 is None else int(L2))


_LAYERS: dict[int, _Layer] = {}


def _layer(M: int) -> _Layer:
    """The :class:`_Layer` of ``M``, shared by the sections at the same ``M`` (the balls one section sums serve the next)."""
    layer = _LAYERS.get(M)
    if layer is None:
        if len(_LAYERS) >= 4:  # only the current M (and a few before it) are worth keeping
            _LAYERS.clear()
        layer = _LAYERS[M] = _Layer(M)
    return layer


_CHAIN_TABLES: dict[int, ChainTable] = {}


def _chain_table(A: int) -> ChainTable:
    """One :class:`ChainTable` per ``A``, shared by all ``m`` (``Λ`` does not depend on ``M``), so a range extends one table."""
    table = _CHAIN_TABLES.get(A)
    if table is None:
        if len(_CHAIN_TABLES) >= 8:  # bounded: a caller cycling through many lengths does not pile up tables
            _CHAIN_TABLES.clear()
        table = _CHAIN_TABLES[A] = ChainTable(A)
    return table


def _log2_binom_float(n: int, k: int) -> float:
    return (math.lgamma(n + 1) - math.lgamma(k + 1) - math.lgamma(n - k + 1)) / math.log(2)


def _log2_T_float(M: int, delta: int) -> float:
    """Float estimate of ``log₂ T_Δ`` (non-increasing in ``Δ``), for choosing ``Δ`` only."""
    h = M // 2
    a = min(delta - 1, h // 2)  # past the middle the largest term stays C(h, h/2)²
    rho = (h - a + 1) / a if a > 0 else math.inf
    tail = -math.log2(1 - rho ** -2) if rho > 1.01 else math.log2(delta)
    return _log2_binom_float(M, h) - 2 * _log2_binom_float(h, a) - tail


def _T_interval(M: int, delta: int):
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


def _interval_quantity(lo, hi, kind: str = "interval") -> Quantity:
    """An integer bound known to lie in ``[lo, hi]`` (arb reals; ``lo ≥ 1``)."""
    from flint import arb

    # At the caller's precision: the floors must be exact to pin the integer down.
    a, b = lo.floor().unique_fmpz(), hi.floor().unique_fmpz()
    value = int(a) if a is not None and a == b else None
    lo = lo if lo > 1 else arb(1)
    return Quantity(kind, value, (_arb_log2(lo)[0], _arb_log2(hi)[1]))


def _tf_interval(T_lo, T_hi, L2_lo, L2_hi) -> Quantity:
    """Interval version of :func:`tf_bound` (monotone in ``T`` and ``Λ²``)."""
    f_lo = T_lo * L2_lo / (L2_lo + T_lo - 1)
    f_hi = T_hi * L2_hi / (L2_hi + T_hi - 1)
    return _interval_quantity(f_lo.lower(), f_hi.upper() + 1)


def _balance_search(candidates: list[int], score: Callable[[int], float], width: int = 200) -> int:
    """The candidate maximizing ``score`` (float model, for choosing parameters only).

    Scores rise then fall; a ternary search on the index finds the peak region, then a
    window around it is scanned in full.
    """
    lo, hi = 0, len(candidates) - 1
    while hi - lo > 3 * width:
        a = lo + (hi - lo) // 3
        b = hi - (hi - lo) // 3
        if score(candidates[a]) < score(candidates[b]):
            lo = a
        else:
            hi = b
    return max(candidates[lo:hi + 1], key=score)


def _float_tf(log2T: float, log2L2: float) -> float:
    return log2T + log2L2 - max(log2T, log2L2) - math.log2(1 + 2 ** -abs(log2T - log2L2))


# --------------------------------------------------------------------------- constants


def _c_constant(mu: int, g: int):
    """``c = 1 − log₂(1 + μ^{−1/g})`` as an arb ball (A.3)."""
    from flint import arb

    lam_inv = arb(mu) ** (arb(-1) / g)
    return 1 - (1 + lam_inv).log() / arb(2).log()


def constants() -> dict[str, Any]:
    """``c₃ = 1 − log₂(1 + 4^{−1/5})`` (A.3) and ``c_uniq = 1 − log₂(1 + 3^{−1/7})`` (A.4)."""
    with _precision():
        out = {}
        for name, mu, g in (("c3", 4, 5), ("c_uniq", 3, 7)):
            c = _c_constant(mu, g)
            lo, hi = _outward(c.lower(), c.upper())
            out[name] = float(c.mid())
            out[f"{name}_interval"] = [lo, hi]
        return out


# --------------------------------------------------------------------------- sections


def theorem1(m: int) -> Section:
    """Theorem 1: one head, exact length 3, error < 1/2 (A.2; docs/math.md §7)."""
    m = _check_m(m)
    M = _even(m)
    notes = []
    closed_applies = M >= 168
    values: dict[str, Quantity] = {}
    if closed_applies:
        k = 4 * (M // 40) - 1
        values["closed_form"] = Quantity("closed_form", 2**k, (float(k), float(k)))
    else:
        notes.append("closed form 2^(4⌊M/40⌋−1) does not apply: it needs even M ≥ 168 (F(M) ≥ 0)")
    params: dict[str, Any] = {"M": M, "length": 3, "error_below": "1/2"}
    if M < 4:
        values["exact"] = Quantity.of_int(1)
        notes.append("M < 4: no two middle-layer words at directed distance ≥ 2; only r ≥ 1")
        return Section("theorem1", "Theorem 1, A.2", True, values, params, tuple(notes))
    if M <= EXACT_LIMIT:
        layer = _layer(M)
        chains = _chain_table(1)
        b, delta, T, L2 = _optimize_exact(layer, range(2, layer.h + 1), chains.squared,
                                          balance=lambda d: _log2_T_float(M, d) - _pattern_log2_squared(d, 1))
        values["exact"] = Quantity.of_int(b)
        params.update(distance=delta, code_size=T, gaps=chains.gaps(delta), chain_factor=chains.factor(delta))
        b2, delta2, _, _ = _optimize_exact(layer, range(2, layer.h + 1), chains.squared, value=shifted_tf_bound,
                                           balance=lambda d: _log2_T_float(M, d) - _pattern_log2_squared(d, 1) - 2)
        values["shifted"] = Quantity.of_int(b2)
        params.update(shifted_distance=delta2)
        notes.append("shifted: the same argument with trace–Frobenius on C − sJ, s = 1/(2Λ) (docs/math.md §5): "
                     "Λ² becomes (2Λ−1)² < 4Λ², at most a factor 4 on Λ² (≤ 2 more bits); the growth rate in m is unchanged")
        # _optimize_exact's pruning holds for null_shifted_tf_bound: every Λ² that chains.squared gives is
        # the square of an integer Λ ≥ 1, where the value is min(T, ⌊R⌋ + 1) with R = T(2Λ−1)²/((2Λ−1)² + T − 1)
        # (1 for T < 2). R does not decrease in T (∂R/∂T = k(k−1)/(k + T − 1)² ≥ 0, k = (2Λ−1)²) nor in Λ (R
        # increases with k), so neither does the value — downward pruning; and the cap min(T, ·) keeps it
        # ≤ max(T, 1) — upward pruning.
        b3, delta3, _, _ = _optimize_exact(layer, range(2, layer.h + 1), chains.squared, value=null_shifted_tf_bound,
                                           balance=lambda d: _log2_T_float(M, d) - _pattern_log2_squared(d, 1) - 2)
        values["null_shifted"] = Quantity.of_int(b3)
        params.update(null_shifted_distance=delta3)
        notes.append("null-shifted: the same ratio R with Theorem A (docs/math.md §5, \"The null-space step\": the projector "
                     "on ker C), r ≥ min(T, ⌊R⌋ + 1) instead of ⌈R⌉ − 1: at each Δ one more than shifted, two when R is "
                     "an integer ≥ 2, so one or two more than shifted; the growth rate in m is unchanged")
    else:
        h = M // 2
        cands = list(range(2, h + 1))

        delta = _balance_search(cands, lambda d: _float_tf(_log2_T_float(M, d), _pattern_log2_squared(d, 1)))
        with _precision():
            gaps = _pattern_split(delta, 1)
            T_lo, T_hi = _T_interval(M, delta)
            from flint import arb

            L2 = arb(2) ** (2 * _split_log2(gaps, 1))
            values["exact"] = _tf_interval(T_lo, T_hi, L2, L2)
            params.update(distance=delta, code_size=None, code_size_log2=list(_arb_log2(T_lo)), gaps=gaps,
                          chain_factor_log2=round(float(_split_log2(gaps, 1).mid()), 6))
        notes.append(f"M > {EXACT_LIMIT}: certified interval; Δ chosen by floating-point search, the value at Δ is certified")
        notes.append(f"shifted and null-shifted values: exact mode only (M ≤ {EXACT_LIMIT})")
    return Section("theorem1", "Theorem 1, A.2", True, values, params, tuple(notes))


def _shell_like(M: int, mu: int, g: int, kind_note: str, ref: str, name: str, min_M: int, prefactor: int) -> Section:
    from flint import arb, fmpz

    params = {"M": M, "gap": g, "factor": mu}
    if M < min_M:
        return Section(name, ref, False, {}, params, (f"needs M ≥ {min_M}; here M = {M}",))
    # Enough bits to pin the integer ⌈X⌉ down when M is in the exact range (log₂ X < c·M ≤ M/5).
    with _precision(PREC + (M // 4 if M <= EXACT_LIMIT else 0)):
        c = _c_constant(mu, g)
        V = middle_ball(M, g)
        X = (arb(2) ** (c * M)) / (arb(fmpz(prefactor * (M + 1) * V)))
        q = _interval_quantity(X.ceil().lower(), X.ceil().upper(), "closed_form") if X > 0 else Quantity.of_int(1)
        # r ≥ X and r is an integer: r ≥ ⌈X⌉, never below 1.
        if q.value is not None and q.value < 1:
            q = Quantity("closed_form", 1, (0.0, 0.0))
        params.update(c=float(c.mid()), V_g=V, prefactor=f"{prefactor}(M+1)V_{g}(M)")
        notes = [kind_note]
        if not q.nontrivial:
            notes.append(f"trivial at this m: 2^(cM)/({prefactor}(M+1)V) = 2^{float((X.log() / arb(2).log()).mid()):.2f} < 2")
        return Section(name, ref, True, {"closed_form": q}, params, tuple(notes))


def shell(m: int) -> Section:
    """Distance-sensitive shell counting at length 3 (A.3): ``r ≥ 2^{c₃M}/(16(M+1)V₅(M))``."""
    M = _even(_check_m(m))
    return _shell_like(M, 4, 5, "gap 5, factor 4: c₃ = 1 − log₂(1 + 4^(−1/5))", "A.3", "shell", 2, 16)


def unique_minimizer(m: int) -> Section:
    """Distinct tokens, unique minimizer (A.4): tokens of ``M + 2`` bits, ``r ≥ 2^{c_uniq M}/(9(M+1)V₇(M))``."""
    m = _check_m(m)
    M = _even(m - 2) if m >= 2 else 0
    return _shell_like(M, 3, 7, "effective kernel K = α(q,k₀) + 2α(q,k₁); gap 7, factor 3; tokens (1,1,x), (0,0,w), (1,0,w) of M + 2 bits",
                       "A.4", "unique_minimizer", 14, 9)


def g_heads(H: int) -> int:
    """``g_H = ⌈(1 + (2^L − 1)(1 + 2L)^H)/2⌉`` with ``L = H + 1`` (B.1; also ``g_D`` of B.4 with ``H = D``)."""
    if not isinstance(H, int) or H < 1:
        raise BoundsInputError(f"the number of heads (or the degree) must be a positive integer, not {H!r}")
    L = H + 1
    return -(-(1 + (2**L - 1) * (1 + 2 * L) ** H) // 2)


def _stepwise(M: int, g: int, per_head: int, name: str, ref: str, params: dict, notes: list[str]) -> Section:
    """Factor 2 per ``g`` of overlap; ``K = ⌊Δ/g⌋`` steps, ``q = ⌈K/per_head⌉`` for one head (B.2, B.4)."""
    h = M // 2
    params = dict(params, M=M)
    if M < 2 or g > h:
        notes.append(f"needs a chain step of {g} inside overlap M/2 = {h}: no bound at this m")
        return Section(name, ref, False, {}, params, tuple(notes))
    q_of = lambda K: -(-K // per_head)  # noqa: E731
    values: dict[str, Quantity] = {}
    if M <= EXACT_LIMIT:
        layer = _layer(M)
        cands = range(g, h + 1, g)  # Δ = K·g, K = 1, 2, …
        lam2 = lambda d: 4 ** q_of(d // g)  # noqa: E731
        balance = lambda d: _log2_T_float(M, d) - 2 * q_of(d // g)  # noqa: E731
        hb, hd, hT, hL = _optimize_exact(layer, cands, lam2, _half_min, balance)
        b, d, T, L2 = _optimize_exact(layer, cands, lam2, balance=balance)
        values["closed_form"] = Quantity.of_int(hb, "closed_form")
        if hd is not None:
            params["closed_form_at"] = {"distance": hd, "K": hd // g, "q": q_of(hd // g), "code_size": hT}
        values["exact"] = Quantity.of_int(b)
        if d is not None:
            params.update(distance=d, K=d // g, q=q_of(d // g), code_size=T)
    else:
        from flint import arb

        cands = [K * g for K in range(1, h // g + 1)]
        d = _balance_search(cands, lambda d: _float_tf(_log2_T_float(M, d), 2 * q_of(d // g)), width=50)
        with _precision():
            T_lo, T_hi = _T_interval(M, d)
            L2 = arb(4) ** q_of(d // g)
            # ⌈½ min{T, Λ²}⌉ with T ∈ [T_lo, T_hi]: arb's min keeps the enclosure valid when T and Λ² overlap.
            half_lo, half_hi = T_lo.min(L2) / 2, T_hi.min(L2) / 2
            values["closed_form"] = _interval_quantity(half_lo.lower(), half_hi.upper() + 1, "closed_form")
            values["exact"] = _tf_interval(T_lo, T_hi, L2, L2)
        params.update(distance=d, K=d // g, q=q_of(d // g), code_size=None)
        notes.append(f"M > {EXACT_LIMIT}: certified interval at the distance chosen by floating-point search")
    return Section(name, ref, True, values, params, tuple(notes))


def heads(m: int, H: int) -> Section:
    """``H`` heads at exact length ``H + 2`` (B.1–B.2): total rank ``R ≥ ½ min{T, 4^q}``.

    The matrix behind it has rows ``x_S`` read by their chosen head ``h_S`` and columns the
    padded keys ``κ_U`` (``x_{U^c}`` plus ``k_U`` coordinates of ``U``), so the diagonal key
    sits where ``h_S``'s run of ``q`` preferences starts (docs/math.md §7). The value
    depends only on ``T``, ``g_H``, ``K = ⌊Δ/g_H⌋`` and ``q = ⌈K/H⌉``.
    """
    M = _even(_check_m(m))
    g = g_heads(H)
    notes = [f"some head prefers the better key by factor 2 against every key worse by ≥ g_H = {g}; "
             "K = ⌊Δ/g_H⌋ steps, some head gets q = ⌈K/H⌉ of them; the bound is on R = Σ r_h"]
    return _stepwise(M, g, H, "heads", "B.1–B.2", {"H": H, "length": H + 2, "g_H": g}, notes)


def degree(m: int, D: int) -> Section:
    """One head, polynomial readout of degree ``D`` (B.4): rank one at length ``D+1``; bound at ``D+2``."""
    M = _even(_check_m(m))
    g = g_heads(D)
    notes = [f"rank one suffices at exact length {D + 1} (uniform kernel, one-hot values, readout Σ_k J(s_k), docs/math.md §8)",
             f"at exact length {D + 2}: factor 2 per overlap gap g_D = {g}, K = ⌊Δ/g_D⌋ steps, all in one head"]
    return _stepwise(M, g, 1, "degree", "B.4", {"D": D, "length": D + 2, "g_D": g, "rank_one_length": D + 1}, notes)


def growing_context(m: int, n: int) -> Section:
    """Exact length ``n`` (A.2, "Growing context"): gap-2 factor ``n − 2``; paper recipe and exact optimum."""
    M = _even(_check_m(m))
    if isinstance(n, bool) or not isinstance(n, int) or not 3 <= n <= 10**18:
        raise BoundsInputError(f"length must be an integer between 3 and 10^18, not {n!r}")
    A = n - 2
    params: dict[str, Any] = {"M": M, "length": n, "gap_factor": f"μ_g = (n−2)(g−1) = {A}(g−1)"}
    notes: list[str] = []
    if M < 4:
        return Section("growing_context", "A.2", False, {}, params, ("needs M ≥ 4",))
    h = M // 2
    values: dict[str, Quantity] = {}
    # Paper recipe: s = log₂(n−2), Δ = 2⌈M/(2s)⌉, Λ = (n−2)^{Δ/2}, r ≥ ½ min{T, Λ²}.
    paper_delta = None
    if A >= 2:
        k = 1
        while A ** (2 * k) < 2**M:  # smallest k with 2k·log₂(n−2) ≥ M, in integers
            k = max(k + 1, int(M / (2 * math.log2(A))) - 1)
        paper_delta = 2 * k
        params["paper_distance"] = paper_delta
    else:
        notes.append("n = 3: gap 2 gives factor 1, so the paper's recipe (s = log₂(n−2) = 0) does not apply; see Theorem 1")
    if M <= EXACT_LIMIT:
        layer = _layer(M)
        if paper_delta is not None and paper_delta <= h:
            T = int(layer.code_size(paper_delta))
            values["closed_form"] = Quantity.of_int(_half_min(T, A**paper_delta), "closed_form")
            params["paper_code_size"] = T
        elif paper_delta is not None:
            notes.append(f"paper recipe: Δ = {paper_delta} > M/2 = {h}, so T = 1 and the recipe gives nothing at this m")
        chains = _chain_table(A)
        b, d, T, _ = _optimize_exact(layer, range(2, h + 1), chains.squared,
                                     balance=lambda d: _log2_T_float(M, d) - _pattern_log2_squared(d, A))
        values["exact"] = Quantity.of_int(b)
        if d is not None:
            params.update(distance=d, code_size=T, gaps=chains.gaps(d))
    else:
        from flint import arb

        cands = list(range(2, h + 1))

        d = _balance_search(cands, lambda d: _float_tf(_log2_T_float(M, d), _pattern_log2_squared(d, A)))
        with _precision():
            gaps = _pattern_split(d, A)
            T_lo, T_hi = _T_interval(M, d)
            L2 = arb(2) ** (2 * _split_log2(gaps, A))
            if paper_delta is not None and paper_delta <= h:
                P_lo, P_hi = _T_interval(M, paper_delta)
                PL = arb(A) ** paper_delta
                lo, hi = P_lo.min(PL) / 2, P_hi.min(PL) / 2
                values["closed_form"] = _interval_quantity(lo.lower(), hi.upper() + 1, "closed_form")
            values["exact"] = _tf_interval(T_lo, T_hi, L2, L2)
        params.update(distance=d, code_size=None, gaps=gaps)
        notes.append(f"M > {EXACT_LIMIT}: certified interval at the distance chosen by floating-point search")
    notes.append("as n → ∞ the exponent is m − o(m) (A.2)")
    return Section("growing_context", "A.2", True, values, params, tuple(notes))


def transcripts(m: int, s: int | None = None, n: int | None = None) -> Section:
    """Finite-precision transcripts (§5.2, C.3–C.4): code size and ``q·log₂(s+1)`` bits.

    ``m = 2 + M + s``; a code ``C ⊆ ([M] choose h)`` with directed distance ``≥ s+1`` and
    ``|C| ≥ 2^M / ((M+1)(s+1)(eM/s)^{2s})``; with ``q ≤ |C|`` queries and ``2q ≤ n``,
    ``Σ_ℓ log₂|Σ_ℓ| ≥ q·log₂(s+1)``. Default ``s = ⌈log₂ m⌉``.
    """
    from flint import arb

    m = _check_m(m)
    if s is None:
        s = max(1, math.ceil(math.log2(m)))
    if isinstance(s, bool) or not isinstance(s, int) or s < 1:
        raise BoundsInputError(f"s must be a positive integer, not {s!r}")
    if n is not None and (isinstance(n, bool) or not isinstance(n, int) or n < 2):
        raise BoundsInputError(f"length must be an integer ≥ 2 for the transcript bound, not {n!r}")
    M = m - 2 - s
    params: dict[str, Any] = {"s": s, "M": M, "answers": f"{{0, …, {s}}}"}
    if M < 1:
        return Section("transcripts", "C.3–C.4", False, {}, params, (f"needs m ≥ s + 3 = {s + 3}",))
    # Enough bits to pin ⌈X⌉ down (log₂ X < M) in the exact range.
    with _precision(PREC + (M if M <= EXACT_LIMIT else 0)):
        X = arb(2) ** M / (arb(M + 1) * (s + 1) * (arb(1).exp() * M / s) ** (2 * s))
        per_query = arb(s + 1).log() / arb(2).log()
        params["bits_per_query"] = list(_outward(per_query.lower(), per_query.upper()))
        notes = ["bounds the total transcript Σ_ℓ log₂|Σ_ℓ| of deterministic models with finite-alphabet cross-token "
                 "channels, any number of heads and layers; for head sketches L·H·r·(d_v+1)·p ≥ q·log₂(s+1)"]
        if not X >= 1:
            notes.append("code size bound below 1 at this (m, s): no queries, no bound")
            return Section("transcripts", "C.3–C.4", False, {}, params, tuple(notes))
        size = _interval_quantity(X.ceil(), X.ceil(), "closed_form")  # |C| ≥ ⌈X⌉
        values = {"code_size": size}
        q = None
        if n is not None:
            params["length"] = n
            if size.value is not None or size.log2[0] > math.log2(n):
                q = n // 2 if size.value is None else min(size.value, n // 2)
        elif size.value is not None:
            q = size.value
            params["max_length"] = 2 * size.value
        if q is not None:
            params["q"] = q
            bits = q * per_query
            lo, hi = _outward(bits.lower(), bits.upper())
            if math.isfinite(lo) and math.isfinite(hi):
                params["bits"] = [lo, hi]
            else:  # beyond the float range (m ≳ 1,231): its base-2 logarithm instead, so --json stays JSON
                params["bits"] = None
                params["bits_log2"] = list(_arb_log2(bits))
                notes.append("bits = q·log₂(s+1) exceeds the float range; bits_log2 encloses its base-2 logarithm")
        else:
            notes.append("q = |C| is known only through log₂; bits = q·log₂(s+1) has "
                         f"log₂ in [{size.log2[0] + math.log2(params['bits_per_query'][0]):.2f}, "
                         f"{size.log2[1] + math.log2(params['bits_per_query'][1]):.2f}]")
        return Section("transcripts", "C.3–C.4", True, values, params, tuple(notes))


def all_bounds(m: int, length: int | None = None, H: int | None = None, D: int | None = None,
               s: int | None = None) -> dict[str, Any]:
    """Every section at ``m`` (the optional ones when their parameter is given), for the CLI."""
    m = _check_m(m)
    M = _even(m)
    out: dict[str, Any] = {
        "m": m,
        "M": M,
        "mode": "exact" if M <= EXACT_LIMIT else "interval",
        "theorem1": theorem1(m),
        "constants": constants(),
        "shell": shell(m),
        "unique_minimizer": unique_minimizer(m),
        "growing_context": growing_context(m, length) if length is not None else None,
        "heads": heads(m, H) if H is not None else None,
        "degree": degree(m, D) if D is not None else None,
        "transcripts": transcripts(m, s, length),
    }
    return out


def to_json(bounds: dict[str, Any]) -> dict[str, Any]:
    """The stable JSON object of ``certify bounds --json`` (schema ``certify.bounds/1``; docs/bounds.md)."""
    out: dict[str, Any] = {"schema": "certify.bounds/1"}
    for key, val in bounds.items():
        out[key] = val.to_json() if isinstance(val, Section) else val
    t1 = bounds["theorem1"]
    out["theorem1"]["closed_form"] = t1.closed_form.value if t1.closed_form else None
    out["theorem1"]["exact"] = t1.exact.value
    if bounds.get("heads") is not None:
        out["heads"]["g_H"] = bounds["heads"].parameters["g_H"]
    if bounds.get("degree") is not None:
        out["degree"]["g_D"] = bounds["degree"].parameters["g_D"]
    return out


RANGE_COLUMNS = ("theorem1.closed_form", "theorem1.exact", "shell", "unique_minimizer",
                 "growing_context.exact", "heads.exact", "degree.exact")


def range_rows(ms: Iterable[int], length: int | None = None, H: int | None = None,
               D: int | None = None, progress: Callable[[int], None] | None = None) -> list[dict[str, Any]]:
    """``log₂`` of each bound for every ``m`` in ``ms`` (None where a bound does not apply or is trivial).

    Each ``m`` is evaluated on its own, exactly as at ``--m``; consecutive ``m`` share the
    chain-factor tables (:func:`_chain_table`) and the sections at one ``m`` share its
    middle-layer balls (:func:`_layer`). ``progress``, if given, is called with the number
    of ``m`` done after each one (the CLI passes ``certify.check.Progress.update``).
    """
    rows = []
    for m in ms:
        row: dict[str, Any] = {"m": m}
        t1 = theorem1(m)
        picks = {
            "theorem1.closed_form": t1.closed_form,
            "theorem1.exact": t1.exact,
            "shell": shell(m).closed_form,
            "unique_minimizer": unique_minimizer(m).closed_form,
        }
        if length is not None:
            picks["growing_context.exact"] = growing_context(m, length).exact
        if H is not None:
            picks["heads.exact"] = heads(m, H).exact
        if D is not None:
            picks["degree.exact"] = degree(m, D).exact
        for col, q in picks.items():
            row[col] = round(sum(q.log2) / 2, 4) if q is not None and q.nontrivial else None
        rows.append(row)
        if progress is not None:
            progress(len(rows))
    return rows
