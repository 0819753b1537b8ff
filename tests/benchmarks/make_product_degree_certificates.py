"""Make the shipped product-degree certificates: ``docs/results/minrank/product-degree/*.json``.

    python tests/benchmarks/make_product_degree_certificates.py [FOLDER]

Writes the ``certify.product-degree/1`` certificate of every grid of
:data:`certify.minrank.product_degree.CASES` at degree 1 in every part — the infeasible ones of
Proposition 11.12 (docs/math.md §11) and the feasible witnesses one part below — each accepted by
``certify/check_degree.py`` before it is written, and prints one line per file with its CPU
seconds (the largest, ten parts with N = 2, takes about 8 s: the exact simplex).
"""
from __future__ import annotations

import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))

from certify.minrank.product_degree import CASES, certificate, file_name  # noqa: E402

FOLDER = ROOT / "docs" / "results" / "minrank" / "product-degree"


def main() -> None:
    import json

    folder = Path(sys.argv[1]) if len(sys.argv) > 1 else FOLDER
    folder.mkdir(parents=True, exist_ok=True)
    for ns in CASES:
        start = time.process_time()
        doc = certificate(ns)
        path = folder / file_name(ns, doc["claim"])
        path.write_text(json.dumps(doc) + "\n", encoding="utf-8")
        print(f"{path.name:28} {doc['claim']:10} {time.process_time() - start:6.2f} s CPU", flush=True)


if __name__ == "__main__":
    main()
