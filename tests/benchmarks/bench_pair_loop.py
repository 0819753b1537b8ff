"""Benchmark (issue 20): ways to get every query's distance classes, side by side, on one core.

The compact checker needs, per query ``S``, how many words lie at each directed distance
``|S \\ U|`` and the first word at each. Timed here over all queries of a code, in this
process, best of ``--repeat``:

* ``loop``: a Python loop of ``(s & c).bit_count()`` over the words (the checker before issue 20);
* ``map``: ``map(int.bit_count, map(s.__and__, complements))``, then ``collections.Counter`` and
  a ``dict(zip(…))`` of first occurrences (issue 20's first version);
* ``bit-sliced``: :func:`certify.check.distance_classes` — the columns of ``S``'s coordinates
  added in binary planes of ``t`` bits, then split by distance (what the checker uses now,
  unless ``16·|S| > t``: then the ``map`` way);
* ``numpy``: ``np.bitwise_count`` and ``np.bincount`` per query on packed ``uint64`` words
  (``m ≤ 64``; the yardstick of the issue, not usable in the stdlib-only checker).

Then the whole stand-alone check (``certify.check.check``) in this process. Run::

    python tests/benchmarks/bench_pair_loop.py --repeat 3
"""
from __future__ import annotations

import argparse
import json
import sys
import time
from collections import Counter
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))

from certify import check as C  # noqa: E402

CERTS = ["tests/certificates/valid/compact_square_golay24.json", "docs/results/m36.cert.json"]


def loop(words, comps, m):
    for s in words:
        row = [(s & c).bit_count() for c in comps]
        Counter(row)


def mapped(words, comps, m):
    t = len(words)
    for s in words:
        row = list(map(int.bit_count, map(s.__and__, comps)))
        Counter(row)
        dict(zip(reversed(row), range(t - 1, -1, -1)))


def bit_sliced(words, comps, m):
    columns = [int("".join(c), 2) for c in zip(*(format(z, f"0{m}b") for z in reversed(comps)))][::-1]
    every = (1 << len(words)) - 1
    for s in words:
        C.distance_classes(s, comps, columns, every, sliced=True)


def numpy_histogram(words, comps, m):
    import numpy as np

    w = np.array(words, dtype=np.uint64)
    c = np.array(comps, dtype=np.uint64)
    for s in w:
        np.bincount(np.bitwise_count(s & c), minlength=m + 1)


def best(fn, *args, repeat=3):
    times = []
    for _ in range(repeat):
        start = time.process_time()
        fn(*args)
        times.append(time.process_time() - start)
    return min(times)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("certs", nargs="*", default=CERTS)
    a = ap.parse_args()
    import numpy  # noqa: F401  (imported before the clock starts)

    print("| code | t | m | loop | map + Counter | bit-sliced | numpy | bit-sliced / numpy | whole check |")
    print("| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |")
    for name in a.certs:
        doc = json.loads((ROOT / name).read_text())
        m = doc["code"]["length"]
        words = [int(s[::-1], 2) for s in doc["code"]["words"]]
        comps = [((1 << m) - 1) ^ u for u in words]
        cells = [best(f, words, comps, m, repeat=a.repeat) for f in (loop, mapped, bit_sliced)]
        np_s = best(numpy_histogram, words, comps, m, repeat=a.repeat) if m <= 64 else None
        start = time.process_time()
        C.check(doc)
        whole = time.process_time() - start
        print(f"| {Path(name).name} | {len(words):,} | {m} | " + " | ".join(f"{x:.2f} s" for x in cells)
              + f" | {np_s:.2f} s | {cells[2] / np_s:.2f}× | {whole:.2f} s |", flush=True)


if __name__ == "__main__":
    main()
