"""The upper side of the bracket: the smallest rank at which a verified kernel table solves the family.

For decreasing ``r`` (from ``start``, by default the number of query tokens — the rank of
the one-hot construction, docs/math.md §8), :func:`certify.bracket.factor.factor_search`
proposes float factors (first warm-started from the rank ``r + 1`` solution, then from
seeded random starts); each proposal is rounded to rationals with denominator ``2^k``
(``k`` = 10, 16, 24, 32 in turn) and checked exactly by ``certify check-kernel``'s
:func:`certify.kernels.audit.check_kernel` (every α ≥ 0 on a used pair, positive
denominators, and the exact readout LP). The first rank at which no proposal verifies
ends the search. An upper bound is claimed only for a table that the exact check
verified; its exact rank (from the factors, :mod:`certify.lemmas.frobenius`) is reported.

The work is counted in optimizer iterations (``budget``), never in seconds.
"""
from __future__ import annotations

import json
import os
from dataclasses import dataclass, field
from fractions import Fraction
from typing import Any, Callable

import numpy as np

from .factor import Geometry, factor_search, geometry, truncate

__all__ = ["DENOMINATORS", "Solution", "UpperResult", "rational_table", "verify_factors", "upper_side"]

DENOMINATORS = (2**10, 2**16, 2**24, 2**32)


@dataclass
class Solution:
    """A verified table: its rank bound ``r`` (the factor width), exact kernel rank, denominator, the table."""

    width: int
    kernel_rank: int
    denominator: int
    table: dict[str, Any]
    report: Any  # certify.kernels.audit.KernelReport
    seed: int | None
    iterations: int


@dataclass
class UpperResult:
    """The search's outcome: the best solution (or ``None``) and what was tried at each rank."""

    best: Solution | None
    tried: list[dict[str, Any]] = field(default_factory=list)
    iterations: int = 0


def rational_table(geo: Geometry, P: np.ndarray, Q: np.ndarray, denominator: int, m: int) -> dict[str, Any]:
    """The kernel table (docs/kernel-table-format.md) of factors rounded to multiples of ``1/denominator``.

    Every token of the family gets a row; a token that is never a query has ``φ_Q = 0``.
    Entries are exact rationals (strings ``"p/q"``), so the table is what is checked.
    """
    r = P.shape[1]
    qi = {x: i for i, x in enumerate(geo.queries)}
    ki = {z: j for j, z in enumerate(geo.keys)}
    tokens = list(geo.queries) + [z for z in geo.keys if z not in qi]

    def row(M: np.ndarray, i: int | None) -> list[str]:
        if i is None:
            return ["0"] * r
        return [str(Fraction(int(np.rint(v * denominator)), denominator)) for v in M[i]]

    return {
        "tokens": [format(t, f"0{m}b")[::-1] for t in tokens],
        "phi_q": [row(P, qi.get(t)) for t in tokens],
        "phi_k": [row(Q, ki.get(t)) for t in tokens],
        "note": f"certify bracket: rank-{r} factors rounded to multiples of 1/{denominator}",
    }


def verify_factors(family, geo: Geometry, P: np.ndarray, Q: np.ndarray) -> tuple[int, dict, Any] | None:
    """Round ``P``, ``Q`` with growing denominators until the exact check verifies; ``(denominator, table, report)``.

    ``None`` if no rounding verifies (a negative α on a used pair, or no readout exists).
    """
    from ..kernels.audit import check_kernel
    from ..kernels.table import KernelTable, TableFormatError

    for den in DENOMINATORS:
        table = rational_table(geo, P, Q, den, family.m)
        try:
            report = check_kernel(KernelTable.from_dict(table), family, search_readout=True)
        except TableFormatError:  # e.g. a rounded α slightly below 0: a finer grid may fix it
            continue
        if report.readout_exists and report.kernel_rank_bounds.exact:
            return den, table, report
    return None


def upper_side(family, *, seed: int = 0, restarts: int = 3, iterations: int = 20_000, start: int | None = None,
               lowest: int = 1, kappas: tuple[float, ...] = (1.02, 1.2), lr: float = 0.02, lr_end: float = 2e-4,
               warm_lr: float = 2e-3, progress: Callable[[str], None] | None = None) -> UpperResult:
    """Search ranks ``start, start − 1, …`` (down to ``lowest``) for a verified solving table.

    At each rank: the warm start (if a rank ``r + 1`` solution exists), then ``restarts``
    random starts with seeds ``seed, seed + 1, …``, each for ``iterations`` Adam steps
    and each margin ``κ`` in ``kappas``; the first verified proposal wins the rank.
    Total work ``≤ ranks × (restarts + 1) × len(kappas) × iterations`` iterations.
    A random start runs Adam with a step decaying from ``lr`` to ``lr_end`` (cosine); the
    warm start, already close to a solution, runs at the small constant step ``warm_lr``
    (a large step first throws it away: hadamard24's rank 33 → 32 repair needs it).
    """
    say = progress or (lambda text: None)
    geo = geometry(family)
    r = len(geo.queries) if start is None else start
    result = UpperResult(None)
    prev: tuple[np.ndarray, np.ndarray] | None = None
    while r >= lowest:
        found = None
        attempts = ([("warm", None)] if prev is not None else []) + [("seed", seed + k) for k in range(restarts)]
        for kind, s in attempts:
            for kappa in kappas:
                begin = truncate(*prev, r) if kind == "warm" else None
                steps = dict(lr=warm_lr) if kind == "warm" else dict(lr=lr, lr_end=lr_end)
                P, Q, used, loss = factor_search(geo, r, 0 if s is None else s, iterations, kappa=kappa, start=begin,
                                                 **steps)
                result.iterations += used
                say(f"rank {r}: {kind}{'' if s is None else ' ' + str(s)}, κ = {kappa}: {used:,} iterations, "
                    f"loss {loss:.2g}")
                if loss > 1e-6:  # far from feasible: rounding cannot help
                    continue
                checked = verify_factors(family, geo, P, Q)
                if checked is not None:
                    den, table, report = checked
                    found = Solution(r, report.kernel_rank, den, table, report, s, used)
                    break
            if found is not None:
                break
        result.tried.append({"rank": r, "verified": found is not None,
                             "seed": None if found is None else found.seed})
        if found is None:
            break
        result.best, prev = found, (P, Q)
        r = min(r, found.kernel_rank) - 1
    return result


def write_solution(solution: Solution, out_dir: str) -> str:
    """Write the verified table as ``rank<r>.table.json`` in ``out_dir``; return its path."""
    from ..certificates.producer import write_atomic

    os.makedirs(out_dir, exist_ok=True)
    path = os.path.join(out_dir, f"rank{solution.kernel_rank}.table.json")
    write_atomic(path, json.dumps(solution.table) + "\n")
    return path
