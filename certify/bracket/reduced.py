"""The reduced matrix of a length-3 witness family (docs/math.md §12): queries × keys, jumps, no inputs.

For a family of three-witness jumps at length 3 and error 1/2, whether a kernel solves the
family is a question about one block of it — ``A[S, k] = α(x_S, k)`` on the query tokens
× the keys their chains use — and a set of linear inequalities per row (docs/math.md §12,
Theorem 12.1). This module builds that block's index structure from the family: from its
jumps for an explicit family, from the code and chain plan one query at a time for a
compact certificate (:func:`witnesses.plans.iter_query_sets`), so golay24's 13,268,976
inputs are never generated — its reduced matrix is 2,576 × 2,576 with 6,633,200 jumps.

Nothing here is trusted: the search proposes, the exact check of ``certify check-kernel``
disposes (:mod:`certify.bracket.lift`).
"""
from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction
from typing import Callable

import numpy as np

__all__ = ["Reduced", "ReductionError", "reduce_family", "ETA"]

#: The readout's shift: ``g_x(z) = ⟨x, z⟩ − 1/2 + η`` (docs/math.md §12). A dyadic number, so exact tables stay dyadic.
ETA = Fraction(1, 64)


class ReductionError(ValueError):
    """The family is not one the reduced search covers (the reason says why)."""


@dataclass(frozen=True)
class Reduced:
    """The reduced matrix's structure: rows are query tokens, columns key tokens, every array by index.

    ``pq, pk, po``: every (query, key) pair an input uses (a query's own token excluded
    unless it is also one of its keys) and its overlap. ``jq, jy, jz, jd, jt``: every jump
    ``(x_S, y, z)``: row, better key, worse key, gap ``d = ⟨x,z⟩ − ⟨x,y⟩``, overlap
    ``t = ⟨x,y⟩``. ``own[S]``: the column of ``x_S`` itself when it is a key (its ``α(x_S,
    x_S)`` is then an entry of the matrix), else ``−1`` (the table gives it ``φ_K = 0``,
    so ``α(x_S, x_S) = 0``). ``root[S]``: the column of the query's lowest-overlap key
    (its scale, ``A[S, root] = 1``). ``weight[S] = ⟨x_S, x_S⟩``.
    """

    m: int
    queries: tuple[int, ...]
    keys: tuple[int, ...]
    weight: np.ndarray
    own: np.ndarray
    root: np.ndarray
    pq: np.ndarray
    pk: np.ndarray
    po: np.ndarray
    jq: np.ndarray
    jy: np.ndarray
    jz: np.ndarray
    jd: np.ndarray
    jt: np.ndarray

    @property
    def shape(self) -> tuple[int, int]:
        return len(self.queries), len(self.keys)

    @property
    def jumps(self) -> int:
        return len(self.jq)


def reduce_family(family, progress: Callable[[str], None] | None = None) -> Reduced:
    """The :class:`Reduced` structure of a ``certify.kernels.families.FamilySpec`` (explicit or compact).

    ``progress(text)`` is called once per query token in each of the two passes (golay24:
    2,576 queries, about 7 s to generate their keys and jumps and 12 s to index them).

    Raises :class:`ReductionError` for a family the reduction does not cover: no jumps
    (unique-minimizer certificates, families without three-witness triples), witnesses of
    length other than 3, an error other than 1/2, or an explicit family with an input that
    is not a witness of one of its jumps (the reduction is about witness families only).
    """
    if family.error != Fraction(1, 2):
        raise ReductionError(f"the reduced matrix is for error 1/2 (docs/math.md §12); this family's is {family.error}")
    if family.compact is not None:
        c = family.compact
        if c.length != 3:
            raise ReductionError(f"the reduced matrix is for witnesses of length 3; this family's have length {c.length}")
        from witnesses.plans import iter_query_sets

        per_query = []
        for i, (keys, jumps) in enumerate(iter_query_sets(c.code, c.plan)):
            per_query.append((c.code.words[i], keys, jumps))
            if progress is not None:
                progress(f"reduced matrix: keys and jumps of query {i + 1:,}/{len(c.code.words):,}")
    else:
        if not family.jumps:
            raise ReductionError("the family has no three-witness jumps (a unique-minimizer certificate, or inputs without "
                                 "weight-domination witnesses): the reduced matrix is not defined")
        if any(n != 3 for *_, n in family.jumps):
            raise ReductionError("the reduced matrix is for witnesses of length 3; this family has longer ones")
        per_query = _explicit_queries(family)
    return _build(family.m, per_query, progress)


def _explicit_queries(family) -> list[tuple[int, set[int], set[tuple[int, int]]]]:
    """``(query, keys, jumps)`` per query token of an explicit family; every input must be a witness of a jump."""
    by_query: dict[int, tuple[set[int], set[tuple[int, int]]]] = {}
    witnesses: set[tuple[int, tuple[int, ...]]] = set()
    for x, y, z, _ in family.jumps:
        keys, jumps = by_query.setdefault(x, (set(), set()))
        keys.update((y, z))
        jumps.add((y, z))
        witnesses.update({(x, (x, y, y)), (x, (x, z, z)), (x, (x, y, z))})
    for k, X in enumerate(family.inputs):
        if X.query != 0 or len(X.tokens) != 3 or (X.tokens[0], tuple(X.tokens)) not in witnesses:
            raise ReductionError(f"family.inputs[{k}] is not a length-3 witness (x, y, y), (x, z, z) or (x, y, z) of one "
                                 "of the family's usable jumps with the query first (witnesses of a gap-1 jump prove "
                                 "nothing and are not listed as jumps): the reduction covers witness families only")
    return [(x, keys, jumps) for x, (keys, jumps) in by_query.items()]


def _build(m: int, per_query, progress: Callable[[str], None] | None = None) -> Reduced:
    queries = [x for x, _, _ in per_query]
    col: dict[int, int] = {}
    for _, keys, _ in per_query:
        for k in sorted(keys):
            col.setdefault(k, len(col))
    keys = list(col)
    weight = np.array([x.bit_count() for x in queries], dtype=np.int64)
    own = np.array([col.get(x, -1) for x in queries], dtype=np.int64)
    root, pq, pk, po, jq, jy, jz, jd, jt = ([] for _ in range(9))
    for i, (x, ks, js) in enumerate(per_query):
        if progress is not None:
            progress(f"reduced matrix: indexing query {i + 1:,}/{len(per_query):,}")
        low = min(ks, key=lambda k: ((x & k).bit_count(), col[k]))
        root.append(col[low])
        for k in sorted(ks, key=col.__getitem__):
            pq.append(i)
            pk.append(col[k])
            po.append((x & k).bit_count())
        for y, z in sorted(js, key=lambda p: (col[p[0]], col[p[1]])):
            t, u = (x & y).bit_count(), (x & z).bit_count()
            if not t < u <= x.bit_count():
                raise ReductionError(f"jump ({x:b}, {y:b}, {z:b}): overlaps {t}, {u} are not t < u ≤ ⟨x,x⟩")
            jq.append(i)
            jy.append(col[y])
            jz.append(col[z])
            jd.append(u - t)
            jt.append(t)
    a = lambda v: np.array(v, dtype=np.int64)  # noqa: E731
    return Reduced(m, tuple(queries), tuple(keys), weight, own, a(root), a(pq), a(pk), a(po), a(jq), a(jy), a(jz), a(jd),
                   a(jt))
