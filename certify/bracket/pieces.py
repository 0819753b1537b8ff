"""The bracket search's linear algebra in calls that Ctrl-C and SIGTERM can stop (issue 42, point 9).

A signal reaches Python only between two calls into numpy: one BLAS product or LAPACK
decomposition cannot be stopped while it runs. golay24's reduced matrix is 2,576 × 2,576,
and a full SVD of it (the exponential start's, and each warm start's truncation) was one
such call of seconds to minutes; a product of it with factors of width 1,300 is about
9·10⁹ multiply-adds. So every call here is kept below :data:`LARGE_CALL` multiply-adds:

* :func:`matmul` is ``X @ Y`` — the same call, the same bits — up to that size, and above it
  the same product by blocks of rows of ``X``;
* :func:`top_factors` is the truncated SVD of ``P Qᵀ``, split evenly between the two
  factors (what :func:`certify.bracket.descent.truncate` always returned). Up to that size
  it is ``numpy.linalg.svd`` of the product, exactly as before (every family of the "Upper
  side" table but golay24 and the rows ``m ≥ 24``: their documented runs keep their bits);
  above it, for factors of width ``w`` with ``n·w² ≤`` :data:`LARGE_CALL`, a thin QR of each
  factor and the SVD of the ``w × w`` core (the same truncation, other roundings); else a
  subspace iteration (:data:`SUBSPACE_ROUNDS` rounds from a fixed seeded Gaussian block,
  orthonormalized by blocks of :data:`BLOCK` columns), followed by the SVD of the projected
  ``n × r`` matrix when that is small, or else only a balancing of each basis vector's
  scale: a rank-``r`` approximation whose column space is close to the top ``r`` singular
  vectors' — it is a start for the search, not a claim (the exact check decides).

Floats only propose here, as everywhere in the search.
"""
from __future__ import annotations

from typing import Callable

import numpy as np

__all__ = ["LARGE_CALL", "BLOCK", "SUBSPACE_ROUNDS", "matmul", "svd_cost", "top_factors", "orthonormal",
           "sorted_unique", "has_duplicates"]

#: The most multiply-adds one BLAS or LAPACK call is given: about 0.02 s for a product and 0.2 s for an SVD on the
#: 2-core machine (2026-12-03: 2,576 × 2,576 × 1,300, 8.6·10⁹ multiply-adds, took 0.18 s; the 2,576 × 2,576 SVD 3.8 s).
LARGE_CALL = 2**30
#: Columns orthonormalized at once (one QR of ``n × BLOCK`` after two projections on the columns before).
BLOCK = 128
#: Rounds of the subspace iteration (each: one product with ``M``, one with ``Mᵀ``, two orthonormalizations).
SUBSPACE_ROUNDS = 2


def matmul(X: np.ndarray, Y: np.ndarray) -> np.ndarray:
    """``X @ Y``; above :data:`LARGE_CALL` multiply-adds, the same product by blocks of rows of ``X`` (one call each)."""
    n, k = X.shape
    r = Y.shape[1]
    if n * k * r <= LARGE_CALL:
        return X @ Y
    out = np.empty((n, r), dtype=np.result_type(X, Y))
    rows = max(1, LARGE_CALL // max(1, k * r))
    for i in range(0, n, rows):
        np.matmul(X[i:i + rows], Y, out=out[i:i + rows])
    return out


def svd_cost(n1: int, n2: int) -> int:
    """The multiply-adds an SVD of an ``n1 × n2`` matrix is counted at: ``n1 · n2 · min(n1, n2)``."""
    return n1 * n2 * min(n1, n2)


def orthonormal(Y: np.ndarray) -> np.ndarray:
    """An orthonormal basis of the columns of ``Y`` (``n × k``, ``k ≤ n``): one QR when small, else block Gram–Schmidt
    (:data:`BLOCK` columns at a time, projected twice on the columns before, products by :func:`matmul`)."""
    n, k = Y.shape
    if n * k * k <= LARGE_CALL:
        return np.linalg.qr(Y)[0]
    out = np.empty_like(Y)
    for j in range(0, k, BLOCK):
        B = Y[:, j:j + BLOCK].copy()
        if j:
            done = out[:, :j]
            for _ in range(2):
                B -= matmul(done, matmul(done.T, B))
        out[:, j:j + BLOCK] = np.linalg.qr(B)[0]
    return out


def top_factors(P: np.ndarray, Q: np.ndarray | None, r: int,
                say: Callable[[str], None] | None = None) -> tuple[np.ndarray, np.ndarray]:
    """The best rank-``r`` factors ``(U√s, V√s)`` of ``M = P Qᵀ`` (``Q = None``: ``M = P``), in calls below
    :data:`LARGE_CALL` multiply-adds (module docstring); ``r`` columns each (zero columns past ``M``'s width)."""
    say = say or (lambda text: None)
    n1 = P.shape[0]
    n2 = P.shape[1] if Q is None else Q.shape[0]
    if svd_cost(n1, n2) <= LARGE_CALL:  # exactly the earlier truncation
        U, s, Vt = np.linalg.svd(P if Q is None else P @ Q.T, full_matrices=False)
        root = np.sqrt(s[:r])
        return _pad(U[:, :r] * root, r), _pad(Vt[:r].T * root, r)
    w = P.shape[1]
    if Q is not None and max(n1, n2) * w * w <= LARGE_CALL:  # thin factors: QR of each, SVD of the w × w core
        Qp, Rp = np.linalg.qr(P)
        Qq, Rq = np.linalg.qr(Q)
        X, s, Yt = np.linalg.svd(Rp @ Rq.T)
        root = np.sqrt(s[:r])
        return _pad(matmul(Qp, X[:, :r]) * root, r), _pad(matmul(Qq, Yt[:r].T) * root, r)
    if Q is None:
        forward, backward = (lambda Z: matmul(P, Z)), (lambda Z: matmul(P.T, Z))
    else:
        forward, backward = (lambda Z: matmul(P, matmul(Q.T, Z))), (lambda Z: matmul(Q, matmul(P.T, Z)))
    k = min(r, n1, n2)
    basis = orthonormal(forward(np.random.default_rng(0).standard_normal((n2, k))))
    for i in range(SUBSPACE_ROUNDS):
        say(f"rank-{r} start: subspace iteration {i + 1}/{SUBSPACE_ROUNDS} on the {n1:,} × {n2:,} matrix")
        basis = orthonormal(forward(orthonormal(backward(basis))))
    Bt = backward(basis)  # Mᵀ basis: M ≈ basis Btᵀ
    if n2 * k * k <= LARGE_CALL:  # Rayleigh–Ritz: the SVD of the n2 × k projection
        X, s, Yt = np.linalg.svd(Bt, full_matrices=False)
        root = np.sqrt(s)
        return _pad(matmul(basis, Yt.T) * root, r), _pad(X * root, r)
    scale = np.sqrt(np.linalg.norm(Bt, axis=0))  # ‖Mᵀ q‖^½ per basis vector q: the two factors' columns balanced
    scale[scale == 0] = 1.0
    return _pad(basis * scale, r), _pad(Bt / scale, r)


def _pad(F: np.ndarray, r: int) -> np.ndarray:
    return F if F.shape[1] >= r else np.hstack([F, np.zeros((F.shape[0], r - F.shape[1]))])


def sorted_unique(x: np.ndarray) -> np.ndarray:
    """``numpy.unique(x)`` of a 1-d integer array by one sort: numpy 2.4's ``unique`` hashes integer arrays, and took
    15–21 s in one call on golay24's 6.6 M flat indices (0.2 s to sort them)."""
    s = np.sort(x)
    keep = np.ones(len(s), dtype=bool)
    keep[1:] = s[1:] != s[:-1]
    return s[keep]


def has_duplicates(x: np.ndarray) -> bool:
    """Whether a 1-d integer array repeats a value (one sort, as :func:`sorted_unique`)."""
    s = np.sort(x)
    return bool((s[1:] == s[:-1]).any())
