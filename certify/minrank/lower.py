"""The lower side of r*(m, 3) for small m: order obstructions, found here and checked by ``obstruction`` (docs/math.md §11).

:func:`region_certificate` searches for a region-counting certificate (Lemma 11.5), which
proves less than the orders at every ``m ≤ 10`` tried (``r ≥ 2`` from ``m = 8``).
:func:`obstruction_certificate` writes the certificate of :mod:`certify.check_obstruction`
for ``r*(m, 3) ≥ 2`` (``m ≥ 4``: one pair of keys) or ``≥ 3`` (``m ≥ 5``: a small set of
pairs no order of the rows can satisfy). The core is found on ``m = 5`` — by a search over
the orientations of every pair with both sides nonempty, then pruned pair by pair while the
rest stays infeasible — and padded with zero coordinates for larger ``m``: keys and queries
of the subcube keep their inner products, so its rows and pairs are rows and pairs of the
larger problem. (The same restriction shows ``r*(m + 1, 3) ≥ r*(m, 3)``.)
:func:`pairs_certificate` writes the ``"disjoint-queries"`` certificate of ``r*(m, 3) ≥ ⌊m/2⌋``:
the queries ``{2i, 2i + 1}`` have linearly independent rows (docs/math.md §11, the pair queries).
"""
from __future__ import annotations

from functools import lru_cache

from ..check_obstruction import MAX_M_QUERIES, SCHEMA, check, orientation_cycle_free, sides
from .rows import bits as _bits

__all__ = ["obstruction_certificate", "exact_lower_bound", "region_certificate", "pairs_certificate"]


def exact_lower_bound(m: int) -> int:
    """What the order obstructions prove: 1 for ``m ≤ 3``, 2 for ``m = 4``, 3 from ``m = 5`` on."""
    return 1 if m <= 3 else 2 if m == 4 else 3


def _feasible(pairs: list) -> bool:
    """Whether some orientation of ``pairs`` is cycle-free: a depth-first search with early cycle checks."""
    def rec(k: int, orientation: int) -> bool:
        if not orientation_cycle_free(pairs[:k], orientation):
            return False
        if k == len(pairs):
            return True
        return rec(k + 1, orientation) or (k > 0 and rec(k + 1, orientation | 1 << k))
    return rec(0, 0)


@lru_cache(maxsize=None)
def _core5() -> tuple[tuple[int, int], ...]:
    """A small set of key pairs at ``m = 5`` that no order of the rows satisfies (deterministic)."""
    m = 5
    seen: dict[tuple[frozenset, frozenset], tuple[int, int]] = {}
    for y in range(1 << m):
        for z in range(y + 1, 1 << m):
            P, Q = sides(y, z, m)
            if P and Q:
                key = (P, Q) if min(P) < min(Q) else (Q, P)
                seen.setdefault(key, (y, z))
    order = sorted(seen, key=lambda pq: (-len(pq[0]) * len(pq[1]), sorted(pq[0]), sorted(pq[1])))
    chosen = list(order)
    if _feasible(chosen):
        raise AssertionError("m = 5: the rows can be ordered; no rank-two obstruction")
    for pq in list(chosen):  # prune while infeasible
        rest = [c for c in chosen if c != pq]
        if not _feasible(rest):
            chosen = rest
    return tuple(seen[pq] for pq in chosen)


def obstruction_certificate(m: int) -> dict | None:
    """The certificate of ``r*(m, 3) ≥ exact_lower_bound(m)`` (``None`` for ``m ≤ 3``: rank 1 is the bound)."""
    bound = exact_lower_bound(m)
    if bound == 1:
        return None
    if bound == 2:
        y, z = 0b1100, 0b0011  # queries 0011… prefer the key 1100…, and the other way round
        pairs = [(y, z)]
    else:
        pairs = list(_core5())
    doc = {"schema": SCHEMA, "m": m, "rank_at_least": bound,
           "pairs": [[_bits(y, m), _bits(z, m)] for y, z in pairs]}
    if check(doc) != bound:
        raise AssertionError(f"m = {m}: the obstruction certificate does not check")
    return doc


def pairs_certificate(m: int) -> dict | None:
    """The certificate of ``r*(m, 3) ≥ ⌊m/2⌋`` (``"argument": "disjoint-queries"``), ``None`` for ``m < 2``.

    The queries are ``x_i = {2i, 2i + 1}`` for ``i < ⌊m/2⌋`` (weight 2, pairwise disjoint), so
    the rank is at least their number (docs/math.md §11, the pair queries); checked by
    :func:`certify.check_obstruction.check` before it is returned. ``ValueError`` for
    ``m > MAX_M_QUERIES`` (1,024: the checker's limit, which keeps the file under 1 MiB).
    """
    if m < 2:
        return None
    if m > MAX_M_QUERIES:
        raise ValueError(f"m = {m}: the disjoint-queries certificate is checked for m ≤ {MAX_M_QUERIES}")
    q = m // 2
    doc = {"schema": SCHEMA, "m": m, "rank_at_least": q, "argument": "disjoint-queries",
           "queries": ["0" * (2 * i) + "11" + "0" * (m - 2 * i - 2) for i in range(q)]}
    if check(doc) != q:
        raise AssertionError(f"m = {m}: the disjoint-queries certificate does not check")
    return doc


def region_certificate(m: int, seed: int = 0, rounds: int = 12, sample: int = 200) -> dict | None:
    """A region-counting certificate (``"argument": "regions"``), the best a seeded greedy search finds, or ``None``.

    Pairs ``(y, z)`` of disjoint random key sets (2 or 3 coordinates each) are added one at a
    time, each the best of ``sample`` candidates by the bound it proves (then by how many
    distinct full patterns it leaves), for ``rounds`` rounds; the certificate of the best set
    seen is returned, checked by :func:`certify.check_obstruction.check`.
    """
    import random

    from ..check_obstruction import cells, patterns

    if m < 4:
        return None
    rng = random.Random(seed)

    def bound(pairs: list) -> tuple[int, int]:
        n = len(patterns(pairs, m))
        k = len(pairs)
        r = 1
        while cells(k, r) < n:
            r += 1
        return r, n  # proves rank ≥ r (patterns exceed the cells of rank r − 1)

    chosen: list = []
    keys: list = []
    best = (1, 0, [])
    for _ in range(rounds):
        top = None
        for _ in range(sample):
            coords = rng.sample(range(m), min(m, rng.choice([4, 5, 6])))
            half = rng.choice([2, 3]) if len(coords) >= 6 else 2
            y = sum(1 << c for c in coords[:half])
            z = sum(1 << c for c in coords[half:2 * half])
            P, Q = sides(y, z, m)
            if not P or not Q or (y, z) in keys:
                continue
            score = bound(chosen + [(P, Q)])
            if top is None or score > top[0]:
                top = (score, (P, Q), (y, z))
        if top is None:
            break
        chosen.append(top[1])
        keys.append(top[2])
        if top[0][0] > best[0]:
            best = (top[0][0], top[0][1], list(keys))
    if best[0] < 2:
        return None
    doc = {"schema": SCHEMA, "m": m, "rank_at_least": best[0], "argument": "regions",
           "pairs": [[_bits(y, m), _bits(z, m)] for y, z in best[2]]}
    if check(doc) != best[0]:
        raise AssertionError(f"m = {m}: the region certificate does not check")
    return doc
