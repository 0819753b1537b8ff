"""Benchmark: the cost of one iteration of ``certify bracket``'s search, by family (issue 32; docs/performance.md).

    python tests/benchmarks/bench_bracket_iteration.py [--iterations N] [--only NAME]

For each family: the time to build its reduced matrix (docs/math.md §12: queries × keys and
jumps, from the jumps of an explicit family or the code and plan of a compact one), and
the wall time per Adam iteration of :func:`certify.bracket.descend` at a typical width
``r`` from a seeded random start (``N`` iterations, default 200; the loss and gradient over
every condition plus three matrix products), and per iteration of ``--method boxes``
(:func:`certify.bracket.boxes.project`: two clips, two least-squares refits, four
products; the stopping test every tenth iteration) from the same start. Row ``m = 28``'s block is
above the dense search's cap: only its search by roots is timed (the roots' block,
docs/math.md §12, Lemma 12.2). Single-threaded BLAS is not forced: the
figures are for the machine as it is (``OPENBLAS_NUM_THREADS`` to compare).
"""
from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))

CASES = {  # name → (family argument of load_family / a named code, width r)
    "rank-nine": ("tests/certificates/valid/rank_nine_paper.json", 13),
    "hadamard24": ("hadamard24", 32),
    "m20": ("docs/results/m20.cert.json", 36),
    "m22": ("docs/results/m22.cert.json", 100),
    "m28": ("docs/results/m28.cert.json", 150),
    "golay24": ("docs/results/golay24.cert.json", 150),
}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--iterations", type=int, default=200)
    ap.add_argument("--only", choices=sorted(CASES))
    args = ap.parse_args()
    from certify.bracket import constraints, descend, reduce_family
    from certify.kernels.audit import load_family

    from certify.bracket.boxes import boxes, project
    from certify.bracket.descent import MAX_BLOCK, random_start
    from certify.bracket.rooted import RootedSearch

    print("| family | reduced matrix | jumps | build | width r | per iteration (Adam) | per iteration (boxes) |")
    print("| --- | ---: | ---: | ---: | ---: | ---: | ---: |")
    for name, (path, r) in CASES.items():
        if args.only and name != args.only:
            continue
        t0 = time.perf_counter()
        family = load_family(path if path.endswith(".json") else path)
        red = reduce_family(family)
        Q, K = red.shape
        if Q * K > MAX_BLOCK:  # row m = 28: no dense search; --method boxes by roots (docs/math.md §12, Lemma 12.2)
            rooted = RootedSearch(red)
            built = time.perf_counter() - t0
            t2 = time.perf_counter()
            project(None, rooted.LO, rooted.HI, r, args.iterations, start=random_start(rooted, r, 0),
                    check_every=10**9, test=rooted.test)
            per_box = (time.perf_counter() - t2) / args.iterations
            print(f"| {name} (by roots: {rooted.shape[1]:,} roots) | {Q:,} × {K:,} | {red.jumps:,} | {built:.1f} s | "
                  f"{r} | — | {per_box * 1000:.1f} ms |", flush=True)
            continue
        con = constraints(red)
        built = time.perf_counter() - t0
        t1 = time.perf_counter()
        descend(con, r, 0, args.iterations)
        per = (time.perf_counter() - t1) / args.iterations
        LO, HI = boxes(red, con)
        t2 = time.perf_counter()
        project(con, LO, HI, r, args.iterations, start=random_start(con, r, 0), check_every=10**9)
        per_box = (time.perf_counter() - t2) / args.iterations
        print(f"| {name} | {Q:,} × {K:,} | {red.jumps:,} | {built:.1f} s | {r} | {per * 1000:.1f} ms "
              f"| {per_box * 1000:.1f} ms |", flush=True)


if __name__ == "__main__":
    main()
