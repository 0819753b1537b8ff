"""Benchmark: docs/examples/torch_elu1_golay24.py, run as docs/torch.md shows it, with its verdict checked.

``python tests/benchmarks/bench_examples.py`` (needs PyTorch, extra ``train``). The example
trains an elu+1 head of width 16 on the rank-nine family and checks it exactly on golay24
(2,576 query tokens, streamed, first failure): about 33 s and 2.7 GB, benchmark-sized, so
it left the suite (issue 28); the suite keeps the streamed path of ``certify.torch`` on a
compact family (``tests/test_torch.py``). Prints the wall time, the peak memory of the
example's process and its output; exit 1 unless the output is what docs/torch.md states:
the head does not solve golay24, with exact kernel rank ≤ 16 < the certified bound.
"""
from __future__ import annotations

import os
import resource
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def main() -> int:
    script = ROOT / "docs" / "examples" / "torch_elu1_golay24.py"
    start = time.perf_counter()
    proc = subprocess.run([sys.executable, str(script)], capture_output=True, text=True, cwd=ROOT,
                          env=dict(os.environ, CERTIFY_PROGRESS="0"))
    wall = time.perf_counter() - start
    peak = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss / 2**20  # KiB → GiB
    print(f"{script.relative_to(ROOT)}: {wall:.0f} s wall, {peak:.1f} GiB peak, exit {proc.returncode}")
    print(proc.stdout, end="")
    out = proc.stdout.splitlines()
    if proc.returncode or len(out) < 2 or not out[0].startswith("training loss: "):
        print(proc.stderr[-2000:], file=sys.stderr)
        return 1
    verdict = dict(part.strip().split(":") if ":" in part else part.strip().rsplit(" ", 1) for part in out[1].split("|"))
    rank, bound = int(verdict["exact kernel rank"]), int(verdict["certified r >="])
    ok = verdict["solves golay24"].strip() == "False" and rank <= 16 < bound
    print("as documented" if ok else "NOT as documented: the head should fail golay24 with rank ≤ 16 < the bound")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
