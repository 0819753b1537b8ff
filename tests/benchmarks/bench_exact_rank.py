"""Benchmark: exact ranks of dense 2,000 × 2,000 rational matrices, new path beside the old one.

Run: ``python tests/benchmarks/bench_exact_rank.py [--n 2000] [--width 64] [--skip-old] [--skip-modular]``.

1. Rank-deficient: the kernel ``P·Kᵀ`` of width 64 with float64 factors, formed exactly
   (entries with 107-bit denominators). Old path: python-flint ``fmpq_mat.rank`` (exact
   elimination, minutes). New: ``certify.linalg.rank.matrix_rank`` (rank mod p, then
   a verified rank factorization): as it chooses (``auto``: a small factorization found by
   lattice reduction), and forced to the plain factorization checked modulo many primes
   (``modular``, the first version of the new path). Then the same for a kernel of
   20-bit integer factors (what an exactly exported low-rank int64 kernel looks like).
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
from certify.linalg import rank as F  # noqa: E402


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


def phases(A) -> None:
    """The lattice path's steps one by one (what ``_small_factorization`` does), each timed."""
    from flint import ctx, fmpq_mat, fmpz_mat, nmod_mat

    print("  phases of the lattice path:")
    Z, _ = timed("    clear denominators", lambda: A.numer_denom()[0])
    (R, rho), _ = timed("    rank modulo 1048573", lambda: nmod_mat(Z, 1048573).rref())
    (J, ZJ, I), _ = timed("    pivot columns J and rows I", lambda: F._pivot_blocks(Z, R, rho, 1048573))
    H, _ = timed(f"    Hermite form of Z[:,J] ({Z.nrows()} × {rho})", lambda: ZJ.hnf())
    Hb = fmpz_mat(rho, rho, [H[i, j] for i in range(rho) for j in range(rho)])
    print(f"      lattice determinant 2^{sum(int(H[i, i]).bit_length() for i in range(rho)):,}")
    BJ, _ = timed(f"    LLL in dimension {rho}", lambda: Hb.lll(delta=0.75))

    def solves():
        Cn = fmpq_mat(BJ.transpose()).solve(fmpq_mat(ZJ.transpose())).transpose().numer_denom()[0]
        CI = fmpz_mat(rho, rho, [Cn[i, j] for i in I for j in range(rho)])
        ZI = fmpz_mat(rho, Z.ncols(), [Z[i, j] for i in I for j in range(Z.ncols())])
        return Cn, fmpq_mat(CI).solve(fmpq_mat(ZI)).numer_denom()

    (Cn, (Bn, b)), _ = timed("    solve for C and B", solves)
    ctx.threads = 2
    ok, _ = timed("    exact product C·B and comparison with b·Z", lambda: int(Cn * Bn == Z * b))
    ctx.threads = 1
    assert ok


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--n", type=int, default=2000)
    ap.add_argument("--width", type=int, default=64)
    ap.add_argument("--skip-old", action="store_true", help="skip the minutes-long fmpq_mat.rank of the deficient kernels")
    ap.add_argument("--skip-modular", action="store_true", help="skip the forced modular path (about 25 s)")
    args = ap.parse_args()
    import flint

    print(f"python {sys.version.split()[0]}, python-flint {flint.__version__}, {os.cpu_count()} cores, "
          f"load average {os.getloadavg()[0]:.2f}")
    rng = np.random.default_rng(1)
    n, r = args.n, args.width
    P, K = qmat(rng.random((n, r))), qmat(rng.random((n, r)))
    A, _ = timed(f"form the {n}×{n} kernel of width {r} exactly (P·Kᵀ)", lambda: P * K.transpose())
    res, _ = timed("NEW matrix_rank, auto (rank mod p + small factorization by LLL)", lambda: F.matrix_rank(A))
    print(f"    lower: {res.lower_from}\n    upper: {res.upper_from}")
    phases(A)
    if not args.skip_modular:
        res, _ = timed("NEW matrix_rank, factorization='modular' (G⁻¹Z[I,:], many primes)",
                       lambda: F.matrix_rank(A, factorization="modular"))
        print(f"    upper: {res.upper_from}")
    if not args.skip_old:
        timed("OLD python-flint fmpq_mat.rank (exact elimination)", lambda: A.rank())
    del A
    from flint import fmpz_mat

    Pi = fmpz_mat(n, r, [int(v) for v in rng.integers(0, 2**20, (n, r)).ravel()])
    Ki = fmpz_mat(r, n, [int(v) for v in rng.integers(0, 2**20, (r, n)).ravel()])
    Ai, _ = timed(f"form the {n}×{n} kernel of width {r} from 20-bit integer factors", lambda: Pi * Ki)
    res, _ = timed("NEW matrix_rank, auto", lambda: F.matrix_rank(Ai))
    print(f"    upper: {res.upper_from}")
    if not args.skip_modular:
        timed("NEW matrix_rank, factorization='modular'", lambda: F.matrix_rank(Ai, factorization="modular"))
    if not args.skip_old:
        timed("OLD python-flint fmpz_mat.rank (exact elimination)", lambda: Ai.rank())
    del Ai

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
