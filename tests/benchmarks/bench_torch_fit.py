"""Benchmark: ``certify.torch.fit`` on a large listed family, by dtype and thread count (issue 30).

Run: ``python tests/benchmarks/bench_torch_fit.py [--family docs/results/m20.cert.json] [--steps 20]``
(needs PyTorch, extra ``train``). Trains a two-module elu+1 head of width 16 (values of width
8) on the family's inputs for ``--steps`` full-batch steps, in float64 and float32, with
``threads=1`` (the reproducible default) and ``threads=2``, and prints the seconds per step
and the time ``--extrapolate`` steps would take. Issue 30 measured 569 s for a fit on the m20
certificate's 50,403 inputs, one thread and no progress line.
"""
from __future__ import annotations

import argparse
import os
import sys
import time

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", ".."))


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--family", default="docs/results/m20.cert.json")
    ap.add_argument("--steps", type=int, default=20)
    ap.add_argument("--extrapolate", type=int, default=500, help="report the time of this many steps too")
    a = ap.parse_args()
    import torch

    import certify.torch as ct
    from certify.kernels.audit import load_family

    t0 = time.perf_counter()
    fam = load_family(a.family)
    ct.family_tensors(fam)  # built once per process: not part of a step
    m = fam.m
    print(f"{a.family}: {len(fam.inputs):,} inputs of {m}-bit tokens, loaded in {time.perf_counter() - t0:.1f} s")
    print(f"{'dtype':<9} {'threads':>7} {'s/step':>8} {f'{a.extrapolate} steps':>12}  loss")
    for dtype in (torch.float64, torch.float32):
        for threads in (1, 2):
            torch.manual_seed(0)

            class Elu1(torch.nn.Module):
                def __init__(self):
                    super().__init__()
                    self.lin = torch.nn.Linear(m, 16, dtype=dtype)

                def forward(self, x):
                    return torch.nn.functional.elu(self.lin(x)) + 1

            q, k = Elu1(), Elu1()
            v, ro = torch.nn.Linear(m, 8, dtype=dtype), torch.nn.Linear(m, 9, dtype=dtype)
            start = time.perf_counter()
            loss = ct.fit(q, k, v, ro, family=fam, steps=a.steps, threads=threads)
            per = (time.perf_counter() - start) / max(a.steps, 1)
            print(f"{str(dtype).replace('torch.', ''):<9} {threads:>7} {per:>8.3f} {per * a.extrapolate:>10.0f} s  {loss:.4g}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
