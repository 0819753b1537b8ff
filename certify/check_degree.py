"""Checker of degree certificates: K1(N) of the 1-D problem, and the joint chain problem of products (docs/math.md §11).

Two kinds, told apart by ``schema``; the standard library only.

One of the trusted checkers (docs/architecture.md), with ``certify/check.py`` beside it (its
strict JSON reader and process guard): ``python certify/check_degree.py FILE``.

**The 1-D problem** (docs/math.md §11, "The 1-D problem and K1"). A function ``h`` on
``u = 0…N`` *meets the chain conditions* if ``h(u) > 0`` for every ``u`` and
``h(u+d) > (d−1)·h(u) + ((d−2)/2)·h(0)`` for all ``u ≥ 0``, ``d ≥ 2``, ``u + d ≤ N``;
``K1(N)`` is the least degree of a polynomial that does. A certificate ``{"schema":
"certify.invariant-degree/1", "m": M, "degree": K, "polynomial": [c_0, …, c_K],
"multipliers": [[u, d, y], …], "invariant_rank_at_least": X}`` claims ``K1(⌊M/2⌋) = K``:

* ``polynomial``: ``h(u) = Σ_e c_e·C(u, e)`` (binomial basis), ``c_K ≠ 0``, meets every
  condition strictly at ``u = 0…N`` (exactly, in integers), so ``K1(N) ≤ K``;
* ``multipliers`` (Gordan): rationals ``y > 0`` on conditions ``(u, d)`` (``d = 0``: ``h(u) > 0``)
  with ``Σ y·L_(u,d)(C(·, e)) = 0`` for every ``e < K``, ``L`` the condition's linear form. A
  polynomial of degree ``< K`` meeting them all would make ``Σ y·L(h)`` both ``0`` and ``> 0``,
  so ``K1(N) ≥ K`` (nothing to show for ``K = 0``: the list is empty);
* ``invariant_rank_at_least``: ``X = 1 + min_{K ≤ k ≤ N} (C(M, k) − C(M, k − 1))`` (``1`` for
  ``K = 0``): no S_M-invariant kernel solving every length-3 input has rank below ``X``
  (Proposition I3, Schrijver's block diagonalization). This is about invariant kernels only,
  not a bound on ``r*(M, 3)``.

Rationals are JSON integers or strings ``"p"``/``"p/q"`` in lowest terms (read by
``certify.check.parse_rational``). Limits, checked before any arithmetic (exit 2): ``M ≤ 200``, ``K ≤ N``, a file
of at most 2 MiB, rationals of at most 200 characters, the denominators' lcm of each list at most
:data:`MAX_DENOMINATOR_BITS` bits, at most ``(N+1) + (N−1)N/2`` multipliers (one per condition).

**The joint chain problem** (docs/math.md §11, Lemma 11.11; Proposition 11.12). On the grid
``Π_l [0…N_l]`` (``N_l = ⌊a_l/2⌋`` for a kernel invariant under ``S_{a_1} × … × S_{a_k}``), ``h``
meets it if ``h(p) > 0`` everywhere and ``h(p) > (d−1)·h(q) + ((d−2)/2)·h(top)`` whenever
``|q| − |p| = d ≥ 2`` (``|·|`` the sum of the coordinates, ``top = (N_1, …, N_k)``); blocks with
``k_l ≤ D_l`` make ``h`` of degree ``≤ D_l`` in ``t_l``. A ``certify.product-degree/1`` certificate
``{"schema", "claim", "N": [N_1, …], "degrees": [D_1, …], …}`` claims either

* ``"feasible"``, with ``"polynomial"``: the coefficients of ``h`` on ``Π_l C(t_l, e_l)``,
  ``e_l ≤ D_l`` (lexicographic, the last part fastest); ``h`` is evaluated exactly on the whole
  grid and every condition is checked through each level's least and largest value (step
  ``witness``); or
* ``"infeasible"``, with ``"multipliers"`` ``[[p, q, y], …]`` (``q = p``: the condition
  ``h(p) > 0``): ``y > 0`` on the sum of the condition ``(g·p, g·q)`` over the group ``G`` of the
  permutations of parts with equal ``(N_l, D_l)`` — a nonnegative combination of conditions. The
  checker expands every orbit itself (``Σ_{g ∈ G} δ_{g·x} = |Stab(x)|·Σ_{z ∈ G·x} δ_z``), sums
  the point masses in integers and requires the result to vanish on every ``Π_l C(t_l, e_l)``
  (step ``gordan``): an ``h`` of these degrees meeting every condition would make the
  combination both ``0`` and ``> 0``. No averaging argument is used.

Its limits (exit 2, before any arithmetic): at most 16 parts, ``1 ≤ N_l``, ``Σ N_l ≤ 100``,
``Π (N_l + 1) ≤ 2^16`` (the grid, which bounds every transform: ``D_l ≤ N_l``), at most ``2^16``
multipliers whose orbits have at most ``2^16`` points together (counted from multinomials before
any is listed). Work: about ``2^16·Σ_l (D_l + 1)`` integer operations at most, on integers of at most
about ``MAX_DENOMINATOR_BITS`` bits (about 5 s on one idle core, measured at the limits).

Exit codes (:func:`main`): 0 verified, 1 rejected (the line names the step: ``polynomial``,
``gordan``, ``claim``, ``witness``), 2 malformed or unreadable (the line names the field), 3 internal error;
130 Ctrl-C, 141 a closed pipe, 143 SIGTERM. The formats: docs/certificate-format.md, "Invariant-degree certificates"
and "Product-degree certificates".
"""
from __future__ import annotations

import sys
from fractions import Fraction
from itertools import product
from math import comb, factorial, lcm, prod
from typing import Any

if __package__:
    from .check import (EXIT_INTERNAL, EXIT_VERIFIED, MAX_INT, CertificateError,
                        CertificateFormatError, CertificateLimitError, CertificateRejected, guard_process, loads,
                        parse_rational, read_bounded, safe_output_streams, script_args, show_number)
else:  # run as a script (python certify/check_degree.py FILE): certify/check.py is beside it
    import os as _os

    sys.path.insert(0, _os.path.dirname(_os.path.abspath(__file__)))
    from check import (EXIT_INTERNAL, EXIT_VERIFIED, MAX_INT, CertificateError,
                       CertificateFormatError, CertificateLimitError, CertificateRejected, guard_process, loads,
                       parse_rational, read_bounded, safe_output_streams, script_args, show_number)

SCHEMA = "certify.invariant-degree/1"
KEYS = ("schema", "m", "degree", "polynomial", "multipliers", "invariant_rank_at_least")
MAX_M = 200
MAX_FILE_BYTES = 2 << 20  # 5,051 multipliers of 200-character rationals fit; a produced certificate is under 4 KiB
MAX_DENOMINATOR_BITS = 4096  # the lcm of a list's denominators: the arithmetic is then in integers of bounded size


class DegreeError(CertificateFormatError, ValueError):
    """Malformed (exit 2): ``str`` is ``"field: reason"``."""


class DegreeRejected(CertificateRejected):
    """Well formed, the claim does not follow (exit 1): ``str`` is ``"step: reason"``."""


def _kind(v: Any) -> str:
    if isinstance(v, str):
        return f"str {v[:40]!r}{'…' if len(v) > 40 else ''}"
    if type(v) is int:  # in-process callers may pass any size; never str() of a 5,000-digit integer
        return f"int {v}" if v.bit_length() <= 64 else f"an integer of {v.bit_length():,} bits"
    if isinstance(v, list):
        return f"an array of {len(v)}"
    return {dict: "an object", bool: "a boolean", type(None): "null"}.get(type(v), type(v).__name__)


def _int(v: Any, where: str, lo: int, hi: int) -> int:
    if type(v) is not int or not lo <= v <= hi:
        raise DegreeError(where, f"expected an integer from {lo} to {hi}, got {_kind(v)}")
    return v


def _list(v: Any, where: str, lo: int, hi: int) -> list:
    if not isinstance(v, list) or not lo <= len(v) <= hi:
        raise DegreeError(where, f"expected an array of {lo if lo == hi else f'{lo} to {hi:,}'} entries, got {_kind(v)}")
    return v


def _rational(v: Any, where: str) -> Fraction:
    if type(v) is int and v <= MAX_INT:  # as loads reads them; larger integers are written as strings
        return Fraction(v)
    if not isinstance(v, str):
        raise DegreeError(where, f"expected an integer or a rational string \"p/q\", got {_kind(v)}")
    try:
        return parse_rational(v, where)
    except CertificateFormatError as exc:  # "format: where: reason" → "where: reason"
        raise DegreeError(where, str(exc).removeprefix(f"format: {where}: ")) from None


def _integers(values: list[Fraction], where: str) -> tuple[list[int], int]:
    """``(values·D, D)``, ``D`` the lcm of their denominators (a positive factor: every sign is kept)."""
    den = 1
    for v in values:
        den = lcm(den, v.denominator)
        if den.bit_length() > MAX_DENOMINATOR_BITS:
            raise CertificateLimitError(f"{where}: the lcm of the denominators exceeds 2^{MAX_DENOMINATOR_BITS}")
    return [int(v * den) for v in values], den


def conditions(n: int) -> list[tuple[int, int]]:
    """The conditions ``(u, d)`` of the 1-D problem on ``0…n``, sorted: ``d = 0`` is ``h(u) > 0``."""
    return sorted([(u, 0) for u in range(n + 1)] + [(u, d) for d in range(2, n + 1) for u in range(n - d + 1)])


def form(u: int, d: int, h) -> Any:
    """Twice the condition's linear form at ``h`` (a function of ``0…N``): ``2h(u)``, or
    ``2h(u+d) − 2(d−1)h(u) − (d−2)h(0)``; it must be ``> 0``."""
    return 2 * h(u) if d == 0 else 2 * h(u + d) - 2 * (d - 1) * h(u) - (d - 2) * h(0)


def invariant_rank(m: int, k1: int) -> int:
    """``1 + min_{K1 ≤ k ≤ ⌊m/2⌋} mult_k`` with ``mult_k = C(m, k) − C(m, k − 1)`` (``1`` for ``K1 = 0``)."""
    return 1 if k1 == 0 else 1 + min(comb(m, k) - comb(m, k - 1) for k in range(k1, m // 2 + 1))


def _keys(doc: dict, keys: tuple[str, ...], what: str) -> None:
    for key in doc:
        if key not in keys:
            raise DegreeError("document", f"unknown key {str(key)[:60]!r}; {what} has only {', '.join(keys)}")
    for key in (key for key in keys if key not in doc):
        raise DegreeError(key, "missing required key")


def _parse(doc: Any) -> tuple[int, int, list[Fraction], list[tuple[int, int, Fraction]], int]:
    if not isinstance(doc, dict):
        raise DegreeError("document", f"expected a JSON object, got {_kind(doc)}")
    _keys(doc, KEYS, f"a {SCHEMA} certificate")
    if doc["schema"] != SCHEMA:
        raise DegreeError("schema", f"expected {SCHEMA!r}, got {_kind(doc['schema'])}")
    m = _int(doc["m"], "m", 1, MAX_M)
    n = m // 2
    k = _int(doc["degree"], "degree", 0, n)
    poly = [_rational(c, f"polynomial[{e}]") for e, c in enumerate(_list(doc["polynomial"], "polynomial", k + 1, k + 1))]
    rows = _list(doc["multipliers"], "multipliers", 0, (n + 1) + (n - 1) * n // 2 if k else 0)
    mult = []
    for i, r in enumerate(rows):
        r = _list(r, f"multipliers[{i}]", 3, 3)
        u, d = _int(r[0], f"multipliers[{i}][0]", 0, MAX_INT), _int(r[1], f"multipliers[{i}][1]", 0, MAX_INT)
        if d == 1:
            raise DegreeError(f"multipliers[{i}][1]", "d = 1 is no condition (d = 0: h(u) > 0; d ≥ 2: a chain "
                              "condition)")
        if i and (u, d) <= mult[-1][:2]:
            raise DegreeError(f"multipliers[{i}]", f"(u, d) = ({u}, {d}) is repeated or out of order; sorted by (u, d), "
                              "once each")
        mult.append((u, d, _rational(r[2], f"multipliers[{i}][2]")))
    x = _rational(doc["invariant_rank_at_least"], "invariant_rank_at_least")
    if x.denominator != 1 or x < 1:
        raise DegreeError("invariant_rank_at_least", f"expected a positive integer, got {x}")
    return m, k, poly, mult, int(x)


def check(doc: Any) -> tuple[int, int, int, int]:
    """``(M, N, K, X)``: proved ``K1(N) = K`` and invariant rank ``≥ X``. :class:`DegreeError` (malformed),
    :class:`DegreeRejected` (naming the step) otherwise."""
    m, k, poly, mult, x = _parse(doc)
    n = m // 2
    table = [[comb(v, e) for e in range(k + 1)] for v in range(n + 1)]  # C(v, e)
    c, dc = _integers(poly, "polynomial")
    ys, dy = _integers([y for _, _, y in mult], "multipliers")
    # step polynomial: D·h on 0…N in integers (D > 0); degree exactly K; every condition strictly
    if poly[k] == 0:
        raise DegreeRejected("polynomial", f"the last coefficient c_{k} is 0: h has degree below {k}")
    h = [sum(ce * b for ce, b in zip(c, row)) for row in table]
    for u, d in conditions(n):
        value = form(u, d, h.__getitem__)
        if value <= 0:
            rule = f"h({u}) > 0" if d == 0 else f"h({u + d}) − {d - 1}·h({u}) − ({d - 2}/2)·h(0) > 0"
            raise DegreeRejected("polynomial", f"(u, d) = ({u}, {d}): {rule} fails, the left side is "
                                 f"{show_number(Fraction(value, 2 * dc))}")
    # step gordan: every y > 0 on a condition of N, and Σ y·L(C(·, e)) = 0 for every e < K
    if k and not mult:
        raise DegreeRejected("gordan", f"no multipliers: nothing shows that degree {k - 1} is impossible")
    for i, (u, d, y) in enumerate(mult):
        if y <= 0:
            raise DegreeRejected("gordan", f"multipliers[{i}]: y = {y} is not positive")
        if u + d > n:
            raise DegreeRejected("gordan", f"multipliers[{i}]: (u, d) = ({u}, {d}) is no condition of N = {n}: "
                                 "u + d ≤ N")
    for e in range(k):
        total = sum(y * form(u, d, lambda v: table[v][e]) for (u, d, _), y in zip(mult, ys))
        if total:
            raise DegreeRejected("gordan", f"Σ y·L(C(·, {e})) = {show_number(Fraction(total, 2 * dy))} ≠ 0, "
                                 f"so the multipliers do not exclude every polynomial of degree < {k}")
    # step claim: X recomputed
    if x != invariant_rank(m, k):
        raise DegreeRejected("claim", f"invariant_rank_at_least is {x}, but 1 + min_(K ≤ k ≤ N) mult_k = "
                             f"{invariant_rank(m, k)} for M = {m}, K = {k}")
    return m, n, k, x


# --------------------------------------------------------------------------- the joint chain problem (products)

PRODUCT_SCHEMA = "certify.product-degree/1"
PRODUCT_KEYS = {"feasible": ("schema", "claim", "N", "degrees", "polynomial"),
                "infeasible": ("schema", "claim", "N", "degrees", "multipliers")}
MAX_LEVEL = 100  # Σ N_l: the top level; the witness is checked on every pair of levels
MAX_GRID = 1 << 16  # Π (N_l + 1): the points a witness is evaluated at; it bounds every transform too (D_l ≤ N_l)
MAX_ENTRIES = 1 << 16  # multipliers
MAX_POINTS = 1 << 16  # Σ over the multipliers of the orbit sizes of p and q, from the counts, before enumerating


def _point(v: Any, where: str, ns: list[int]) -> tuple[int, ...]:
    return tuple(_int(x, f"{where}[{l}]", 0, n) for l, (x, n) in enumerate(zip(_list(v, where, len(ns), len(ns)), ns)))


def classes(ns: list[int], ds: list[int]) -> list[list[int]]:
    """The positions of the parts, grouped by ``(N_l, D_l)``: the group ``G`` permutes each group, and only those."""
    groups: dict[tuple[int, int], list[int]] = {}
    for l, key in enumerate(zip(ns, ds)):
        groups.setdefault(key, []).append(l)
    return list(groups.values())


def _distinct(values: tuple) -> Any:
    """The distinct arrangements of a tuple (a multiset), in increasing order."""
    if not values:
        yield ()
    for v in sorted(set(values)):
        rest = list(values)
        rest.remove(v)
        yield from ((v, *tail) for tail in _distinct(tuple(rest)))


def _counts(values: list[int]) -> list[int]:
    return [values.count(v) for v in set(values)]


def orbit_size(point: tuple, groups: list[list[int]]) -> int:
    """``|G·point|``: a product of multinomials, one per group."""
    return prod(factorial(len(g)) // prod(map(factorial, _counts([point[i] for i in g]))) for g in groups)


def orbit(point: tuple, groups: list[list[int]]) -> tuple[list[tuple], int]:
    """``(G·point, |Stab(point)|)``: ``Σ_{g ∈ G} δ_{g·point} = |Stab|·Σ_{x ∈ G·point} δ_x``."""
    points = []
    for parts in product(*(_distinct(tuple(point[i] for i in g)) for g in groups)):
        x = list(point)
        for g, values in zip(groups, parts):
            for i, v in zip(g, values):
                x[i] = v
        points.append(tuple(x))
    return points, prod(prod(map(factorial, _counts([point[i] for i in g]))) for g in groups)


def contract(tensor: dict, mats: list[list[list[int]]]) -> dict:
    """Replace each index ``i_l`` of a sparse tensor by ``j`` with weight ``mats[l][i][j]``, summing; zeros dropped."""
    for l, mat in enumerate(mats):
        out: dict = {}
        for key, v in tensor.items():
            for j, w in enumerate(mat[key[l]]):
                if w:
                    new = (*key[:l], j, *key[l + 1:])
                    out[new] = out.get(new, 0) + w * v
        tensor = {key: v for key, v in out.items() if v}
    return tensor


def _parse_product(doc: dict) -> tuple[list[int], list[int], str, list]:
    claim = doc.get("claim")
    if not isinstance(claim, str) or claim not in PRODUCT_KEYS:
        raise DegreeError("claim", f"expected \"feasible\" or \"infeasible\", got {_kind(claim)}")
    _keys(doc, PRODUCT_KEYS[claim], f"a {PRODUCT_SCHEMA} certificate claiming {claim}")
    ns = [_int(n, f"N[{l}]", 1, MAX_LEVEL) for l, n in enumerate(_list(doc["N"], "N", 1, 16))]
    if sum(ns) > MAX_LEVEL or prod(n + 1 for n in ns) > MAX_GRID:
        raise CertificateLimitError(f"N: Σ N_l = {sum(ns)} (at most {MAX_LEVEL}) and Π (N_l + 1) = "
                                    f"{prod(n + 1 for n in ns):,} (at most {MAX_GRID:,}) are this format's limits")
    ds = [_int(d, f"degrees[{l}]", 0, n) for l, (d, n) in enumerate(zip(_list(doc["degrees"], "degrees", len(ns),
                                                                                len(ns)), ns))]
    if claim == "feasible":
        size = prod(d + 1 for d in ds)
        return ns, ds, claim, [_rational(c, f"polynomial[{i}]") for i, c in
                               enumerate(_list(doc["polynomial"], "polynomial", size, size))]
    entries, points, groups = [], 0, classes(ns, ds)
    for i, r in enumerate(_list(doc["multipliers"], "multipliers", 0, MAX_ENTRIES)):
        r = _list(r, f"multipliers[{i}]", 3, 3)
        p, q = _point(r[0], f"multipliers[{i}][0]", ns), _point(r[1], f"multipliers[{i}][1]", ns)
        if q != p and sum(q) - sum(p) < 2:
            raise DegreeError(f"multipliers[{i}]", f"|q| − |p| = {sum(q) - sum(p)} is no condition (q = p: h(p) > 0; "
                              "|q| − |p| ≥ 2: a chain condition)")
        if i and (p, q) <= entries[-1][:2]:
            raise DegreeError(f"multipliers[{i}]", "(p, q) is repeated or out of order; sorted by (p, q), once each")
        entries.append((p, q, _rational(r[2], f"multipliers[{i}][2]")))
        points += orbit_size(p, groups) + orbit_size(q, groups)
        if points > MAX_POINTS:
            raise CertificateLimitError(f"multipliers: the orbits of the first {i + 1} have over {MAX_POINTS:,} points")
    return ns, ds, claim, entries


def _binomials(n: int, d: int, transpose: bool) -> list[list[int]]:
    """``C(x, e)`` for ``x ≤ n``, ``e ≤ d``: rows ``x`` (values to coefficients), or rows ``e`` (``transpose``)."""
    return [[comb(x, e) for x in range(n + 1)] for e in range(d + 1)] if transpose else \
        [[comb(x, e) for e in range(d + 1)] for x in range(n + 1)]


def _witness(ns: list[int], ds: list[int], poly: list[Fraction]) -> None:
    """Step witness: ``D·h`` on the whole grid in integers (``D > 0``), then every condition through the level
    minima and maxima (the least ``h(p)`` at each level against the largest ``h(q)``: all pairs at once)."""
    c, dc = _integers(poly, "polynomial")
    coefficients = {e: v for e, v in zip(product(*(range(d + 1) for d in ds)), c) if v}
    values = contract(coefficients, [_binomials(n, d, True) for n, d in zip(ns, ds)])
    low: dict[int, tuple[int, tuple]] = {}
    high: dict[int, tuple[int, tuple]] = {}
    for x in product(*(range(n + 1) for n in ns)):
        v, s = values.get(x, 0), sum(x)
        if s not in low or v < low[s][0]:
            low[s] = v, x
        if s not in high or v > high[s][0]:
            high[s] = v, x
    top, w = values.get(tuple(ns), 0), sum(ns)
    for v, x in (low[s] for s in range(w + 1)):
        if v <= 0:
            raise DegreeRejected("witness", f"p = {x}: h(p) > 0 fails, h(p) = {show_number(Fraction(v, dc))}")
    for t in range(w + 1):
        for s in range(t + 2, w + 1):
            (v, p), (u, q), d = low[t], high[s], s - t
            gap = 2 * v - 2 * (d - 1) * u - (d - 2) * top
            if gap <= 0:
                raise DegreeRejected("witness", f"p = {p}, q = {q}: h(p) > {d - 1}·h(q) + ({d - 2}/2)·h(top) fails, "
                                     f"the left side less the right is {show_number(Fraction(gap, 2 * dc))}")


def _gordan(ns: list[int], ds: list[int], entries: list) -> None:
    """Step gordan: every ``y > 0``; ``Σ y·Σ_{g ∈ G} L_(gp, gq)`` as point masses (integers), then its value on every
    ``Π_l C(t_l, e_l)``, ``e_l ≤ D_l``, by one transform per coordinate: all must be 0."""
    if not entries:
        raise DegreeRejected("gordan", "no multipliers: nothing shows that the problem is infeasible")
    for i, (*_, y) in enumerate(entries):
        if y <= 0:
            raise DegreeRejected("gordan", f"multipliers[{i}]: y = {y} is not positive")
    ys, dy = _integers([y for *_, y in entries], "multipliers")
    groups, top, masses = classes(ns, ds), tuple(ns), {}
    for (p, q, _), y in zip(entries, ys):
        d = sum(q) - sum(p)
        for x, weight in ([(p, 2)] if p == q else [(p, 2), (q, -2 * (d - 1)), (top, -(d - 2))]):
            points, stabilizer = orbit(x, groups)
            for z in points:
                masses[z] = masses.get(z, 0) + y * weight * stabilizer
    moments = contract({x: v for x, v in masses.items() if v}, [_binomials(n, d, False) for n, d in zip(ns, ds)])
    if moments:
        e = min(moments)
        raise DegreeRejected("gordan", f"Σ y·L(Π C(t_l, e_l)) = {show_number(Fraction(moments[e], 2 * dy))} ≠ 0 at "
                                       f"e = {e}, so the multipliers do not exclude every h of degree ≤ {tuple(ds)}")


def check_product(doc: Any) -> tuple[list[int], list[int], str]:
    """``(N, degrees, claim)``: proved that the joint chain problem on ``Π_l [0…N_l]`` has (``"feasible"``) or has
    no (``"infeasible"``) solution of degree ``≤ D_l`` in ``t_l``. :class:`DegreeError` (malformed),
    :class:`DegreeRejected` (naming the step: ``witness``, ``gordan``) otherwise."""
    if not isinstance(doc, dict):
        raise DegreeError("document", f"expected a JSON object, got {_kind(doc)}")
    if doc.get("schema") != PRODUCT_SCHEMA:
        raise DegreeError("schema", f"expected {PRODUCT_SCHEMA!r}, got {_kind(doc.get('schema'))}")
    ns, ds, claim, data = _parse_product(doc)
    (_witness if claim == "feasible" else _gordan)(ns, ds, data)
    return ns, ds, claim


def runs(values: list[int]) -> list[list[int]]:
    """The runs of equal consecutive values, ``[value, length]``: ``[2, 2, 1] → [[2, 2], [1, 1]]``."""
    out: list[list[int]] = []
    for v in values:
        if out and out[-1][0] == v:
            out[-1][1] += 1
        else:
            out.append([v, 1])
    return out


def product_verdict(ns: list[int], ds: list[int], claim: str) -> str:
    """The two lines printed for a verified product-degree certificate."""
    grid = " × ".join(f"[0…{n}]" + (f"^{c}" if c > 1 else "") for n, c in runs(ns))
    degree = f"≤ {ds[0]} in every coordinate" if len(set(ds)) == 1 else f"≤ {tuple(ds)} in the coordinates"
    if claim == "feasible":
        return (f"VERIFIED: the joint chain problem on {grid} has a solution of degree {degree}\n  a necessary "
                "condition only: no kernel is claimed (docs/math.md §11, Lemma 11.11)")
    sizes = f"size ≥ {2 * ns[0]}" if len(set(ns)) == 1 else f"sizes ≥ {', '.join(str(2 * n) for n in ns)}"
    blocks = f"k_l ≤ {ds[0]}" if len(set(ds)) == 1 else f"k_l ≤ {', '.join(map(str, ds))}"
    return (f"VERIFIED: the joint chain problem on {grid} has no solution of degree {degree}\n  so no kernel invariant "
            f"under a product of symmetric groups with {len(ns)} part{'s' if len(ns) != 1 else ''} of {sizes} whose "
            f"nonzero blocks all have {blocks} in those parts solves every length-3 input (docs/math.md §11, "
            f"{'Proposition 11.12' if set(ds) == {1} else 'Lemma 11.11'})")


def _verify(doc: Any) -> str:
    """The verdict of either kind of certificate, by its schema."""
    schema = doc.get("schema") if isinstance(doc, dict) else None
    if isinstance(schema, str) and schema.startswith("certify.product-degree/"):
        return product_verdict(*check_product(doc))
    if isinstance(doc, dict) and schema != SCHEMA:  # named before the keys, which differ between the two kinds
        raise DegreeError("schema", f"expected {SCHEMA!r} or {PRODUCT_SCHEMA!r}, got {_kind(schema)}")
    return verdict(*check(doc))


def load(path: str) -> Any:
    """Read (at most :data:`MAX_FILE_BYTES`, checked before parsing) and parse with ``certify.check.loads``."""
    data = read_bounded(path, MAX_FILE_BYTES, f"the file is over {MAX_FILE_BYTES >> 20} MiB, this format's limit")
    return loads(data)


def verdict(m: int, n: int, k: int, x: int) -> str:
    """The two lines printed for a verified certificate."""
    return (f"VERIFIED: K1({n}) = {k}\n  so no S_{m}-invariant kernel solving every length-3 input over {m}-bit "
            f"tokens has rank below {x} (docs/math.md §11, Proposition I3)")


def run(path: str) -> int:
    """Verify ``path``, print the verdict (stdout) or one line on stderr; return the exit code (never a traceback)."""
    safe_output_streams()
    shown = path if path.isprintable() else ascii(path)  # a newline in a file name never makes two lines
    try:
        text = _verify(load(path))
    except CertificateError as exc:
        print(f"{'REJECTED' if exc.exit_code == 1 else 'MALFORMED'}: {shown}: {exc}", file=sys.stderr)
        return exc.exit_code
    except Exception as exc:  # MemoryError included: a bug here, never the file's fault; one line, exit 3
        print(f"INTERNAL CONTRADICTION: unexpected {type(exc).__name__} in the checker: "
              f"{' '.join(str(exc).split())[:200]} (a bug in this checker)", file=sys.stderr)
        return EXIT_INTERNAL
    print(text)
    return EXIT_VERIFIED


PROG = "check_degree.py"


def main(argv: list[str] | None = None) -> int:
    """usage: python certify/check_degree.py [--] FILE

    Check a certify.invariant-degree/1 certificate with the standard library alone: the
    polynomial h (binomial basis) is evaluated exactly at u = 0..N = floor(M/2) and must meet
    every chain condition strictly (K1(N) <= K); the Gordan multipliers must be positive and
    cancel every binomial C(., e), e < K (K1(N) >= K); the invariant rank bound X is
    recomputed (docs/math.md section 11, Proposition I3: S_M-invariant kernels only).
    Or a certify.product-degree/1 certificate: the joint chain problem on the grid
    [0..N_1] x ... x [0..N_k] at degree <= D_l in each part, "feasible" by a polynomial
    checked on the whole grid, "infeasible" by Gordan multipliers on orbits of conditions
    that cancel every product of binomials (docs/math.md section 11, Proposition 11.12).
    Files over 2 MiB, M > 200, unknown or repeated keys, floats are refused before any work.
    Prints "VERIFIED: ..." and a second line on stdout, or one line on stderr.

    --              the next argument is the path, even if it starts with '-'
    -h, --help      print this text and exit 0

    Exit codes: 0 verified, 1 rejected (the line names the step: polynomial, gordan,
    claim, witness), 2 malformed or unreadable (or standard output cannot be written; the line
    names the field), 3 internal error (a bug in this checker); 130 Ctrl-C, 141 a closed
    pipe, 143 SIGTERM.
    """
    return guard_process(lambda: _main(argv), PROG)


def _main(argv: list[str] | None) -> int:
    code, path, _ = script_args(argv, main.__doc__, f"usage: python certify/{PROG} [--] FILE  (exit 0 proved, "
                                "1 rejected, 2 malformed; --help)")
    return code if code is not None else run(path)


if __name__ == "__main__":
    sys.exit(main())
