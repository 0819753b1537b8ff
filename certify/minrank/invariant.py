"""Invariant kernels of low rank that solve every length-3 input: the LP producer (docs/math.md §11, issue 44).

The search works on the blocks of a kernel invariant under ``S_{a_1} × … × S_{a_p}``
(:mod:`certify.minrank.terwilliger`). With the blocks' right factors ``V_κ`` fixed, the row
condition (docs/math.md §11, Lemma I2) is, for each query weight tuple ``w`` separately, a
small LP in the ``w``-th rows of the blocks; every strict inequality gets a margin ``δ_w``
(the value on the query's own cell is 1), which the LP maximizes up to a cap. The stages:

1. **top blocks** — the least ``K`` such that blocks ``κ`` with every ``k_l ≤ K`` admit a
   solution (all blocks free);
2. **ranks** — block by block, largest multiplicity first: the block is freed, the LP is
   solved by an interior-point method without crossover (a central solution, whose
   singular values fall fast), and the block is replaced by its leading right singular
   vectors, as few as keep every row feasible (a binary search: the truncations are nested;
   each probe solves only the rows of the block's index — the other rows' LPs do not involve
   it — and stops at the first row that fails); ``passes`` rounds (2 by default);
2b. **squeeze** — block by block, the rank lowered by one from the truncated SVD and repaired by
   sequential linear programming: one LP in the left and right factors together, their
   products linearized at the current point within a trust region, solved by the interior-point
   method without crossover (at m = 14 one such LP takes 2.5 s of CPU, against 86 s by simplex),
   accepted when the margins improve; kept while every ``δ_w`` reaches :data:`DEFAULT_FLOOR`;
2'. **given ranks** (``ranks=``, instead of 2 and 2b) — the blocks listed and no others, each
   cut from the central solution to its given rank by the truncated SVD (rank 0: the block is
   zero), then repaired by the joint SLP of 2b, at most :data:`AIM_STEPS` steps;
2''. **from a certificate** (``start=``, instead of 1, 2 and 2') — its parts and blocks; with ``ranks``, the
   blocks listed are lowered to them (the others kept), else the squeeze (2b) runs on them.

A cut block is repaired (``repair=``) by the joint SLP (``"joint"``), by a descent on the rows' margins as LP
value functions of the right factors (``"descent"``, :mod:`certify.minrank.descent`; from a certificate, and in
the squeeze, a block then loses a direction gradually, :func:`certify.minrank.descent.lower`), or by both in turn.

3. **exact** — the right factors are rounded to dyadic rationals, the rows re-solved and
   rounded, and the blocks written as integer-scaled factors; the certificate is then
   checked by ``certify/check_symmetric.py`` — only what it accepts is returned.

HiGHS (package ``highspy``, the extra ``highs``) solves the LPs in floating point;
the floats only propose. Without it, :func:`search` raises :class:`HighsUnavailable`.

Where the work goes is said stage by stage (``say``): the row LPs and the joint LPs of each stage,
their CPU seconds and the joint LPs' average size (:class:`Tally`; docs/performance.md quotes them).

The work can be bounded by a :class:`Budget` of LP solves (``search(budget=…)``; the partition
chooser :mod:`certify.minrank.partitions` shares one among its candidates): where it runs out in
stage 2 or 2b, the blocks reached so far (feasible ones: a block being tried is put back) go to
stage 3, whose solves are not counted.
"""
from __future__ import annotations

import math
import time
from fractions import Fraction
from typing import Any, Callable

from .descent import DESCENT_STEPS
from .terwilliger import Algebra, part_tops

__all__ = ["HighsUnavailable", "NoSolution", "BudgetSpent", "Budget", "Tally", "search", "feasible", "least_top",
           "parse_ranks", "DEFAULT_MARGIN", "AIM_STEPS", "REPAIRS"]

#: The margin every strict inequality of the row condition gets, relative to the query's own value 1.
DEFAULT_MARGIN = 0.05
#: The least margin a squeezed solution may keep (stage 2b): enough for the exact rounding at 2^-24.
DEFAULT_FLOOR = 0.002
#: A fixed block of at least this rank enters a row's LP through its own entries, tied to its factors by one equation
#: per key (``_State.solve_row``); below it, through its factors in every cell.
SPAN_RANK = 3
#: Trust-region steps of the joint SLP when the block ranks are given (``search(ranks=…)``).
AIM_STEPS = 200
#: How a cut block is repaired (``search(repair=…)``; :func:`_repair`).
REPAIRS = ("joint", "descent", "both")


class HighsUnavailable(ImportError):
    """The optional LP solver HiGHS (``highspy``) is not installed."""


class NoSolution(ValueError):
    """No certificate: the LP found no solution, or its exact rounding did not pass the checker."""


class BudgetSpent(NoSolution):
    """The budget of LP solves (:class:`Budget`) ran out before the search ended."""


class Budget:
    """A number of LP solves (HiGHS runs), shared by every search and test that is given it; ``None``: no limit.

    The work of the search is counted in these, never in seconds: :meth:`spend` is called before each
    solve and raises :class:`BudgetSpent` once ``solves`` have been made.
    """

    def __init__(self, solves: int | None = None) -> None:
        self.limit, self.used = solves, 0

    def spend(self) -> None:
        if self.limit is not None and self.used >= self.limit:
            raise BudgetSpent(f"the budget of {self.limit:,} LP solves is spent")
        self.used += 1


def _highs():
    try:
        from highspy import _core  # the bare solver class prints no banner
    except ImportError:
        raise HighsUnavailable("the invariant-kernel search needs HiGHS: pip install highspy (the extra highs: "
                               "pip install '.[highs]' in the checkout)") \
            from None
    return _core


class _LP:
    """One LP over the row condition of some query rows: ``f`` on each key cell is a linear form in the variables."""

    def __init__(self, nvar: int) -> None:
        self.n = nvar
        self.r: list[int] = []
        self.c: list[int] = []
        self.v: list[float] = []
        self.lo: list[float] = []
        self.hi: list[float] = []
        self.deltas: list[int] = []

    def var(self) -> int:
        self.n += 1
        return self.n - 1

    def row(self, terms, lo: float, hi: float) -> None:
        k = len(self.lo)
        for c, v in terms:
            self.r.append(k)
            self.c.append(c)
            self.v.append(v)
        self.lo.append(lo)
        self.hi.append(hi)

    def condition(self, top: int, forms: list[tuple], diagonal: tuple, inf: float) -> None:
        """Lemma I2 for one query: ``f(diag) = 1``, ``f ≥ δ``, and ``lo_T − (d−1)·hi_s − δ ≥ (d−2)/2``.

        ``forms``: ``(level, terms, constant)`` per key cell — ``f = Σ coefficient·variable + constant``.
        """
        d = self.var()
        self.deltas.append(d)
        terms, constant = diagonal
        self.row(terms, 1.0 - constant, 1.0 - constant)
        lo = {T: self.var() for T in range(top - 1)}
        hi = {s: self.var() for s in range(2, top + 1)}
        for level, terms, constant in forms:
            self.row(terms + [(d, -1.0)], -constant, inf)
            if level in lo:
                self.row(terms + [(lo[level], -1.0)], -constant, inf)
            if level in hi:
                self.row(terms + [(hi[level], -1.0)], -inf, -constant)
        for T in lo:
            for s in range(T + 2, top + 1):
                self.row([(lo[T], 1.0), (hi[s], -(s - T - 1.0)), (d, -1.0)], (s - T - 2) / 2, inf)

    def solve(self, core, cap: float, central: bool, bound: float = 1e6, box=None, duals: list | None = None):
        """Maximize ``Σ δ + (number of δ)·min δ`` (each δ at most ``cap``); the solution and the least ``δ``.

        ``box``: ``(lower, upper)`` arrays for the first variables (a trust region). ``duals``: a list that gets the
        rows' dual values (HiGHS's sign: the objective minimized is ``−Σ δ − (number of δ)·min δ``).
        ``(None, None)`` on failure.
        """
        import numpy as np

        least = self.var()
        for d in self.deltas:
            self.row([(least, 1.0), (d, -1.0)], -core.kHighsInf, 0.0)
        r = np.asarray(self.r, dtype=np.int64)
        order = np.lexsort((np.asarray(self.c), r))
        lp = core.HighsLp()
        lp.num_col_, lp.num_row_ = self.n, len(self.lo)
        cost = np.zeros(self.n)
        lower, upper = np.full(self.n, -bound), np.full(self.n, bound)
        if box is not None:
            lower[:len(box[0])], upper[:len(box[1])] = box
        for d in self.deltas:
            cost[d], lower[d], upper[d] = -1.0, -bound, cap
        cost[least], lower[least], upper[least] = -float(len(self.deltas)), -bound, cap
        lp.col_cost_, lp.col_lower_, lp.col_upper_ = cost, lower, upper
        lp.row_lower_, lp.row_upper_ = np.asarray(self.lo), np.asarray(self.hi)
        lp.a_matrix_.format_ = core.MatrixFormat.kRowwise
        lp.a_matrix_.start_ = np.searchsorted(r[order], np.arange(len(self.lo) + 1)).astype(np.int32)
        lp.a_matrix_.index_ = np.asarray(self.c, dtype=np.int32)[order]
        lp.a_matrix_.value_ = np.asarray(self.v)[order]
        h = core._Highs()
        h.setOptionValue("output_flag", False)
        h.setOptionValue("threads", 1)
        h.setOptionValue("random_seed", 0)
        if central:
            h.setOptionValue("solver", "ipm")
            h.setOptionValue("run_crossover", "off")
        h.passModel(lp)
        h.run()
        if h.getModelStatus() not in (core.HighsModelStatus.kOptimal, core.HighsModelStatus.kUnknown):
            return None, None
        solution = h.getSolution()
        x = list(solution.col_value)
        if duals is not None:
            duals[:] = solution.row_dual
        return x, min(x[d] for d in self.deltas)


class Tally:
    """Where a search's work goes: per kind of LP (``"row"``: one query row's, ``"joint"``: a repair step's), the
    solves, their CPU seconds (HiGHS's run and the LP's assembly) and their sizes; read by :meth:`line`."""

    def __init__(self) -> None:
        self.solves = {"row": 0, "joint": 0}
        self.seconds = {"row": 0.0, "joint": 0.0}
        self.rows = {"row": 0, "joint": 0}
        self.nonzeros = {"row": 0, "joint": 0}

    def add(self, kind: str, seconds: float, lp: "_LP") -> None:
        self.solves[kind] += 1
        self.seconds[kind] += seconds
        self.rows[kind] += len(lp.lo)
        self.nonzeros[kind] += len(lp.v)

    def snapshot(self) -> tuple[dict, dict, float]:
        """The counts so far and the process's CPU clock: where a stage starts."""
        return dict(self.solves), dict(self.seconds), time.process_time()

    def line(self, since: tuple[dict, dict, float]) -> str:
        """``"N row LPs (S s of CPU, A ms each), M joint LPs (…, R rows and Z nonzeros on average); T s of CPU in
        all"`` since the :meth:`snapshot` ``since`` (sizes are averages over the whole search)."""
        solves, seconds, clock = since
        parts = []
        for kind, name in (("row", "row LPs"), ("joint", "joint LPs")):
            n, t = self.solves[kind] - solves[kind], self.seconds[kind] - seconds[kind]
            if n:
                size = (f", {self.rows[kind] // self.solves[kind]:,} rows and "
                        f"{self.nonzeros[kind] // self.solves[kind]:,} nonzeros on average") if kind == "joint" else ""
                parts.append(f"{n:,} {name} ({t:.1f} s of CPU, {1000 * t / n:.0f} ms each{size})")
        return f"{', '.join(parts) or 'no LPs'}; {time.process_time() - clock:.1f} s of CPU in all"


class _State:
    """The blocks being searched: per block either free (``None``) or a fixed right factor ``V_κ`` of some rank."""

    def __init__(self, alg: Algebra, budget: Budget | None = None, repair: str = "joint",
                 descent_steps: int = DESCENT_STEPS, cut_at_once: int = 1) -> None:
        self.alg = alg
        self.repair = repair  # how a cut block is repaired (_repair)
        self.descent_steps = descent_steps  # the descent's steps per rank lowered (search(descent_steps=…))
        self.cut_at_once = cut_at_once  # the ranks one gradual cut of the descent lowers (search(cut_at_once=…))
        # columns of the left factors held within bounds per row: {(κ, column): {w: bound}} (the descent's gradual
        # cut, certify.minrank.descent.lower)
        self.bounds: dict[tuple, dict] = {}
        self.budget = budget if budget is not None else Budget()
        self.tally = Tally()
        self.rank: dict[tuple, int | None] = {k: None for k in alg.kappas}
        self.right: dict[tuple, Any] = {}
        self.floats = {w: [(c.j, c.level, {k: float(v) for k, v in c.coefficients.items()}) for c in cells]
                       for w, cells in alg.cells.items()}

    def solve_row(self, core, w, cap: float, central: bool, gradient: dict | None = None):
        """Row ``w``'s LP; returns ``(variables, values, least δ)``.

        A fixed block of rank ``r`` enters each cell as ``Σ_r u_r V[j, r]``. From rank :data:`SPAN_RANK` on, the
        row's entries ``g_j`` of that block are variables of their own, tied to ``u`` by one equation per key
        ``j`` (``g_j = Σ_r u_r V[j, r]``): the same LP, with each cell's form one term long instead of ``r``
        (at ``m = 42`` a row has about a thousand key cells against some eighty keys per block).

        ``gradient``: every fixed block enters through its entries (the same LP), and the dict gets, per block ``κ`` and
        key ``j``, the derivative of the row's ``δ`` in ``V_κ[j, ·]``: the tie's dual times ``u`` over 2 (the objective
        counts the row's one ``δ`` twice), by the envelope theorem where the solution is unique
        (:mod:`certify.minrank.descent` steps by it)."""
        alg, index, started = self.alg, {}, time.process_time()
        span = 1 if gradient is not None else SPAN_RANK

        def var(key):
            return index.setdefault(key, len(index))

        forms, diagonal, spans = [], None, {}
        for j, level, coefficients in self.floats[w]:
            terms = []
            for k, c in coefficients.items():
                rank = self.rank[k]
                if rank is None:
                    terms.append((var((k, j)), c))
                elif rank >= span:
                    terms.append((var(("g", k, j)), c))
                    spans.setdefault(k, set()).add(j)
                else:
                    row = self.right[k][alg.position[k][j]]
                    terms.extend((var((k, r)), c * row[r]) for r in range(rank) if row[r] != 0)
            forms.append((level, terms, 0.0))
            if j == w and level == sum(w):
                diagonal = (terms, 0.0)
        ties, tied = [], []
        for k, keys in spans.items():
            for j in sorted(keys):
                row = self.right[k][alg.position[k][j]]
                ties.append([(index["g", k, j], -1.0)] + [(var((k, r)), float(row[r])) for r in range(self.rank[k])
                                                                if row[r] != 0 or gradient is not None])
                tied.append((k, j))
        lp = _LP(len(index))
        for terms in ties:
            lp.row(terms, 0.0, 0.0)
        for (k, column), bounds in self.bounds.items():
            if w in bounds and (k, column) in index:
                lp.row([(index[k, column], 1.0)], -bounds[w], bounds[w])
        lp.condition(sum(w), forms, diagonal, core.kHighsInf)
        self.budget.spend()
        duals: list = []
        x, least = lp.solve(core, cap, central, duals=duals if gradient is not None else None)
        self.tally.add("row", time.process_time() - started, lp)
        if gradient is not None and x is not None:
            for y, (k, j) in zip(duals, tied):
                gradient[k, j] = [y * x[index[k, r]] / 2 for r in range(self.rank[k])]
        return index, x, least

    def solve(self, core, cap: float, central: bool, rows=None, stop_below: float | None = None):
        """Every row (or those of ``rows``): the blocks ``G_κ`` (free ones solved, fixed ones ``U Vᵀ``; only the
        rows solved are filled in), the left factors, the least ``δ``. ``stop_below``: stop at the first row whose
        ``δ`` is below it (stage 2's probes: one such row rules the probe out; the blocks are then incomplete)."""
        import numpy as np

        alg = self.alg
        full = {k: np.zeros((len(alg.index[k]),) * 2) for k in alg.kappas}
        left = {k: np.zeros((len(alg.index[k]), self.rank[k] or 0)) for k in alg.kappas}
        least = np.inf
        for w in alg.rows if rows is None else rows:
            index, x, worst = self.solve_row(core, w, cap, central)
            if x is None:
                return None, None, -np.inf
            least = min(least, worst)
            if stop_below is not None and least < stop_below:
                break
            for key, n in index.items():
                k = key[0]
                if k == "g" or w not in alg.position[k]:  # a fixed block's own entries: its factors say them
                    continue
                if self.rank[k] is None:
                    full[k][alg.position[k][w], alg.position[k][key[1]]] = x[n]
                else:
                    left[k][alg.position[k][w], key[1]] = x[n]
        for k in alg.kappas:
            if self.rank[k] is not None:
                full[k] = left[k] @ self.right[k].T
        return full, left, least


def feasible(parts: tuple[int, ...], tops: tuple[int, ...], core=None, margin: float = DEFAULT_MARGIN,
             budget: Budget | None = None) -> bool:
    """Whether the row condition (docs/math.md §11, Lemma 11.8) has a solution, every strict inequality with margin
    ``margin``, when every block ``κ`` with some ``k_l > tops[l]`` is zero and the others are free: one LP per query
    weight tuple (``Π_l (a_l + 1)`` solves, counted in ``budget``). Floating point: a finding, not a proof — its
    exact counterpart is a certificate that ``certify/check_symmetric.py`` accepts."""
    core = core or _highs()
    state = _State(Algebra(tuple(parts), tuple(tops)), budget)
    return state.solve(core, 2 * margin, False)[2] >= margin


def least_top(parts: tuple[int, ...], core=None, margin: float = DEFAULT_MARGIN, most: int | None = None,
              budget: Budget | None = None) -> int:
    """The least ``K`` for which blocks with every ``k_l ≤ K`` admit a solution (stage 1)."""
    core = core or _highs()
    for top in range(0, (most if most is not None else max(parts) // 2) + 1):
        if feasible(parts, part_tops(parts, top), core, margin, budget):
            return top
    raise NoSolution(f"parts {list(parts)}: no solution with blocks up to {most}")


def _lower_ranks(state: _State, core, margin: float, passes: int, say) -> None:
    """Stage 2: each block in turn freed, solved centrally, cut to its leading singular vectors (module docstring)."""
    import numpy as np

    alg = state.alg
    order = sorted(alg.kappas, key=lambda k: (-alg.multiplicity(k), k))
    # Every row feasible at the start: from here on, a change to block κ is tested on the rows of κ's index alone
    # (the others' LPs do not involve it).
    try:
        first = state.solve(core, 2 * margin, True)[2]
    except BudgetSpent:  # every block still free: fixed at full rank for the rounding
        _fix_free(state)
        raise
    if first < margin:
        raise NoSolution(f"parts {list(alg.parts)}: no solution with blocks up to {alg.tops} (margin {margin})")
    for sweep in range(passes):
        for k in order:
            before = (state.rank[k], state.right.get(k))
            try:
                state.rank[k] = None
                full, _, least = state.solve(core, 2 * margin, True, alg.index[k])
                if full is None or least < margin:
                    state.rank[k], state.right[k] = before
                    continue
                _, _, vt = np.linalg.svd(full[k])
                state.rank[k], state.right[k] = before
                known: dict[int, bool] = {}

                def fits(r: int) -> bool:  # the leading r right singular vectors: nested, so feasibility is monotone
                    state.rank[k], state.right[k] = r, vt[:r].T.copy()
                    if r not in known:
                        known[r] = state.solve(core, 2 * margin, True, alg.index[k], stop_below=margin)[2] >= margin
                    return known[r]

                low, high = 1, (before[0] or len(alg.index[k])) + 1  # the least feasible r is in [low, high)
                while low < high:
                    mid = (low + high) // 2
                    if fits(mid):
                        high = mid
                    else:
                        low = mid + 1
                if low <= (before[0] or len(alg.index[k])) and fits(low):
                    pass
                else:
                    state.rank[k], state.right[k] = before
                    _fix_free(state, k)
                say(f"pass {sweep + 1}, block {k} (×{alg.multiplicity(k):,}): rank {state.rank[k]}, "
                    f"total {_total(state):,}")
            except BudgetSpent:  # the state as before this block, every block fixed: ready for the rounding
                state.rank[k], state.right[k] = before
                _fix_free(state)
                raise


def _fix_free(state: _State, only: tuple | None = None) -> None:
    """A free block (rank ``None``) as a fixed one of full rank, the identity as its right factor (the same
    solutions); ``only``: that block alone."""
    import numpy as np

    for k in [only] if only is not None else state.alg.kappas:
        if state.rank[k] is None or state.right.get(k) is None:
            n = len(state.alg.index[k])
            state.rank[k], state.right[k] = n, np.eye(n)


def _margins(state: _State, core, cap: float):
    """With the right factors fixed: each row's left factors and its margin ``δ_w`` (``None`` if a row fails)."""
    import numpy as np

    alg, left, deltas = state.alg, {}, {}
    for w in alg.rows:
        index, x, least = state.solve_row(core, w, cap, False)
        if x is None:
            return None, None
        left[w] = {k: np.array([x[index[k, r]] if (k, r) in index else 0.0 for r in range(state.rank[k])])
                   for k in alg.kappas if w in alg.position[k]}
        deltas[w] = least
    return left, deltas


def _score(deltas: dict, cap: float) -> float:
    return sum(min(d, cap) for d in deltas.values()) + len(deltas) * min(deltas.values())


def _joint_step(state: _State, core, left: dict, rho: float, cap: float):
    """One LP in the left and right factors together, the products linearized at the current point, each factor
    within ``rho`` (relative) of it: new right factors, or ``None``. Each block's entry ``g = u·v`` of a row is a
    variable tied to the factors by one linearized equation, so that a key cell's form is one term per block."""
    import numpy as np

    alg, index, started = state.alg, {}, time.process_time()
    for w in alg.rows:
        for k in left[w]:
            for r in range(state.rank[k]):
                index.setdefault(("U", w, k, r), len(index))
    for k in alg.kappas:
        for j in alg.index[k]:
            for r in range(state.rank[k]):
                index.setdefault(("V", k, j, r), len(index))
    lp = _LP(len(index))
    for w in alg.rows:
        forms, diagonal, entries = [], None, {}
        for j, level, coefficients in state.floats[w]:
            terms = []  # each block's entry of the row at j is a variable of its own
            for k, c in coefficients.items():
                v0, u0 = state.right[k][alg.position[k][j]], left[w][k]
                if (k, j) not in entries:  # g = u0·v + u·v0 − u0·v0 (u·v linearized), one equation per entry
                    g = entries[k, j] = lp.var()
                    lp.row([(index["V", k, j, r], u0[r]) for r in range(state.rank[k])]
                           + [(index["U", w, k, r], v0[r]) for r in range(state.rank[k])] + [(g, -1.0)],
                           float(u0 @ v0), float(u0 @ v0))
                terms.append((entries[k, j], c))
            forms.append((level, terms, 0.0))
            if j == w and level == sum(w):
                diagonal = (terms, 0.0)
        lp.condition(sum(w), forms, diagonal, core.kHighsInf)
    now = np.zeros(len(index))
    for key, n in index.items():
        now[n] = left[key[1]][key[2]][key[3]] if key[0] == "U" else state.right[key[1]][alg.position[key[1]][key[2]]][key[3]]
    step = rho * np.maximum(np.abs(now), 1e-3)
    state.budget.spend()
    x, _ = lp.solve(core, cap, True, box=(now - step, now + step))  # interior point: ~30× faster than simplex here
    state.tally.add("joint", time.process_time() - started, lp)
    if x is None:
        return None
    return {k: np.array([[x[index["V", k, j, r]] for r in range(state.rank[k])] for j in alg.index[k]])
            for k in alg.kappas}


def _joint(state: _State, core, cap: float, floor: float, iters: int, say=None) -> bool:
    """Sequential linear programming on the bilinear problem (trust region): whether every ``δ_w ≥ floor``;
    ``say``: one line per step (the least margin and the trust region)."""
    left, deltas = _margins(state, core, cap)
    if left is None:
        return False
    score, rho = _score(deltas, cap), 0.5
    for step in range(iters):
        if min(deltas.values()) >= floor or rho < 1e-5:
            break
        right = _joint_step(state, core, left, rho, cap)
        if right is None:
            rho /= 2
        else:
            before, state.right = state.right, right
            new_left, new_deltas = _margins(state, core, cap)
            if new_left is not None and _score(new_deltas, cap) > score + 1e-9:
                left, deltas, score, rho = new_left, new_deltas, _score(new_deltas, cap), min(2 * rho, 2.0)
            else:
                state.right, rho = before, rho / 2
        if say is not None:
            say(f"step {step + 1}/{iters}: least margin {min(deltas.values()):.4g} (wanted {floor:.4g}), "
                f"trust region {rho:.3g}")
    return min(deltas.values()) >= floor


def _repair(state: _State, core, cap: float, floor: float, iters: int, say=None) -> bool:
    """Move the right factors until every ``δ_w ≥ floor`` (whether reached), by ``state.repair``: ``"joint"`` the
    joint SLP (:func:`_joint`, ``iters`` steps); ``"descent"`` the rows' value functions
    (:func:`certify.minrank.descent.descend`, ``state.descent_steps`` steps); ``"both"``
    the descent, then the joint SLP from where it stopped."""
    from .descent import descend

    if state.repair in ("descent", "both") and descend(state, core, cap, floor, state.descent_steps, say):
        return True
    return state.repair != "descent" and _joint(state, core, cap, floor, iters, say)


def _cut(state: _State, core, kappa, target: int, margin: float, floor: float, say, finish, prefix: str = "") -> bool:
    """Lower block ``κ`` towards rank ``target`` by :func:`certify.minrank.descent.lower`, ``state.cut_at_once``
    ranks per gradual cut (never below ``target``; a cut of several that fails is tried again with half as many);
    whether ``target`` was reached. Each rank reached is said, after ``prefix``."""
    from .descent import lower

    alg, chunk = state.alg, state.cut_at_once
    while state.rank[kappa] > target:
        count = min(chunk, state.rank[kappa] - target)
        if lower(state, core, kappa, 2 * margin, floor, state.descent_steps, say, finish, count=count):
            say(f"{prefix}block {kappa} (×{alg.multiplicity(kappa):,}): rank {state.rank[kappa]}, "
                f"total {_total(state):,}")
        elif count == 1:
            return False
        else:
            chunk = count // 2
    return True


def _squeeze(state: _State, core, margin: float, floor: float, iters: int, say, blocks: int | None = None) -> None:
    """Stage 2b: lower each block's rank one at a time, each try repaired by :func:`_joint` (module docstring), or,
    with ``state.repair`` ``"descent"`` or ``"both"``, by :func:`certify.minrank.descent.lower` (:func:`_cut`:
    ``state.cut_at_once`` ranks per gradual cut); ``blocks``: only that many blocks, those of the largest
    multiplicities."""
    import numpy as np

    alg = state.alg
    for k in sorted(alg.kappas, key=lambda k: (-alg.multiplicity(k), k))[:blocks]:
        if state.repair != "joint":
            finish = (lambda: _joint(state, core, 2 * margin, floor, iters)) if state.repair == "both" else None
            _cut(state, core, k, 1, margin, floor, say, finish, "squeeze, ")
            continue
        while state.rank[k] > 1:
            full, _, least = state.solve(core, 2 * margin, True)
            if full is None:
                return
            saved = (dict(state.rank), dict(state.right))
            _, _, vt = np.linalg.svd(full[k])
            state.rank[k], state.right[k] = state.rank[k] - 1, vt[:state.rank[k] - 1].T.copy()
            try:
                repaired = _joint(state, core, 2 * margin, floor, iters)
            except BudgetSpent:  # back to the last feasible blocks, for the rounding
                state.rank, state.right = saved
                raise
            if not repaired:
                state.rank, state.right = saved
                break
            say(f"squeeze, block {k} (×{alg.multiplicity(k):,}): rank {state.rank[k]}, total {_total(state):,}")


def parse_ranks(text: str, parts: tuple[int, ...]) -> dict[tuple[int, ...], int]:
    """``"0.0=3,0.1=3,1.0=1,1.1=1"``: a rank per block ``(k_1, …, k_p)`` (indices joined by dots, one per part).

    Every index must be a block of ``parts`` (``0 ≤ k_l ≤ ⌊a_l/2⌋``), listed once, with a rank from 0 to the
    block's size; blocks not listed are zero. Raises :class:`ValueError` with a one-line reason.
    """
    parts = tuple(parts)
    if len(text) > 10_000:
        raise ValueError("ranks: longer than 10,000 characters")
    out: dict[tuple[int, ...], int] = {}
    for item in text.split(","):
        index, sep, rank = item.strip().partition("=")
        try:
            kappa = tuple(int(k) for k in index.split("."))
            r = int(rank)
        except ValueError:
            raise ValueError(f"ranks: {item.strip()!r} is not K1.K2…=RANK (e.g. 0.1=3)") from None
        if not sep or len(kappa) != len(parts):
            raise ValueError(f"ranks: {item.strip()!r} needs one block index per part ({len(parts)}) and =RANK")
        if any(not 0 <= k <= a // 2 for k, a in zip(kappa, parts)):
            raise ValueError(f"ranks: block {kappa} is not a block of parts {list(parts)} (each k at most a/2)")
        if kappa in out:
            raise ValueError(f"ranks: block {kappa} is listed twice")
        size = math.prod(a - 2 * k + 1 for k, a in zip(kappa, parts))
        if not 0 <= r <= size:
            raise ValueError(f"ranks: block {kappa} has size {size}; its rank must be 0 … {size}, not {r}")
        out[kappa] = r
    if not any(out.values()):
        raise ValueError("ranks: every listed block has rank 0")
    return out


def _aim(state: _State, core, ranks: dict, margin: float, floor: float, steps: int, say, keep: bool = False) -> None:
    """Stage 2': the central solution's blocks cut to the given ranks, then repaired (module docstring); ``keep``:
    the blocks not listed keep their ranks (a search from a certificate) instead of being zero."""
    import numpy as np

    alg = state.alg
    if keep and state.repair != "joint":  # from a certificate: gradually, state.cut_at_once ranks a cut (_cut)
        for k in sorted(ranks, key=lambda k: (-alg.multiplicity(k), k)):
            finish = (lambda: _joint(state, core, 2 * margin, floor, steps, say)) if state.repair == "both" else None
            if state.rank.get(k, 0) > ranks[k] and not _cut(state, core, k, ranks[k], margin, floor, say, finish):
                raise NoSolution(f"parts {list(alg.parts)}: block {k} not lowered to rank {state.rank[k] - 1} "
                                 f"(total {_total(state) - alg.multiplicity(k):,}) by the repair {state.repair}")
        say(f"the given ranks reached, total {_total(state):,}")
        return
    full, _, least = state.solve(core, 2 * margin, True)
    if full is None or least < (floor if keep else margin):
        raise NoSolution(f"parts {list(alg.parts)}: no solution even with the listed blocks free "
                         f"(least margin {least:.3g}, wanted {floor if keep else margin})")
    for k in alg.kappas:
        if keep and k not in ranks:
            continue
        r = ranks.get(k, 0)
        _, _, vt = np.linalg.svd(full[k])
        state.rank[k], state.right[k] = r, vt[:r].T.copy()
    say(f"blocks cut to the given ranks, total {_total(state):,}")
    if not (_joint(state, core, 2 * margin, floor, steps, say) if keep else
            _repair(state, core, 2 * margin, floor, steps, say)):
        raise NoSolution(f"parts {list(alg.parts)}: the given ranks (total {_total(state):,}) were not reached "
                         f"(repair {state.repair})")
    say(f"the given ranks reached, total {_total(state):,}")


def _started(doc: dict, parts: tuple[int, ...], ranks: dict | None, budget: Budget | None,
             max_work: int | None, **how: Any) -> _State:
    """The blocks of a certificate as the search's state: each right factor unscaled (``σ``) and its columns
    normalized; blocks it lacks have rank 0; ``how``: the repair's settings (:class:`_State`). Refuses (``ValueError``, one line) a certificate the checker refuses,
    of other parts, or ``ranks`` above the certificate's."""
    import numpy as np

    from ..check import CertificateError
    from ..check_symmetric import check

    try:
        check(doc, max_work=max_work)
    except CertificateError as exc:
        raise ValueError(f"the start certificate is refused: {exc}") from None
    if list(doc["parts"]) != list(parts):
        raise ValueError(f"the start certificate has parts {doc['parts']}, not {list(parts)}")
    have = {tuple(b["index"]): b for b in doc["blocks"] if b["rank"] > 0}
    for k, r in (ranks or {}).items():
        if r > (have[k]["rank"] if k in have else 0):
            raise ValueError(f"ranks: block {k} has rank {have[k]['rank'] if k in have else 0} in the start "
                             f"certificate; from it, a rank can only go down (not to {r})")
    tops = tuple(max(k[n] for k in have) for n in range(len(parts)))
    state = _State(Algebra(parts, tops), budget, **how)
    alg = state.alg
    for k in alg.kappas:
        if k not in have:
            state.rank[k], state.right[k] = 0, np.zeros((len(alg.index[k]), 0))
            continue
        scale = [float(alg.sigma(k, w)) for w in alg.index[k]]
        if "entries" in have[k]:  # a block given whole: its leading right singular vectors (its rank is exact)
            entries = np.array([[float(Fraction(x)) / (a * b) for x, b in zip(row, scale)]
                                for row, a in zip(have[k]["entries"], scale)])
            right = np.linalg.svd(entries)[2][:have[k]["rank"]].T
        else:
            right = np.array([[float(Fraction(x)) / a for x in row] for row, a in zip(have[k]["right"], scale)])
        state.rank[k] = have[k]["rank"]
        state.right[k] = right / np.maximum(np.abs(right).max(axis=0, keepdims=True), 1e-300)
    return state


def _total(state: _State) -> int:
    alg = state.alg
    return sum(alg.multiplicity(k) * (state.rank[k] if state.rank[k] is not None else len(alg.index[k]))
               for k in alg.kappas)


def _dyadic(x: float, bits: int) -> Fraction:
    return Fraction(round(x * (1 << bits)), 1 << bits)


def _exact(state: _State, core, margin: float, bits: int, floor: float) -> dict[str, Any]:
    """Stage 3: round the right factors, re-solve the rows, round them, and write the certificate."""
    import numpy as np

    alg = state.alg
    right_q = {}
    for k in alg.kappas:
        v = np.asarray(state.right[k], dtype=float)
        v = v / np.maximum(np.abs(v).max(axis=0, keepdims=True), 1e-300)
        right_q[k] = [[_dyadic(x, bits) for x in row] for row in v]
        state.right[k] = np.array([[float(x) for x in row] for row in right_q[k]])
    _, left, least = state.solve(core, 2 * margin, False)
    if left is None or least < floor / 2:
        raise NoSolution(f"parts {list(alg.parts)}: the rounded factors leave no margin ({least})")
    size = {}  # one scale per query row w, the same in every block (it scales f's row w)
    for k in alg.kappas:
        for n, w in enumerate(alg.index[k]):
            size[w] = max(size.get(w, 0.0), float(np.abs(left[k][n]).max(initial=0.0)))
    blocks = []
    for k in alg.kappas:
        rows = alg.index[k]
        u = left[k] / np.array([[max(size[w], 1e-300)] for w in rows]) if rows else left[k]
        scale = [alg.sigma(k, w) for w in rows]
        lq = [[_dyadic(x, bits) * s for x in row] for row, s in zip(u, scale)]
        rq = [[x * s for x in row] for row, s in zip(right_q[k], scale)]
        blocks.append({"index": list(k), "rank": state.rank[k], "left": [[_show(x) for x in r] for r in lq],
                       "right": [[_show(x) for x in r] for r in rq]})
    return {"schema": "certify.symmetric-kernel/1", "m": alg.m, "parts": list(alg.parts), "blocks": blocks,
            "rank_at_most": _total(state)}


def _show(q: Fraction) -> int | str:
    """A rational as the certificate spells it: a JSON integer when whole and ≥ 0, else ``"p/q"`` or ``"-p"``."""
    if q.denominator == 1:
        return q.numerator if q >= 0 else str(q.numerator)
    return f"{q.numerator}/{q.denominator}"


def search(parts: tuple[int, ...], top: int | None = None, margin: float = DEFAULT_MARGIN, passes: int = 2,
           say: Callable[[str], None] | None = None, max_work: int | None = None, squeeze: int = 40,
           floor: float = DEFAULT_FLOOR, squeeze_blocks: int | None = None,
           ranks: dict[tuple[int, ...], int] | None = None, steps: int = AIM_STEPS,
           tops: tuple[int, ...] | None = None, budget: Budget | None = None, start: dict | None = None,
           repair: str = "joint", descent_steps: int | None = None,
           cut_at_once: int | None = None) -> dict[str, Any]:
    """A symmetric-kernel certificate for ``r*(Σ parts, 3)``, accepted by ``certify/check_symmetric.py``.

    ``ranks``: the rank of each block, as :func:`parse_ranks` returns it (blocks not listed are zero);
    then the blocks go up to the listed ones (``top`` and ``tops`` are ignored) and stages 2 and 2b give
    way to 2'. ``tops``: the highest block index of each part (instead of stage 1 and ``top``; as the
    partition chooser :mod:`certify.minrank.partitions` gives them). ``budget``: the LP solves allowed
    (:class:`Budget`; none by default). ``start``: a certificate (``certify.symmetric-kernel/1``, checked here
    first) to start from instead of stages 1 and 2: its parts and blocks; with ``ranks``, the blocks listed are cut
    to their ranks (at most the start's; the others keep theirs) and repaired, else the squeeze runs on it.
    ``repair``: how a cut block is repaired — ``"joint"`` (the joint SLP, ``squeeze`` or ``steps`` steps),
    ``"descent"`` (:mod:`certify.minrank.descent`), ``"both"`` (the descent, then the joint SLP).
    ``descent_steps``: the descent's steps per rank lowered (default :data:`DESCENT_STEPS`; only with ``repair``
    ``"descent"`` or ``"both"``). ``cut_at_once``: the ranks of one block that one gradual cut of the descent lowers
    together (default 1; a cut of several that fails is tried again with half as many; only with ``repair``
    ``"descent"`` or ``"both"``).

    Raises :class:`HighsUnavailable` without HiGHS, :class:`BudgetSpent` when the budget runs out,
    and :class:`NoSolution` when the search or its exact rounding fails.
    """
    from ..check import CertificateError
    from ..check_symmetric import check

    say = say or (lambda text: None)
    if repair not in REPAIRS:
        raise ValueError(f"repair {repair!r}: one of {', '.join(REPAIRS)}")
    if descent_steps is not None and (repair == "joint" or descent_steps < 1):
        raise ValueError(f"descent_steps {descent_steps}: a positive number, with repair descent or both")
    if cut_at_once is not None and (repair == "joint" or cut_at_once < 1):
        raise ValueError(f"cut_at_once {cut_at_once}: a positive number, with repair descent or both")
    core = _highs()
    parts = tuple(parts)
    started = time.process_time()
    how = dict(repair=repair, descent_steps=descent_steps or DESCENT_STEPS, cut_at_once=cut_at_once or 1)
    if start is not None:
        state = _started(start, parts, ranks, budget, max_work, **how)
        say(f"parts {list(parts)}: started from a certificate of rank {_total(state):,}")
        since = state.tally.snapshot()
        try:
            if ranks is not None:
                _aim(state, core, ranks, margin, floor, steps, say, keep=True)
                say(f"stage 2' (given ranks): {state.tally.line(since)}")
            else:
                _squeeze(state, core, margin, floor, squeeze, say, squeeze_blocks)
                say(f"stage 2b (squeeze): {state.tally.line(since)}")
        except BudgetSpent as exc:
            say(f"{exc}: the blocks reached so far (total {_total(state):,}) are rounded")
            state.budget = Budget()
    elif ranks is not None:
        tops = tuple(max(k[n] for k in ranks) for n in range(len(parts)))
        say(f"parts {list(parts)}: blocks up to {tops}, ranks given")
        state = _State(Algebra(parts, tops), budget, **how)
        since = state.tally.snapshot()
        _aim(state, core, ranks, margin, floor, steps, say)
        say(f"stage 2' (given ranks): {state.tally.line(since)}")
    else:
        if tops is None:
            if top is None:
                clock = time.process_time()
                top = least_top(parts, core, margin, budget=budget)
                say(f"stage 1 (top blocks): {time.process_time() - clock:.1f} s of CPU")
            tops = part_tops(parts, top)
        say(f"parts {list(parts)}: blocks up to {tops[0] if len(tops) == 1 else tuple(tops)}")
        state = _State(Algebra(parts, tuple(tops)), budget, **how)
        since = state.tally.snapshot()
        try:
            _lower_ranks(state, core, margin, passes, say)
            say(f"stage 2 (ranks): {state.tally.line(since)}")
            if squeeze:
                since = state.tally.snapshot()
                _squeeze(state, core, margin, floor, squeeze, say, squeeze_blocks)
                say(f"stage 2b (squeeze): {state.tally.line(since)}")
        except BudgetSpent as exc:  # the blocks reached so far are feasible: round them (not counted in the budget)
            say(f"{exc}: the blocks reached so far (total {_total(state):,}) are rounded")
            state.budget = Budget()
    since = state.tally.snapshot()
    for bits in (24, 40):
        try:
            doc = _exact(state, core, margin, bits, floor)
            doc["blocks"] = [b for b in doc["blocks"] if b["rank"] > 0]
            check(doc, max_work=max_work)
        except (NoSolution, CertificateError) as exc:
            say(f"exact rounding at 2^-{bits} failed: {exc}")
            continue
        say(f"stage 3 (exact): {state.tally.line(since)}, the check included")
        say(f"checked: rank {doc['rank_at_most']:,} ({time.process_time() - started:.1f} s of CPU)")
        return doc
    raise NoSolution(f"parts {list(parts)}: no exact certificate from the LP solution")
