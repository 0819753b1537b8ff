"""Make the shipped symmetric-kernel certificates: ``certify/minrank/certificates/m<M>.symmetric.json`` (issue 44).

    python tests/benchmarks/make_invariant_certificates.py [--from 1] [--to 48] [--keep] [--parts A,B] [--margin X]
        [--squeeze N] [--tops T,T] [--ranks K.K=R,…] [--lp-budget N] [--start FILE] [--repair HOW]
        [--descent-steps N] [--cut-at-once K] [--verbose]

For each m it runs the partition chooser of :mod:`certify.minrank.partitions` (the LP search of
:mod:`certify.minrank.invariant` on every candidate partition that passes the joint chain problem
and the full LP, within ``--lp-budget`` LP solves — with ``--parts``, of that one search; needs HiGHS) with the margins :data:`MARGINS` up to
:data:`MARGINS_MAX_M` (above, the first), keeps the certificate of least rank (each one accepted by
``certify/check_symmetric.py`` before it is written; a shipped file of lower rank stays) and prints
one line per m with the CPU seconds. ``--keep`` leaves an m whose file exists alone; ``--parts`` and
``--margin`` search that one partition at that one margin (how most committed two-part certificates
were made: see docs/performance.md); ``--tops`` (with ``--parts``) the highest block index of each
part, e.g. ``2,1`` (else stage 1 finds the least uniform one, which may keep blocks no solution needs);
``--ranks`` (with ``--parts``) gives every block's rank, e.g.
``0.0=3,0.1=3,1.0=1,1.1=1``,
and the search only repairs that choice (``certify.minrank.invariant.search(ranks=…)``);
``--start FILE`` (one m) starts from that certificate's parts and blocks instead (with ``--ranks``, the blocks
listed are cut to those ranks and the others kept; else the squeeze runs on them); ``--repair`` says how a cut
block is repaired (``joint``, ``descent`` or ``both``; ``search(repair=…)``), ``--descent-steps`` and
``--cut-at-once`` how long the descent may take per rank and how many ranks of a block one gradual cut lowers
(``search(descent_steps=…, cut_at_once=…)``);
``--verbose`` prints the search's stage lines (ranks lowered, squeezed) on
standard error as it goes. The figures of the last run are in
docs/performance.md ("certify minrank").
"""
from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))

from certify.minrank.descent import DESCENT_STEPS  # noqa: E402
from certify.minrank.invariant import Budget, NoSolution, parse_ranks, search  # noqa: E402
from certify.minrank.partitions import DEFAULT_BUDGET, best as choose  # noqa: E402
from certify.minrank.symmetric import CERTIFICATES  # noqa: E402

#: Up to this m, every candidate is searched with each of these margins (the squeeze's success depends on where the
#: central solutions start it: m = 11 reaches rank 11 at 0.01 and 0.1, rank 12 at 0.05); above it with the first only.
MARGINS = (0.05, 0.1, 0.01)
MARGINS_MAX_M = 18
#: Two-part searches given by --parts cost minutes each (the squeeze's joint LPs): one margin.
PAIR_MARGINS = (0.1,)
#: Above m = 24: one pass of stage 2, and the squeeze only on the blocks of the largest multiplicities.
SQUEEZE_BLOCKS = 3


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--from", dest="lo", type=int, default=1)
    ap.add_argument("--to", dest="hi", type=int, default=48)
    ap.add_argument("--keep", action="store_true")
    ap.add_argument("--parts", help="only this partition, e.g. 1,11 (with --from M --to M)")
    ap.add_argument("--margin", type=float, help="only this margin")
    ap.add_argument("--squeeze", type=int, help="SLP iterations per squeeze step (0: no squeeze; default 40)")
    ap.add_argument("--tops", help="with --parts: the highest block index of each part, e.g. 2,1 (instead of the "
                                   "least uniform one that stage 1 finds)")
    ap.add_argument("--ranks", help="with --parts: each block's rank, e.g. 0.0=3,0.1=3,1.0=1,1.1=1 (others zero)")
    ap.add_argument("--lp-budget", type=int, default=None,
                    help=f"the LP solves allowed per margin: of the partition chooser without --parts (default "
                         f"{DEFAULT_BUDGET:,}), of the one search with --parts (default: no limit; where it runs "
                         f"out, the blocks reached so far are rounded and checked)")
    ap.add_argument("--start", help="one m: start from this certificate (its parts and blocks)")
    ap.add_argument("--repair", choices=("joint", "descent", "both"), default="joint",
                    help="how a block cut to a lower rank is repaired (default joint)")
    ap.add_argument("--descent-steps", type=int, default=None,
                    help=f"with --repair descent or both: the descent's steps per rank lowered (default {DESCENT_STEPS})")
    ap.add_argument("--cut-at-once", type=int, default=None,
                    help="with --repair descent or both: the ranks of one block one gradual cut lowers together "
                         "(default 1; a cut of several that fails is tried again with half as many)")
    ap.add_argument("--verbose", action="store_true", help="the search's stage lines on standard error")
    args = ap.parse_args()
    start = json.loads(Path(args.start).read_text()) if args.start else None
    if start is not None and (args.parts or args.tops or args.lo != args.hi or start.get("m") != args.lo):
        ap.error("--start goes with one m (--from M --to M, the certificate's m) and without --parts or --tops")
    if start is not None:
        args.parts = ",".join(map(str, start["parts"]))
    if args.descent_steps is not None and (args.repair == "joint" or args.descent_steps < 1):
        ap.error("--descent-steps takes a positive number and goes with --repair descent or both")
    if args.cut_at_once is not None and (args.repair == "joint" or args.cut_at_once < 1):
        ap.error("--cut-at-once takes a positive number and goes with --repair descent or both")
    if (args.ranks or args.tops) and not (args.parts and args.lo == args.hi):
        ap.error("--ranks and --tops need --parts and one m (--from M --to M)")
    CERTIFICATES.mkdir(exist_ok=True)
    for m in range(args.lo, args.hi + 1):
        path = CERTIFICATES / f"m{m}.symmetric.json"
        if args.keep and path.exists():
            continue
        best, tried = None, []
        parts = tuple(int(a) for a in args.parts.split(",")) if args.parts else None
        margins = [args.margin] if args.margin else MARGINS if m <= MARGINS_MAX_M else MARGINS[:1]
        for margin in margins if parts is None or args.margin else PAIR_MARGINS if len(parts) > 1 else margins:
            started = time.process_time()
            given = (f", ranks {args.ranks}" if args.ranks else "") + (f", tops {args.tops}" if args.tops else "") \
                + (f", from a certificate of rank {start['rank_at_most']:,}, repair {args.repair}" if start else "") \
                + (f", {args.descent_steps} descent steps" if args.descent_steps else "") \
                + (f", {args.cut_at_once} ranks at once" if args.cut_at_once else "")
            options = dict(margin=margin, max_work=10**12, passes=2 if m <= 24 else 1,
                           squeeze_blocks=None if m <= 24 else SQUEEZE_BLOCKS,
                           squeeze=40 if args.squeeze is None else args.squeeze,
                           repair=args.repair, descent_steps=args.descent_steps, cut_at_once=args.cut_at_once,
                           say=(lambda text: print(f"m = {m}: {text}", file=sys.stderr, flush=True))
                           if args.verbose else None)
            try:
                if parts is None:
                    doc, lines = choose(m, DEFAULT_BUDGET if args.lp_budget is None else args.lp_budget, **options)
                    what = f"the chooser at {margin} ({'; '.join(lines)})"
                else:
                    tops = tuple(int(a) for a in args.tops.split(",")) if args.tops else None
                    doc = search(parts, ranks=parse_ranks(args.ranks, parts) if args.ranks else None, tops=tops,
                                 budget=Budget(args.lp_budget), start=start, **options)
                    what = f"{list(parts)} at {margin}{given}"
            except NoSolution as exc:
                tried.append(f"{list(parts) if parts else 'the chooser'} at {margin}{given}: none ({exc})")
                continue
            tried.append(f"{what}: {doc['rank_at_most']:,} ({time.process_time() - started:.0f} s)")
            if best is None or doc["rank_at_most"] < best["rank_at_most"]:
                best = doc
        if best is None:
            print(f"m = {m}: no certificate; {'; '.join(tried)}", flush=True)
            continue
        if path.exists():  # a shipped certificate of lower rank stays (this run tried less, or was unluckier)
            kept = json.loads(path.read_text())
            if kept.get("rank_at_most", 1 << 62) < best["rank_at_most"]:
                print(f"m = {m}: kept the shipped rank {kept['rank_at_most']:,}; {'; '.join(tried)}", flush=True)
                continue
        best["note"] = (f"certify.minrank.invariant LP search, parts {best['parts']} "
                        f"(tests/benchmarks/make_invariant_certificates.py; tried {'; '.join(tried)})")
        path.write_text(json.dumps(best, separators=(",", ":")) + "\n")
        print(f"m = {m}: rank {best['rank_at_most']:,}; {'; '.join(tried)}", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
