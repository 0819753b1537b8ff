"""Benchmark: ``certify check-kernel`` on a float table of width 64, and exact ranks.

Run: ``python tests/benchmarks/bench_check_kernel.py [--repeat N] [--slow]``.

1. A random positive float64 table of width r = 64 with a one-hot readout on the 239
   tokens of the rank-nine family: ``certify check-kernel`` as a fresh process (median
   of N, peak RSS), with and without ``--search-readout``.
2. Exact rank of 2,000 × 2,000 rational kernels: a dense float64 kernel (full rank),
   and a kernel of width 64 given by its factors (``factored_rank``). ``--slow`` also
   runs python-flint's dense rank on the formed width-64 product (minutes).
3. sympy's exact rank against python-flint at sizes sympy finishes: ``Matrix.rank``
   (float-valued 10, 15; small integers 10, 20) and ``DomainMatrix`` over QQ (50–200).
"""
from __future__ import annotations

import argparse
import os
import shutil
import statistics
import sys
import tempfile
import time
from fractions import Fraction

import numpy as np

sys.path.insert(0, os.path.dirname(__file__))
sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", ".."))
from bench_rank_nine import run  # noqa: E402


def table_r64(path: str) -> None:
    from witnesses import rank_nine_family

    fam = rank_nine_family("paper")
    toks = sorted({z for X in fam.inputs for z in X.tokens})
    rng = np.random.default_rng(0)
    N = len(toks)
    np.savez(path, tokens=np.array([format(z, "024b")[::-1] for z in toks]),
             phi_q=rng.random((N, 64)), phi_k=rng.random((N, 64)),
             beta=rng.normal(size=N), w=rng.normal(size=(N, N)))


def qmat(A):
    from flint import fmpq, fmpq_mat

    return fmpq_mat(A.shape[0], A.shape[1], [fmpq(*x.as_integer_ratio()) for x in A.ravel()])


def timed(label: str, f):
    t0 = time.perf_counter()
    out = f()
    shown = out if isinstance(out, int) else type(out).__name__
    print(f"{label:<62} {time.perf_counter() - t0:8.2f} s   -> {shown}")
    return out


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--repeat", type=int, default=5)
    ap.add_argument("--slow", action="store_true")
    args = ap.parse_args()
    certify = shutil.which("certify") or sys.exit("certify is not on PATH (pip install .)")
    print(f"python {sys.version.split()[0]}, {os.cpu_count()} cores")
    with tempfile.TemporaryDirectory() as tmp:
        path = os.path.join(tmp, "r64.npz")
        table_r64(path)
        for extra in ([], ["--search-readout"]):
            cmd = [certify, "check-kernel", path, *extra]
            runs = [run(cmd, tmp, ok=(0, 1)) for _ in range(args.repeat)]  # the random table does not solve: exit 1
            walls = [w for w, _ in runs]
            print(f"certify check-kernel r64.npz {' '.join(extra):<18} median {statistics.median(walls) * 1000:7.1f} ms "
                  f"(n={len(walls)})  peak RSS {max(r for _, r in runs) / 1024:.1f} MiB")

    from certify.linalg.rank import factored_rank

    rng = np.random.default_rng(1)
    n = 2000
    dense = rng.random((n, n))
    A = timed("convert a 2000×2000 float64 kernel to fmpq_mat", lambda: qmat(dense))
    timed("exact rank, dense 2000×2000 (full rank), python-flint", lambda: A.rank())
    P, K = qmat(rng.random((n, 64))), qmat(rng.random((n, 64)))
    timed("exact rank, 2000×2000 kernel of width 64, factored_rank", lambda: factored_rank(P, K))
    if args.slow:
        prod = P * K.transpose()
        timed("exact rank, same kernel formed densely, python-flint", lambda: prod.rank())

    import sympy

    # sympy's Matrix.rank explodes on float-valued rationals (15×15 takes seconds, 20×20
    # did not finish in 15 minutes) and is slow on integers from 30×30; sympy's
    # DomainMatrix over QQ is its fast path.
    from sympy import QQ
    from sympy.polys.matrices import DomainMatrix

    for k in (10, 15):
        M = rng.random((k, k))
        Sm = sympy.Matrix(k, k, [sympy.Rational(*x.as_integer_ratio()) for x in M.ravel()])
        timed(f"exact rank {k}×{k} float-valued, sympy Matrix.rank", lambda: Sm.rank())
        timed(f"exact rank {k}×{k} float-valued, python-flint", lambda: qmat(M).rank())
    for k in (10, 20):
        M = rng.integers(0, 10, size=(k, k))
        Sm = sympy.Matrix(M.tolist())
        timed(f"exact rank {k}×{k} integers 0–9, sympy Matrix.rank", lambda: Sm.rank())
        timed(f"exact rank {k}×{k} integers 0–9, python-flint", lambda: qmat(M.astype(float)).rank())
    for k in (50, 100, 200):
        M = rng.random((k, k))
        D = DomainMatrix([[QQ(*x.as_integer_ratio()) for x in row] for row in M], (k, k), QQ)
        timed(f"exact rank {k}×{k} float-valued, sympy DomainMatrix(QQ)", lambda: D.rank())
        timed(f"exact rank {k}×{k} float-valued, python-flint", lambda: qmat(M).rank())


if __name__ == "__main__":
    main()
