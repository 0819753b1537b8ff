"""The numerical half of the reduced search: Adam on low-rank factors of the reduced matrix (docs/math.md §12).

Factors ``P`` (queries × r) and ``Q`` (keys × r) propose ``A = P Qᵀ``. The loss is the
sum of squared violations of the sufficient conditions of Theorem 12.1 (b) with a
margin ``κ > 1`` (every right-hand side multiplied by ``κ``):

* every jump ``(S, y, z)`` of gap ``d`` and lower overlap ``t``:
  ``(1−η)·A[S,y] ≥ κ·((w_S − t − 1 + η)·a_S + (d − 1 + η)·A[S,z])``;
* every key ``k`` of ``S``: ``A[S,k] ≥ floor`` and ``2(1−η)·A[S,k] ≥ κ·(w_S − o_k − 1 + η)·a_S``;
* every other entry of the block: ``A[S,k] ≥ 0`` (so that the table's kernel is nonnegative
  on every pair of tokens, as the model of docs/math.md §2 asks, not only on used pairs);
* the scale ``A[S, root_S] ≥ 1`` (every condition is homogeneous in a row);

with ``a_S = A[S, own_S]`` when the query's own token is a key, else 0. Floats only
propose: :mod:`certify.bracket.lift` rounds the factors and the exact check decides.

Reproducibility: seeded (``numpy.random.default_rng``), budgeted by iterations, never by
time. The products use numpy's BLAS (``@``), whose bits depend on the numpy build and the
CPU's instruction set, as the warm start's SVD (LAPACK) always did (docs/results.md, "What
is reproducible"). On a large block they go by pieces (:mod:`certify.bracket.pieces`), so
that Ctrl-C and SIGTERM act within a fraction of a second.
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from .pieces import has_duplicates, matmul, top_factors
from .reduced import ETA, Reduced, ReductionError

#: The loss below which the floats meet every condition up to roundoff (then the rounded table is checked exactly).
TOLERANCE = 1e-20
#: The largest reduced matrix the search builds (queries × keys entries): its dense arrays take about 80 bytes
#: per entry in all (golay24's 2,576 × 2,576 = 6.6 M: about 0.6 GB; row m = 28's 1,876 × 46,575 is refused).
MAX_BLOCK = 2**24

#: ``α`` on every used pair stays at least this (the scale is ``A[S, root] ≥ 1``).
FLOOR = 1e-4

#: Below this loss the search also checks, every 100 steps, whether the conditions already hold without the margin.
NEAR = 1e-6

__all__ = ["FLOOR", "MAX_BLOCK", "TOLERANCE", "step_size", "Constraints", "constraints", "descend", "truncate", "exponential_start", "random_start", "violations"]


@dataclass(frozen=True)
class Constraints:
    """The reduced conditions as dense ``Q × K`` arrays (a jump is stored at its worse key ``z``)."""

    shape: tuple[int, int]
    used: np.ndarray  # bool: the pair (S, k) is used by an input (the floor applies there; ≥ 0 everywhere else)
    cpa: np.ndarray  # w − o − 1 + η, clipped at 0, on used pairs whose row has a_S (else 0)
    jump: np.ndarray  # bool: a jump (S, y, z) ends at z
    parent: np.ndarray  # flat index of A[S, y] of that jump (0 where none)
    cz: np.ndarray  # d − 1 + η at z
    ca: np.ndarray  # w − t − 1 + η at z (0 where the row has no a_S)
    own: np.ndarray  # (Q,) column of a_S, or −1
    root: np.ndarray  # (Q,) column of the scale key


def constraints(red: Reduced) -> Constraints:
    """The dense form of :class:`Reduced` (η = :data:`ETA`).

    Raises :class:`~certify.bracket.reduced.ReductionError` if two jumps of one query end
    at the same key (the dense form stores one jump per worse key; the chain plans of this
    project never do that).
    """
    Qn, K = red.shape
    if Qn * K > MAX_BLOCK:
        raise ReductionError(f"the reduced matrix has {Qn:,} query tokens × {K:,} keys = {Qn * K:,} entries; the search "
                             f"builds at most {MAX_BLOCK:,} (about 80 bytes each; docs/results.md, \"Upper side\"); "
                             "--method boxes searches a larger one by its roots when its interpolated keys allow "
                             "(docs/math.md §12, \"Shared interpolated keys\")")
    eta = float(ETA)
    flat_z = red.jq * K + red.jz
    if has_duplicates(flat_z):
        raise ReductionError("two jumps of one query end at the same key; the search stores one jump per worse key "
                             "and does not cover this family (every chain plan of certify gives one)")
    has_a = red.own >= 0
    used = np.zeros((Qn, K), dtype=bool)
    used[red.pq, red.pk] = True
    cpa = np.zeros((Qn, K))
    cpa[red.pq, red.pk] = np.where(has_a[red.pq], np.maximum(red.weight[red.pq] - red.po - 1 + eta, 0.0), 0.0)
    jump = np.zeros((Qn, K), dtype=bool)
    jump[red.jq, red.jz] = True
    parent = np.zeros((Qn, K), dtype=np.int64)
    parent[red.jq, red.jz] = red.jq * K + red.jy
    cz = np.zeros((Qn, K))
    cz[red.jq, red.jz] = red.jd - 1 + eta
    ca = np.zeros((Qn, K))
    ca[red.jq, red.jz] = np.where(has_a[red.jq], red.weight[red.jq] - red.jt - 1 + eta, 0.0)
    return Constraints((Qn, K), used, cpa, jump, parent, cz, ca, red.own.copy(), red.root.copy())


def violations(con: Constraints, A: np.ndarray, kappa: float, floor: float, scale: bool = True):
    """The loss and its gradient with respect to ``A`` (dense, the shape of ``A``).

    ``scale=False`` leaves out the rows' scale ``A[S, root] ≥ 1`` (the conditions themselves
    are homogeneous in each row; the scale only keeps the search away from 0).
    """
    eta = float(ETA)
    Qn, K = con.shape
    rows = np.arange(Qn)
    has_a = con.own >= 0
    a = np.where(has_a, A[rows, np.maximum(con.own, 0)], 0.0)[:, None]
    y = A.ravel()[con.parent]
    h = np.minimum((1 - eta) * y - kappa * (con.ca * a + con.cz * A), 0.0)
    h *= con.jump
    f = np.minimum(A - floor * con.used, 0.0)  # the floor on used pairs, α ≥ 0 on the rest of the block
    e = np.minimum(2 * (1 - eta) * A - kappa * con.cpa * a, 0.0)
    e *= con.used
    s = np.minimum(A[rows, con.root] - 1.0, 0.0) if scale else np.zeros(Qn)
    loss = float(np.vdot(h, h) + np.vdot(f, f) + np.vdot(e, e) + s @ s)
    G = (-2 * kappa) * con.cz * h
    G += 2 * f
    G += (4 * (1 - eta)) * e
    jm = con.jump.ravel()
    G += np.bincount(con.parent.ravel()[jm], weights=(2 * (1 - eta)) * h.ravel()[jm], minlength=A.size).reshape(A.shape)
    ga = (-2 * kappa) * ((con.ca * h).sum(axis=1) + (con.cpa * e).sum(axis=1))
    np.add.at(G, (rows[has_a], con.own[has_a]), ga[has_a])
    np.add.at(G, (rows, con.root), 2 * s)
    return loss, G


def truncate(P: np.ndarray, Q: np.ndarray | None, r: int, say=None) -> tuple[np.ndarray, np.ndarray]:
    """The best rank-``r`` factors of ``P Qᵀ`` (``Q = None``: of ``P``; truncated SVD, split evenly): a warm start at
    rank ``r``. :func:`certify.bracket.pieces.top_factors`: ``numpy.linalg.svd`` of the product on a small block, by
    pieces on a large one."""
    return top_factors(P, Q, r, say)


def exponential_start(red: Reduced, base: float = 0.5) -> np.ndarray:
    """The block ``A[S, k] = base^{⟨x_S, k⟩ − ⟨x_S, root_S⟩}`` on every used pair, 0 elsewhere (factors: ``(A, I)``).

    With ``base = 1/2`` it satisfies the conditions for the families here (docs/math.md §12,
    "The exponential start"); its truncated SVD starts the bisection's first rank.
    """
    Qn, K = red.shape
    A = np.zeros((Qn, K))
    low = np.array([(x & red.keys[c]).bit_count() for x, c in zip(red.queries, red.root)])
    A[red.pq, red.pk] = base ** (red.po - low[red.pq]).astype(float)
    return A


def step_size(lr: float, lr_end: float | None, it: int, iterations: int) -> float:
    """Adam's step at iteration ``it`` (from 1): ``lr``, or with ``lr_end`` a cosine from ``lr`` to ``lr_end`` over ``iterations``."""
    return lr if lr_end is None else lr_end + (lr - lr_end) * 0.5 * (1 + np.cos(np.pi * (it - 1) / iterations))


def random_start(con: Constraints, r: int, seed: int) -> tuple[np.ndarray, np.ndarray]:
    """The seeded random start of :func:`descend`: entries ``|N(0, 1)|/√r`` (a positive kernel of about unit entries)."""
    rng = np.random.default_rng(seed)
    Qn, K = con.shape
    return np.abs(rng.normal(size=(Qn, r))) / np.sqrt(r), np.abs(rng.normal(size=(K, r))) / np.sqrt(r)


def descend(con: Constraints, r: int, seed: int, iterations: int, *, start=None, kappa: float = 1.02,
            floor: float = FLOOR, lr: float = 3e-3, lr_end: float | None = None, tolerance: float = TOLERANCE,
            progress=None):
    """Adam on ``(P, Q)`` of width ``r``; ``(P, Q, iterations used, final loss)``.

    ``start``: factors to begin from (e.g. :func:`truncate` of a wider solution), else a
    seeded random positive start. Stops early once the loss is below ``tolerance``. The
    step is ``lr`` throughout, or with ``lr_end`` falls from ``lr`` to ``lr_end`` along a
    cosine over the ``iterations`` (a function of the step count only: reproducible).
    Once the loss is below :data:`NEAR`, every 100th step also checks the conditions
    without the margin (``κ = 1``, half the floor, no scale) and stops, with loss 0, when
    they all hold: the margin is for the rounding, and the exact check decides anyway.
    ``progress(iteration, loss)`` is called at every iteration (the caller's progress line
    shows one every few seconds: on golay24 an iteration is about 0.35 s).
    """
    Qn, K = con.shape
    if start is not None:
        P, Q = (np.array(a, dtype=float) for a in start)
    else:
        P, Q = random_start(con, r, seed)
    moments = [np.zeros_like(P), np.zeros_like(P), np.zeros_like(Q), np.zeros_like(Q)]
    loss = float("inf")
    for it in range(1, iterations + 1):
        A = matmul(P, Q.T)
        loss, G = violations(con, A, kappa, floor)
        if loss < tolerance:
            return P, Q, it, loss
        if loss < NEAR and it % 100 == 0 and violations(con, A, 1.0, floor / 2, scale=False)[0] == 0.0:
            return P, Q, it, 0.0  # every condition holds without the margin: rounding may keep it
        if progress is not None:
            progress(it, loss)
        step = step_size(lr, lr_end, it, iterations)
        for j, (X, g) in enumerate(((P, matmul(G, Q)), (Q, matmul(G.T, P)))):
            m, v = moments[2 * j], moments[2 * j + 1]
            m *= 0.9
            m += 0.1 * g
            v *= 0.999
            v += 0.001 * g * g
            X -= step * (m / (1 - 0.9**it)) / (np.sqrt(v / (1 - 0.999**it)) + 1e-15)
    return P, Q, iterations, loss
