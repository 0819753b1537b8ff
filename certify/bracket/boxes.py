"""The second search of the reduced matrix: alternating projections between a box and the rank-r matrices (docs/math.md §12, "A box of sufficient values").

Theorem 12.1 (b) is a set of linear inequalities per row of the reduced matrix, and they
couple entries only along the row's jumps (a jump's better key ``y`` bounds its worse key
``z``). Fixing, for every entry, an interval ``[LO, HI]`` such that *every* matrix inside
the box meets the conditions with the margin ``κ`` turns them into bounds on single
entries (:func:`boxes`):

* the scale key of a row: ``1``; the query's own entry ``a_S`` (when it is a key):
  ``[1.5·floor, a_max]``;
* a jump's worse key ``z``: at most ``((1−η)·LO[y]/κ − (w−t−1+η)·a_max)/(d−1+η)``, from its
  better key's lower end; a key that is itself a better key: at least ``θ`` times its
  upper end, so that its own jumps have room (``θ·1`` for one that is no jump's worse key);
* every entry of the block: at least ``1.5·floor`` (room for the rounding: the table's
  kernel must be ``≥ 0`` on every pair); every used pair also at least
  ``κ·(w−o−1+η)·a_max / (2(1−η))`` (condition (Y)); no upper end unless one of the above.

The box is built top down from the scale key, one jump depth at a time; an empty box
(``LO > HI`` somewhere) is refused with the entry named. Then :func:`project` alternates
two steps: the entries moved into the box and past it (over-relaxed: ``A + (1 + ω)·(clip(A) −
A)``, ``ω`` up to :data:`RELAX`, halved whenever the distance to the box grew; ``ω = 0``
is the plain projection, whose distance to the box
never grows but which crawls near the lowest ranks), and the factors ``P`` (then ``Q``)
refitted by least squares to that target — the exact minimizer over one factor, so there
is no step size. A rank is
*found* when every condition holds in floats with the margin :data:`STOP` and every
entry of the block is at least half the floor (a little stricter than the test of
:func:`certify.bracket.descent.descend`: the projections stop at the first iterate
inside, which has no room left for the rounding otherwise). The box is a choice of the search, not part of any
claim: the exact check of :mod:`certify.bracket.lift` decides.
"""
from __future__ import annotations

import numpy as np

from ..kernels.report import token_bits
from .descent import FLOOR, Constraints, violations
from .pieces import LARGE_CALL, has_duplicates, matmul, sorted_unique
from .reduced import ETA, Reduced, ReductionError

__all__ = ["A_MAX", "THETA", "KAPPA", "RELAX", "STOP", "inside", "boxes", "entries", "pair_boxes", "project"]

#: The upper end of ``a_S = α(x_S, x_S)`` in rows whose own token is a key: small, so that (Y) costs the other keys little.
A_MAX = 5e-4
#: A better key's lower end, as a share of its upper end.
THETA = 0.8
#: A relative slack on the box's computed ends, so that its premise holds exactly despite the floats' rounding (tested).
SAFE = 1e-9
#: The over-relaxation ``ω`` of the box step (golay24 at rank 185 from a rank-220 solution, in a box of κ = 1.05 and
#: θ = 0.6: distance² to the box 1.61 after 300 iterations with ω = 0, 0.43 with ω = 1, 0.059 with ω = 3).
RELAX = 3.0
#: The margin of the stopping test (below the box's, so that the iterates reach it).
STOP = 1.002
#: The box's margin on every condition (Theorem 12.1 (b) with its right-hand sides multiplied by κ).
KAPPA = 1.01


def boxes(red: Reduced, con: Constraints, *, kappa: float = KAPPA, theta: float = THETA, a_max: float = A_MAX,
          floor: float = FLOOR, progress=None) -> tuple[np.ndarray, np.ndarray]:
    """``(LO, HI)``, dense ``queries × keys``: every matrix between them meets Theorem 12.1 (b) with margin ``kappa``.

    The dense form of :func:`pair_boxes` (an entry no input uses: ``[1.5·floor, ∞)``).
    ``con`` is not read (its shape is ``red``'s); it stays in the signature of the callers.
    Raises :class:`~certify.bracket.reduced.ReductionError` when the box is empty at some
    entry (its query and key named), or when a jump's better key is never reached from the
    row's scale key (a cycle of jumps).
    """
    Qn, K = red.shape
    flat, lo, hi = pair_boxes(red, kappa=kappa, theta=theta, a_max=a_max, floor=floor, progress=progress)
    LO = np.full((Qn, K), 1.5 * floor)
    HI = np.full((Qn, K), np.inf)
    LO.ravel()[flat] = lo
    HI.ravel()[flat] = hi
    return LO, HI


def entries(red: Reduced) -> np.ndarray:
    """The flat indices ``S·K + k`` (sorted) of the entries the box bounds: every used pair and every own entry ``a_S``."""
    K = red.shape[1]
    has_a = red.own >= 0
    own = np.flatnonzero(has_a) * K + red.own[has_a]
    return sorted_unique(np.concatenate([red.pq * K + red.pk, own]))


def pair_boxes(red: Reduced, *, kappa: float = KAPPA, theta: float = THETA, a_max: float = A_MAX,
               floor: float = FLOOR, progress=None) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """``(flat, LO, HI)`` on the entries of :func:`entries` only (sparse: ``flat`` their sorted indices ``S·K + k``).

    The box of the module docstring, built without a dense ``queries × keys`` array (row
    ``m = 28``'s block has 87 M entries, of which 3.6 M are used). Refusals as :func:`boxes`.
    ``progress(text)``: a line per jump depth (golay24: about 7 s in all).
    """
    say = progress or (lambda text: None)
    say(f"the box: {red.jumps:,} jumps, {len(red.pq):,} used pairs")
    eta = float(ETA)
    Qn, K = red.shape
    flat = entries(red)
    at = lambda q, k: np.searchsorted(flat, q * K + k)  # noqa: E731 - every (q, k) asked for is an entry
    flat_parent, flat_z = at(red.jq, red.jy), at(red.jq, red.jz)
    if has_duplicates(flat_z):
        raise ReductionError("two jumps of one query end at the same key; the search stores one jump per worse key "
                             "and does not cover this family (every chain plan of certify gives one)")
    has_a = red.own >= 0
    lo = np.full(len(flat), 1.5 * floor)  # every entry: room above the floor, for the rounding
    hi = np.full(len(flat), np.inf)
    cpa = np.where(has_a[red.pq], np.maximum(red.weight[red.pq] - red.po - 1 + eta, 0.0), 0.0)
    used = at(red.pq, red.pk)
    lo[used] = np.maximum(lo[used], (kappa * a_max / (2 * (1 - eta))) * cpa * (1 + SAFE))
    own_rows = np.flatnonzero(has_a)
    hi[at(own_rows, red.own[has_a])] = a_max
    par = np.zeros(len(flat), dtype=bool)
    par[flat_parent] = True
    ends = np.zeros(len(flat), dtype=bool)
    ends[flat_z] = True
    free = par & ~ends  # a better key that no jump bounds: any level between θ and … (the scale key is 1)
    lo[free] = np.maximum(lo[free], theta)
    roots = at(np.arange(Qn), red.root)
    lo[roots] = 1.0
    hi[roots] = 1.0
    known = free.copy()
    known[roots] = True
    cz = red.jd - 1 + eta
    ca = np.where(has_a[red.jq], red.weight[red.jq] - red.jt - 1 + eta, 0.0)
    amax = np.where(has_a[red.jq], a_max, 0.0)
    done = np.zeros(len(flat_z), dtype=bool)
    while not done.all():
        say(f"the box: {int(done.sum()):,} of {len(done):,} jumps bounded")
        ready = ~done & known[flat_parent] & ~known[flat_z]
        if not ready.any():  # one jump per worse key, so only a cycle of jumps leaves some unreached
            j = int(np.flatnonzero(~done)[0])
            raise ReductionError(f"--method boxes: query token {token_bits(red.queries[red.jq[j]], red.m)}'s jump to key "
                                 f"{token_bits(red.keys[red.jz[j]], red.m)} is not reached from its scale key (the jumps "
                                 "form a cycle)")
        z = flat_z[ready]
        bound = ((1 - eta) * lo[flat_parent[ready]] / kappa - ca[ready] * amax[ready]) / cz[ready] * (1 - SAFE)
        hi[z] = np.minimum(hi[z], bound)
        inner = par[z]
        lo[z[inner]] = np.maximum(lo[z[inner]], theta * hi[z[inner]])
        known[z] = True
        done |= ready
    bad = np.flatnonzero(lo > hi)
    if len(bad):
        q, k = divmod(int(flat[bad[0]]), K)
        raise ReductionError(f"--method boxes: the box is empty at query token {token_bits(red.queries[q], red.m)}, key "
                             f"{token_bits(red.keys[k], red.m)} "
                             f"([{lo[bad[0]]:.3g}, {hi[bad[0]]:.3g}]; {len(bad):,} entries in all)")
    return flat, lo, hi


def inside(con: Constraints, A: np.ndarray, floor: float = FLOOR) -> bool:
    """The stopping test: Theorem 12.1 (b) with margin :data:`STOP`, the floor on used pairs, every entry at least
    half the floor (room for the rounding: an entry of 10⁻¹⁶ would round below 0 and fail ``α ≥ 0``)."""
    return A.min() >= floor / 2 and violations(con, A, STOP, floor, scale=False)[0] == 0.0


def _refit(F: np.ndarray, T: np.ndarray) -> np.ndarray:
    """The least-squares ``X`` of ``X Fᵀ ≈ Tᵀ`` (``T`` of shape ``len(F) × rows``), with a ridge of 10⁻¹² times the
    mean diagonal of ``FᵀF`` (plus 10⁻¹²) against a singular Gram matrix. On a large block the products go by pieces
    and the ``r × r`` system is inverted once, then applied by pieces (:mod:`certify.bracket.pieces`)."""
    r = F.shape[1]
    G = matmul(F.T, F)
    G = G + 1e-12 * (np.trace(G) / r + 1) * np.eye(r)
    rhs = matmul(F.T, T)
    if r * r * rhs.shape[1] <= LARGE_CALL:
        return np.linalg.solve(G, rhs).T
    return matmul(np.linalg.inv(G), rhs).T


def project(con: Constraints | None, LO: np.ndarray, HI: np.ndarray, r: int, iterations: int, *, start,
            floor: float = FLOOR, relax: float = RELAX, check_every: int = 10, progress=None, test=None):
    """Alternating projections from ``start`` (factors of width ``r``); ``(P, Q, iterations used, loss)``.

    One iteration refits ``P`` to the over-relaxed box step of ``P Qᵀ`` (module docstring),
    then ``Q`` likewise (least squares). Every ``check_every`` iterations the stopping test
    (:func:`inside`) runs, and the search stops with loss 0 when it holds; otherwise the
    loss returned is the squared distance of ``P Qᵀ`` to the box (``inf`` if the factors
    overflowed, which ends the start). Deterministic: no randomness after the start.
    ``test``: the stopping test on ``A`` instead of :func:`inside` on ``con`` (the search by
    roots, :mod:`certify.bracket.rooted`, stops on the box itself).
    """
    if test is None:
        test = lambda A: inside(con, A, floor)  # noqa: E731
    P, Q = (np.array(a, dtype=float) for a in start)
    gap = float("inf")
    omega = relax
    used = 0
    for it in range(1, iterations + 1):
        used = it
        A = matmul(P, Q.T)
        if it % check_every == 1 or check_every == 1:
            if test(A):
                return P, Q, it, 0.0
        T = np.clip(A, LO, HI)
        last, gap = gap, float(np.vdot(A - T, A - T))
        if not np.isfinite(gap):
            break
        # ω halves whenever the distance grew, and creeps back towards ``relax`` while it falls
        omega = omega / 2 if gap > last else min(relax, omega * 1.1 + 0.01)
        if progress is not None:
            progress(it, gap)
        T += omega * (T - A)
        P = _refit(Q, T.T)
        A = matmul(P, Q.T)
        T = np.clip(A, LO, HI)
        T += omega * (T - A)
        Q = _refit(P, T)
    A = matmul(P, Q.T)
    if np.isfinite(A).all() and test(A):
        return P, Q, used, 0.0
    T = np.clip(A, LO, HI)
    gap = float(np.vdot(A - T, A - T))
    return P, Q, used, gap if np.isfinite(gap) and gap > 0 else float("inf")
