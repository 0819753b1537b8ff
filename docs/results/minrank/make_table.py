"""Regenerate docs/results.md's table of r*(m, 3) for every m ≤ 48, its data and its plot.

    python docs/results/minrank/make_table.py                    # m = 1 … 48
    python docs/results/minrank/make_table.py --from 9 --to 20   # those rows; the others kept from rstar.json
    python docs/results/minrank/make_table.py --table-only       # table and plot from rstar.json, nothing re-run

For each m it runs ``certify minrank --m M --json --rows docs/results`` in a fresh process
(``CERTIFY_PROGRESS=0``; the generic search of m ≤ 8 with the command's defaults, as the
committed ``docs/results/minrank/m<M>.minrank.json`` were made), keeps the printed JSON
object (less its list of search attempts, counted instead) with the wall seconds of the
run in ``docs/results/minrank/rstar.json`` (written after every m, so an interrupted run
keeps what it finished), then replaces the block between ``<!-- rstar:begin -->`` and
``<!-- rstar:end -->`` in docs/results.md with the table rendered from that file
(:func:`render`) and draws ``docs/results/minrank/rstar.png`` (needs the extra ``plot``).

An m whose symmetric-kernel certificate ``certify/minrank/certificates/m<M>.symmetric.json``
is not shipped is not run: its row says so, the script lists it at the end, and a later
run (``--from M --to M``) fills it in. Any other failure of ``certify minrank`` stops the
script with its message (exit 1), after saving the rows finished so far.

Every number in the table and the plot is read from rstar.json, i.e. from what
``certify minrank`` verified; ``tests/test_rstar_table.py`` re-renders the table from the
file and compares.
"""
from __future__ import annotations

import argparse
import datetime
import json
import math
import os
import re
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[3]
sys.path.insert(0, str(ROOT))

HERE = ROOT / "docs" / "results" / "minrank"
DATA = HERE / "rstar.json"
PLOT = HERE / "rstar.png"
DOC = ROOT / "docs" / "results.md"
CERTIFICATES = ROOT / "certify" / "minrank" / "certificates"
RESULTS = ROOT / "docs" / "results"
BEGIN, END = "<!-- rstar:begin -->", "<!-- rstar:end -->"
SCHEMA = "certify.rstar-table/1"
M_MAX = 48
#: The generic search runs up to this m (certify.minrank.bracket.GENERIC_MAX_M).
GENERIC_MAX_M = 8


def certificate_path(m: int) -> Path:
    """The shipped symmetric-kernel certificate of ``m`` (it may not exist yet)."""
    return CERTIFICATES / f"m{m}.symmetric.json"


def command(m: int) -> list[str]:
    return [sys.executable, "-m", "certify.cli", "minrank", "--m", str(m), "--json", "--rows", "docs/results"]


def run_one(m: int) -> dict:
    """``certify minrank --m M --json --rows docs/results``: its JSON object, trimmed, with ``seconds``.

    A row ``{"m": M, "missing": PATH}`` if no certificate is shipped for ``M`` or any larger ``m'``
    (whose certificate bounds ``r*(M, 3)`` too, Corollary 11.3; the command takes the least): nothing is run.
    Raises ``RuntimeError`` with the command's message if it fails.
    """
    cert = certificate_path(m)
    if not any(certificate_path(k).is_file() for k in range(m, 49)):
        return {"m": m, "missing": str(cert.relative_to(ROOT))}
    start = time.perf_counter()
    proc = subprocess.run(command(m), cwd=ROOT, capture_output=True, text=True,
                          env=dict(os.environ, CERTIFY_PROGRESS="0"))
    seconds = time.perf_counter() - start
    if proc.returncode != 0:
        raise RuntimeError(f"certify minrank --m {m} (exit {proc.returncode}): {proc.stderr.strip()}")
    row = trim(json.loads(proc.stdout), seconds)
    row["run_on"] = datetime.date.today().isoformat()  # rows are rerun a few at a time: each keeps its own date
    return row


def trim(doc: dict, seconds: float | None = None) -> dict:
    """The fields the table keeps from ``certify minrank --json`` (the attempts counted, not listed)."""
    row = {k: v for k, v in doc.items() if k not in ("attempts", "written")}
    row["search_attempts"] = len(doc.get("attempts") or [])
    if seconds is not None:
        row["seconds"] = round(seconds, 1)
    return row


# ---------------------------------------------------------------------------------------------- the data file

def load(path: Path = DATA) -> dict:
    if not path.is_file():
        return {"schema": SCHEMA, "rows": []}
    doc = json.loads(path.read_text(encoding="utf-8"))
    if doc.get("schema") != SCHEMA:
        raise SystemExit(f"{path}: not a {SCHEMA} file")
    return doc


def save(doc: dict, path: Path = DATA) -> None:
    from certify.outputs import write_atomic

    doc["rows"] = sorted(doc["rows"], key=lambda r: r["m"])
    write_atomic(path, json.dumps(doc, indent=1, ensure_ascii=False) + "\n")


def merge_row(doc: dict, row: dict) -> None:
    doc["rows"] = [r for r in doc["rows"] if r["m"] != row["m"]] + [row]


# ---------------------------------------------------------------------------------------------- the table

def _rel(path: Path) -> str:
    """A repository file's link relative to docs/results.md."""
    return os.path.relpath(path, DOC.parent).replace(os.sep, "/")


def _exp(value: int, m: int) -> str:
    return f"{math.log2(value) / m:.3f}"


def committed_search_table(row: dict) -> Path | None:
    """The committed table of the generic search (docs/results/minrank/m<M>.rank<R>.table.json) when the committed
    ``m<M>.minrank.json`` reports the same upper side (rank and how: the same seed, start and steps), else ``None``."""
    m, rank = row["m"], row["upper"]
    table = HERE / f"m{m}.rank{rank}.table.json"
    summary = HERE / f"m{m}.minrank.json"
    if not (table.is_file() and summary.is_file()):
        return None
    old = json.loads(summary.read_text(encoding="utf-8"))
    return table if (old.get("upper"), old.get("upper_how")) == (rank, row["upper_how"]) else None


def lower_kind(row: dict) -> str:
    """Which argument gives the row's lower side (from its ``lower_how``): ``trivial``, ``orders``, ``search``,
    ``regions``, ``queries`` or ``row``."""
    how = row["lower_how"]
    for prefix, kind in (("A[x, x] > 0", "trivial"), ("order obstruction", "orders"),
                         ("best-chain search certificate", "search"), ("region counting", "regions"),
                         ("the results row", "row")):
        if how.startswith(prefix):
            return kind
    if re.match(r"the \d+ pair queries", how):
        return "queries"
    raise ValueError(f"m = {row['m']}: unknown lower-side argument {how!r}")


def lower_cell(row: dict) -> str:
    m, value, kind = row["m"], row["lower"], lower_kind(row)
    if kind == "trivial":
        return f"{value} (`A[x, x] > 0`)"
    if kind == "orders":
        cert = HERE / f"m{m}.lower.obstruction.json"
        what = "order obstruction"
        return f"{value} ([{what}]({_rel(cert)}))" if cert.is_file() else f"{value} ({what})"
    if kind == "queries":
        return f"{value} (⌊m/2⌋ pair queries)"
    if kind == "row":
        M = row["results_row"]["m"]
        link = f"[results row m = {M}]({_rel(ROOT / row['results_row']['file'])})"
        return f"{value:,} ({link}{', r* grows with m' if M < m else ''})"
    return f"{value} ({row['lower_how'].split(';')[0]})"


def upper_cell(row: dict) -> str:
    m, value = row["m"], row["upper"]
    source = row.get("symmetric_m") or m  # a certificate of m' > m bounds r*(m, 3) too (Corollary 11.3)
    cert = f"({_rel(certificate_path(source))})"
    parts = " × ".join(f"S_{a}" for a in row["symmetric_parts"]) + (f", from m = {source}" if source > m else "")
    if row["upper_how"].startswith("search"):
        table = committed_search_table(row)
        shown = f"[{value}]({_rel(table)})" if table else f"{value}"
        return f"{shown} (generic search; {parts}-invariant: [{row['symmetric_rank']}]{cert})"
    return f"[{value:,}]{cert} ({parts})"


def table_lines(rows: list[dict]) -> list[str]:
    lines = ["| m | lower (argument) | log₂(lower)/m | upper (argument) | log₂(upper)/m | invariant floor | |",
             "| ---: | --- | ---: | --- | ---: | ---: | --- |"]
    for row in rows:
        m = row["m"]
        if "missing" in row:
            lines.append(f"| {m} | — | | not run: `{row['missing']}` not shipped yet | | | |")
            continue
        lines.append(f"| {m} | {lower_cell(row)} | {_exp(row['lower'], m)} | {upper_cell(row)} | "
                     f"{_exp(row['upper'], m)} | {row['invariant_floor']:,} | "
                     f"{'closed' if row['closed'] else 'open'} |")
    return lines


def _ms(ms: list[int]) -> str:
    """``12, 14–20, 23`` (runs of consecutive m joined)."""
    runs, out = [], []
    for m in sorted(ms):
        if runs and m == runs[-1][-1] + 1:
            runs[-1].append(m)
        else:
            runs.append([m])
    for run in runs:
        out.append(str(run[0]) if len(run) == 1 else f"{run[0]}, {run[1]}" if len(run) == 2
                   else f"{run[0]} … {run[-1]}")
    return ", ".join(out)


def prose(rows: list[dict]) -> list[str]:
    """What the numbers say and do not say, computed from ``rows`` (the complete ones)."""
    done = [r for r in rows if "missing" not in r]
    if not done:
        return []
    last = done[-1]
    M = last["m"]
    closed = [r["m"] for r in done if r["closed"]]
    full = [r for r in done if r["m"] > GENERIC_MAX_M and len(r["symmetric_parts"]) == 1]
    split = [r for r in done if r["m"] > GENERIC_MAX_M and len(r["symmetric_parts"]) > 1]
    below_floor = [r for r in split if r["upper"] < r["invariant_floor"]]
    from_rows = [r["m"] for r in done if lower_kind(r) == "row"]
    out = [f"**What the numbers say.** Both sides are exact and verified; the exponent `log₂ r / m` of "
           f"`r*(m, 3)` lies between the two exponent columns. At m = {M}: {last['lower']:,} ≤ r*({M}, 3) ≤ "
           f"{last['upper']:,}, exponents {_exp(last['lower'], M)} and {_exp(last['upper'], M)} "
           f"(2^{M} has exponent 1)."]
    if from_rows:
        tail = [r["m"] for r in done if r["m"] >= min(from_rows)]
        where = f"from m = {min(from_rows)} on" if tail == from_rows else f"at m = {_ms(from_rows)}"
        out[-1] += (f" The lower side is the results rows' {where} (their families are subsets of all "
                    f"length-3 inputs; an odd m uses its own row or the row at m − 1, whichever claims more); below "
                    f"it, the arguments the table names. Those rows come from families with a designated diagonal, "
                    f"and no such family proves an exponent above 0.2 through trace–Frobenius, the shift or the "
                    f"null-space step (docs/math.md §5, \"The ceiling of the family method\"): a lower side above "
                    f"exponent 0.2 needs an argument outside that kind.")
    if full:
        f = full[-1]
        ratios = [r["upper"] / r["invariant_floor"] for r in full]
        out.append(f"The upper side for m > {GENERIC_MAX_M} is a kernel invariant under a product of symmetric "
                   f"groups. A fully invariant one (S_m) has rank at least the invariant floor "
                   f"`1 + min_{{K1 ≤ k ≤ ⌊m/2⌋}} (C(m, k) − C(m, k − 1))`, about `2^{{m·H(K1/m)}}`, and the fully invariant certificates "
                   f"sit at {min(ratios):.2f}–{max(ratios):.2f} times it (m = {_ms([r['m'] for r in full])}): "
                   f"exponent {_exp(f['upper'], f['m'])} at m = {f['m']}, the floor's "
                   f"{_exp(f['invariant_floor'], f['m'])}.")
    if split:
        ex = min(split, key=lambda r: r["upper"] / r["invariant_floor"])
        parts = " × ".join(f"S_{a}" for a in ex["symmetric_parts"])
        text = (f"Kernels invariant only under two or more parts (S_a × S_b) are the best certificates at "
                f"m = {_ms([r['m'] for r in split])}")
        if below_floor:
            text += (f", below the floor of every fully invariant kernel at m = {_ms([r['m'] for r in below_floor])} "
                     f"(m = {ex['m']}: {ex['upper']:,} with {parts}, floor {ex['invariant_floor']:,})")
        out.append(text + ".")
    small = [r["m"] for r in done if r["m"] <= GENERIC_MAX_M]
    if small:
        out.append(f"For m ≤ {GENERIC_MAX_M} the upper side is also searched over all `2^m × 2^m` kernels (the "
                   f"generic search, a verified table)"
                   + (f"; the bracket is closed at m = {_ms(closed)}" if closed else "")
                   + f". From m = {GENERIC_MAX_M + 1} on only invariant kernels are tried, and every row is a "
                   f"bracket, not a value.")
    from certify.bounds.values import theorem1

    t1 = {r["m"]: theorem1(r["m"]).values["exact"].value for r in done}
    under = all(t1[r["m"]] <= r["lower"] for r in done)
    out.append(f"**What they do not say.** Nothing about the asymptotic exponent ({len(done)} values do not fix a "
               "limit); nothing about the paper's constant (its Theorem 1, evaluated exactly at each m, is drawn in "
               "the plot" + (f"; it is at most the lower side at every m here, {t1[M]:,} at m = {M}" if under else "")
               + "); nothing about whether kernels that are not invariant do far better than the upper side: the "
               "invariant floor binds only the fully invariant class.")
    return out


def render(doc: dict) -> str:
    """The text between the markers (without them), from the data file's ``doc``."""
    rows = sorted(doc["rows"], key=lambda r: r["m"])
    missing = [r["m"] for r in rows if "missing" in r]
    done = [r for r in rows if "missing" not in r]
    seconds = sum(r.get("seconds", 0) for r in done)
    longest = sorted(done, key=lambda r: -r.get("seconds", 0))[:4]
    dates: dict[str, list[int]] = {}
    for r in done:
        dates.setdefault(r.get("run_on", "?"), []).append(r["m"])
    when = (f"on {next(iter(dates))}" if len(dates) == 1 else
            "with rows run on " + "; ".join(f"{d} (m = {_ms(ms)})" for d, ms in sorted(dates.items())))
    head = (f"Generated by `python docs/results/minrank/make_table.py` {when} "
            f"({doc.get('machine', '?')}, shared with other work, so times are indicative): {len(done)} runs of "
            f"`certify minrank --m M --json --rows docs/results`, {seconds / 60:.1f} min together, the longest "
            + ", ".join(f"m = {r['m']} ({r.get('seconds', 0):.0f} s)" for r in longest)
            + f"; data: [rstar.json]({_rel(DATA)}).")
    if missing:
        head += f" Not run yet (no shipped certificate): m = {_ms(missing)}."
    lines = [head, ""] + table_lines(rows) + [""]
    for para in prose(rows):
        lines += [para, ""]
    lines.append(f"![r*(m, 3) for m ≤ {M_MAX}: both sides, the invariant floor, 2^m and Theorem 1]({_rel(PLOT)})")
    return "\n".join(lines)


def replace_block(text: str, body: str) -> str:
    if BEGIN not in text or END not in text:
        raise SystemExit(f"{DOC} has no {BEGIN} … {END} block to replace")
    head, rest = text.split(BEGIN, 1)
    return head + BEGIN + "\n\n" + body + "\n\n" + END + rest.split(END, 1)[1]


def block_of(text: str) -> str:
    """The text between the markers, as :func:`replace_block` writes it (without the blank lines around it)."""
    return text.split(BEGIN, 1)[1].split(END, 1)[0].strip("\n")


# ---------------------------------------------------------------------------------------------- the plot

def plot(doc: dict, path: Path = PLOT) -> None:
    from certify.bounds.plot import pyplot
    from certify.bounds.values import theorem1
    from certify.outputs import save_figure

    rows = [r for r in sorted(doc["rows"], key=lambda r: r["m"]) if "missing" not in r]
    if not rows:
        return
    plt = pyplot()
    ms = [r["m"] for r in rows]
    fig, ax = plt.subplots(figsize=(8, 5), dpi=120)
    ax.plot(ms, ms, ":", color="grey", label="2^m (dense softmax, A.1)")
    ax.plot(ms, [math.log2(r["upper"]) for r in rows], "o-", color="tab:red", ms=4,
            label="upper side (verified: generic search m ≤ 8, invariant kernels)")
    ax.plot(ms, [math.log2(r["invariant_floor"]) for r in rows], "--", color="tab:orange",
            label="no S_m-invariant kernel below this")
    ax.plot(ms, [math.log2(r["lower"]) for r in rows], "^-", color="tab:blue", ms=4, label="lower side (verified)")
    ax.plot(ms, [math.log2(theorem1(m).values["exact"].value) for m in ms], "v-", color="tab:purple", ms=3,
            label="paper's Theorem 1, exact (certify bounds)")
    ax.set_xlabel("m (token bits)")
    ax.set_ylabel("log₂ rank")
    ax.set_title("r*(m, 3): the least rank solving every length-3 input")
    ax.grid(alpha=0.3)
    ax.legend(fontsize=8)
    fig.tight_layout()
    save_figure(fig, path)
    plt.close(fig)


# ---------------------------------------------------------------------------------------------- main

def write_outputs(doc: dict) -> None:
    DOC.write_text(replace_block(DOC.read_text(encoding="utf-8"), render(doc)), encoding="utf-8")
    print(f"wrote {DOC.relative_to(ROOT)} (between {BEGIN} and {END})", flush=True)
    plot(doc)
    print(f"wrote {PLOT.relative_to(ROOT)}", flush=True)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--from", dest="first", type=int, default=1, help="first m (default 1)")
    ap.add_argument("--to", dest="last", type=int, default=M_MAX, help=f"last m (default {M_MAX})")
    ap.add_argument("--table-only", action="store_true",
                    help="re-render the table and the plot from rstar.json without running anything")
    args = ap.parse_args(argv)
    if not 1 <= args.first <= args.last <= M_MAX:
        ap.error(f"--from/--to: 1 ≤ from ≤ to ≤ {M_MAX}")
    doc = load()
    if not args.table_only:
        doc["generated"] = datetime.date.today().isoformat()
        doc["machine"] = f"{os.cpu_count()} cores"
        doc["command"] = "certify minrank --m M --json --rows docs/results"
        started = time.perf_counter()
        for m in range(args.first, args.last + 1):
            try:
                row = run_one(m)
            except RuntimeError as exc:
                save(doc)
                print(f"error: {exc}", file=sys.stderr)
                return 1
            merge_row(doc, row)
            save(doc)
            if "missing" in row:
                print(f"m = {m}: not run, {row['missing']} is not shipped", flush=True)
            else:
                print(f"m = {m}: {row['lower']:,} ≤ r*({m}, 3) ≤ {row['upper']:,}  ({row['seconds']:.1f} s)",
                      flush=True)
        print(f"ran m = {args.first} … {args.last} in {time.perf_counter() - started:.0f} s; wrote "
              f"{DATA.relative_to(ROOT)}", flush=True)
    elif not doc["rows"]:
        raise SystemExit(f"{DATA}: no rows to render (run without --table-only first)")
    write_outputs(doc)
    missing = [r["m"] for r in doc["rows"] if "missing" in r]
    if missing:
        print(f"missing (no shipped certificate, rows marked in the table): m = {_ms(missing)}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
