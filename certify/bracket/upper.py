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

Work is counted in optimizer iterations (``budget`` in all), never in seconds. Before the
search, :func:`search_estimate` turns the budget into entry-iterations (``budget`` × the
entries of the block searched, at the first rank's width) and, for the message only, into
seconds on the 2-core machine; a search estimated above :data:`MAX_SECONDS` (a day) is
refused (:class:`TooMuchWork`, exit 2) before it starts (issue 42).

``method="auto"`` (the command's default) picks the search by the block's size:
alternating projections (``boxes``) above :data:`AUTO_BOXES_ENTRIES` entries, Adam at or
below it (and Adam on PyTorch, where boxes do not run).
"""
from __future__ import annotations

import json
import os
from dataclasses import dataclass, field
from typing import Any, Callable

import numpy as np

from ..estimates import MAX_SECONDS, duration
from .descent import FLOOR, MAX_BLOCK, TOLERANCE, constraints, descend, exponential_start, random_start, truncate, violations
from .lift import checkable, verify_lifted
from .pieces import LARGE_CALL, matmul, svd_cost
from .reduced import Reduced, ReductionError, reduce_family

__all__ = ["BracketRangeError", "TooMuchWork", "Solution", "UpperResult", "upper_side", "write_solution",
           "search_estimate", "resolve_method", "AUTO_BOXES_ENTRIES", "MAX_SECONDS", "ENTRY_SECONDS", "WIDTH_SECONDS"]

#: ``--method auto``: the search by boxes above this many entries of the reduced matrix (queries × keys), Adam at or
#: below. Adam is the search of every documented family up to row ``m = 22`` (616 × 616 = 379,456 entries: found every
#: rank down to 70) and keeps their results; on golay24 (2,576 × 2,576 = 6.6 M) it had not converged after 1,500
#: iterations at width 126, where the boxes found every rank from 200 down to 155 in 251–1,061 iterations each
#: (docs/results.md, "Upper side"). Above :data:`MAX_BLOCK` only the boxes run (by roots).
AUTO_BOXES_ENTRIES = 2**20
#: The estimate's seconds per entry-iteration on the 2-core machine at factor width ``r``: ``ENTRY_SECONDS +
#: WIDTH_SECONDS · r`` (the pass over the conditions or the box, and the products of width ``r``), Adam and boxes alike
#: (``tests/benchmarks/bench_estimates.py``, 2026-12-03, beside other work: golay24 at widths 200 and 1,300, 0.6–2.6 s
#: per iteration, 0.4–1.1 times the estimate; row m = 22's 379,456 entries 1–3·10⁻⁷ s each at widths 13–300, Adam;
#: docs/performance.md, "certify bracket"). For the message only: the refusal is decided by the count, budget ×
#: entries, at the width.
ENTRY_SECONDS = 2e-7
WIDTH_SECONDS = 2e-10


class BracketRangeError(ValueError):
    """The requested ranks leave nothing to search, or start below the certified bound (exit 2)."""


class TooMuchWork(BracketRangeError):
    """The search's estimated work is more than :data:`MAX_SECONDS` on the 2-core machine (exit 2; the message gives
    the estimate and the options that lower it)."""


def resolve_method(method: str, entries: int, device: str = "numpy") -> str:
    """The search ``method`` means on a block of ``entries``: ``auto`` is ``boxes`` above :data:`AUTO_BOXES_ENTRIES`
    on numpy, else ``adam``; ``adam`` and ``boxes`` are themselves."""
    if method != "auto":
        return method
    return "boxes" if device == "numpy" and entries > AUTO_BOXES_ENTRIES else "adam"


def search_estimate(entries: int, budget: int, width: int) -> tuple[int, float]:
    """``(entry-iterations, seconds)``: ``budget`` iterations on a block of ``entries`` entries, and that in seconds on
    the 2-core machine at factor width ``width`` (:data:`ENTRY_SECONDS`, :data:`WIDTH_SECONDS`)."""
    work = budget * entries
    return work, work * (ENTRY_SECONDS + WIDTH_SECONDS * width)


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
    method: str = "adam"  # the search that ran (``auto`` resolved)
    estimate: dict[str, Any] | None = None  # search_estimate's figures: entries, width, entry-iterations, seconds


def upper_side(family, *, seed: int = 0, restarts: int = 0, iterations: int = 40_000, budget: int = 400_000,
               start: int | None = None, lowest: int | None = None, lr: float = 1e-2, lr_end: float = 1e-4,
               kappa: float = 1.02, device: str = "numpy", method: str = "auto",
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
    (:mod:`certify.bracket.descent_torch`). ``method``: ``adam``, or ``boxes`` for
    alternating projections onto a box of sufficient values (:mod:`certify.bracket.boxes`;
    numpy only, ``lr`` and ``kappa`` unused: the box has its own margin), one iteration of
    which counts as one of the budget; on a block above :data:`MAX_BLOCK` it searches by roots
    (:mod:`certify.bracket.rooted`, docs/math.md §12, Lemma 12.2), where Adam refuses; or
    ``auto`` (default): :func:`resolve_method`, and Adam when the family's box cannot be
    built (the refusal said in ``progress``) and the block fits the dense search.
    ``max_work``: the exact check's multiply-adds
    (``check-kernel --max-work``; default its limit). Raises :class:`TooMuchWork` when
    :func:`search_estimate` is above :data:`MAX_SECONDS` (not on ``device="cuda"``: a GPU
    iteration costs a fraction of the estimate's). ``progress(text)``: a line at every
    query of the reduction, every piece of a large truncated SVD and every iteration.
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
    if method not in ("adam", "boxes", "auto"):
        raise BracketRangeError(f"unknown --method {method!r} (adam, boxes or auto)")
    if method == "boxes" and device != "numpy":
        raise BracketRangeError("--method boxes runs on numpy only (--device numpy)")
    red = reduce_family(family, progress=say)
    chosen = resolve_method(method, red.shape[0] * red.shape[1], device)
    if method == "auto":
        say(f"--method auto: {chosen} on the {red.shape[0]:,} × {red.shape[1]:,} reduced matrix")
    rooted = None
    if red.shape[0] * red.shape[1] > MAX_BLOCK and chosen == "boxes":  # by roots (docs/math.md §12)
        from functools import partial

        from .boxes import project
        from .rooted import RootedSearch

        rooted = RootedSearch(red, say)
        con = rooted  # its shape is the roots' block's (the random starts')
        run = partial(_run_boxes, project, rooted.LO, rooted.HI, test=rooted.test)
        start_block = rooted.exponential_start()
    else:
        say(f"the conditions of the {red.shape[0]:,} × {red.shape[1]:,} reduced matrix")
        con = constraints(red)  # refuses a block above MAX_BLOCK (naming --method boxes)
        start_block = exponential_start(red)
    n1, n2 = start_block.shape
    if svd_cost(n1, n2) <= LARGE_CALL:  # the exponential start's SVD in one call (every family but the largest)
        U, s, Vt = np.linalg.svd(start_block, full_matrices=False)
        keep = int((s > s[0] * 1e-12).sum())
        best_pq = (U[:, :keep] * np.sqrt(s[:keep]), Vt[:keep].T * np.sqrt(s[:keep]))
    else:  # its numerical rank would need that SVD whole (golay24: seconds to minutes that Ctrl-C cannot stop)
        keep = min(n1, n2)
        best_pq = (start_block, None)  # truncated by pieces at the first rank (certify.bracket.pieces)
    top = min(start, keep) if start is not None else keep
    low = max(1, lowest if lowest is not None else (family.certified_bound or 1))
    if low > top:
        raise BracketRangeError(f"nothing to search: the lower end {low} is above the upper end {top} "
                                f"(the exponential start's rank is {keep})")
    lo = low - 1  # ranks ≤ lo: not searched
    width = top if start is not None else (lo + 1 + top) // 2  # the first rank tried
    work, seconds = search_estimate(con.shape[0] * con.shape[1], budget, width)
    estimate = {"entries": con.shape[0] * con.shape[1], "width": width, "entry_iterations": work,
                "seconds": round(seconds, 1)}
    if seconds > MAX_SECONDS and device != "cuda":
        raise TooMuchWork(f"the search's budget is about {duration(seconds)} on the 2-core machine (estimated: "
                          f"{budget:,} iterations × {con.shape[0]:,} × {con.shape[1]:,} entries = {work:.3g} "
                          f"entry-iterations of {chosen} at width {width:,}; docs/performance.md), more than a day: "
                          "lower --budget, or the width with --start-rank")
    say(f"estimated work: {work:.3g} entry-iterations of {chosen} at width {width:,}, at most {duration(seconds)}")
    if chosen == "boxes" and rooted is None:
        from functools import partial

        from .boxes import boxes, project

        try:
            LO, HI = boxes(red, con, progress=say)
            run = partial(_run_boxes, project, LO, HI)
        except ReductionError as exc:
            if method != "auto":
                raise
            chosen = "adam"  # the box is empty or its jumps cycle: the dense block fits Adam
            say(f"--method auto: no box ({exc}); adam instead")
    result = UpperResult(None, red, keep, top, low, method=chosen, estimate=estimate)
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
        attempts = [("warm", None, truncate(*warm, r, say))] + [("seed", seed + k, None) for k in range(restarts)]
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
    return violations(con, matmul(P, Q.T), kappa, FLOOR)[0]


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
