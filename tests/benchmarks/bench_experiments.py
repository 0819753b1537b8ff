"""Benchmark: the §6.2/§6.3 experiments' default protocols (issue 19), wall time per run and in all.

Runs ``certify experiment capacity`` and ``certify experiment heads`` (each with its
defaults, one after the other unless ``--parallel``), reads the per-run times from the
progress lines on stderr, and prints per setting/model the mean and largest seconds per
run and the total. Needs the train extra (torch). The numbers in docs/performance.md come
from::

    python tests/benchmarks/bench_experiments.py --out /tmp/bench-exp --parallel

``--smoke`` runs the test suite's smoke configuration instead (seconds, not minutes);
``--parse KIND LOG`` summarizes the stderr of a run made earlier.
"""
from __future__ import annotations

import argparse
import os
import re
import subprocess
import sys
import time

LINE = re.compile(r"run (\d+)/(\d+): (\S+) draw (\d+) (.+?) seed (\d+): .*, ([0-9.]+) s$")
SMOKE = ["--seeds", "0", "--steps", "20", "--train", "96", "--val", "16", "--test", "16", "--eval-every", "10"]


def command(kind: str, out: str, smoke: bool) -> list[str]:
    args = [sys.executable, "-m", "certify.cli", "experiment", kind, "--out", os.path.join(out, kind)]
    if smoke:
        args += (["--settings", "6:4", "--ranks", "2,8"] if kind == "capacity" else ["--budgets", "4", "--draws", "1"])
        args += SMOKE
    return args


def summarize(kind: str, stderr: str, wall: float) -> None:
    groups: dict[tuple[str, str], list[float]] = {}
    for line in stderr.splitlines():
        m = LINE.search(line)
        if m:
            model = "dense" if m.group(5) == "dense" else ("H " + m.group(5).split(" H ")[1] if " H " in m.group(5) else "one head")
            groups.setdefault((m.group(3), model), []).append(float(m.group(7)))
    total = "" if wall != wall else f", {wall:.0f} s wall in all"  # nan: a log read back (--parse)
    print(f"certify experiment {kind}: {sum(len(v) for v in groups.values())} runs{total}, "
          f"{sum(sum(v) for v in groups.values()):.0f} s in the runs")
    print(f"  {'setting':<8} {'model':<9} {'runs':>5} {'mean s/run':>11} {'max s/run':>10}")
    for (setting, model), secs in groups.items():
        print(f"  {setting:<8} {model:<9} {len(secs):>5} {sum(secs) / len(secs):>11.1f} {max(secs):>10.1f}")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--out", default="bench-experiments")
    ap.add_argument("--parallel", action="store_true", help="run the two protocols at once (one core each)")
    ap.add_argument("--smoke", action="store_true")
    ap.add_argument("--only", choices=["capacity", "heads"])
    ap.add_argument("--parse", nargs=2, metavar=("KIND", "STDERR_LOG"),
                    help="summarize the progress log of a run made earlier instead of running")
    a = ap.parse_args()
    if a.parse:
        with open(a.parse[1], encoding="utf-8") as fh:
            summarize(a.parse[0], fh.read(), float("nan"))
        return
    env = {k: v for k, v in os.environ.items() if k != "CERTIFY_PROGRESS"}
    kinds = [a.only] if a.only else ["capacity", "heads"]
    procs = {}
    for kind in kinds:
        t0 = time.perf_counter()
        p = subprocess.Popen(command(kind, a.out, a.smoke), stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                             env=env)
        procs[kind] = (p, t0)
        if not a.parallel:
            out, err = p.communicate()
            procs[kind] = (p, t0, time.perf_counter() - t0, out, err)
    for kind in kinds:
        entry = procs[kind]
        if len(entry) == 2:
            p, t0 = entry
            out, err = p.communicate()
            entry = (p, t0, time.perf_counter() - t0, out, err)
        p, _, wall, out, err = entry
        if p.returncode != 0:
            raise SystemExit(f"{kind}: exit {p.returncode}: {err[-500:]}")
        summarize(kind, err, wall)


if __name__ == "__main__":
    main()
