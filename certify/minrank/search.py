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
optimizer steps, never in seconds.

**The same proposals on every CPU.** A seed gives the same proposals, bit for bit, whatever
BLAS kernel or SIMD loops numpy picks on the machine (before, OpenBLAS's ``Haswell`` and
``Zen`` kernels gave a 144-step proposal at ``m = 5`` and ``SkylakeX`` a 168-step one;
``tests/test_minrank_determinism.py`` runs the search under two kernels and without numpy's
AVX-512 loops). Nothing here calls BLAS, LAPACK or a vectorized transcendental: the start's
truncated SVD comes from the kernel's Kronecker structure (:func:`symmetric_factors`,
``math.sqrt`` on a 2 × 2 matrix), the products ``U Vᵀ``, ``G V`` and ``Gᵀ U`` are sums of
outer products and per-column sums in a fixed order (:func:`outer_sum`,
:func:`column_sums`: numpy's elementwise ``*`` and ``+`` are correctly rounded, and its
``sum`` along an axis has a fixed order), and the step's cosine is ``math.cos``. (What
remains is the C library's ``cos`` and ``pow`` on Python floats and numpy's random
generators, the same code on every CPU.)
"""
from __future__ import annotations

import math
from dataclasses import dataclass
from itertools import combinations
from typing import Callable

import numpy as np

__all__ = ["Geometry", "geometry", "propose", "ansatz_start", "symmetric_factors", "factor_svd", "outer_sum",
           "column_sums", "MARGIN", "ANSATZ_BASE"]

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


def factor_svd(c: float = ANSATZ_BASE) -> tuple[tuple[float, float], tuple[tuple[float, float], tuple[float, float]],
                                                tuple[tuple[float, float], tuple[float, float]]]:
    """The SVD of the 2 × 2 factor ``b = [[1, 1], [c, 1]]`` (rows ``x_i``, columns ``v_i``), in closed form.

    ``c^{|x| − ⟨x, v⟩} = ∏_i b[x_i, v_i]``: the symmetric kernel is ``b^{⊗m}``. Returns
    ``((σ₁, σ₂), (p₁, p₂), (q₁, q₂))`` with ``b q_k = σ_k p_k``: ``q₁`` the top eigenvector of
    ``bᵀb = [[1 + c², 1 + c], [1 + c, 2]]`` (both entries positive), ``q₂ = (−q₁[1], q₁[0])``,
    ``σ₂ = |1 − c| / σ₁`` (``σ₁σ₂ = |det b|``), ``p_k = b q_k / σ_k``. Only ``+ − × ÷`` and
    ``math.sqrt`` (correctly rounded): the same bits on every machine. ``c ≠ 1``.
    """
    a, h, d = 1.0 + c * c, 1.0 + c, 2.0
    lam1 = (a + d + math.sqrt((a - d) * (a - d) + 4.0 * h * h)) / 2.0
    s1 = math.sqrt(lam1)
    s2 = abs(1.0 - c) / s1
    e0, e1 = h, lam1 - a
    norm = math.sqrt(e0 * e0 + e1 * e1)
    q1 = (e0 / norm, e1 / norm)
    q2 = (-q1[1], q1[0])
    p1 = ((q1[0] + q1[1]) / s1, (c * q1[0] + q1[1]) / s1)
    p2 = ((q2[0] + q2[1]) / s2, (c * q2[0] + q2[1]) / s2)
    return (s1, s2), (p1, p2), (q1, q2)


def _orthonormal(columns: list[list[float]]) -> list[list[float]]:
    """Modified Gram–Schmidt, twice, in Python floats (a fixed order of operations; no LAPACK)."""
    basis: list[list[float]] = []
    for w in columns:
        for _ in range(2):
            for b in basis:
                dot = sum(wi * bi for wi, bi in zip(w, b))
                w = [wi - dot * bi for wi, bi in zip(w, b)]
        norm = math.sqrt(sum(wi * wi for wi in w))
        basis.append([wi / norm for wi in w])
    return basis


def symmetric_factors(m: int, r: int, rng: np.random.Generator | None = None,
                      c: float = ANSATZ_BASE) -> tuple[np.ndarray, np.ndarray]:
    """``(U, V)``, ``2^m × r``: the rank-``r`` truncated SVD of ``B[x, v] = c^{|x| − ⟨x, v⟩}``, split evenly
    (``U = P √Σ``, ``V = Q √Σ``, so ``U Vᵀ`` is the truncation), built from ``B = b^{⊗m}`` (:func:`factor_svd`).

    The singular pairs of a Kronecker power are products: for each set ``S`` of coordinates,
    ``P_S[x] = ∏_{i ∉ S} p₁[x_i] · ∏_{i ∈ S} p₂[x_i]`` (``Q_S`` likewise) with singular value
    ``σ₁^{m−|S|} σ₂^{|S|}``. So the singular values come in levels ``k = |S|`` of multiplicity
    ``C(m, k)``, falling with ``k``. The truncation takes the levels ``0, 1, …`` whole while
    they fit in ``r`` and then ``rest`` columns from the next level ``k``, where the choice is
    free (every basis of the level's singular space is one; LAPACK's depended on the BLAS
    kernel). It is fixed here: ``rest`` orthonormal combinations of the level's ``C(m, k)``
    vectors (sets ``S`` in the order of ``itertools.combinations(range(m), k)``), their
    coefficients ``rng.standard_normal((C(m, k), rest))`` orthonormalized by Gram–Schmidt in
    Python floats; with ``rng=None``, the first ``rest`` sets themselves. Every entry is a
    product over the coordinates ``i = 0 … m − 1`` in order, every combination a sum in the
    order of the sets: the same bits on every CPU.
    """
    (s1, s2), (p1, p2), (q1, q2) = factor_svd(c)
    r1, r2 = math.sqrt(s1), math.sqrt(s2)
    fu = (np.array([p1[0] * r1, p1[1] * r1]), np.array([p2[0] * r2, p2[1] * r2]))  # √σ folded in, per coordinate
    fv = (np.array([q1[0] * r1, q1[1] * r1]), np.array([q2[0] * r2, q2[1] * r2]))
    n = 1 << m
    ids = np.arange(n)
    coord = [(ids >> i) & 1 for i in range(m)]

    def pair(S: tuple[int, ...]) -> tuple[np.ndarray, np.ndarray]:
        u, v = np.ones(n), np.ones(n)
        for i in range(m):
            k = 1 if i in S else 0
            u *= fu[k][coord[i]]
            v *= fv[k][coord[i]]
        return u, v

    cu: list[np.ndarray] = []
    cv: list[np.ndarray] = []
    for k in range(m + 1):
        if len(cu) == r:
            break
        sets = list(combinations(range(m), k))
        rest = r - len(cu)
        if len(sets) <= rest:
            for S in sets:
                u, v = pair(S)
                cu.append(u)
                cv.append(v)
            continue
        if rng is None:
            for S in sets[:rest]:
                u, v = pair(S)
                cu.append(u)
                cv.append(v)
            break
        W = rng.standard_normal((len(sets), rest))
        W = _orthonormal([[float(W[j, t]) for j in range(len(sets))] for t in range(rest)])
        level = [pair(S) for S in sets]
        for w in W:
            u, v = w[0] * level[0][0], w[0] * level[0][1]
            for wj, (lu, lv) in zip(w[1:], level[1:]):
                u += wj * lu
                v += wj * lv
            cu.append(u)
            cv.append(v)
        break
    return np.stack(cu, axis=1), np.stack(cv, axis=1)


def ansatz_start(r: int, seed: int, geo: Geometry, noise: float = 0.01) -> tuple[np.ndarray, np.ndarray]:
    """Factors of width ``r``: the truncated SVD of the symmetric kernel ``1.5^{|x| − ⟨x, v⟩}`` plus seeded noise.

    :func:`symmetric_factors` with ``rng = numpy.random.default_rng(seed)`` (the choice inside
    the last, degenerate level of singular values), then ``noise`` times standard normals from
    the same generator. No LAPACK: the same start on every machine.
    """
    rng = np.random.default_rng(seed)
    U, V = symmetric_factors(geo.m, r, rng)
    n = 1 << geo.m
    return U + noise * rng.standard_normal((n, r)), V + noise * rng.standard_normal((n, r))


def outer_sum(U: np.ndarray, V: np.ndarray, out: np.ndarray | None = None,
              tmp: np.ndarray | None = None) -> np.ndarray:
    """``U Vᵀ`` as ``Σ_k U[:, k] V[:, k]ᵀ``, the outer products added in the order ``k = 0 … r − 1``.

    Elementwise ``*`` and ``+`` only (correctly rounded, one at a time: no BLAS kernel, no
    fused multiply-add), so the bits do not depend on the CPU.
    """
    Ut, Vt = np.ascontiguousarray(U.T), np.ascontiguousarray(V.T)
    out = np.empty((U.shape[0], V.shape[0])) if out is None else out
    tmp = np.empty_like(out) if tmp is None and len(Ut) > 1 else tmp
    np.multiply(Ut[0][:, None], Vt[0][None, :], out=out)
    for k in range(1, len(Ut)):
        np.multiply(Ut[k][:, None], Vt[k][None, :], out=tmp)
        out += tmp
    return out


def column_sums(G: np.ndarray, F: np.ndarray, transpose: bool = False, tmp: np.ndarray | None = None) -> np.ndarray:
    """``G F`` (or ``Gᵀ F`` with ``transpose``), one column ``k`` at a time: ``G · F[:, k]`` summed along each row by
    numpy's ``sum(axis=1)`` (its fixed pairwise order), or ``G · F[:, k]`` down each column by ``sum(axis=0)`` (rows
    added in order). No BLAS: the same bits on every CPU."""
    Ft = np.ascontiguousarray(F.T)
    tmp = np.empty_like(G) if tmp is None else tmp
    out = np.empty((len(Ft), G.shape[1] if transpose else G.shape[0]))
    for k, f in enumerate(Ft):
        if transpose:
            np.multiply(G, f[:, None], out=tmp)
            tmp.sum(axis=0, out=out[k])
        else:
            np.multiply(G, f[None, :], out=tmp)
            tmp.sum(axis=1, out=out[k])
    return out.T


def propose(m: int, r: int, seed: int, steps: int, mu: float = MARGIN, lr: float = 0.003,
            start: tuple[np.ndarray, np.ndarray] | str | None = None, geo: Geometry | None = None,
            progress: Callable[[int, float], None] | None = None):
    """Float factors ``(U, V)`` of width ``r`` whose kernel passed the loss with margin ``mu``, or ``None`` after ``steps``.

    Seeded (``numpy.random.default_rng(seed)``): a random start in ``[0, 1)``, ``start="ansatz"``
    (:func:`ansatz_start`), or given factors. Adam with a cosine-decayed step. Returns
    ``(U, V, steps_used)`` or ``(None, None, steps)``. ``progress(step, loss)`` is called at
    every step (from 1) with the loss there: a start's progress, counted in steps. The products
    are :func:`outer_sum` and :func:`column_sums` (module docstring: the same bits on every CPU).
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
    A, tmp = np.empty((n, n)), np.empty((n, n))
    for t in range(1, steps + 1):
        loss, GA = _loss_grad(outer_sum(U, V, A, tmp), g, mu)
        if progress is not None:
            progress(t, loss)
        if loss == 0.0:
            return U, V, t - 1
        gU, gV = column_sums(GA, V, tmp=tmp), column_sums(GA, U, transpose=True, tmp=tmp)
        step = lr * 0.5 * (1 + math.cos(math.pi * (t - 1) / steps))
        for P, gP, mP, vP in ((U, gU, mU, vU), (V, gV, mV, vV)):
            mP *= b1
            mP += (1 - b1) * gP
            vP *= b2
            vP += (1 - b2) * gP * gP
            P -= step * (mP / (1 - b1**t)) / (np.sqrt(vP / (1 - b2**t)) + eps)
    loss, _ = _loss_grad(outer_sum(U, V, A, tmp), g, mu)
    return (U, V, steps) if loss == 0.0 else (None, None, steps)
