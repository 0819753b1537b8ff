"""Benchmark: compact certificates (issue 10) — golay24 end to end, and explicit vs compact side by side.

Run: ``python tests/benchmarks/bench_compact.py [--repeat N] [--expand]``. Not part of
the test suite. Each command runs as a fresh process (start-up included) with
``CERTIFY_PROGRESS=0``; reported: median wall time, median CPU time (user + system)
and the largest peak RSS (``wait4``) over N runs. CPU time is the figure to compare on
a busy machine; wall time is what a user waits.

Rows:

* ``certify rank-bound --code golay24`` (build, write, verify) and the checker alone on
  its compact certificate (``certify verify`` and ``python certify/check.py``) — the
  issue's target: golay24 verified in under 30 s on 2 cores;
* hadamard24, best chains: the same family as an explicit (version 1) and a compact
  (version 2) certificate, checked side by side — the ratio survives machine noise;
* with ``--worst T``: ``T`` rows of the Sylvester Hadamard matrix of order 4,096 (the
  longest tokens the format allows) with one jump per pair, and 500 random 64-bit words
  whose chains are all gaps of 2 (nearly every key interpolated), to extrapolate the
  cost per unit of work to the limits;
* with ``--expand``: ``certify verify --expand`` writing golay24's 13,268,976 inputs.
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

CHECK = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "certify", "check.py")


def run(cmd: list[str], cwd: str) -> tuple[float, float, int]:
    """Wall seconds, CPU seconds and peak RSS (KiB) of one run of ``cmd``."""
    start = time.perf_counter()
    proc = subprocess.Popen(cmd, cwd=cwd, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
                            env=dict(os.environ, CERTIFY_PROGRESS="0"))
    _, status, usage = os.wait4(proc.pid, 0)
    wall = time.perf_counter() - start
    if os.waitstatus_to_exitcode(status) != 0:
        raise SystemExit(f"{' '.join(cmd)} failed: {proc.stderr.read().decode()}")
    return wall, usage.ru_utime + usage.ru_stime, usage.ru_maxrss


def bench(label: str, cmd: list[str], cwd: str, repeat: int) -> None:
    runs = [run(cmd, cwd) for _ in range(repeat)]
    wall = statistics.median(r[0] for r in runs)
    cpu = statistics.median(r[1] for r in runs)
    peak = max(r[2] for r in runs)
    print(f"{label:<52} wall {wall:7.2f} s  cpu {cpu:7.2f} s  (n={repeat})  peak RSS {peak / 1024:6.1f} MiB", flush=True)


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--expand", action="store_true", help="also time verify --expand on golay24 (writes ≈ 1.5 GB)")
    ap.add_argument("--worst", type=int, metavar="T", help="also check T random 4,096-bit words, one jump per pair (long words)")
    ap.add_argument("--at-limit", action="store_true",
                    help="only: the costliest kind of work (interpolated keys, gaps of 2) at the checker's work limit")
    args = ap.parse_args()
    if args.at_limit:
        return at_limit()
    certify = shutil.which("certify") or sys.exit("certify is not on PATH (pip install .)")
    with tempfile.TemporaryDirectory() as tmp:
        print(f"python {sys.version.split()[0]}, {os.cpu_count()} cores, load average {os.getloadavg()[0]:.2f}")
        bench("certify rank-bound --code golay24", [certify, "rank-bound", "--code", "golay24", "--out", "g.json"],
              tmp, args.repeat)
        print(f"  golay24 compact certificate: {os.path.getsize(os.path.join(tmp, 'g.json')):,} bytes")
        bench("certify verify golay24 (compact)", [certify, "verify", "g.json"], tmp, args.repeat)
        bench("python certify/check.py golay24 (compact)", [sys.executable, CHECK, "g.json"], tmp, args.repeat)
        for form in ("explicit", "compact"):
            subprocess.run([certify, "rank-bound", "--code", "hadamard24", "--form", form, "--out", f"h-{form}.json"],
                           cwd=tmp, check=True, capture_output=True)
        for form in ("explicit", "compact"):
            size = os.path.getsize(os.path.join(tmp, f"h-{form}.json"))
            bench(f"python certify/check.py hadamard24 ({form}, {size:,} B)", [sys.executable, CHECK, f"h-{form}.json"],
                  tmp, args.repeat * 3)
        if args.worst:
            # Long words cost more per popcount: t random 4,096-bit words, one jump per pair.
            sys.path.insert(0, os.path.join(os.path.dirname(CHECK), ".."))
            from certify.certificates.compact import build_compact_certificate
            from certify.certificates.producer import write_certificate
            from certify.certificates.rank_bound import make_plan
            from certify.check import MAX_COMPACT_WORK, compact_work
            from codes import BinaryCode
            from witnesses.plans import GapPlan

            # Rows of the Sylvester Hadamard matrix of order 4,096 (x ↦ (−1)^⟨i,x⟩), as 0/1 words of
            # weight 2,048: pairwise directed distance 1,024, so one plan entry and one jump per pair.
            rows = tuple(sum(1 << x for x in range(4096) if not (i & x).bit_count() & 1) for i in range(1, args.worst + 1))
            code = BinaryCode(4096, rows, f"rows 1–{args.worst} of the Sylvester Hadamard matrix of order 4,096")
            t0 = time.perf_counter()
            cert = build_compact_certificate(code, make_plan(code, "direct"))
            write_certificate(cert, os.path.join(tmp, "w.json"))
            print(f"  built a compact certificate of {code.size:,} Sylvester rows of 4,096 bits in {time.perf_counter() - t0:.1f} s "
                  f"({os.path.getsize(os.path.join(tmp, 'w.json')):,} bytes, {len(cert['plan']['entries'])} plan entries)")
            bench(f"python certify/check.py ({code.size:,} words of 4,096 bits)", [sys.executable, CHECK, "w.json"], tmp, 1)
            print(f"  {code.size * (code.size - 1):,} ordered pairs, work {compact_work(code.size, 1, 4096):,} of {MAX_COMPACT_WORK:,}")
            # Interpolated keys: 500 random 64-bit words, every distance bridged by gaps of 2
            # (μ = 1 each), so most inner levels have no codeword and every key is computed.
            import random

            rng = random.Random(5)
            words = set()
            while len(words) < 500:
                words.add(rng.getrandbits(64))
            code = BinaryCode(64, tuple(sorted(words)), "500 random 64-bit words")
            ds = sorted(code.distance_counts)
            plan = GapPlan("gaps of 2", tuple((d, (2,) * (d // 2 - 1) + ((2,) if d % 2 == 0 else (3,))) for d in ds))
            write_certificate(build_compact_certificate(code, plan), os.path.join(tmp, "i.json"))
            k = max(len(g) for _, g in plan.entries)
            bench("python certify/check.py (500 words, interpolated keys)", [sys.executable, CHECK, "i.json"], tmp, 1)
            print(f"  chains of up to {k} jumps, work {compact_work(500, k, 64):,} of {MAX_COMPACT_WORK:,}")
        if args.expand:
            bench("certify verify golay24 --expand", [certify, "verify", "g.json", "--expand", "fam.json"], tmp, 1)
            print(f"  expanded family: {os.path.getsize(os.path.join(tmp, 'fam.json')):,} bytes")


def at_limit() -> None:
    """Random 64-bit words whose chains are all gaps of 2, as many as the work limit allows: the documented worst case.

    The cost per unit of work is not constant: with ``t`` words a query's keys and jumps are
    ``O(t·k)`` dictionary entries, so the per-unit cost grows with ``t``. Extrapolating from 500
    words (2.0 s for 4.0·10⁶) said 3½ minutes at the limit; issue 18 measured more. This runs
    the case itself.
    """
    import random

    sys.path.insert(0, os.path.join(os.path.dirname(CHECK), ".."))
    from certify.certificates.compact import build_compact_certificate
    from certify.certificates.producer import write_certificate
    from certify.check import MAX_COMPACT_WORK, compact_work
    from codes import BinaryCode
    from witnesses.plans import GapPlan

    rng = random.Random(5)
    words: set[int] = set()
    t = 500
    while True:  # the largest t (in steps of 100) whose work stays within the limit
        while len(words) < t:  # directed distance ≥ 2 both ways: every pair has a chain of gaps ≥ 2
            w = rng.getrandbits(64)
            if all((w & ~u).bit_count() >= 2 and (u & ~w).bit_count() >= 2 for u in words):
                words.add(w)
        code = BinaryCode(64, tuple(sorted(words)), f"{t} random 64-bit words")
        ds = sorted(code.distance_counts)
        k = max(d // 2 for d in ds)
        if compact_work(t + 100, k, 64) > MAX_COMPACT_WORK:
            break
        t += 100
    plan = GapPlan("gaps of 2", tuple((d, (2,) * (d // 2 - 1) + ((2,) if d % 2 == 0 else (3,))) for d in ds))
    k = max(len(g) for _, g in plan.entries)
    print(f"python {sys.version.split()[0]}, {os.cpu_count()} cores, load average {os.getloadavg()[0]:.2f}")
    with tempfile.TemporaryDirectory() as tmp:
        t0 = time.perf_counter()
        write_certificate(build_compact_certificate(code, plan), os.path.join(tmp, "i.json"))
        print(f"  built {t:,} words, chains of up to {k} jumps, work {compact_work(t, k, 64):,} of {MAX_COMPACT_WORK:,} "
              f"in {time.perf_counter() - t0:.0f} s ({os.path.getsize(os.path.join(tmp, 'i.json')):,} bytes)")
        bench(f"python certify/check.py ({t:,} words, interpolated keys, at the limit)", [sys.executable, CHECK, "i.json"],
              tmp, 1)


if __name__ == "__main__":
    main()
