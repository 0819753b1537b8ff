"""Benchmark: re-run the documented sessions too slow for the suite (issue 29), and say which drifted.

``python tests/benchmarks/bench_docs.py [--all] [--only DOC[:LINE]]``. The sessions of
docs/*.md marked ``<!-- session: benchmark -->`` (the §6.1–§6.3 experiments: minutes to
hours of training) are run as ``tests/test_docs_sessions.py`` runs the others
(``tests/docs_sessions.py``: a fresh directory, progress off, standard output only, time
columns masked); ``--all`` runs the fast ones too. Each command's wall time is printed,
and every line that differs from the doc. Exit 0 when every session matches, 1 when one
drifted. Run it before changing a documented command (docs/performance.md, "The
documented sessions"); PyTorch (extra ``train``) is needed for the experiments.
"""
from __future__ import annotations

import argparse
import difflib
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
import docs_sessions as D  # noqa: E402


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--all", action="store_true", help="also the sessions the suite runs")
    ap.add_argument("--only", help="DOC or DOC:LINE, e.g. docs/experiments.md:104")
    a = ap.parse_args()
    chosen = [s for s in D.sessions() if (a.all or s.benchmark) and (not a.only or s.name.startswith(a.only))]
    drifted = 0
    for s in chosen:
        with tempfile.TemporaryDirectory() as tmp:
            start = time.perf_counter()
            results = D.run(s, Path(tmp))
            wall = time.perf_counter() - start
        bad = [(c, e, p) for c, e, p in results if e != p]
        print(f"{s.name}: {len(results)} command(s), {wall:.0f} s wall: {'matches' if not bad else 'DRIFTED'}")
        for command, expected, printed in bad:
            drifted += 1
            print(f"  $ {command}")
            for line in difflib.unified_diff(expected.splitlines(), printed.splitlines(), "doc", "now", lineterm="", n=0):
                print("    " + line)
    return 1 if drifted else 0


if __name__ == "__main__":
    sys.exit(main())
