"""K1(N), the least degree of the 1-D problem, with its certificate (docs/math.md §11; checked by ``check_degree``).

A polynomial ``h`` on ``u = 0…N`` *meets the chain conditions* if ``h(u) > 0`` and
``h(u+d) > (d−1)·h(u) + ((d−2)/2)·h(0)`` (``d ≥ 2``, ``u + d ≤ N``); ``K1(N)`` is the least
degree of one that does (docs/math.md §11, "The 1-D problem and K1"). In the binomial basis
``h = Σ_e c_e·C(·, e)`` each condition is a homogeneous strict inequality ``a·c > 0`` in the
``K + 1`` coefficients, so "degree ≤ K is possible" is a strict feasibility question that
:func:`certify.linalg.lp.strict_feasibility` decides exactly (``0 < a·c < 1``: the system is
homogeneous, so the upper bound costs nothing), with its proof either way: a solution ``c``,
or Farkas multipliers ``λ ≥ 0``, not all zero, with ``Σ λ_r a_r = 0`` — Gordan's alternative,
the ``multipliers`` of the certificate.

The conditions are many (``(N+1) + (N−1)N/2``; 821 at ``N = 40``) and few are needed, so the
systems are solved on a growing subset (constraint generation): an infeasible subset is already
a certificate for the whole problem, and a solution of a subset either meets every condition or
adds the ones it breaks. The degree runs upwards from 0; the first feasible ``K`` is ``K1(N)``.
The solution is then replaced by a small integer point of the open cone when one is near
(rounding a scaled copy, each candidate checked exactly), and the multipliers are scaled to
coprime integers. Every certificate is checked by :func:`certify.check_degree.check` before it
is returned. Deterministic: exact arithmetic and Bland's rule throughout.

>>> [k1(n) for n in range(12)]
[0, 0, 1, 1, 1, 1, 2, 2, 2, 2, 2, 3]
"""
from __future__ import annotations

from fractions import Fraction
from functools import lru_cache
from math import comb, gcd, lcm

from ..check_degree import SCHEMA, check, conditions, form, invariant_rank

__all__ = ["degree_certificate", "k1", "solve"]

#: Conditions added to the subset per round of constraint generation (the most broken ones).
ADD = 8


def _row(u: int, d: int, k: int) -> list[int]:
    """Twice the condition's linear form on the binomial basis ``C(·, 0…k)`` (integers)."""
    return [form(u, d, lambda v: comb(v, e)) for e in range(k + 1)]


def _integers(values: list) -> list[int]:
    """Rationals times a positive factor: coprime integers, every sign kept."""
    den = lcm(*(Fraction(v).denominator for v in values))
    ints = [int(v * den) for v in values]
    g = gcd(*ints) or 1
    return [x // g for x in ints]


def _broken(rows: list[list[int]], c: list[int]) -> list[int]:
    """The indices of the rows with ``a·c ≤ 0`` (``c`` integers), the most broken first (by ``a·c / ‖a‖₁``, then
    by index)."""
    broken = []
    for i, a in enumerate(rows):
        v = sum(x * y for x, y in zip(a, c))
        if v <= 0:
            broken.append((Fraction(v, max(1, sum(map(abs, a)))), i))
    return [i for _, i in sorted(broken)]


def _start(n: int) -> list[int]:
    """The first subset of ``conditions(n)``: positivity at ``0`` and ``N``, and the conditions reaching ``N``."""
    return [i for i, (u, d) in enumerate(conditions(n)) if (d == 0 and u in (0, n)) or (d >= 2 and u + d == n)]


def _decide(n: int, k: int, start: list[int]) -> tuple[bool, list, list[int]]:
    """Whether degree ``≤ k`` is possible: ``(True, c, subset)`` with integer ``c`` meeting every condition, or
    ``(False, [(row index, λ), …], subset)``; ``subset``: the conditions of the last system solved."""
    return open_cone([_row(u, d, k) for u, d in conditions(n)], start, k + 1)


def open_cone(rows: list[list[int]], start: list[int], nvar: int) -> tuple[bool, list, list[int]]:
    """Whether some ``c`` has ``a·c > 0`` for every row ``a`` (integers), by constraint generation from the rows
    ``start``: ``(True, c, subset)`` with integer ``c``, or ``(False, [(row index, λ), …], subset)`` with ``λ > 0``
    and ``Σ λ a = 0`` (Gordan's alternative); ``subset``: the rows of the last system solved. Exact throughout
    (:func:`certify.linalg.lp.strict_feasibility`, Bland's rule), so deterministic."""
    from ..linalg.lp import strict_feasibility

    active = sorted(start)
    while True:
        sub = [rows[i] for i in active]
        res = strict_feasibility(sub, [0] * len(sub), [1] * len(sub), nvar=nvar)
        if not res.feasible:  # Σ λ a = 0 on the subset (ν = 0: the upper bounds add nothing)
            if any(res.nu):
                raise AssertionError("a homogeneous system's certificate uses an upper bound")
            return False, [(i, lam) for i, lam in zip(active, res.lam) if lam], active
        c = _integers(list(res.solution))
        broken = _broken(rows, c)
        if not broken:
            return True, c, active
        active = sorted(set(active) | set(broken[:ADD]))


def _small(n: int, k: int, c: list[int]) -> list[int]:
    """A small integer point of the open cone near the ray of ``c`` (``c`` itself if rounding finds none)."""
    rows = [_row(u, d, k) for u, d in conditions(n)]
    top = max(abs(x) for x in c)
    for scale in [*range(1, 256), *(2**j for j in range(8, 48))]:
        cand = [round(Fraction(x * scale, top)) for x in c]
        if cand[k] and not _broken(rows, cand):
            return _integers(cand)
    return c


@lru_cache(maxsize=None)
def solve(n: int) -> tuple[int, tuple[int, ...], tuple[tuple[int, int, int], ...]]:
    """``(K1(n), polynomial, multipliers)``: the least degree, a polynomial of that degree meeting every
    condition (binomial basis, coprime integers), and the Gordan multipliers ``(u, d, y)`` for degree ``K1 − 1``
    (coprime positive integers; empty for ``K1 = 0``). Each system starts from the conditions the last one needed."""
    if n < 0:
        raise ValueError(f"N must be ≥ 0, not {n}")
    k, gordan, active = 0, (), _start(n)
    while True:
        ok, found, active = _decide(n, k, active)
        if ok:
            return k, tuple(_small(n, k, found)), gordan
        conds = conditions(n)
        gordan = tuple((*conds[i], y) for (i, _), y in zip(found, _integers([lam for _, lam in found])))
        k += 1


def k1(n: int) -> int:
    """``K1(N)``: the least degree of a polynomial meeting the chain conditions on ``0…N`` (certified)."""
    return degree_certificate(2 * n or 1)["degree"]


def _rational(q: int | Fraction) -> int | str:
    q = Fraction(q)
    return int(q) if q.denominator == 1 and 0 <= q < 2**53 else f"{q.numerator}" + (
        f"/{q.denominator}" if q.denominator != 1 else "")


def degree_certificate(m: int) -> dict:
    """The ``certify.invariant-degree/1`` certificate of ``K1(⌊m/2⌋)`` for ``m``-bit tokens (``1 ≤ m ≤ 200``),
    checked by :func:`certify.check_degree.check` before it is returned."""
    if not 1 <= m <= 200:
        raise ValueError(f"m must be from 1 to 200, not {m}")
    k, poly, gordan = solve(m // 2)
    doc = {"schema": SCHEMA, "m": m, "degree": k, "polynomial": [_rational(c) for c in poly],
           "multipliers": [[u, d, _rational(y)] for u, d, y in gordan],
           "invariant_rank_at_least": _rational(invariant_rank(m, k))}
    if check(doc) != (m, m // 2, k, invariant_rank(m, k)):
        raise AssertionError(f"m = {m}: the invariant-degree certificate does not check")
    return doc
