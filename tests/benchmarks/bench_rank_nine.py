"""Benchmark: ``certify rank-nine`` end to end and ``certify verify`` alone.

Run: ``python tests/benchmarks/bench_rank_nine.py [--repeat N]``. Not part of the test
suite. Each command runs as a fresh process (interpreter start-up included); wall
time is the median of N runs, peak memory is the largest maximum resident set size
the kernel reports for one run (``wait4``). In-process timings of the library calls
follow, without start-up.
"""
from __future__ import annotations

import argparse
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time


def run(cmd: list[str], cwd: str, ok: tuple[int, ...] = (0,), env: dict | None = None) -> tuple[float, int]:
    """Wall time (s) and peak RSS (KiB) of one run of ``cmd``; exit codes outside ``ok`` abort."""
    start = time.perf_counter()
    proc = subprocess.Popen(cmd, cwd=cwd, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, env=env)
    _, status, usage = os.wait4(proc.pid, 0)
    wall = time.perf_counter() - start
    if os.waitstatus_to_exitcode(status) not in ok:
        raise SystemExit(f"{' '.join(cmd)} failed: {proc.stderr.read().decode()}")
    return wall, usage.ru_maxrss  # KiB on Linux


def bench(label: str, cmd: list[str], cwd: str, repeat: int) -> None:
    runs = [run(cmd, cwd) for _ in range(repeat)]
    walls = [w for w, _ in runs]
    peak = max(m for _, m in runs)
    print(f"{label:<38} median {statistics.median(walls) * 1000:7.1f} ms  "
          f"(min {min(walls) * 1000:.1f}, max {max(walls) * 1000:.1f}; n={repeat})  "
          f"peak RSS {peak / 1024:.1f} MiB")


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--repeat", type=int, default=11)
    args = ap.parse_args()
    certify = shutil.which("certify") or sys.exit("certify is not on PATH (pip install .)")
    with tempfile.TemporaryDirectory() as tmp:
        print(f"python {sys.version.split()[0]}, {os.cpu_count()} cores")
        bench("python -c pass (interpreter floor)", [sys.executable, "-c", "pass"], tmp, args.repeat)
        for plan in ("paper", "direct"):
            bench(f"certify rank-nine --chains {plan}", [certify, "rank-nine", "--chains", plan,
                                                         "--out", f"{plan}.json"], tmp, args.repeat)
            bench(f"certify verify ({plan}.json)", [certify, "verify", f"{plan}.json"], tmp, args.repeat)
            bench(f"python certify/check.py ({plan}.json)",
                  [sys.executable, os.path.join(os.path.dirname(__file__), "..", "..", "certify", "check.py"),
                   f"{plan}.json"], tmp, args.repeat)

        from certify.certificates.producer import rank_nine_certificate
        from certify.check import check, load

        for plan in ("paper", "direct"):
            t0 = time.perf_counter()
            for _ in range(args.repeat):
                cert = rank_nine_certificate(plan)
            t1 = time.perf_counter()
            doc = load(os.path.join(tmp, f"{plan}.json"))
            t2 = time.perf_counter()
            for _ in range(args.repeat):
                check(doc)
            t3 = time.perf_counter()
            size = os.path.getsize(os.path.join(tmp, f"{plan}.json"))
            print(f"in-process {plan:<6} build {1000 * (t1 - t0) / args.repeat:6.1f} ms, "
                  f"check {1000 * (t3 - t2) / args.repeat:6.1f} ms, file {size / 1024:.0f} KiB, "
                  f"{len(cert['family']['inputs'])} inputs")


if __name__ == "__main__":
    main()
