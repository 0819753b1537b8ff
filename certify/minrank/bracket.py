"""Both sides of r*(m, 3) for one m: ``certify minrank`` (docs/math.md §11, docs/results.md).

:func:`minrank` combines the lower side — the order obstruction (:mod:`certify.minrank.lower`,
re-checked by :mod:`certify.check_obstruction`) and, for ``m ≥ 4``, the bound of a
best-chain search certificate (``certify search``, re-checked by ``certify/check.py``) — with
the upper side (:mod:`certify.minrank.upper`). Every number it reports was verified exactly.
"""
from __future__ import annotations

import json
import os
from dataclasses import dataclass
from typing import Any, Callable

from .lower import exact_lower_bound, obstruction_certificate, region_certificate
from .rows import bits
from .upper import Upper, upper_side

__all__ = ["Bracket", "minrank", "all_inputs_family", "MAX_M", "SCHEMA", "FAMILY_MAX_M"]

SCHEMA = "certify.minrank/1"
#: The largest m: the search works on 2^m × 2^m kernels (m = 10: a million entries per step).
MAX_M = 10
#: Up to this m, --out also writes the family of all length-3 inputs (m = 4: 2,176 inputs, 80 KB), for certify check-kernel.
FAMILY_MAX_M = 4


@dataclass
class Bracket:
    m: int
    lower: int
    lower_how: str
    obstruction: dict[str, Any] | None
    certified: int | None  # the search certificate's proved bound (m ≥ 4)
    certificate: dict[str, Any] | None
    upper: Upper
    regions: dict[str, Any] | None = None  # the region-counting certificate found (Lemma 11.5), if any

    @property
    def closed(self) -> bool:
        return self.lower == self.upper.rank

    def to_json(self) -> dict[str, Any]:
        return {"schema": SCHEMA, "m": self.m, "lower": self.lower, "lower_how": self.lower_how,
                "upper": self.upper.rank, "upper_how": self.upper.how, "closed": self.closed, "two_to_m": 1 << self.m,
                "certified_search_bound": self.certified,
                "region_bound": None if self.regions is None else self.regions["rank_at_least"],
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


def minrank(m: int, restarts: int, steps: int, max_rank: int, seed: int = 0, budget: int = 2000,
            say: Callable[[str], None] | None = None) -> Bracket:
    """Both sides of ``r*(m, 3)``, each verified (module docstring)."""
    if not 1 <= m <= MAX_M:
        raise ValueError(f"--m {m}: from 1 to {MAX_M}")
    doc = obstruction_certificate(m)  # each producer runs the checker on what it returns
    exact = exact_lower_bound(m)
    certified, cert = _certified(m, budget)
    regions = region_certificate(m, seed) if m <= 10 else None
    region_bound = regions["rank_at_least"] if regions else 0
    lower = max(exact, certified or 0, region_bound)
    how = ("A[x, x] > 0: every kernel has rank ≥ 1" if exact == 1 else
           "order obstruction, one pair of keys (rank 1 impossible)" if exact == 2 else
           f"order obstruction, {len(doc['pairs'])} pairs of keys (rank 2 impossible)")
    if certified is not None and certified > exact:
        how = "best-chain search certificate (certify search)"
    if region_bound > max(exact, certified or 0):
        how = f"region counting, {len(regions['pairs'])} pairs of keys"
    upper = upper_side(m, lower, max_rank, restarts, steps, seed, say)
    return Bracket(m, lower, how, doc, certified, cert, upper, regions)


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
    files = {f"m{result.m}.rank{result.upper.rank}.table.json": result.upper.table,
             f"m{result.m}.minrank.json": result.to_json()}
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
