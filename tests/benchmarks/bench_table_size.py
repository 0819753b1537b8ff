"""Benchmark: does a table cost only the tokens the family uses? (issue 11, row 1)

Run after ``pip install .`` from the repository root::

    python tests/benchmarks/bench_table_size.py [--repeat N] [--baseline REV]

Two random positive float64 tables of feature width r = 64 with a one-hot readout for
the rank-nine family (239 tokens used): one with exactly those 239 tokens, one with
3,000 tokens (the 239 among 2,761 others, in random order). ``certify check-kernel`` runs
on each as a fresh process (median wall time of N runs, largest peak RSS). The goal is
that the 3,000-token table costs at most 1.5 times the 239-token one.

``--baseline REV`` runs the same commands with the code of git revision ``REV`` (checked
out into a temporary worktree), side by side: e.g. ``--baseline e413295`` for the
eager reader this benchmark was written against.
"""
from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import tempfile

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
sys.path.insert(0, HERE)
sys.path.insert(0, ROOT)
from bench_hostile import measure as measure_once  # noqa: E402


def make_table(path: str, extra: int, seed: int = 0) -> None:
    from witnesses import rank_nine_family

    fam = rank_nine_family("paper")
    used = sorted({z for X in fam.inputs for z in X.tokens})
    rng = np.random.default_rng(seed)
    others: set[int] = set()
    while len(others) < extra:
        z = int(rng.integers(0, 2**24))
        if z not in used:
            others.add(z)
    toks = used + sorted(others)
    order = rng.permutation(len(toks))
    toks = [toks[i] for i in order]
    N = len(toks)
    np.savez(path, tokens=np.array([format(z, "024b")[::-1] for z in toks]),
             phi_q=rng.random((N, 64)), phi_k=rng.random((N, 64)),
             beta=rng.normal(size=N), w=rng.normal(size=(N, N)))


def measure(label: str, args: list[str], repeat: int, env: dict, cwd: str) -> float:
    runs = [measure_once(args, env, cwd) for _ in range(repeat)]
    assert all(code in (0, 1) for _, _, code, _ in runs), runs[0]
    wall = statistics.median(t for t, _, _, _ in runs)
    print(f"{label:<58} median {wall:7.2f} s (n={repeat})  peak RSS {max(m for _, m, _, _ in runs):7.1f} MiB")
    return wall


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--repeat", type=int, default=5)
    ap.add_argument("--baseline", metavar="REV", help="also run the code of this git revision, side by side")
    args = ap.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        small, big = os.path.join(tmp, "t239.npz"), os.path.join(tmp, "t3000.npz")
        make_table(small, 0)
        make_table(big, 3000 - 239)
        print(f"python {sys.version.split()[0]}, {os.cpu_count()} cores; files "
              f"{os.path.getsize(small) / 2**20:.1f} MiB and {os.path.getsize(big) / 2**20:.1f} MiB")
        versions = [("this tree", ROOT)]
        if args.baseline:
            base = os.path.join(tmp, "baseline")
            subprocess.run(["git", "-C", ROOT, "worktree", "add", "--detach", base, args.baseline],
                           check=True, capture_output=True)
            versions.append((f"revision {args.baseline}", base))
        try:
            for name, src in versions:
                env = dict(os.environ, PYTHONPATH=src)
                cmd = ["certify.cli", "check-kernel"]
                t_small = measure(f"{name}: 239 tokens", cmd + [small], args.repeat, env, tmp)
                t_big = measure(f"{name}: 3,000 tokens (239 used)", cmd + [big], args.repeat, env, tmp)
                print(f"{name}: ratio 3,000 / 239 = {t_big / t_small:.2f}")
        finally:
            if args.baseline:
                subprocess.run(["git", "-C", ROOT, "worktree", "remove", "--force", base], capture_output=True)


if __name__ == "__main__":
    main()
