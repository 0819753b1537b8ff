"""The upper side of r*(m, 3): a low-rank kernel that passes every row condition, found numerically (docs/math.md §11).

:func:`propose` looks for float factors ``U, V`` (``2^m × r``) with ``A = U Vᵀ`` passing the
row condition of :mod:`certify.minrank.rows` with a margin: Adam on a hinge loss over the
row-normalized kernel ``Â = A / diag(A)`` (each row's condition is invariant under a
positive factor), from seeded starts — the truncated SVD of a symmetric solution
(:func:`ansatz_start`) and random ones. The loss, for each query ``x`` of weight ``w``:

* ``Σ relu(μ − Â[x, v])`` over the keys of level ``< w`` (they must be positive),
  ``Σ relu(−Â[x, v])`` over those of level ``w``;
* ``Σ_{T < s, d = s − T ≥ 2} relu(μ + (d − 2)/2 + (d − 1)·max_s Â − min_T Â)``.

Floats only propose: :func:`certify.minrank.upper.verified_table` rounds the factors to
integers and keeps a kernel only when the exact checks pass. The work is counted in
optimizer steps, never in seconds, so a seed gives the same proposals on any machine of
the same numpy.
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

__all__ = ["Geometry", "geometry", "propose", "ansatz_start", "MARGIN", "ANSATZ_BASE"]

#: The loss's margin ``μ`` (relative to ``A[x, x]``): large enough to survive rounding the factors.
MARGIN = 0.05


@dataclass(frozen=True)
class Geometry:
    """The levels of the ``2^m × 2^m`` kernel: ``level[x, v] = ⟨x, v⟩``, ``weight[x] = |x|``, and the level masks."""

    m: int
    level: np.ndarray
    weight: np.ndarray
    masks: np.ndarray  # (m + 1, N, N) bool: level ℓ
    below: np.ndarray  # (N, N) bool: level < weight of the row
    top: np.ndarray  # (N, N) bool: level = weight of the row


def geometry(m: int) -> Geometry:
    n = 1 << m
    ids = np.arange(n)
    bits = ((ids[:, None] >> np.arange(m)[None, :]) & 1).astype(np.int64)
    level = bits @ bits.T
    weight = bits.sum(1)
    masks = np.stack([level == k for k in range(m + 1)])
    return Geometry(m, level, weight, masks, level < weight[:, None], level == weight[:, None])


def _loss_grad(A: np.ndarray, g: Geometry, mu: float) -> tuple[float, np.ndarray]:
    """The hinge loss at ``A`` and its (sub)gradient with respect to ``A``."""
    n = A.shape[0]
    a0 = np.diagonal(A).copy()
    bad0 = a0 <= 1e-9
    a0s = np.where(bad0, 1e-9, a0)
    H = A / a0s[:, None]
    G = np.zeros_like(A)
    loss = 0.0
    # positivity below the top level, nonnegativity at it
    low = g.below & (H < mu)
    loss += float((mu - H)[low].sum())
    G[low] -= 1.0
    neg = g.top & (H < 0)
    loss += float(-H[neg].sum())
    G[neg] -= 1.0
    # the level minima and maxima
    L = g.m + 1
    mins = np.empty((n, L))
    maxs = np.empty((n, L))
    argmin = np.zeros((n, L), dtype=np.int64)
    argmax = np.zeros((n, L), dtype=np.int64)
    for k in range(L):
        lo = np.where(g.masks[k], H, np.inf)
        hi = np.where(g.masks[k], H, -np.inf)
        argmin[:, k] = lo.argmin(1)
        argmax[:, k] = hi.argmax(1)
        mins[:, k] = lo[np.arange(n), argmin[:, k]]
        maxs[:, k] = hi[np.arange(n), argmax[:, k]]
    gmin = np.zeros((n, L))
    gmax = np.zeros((n, L))
    for d in range(2, L):
        for T in range(0, L - d):
            s = T + d
            valid = g.weight >= s
            term = mu + (d - 2) / 2 + (d - 1) * maxs[:, s] - mins[:, T]
            active = valid & (term > 0)
            loss += float(term[active].sum())
            gmax[active, s] += d - 1
            gmin[active, T] -= 1
    rows = np.repeat(np.arange(n), L)
    np.add.at(G, (rows, argmin.ravel()), gmin.ravel())
    np.add.at(G, (rows, argmax.ravel()), gmax.ravel())
    # through Â = A / a0: dÂ[x,v]/dA[x,v] = 1/a0, dÂ[x,v]/da0 = −Â[x,v]/a0
    GA = G / a0s[:, None]
    diag = -(G * H).sum(1) / a0s
    GA[np.arange(n), np.arange(n)] += diag
    if bad0.any():  # a row whose A[x, x] ≤ 0: push it up
        loss += float((1e-3 - a0[bad0]).sum()) * 100
        GA[bad0, bad0] -= 100
    return loss, GA


#: The symmetric start: ``c^{|x| − ⟨x, v⟩}`` passes the row condition for this ``c`` (``c^d > (d − 2)/2 + d − 1``
#: for every ``d ≥ 2``) and is a function of ``(⟨x, v⟩, |x|)`` alone; its truncated SVD starts the search.
ANSATZ_BASE = 1.5


def ansatz_start(r: int, seed: int, geo: Geometry, noise: float = 0.01) -> tuple[np.ndarray, np.ndarray]:
    """Factors of width ``r``: the truncated SVD of the symmetric kernel ``1.5^{|x| − ⟨x, v⟩}`` plus seeded noise.

    The singular vectors' signs are fixed (the largest entry of each left vector positive),
    so the start does not depend on the LAPACK build's sign convention.
    """
    B = ANSATZ_BASE ** (geo.weight[:, None] - geo.level).astype(np.float64)
    P, S, Qt = np.linalg.svd(B)
    P, Qt = P[:, :r], Qt[:r]
    flip = np.sign(P[np.abs(P).argmax(0), np.arange(r)])
    P, Qt = P * flip, Qt * flip[:, None]
    rng = np.random.default_rng(seed)
    n = B.shape[0]
    return (P * np.sqrt(S[:r]) + noise * rng.standard_normal((n, r)),
            Qt.T * np.sqrt(S[:r]) + noise * rng.standard_normal((n, r)))


def propose(m: int, r: int, seed: int, steps: int, mu: float = MARGIN, lr: float = 0.003,
            start: tuple[np.ndarray, np.ndarray] | str | None = None, geo: Geometry | None = None):
    """Float factors ``(U, V)`` of width ``r`` whose kernel passed the loss with margin ``mu``, or ``None`` after ``steps``.

    Seeded (``numpy.random.default_rng(seed)``): a random start in ``[0, 1)``, ``start="ansatz"``
    (:func:`ansatz_start`), or given factors. Adam with a cosine-decayed step. Returns
    ``(U, V, steps_used)`` or ``(None, None, steps)``.
    """
    g = geo if geo is not None else geometry(m)
    n = 1 << m
    rng = np.random.default_rng(seed)
    if start is None:
        U, V = rng.random((n, r)), rng.random((n, r))
    elif isinstance(start, str):
        if start != "ansatz":
            raise ValueError(f"start {start!r}: 'ansatz', None (random) or factors")
        U, V = ansatz_start(r, seed, g)
    else:
        U, V = start[0].copy(), start[1].copy()
    mU, vU, mV, vV = (np.zeros_like(U), np.zeros_like(U), np.zeros_like(V), np.zeros_like(V))
    b1, b2, eps = 0.9, 0.999, 1e-8
    for t in range(1, steps + 1):
        loss, GA = _loss_grad(U @ V.T, g, mu)
        if loss == 0.0:
            return U, V, t - 1
        gU, gV = GA @ V, GA.T @ U
        step = lr * 0.5 * (1 + np.cos(np.pi * (t - 1) / steps))
        for P, gP, mP, vP in ((U, gU, mU, vU), (V, gV, mV, vV)):
            mP *= b1
            mP += (1 - b1) * gP
            vP *= b2
            vP += (1 - b2) * gP * gP
            P -= step * (mP / (1 - b1**t)) / (np.sqrt(vP / (1 - b2**t)) + eps)
    loss, _ = _loss_grad(U @ V.T, g, mu)
    return (U, V, steps) if loss == 0.0 else (None, None, steps)
