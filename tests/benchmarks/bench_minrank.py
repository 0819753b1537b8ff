"""Benchmark: ``certify minrank --m M`` for M = 1 … 7 (or 8) with the defaults, as docs/results.md shows them (issue 31).

Run: ``python tests/benchmarks/bench_minrank.py [--ms 1-7] [--out DIR]`` (``--ms 1-8``: about 3½ minutes more). Each M runs in a fresh
process (``CERTIFY_PROGRESS=0``); prints its wall and CPU time, peak memory and the bracket, and
compares the bracket with the committed ``docs/results/minrank/m<M>.minrank.json`` (exit 1 if one
differs: the search is seeded and counted in steps, so the same numpy gives the same tables).
"""
from __future__ import annotations

import argparse
import json
import os
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--ms", default="1-7", help="a range A-B of m")
    ap.add_argument("--out", help="directory for the files (default: a temporary one)")
    a = ap.parse_args()
    lo, hi = (int(v) for v in a.ms.split("-"))
    out = a.out or tempfile.mkdtemp()
    env = dict(os.environ, CERTIFY_PROGRESS="0")
    bad = 0
    print(f"{'m':>2} {'wall':>7} {'cpu':>7} {'peak':>8}  bracket")
    for m in range(lo, hi + 1):
        before = resource.getrusage(resource.RUSAGE_CHILDREN)
        start = time.perf_counter()
        proc = subprocess.run([sys.executable, "-m", "certify.cli", "minrank", "--m", str(m), "--out", out, "--json"],
                              capture_output=True, text=True, env=env, cwd=ROOT)
        wall = time.perf_counter() - start
        after = resource.getrusage(resource.RUSAGE_CHILDREN)
        cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
        if proc.returncode:
            print(f"{m:>2} exit {proc.returncode}: {proc.stderr.strip()[:200]}")
            bad += 1
            continue
        doc = json.loads(proc.stdout)
        committed = ROOT / "docs" / "results" / "minrank" / f"m{m}.minrank.json"
        same = ""
        if committed.exists():
            ref = json.loads(committed.read_text())
            same = "  = committed" if (ref["lower"], ref["upper"]) == (doc["lower"], doc["upper"]) else "  ≠ committed"
            bad += same.startswith("  ≠")
        print(f"{m:>2} {wall:6.1f}s {cpu:6.1f}s {after.ru_maxrss / 1024:6.0f} MB  "
              f"{doc['lower']} ≤ r* ≤ {doc['upper']}{' (closed)' if doc['closed'] else ''}{same}")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
