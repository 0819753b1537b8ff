"""The joint chain problem of a product of symmetric groups at bounded degree, with its certificate (checked by
``check_degree``).

A kernel invariant under ``S_{a_1} × … × S_{a_k}`` that solves every length-3 input gives a
function ``h`` on the grid ``Π_l [0…N_l]`` (``N_l = ⌊a_l/2⌋``) with ``h > 0`` and
``h(p) > (d − 1)·h(q) + ((d − 2)/2)·h(top)`` whenever ``|q| − |p| = d ≥ 2``, of degree ``≤ D_l``
in ``t_l`` if its nonzero blocks have ``k_l ≤ D_l`` (docs/math.md §11, Lemma 11.11, "the joint
chain problem"). :func:`solve` decides whether such an ``h`` exists, exactly, with its proof:
an ``h`` meeting every condition, or Gordan multipliers (Proposition 11.12 is these for
``D_l = 1``).

**Smaller by symmetry.** Permuting parts with equal ``(N_l, D_l)`` maps the conditions onto
themselves and keeps the degrees, so averaging a solution over that group ``G`` gives a
``G``-invariant one: it is enough to look for ``h = Σ_E c_E·m_E``, ``m_E`` the orbit sums of the
basis ``Π_l C(t_l, e_l)``, on one grid point per orbit. Each condition is then a homogeneous
strict inequality ``a·c > 0`` in the coefficients ``c_E`` (integers ``a``), decided by
:func:`certify.minrank.degree.open_cone` (constraint generation, exact simplex). A solution is
written as the full coefficient tensor of ``h``; an infeasible system's multipliers ``λ`` on
orbit representatives ``(p, q)`` are written as they are, and the certificate's meaning of a
multiplier (``y`` on the sum of the condition over ``G``, a nonnegative combination of
conditions) makes them a Gordan certificate of the full problem: the checker expands every orbit
itself and never relies on the averaging argument. Every certificate is checked by
:func:`certify.check_degree.check_product` before it is returned. Deterministic.

>>> certificate([5, 5])["claim"], certificate([5, 4])["claim"], certificate([5])["claim"]
('infeasible', 'infeasible', 'feasible')
"""
from __future__ import annotations

from itertools import combinations_with_replacement, product
from math import comb, prod

from ..check_degree import PRODUCT_SCHEMA, check_product, classes, runs
from .degree import _integers, _rational, open_cone

__all__ = ["CASES", "certificate", "file_name", "orbit_sum", "solve"]

#: Proposition 11.12 (docs/math.md §11): the grids ``(N_1, …, N_k)`` at degree 1 whose certificates are shipped —
#: 10, 5, 3, 2 equal parts with N = 2, 3, 4, 5 and the mixed (5, 4), (3, 3, 3, 3, 1) (infeasible), and one part
#: fewer (feasible).
CASES = ((2,) * 10, (3,) * 5, (4,) * 3, (5,) * 2, (5, 4), (3, 3, 3, 3, 1), (2,) * 9, (3,) * 4, (4,) * 2, (5,))


def orbit_sum(values: tuple[int, ...], exponents: tuple[int, ...]) -> int:
    """``Σ_σ Π_i C(values_i, exponents_σ(i))`` over the distinct arrangements ``σ`` of ``exponents`` (a multiset):
    the orbit sum of ``Π C(t_i, e_i)`` at ``t = values``. By a walk over the values that counts the exponents used."""
    kinds = sorted(set(exponents))
    want = tuple(exponents.count(e) for e in kinds)
    sums = {tuple(0 for _ in kinds): 1}
    for v in values:
        nxt: dict[tuple[int, ...], int] = {}
        for used, s in sums.items():
            for j, e in enumerate(kinds):
                if used[j] < want[j] and comb(v, e):
                    key = (*used[:j], used[j] + 1, *used[j + 1:])
                    nxt[key] = nxt.get(key, 0) + s * comb(v, e)
        sums = nxt
    return sums.get(want, 0)


def _reduced(ns: list[int], ds: list[int]):
    """The problem on orbits: ``(groups, points, basis, rows, pairs)``, a point a tuple of sorted tuples (one per
    group), ``rows[i]`` twice the condition ``pairs[i] = (P, Q)`` (``P == Q``: ``h(P) > 0``) on the basis."""
    groups = classes(ns, ds)
    points = list(product(*(combinations_with_replacement(range(ns[g[0]] + 1), len(g)) for g in groups)))
    basis = list(product(*(combinations_with_replacement(range(ds[g[0]] + 1), len(g)) for g in groups)))
    feature = {p: [prod(orbit_sum(v, e) for v, e in zip(p, E)) for E in basis] for p in points}
    level = {p: sum(map(sum, p)) for p in points}
    top = points[-1]
    rows, pairs = [], []
    for p in points:
        rows.append([2 * a for a in feature[p]])
        pairs.append((p, p))
    for p, q in product(points, points):
        d = level[q] - level[p]
        if d >= 2:
            rows.append([2 * a - 2 * (d - 1) * b - (d - 2) * c
                         for a, b, c in zip(feature[p], feature[q], feature[top])])
            pairs.append((p, q))
    return groups, points, basis, rows, pairs


def _full(groups: list[list[int]], k: int, point: tuple) -> list[int]:
    """A grid point from an orbit point: each group's sorted values on its positions, in order."""
    x = [0] * k
    for g, values in zip(groups, point):
        for i, v in zip(g, values):
            x[i] = v
    return x


def solve(ns, degrees=None) -> tuple[bool, list, list]:
    """Whether the joint chain problem on ``Π_l [0…N_l]`` has a solution of degree ``≤ D_l`` in ``t_l``
    (``degrees``: 1 in every part by default): ``(True, coefficients, [])`` with the integer coefficients of ``h`` on
    ``Π_l C(t_l, e_l)`` (``e`` in lexicographic order, the last part fastest), or ``(False, [], multipliers)`` with
    ``[p, q, y]``: ``y`` coprime positive integers on orbit representatives, ``p`` and ``q`` sorted (docs/math.md
    §11, Lemma 11.11)."""
    ns = list(ns)
    ds = [1] * len(ns) if degrees is None else list(degrees)
    groups, points, basis, rows, pairs = _reduced(ns, ds)
    bottom, top = points[0], points[-1]
    start = [i for i, (p, q) in enumerate(pairs) if (p == q and p in (bottom, top)) or (p != q and q == top)]
    ok, found, _ = open_cone(rows, start, len(basis))
    if ok:
        position = {E: j for j, E in enumerate(basis)}
        orbit_of = lambda e: tuple(tuple(sorted(e[i] for i in g)) for g in groups)  # noqa: E731
        return True, [found[position[orbit_of(e)]] for e in product(*(range(d + 1) for d in ds))], []
    ys = _integers([lam for _, lam in found])
    return False, [], sorted([_full(groups, len(ns), pairs[i][0]), _full(groups, len(ns), pairs[i][1]), y]
                             for (i, _), y in zip(found, ys))


def certificate(ns, degrees=None) -> dict:
    """The ``certify.product-degree/1`` certificate of :func:`solve` (docs/certificate-format.md, "Product-degree
    certificates"), checked by :func:`certify.check_degree.check_product` before it is returned."""
    ns = list(ns)
    ds = [1] * len(ns) if degrees is None else list(degrees)
    ok, coefficients, multipliers = solve(ns, ds)
    doc = {"schema": PRODUCT_SCHEMA, "claim": "feasible" if ok else "infeasible", "N": ns, "degrees": ds}
    if ok:
        doc["polynomial"] = [_rational(c) for c in coefficients]
    else:
        doc["multipliers"] = [[p, q, _rational(y)] for p, q, y in multipliers]
    if check_product(doc) != (ns, ds, doc["claim"]):
        raise AssertionError(f"N = {ns}: the product-degree certificate does not check")
    return doc


def file_name(ns, claim: str) -> str:
    """``N2x10.infeasible.json``, ``N3x4-1.infeasible.json``: the runs of equal ``N`` and the claim."""
    return "N" + "-".join(f"{n}x{c}" if c > 1 else str(n) for n, c in runs(ns)) + f".{claim}.json"
