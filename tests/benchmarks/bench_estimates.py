"""Benchmark: the per-unit costs behind the up-front estimates of ``certify minrank`` and ``certify bracket`` (issue 42).

    python tests/benchmarks/bench_estimates.py [--minrank 6-10] [--bracket NAME[,NAME…]] [--widths 32,200,1300]
                                               [--steps N] [--iterations N]

Both commands count their work in deterministic units and refuse a run estimated above a
day on the 2-core machine; the seconds in their messages come from constants measured here:

* ``certify minrank``: seconds per entry-step — one step of
  :func:`certify.minrank.search.propose` (a random start at rank ``m + 1`` that proposes
  nothing in ``N`` steps) divided by the ``4^m`` entries of the kernel — against
  :data:`certify.minrank.upper.SECONDS_PER_ENTRY_STEP`;
* ``certify bracket``: seconds per entry-iteration of Adam (:func:`certify.bracket.descend`)
  and of the boxes (:func:`certify.bracket.boxes.project`) at each width, from a seeded
  random start, against :func:`certify.bracket.upper.search_estimate`'s
  ``ENTRY_SECONDS + WIDTH_SECONDS · r`` (one figure for both methods).

Prints one row per case with the measured figure, the constant and their ratio (below 1:
the estimate is the larger). Wall time on the machine as it is (other work included).
"""
from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))

FAMILIES = {"rank-nine": "tests/certificates/valid/rank_nine_paper.json", "hadamard24": "hadamard24",
            "m20": "docs/results/m20.cert.json", "m22": "docs/results/m22.cert.json",
            "golay24": "docs/results/golay24.cert.json"}


def minrank(ms: range, steps: int) -> None:
    from certify.minrank.search import geometry, propose
    from certify.minrank.upper import SECONDS_PER_ENTRY_STEP

    print("| m | rank | steps | per step | per entry-step | constant | measured / constant |")
    print("| ---: | ---: | ---: | ---: | ---: | ---: | ---: |")
    for m in ms:
        g = geometry(m)
        t = time.perf_counter()
        _, _, used = propose(m, m + 1, 1, steps, geo=g)
        per = (time.perf_counter() - t) / used
        entry = per / 4**m
        print(f"| {m} | {m + 1} | {used} | {per * 1000:.2f} ms | {entry:.2e} s | {SECONDS_PER_ENTRY_STEP:.1e} s | "
              f"{entry / SECONDS_PER_ENTRY_STEP:.2f} |", flush=True)


def bracket(names: list[str], widths: list[int], iterations: int) -> None:
    from certify.bracket import constraints, descend, reduce_family
    from certify.bracket.boxes import boxes, project
    from certify.bracket.descent import random_start
    from certify.bracket.upper import ENTRY_SECONDS, WIDTH_SECONDS
    from certify.kernels.audit import load_family

    print("| family | entries | width | method | per iteration | per entry-iteration | estimate | measured / estimate |")
    print("| --- | ---: | ---: | --- | ---: | ---: | ---: | ---: |")
    for name in names:
        red = reduce_family(load_family(FAMILIES[name]))
        con = constraints(red)
        LO, HI = boxes(red, con)
        entries = red.shape[0] * red.shape[1]
        for r in widths:
            if r > min(red.shape):
                continue
            for method in ("adam", "boxes"):
                t = time.perf_counter()
                if method == "adam":
                    descend(con, r, 0, iterations)
                else:
                    project(con, LO, HI, r, iterations, start=random_start(con, r, 0), check_every=10)
                per = (time.perf_counter() - t) / iterations
                entry = per / entries
                est = ENTRY_SECONDS + WIDTH_SECONDS * r
                print(f"| {name} | {entries:,} | {r} | {method} | {per * 1000:.1f} ms | {entry:.2e} s | {est:.2e} s | "
                      f"{entry / est:.2f} |", flush=True)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--minrank", default="6-10", help="a range A-B of m ('' to skip)")
    ap.add_argument("--steps", type=int, default=20)
    ap.add_argument("--bracket", default="hadamard24,m22,golay24", help="families ('' to skip): " + ", ".join(FAMILIES))
    ap.add_argument("--widths", default="32,200,1300")
    ap.add_argument("--iterations", type=int, default=10)
    a = ap.parse_args()
    if a.minrank:
        lo, hi = (int(v) for v in a.minrank.split("-"))
        minrank(range(lo, hi + 1), a.steps)
    if a.bracket:
        bracket(a.bracket.split(","), [int(w) for w in a.widths.split(",")], a.iterations)


if __name__ == "__main__":
    main()
