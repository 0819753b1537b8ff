"""Benchmark: ``certify bounds --m-range`` over the exact range, fast scan against the old one (issue 11).

Run (after ``pip install .``, from a git checkout):
``python tests/benchmarks/bench_bounds_range.py [--repeat N] [--baseline all|short|none]``.

1. ``certify bounds --m-range 100:20000:100`` and ``--m-range 2:20000:10`` as fresh
   processes: median wall time and CPU time of N runs, peak RSS.
2. In-process, side by side: ``range_rows`` of today's ``certify/bounds/values.py`` and of
   the same file at ``BASELINE_REV`` (read from git history; see ``baseline.py``), CPU
   time, and whether the rows are identical. The old scan of ``2:20000:10`` takes
   minutes; ``--baseline short`` runs only ``100:20000:100``.
"""
from __future__ import annotations

import argparse
import os
import shutil
import statistics
import sys

sys.path.insert(0, os.path.dirname(__file__))
from baseline import BASELINE_REV, cpu, load_module, run_cpu  # noqa: E402

CASES = [("100:20000:100", range(100, 20001, 100)), ("2:20000:10", range(2, 20001, 10))]


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--repeat", type=int, default=5)
    ap.add_argument("--baseline", choices=("all", "short", "none"), default="all")
    ap.add_argument("--rev", default=BASELINE_REV, help="commit whose values.py is the baseline")
    args = ap.parse_args()
    certify = shutil.which("certify") or sys.exit("certify is not on PATH (pip install .)")
    print(f"python {sys.version.split()[0]}, {os.cpu_count()} cores")
    for text, _ in CASES:
        runs = [run_cpu([certify, "bounds", "--m-range", text], os.getcwd()) for _ in range(args.repeat)]
        print(f"certify bounds --m-range {text:<14} wall median {statistics.median(r[0] for r in runs):6.2f} s  "
              f"CPU median {statistics.median(r[1] for r in runs):6.2f} s  (n={args.repeat})  "
              f"peak RSS {max(r[2] for r in runs) / 1024:.1f} MiB")
    from certify.bounds import values as new

    old = load_module(args.rev, "certify/bounds/values.py", "certify_baseline_values") if args.baseline != "none" else None
    for k, (text, ms) in enumerate(CASES):
        new._LAYERS.clear()
        new._CHAIN_TABLES.clear()
        rows, t_new = cpu(lambda: new.range_rows(ms))
        line = f"range_rows {text:<14} ({len(ms):,} points): new {t_new:6.2f} s CPU"
        if old is not None and (args.baseline == "all" or k == 0):
            old_rows, t_old = cpu(lambda: old.range_rows(ms))
            line += f", baseline {args.rev} {t_old:7.2f} s CPU, ×{t_old / t_new:.0f}; rows identical: {rows == old_rows}"
        print(line, flush=True)


if __name__ == "__main__":
    main()
