"""The numerical half of the upper side: a low-rank kernel that satisfies a family's jump inequalities.

docs/math.md §3 (weight domination) says what every solving kernel must satisfy: for each
jump ``(x, y, z)`` of factor ``μ`` at length ``n``,
``(n−1)(α(x,y) − μ·α(x,z)) + (1 − μ)·α(x,x) > 0``. This module looks for factors
``φ_Q`` (query tokens × r) and ``φ_K`` (tokens × r) of a kernel ``α = φ_Q φ_Kᵀ`` that
satisfies them with a margin (``μ`` replaced by ``κμ``, ``κ > 1``), is ``≥ floor`` on every
pair a family input uses (``≥ 0`` on a query's own token) and has ``α(x, y₀) = 1`` for each
query's lowest-overlap key ``y₀`` (the scale). The loss is the sum of squared violations;
Adam on float64 minimizes it for a fixed number of iterations.

Nothing here is trusted: floats only propose. :mod:`certify.bracket.upper` rounds the
factors to rationals and hands the table to the exact check of ``certify check-kernel``,
which decides — by an exact LP — whether some readout makes the kernel solve the family.

Reproducibility: the search is seeded (``numpy.random.default_rng(seed)``) and budgeted by
iterations, never by time, and uses ``numpy.einsum`` without BLAS, so the same seed and
budget give the same factors with the same numpy build.
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ..lemmas.domination import domination_factor

__all__ = ["Geometry", "geometry", "factor_search", "truncate"]


@dataclass(frozen=True)
class Geometry:
    """What the search needs of a family: token lists, used pairs, jumps, scale keys (all as indices)."""

    queries: tuple[int, ...]  # query tokens (bitmasks), row order of φ_Q
    keys: tuple[int, ...]  # every token an input uses, row order of φ_K
    pairs: np.ndarray  # (k, 2) query × key pairs used by some input, a query's own token excluded
    own: np.ndarray  # (k, 2) query × its own token (α(x, x) ≥ 0 is enough there)
    jumps: np.ndarray  # (J, 4) query, better key, worse key, the query's own token (as a key)
    factors: np.ndarray  # (J,) μ of each jump
    lengths: np.ndarray  # (J,) n − 1 of each jump
    scale: np.ndarray  # (Q', 2) query × its lowest-overlap key y₀: α(x, y₀) = 1


def geometry(family) -> Geometry:
    """The :class:`Geometry` of a ``certify.kernels.audit.FamilySpec`` (its inputs and jumps)."""
    queries: list[int] = []
    keys: list[int] = []
    qi: dict[int, int] = {}
    ki: dict[int, int] = {}
    pairs, own = set(), set()
    for X in family.inputs:
        x = X.tokens[X.query]
        if x not in qi:
            qi[x] = len(queries)
            queries.append(x)
        for z in X.tokens:
            if z not in ki:
                ki[z] = len(keys)
                keys.append(z)
            (own if z == x else pairs).add((qi[x], ki[z]))
    jumps, mus, lens = [], [], []
    lowest: dict[int, int] = {}
    for x, y, z, n in family.jumps:
        d = (x & z).bit_count() - (x & y).bit_count()
        mus.append(float(domination_factor(d, n, family.error)))
        lens.append(n - 1)
        if x not in ki:
            ki[x] = len(keys)
            keys.append(x)
        jumps.append((qi[x], ki[y], ki[z], ki[x]))
        if qi[x] not in lowest or (x & y).bit_count() < (x & keys[lowest[qi[x]]]).bit_count():
            lowest[qi[x]] = ki[y]
    arr = lambda v, w: np.array(sorted(v), dtype=np.int64).reshape(-1, w)  # noqa: E731
    return Geometry(tuple(queries), tuple(keys), arr(pairs, 2), arr(own, 2),
                    np.array(jumps, dtype=np.int64).reshape(-1, 4), np.array(mus), np.array(lens, dtype=float),
                    arr(lowest.items(), 2))


def truncate(P: np.ndarray, Q: np.ndarray, r: int) -> tuple[np.ndarray, np.ndarray]:
    """The best rank-``r`` factors of ``P Qᵀ`` (truncated SVD, split evenly): a warm start one rank lower."""
    U, s, Vt = np.linalg.svd(np.einsum("ik,jk->ij", P, Q), full_matrices=False)
    root = np.sqrt(s[:r])
    return U[:, :r] * root, Vt[:r].T * root


def factor_search(geo: Geometry, r: int, seed: int, iterations: int, kappa: float = 1.02, floor: float = 1e-3,
                  start: tuple[np.ndarray, np.ndarray] | None = None, lr: float = 0.02,
                  tolerance: float = 1e-14, lr_end: float | None = None) -> tuple[np.ndarray, np.ndarray, int, float]:
    """Adam on the squared violations; ``(φ_Q, φ_K, iterations used, final loss)``.

    Stops early once the loss is below ``tolerance`` (every constraint met up to roundoff);
    ``start`` (e.g. :func:`truncate` of a rank ``r + 1`` solution) replaces the random start.
    The step size is ``lr`` throughout, or, with ``lr_end``, decays from ``lr`` to ``lr_end``
    along a cosine over the ``iterations`` (a function of the iteration count only, so the
    run stays reproducible): at a constant large step Adam keeps jittering around a
    near-solution instead of settling into it.
    """
    rng = np.random.default_rng(seed)
    if start is not None:
        P, Q = (np.array(a, dtype=float) for a in start)
    else:
        P = np.abs(rng.normal(size=(len(geo.queries), r))) / np.sqrt(r)
        Q = np.abs(rng.normal(size=(len(geo.keys), r))) / np.sqrt(r)
    J, mu, nl = geo.jumps, geo.factors * kappa, geo.lengths
    moments = [np.zeros_like(P), np.zeros_like(P), np.zeros_like(Q), np.zeros_like(Q)]
    loss = float("inf")
    for it in range(1, iterations + 1):
        A = np.einsum("ik,jk->ij", P, Q)
        G = np.zeros_like(A)
        a, y, z, s = A[J[:, 0], J[:, 3]], A[J[:, 0], J[:, 1]], A[J[:, 0], J[:, 2]], geo.scale
        h = np.minimum(nl * (y - mu * z) + (1 - mu) * a, 0.0)
        np.add.at(G, (J[:, 0], J[:, 1]), 2 * h * nl)
        np.add.at(G, (J[:, 0], J[:, 2]), -2 * h * nl * mu)
        np.add.at(G, (J[:, 0], J[:, 3]), 2 * h * (1 - mu))
        f = np.minimum(A[geo.pairs[:, 0], geo.pairs[:, 1]] - floor, 0.0)
        np.add.at(G, (geo.pairs[:, 0], geo.pairs[:, 1]), 2 * f)
        o = np.minimum(A[geo.own[:, 0], geo.own[:, 1]] - floor / 100, 0.0)
        np.add.at(G, (geo.own[:, 0], geo.own[:, 1]), 2 * o)
        e = A[s[:, 0], s[:, 1]] - 1.0
        np.add.at(G, (s[:, 0], s[:, 1]), 2 * e)
        loss = float((h * h).sum() + (f * f).sum() + (o * o).sum() + (e * e).sum())
        if loss < tolerance:
            return P, Q, it, loss
        step = lr if lr_end is None else lr_end + (lr - lr_end) * 0.5 * (1 + np.cos(np.pi * (it - 1) / iterations))
        for k, (X, g) in enumerate(((P, np.einsum("ij,jk->ik", G, Q)), (Q, np.einsum("ij,ik->jk", G, P)))):
            m, v = moments[2 * k], moments[2 * k + 1]
            m *= 0.9
            m += 0.1 * g
            v *= 0.999
            v += 0.001 * g * g
            X -= step * (m / (1 - 0.9**it)) / (np.sqrt(v / (1 - 0.999**it)) + 1e-15)
    return P, Q, iterations, loss
