"""How far `certify construction` goes in a minute: ``python tests/benchmarks/bench_constructions.py``.

For each construction and length it runs the exhaustive check at m = 1, 2, … in this
process (one core), stopping before a run whose predicted time (the last run's time ×
the growth in the number of inputs) exceeds ``--budget`` seconds or whose input count is
over the command's limit. Prints a Markdown table: the largest m checked within the
budget, its input count and time, the throughput, and the next m with its predicted time.
Also times `--rank` for softmax, `rank15`, and `certify identities`.
"""
from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

from certify.constructions import Polynomial, RankOne, Relu, Softmax  # noqa: E402
from certify.constructions.exhaustive import MAX_INPUTS, count_inputs, domain_kernel_rank, run  # noqa: E402

CONFIGS = [
    ("rank-one", "lengths 1–2", lambda m: RankOne(m, 2)),
    ("rank-one", "lengths 1–3 (fails)", lambda m: RankOne(m, 3)),
    ("softmax", "lengths 1–3", lambda m: Softmax(m, 3)),
    ("softmax", "lengths 1–4", lambda m: Softmax(m, 4)),
    ("softmax", "lengths 1–6", lambda m: Softmax(m, 6)),
    ("polynomial", "D = 2, length 3", lambda m: Polynomial(m, 2)),
    ("polynomial", "D = 3, length 4", lambda m: Polynomial(m, 3)),
    ("polynomial", "D = 2, length 4 (fails)", lambda m: Polynomial(m, 2, length=4)),
    ("relu", "length 3", lambda m: Relu(m)),
]


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--budget", type=float, default=60.0)
    args = ap.parse_args()
    print("| construction | lengths | largest m within the budget | inputs | time | inputs/s | next m: inputs, predicted time |")
    print("| --- | --- | --- | --- | --- | --- | --- |")
    for name, lengths, make in CONFIGS:
        best = None
        m, last_t, last_n = 1, None, None
        while True:
            c = make(m)
            n = int(count_inputs(c.m, c.lengths, c.positions))
            predicted = None if last_t is None else last_t * n / last_n
            if n > MAX_INPUTS or (predicted is not None and predicted > args.budget):
                nxt = f"m = {m}: {n:,}" + (" (over the limit: refused)" if n > MAX_INPUTS else f", ≈ {predicted:.0f} s")
                break
            t0 = time.perf_counter()
            run(c, {}, progress=False)
            dt = time.perf_counter() - t0
            best = (m, n, dt)
            last_t, last_n = max(dt, 1e-3), n
            m += 1
        bm, bn, bt = best
        print(f"| {name} | {lengths} | {bm} | {bn:,} | {bt:.1f} s | {bn / bt / 1e6:.1f} M | {nxt} |", flush=True)
    for m in (8, 10):
        t0 = time.perf_counter()
        rank, _ = domain_kernel_rank(Softmax(m, 3))
        print(f"softmax --rank at m = {m}: rank {rank} in {time.perf_counter() - t0:.2f} s", flush=True)
    from certify.constructions.one_hot import check_one_hot
    from certify.kernels.audit import load_family

    t0 = time.perf_counter()
    check_one_hot(load_family(None))
    print(f"rank15 (build, write, read, check-kernel on 855 inputs): {time.perf_counter() - t0:.2f} s", flush=True)
    from certify.lemmas.identities import all_identities

    t0 = time.perf_counter()
    all_identities()
    print(f"identities (sympy, in process after import): {time.perf_counter() - t0:.2f} s", flush=True)


if __name__ == "__main__":
    main()
