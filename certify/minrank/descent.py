"""Repairing fixed-rank blocks by the rows' margins as functions of the right factors (docs/math.md §11).

The invariant-kernel search (:mod:`certify.minrank.invariant`) lowers a block's rank by cutting its right
factor ``V_κ`` and then has to find right factors for which every query row ``w`` is feasible again. With
``V`` fixed, row ``w``'s margin ``δ_w(V)`` is the value of its own small LP (the left factors solved out:
"variable projection"), and its derivative in ``V`` comes with the LP's dual values: the row enters ``V_κ``
through ties ``g_j = Σ_r u_r V_κ[j, r]``, and ``∂δ_w/∂V_κ[j, r] = y_j u_r / 2`` (the envelope theorem, where
the LP's solution is unique; ``y_j`` the tie's dual, the 2 because a row's objective counts its ``δ`` twice).

A step is one small LP in ``V``'s entries alone: it maximizes the search's score
``Σ_w min(δ_w, cap) + (number of rows)·min_w δ_w`` with each ``δ_w`` replaced by a model, the least of its
linearizations at the last :data:`BUNDLE` points tried (each raised, where it is lower, to ``δ_w``'s value at
the current point: a bundle), within a box around ``V`` (``ρ`` times each entry's size, at least ``10⁻³``).
The rows are then solved at the new ``V``; the step is kept when the score rises (the box doubles, up to 1)
and refused otherwise (it halves). One step costs one LP per row plus one small LP — at ``m = 17``
(``S_6 × S_11``) 2 s of CPU against some 65 s for a step of the joint SLP, which linearizes the left and right
factors together (``_joint`` in :mod:`certify.minrank.invariant`) — but its model is rougher, so it takes
more of them. HiGHS solves every LP in floating point: this only proposes; the certificate made from it is
checked exactly by ``certify/check_symmetric.py``.
"""
from __future__ import annotations

from typing import Callable

__all__ = ["descend", "lower", "BUNDLE", "DESCENT_STEPS", "STAGES"]

#: Linearizations kept per row (the current point's and the last points tried).
BUNDLE = 8
#: Steps of :func:`descend` per repair in the search (each one LP per query row and one small LP).
DESCENT_STEPS = 200


def _layout(state) -> tuple[dict, int]:
    """Where each block's right factor sits in the flattened vector (row by row), and the vector's length."""
    offsets, size = {}, 0
    for k in state.alg.kappas:
        offsets[k] = size
        size += len(state.alg.index[k]) * state.rank[k]
    return offsets, size


def _margins(state, core, cap: float):
    """Each row's ``δ_w`` and its gradient in the right factors, flattened as :func:`_flat` orders them
    (``None`` if a row's LP fails)."""
    import numpy as np

    alg, (offsets, size), out = state.alg, _layout(state), {}
    for w in alg.rows:
        gradient: dict = {}
        _, x, least = state.solve_row(core, w, cap, False, gradient=gradient)
        if x is None:
            return None
        vector = np.zeros(size)
        for (k, j), g in gradient.items():
            start = offsets[k] + alg.position[k][j] * state.rank[k]
            vector[start:start + state.rank[k]] += g
        out[w] = (least, vector)
    return out


def _flat(state):
    import numpy as np

    return np.concatenate([np.asarray(state.right[k], dtype=float).ravel() for k in state.alg.kappas])


def _unflat(state, x) -> dict:
    offsets, _ = _layout(state)
    return {k: x[offsets[k]:offsets[k] + len(state.alg.index[k]) * state.rank[k]].reshape(-1, state.rank[k])
            for k in state.alg.kappas}


def _deltas(margins: dict) -> dict:
    return {w: delta for w, (delta, _) in margins.items()}


def _step(state, core, x0, current: dict, bundle: dict, rho: float, cap: float, frozen=None):
    """The model's best point within the box ``ρ`` around ``x0`` (``frozen``: a mask of entries kept), or ``None``."""
    import numpy as np

    from .invariant import _LP

    lp = _LP(len(x0))
    for w, (delta, _) in current.items():
        d = lp.var()
        lp.deltas.append(d)
        for point, value, gradient in bundle[w]:
            level = max(value + float(gradient @ (x0 - point)), delta)  # the cut at x0, raised to δ_w(x0)
            nonzero = np.flatnonzero(gradient)
            lp.row([(d, 1.0)] + [(int(i), -float(gradient[i])) for i in nonzero], -core.kHighsInf, level)
    box = rho * np.maximum(np.abs(x0), 1e-3)
    if frozen is not None:
        box[frozen] = 0.0
    state.budget.spend()
    x, _ = lp.solve(core, cap, False, box=(-box, box))
    return None if x is None else x0 + np.asarray(x[:len(x0)])


def descend(state, core, cap: float, floor: float, steps: int = DESCENT_STEPS,
            say: Callable[[str], None] | None = None, used: list | None = None, frozen=None) -> bool:
    """Move the right factors (``state.right``) by at most ``steps`` steps (module docstring) until every row's
    ``δ_w ≥ floor``; whether that was reached. ``state.right`` is left at the best point found; ``used`` gets the
    least margin after each step taken; ``frozen``: a mask of the flattened right factors' entries that stay."""
    from .invariant import _score  # the search's own score of the margins

    x0 = _flat(state)
    current = _margins(state, core, cap)
    if current is None:
        return False
    bundle = {w: [(x0, delta, gradient)] for w, (delta, gradient) in current.items()}
    score, rho = _score(_deltas(current), cap), 0.05
    for step in range(steps):
        least = min(_deltas(current).values())
        if least >= floor or rho < 1e-7:
            break
        x1 = _step(state, core, x0, current, bundle, rho, cap, frozen)
        trial = None
        if x1 is not None:
            before, state.right = state.right, _unflat(state, x1)
            trial = _margins(state, core, cap)
            state.right = before
        if trial is None:
            rho /= 2
            if used is not None:
                used.append(least)
            continue
        for w, (delta, gradient) in trial.items():
            bundle[w] = (bundle[w] + [(x1, delta, gradient)])[-BUNDLE:]
        new = _score(_deltas(trial), cap)
        if new > score + 1e-9:
            x0, current, score, rho = x1, trial, new, min(2 * rho, 1.0)
            state.right = _unflat(state, x0)
        else:
            rho /= 2
        least = min(_deltas(current).values())
        if used is not None:
            used.append(least)
        if say is not None:
            say(f"descent step {step + 1}/{steps}: least margin {least:.4g} (wanted {floor:.4g}), box {rho:.3g}")
    return min(_deltas(current).values()) >= floor


#: The gradual cut's bounds on the columns dropped, as fractions of where they start (:func:`lower`): halved twelve
#: times, then zero. A row's margin is concave in the bound (an LP's value in its right-hand side), steepest at
#: zero; at m = 22 holding the column within 1/64 kept every margin, dropping it from there left −0.79.
STAGES = tuple(2.0 ** -i for i in range(1, 13)) + (0.0,)


def lower(state, core, kappa, cap: float, floor: float, steps: int = DESCENT_STEPS,
          say: Callable[[str], None] | None = None, finish: Callable[[], bool] | None = None,
          count: int = 1) -> bool:
    """Lower block ``κ``'s rank by ``count`` (default one), gradually: its right factor rotated to the right
    singular vectors of the rows' solution (a vertex: every row's LP solved), the last ``count`` columns'
    coefficients in each row ``w`` are held within ``s·|u_w|`` (each its own) for ``s`` in :data:`STAGES`, the margins
    restored by :func:`descend` (at most ``count · steps`` steps in all; the columns themselves stay, else they
    could grow as their coefficients shrink) before the bound tightens; at ``s = 0`` the columns are dropped. The
    drop is tried first: where every row holds without the columns, it holds at every bound on the way (a row's
    margin is concave in the bound), so the stages would take no step, and one pass of the rows replaces them.
    Whether every row's ``δ_w ≥ floor`` at the lower rank (else the state is as before). ``say`` gets a line per
    descent step and per stage. ``finish``: where a stage fails, the columns are dropped there and ``finish()``
    (the joint SLP, ``repair="both"``) has the last word. Where the search's budget of LP solves runs out
    (:class:`certify.minrank.invariant.BudgetSpent`), the blocks are put back as they were before the cut."""
    rank = state.rank[kappa]
    if not 1 <= count <= rank:
        raise ValueError(f"block {kappa} has rank {rank}: it cannot lose {count} columns")
    saved, reached = (dict(state.rank), dict(state.right)), False
    try:
        reached = _lower(state, core, kappa, cap, floor, steps, say, finish, count)
        return reached
    finally:  # failed or cut short (the budget spent): no bound left, the blocks as before the cut (feasible)
        for column in range(rank):
            state.bounds.pop((kappa, column), None)
        if not reached:
            state.rank, state.right = saved


def _lower(state, core, kappa, cap, floor, steps, say, finish, count) -> bool:
    """:func:`lower`'s work, leaving the restoring to it."""
    import numpy as np

    alg, rank = state.alg, state.rank[kappa]
    kept, budget = rank - count, count * steps
    full, _, _ = state.solve(core, cap, False)
    if full is None:
        return False
    _, _, vt = np.linalg.svd(full[kappa])
    state.right[kappa] = vt[:rank].T.copy()
    _, left, _ = state.solve(core, cap, False)
    start = {c: {w: abs(float(left[kappa][n, c])) for n, w in enumerate(alg.index[kappa])}
             for c in range(kept, rank)}
    offsets, size = _layout(state)  # the columns dropped stay put (else they could grow as their bounds shrink)
    frozen = np.zeros(size, dtype=bool)
    for c in range(kept, rank):
        frozen[offsets[kappa] + c:offsets[kappa] + len(alg.index[kappa]) * rank:rank] = True
    columns = f"column {rank}" if count == 1 else f"columns {kept + 1}–{rank}"
    spent, reached = 0, False
    for c in start:  # the drop first (docstring)
        state.bounds[kappa, c] = {w: 0.0 for w in alg.index[kappa]}
    stages = STAGES
    if descend(state, core, cap, floor, 0, frozen=frozen):
        stages, reached = (), True
        if say is not None:
            say(f"block {kappa}: {columns} dropped at once: the margins hold (0 descent steps in all)")
    for s in stages:
        for c, bounds in start.items():
            state.bounds[kappa, c] = {w: s * b for w, b in bounds.items()}
        counted: list = []
        told = None if say is None else (lambda text, s=s: say(f"block {kappa}, {columns} within {s:g}: {text}"))
        reached = descend(state, core, cap, floor, max(budget - spent, 0), say=told, used=counted, frozen=frozen)
        spent += len(counted)
        if say is not None:
            say(f"block {kappa}: {columns} held within {s:g} of {'its' if count == 1 else 'their'} size: "
                + ("the margins hold" if reached else f"least margin {counted[-1] if counted else float('nan'):.4g}")
                + f" ({spent} descent steps in all)")
        if not reached:
            break
    for c in start:
        del state.bounds[kappa, c]
    state.rank[kappa], state.right[kappa] = kept, state.right[kappa][:, :kept].copy()
    if not reached and finish is not None:
        reached = finish()
        if say is not None:
            say(f"block {kappa}: the {'column' if count == 1 else 'columns'} dropped, then the joint SLP: "
                + ("the margins hold" if reached else "not repaired"))
    return reached
