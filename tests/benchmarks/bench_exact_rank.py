"""Benchmark: exact ranks of dense 2,000 × 2,000 rational matrices, new path beside the old one.

Run: ``python tests/benchmarks/bench_exact_rank.py [--n 2000] [--width 64] [--skip-old]``.

1. Rank-deficient: the kernel ``P·Kᵀ`` of width 64 with float64 factors, formed exactly
   (entries with 107-bit denominators). Old path: python-flint ``fmpq_mat.rank`` (exact
   elimination, minutes). New: ``certify.lemmas.frobenius.matrix_rank`` (rank mod p, then
   a verified rank factorization); its phases are timed separately.
2. Full rank: a dense float64 matrix read exactly (issue 11's row). Old ``exact_rank``
   (rows of Fractions, as it was before this change, reimplemented here for the side-by-side
   figure), python-flint's own ``fmpq_mat.rank`` on the prebuilt matrix, and the new
   ``exact_rank`` on the same ``fmpq_mat``.
3. The same full-rank matrix given as a float64 kernel table would take the same path.
"""
from __future__ import annotations

import argparse
import os
import sys
import time
from fractions import Fraction

import numpy as np

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", ".."))
from certify.lemmas import frobenius as F  # noqa: E402


def qmat(A):
    from flint import fmpq, fmpq_mat

    return fmpq_mat(A.shape[0], A.shape[1], [fmpq(*x.as_integer_ratio()) for x in A.ravel()])


def timed(label: str, f):
    t0 = time.perf_counter()
    out = f()
    dt = time.perf_counter() - t0
    shown = out if isinstance(out, int) else out.rank if isinstance(out, F.RankResult) else type(out).__name__
    print(f"{label:<66} {dt:8.2f} s   -> {shown}", flush=True)
    return out, dt


def old_exact_rank(rows) -> int:
    """``exact_rank`` as it was (b745acb): Fractions through ``exact``, then a list of fmpq, then flint."""
    from flint import fmpq, fmpq_mat

    from certify.exact import exact

    rows = [[exact(v, "matrix entry") for v in row] for row in rows]
    flat = [fmpq(v.numerator, v.denominator) for r in rows for v in r]
    return fmpq_mat(len(rows), len(rows[0]), flat).rank()


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--n", type=int, default=2000)
    ap.add_argument("--width", type=int, default=64)
    ap.add_argument("--skip-old", action="store_true", help="skip the minutes-long fmpq_mat.rank of the deficient kernel")
    args = ap.parse_args()
    import flint

    print(f"python {sys.version.split()[0]}, python-flint {flint.__version__}, {os.cpu_count()} cores, "
          f"load average {os.getloadavg()[0]:.2f}")
    rng = np.random.default_rng(1)
    n, r = args.n, args.width
    P, K = qmat(rng.random((n, r))), qmat(rng.random((n, r)))
    A, _ = timed(f"form the {n}×{n} kernel of width {r} exactly (P·Kᵀ)", lambda: P * K.transpose())
    res, _ = timed("NEW matrix_rank (rank mod p + verified factorization)", lambda: F.matrix_rank(A))
    print(f"    lower: {res.lower_from}\n    upper: {res.upper_from}")
    if not args.skip_old:
        timed("OLD python-flint fmpq_mat.rank (exact elimination)", lambda: A.rank())

    dense = rng.random((n, n))
    B, _ = timed(f"convert a dense {n}×{n} float64 matrix to fmpq_mat", lambda: qmat(dense))
    rows, _ = timed("the same as rows of Fractions", lambda: [[Fraction(*x.as_integer_ratio()) for x in row] for row in dense])
    _, t_old = timed("OLD exact_rank(rows of Fractions)", lambda: old_exact_rank(rows))
    _, t_flint = timed("python-flint fmpq_mat.rank on the prebuilt matrix", lambda: B.rank())
    _, t_new = timed("NEW exact_rank(fmpq_mat)", lambda: F.exact_rank(B))
    _, t_rows = timed("NEW exact_rank(rows of Fractions)", lambda: F.exact_rank(rows))
    print(f"ratio to python-flint's own rank: old {t_old / t_flint:.2f}, new (fmpq_mat) {t_new / t_flint:.2f}, "
          f"new (rows) {t_rows / t_flint:.2f}")


if __name__ == "__main__":
    main()
