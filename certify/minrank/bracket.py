"""Both sides of r*(m, 3) for one m: ``certify minrank`` (docs/math.md §11, docs/results.md).

:func:`minrank` combines the lower side — the order obstruction and the ``⌊m/2⌋`` pair
queries (:mod:`certify.minrank.lower`, re-checked by :mod:`certify.check_obstruction`), for
``4 ≤ m ≤ 8`` the bound of a best-chain search certificate (``certify search``) and region
counting, and the committed results row at ``m`` or ``m − 1`` (:mod:`certify.minrank.results_rows`,
re-checked by ``certify/check.py``) — with the upper side: the generic search for
``m ≤ 8`` (:mod:`certify.minrank.upper`) and a symmetric-kernel certificate
(:mod:`certify.minrank.symmetric`, re-checked by ``certify/check_symmetric.py``), the better
of the two. It adds what invariant kernels cannot do: ``K1(⌊m/2⌋)`` with its Gordan
certificate (:mod:`certify.minrank.degree`, re-checked by ``certify/check_degree.py``), a
statement about that class only. Every number it reports was verified exactly.
"""
from __future__ import annotations

import json
import os
from dataclasses import dataclass
from typing import Any, Callable

from .degree import degree_certificate
from .lower import exact_lower_bound, obstruction_certificate, pairs_certificate, region_certificate
from .results_rows import Row, best_row, recheck
from .rows import bits
from .symmetric import SymmetricUpper, checked, load_checked
from .upper import Upper, upper_side

__all__ = ["Bracket", "minrank", "all_inputs_family", "MAX_M", "SCHEMA", "FAMILY_MAX_M", "GENERIC_MAX_M"]

SCHEMA = "certify.minrank/1"
#: The largest m: the shipped symmetric-kernel certificates go to 48 (certify/minrank/certificates).
MAX_M = 48
#: Up to this m the generic search (2^m × 2^m kernels, m = 8: 65,536 entries per step) runs too; above it the
#: invariant kernels alone give the upper side.
GENERIC_MAX_M = 8
OBSTRUCTION_CHECKER = "certify/check_obstruction.py"
#: The order obstructions are checked up to this m (certify/check_obstruction.py's limit for them).
OBSTRUCTION_MAX_M = 12
#: Up to this m, --out also writes the family of all length-3 inputs (m = 4: 2,176 inputs, 80 KB), for certify check-kernel.
FAMILY_MAX_M = 4


@dataclass
class Bracket:
    m: int
    lower: int
    lower_how: str
    obstruction: dict[str, Any] | None
    certified: int | None  # the search certificate's proved bound (m ≥ 4, m ≤ GENERIC_MAX_M)
    certificate: dict[str, Any] | None
    upper: Upper
    regions: dict[str, Any] | None = None  # the region-counting certificate found (Lemma 11.5), if any
    queries: dict[str, Any] | None = None  # the disjoint-queries certificate of ⌊m/2⌋ (docs/math.md §11)
    row: Row | None = None  # the results row used (docs/results.md), re-checked
    row_bound: int | None = None
    degree: dict[str, Any] | None = None  # K1 with its Gordan certificate: the invariant class's floor
    symmetric: SymmetricUpper | None = None  # the symmetric-kernel certificate checked (upper side, m ≥ 1)

    @property
    def closed(self) -> bool:
        return self.lower == self.upper.rank

    @property
    def invariant_floor(self) -> int | None:
        return None if self.degree is None else self.degree["invariant_rank_at_least"]

    def to_json(self) -> dict[str, Any]:
        sym = self.symmetric
        return {"schema": SCHEMA, "m": self.m, "lower": self.lower, "lower_how": self.lower_how,
                "upper": self.upper.rank, "upper_how": self.upper.how, "closed": self.closed, "two_to_m": 1 << self.m,
                "certified_search_bound": self.certified,
                "region_bound": None if self.regions is None else self.regions["rank_at_least"],
                "queries_bound": None if self.queries is None else self.queries["rank_at_least"],
                "results_row": None if self.row is None else {"m": self.row.M, "file": str(self.row.path),
                                                              "bound": self.row_bound},
                "symmetric_rank": None if sym is None else sym.rank,
                "symmetric_parts": None if sym is None else sym.parts,
                "symmetric_m": None if sym is None else sym.m,  # > m: r*(m, 3) ≤ r*(m', 3) (Corollary 11.3)
                "k1": None if self.degree is None else self.degree["degree"],
                "invariant_floor": self.invariant_floor,
                "inputs_evaluated": self.upper.inputs_checked,
                "attempts": self.upper.attempts}


def _certified(m: int, budget: int) -> tuple[int | None, dict[str, Any] | None]:
    """The bound of a best-chain search certificate at ``m`` (``certify search``), re-checked by the checker."""
    if m < 4:
        return None, None
    from ..check import check
    from ..search.codes import result_certificate, search

    cert = result_certificate(search(m, budget=budget))[0]
    return check(cert).proved, cert


def _symmetric_upper(m: int, invariant: dict[str, Any] | None) -> SymmetricUpper | None:
    """The symmetric-kernel certificate given (``invariant``: made by the LP search) or shipped, checked."""
    if invariant is not None:
        return checked(invariant, None, max_work=10**12)
    return load_checked(m, max_work=10**12)


def minrank(m: int, restarts: int, steps: int, max_rank: int, seed: int = 0, budget: int = 2000,
            say: Callable[[str], None] | None = None, rows_dir=None, invariant: dict[str, Any] | None = None,
            announce=None) -> Bracket:
    """Both sides of ``r*(m, 3)``, each verified (module docstring).

    ``rows_dir``: the folder of the results rows (:func:`certify.minrank.results_rows.find_rows_dir`);
    ``invariant``: a symmetric-kernel certificate to use instead of the shipped one.
    """
    if not 1 <= m <= MAX_M:
        raise ValueError(f"--m {m}: from 1 to {MAX_M}")
    doc = obstruction_certificate(m) if m <= OBSTRUCTION_MAX_M else None  # each producer runs its checker
    exact = exact_lower_bound(m)
    generic = m <= GENERIC_MAX_M
    certified, cert = _certified(m, budget) if generic else (None, None)
    regions = region_certificate(m, seed) if generic else None
    region_bound = regions["rank_at_least"] if regions else 0
    queries = pairs_certificate(m)
    q_bound = queries["rank_at_least"] if queries else 0
    row = best_row(m, rows_dir) if rows_dir is not None else None
    row_bound = recheck(row, announce=announce) if row is not None else None
    if doc is None:  # beyond the orders' range (m > 12): the pair queries are stronger anyway
        exact = 1
    sides = [(exact, "A[x, x] > 0: every kernel has rank ≥ 1" if exact == 1 else
              "order obstruction, one pair of keys (rank 1 impossible)" if exact == 2 else
              f"order obstruction, {len(doc['pairs'])} pairs of keys (rank 2 impossible)", OBSTRUCTION_CHECKER),
             (certified or 0, "best-chain search certificate (certify search)", "certify/check.py"),
             (region_bound, f"region counting, {len(regions['pairs']) if regions else 0} pairs of keys",
              OBSTRUCTION_CHECKER),
             (q_bound, f"the {q_bound} pair queries {{2i, 2i + 1}} have independent rows (⌊m/2⌋)", OBSTRUCTION_CHECKER),
             (row_bound or 0, f"the results row m = {row.M if row else 0} (docs/results.md: a family of length-3 "
                              "inputs" + (f"; r*(m, 3) ≥ r*({row.M}, 3)" if row and row.M < m else "") + ")",
              "certify/check.py")]
    lower, how, checker = sides[0]
    for value, text, by in sides[1:]:
        if value > lower:
            lower, how, checker = value, text, by
    how = how if lower == 1 else f"{how}; re-checked by {checker}"
    symmetric = _symmetric_upper(m, invariant)
    if generic:
        upper = upper_side(m, lower, max_rank, restarts, steps, seed, say)
        if symmetric is not None and symmetric.rank < upper.rank:
            upper = Upper(m, symmetric.rank, symmetric.how, None, 0, upper.attempts)
    elif symmetric is not None:
        upper = Upper(m, symmetric.rank, symmetric.how, None, 0, [])
    else:
        raise ValueError(f"--m {m}: no symmetric-kernel certificate (give one, or --search-invariant)")
    degree = degree_certificate(m)
    return Bracket(m, lower, how, doc, certified, cert, upper, regions, queries, row, row_bound, degree, symmetric)


def all_inputs_family(m: int) -> dict[str, Any]:
    """Every length-3 input over m-bit tokens as a family file (query first; the other two a multiset)."""
    n = 1 << m
    return {"note": f"every length-3 input over {m}-bit tokens: query x, then a multiset {{y, z}}",
            "family": {"inputs": [{"tokens": [bits(x, m), bits(y, m), bits(z, m)], "query": 0}
                                  for x in range(n) for y in range(n) for z in range(y, n)]}}


def write(result: Bracket, out_dir: str) -> list[str]:
    """Write the bracket's files into ``out_dir``; their paths."""
    from ..outputs import write_atomic

    os.makedirs(out_dir, exist_ok=True)
    files = {}
    if result.upper.table is not None:
        files[f"m{result.m}.rank{result.upper.rank}.table.json"] = result.upper.table
    files[f"m{result.m}.minrank.json"] = result.to_json()
    if result.symmetric is not None:
        files[f"m{result.m}.upper.symmetric.json"] = result.symmetric.doc
    if result.queries is not None:
        files[f"m{result.m}.lower.queries.json"] = result.queries
    if result.degree is not None:
        files[f"m{result.m}.invariant-degree.json"] = result.degree
    if result.obstruction is not None:
        files[f"m{result.m}.lower.obstruction.json"] = result.obstruction
    if result.certificate is not None:
        files[f"m{result.m}.lower.cert.json"] = result.certificate
    if result.regions is not None:
        files[f"m{result.m}.lower.regions.json"] = result.regions
    if result.m <= FAMILY_MAX_M:
        files[f"m{result.m}.all-inputs.family.json"] = all_inputs_family(result.m)
    written = []
    for name, doc in files.items():
        path = os.path.join(out_dir, name)
        write_atomic(path, (json.dumps(doc, separators=(",", ":")) + "\n").encode())
        written.append(path)
    return written
