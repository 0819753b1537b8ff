"""certify minrank's float search gives the same proposals on every x86 CPU (issue 42; docs/math.md §11).

Before, the start was LAPACK's truncated SVD of a kernel whose singular values are highly
degenerate, and the loop used BLAS products: OpenBLAS's Haswell kernel gave a 144-step
proposal at m = 5, its SkylakeX kernel a 168-step one. Now the start is built from the
kernel's Kronecker structure and the loop's products are elementwise operations in a fixed
order (certify/minrank/search.py, module docstring). Laws: the start's columns are singular
vectors of the symmetric kernel with its top singular values (checked against
numpy.linalg.svd); the products equal BLAS's up to rounding; the proposals — steps and
integer table — are bit for bit the same under two BLAS kernels and without numpy's
AVX-512 loops.
"""
import json
import os
import platform
import subprocess
import sys

import numpy as np
import pytest

from certify.minrank.search import (ANSATZ_BASE, column_sums, factor_svd, geometry, outer_sum, propose,
                                    symmetric_factors)

from conftest import ROOT


def _kernel(m, c=ANSATZ_BASE):
    g = geometry(m)
    return c ** (g.weight[:, None] - g.level).astype(float)


@pytest.mark.parametrize("c", [ANSATZ_BASE, 0.5, 2.0, 3.0])
def test_the_two_by_two_factor_s_svd_is_exact_in_closed_form(c):
    (s1, s2), (p1, p2), (q1, q2) = factor_svd(c)
    b = np.array([[1.0, 1.0], [c, 1.0]])
    assert np.allclose(s1 * np.outer(p1, q1) + s2 * np.outer(p2, q2), b, atol=1e-14)
    assert np.allclose([s1, s2], np.linalg.svd(b, compute_uv=False), rtol=1e-14) and s1 > s2 > 0
    for u, v in ((p1, p2), (q1, q2)):
        assert np.allclose([np.dot(u, u), np.dot(v, v), np.dot(u, v)], [1, 1, 0], atol=1e-14)
    assert min(q1) > 0 and min(p1) > 0  # the top pair of a positive matrix: positive
    assert np.allclose(_kernel(3, c), np.kron(np.kron(b, b), b))  # B = b^{⊗m}: coordinate 0 is the last factor


@pytest.mark.parametrize("m", range(1, 8))
def test_the_start_s_columns_are_singular_vectors_with_the_top_singular_values(m):
    """Against numpy.linalg.svd: U = P√Σ, V = Q√Σ with orthonormal P, Q, B Q = P Σ, Bᵀ P = Q Σ, and Σ the r largest
    singular values — whole levels and a part of the next, fixed (rng=None) or a seeded combination."""
    B = _kernel(m)
    top = np.linalg.svd(B, compute_uv=False)
    for r in sorted({1, 2, m, m + 1, m + 2, min(2 * m + 3, 1 << m), 1 << m}):
        if r > 1 << m:
            continue
        for rng in (None, np.random.default_rng(5)):
            U, V = symmetric_factors(m, r, rng)
            assert U.shape == V.shape == (1 << m, r)
            nu, nv = np.linalg.norm(U, axis=0), np.linalg.norm(V, axis=0)
            assert np.allclose(nu, nv, rtol=1e-12)  # split evenly: both columns carry √σ
            sigma, P, Q = nu * nv, U / nu, V / nv
            assert np.allclose(sigma, top[:r], rtol=1e-12), (m, r)
            assert np.allclose(P.T @ P, np.eye(r), atol=1e-12) and np.allclose(Q.T @ Q, np.eye(r), atol=1e-12)
            assert np.allclose(B @ Q, P * sigma, atol=1e-10 * top[0]) and np.allclose(B.T @ P, Q * sigma,
                                                                                     atol=1e-10 * top[0])
    # the full rank gives B itself
    U, V = symmetric_factors(m, 1 << m)
    assert np.allclose(U @ V.T, B, atol=1e-12 * top[0])


def test_the_choice_inside_a_level_is_seeded():
    a = symmetric_factors(5, 4, np.random.default_rng(1))
    b = symmetric_factors(5, 4, np.random.default_rng(1))
    c = symmetric_factors(5, 4, np.random.default_rng(2))
    assert all(np.array_equal(x, y) for x, y in zip(a, b)) and not np.array_equal(a[0], c[0])
    assert np.array_equal(symmetric_factors(5, 6)[0], symmetric_factors(5, 6, np.random.default_rng(3))[0])  # whole levels


def test_the_products_are_blas_s_up_to_rounding_and_sum_in_order():
    rng = np.random.default_rng(0)
    for n, r in ((1, 1), (7, 3), (64, 5), (33, 9)):
        U, V, G = rng.random((n, r)), rng.random((n, r)), rng.standard_normal((n, n))
        assert np.allclose(outer_sum(U, V), U @ V.T, rtol=1e-13)
        assert np.allclose(column_sums(G, V), G @ V, rtol=1e-12, atol=1e-12)
        assert np.allclose(column_sums(G, U, transpose=True), G.T @ U, rtol=1e-12, atol=1e-12)
    U, V = rng.random((5, 4)), rng.random((6, 4))  # U Vᵀ: the outer products added in the order k = 0 … r − 1
    A = outer_sum(U, V)
    for i in range(5):
        for j in range(6):
            acc = U[i, 0] * V[j, 0]
            for k in range(1, 4):
                acc = acc + U[i, k] * V[j, k]
            assert A[i, j] == acc


def test_a_start_s_progress_is_reported_at_every_step():
    seen = []
    U, V, used = propose(4, 2, 2000, 300, start="ansatz", progress=lambda t, loss: seen.append((t, loss)))
    assert U is not None and [t for t, _ in seen] == list(range(1, used + 2)) and seen[-1][1] == 0.0


_SCRIPT = """
import hashlib, json
from certify.minrank.search import propose
from certify.minrank.upper import upper_side
up = upper_side(5, 3, 3, 2, 4000)
U, V, used = propose(5, 3, 3001, 300)  # a random start that proposes nothing: all 300 steps
print(json.dumps({"how": up.how, "table": hashlib.sha256(json.dumps(up.table).encode()).hexdigest(),
                  "random": [used, U is None]}))
"""


@pytest.mark.skipif(platform.machine() not in ("x86_64", "AMD64"), reason="OpenBLAS core types are x86 kernels")
def test_the_search_gives_the_same_proposals_under_two_blas_kernels_and_without_avx512():
    """m = 5 under OPENBLAS_CORETYPE=Haswell and =SkylakeX (kernels chosen when OpenBLAS loads: both run on an
    AVX-512 CPU), and with numpy's dispatched SIMD loops off: the same steps and the same integer table. (Before:
    144 steps under Haswell, 168 under SkylakeX.)"""
    from numpy._core._multiarray_umath import __cpu_dispatch__, __cpu_features__

    envs = {"Haswell": {"OPENBLAS_CORETYPE": "Haswell"}}
    if __cpu_features__.get("AVX512F") and __cpu_features__.get("AVX512_SKX"):
        envs["SkylakeX"] = {"OPENBLAS_CORETYPE": "SkylakeX"}
    if __cpu_dispatch__:
        envs["baseline SIMD"] = {"NPY_DISABLE_CPU_FEATURES": " ".join(__cpu_dispatch__)}
    if len(envs) < 2:
        pytest.skip("this CPU runs only one of the kernels compared")
    got = {}
    for name, extra in envs.items():
        proc = subprocess.run([sys.executable, "-c", _SCRIPT], capture_output=True, text=True, cwd=ROOT, timeout=300,
                              env={**os.environ, "CERTIFY_PROGRESS": "0", **extra})
        assert proc.returncode == 0, proc.stderr
        got[name] = json.loads(proc.stdout)
    first = next(iter(got.values()))
    assert "search (rank 3, seed 3000, ansatz start" in first["how"] and first["random"] == [300, True]
    assert all(doc == first for doc in got.values()), got
