"""Benchmark: re-run the three "Upper side" rows of docs/results.md and compare them with the doc (issue 29).

``python tests/benchmarks/bench_bracket_docs.py`` runs the documented commands —
``certify bracket tests/certificates/valid/rank_nine_paper.json``,
``certify bracket tests/certificates/valid/shifted_rank_nine_direct.json`` and
``certify bracket --code hadamard24`` (defaults: seed 0, 1 restart, ≤ 40,000 iterations per start, budget 400,000) — and
compares the verified upper rank and the iteration count with the table of docs/results.md,
"Upper side"; it prints the wall time and the environment (``--json``'s ``environment``).
Exit 0 when every row matches. The float search is reproducible for one numpy build on one
CPU instruction set (docs/results.md, "What is reproducible"): a mismatch on another
machine means the doc records another environment, not a wrong bound — the committed
tables are re-checked exactly by ``tests/test_bracket.py`` wherever they were made.
About 1.5 minutes on the 2-core machine.
"""
from __future__ import annotations

import json
import os
import re
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
ROWS = {  # the row's label in docs/results.md → the command's arguments
    "rank-nine, paper chains": ["tests/certificates/valid/rank_nine_paper.json"],
    "rank-nine, direct chains": ["tests/certificates/valid/shifted_rank_nine_direct.json"],
    "`hadamard24`, best chains": ["--code", "hadamard24"],
}


def documented(label: str) -> tuple[int, int]:
    """``(upper rank, iterations)`` of the row of docs/results.md's "Upper side" table."""
    text = (ROOT / "docs" / "results.md").read_text(encoding="utf-8")
    row = next(line for line in text.splitlines() if line.startswith(f"| {label} |"))
    cells = [c.strip() for c in row.strip("|").split("|")]
    return int(re.sub(r"\D", "", cells[3])), int(cells[5].replace(",", ""))


def main() -> int:
    bad = 0
    for label, args in ROWS.items():
        start = time.perf_counter()
        proc = subprocess.run([sys.executable, "-m", "certify.cli", "bracket", *args, "--json"], capture_output=True,
                              text=True, cwd=ROOT, env=dict(os.environ, CERTIFY_PROGRESS="0"))
        wall = time.perf_counter() - start
        doc = json.loads(proc.stdout)
        want = documented(label)
        got = (doc["upper"], doc["iterations"])
        ok = got == want
        bad += not ok
        print(f"{label}: upper {got[0]}, {got[1]:,} iterations, {wall:.0f} s wall; docs/results.md: upper {want[0]}, "
              f"{want[1]:,} — {'matches' if ok else 'DIFFERS'} ({doc['environment']})")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
