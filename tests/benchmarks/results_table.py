"""Regenerate the table of certified bounds by m in docs/results.md (issues 10, 16).

    python tests/benchmarks/results_table.py

For m = 8, 10, …, 48 (``--m-from/--m-to/--step``): run ``certify search`` in process
(``--seed`` 0, ``--budget`` steps, the command's defaults), build the best code's
certificate (compact form, best chains, the sharpest last step: trace–Frobenius, shifted
or square, docs/math.md §5), write it, verify it with the stand-alone checker in a fresh
process (``python certify/check.py --quiet``), and evaluate ``certify bounds --m``
(Theorem 1: the paper's closed form and the same argument evaluated exactly). For
``m ≤ --bracket-up-to`` (default 18) it also runs ``certify bracket`` on the new
certificate with its default budget and keeps the verified table as
``docs/results/bracket/mM.rankR.table.json`` (the upper side). Certificates for
``m ≤ --commit-up-to`` (default: all) go to ``docs/results/mM.cert.json``; larger ones to
``--scratch`` (default a temporary folder). The block between the ``results:begin`` and
``results:end`` markers of docs/results.md is replaced by the new table (with ``--merge``,
the rows of the other m already there are kept). ``--rows FILE`` takes the rows from an
earlier run's ``--json`` instead of searching, and verifies their certificates again;
``--jobs-table`` times ``python certify/check.py`` against ``certify verify --jobs 2`` on the
committed rows with t ≥ 1,000 words (between the ``jobs:begin`` and ``jobs:end`` markers).
Every run ends by redrawing ``docs/results.png`` from the table (``certify.bounds.plot.plot_results``,
the module ``certify bounds --plot`` draws with; needs the extra ``plot``); ``--plot-only``
does only that. ``--bracket-only`` runs only the bracket on the committed certificates of the rows in
range (``--bracket-iterations``/``--bracket-budget`` pass ``--iterations``/``--budget``) and
rewrites their upper-side cell and note; a verified table over 1 MiB is left in
``--scratch`` and the note says the command remakes it. ``--bracket-method``,
``--bracket-start-rank``, ``--bracket-lowest-rank``, ``--bracket-restarts`` and
``--bracket-max-work`` pass the bracket's options of those names; ``--bracket-table PATH``
(one row) runs no search but checks a table another run made on the same family exactly
against the row's certificate (``--bracket-table-command`` names that run in the note).
The upper sides of m = 8 … 22 (issue 32) were made with

    python tests/benchmarks/results_table.py --m-from 8 --m-to 20 --bracket-only
    python tests/benchmarks/results_table.py --m-from 22 --m-to 22 --bracket-only --bracket-iterations 4000 --bracket-budget 30000

The rows m = 38 … 48 were added with

    python tests/benchmarks/results_table.py --m-from 38 --m-to 48 --bracket-up-to 0 --merge --jobs-table

The search and the bracket are budgeted by work, not time, so the same seed and budget
give the same codes, certificates (byte for byte) and tables on any machine; only the
times in the table depend on the machine.
"""
from __future__ import annotations

import argparse
import json
import os
import re
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))

from certify.bounds import values as B  # noqa: E402
from certify.certificates.producer import write_certificate  # noqa: E402
from certify.lemmas.ceiling import ceiling, covers  # noqa: E402
from certify.search import DEFAULT_BUDGET, RANDOM_SEED_WORDS  # noqa: E402
from certify.search.codes import result_certificate, search  # noqa: E402

BEGIN, END = "<!-- results:begin -->", "<!-- results:end -->"


def _timed(argv: list[str]) -> tuple[float, float, subprocess.CompletedProcess]:
    """Wall seconds, CPU seconds (user + system) and the finished process of ``argv`` (progress off); exit ≠ 0 stops the script."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.perf_counter()
    proc = subprocess.run(argv, env=dict(os.environ, CERTIFY_PROGRESS="0"), capture_output=True, text=True)
    wall = time.perf_counter() - start
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    if proc.returncode != 0:
        raise SystemExit(f"{' '.join(argv)}: {proc.stderr.strip()}")
    return wall, (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime), proc


def verify_in_fresh_process(path: Path, max_work: int | None = None) -> tuple[float, float, int]:
    """Wall seconds, CPU seconds (user + system) and exit code of ``python certify/check.py --quiet [--max-work N] PATH``."""
    work = [] if max_work is None else ["--max-work", str(max_work)]
    wall, cpu, proc = _timed([sys.executable, str(ROOT / "certify" / "check.py"), "--quiet", *work, str(path)])
    return wall, cpu, proc.returncode


def theorem1(m: int) -> tuple[str, str]:
    """The paper's closed form and ``certify bounds --m``'s exact Theorem-1 value at ``m`` (text)."""
    doc = B.to_json(B.all_bounds(m, None, None, None, None))["theorem1"]
    closed = doc.get("closed_form")
    closed_text = f"{closed:,}" if isinstance(closed, int) else "— (needs M ≥ 168)"
    exact = doc.get("exact")
    return closed_text, (f"{exact:,}" if isinstance(exact, int) else "—")


#: A verified table larger than this is not committed (docs/results.md says how to remake it).
MAX_COMMITTED_TABLE = 2**20


#: ``upper_side`` keyword → ``certify bracket`` option, for the options ``--bracket-*`` pass on.
BRACKET_FLAGS = {"method": "--method", "start": "--start-rank", "lowest": "--lowest-rank", "restarts": "--restarts",
                 "iterations": "--iterations", "budget": "--budget", "max_work": "--max-work"}


def upper(m: int, path: Path, iterations: int | None = None, budget: int | None = None,
          scratch: Path | None = None, **more) -> dict:
    """``certify bracket`` on the certificate at ``path`` (its defaults, or the options given): the verified table, written.

    ``more``: ``method``, ``start``, ``lowest``, ``restarts``, ``max_work`` (:data:`BRACKET_FLAGS`).
    A table over :data:`MAX_COMMITTED_TABLE` bytes goes to ``scratch`` instead of docs/results/bracket.
    """
    from certify.bracket import upper_side, write_solution
    from certify.kernels.audit import load_family

    options = {k: v for k, v in ({"iterations": iterations, "budget": budget} | more).items() if v is not None}
    options = {k: options[k] for k in BRACKET_FLAGS if k in options}  # the command's order, whatever the caller's
    t0 = time.perf_counter()
    family = load_family(str(path))
    result = upper_side(family, **options)
    seconds = time.perf_counter() - t0
    best = result.best
    flags = "".join(f" {BRACKET_FLAGS[k]} {v}" for k, v in options.items())
    common = {"upper_s": seconds, "upper_iterations": result.iterations, "upper_options": flags,
              "upper_tried": result.tried}
    if best is None:
        return {"upper": None} | common
    out = ROOT / "docs" / "results" / "bracket"
    for old in out.glob(f"m{m}.rank*.table.json"):
        old.unlink()
    written = Path(write_solution(best, str(scratch or Path(tempfile.mkdtemp()))))
    size = written.stat().st_size
    final = (out if size <= MAX_COMMITTED_TABLE else written.parent) / f"m{m}.{written.name}"
    written.replace(final)
    return {"upper": best.kernel_rank, "upper_table": str(final.relative_to(ROOT)) if size <= MAX_COMMITTED_TABLE else None,
            "upper_bytes": size, "upper_denominator": best.denominator,
            "upper_key_denominator": best.key_denominator} | common


PLOT = ROOT / "docs" / "results.png"


def plot_doc(doc: Path, path: Path = PLOT) -> None:
    """Draw docs/results.png from the doc's table: each row's certified and verified bounds (certify.bounds.plot)."""
    import re

    from certify.bounds.plot import plot_results
    from certify.bounds.values import range_rows

    block = doc.read_text(encoding="utf-8").split(BEGIN, 1)[1].split(END, 1)[0]
    points = []
    for line in _row_lines(block)[0].values():
        cells = line.split("|")
        upper = re.match(r"\s*\[?r ≤ (\d+)", cells[3])
        points.append({"m": int(cells[1]), "lower": int(re.search(r"r ≥ (\d+)", cells[2]).group(1)),
                       "upper": int(upper.group(1)) if upper else None})
    points.sort(key=lambda p: p["m"])
    plot_results(points, range_rows([p["m"] for p in points], 3), str(path))
    print(f"wrote {path}", flush=True)


def _upper_cell(r: dict) -> str:
    """The table's upper-side cell of a row the bracket ran on: the linked table, an uncommitted one, or "not found"."""
    if r.get("upper") is None:
        return "not found"
    if r.get("upper_table"):
        return f"[r ≤ {r['upper']}]({Path(r['upper_table']).relative_to('docs')})"
    return f"r ≤ {r['upper']} (table not committed)"


def checked_table(m: int, table: Path, command: str, max_work: int | None) -> dict:
    """Row ``m``'s upper side from a table another run made (``command``, e.g. ``certify bracket --code golay24 …``
    on the same family): checked exactly against the row's committed certificate, as ``certify check-kernel TABLE
    --family CERT --all-pairs [--max-work N]`` does. Raises SystemExit if the check fails."""
    from certify.kernels.audit import load_family, verdict

    cert = ROOT / "docs" / "results" / f"m{m}.cert.json"
    t0 = time.perf_counter()
    code, report = verdict(str(table), load_family(str(cert)), all_pairs=True, max_work=max_work)  # check-kernel's
    seconds = time.perf_counter() - t0
    if code != 0 or not report.kernel_rank_bounds.exact:
        why = report if isinstance(report, str) else f"exit {code}"
        raise SystemExit(f"m = {m}: {table} does not pass the exact check against {cert.relative_to(ROOT)}: {why}")
    work = f" --max-work {max_work}" if max_work is not None else ""
    return {"upper": report.kernel_rank, "upper_table": None, "upper_bytes": table.stat().st_size,
            "cell_note": (f"; upper side: the table of `{command}` (made on the same family), checked against this "
                          f"row's certificate by `certify check-kernel TABLE --family docs/results/m{m}.cert.json "
                          f"--all-pairs{work}` (every prediction exact, α ≥ 0 on every pair, exact kernel rank "
                          f"{report.kernel_rank}; {seconds:.0f} s); the table "
                          f"({table.stat().st_size / 2**20:.1f} MiB) is not committed: the command remakes it")}


def bracket_only(doc: Path, ms: list[int], iterations: int | None, budget: int | None, scratch: Path,
                 table: Path | None = None, table_command: str | None = None, **more) -> None:
    """Run the bracket on the committed certificates of ``ms`` and rewrite only their upper-side cell and note.

    With ``table`` (``--bracket-table``; one row): no search, the table (made by ``table_command``) is checked
    against the row's certificate instead (:func:`checked_table`).
    """
    if table is not None and len(ms) != 1:
        raise SystemExit("--bracket-table is for one row (--m-from M --m-to M)")
    for m in ms:
        if table is not None:
            r = checked_table(m, table, table_command or str(table), more.get("max_work"))
        else:
            r = upper(m, ROOT / "docs" / "results" / f"m{m}.cert.json", iterations, budget, scratch, **more)
        text = doc.read_text(encoding="utf-8")  # read now: the doc may have been edited while the bracket ran
        head, rest = text.split(BEGIN, 1)
        block, tail = rest.split(END, 1)
        lines = block.splitlines()
        cell = _upper_cell(r)
        if "cell_note" in r:
            _rewrite_row(doc, head, lines, tail, m, cell, r["cell_note"])
            print(f"m = {m}: {cell} (checked, not searched)", flush=True)
            continue
        tried = ", ".join(f"{t['rank']} {'found' if t['found'] else 'not found'}"
                          + (f" (exact check: {t['verified']})" if isinstance(t.get("verified"), str) else "")
                          for t in r["upper_tried"])
        if r["upper"] is None:
            note = ""
        else:
            kden = r.get("upper_key_denominator")
            entries = f"entries multiples of 1/{r['upper_denominator']:,}" + (
                "" if kden in (None, r["upper_denominator"]) else f", key features of 1/{kden:,} (by roots)")
            note = (entries if r["upper_table"] else
                    f"the table ({r['upper_bytes'] / 2**20:.1f} MiB, {entries}) is not committed: the command remakes it")
        say = (f"; upper side `certify bracket docs/results/m{m}.cert.json{r['upper_options']}`: ranks tried {tried}; "
               f"{r['upper_iterations']:,} iterations, {r['upper_s']:.0f} s" + (f", {note}" if note else ""))
        _rewrite_row(doc, head, lines, tail, m, cell, say)
        print(f"m = {m}: {cell} ({r['upper_iterations']:,} iterations, {r['upper_s']:.0f} s)", flush=True)


def _rewrite_row(doc: Path, head: str, lines: list[str], tail: str, m: int, cell: str, say: str) -> None:
    """Write row ``m``'s upper-side cell and the ``; upper side …`` part of its note into the doc."""
    for k, line in enumerate(lines):
        if line.startswith(f"| {m} |"):
            cells = line.split("|")
            cells[3] = f" {cell} "
            lines[k] = "|".join(cells)
        elif line.startswith(f"* m = {m} ("):
            base = line[:line.index("; upper side")] if "; upper side" in line else line.rstrip(".")
            lines[k] = base + say + "."
    doc.write_text(head + BEGIN + "\n".join(lines) + END + tail, encoding="utf-8")


def row(m: int, budget: int, seed: int, out_dir: Path, committed: bool, bracket: bool,
        random_words: int = RANDOM_SEED_WORDS, max_work: int | None = None) -> dict:
    t0 = time.perf_counter()
    result = search(m, seed=seed, budget=budget, random_words=random_words, max_work=max_work)
    searched = time.perf_counter() - t0
    t1 = time.perf_counter()
    cert, plan, bound = result_certificate(result, form="compact")
    path = out_dir / f"m{m}.cert.json"
    write_certificate(cert, path)
    built = time.perf_counter() - t1
    wall, cpu, _ = verify_in_fresh_process(path, max_work)
    closed, exact = theorem1(m)
    ratio = bound.ratio
    extra = upper(m, path) if bracket else {"upper": None}
    return extra | {
        "m": m, "code": result.code.description, "t": result.code.size,
        "weights": sorted({w.bit_count() for w in result.code.words}),
        "plan": [(d, list(g), str(bound.factors[d]), bound.pairs[d]) for d, g in plan.entries],
        "bound": max(bound.rank_at_least, (cert.get("argument") or {}).get("rank_at_least", 0)),
        "trace_frobenius": bound.rank_at_least, "argument": cert.get("argument"),
        "ratio": f"{ratio.numerator}/{ratio.denominator}",
        "ratio_float": ratio.numerator / ratio.denominator,
        "inputs": cert["family"]["inputs"], "jumps": cert["family"]["jumps"],
        "bytes": path.stat().st_size, "search_s": searched, "build_s": built,
        "verify_wall_s": wall, "verify_cpu_s": cpu, "closed_form": closed, "bounds_exact": exact,
        "how": result.how(), "file": str(path.relative_to(ROOT)) if committed else None,
        "sha256": cert["sha256"], "seed": seed, "budget": budget, "steps": result.steps,
        "reproducible": result.reproducible, "random_words": random_words, "max_work": max_work,
    }


def _family_of(path: Path) -> tuple | None:
    """The code words, length, error and chain plan of a certificate: what its family depends on."""
    if not path.exists():
        return None
    doc = json.loads(path.read_text())
    claim = doc["claim"]
    return (tuple(doc["code"]["words"]), claim["length"], claim["error_below"],
            tuple((e["distance"], tuple(e["gaps"])) for e in doc["plan"]["entries"]))


def render(rows: list[dict], args: argparse.Namespace) -> str:
    lines = [
        BEGIN,
        "",
        f"Generated by `python tests/benchmarks/results_table.py{args.command_options}` "
        f"on {time.strftime('%Y-%m-%d')} ({os.cpu_count()} cores; the machine was shared with other work, "
        "so times are indicative; codes, certificates and tables are reproducible from the seed and budget).",
        "",
        "| m | bound | upper (bracket) | last step | trace–Frobenius | t²/(t+ΣF⁻²) | code | t | "
        "chain plan: distance → gaps (F) | family (inputs) | certificate | search | build | verify (CPU) | "
        "paper closed form | `certify bounds` exact | ceiling of the family method |",
        "| ---: | ---: | ---: | --- | ---: | ---: | --- | ---: | --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |",
    ]
    for r in rows:
        arg = r.get("argument")
        step = ("trace–Frobenius" if not arg else
                f"{arg['name']}, s = {arg['s']}" if "s" in arg else
                f"square, b = {arg['b']}, g = {arg['g']}" if arg["name"] == "square" else
                f"square-kernel, b = {arg['b']}, g = {arg['g']}, μ = [{', '.join(arg['mu'])}]")
        plan = "; ".join(f"{d} → {'+'.join(map(str, g))} ({f})" for d, g, f, _ in r["plan"])
        cert = f"[{r['bytes'] / 1024:,.0f} KiB]({Path(r['file']).relative_to('docs')})" if r["file"] else f"{r['bytes'] / 1024:,.0f} KiB"
        up = (_upper_cell(r) if r.get("upper") else r["upper_kept"][0] if r.get("upper_kept") else
              _upper_cell(r) if "upper_s" in r else "—")
        lines.append(
            f"| {r['m']} | **r ≥ {r['bound']}** | {up} | {step} | r ≥ {r.get('trace_frobenius', r['bound'])} | "
            f"{r['ratio_float']:.3f} | {r['code']} | {r['t']:,} | {plan} | "
            f"{r['inputs']:,} | {cert} | {r['search_s']:.0f} s | {r['build_s']:.1f} s | {r['verify_wall_s']:.1f} s "
            f"({r['verify_cpu_s']:.1f} s) | {r['closed_form']} | {r['bounds_exact']} | {ceiling_cell(r['m'], r['t'], arg)} |")
    lines += ["", "How each code was found (`certify search --m M --seed S --budget N`, then "
              "`certify rank-bound`'s compact form of the code):", ""]
    for r in rows:
        seed = f"--seed {r['seed']} --budget {r['budget']}" if "budget" in r else "time-limited"
        seed += "".join(f" --{k.replace('_', '-')} {r[k]}" for k, d in (("random_words", RANDOM_SEED_WORDS), ("max_work", None))
                        if r.get(k, d) != d)
        up = (f"; upper side `certify bracket docs/results/m{r['m']}.cert.json` (defaults): "
              f"{r['upper_iterations']:,} iterations, {r['upper_s']:.0f} s, entries multiples of "
              f"1/{r['upper_denominator']:,}" if r.get("upper") else r["upper_kept"][1] if r.get("upper_kept") else "")
        lines.append(f"* m = {r['m']} (`{seed}`): {r['how']}; exact ratio {r['ratio']}; "
                     f"sha256 `{r['sha256'][:16]}…`{up}.")
    lines += ["", END]
    return "\n".join(lines)


def ceiling_cell(m: int, t: int, argument: dict | None) -> str:
    """The table's "ceiling of the family method" cell: what trace–Frobenius, shift and null-space step can prove at most
    from any family of ``t`` words of ``m`` bits (docs/math.md §5), and whether the row's own last step is covered."""
    cell = f"r ≥ {ceiling(t, m):,} at most"
    return cell if covers(argument) else cell + f" ({argument['name']}: not covered)"


def _with_ceiling(line: str) -> str:
    """A table row of an earlier run, with the ceiling cell appended if it has none (its m, t and last step read back)."""
    cells = line.split("|")
    if len(cells) >= 19:
        return line
    step = cells[4].strip()
    name = "square-kernel" if step.startswith("square-kernel") else "square" if step.startswith("square") else None
    return line + f" {ceiling_cell(int(cells[1]), int(cells[8].strip().replace(',', '')), name and {'name': name})} |"


JOBS_BEGIN, JOBS_END = "<!-- jobs:begin -->", "<!-- jobs:end -->"


def _row_lines(block: str) -> tuple[dict[int, str], dict[int, str]]:
    """The table rows and the "How each code was found" items of a rendered block, by m."""
    rows = {int(line.split("|")[1]): line for line in block.splitlines() if line.startswith("| ") and
            line.split("|")[1].strip().isdigit()}
    items = {int(line.split()[3]): line for line in block.splitlines() if line.startswith("* m = ")}
    return rows, items


def merge(old_block: str, new_block: str, new_ms: set[int], args: argparse.Namespace) -> str:
    """``new_block`` with the rows of ``old_block`` for the other m put back, in order of m."""
    old_rows, old_items = _row_lines(old_block)
    new_rows, new_items = _row_lines(new_block)
    rows = {m: _with_ceiling(r) for m, r in old_rows.items() if m not in new_ms} | new_rows
    items = {m: r for m, r in old_items.items() if m not in new_ms} | new_items
    old_lines = old_block.splitlines()
    intro = "\n".join(old_lines[:old_lines.index(next(line for line in old_lines if line.startswith("| m |")))]).strip()
    added = (f"Rows m = {min(new_ms)} … {max(new_ms)} (re)made by `python tests/benchmarks/results_table.py"
             f"{args.command_options} --merge` on {time.strftime('%Y-%m-%d')}; the others are kept from the runs above.")
    lines = new_block.splitlines()
    table_head = lines.index(next(line for line in lines if line.startswith("| m |")))
    header = [BEGIN, "", intro + "\n\n" + added, ""] + lines[table_head:table_head + 2]
    how = next(line for line in lines if line.startswith("How each code was found"))
    return "\n".join(header + [rows[m] for m in sorted(rows)] + ["", how, ""] +
                      [items[m] for m in sorted(items)] + ["", END])


def replace_between(text: str, begin: str, end: str, body: str) -> str:
    if begin not in text or end not in text:
        raise SystemExit(f"the doc has no {begin} … {end} block to replace")
    head, rest = text.split(begin, 1)
    return head + begin + "\n\n" + body + "\n\n" + end + rest.split(end, 1)[1]


def jobs_table(block: str, only: set[int] | None = None, old: str = "") -> str:
    """``python certify/check.py`` against ``certify verify --jobs 2`` on the committed rows with t ≥ 1,000 (wall, fresh processes).

    ``only``: time just these rows and keep the lines of the others from ``old`` (the jobs block as it was),
    saying which were timed when (``--jobs-m``).
    """
    from certify.check import compact_work

    kept = {int(line.split("|")[1]): line for line in old.splitlines() if re.match(r"\| \d+ \|", line)}
    when = next((line for line in old.splitlines() if line.startswith("Measured by")), "")
    lines = ([f"Measured by `python tests/benchmarks/results_table.py … --jobs-table` on {time.strftime('%Y-%m-%d')} "
              f"({os.cpu_count()} cores), one run each, wall seconds:"] if only is None else
             [when, "", f"Rows m = {', '.join(map(str, sorted(only)))} measured by `python tests/benchmarks/results_table.py "
              f"--m-from 50 --m-to 48 --jobs-table --jobs-m {','.join(map(str, sorted(only)))}` on "
              f"{time.strftime('%Y-%m-%d')} ({os.cpu_count()} cores), the same way."]) + ["",
             "| m | t | work (word operations) | `python certify/check.py` | `certify verify --jobs 2` | speed-up | "
             "same output |",
             "| ---: | ---: | ---: | ---: | ---: | ---: | --- |"]
    for m in sorted(_row_lines(block)[0]):
        path = ROOT / "docs" / "results" / f"m{m}.cert.json"
        doc = json.loads(path.read_text()) if path.exists() else None
        if doc is None or len(doc["code"]["words"]) < 1000:
            continue
        if only is not None and m not in only and m in kept:
            lines.append(kept[m])
            continue
        t = len(doc["code"]["words"])
        work = compact_work(t, max(len(e["gaps"]) for e in doc["plan"]["entries"]), m)
        one, _, out1 = _timed([sys.executable, str(ROOT / "certify" / "check.py"), str(path)])
        two, _, out2 = _timed([sys.executable, "-m", "certify.cli", "verify", "--jobs", "2", str(path)])
        print(f"m = {m}: check.py {one:.1f} s, certify verify --jobs 2 {two:.1f} s", flush=True)
        lines.append(f"| {m} | {t:,} | {work:.2e} | {one:.1f} s | {two:.1f} s | {one / two:.2f}× | "
                     f"{'yes' if out1.stdout == out2.stdout else 'NO'} |")
    return "\n".join(lines)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--m-from", type=int, default=8)
    ap.add_argument("--m-to", type=int, default=48)
    ap.add_argument("--step", type=int, default=2)
    ap.add_argument("--budget", type=int, default=DEFAULT_BUDGET, help="Steps of certify search per row.")
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--random-words", type=int, default=RANDOM_SEED_WORDS, help="certify search --random-words.")
    ap.add_argument("--max-work", type=int, default=None,
                    help="certify search --max-work, and check.py --max-work for the verification (default: the checker's).")
    ap.add_argument("--bracket-up-to", type=int, default=18,
                    help="Run certify bracket on the rows with m ≤ this (defaults; m = 18 takes about 12 s).")
    ap.add_argument("--bracket-only", action="store_true",
                    help="Only run certify bracket on the committed certificates of the rows in range and rewrite "
                         "their upper-side cell and note (nothing searched, no certificate rewritten).")
    ap.add_argument("--plot-only", action="store_true",
                    help="Only redraw docs/results.png from the doc's table (every run redraws it at the end).")
    ap.add_argument("--bracket-iterations", type=int, default=None, help="certify bracket --iterations (default: its own).")
    ap.add_argument("--bracket-budget", type=int, default=None, help="certify bracket --budget (default: its own).")
    ap.add_argument("--bracket-method", choices=["adam", "boxes"], default=None, help="certify bracket --method.")
    ap.add_argument("--bracket-start-rank", type=int, default=None, help="certify bracket --start-rank.")
    ap.add_argument("--bracket-table", type=Path, default=None,
                    help="With --bracket-only, one row: no search; check this table (made by --bracket-table-command on "
                         "the same family) against the row's certificate, exactly, and write its cell.")
    ap.add_argument("--bracket-table-command", default=None, help="The command that made --bracket-table (for the note).")
    ap.add_argument("--bracket-lowest-rank", type=int, default=None, help="certify bracket --lowest-rank.")
    ap.add_argument("--bracket-restarts", type=int, default=None, help="certify bracket --restarts.")
    ap.add_argument("--bracket-max-work", type=int, default=None, help="certify bracket --max-work.")
    ap.add_argument("--keep-brackets", action="store_true",
                    help="For a row not bracketed in this run whose code and chain plan (so whose family) are those "
                         "of the certificate it replaces, keep the doc's upper-side cell and note for it (the "
                         "committed bracket table still solves that family; tests/test_results.py re-checks it).")
    ap.add_argument("--commit-up-to", type=int, default=64)
    ap.add_argument("--scratch", type=Path, default=None)
    ap.add_argument("--doc", type=Path, default=ROOT / "docs" / "results.md")
    ap.add_argument("--json", type=Path, default=None, help="Also write the rows as JSON here.")
    ap.add_argument("--previous", type=Path, default=None,
                    help="Rows (JSON, from --json) of an earlier run to keep in the table, e.g. smaller m.")
    ap.add_argument("--merge", action="store_true",
                    help="Keep the rows of the other m already in the doc's table (this run's rows replace theirs).")
    ap.add_argument("--rows", type=Path, default=None,
                    help="Take this run's rows from a --json file instead of searching (their certificates are "
                         "verified again, and the verify times are this run's).")
    ap.add_argument("--jobs-table", action="store_true",
                    help="Also time check.py and certify verify --jobs 2 on every committed row with t ≥ 1,000 "
                         "words and write that table between the jobs:begin/jobs:end markers.")
    ap.add_argument("--jobs-m", default=None, metavar="M,M,…",
                    help="With --jobs-table: time only these rows and keep the other rows' lines of the jobs table.")
    args = ap.parse_args()
    defaults = {"budget": DEFAULT_BUDGET, "seed": 0, "m_from": 8, "m_to": 48, "step": 2, "bracket_up_to": 18,
                "random_words": RANDOM_SEED_WORDS, "max_work": None}
    args.command_options = "".join(f" --{k.replace('_', '-')} {getattr(args, k)}" for k, v in defaults.items()
                                   if getattr(args, k) != v) + (" --keep-brackets" if args.keep_brackets else "")
    scratch = args.scratch or Path(tempfile.mkdtemp(prefix="certify-results-"))
    scratch.mkdir(parents=True, exist_ok=True)
    if args.bracket_only:
        bracket_only(args.doc, list(range(args.m_from, args.m_to + 1, args.step)), args.bracket_iterations,
                     args.bracket_budget, scratch, table=args.bracket_table, table_command=args.bracket_table_command,
                     method=args.bracket_method, start=args.bracket_start_rank,
                     lowest=args.bracket_lowest_rank, restarts=args.bracket_restarts, max_work=args.bracket_max_work)
    if args.bracket_only or args.plot_only:
        plot_doc(args.doc)
        return
    committed_dir = ROOT / "docs" / "results"
    committed_dir.mkdir(exist_ok=True)
    rows = json.loads(args.previous.read_text()) if args.previous else []
    doc_text = args.doc.read_text(encoding="utf-8")
    old_rows, old_items = _row_lines(doc_text.split(BEGIN, 1)[1].split(END, 1)[0]) if BEGIN in doc_text else ({}, {})
    given = {r["m"]: r for r in json.loads(args.rows.read_text())} if args.rows else {}
    for m in range(args.m_from, args.m_to + 1, args.step):
        committed = m <= args.commit_up_to
        if m in given:  # a row of an earlier run: verify its certificate again, here and now
            r = dict(given[m])
            r["verify_wall_s"], r["verify_cpu_s"], _ = verify_in_fresh_process(ROOT / r["file"], r.get("max_work"))
        else:
            before = _family_of(committed_dir / f"m{m}.cert.json") if committed else None
            r = row(m, args.budget, args.seed, committed_dir if committed else scratch, committed,
                    m <= args.bracket_up_to, args.random_words, args.max_work)
            if (args.keep_brackets and m > args.bracket_up_to and before is not None and m in old_rows
                    and before == _family_of(committed_dir / f"m{m}.cert.json")):
                cell = old_rows[m].split("|")[3].strip()
                item = old_items.get(m, "")
                note = item[item.index("; upper side"):].rstrip(".") if "; upper side" in item else ""
                if cell.startswith("[r ≤"):
                    r["upper_kept"] = (cell, note)
        rows.append(r)
        print(f"m = {m}: r ≥ {r['bound']} (trace–Frobenius {r['trace_frobenius']}, {r['ratio_float']:.3f}) from "
              f"{r['t']:,} words; search {r['search_s']:.0f} s, "
              f"build {r['build_s']:.1f} s, verify {r['verify_wall_s']:.1f} s"
              + (f"; bracket r ≤ {r['upper']} in {r['upper_s']:.0f} s" if r.get("upper") else ""), flush=True)
        if args.json:
            args.json.write_text(json.dumps(rows, indent=1))
    text = args.doc.read_text(encoding="utf-8")
    if BEGIN not in text or END not in text:
        raise SystemExit(f"{args.doc} has no {BEGIN} … {END} block to replace")
    head, rest = text.split(BEGIN, 1)
    old_block, tail = rest.split(END, 1)
    if rows:
        block = render(rows, args)
        if args.merge:
            block = merge(old_block, block, {r["m"] for r in rows}, args)
    else:  # an empty range (e.g. --m-from 50 --m-to 48 --jobs-table): the table stays as it is
        block = BEGIN + old_block + END
    text = head + block + tail
    if args.jobs_table:
        only = None if args.jobs_m is None else {int(x) for x in args.jobs_m.split(",")}
        old_jobs = text.split(JOBS_BEGIN, 1)[1].split(JOBS_END, 1)[0] if JOBS_BEGIN in text else ""
        text = replace_between(text, JOBS_BEGIN, JOBS_END, jobs_table(block, only, old_jobs))
    args.doc.write_text(text, encoding="utf-8")
    plot_doc(args.doc)
    print(f"wrote {args.doc} ({len(rows)} rows); certificates for m ≤ {args.commit_up_to} in {committed_dir}, others in {scratch}")


if __name__ == "__main__":
    main()
