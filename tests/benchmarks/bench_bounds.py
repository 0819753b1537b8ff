"""Benchmark: ``certify bounds`` with every section, at m = 10⁴ (exact) and m = 10⁶ (intervals).

Run: ``python tests/benchmarks/bench_bounds.py [--repeat N]``. Each command runs as a
fresh process (start-up included): median wall time of N runs and peak RSS; then the
in-process time of ``certify.bounds.all_bounds``.
"""
from __future__ import annotations

import argparse
import os
import shutil
import statistics
import sys
import time

sys.path.insert(0, os.path.dirname(__file__))
from bench_rank_nine import run  # noqa: E402

CASES = [
    ("m = 10^4, all sections (exact)", ["--m", "10000", "--length", "1000", "--heads", "2", "--degree", "2", "--s", "12"]),
    ("m = 10^4, --json", ["--m", "10000", "--length", "1000", "--heads", "2", "--degree", "2", "--s", "12", "--json"]),
    ("m = 10^6, all sections (intervals)", ["--m", "1000000", "--length", "1000", "--heads", "2", "--degree", "2", "--s", "12"]),
    ("m = 10^6, --json", ["--m", "1000000", "--length", "1000", "--heads", "2", "--degree", "2", "--s", "12", "--json"]),
    ("m-range 2:4000:20 (200 points)", ["--m-range", "2:4000:20", "--length", "100", "--heads", "1"]),
]


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--repeat", type=int, default=7)
    args = ap.parse_args()
    certify = shutil.which("certify") or sys.exit("certify is not on PATH (pip install .)")
    print(f"python {sys.version.split()[0]}, {os.cpu_count()} cores")
    for label, extra in CASES:
        runs = [run([certify, "bounds", *extra], os.getcwd()) for _ in range(args.repeat)]
        walls = [w for w, _ in runs]
        print(f"certify bounds {label:<36} median {statistics.median(walls) * 1000:7.1f} ms "
              f"(min {min(walls) * 1000:.1f}, max {max(walls) * 1000:.1f}; n={args.repeat})  "
              f"peak RSS {max(r for _, r in runs) / 1024:.1f} MiB")
    from certify.bounds import all_bounds

    for m in (10**4, 10**6):
        t0 = time.perf_counter()
        all_bounds(m, length=1000, H=2, D=2, s=12)
        print(f"in-process all_bounds(m = {m}): {1000 * (time.perf_counter() - t0):.1f} ms")


if __name__ == "__main__":
    main()
