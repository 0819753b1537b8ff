"""Checker of the lower side of r*(m, 3) for small ranks: order obstructions (docs/math.md §11). Standard library only.

A certificate ``{"schema": "certify.minrank-lower/1", "m": M, "rank_at_least": R,
"argument": "orders" | "regions", "pairs": [[y, z], …]}`` (``y``, ``z`` key tokens as 0/1 strings of length ``M``, character
``i`` is coordinate ``i``) claims ``r*(M, 3) ≥ R`` for ``R ∈ {2, 3}``. For a pair of keys
``(y, z)`` let ``P`` be the queries ``x`` (weight ≥ 2) with ``⟨x, z⟩ − ⟨x, y⟩ ≥ 2`` and ``Q``
those with ``⟨x, y⟩ − ⟨x, z⟩ ≥ 2``: every solving kernel has ``A[x, y] > A[x, z]`` on ``P``
and ``A[x, z] > A[x, y]`` on ``Q`` (the row condition with ``d ≥ 2``).

* ``R = 2``: some listed pair has ``P`` and ``Q`` both nonempty. A kernel of rank 1 has
  rows ``u_x vᵀ`` with ``u_x > 0``, so ``A[x, y] − A[x, z]`` has one sign on every row.
* ``R = 3``: for **every** orientation of the listed pairs (``P`` before ``Q`` or ``Q``
  before ``P``) the precedence relation ``p → q`` (``p`` in the earlier set, ``q`` in the
  later) has a cycle. A kernel of rank 2 has a nonnegative factorization of width 2, its
  rows are directions ``θ_x ∈ [0, π/2]``, and for each pair the rows preferring ``y`` and
  those preferring ``z`` lie on two disjoint arcs: sorting the rows by ``θ`` would orient
  every pair without a cycle.

* ``"argument": "regions"`` (any ``R ≥ 2``): the queries in ``P`` or ``Q`` of every listed
  pair have more distinct sign patterns than ``k`` hyperplanes through the origin of
  ``ℝ^{R−1}`` have open cells, ``2·Σ_{i<R−1} C(k − 1, i)``. In a kernel of rank ``R − 1``
  the rows are points ``u_x`` and pair ``i`` a hyperplane ``⟨u, c_y − c_z⟩ = 0``; a query's
  strict signs put it in one cell, distinct patterns in distinct cells.

The checker recomputes ``P`` and ``Q`` from the tokens and trusts nothing else in the
file. Work: ``2^{k−1}`` orientations of ``k`` pairs, each a cycle search on the rows
involved; ``k ≤ 16``, ``M ≤ 12`` and ``2^{k−1} · Σ |P|·|Q| ≤`` :data:`MAX_WORK` are enforced
before any orientation is tried (the sets themselves cost ``k · 2^M``).
"""
from __future__ import annotations

import json
import sys
from typing import Any

SCHEMA = "certify.minrank-lower/1"
MAX_M = 12
MAX_PAIRS = 16
#: Orientations × precedence edges the rank-3 check may build (the edges dominate): about 10 s of CPU here.
MAX_WORK = 5 * 10**7


class ObstructionError(ValueError):
    """The certificate is malformed (exit 2) — ``str`` names the field."""


def _token(text: Any, m: int, where: str) -> int:
    if not isinstance(text, str) or len(text) != m or set(text) - {"0", "1"}:
        raise ObstructionError(f"{where}: expected a 0/1 string of length {m}")
    return sum(1 << i for i, c in enumerate(text) if c == "1")


def sides(y: int, z: int, m: int) -> tuple[frozenset, frozenset]:
    """``(P, Q)``: the queries of weight ≥ 2 that must prefer ``y`` over ``z``, and those that must prefer ``z``."""
    P, Q = set(), set()
    for x in range(1 << m):
        if x.bit_count() < 2:
            continue
        gap = (x & z).bit_count() - (x & y).bit_count()
        if gap >= 2:
            P.add(x)
        elif gap <= -2:
            Q.add(x)
    return frozenset(P), frozenset(Q)


def _has_cycle(edges: dict[int, set[int]]) -> bool:
    """Whether the directed graph has a cycle (iterative depth-first search, colours)."""
    colour: dict[int, int] = {}
    for root in edges:
        if colour.get(root):
            continue
        stack = [(root, iter(edges.get(root, ())))]
        colour[root] = 1
        while stack:
            node, it = stack[-1]
            nxt = next(it, None)
            if nxt is None:
                colour[node] = 2
                stack.pop()
            elif colour.get(nxt) == 1:
                return True
            elif not colour.get(nxt):
                colour[nxt] = 1
                stack.append((nxt, iter(edges.get(nxt, ()))))
    return False


def orientation_cycle_free(pairs: list[tuple[frozenset, frozenset]], orientation: int) -> bool:
    """Whether orienting pair ``i`` as ``P → Q`` (bit ``i`` of ``orientation`` 0) or ``Q → P`` leaves no cycle."""
    edges: dict[int, set[int]] = {}
    for i, (P, Q) in enumerate(pairs):
        first, then = (P, Q) if not orientation >> i & 1 else (Q, P)
        for p in first:
            edges.setdefault(p, set()).update(then)
    return not _has_cycle(edges)


def cells(k: int, r: int) -> int:
    """The most open cells ``k`` hyperplanes through the origin of ``ℝ^r`` make: ``2·Σ_{i<r} C(k − 1, i)`` (Cover)."""
    from math import comb

    return 2 * sum(comb(k - 1, i) for i in range(r)) if k else 1


def patterns(pairs: list[tuple[frozenset, frozenset]], m: int) -> set[tuple[bool, ...]]:
    """The distinct sign patterns of the queries that lie in ``P`` or ``Q`` of **every** pair (``True``: in ``P``)."""
    out = set()
    for x in range(1 << m):
        row = []
        for P, Q in pairs:
            if x in P:
                row.append(True)
            elif x in Q:
                row.append(False)
            else:
                break
        else:
            out.add(tuple(row))
    return out


def check(doc: Any) -> int:
    """The bound the certificate proves; :class:`ObstructionError` if malformed.

    ``argument`` ``"orders"`` (the default; ``rank_at_least`` 2 or 3) or ``"regions"``
    (any ``rank_at_least`` ``R ≥ 2``: the queries with a full pattern have more distinct
    patterns than ``cells(k, R − 1)``, so a kernel of rank ``R − 1`` cannot give each its
    signs; docs/math.md §11, Lemma 11.5). Returns 0 when the certificate is well formed but
    its claim does not follow (rejected).
    """
    if not isinstance(doc, dict) or doc.get("schema") != SCHEMA:
        raise ObstructionError(f"schema: expected {SCHEMA!r}")
    m, claim, raw = doc.get("m"), doc.get("rank_at_least"), doc.get("pairs")
    argument = doc.get("argument", "orders")
    if argument not in ("orders", "regions"):
        raise ObstructionError("argument: 'orders' or 'regions'")
    if type(m) is not int or not 2 <= m <= MAX_M:
        raise ObstructionError(f"m: an integer from 2 to {MAX_M}")
    if argument == "regions":
        if type(claim) is not int or not 2 <= claim <= MAX_PAIRS + 1:
            raise ObstructionError(f"rank_at_least: an integer from 2 to {MAX_PAIRS + 1}")
    elif type(claim) is not int or claim not in (2, 3):
        raise ObstructionError("rank_at_least: 2 or 3 (order obstructions prove no more)")
    if not isinstance(raw, list) or not 1 <= len(raw) <= MAX_PAIRS:
        raise ObstructionError(f"pairs: a list of 1 to {MAX_PAIRS} pairs")
    pairs = []
    for i, p in enumerate(raw):
        if not isinstance(p, list) or len(p) != 2:
            raise ObstructionError(f"pairs[{i}]: expected [y, z]")
        pairs.append(sides(_token(p[0], m, f"pairs[{i}][0]"), _token(p[1], m, f"pairs[{i}][1]"), m))
    if argument == "regions":  # k · 2^M work: bounded by MAX_PAIRS and MAX_M
        return claim if len(patterns(pairs, m)) > cells(len(pairs), claim - 1) else 0
    work = (1 << (len(pairs) - 1)) * sum(len(P) * len(Q) for P, Q in pairs)
    if claim == 3 and work > MAX_WORK:
        raise ObstructionError(f"pairs: {len(pairs)} pairs with {sum(len(P) * len(Q) for P, Q in pairs):,} "
                               f"precedence edges, tried in 2^{len(pairs) - 1} orientations, is {work:,} edge steps; "
                               f"at most {MAX_WORK:,} (a certificate needs only a few pairs)")
    if claim == 2:
        return 2 if any(P and Q for P, Q in pairs) else 0
    if not all(P and Q for P, Q in pairs):
        return 0
    for orientation in range(1 << (len(pairs) - 1)):  # the last pair's orientation: by symmetry (reversing every edge)
        if orientation_cycle_free(pairs, orientation):
            return 0
    return 3


def main(argv: list[str] | None = None) -> int:
    """``python -m certify.minrank.obstruction FILE``: exit 0 proved, 1 rejected, 2 malformed or unreadable."""
    args = sys.argv[1:] if argv is None else argv
    if len(args) != 1 or args[0] in ("-h", "--help"):
        print(__doc__.split("\n\n")[0] + "\n\nusage: python -m certify.minrank.obstruction FILE  "
              "(exit 0 proved, 1 rejected, 2 malformed)")
        return 0 if args and args[0] in ("-h", "--help") else 2
    try:
        with open(args[0], "rb") as fh:
            data = fh.read((1 << 20) + 1)
        if len(data) > 1 << 20:
            raise ObstructionError("the file is over 1 MiB")
        proved = check(json.loads(data))
    except (OSError, ValueError, RecursionError) as exc:  # ObstructionError and JSON errors are ValueErrors
        print(f"MALFORMED: {args[0]}: {exc}", file=sys.stderr)
        return 2
    if proved:
        print(f"VERIFIED: r*({json.loads(data)['m']}, 3) ≥ {proved}")
        return 0
    print("REJECTED: the listed pairs do not force the claimed rank", file=sys.stderr)
    return 1


if __name__ == "__main__":
    sys.exit(main())
