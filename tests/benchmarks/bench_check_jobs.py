"""Benchmark (issue 20): the compact checker before and after, with --jobs, beside a numpy pair histogram.

For each certificate: CPU and wall time of the checker at ``BEFORE`` (``git show``, the last
commit before issue 20), of today's ``certify/check.py``, of ``certify verify --jobs 2``, and
of a numpy histogram of the ``t²`` directed distances of the same code (``bitwise_count`` of
``S & ~U``: the pair loop's arithmetic alone, the yardstick of the issue). Each a fresh
process, the median of ``--repeat`` runs. Run from a git checkout after ``pip install .``::

    python tests/benchmarks/bench_check_jobs.py --repeat 3
    python tests/benchmarks/bench_check_jobs.py --hostile     # also issue 20's two hostile plans
"""
from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
BEFORE = "d5109c8"
CERTS = ["tests/certificates/valid/compact_square_golay24.json", "tests/certificates/valid/compact_hadamard24_best.json"]

HISTOGRAM = """
import json, sys, numpy as np
doc = json.load(open(sys.argv[1]))
m = doc["code"]["length"]
w = np.array([int(s[::-1], 2) for s in doc["code"]["words"]], dtype=np.uint64)
full = np.uint64((1 << m) - 1)
counts = np.zeros(m + 1, dtype=np.int64)
for s in w:
    counts += np.bincount(np.bitwise_count(s & (full ^ w)), minlength=m + 1)
print(int(counts.sum()))
"""


def timed(args: list[str]) -> tuple[float, float, int]:
    """(wall s, CPU s of the process and its children, exit code) of one fresh run."""
    before = os.times()
    start = time.perf_counter()
    proc = subprocess.run(args, capture_output=True, text=True, cwd="/tmp", env=dict(os.environ, CERTIFY_PROGRESS="0"))
    wall = time.perf_counter() - start
    after = os.times()
    return wall, (after.children_user - before.children_user) + (after.children_system - before.children_system), proc.returncode


def median(args, repeat):
    runs = [timed(args) for _ in range(repeat)]
    return statistics.median(r[0] for r in runs), statistics.median(r[1] for r in runs), runs[0][2]


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--hostile", action="store_true")
    a = ap.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        old = Path(tmp) / "check_before.py"
        old.write_text(subprocess.run(["git", "show", f"{BEFORE}:certify/check.py"], cwd=ROOT, check=True,
                                      capture_output=True, text=True).stdout)
        hist = Path(tmp) / "histogram.py"
        hist.write_text(HISTOGRAM)
        cases = [(c, str(ROOT / c)) for c in CERTS]
        if a.hostile:
            sys.path.insert(0, str(ROOT / "tests" / "benchmarks"))
            from bench_hostile import plan_cases

            cases += [(name, str(path)) for name, path in plan_cases(Path(tmp)).items()]
        print("| certificate | before (check.py) | now (check.py) | `verify --jobs 2` | numpy histogram | now / numpy |")
        print("| --- | --- | --- | --- | --- | --- |")
        for name, path in cases:
            b = median([sys.executable, str(old), path], a.repeat if "hostile" not in name else 1)
            n = median([sys.executable, str(ROOT / "certify" / "check.py"), path], a.repeat)
            j = median([sys.executable, "-m", "certify.cli", "verify", "--jobs", "2", path], a.repeat)
            is_compact = json.loads(Path(path).read_text()).get("code") is not None and "gaps" not in name
            h = median([sys.executable, str(hist), path], a.repeat) if is_compact and "plan" not in name else None
            cell = lambda r: f"{r[0]:.2f} s wall, {r[1]:.2f} s CPU (exit {r[2]})"  # noqa: E731
            ratio = f"{n[1] / h[1]:.1f}× CPU" if h else "—"
            label = Path(name).name if name.endswith(".json") else name
            print(f"| {label} | {cell(b)} | {cell(n)} | {cell(j)} | {cell(h) if h else '—'} | {ratio} |")


if __name__ == "__main__":
    main()
