"""The upper side of the bracket: bisection on the reduced matrix between the two known ends (docs/math.md §12).

The two ends are known before any search: the certified lower bound ``L`` (no table of
rank below ``L`` solves the family) and the exponential start — ``A[S, k] = 2^{−(overlap
above the query's lowest)}`` on the reduced matrix, which meets Theorem 12.1 (b) at full
rank ``min(queries, keys)``. Between them the search bisects: at the middle rank it
warm-starts Adam (:func:`certify.bracket.descent.descend`) from the truncated SVD of the
best solution so far, runs at most ``iterations`` steps (then ``restarts`` seeded random
starts). A rank where the floats meet every condition is *found* and lowers the upper end;
one where they do not is *not found* — never impossible: only the certificate proves ranks
impossible. At the end the found solutions go to the exact check
(:func:`certify.bracket.lift.verify_lifted`), lowest rank first; the first table it
verifies is the upper bound, and its exact kernel rank is reported (a check of golay24 is
minutes of CPU, so found ranks above the verified one are not checked).

Work is counted in optimizer iterations (``budget`` in all), never in seconds.
"""
from __future__ import annotations

import json
import os
from dataclasses import dataclass, field
from typing import Any, Callable

import numpy as np

from .descent import FLOOR, MAX_BLOCK, TOLERANCE, constraints, descend, exponential_start, random_start, truncate, violations
from .lift import checkable, verify_lifted
from .reduced import Reduced, reduce_family

__all__ = ["BracketRangeError", "Solution", "UpperResult", "upper_side", "write_solution"]


class BracketRangeError(ValueError):
    """The requested ranks leave nothing to search, or start below the certified bound (exit 2)."""


@dataclass
class Solution:
    """A verified table: its factor width, exact kernel rank, denominator, the table and the check's report."""

    width: int
    kernel_rank: int
    denominator: int
    table: dict[str, Any]
    report: Any  # certify.kernels.report.KernelReport
    seed: int | None
    iterations: int
    key_denominator: int | None = None  # the key features' own (the search by roots), else the denominator's


@dataclass
class UpperResult:
    """The search's outcome: the best verified solution (or ``None``), every rank tried, the work done."""

    best: Solution | None
    reduced: Reduced
    exponential_rank: int  # the exponential start's numerical rank (the upper end before any search)
    start_rank: int  # the bisection's upper end: --start-rank, else the exponential start's rank
    lowest_rank: int  # its lower end: --lowest-rank, else the certified bound (else 1)
    tried: list[dict[str, Any]] = field(default_factory=list)
    iterations: int = 0
    budget_exhausted: bool = False
    by_roots: dict[str, int] | None = None  # the search by roots (docs/math.md §12, Lemma 12.2): roots, other keys, shared


def upper_side(family, *, seed: int = 0, restarts: int = 0, iterations: int = 40_000, budget: int = 400_000,
               start: int | None = None, lowest: int | None = None, lr: float = 1e-2, lr_end: float = 1e-4,
               kappa: float = 1.02, device: str = "numpy", method: str = "adam",
               max_work: int | None = None, progress: Callable[[str], None] | None = None) -> UpperResult:
    """Bisect ranks between ``lowest`` (default: the certified bound, else 1) and ``start`` (default: the exponential start's).

    At each rank: the warm start from the lowest solution found so far (truncated SVD),
    then ``restarts`` random starts (seeds ``seed, seed + 1, …``), each at most
    ``iterations`` Adam steps (the step falling from ``lr`` to ``lr_end`` along a cosine).
    Before any rank is found (the warm start is then the exponential start's truncation)
    the starts are taken in order of their loss at the first step, lowest first. With
    ``start`` the bisection tries that rank itself first (a large family's search can skip
    the costly high ranks). Stops when the two ends meet or ``budget`` iterations are
    spent; then the exact check runs on the found solutions, lowest first (module docstring).
    ``device``: ``numpy`` (default), or ``cpu``/``cuda`` for the same search on PyTorch
    (:mod:`certify.bracket.descent_torch`). ``method``: ``adam`` (default), or ``boxes`` for
    alternating projections onto a box of sufficient values (:mod:`certify.bracket.boxes`;
    numpy only, ``lr`` and ``kappa`` unused: the box has its own margin), one iteration of
    which counts as one of the budget; on a block above :data:`MAX_BLOCK` it searches by roots
    (:mod:`certify.bracket.rooted`, docs/math.md §12, Lemma 12.2), where Adam refuses.
    ``max_work``: the exact check's multiply-adds
    (``check-kernel --max-work``; default its limit).
    """
    say = progress or (lambda text: None)
    run = descend
    if device != "numpy":  # the same search on PyTorch (optional extra; docs/results.md, "Upper side")
        from functools import partial

        from .descent_torch import descend_torch, torch_device

        torch_device(device)  # refuse a missing torch or GPU before any work
        run = partial(descend_torch, device=device)
    if start is not None and family.certified_bound is not None and start < family.certified_bound:
        raise BracketRangeError(f"--start-rank {start} is below the certified bound r ≥ {family.certified_bound}: "
                                "no table of that rank solves the family")
    red = reduce_family(family)
    if method not in ("adam", "boxes"):
        raise BracketRangeError(f"unknown --method {method!r} (adam or boxes)")
    if method == "boxes" and device != "numpy":
        raise BracketRangeError("--method boxes runs on numpy only (--device numpy)")
    rooted = None
    if red.shape[0] * red.shape[1] > MAX_BLOCK and method == "boxes":  # by roots (docs/math.md §12)
        from functools import partial

        from .boxes import project
        from .rooted import RootedSearch

        rooted = RootedSearch(red)
        con = rooted  # its shape is the roots' block's (the random starts')
        run = partial(_run_boxes, project, rooted.LO, rooted.HI, test=rooted.test)
        start_block = rooted.exponential_start()
    else:
        con = constraints(red)  # refuses a block above MAX_BLOCK (naming --method boxes)
        start_block = exponential_start(red)
    if method == "boxes" and rooted is None:
        from functools import partial

        from .boxes import boxes, project

        LO, HI = boxes(red, con)
        run = partial(_run_boxes, project, LO, HI)
    U, s, Vt = np.linalg.svd(start_block, full_matrices=False)
    keep = int((s > s[0] * 1e-12).sum())
    best_pq = (U[:, :keep] * np.sqrt(s[:keep]), Vt[:keep].T * np.sqrt(s[:keep]))
    top = min(start, keep) if start is not None else keep
    low = max(1, lowest if lowest is not None else (family.certified_bound or 1))
    if low > top:
        raise BracketRangeError(f"nothing to search: the lower end {low} is above the upper end {top} "
                                f"(the exponential start's rank is {keep})")
    lo = low - 1  # ranks ≤ lo: not searched
    result = UpperResult(None, red, keep, top, low)
    if rooted is not None:
        users = np.diff(rooted.split.users_ptr)
        result.by_roots = {"roots": len(rooted.split.core), "other_keys": len(rooted.split.other),
                           "shared": int((users > 1).sum())}
    found: dict[int, tuple[np.ndarray, np.ndarray, int | None, int]] = {}  # rank → float solution, seed, iterations
    first = start is not None  # an explicit start rank is tried itself first
    while True:
        if found:
            top = min(top, min(found) - 1)
        if top <= lo:
            break
        if result.iterations >= budget:
            result.budget_exhausted = True
            break
        r = top if first else (lo + 1 + top) // 2
        first = False
        warm = found[min(found)][:2] if found else best_pq
        attempts = [("warm", None, truncate(*warm, r))] + [("seed", seed + k, None) for k in range(restarts)]
        if not found and restarts and rooted is None:  # from the exponential start: the closer start first (lower loss)
            attempts.sort(key=lambda a: _start_loss(con, r, a, kappa))
        hit = None
        for kind, s_, begin in attempts:
            left = budget - result.iterations
            if left <= 0:
                result.budget_exhausted = True
                break
            P, Q, used, loss = run(con, r, 0 if s_ is None else s_, min(iterations, left), start=begin, lr=lr,
                                       lr_end=lr_end, kappa=kappa,
                                       progress=lambda it, l: say(f"rank {r}: {kind} step {it:,}, loss {l:.3g}"))
            result.iterations += used
            if loss > TOLERANCE and left < iterations and used == left:  # this start was cut short by the budget
                result.budget_exhausted = True
            say(f"rank {r}: {kind}{'' if s_ is None else ' ' + str(s_)}: {used:,} iterations, loss {loss:.3g}")
            if loss <= TOLERANCE:
                hit = (P, Q, s_, used)
                break
        result.tried.append({"rank": r, "found": hit is not None, "verified": None})
        if hit is None:
            lo = r
        else:
            found[r] = hit
    # The exact check, lowest float solution first: the first table it verifies is the upper bound.
    for r in sorted(found):
        entry = next(t for t in result.tried if t["rank"] == r)
        P, Q, s_, used = found[r]
        if not checkable(red, r, max_work, family.streamed):
            entry["verified"] = "beyond the exact check's limits"
            continue
        outcome: dict = {}
        more = {} if rooted is None else {"candidates": rooted.roundings(P, Q), "holds": rooted.holds}
        checked = verify_lifted(family, red, None if rooted else con, P, Q, say, max_work, outcome, **more)
        entry["verified"] = (checked is not None if outcome["reached"] else
                             "no rounding kept the conditions in floats (nothing reached the exact check)")
        if checked is not None:
            den, table, report = checked
            result.best = Solution(r, report.kernel_rank, den, table, report, s_, used, outcome.get("key_denominator"))
            entry["kernel_rank"] = report.kernel_rank
            break
    return result


def _run_boxes(project, LO, HI, con, r, seed, iterations, *, start=None, progress=None, test=None, **_):
    """:func:`certify.bracket.boxes.project` with :func:`descend`'s signature (a seeded random start when none is given).

    ``test``: the stopping test (the search by roots'); else the conditions of ``con``."""
    begin = start if start is not None else random_start(con, r, seed)
    return project(None if test else con, LO, HI, r, iterations, start=begin, progress=progress, test=test)


def _start_loss(con, r: int, attempt, kappa: float) -> float:
    """The loss at an attempt's first step (the warm start's truncation, or the seed's random start)."""
    _, s_, begin = attempt
    P, Q = begin if begin is not None else random_start(con, r, s_)
    return violations(con, P @ Q.T, kappa, FLOOR)[0]


def write_solution(solution: Solution, out_dir: str) -> str:
    """Write the verified table as ``rank<r>.table.json`` in ``out_dir`` — or, when ``check-kernel`` would refuse to parse
    that JSON (:func:`certify.kernels.json_table.loads_json`: row ``m = 28``'s is 133 MiB, about 1.5 GB to parse), as
    ``rank<r>.table.npz`` with the same tokens and integers (int64) and ``beta`` as float64 (a dyadic number, exact;
    the note, a JSON field only, is left out); return its path."""
    from ..outputs import write_atomic
    from ..check import parse_memory_estimate
    from ..kernels import table as _table

    os.makedirs(out_dir, exist_ok=True)
    text = json.dumps(solution.table) + "\n"
    data = text.encode("utf-8")
    if len(data) <= _table.MAX_JSON_BYTES and parse_memory_estimate(data) <= 4 * _table.MAX_JSON_BYTES:
        path = os.path.join(out_dir, f"rank{solution.kernel_rank}.table.json")
        write_atomic(path, text)
        return path
    from fractions import Fraction

    t = solution.table
    arrays = {"tokens": np.array(t["tokens"]), "phi_q": np.array(t["phi_q"], dtype=np.int64),
              "phi_k": np.array(t["phi_k"], dtype=np.int64)}
    if "beta" in t:
        beta = [Fraction(b) for b in t["beta"]]
        arrays["beta"] = np.array([float(b) for b in beta])
        if any(Fraction(float(b)) != b for b in beta):  # the readout's shift is dyadic; never rounded
            raise ValueError("beta is not exact in float64")
        arrays["w"] = np.array(t["w"], dtype=np.int8)
        arrays["values"] = np.array(t["values"], dtype=np.int8)
    path = os.path.join(out_dir, f"rank{solution.kernel_rank}.table.npz")
    write_atomic(path, _table.npz_bytes(arrays))
    return path
