"""Benchmark: re-measure the figures the docs quote that no session and no other benchmark re-runs (issue 29).

Run (from a checkout, after ``pip install .``; torch for ``experiment``)::

    python tests/benchmarks/bench_doc_figures.py [--only NAME[,NAME…]] [--list]

Every figure in README.md and docs/*.md comes from a console session (re-run by
``tests/test_docs_sessions.py`` or ``bench_docs.py``), from a benchmark of this folder that
the doc names, or from a case here (docs/performance.md, "The documented sessions"). Each
case re-runs the commands behind some figures — each command a fresh process of this
checkout's code (``python -m certify.cli``, ``PYTHONPATH`` set to the checkout) with
``CERTIFY_PROGRESS=0`` — and prints, per figure, where the doc quotes it, the figure as
quoted and what it measured now: wall time, CPU time (user + system, from
``resource.getrusage(RUSAGE_CHILDREN)`` before and after) and peak memory (the process's
own ``VmHWM``, Linux, as ``bench_hostile.py`` measures it). Counts (inputs, words, ranks,
exit codes) are read from the commands' outputs. Times depend on the machine and its
load; a count that differs is a drift. ``--list`` names the cases. About 4 minutes on the
2-core machine (2026-12-02); every case under a minute.
"""
from __future__ import annotations

import argparse
import json
import os
import random
import re
import resource
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
ENV = dict(os.environ, CERTIFY_PROGRESS="0",
           PYTHONPATH=os.pathsep.join(filter(None, [str(ROOT), os.environ.get("PYTHONPATH")])))
ROWS: list[tuple[str, str, str, str]] = []  # (case, where, quoted, now)


@dataclass
class Run:
    wall: float
    cpu: float
    rss: float  # MiB
    code: int
    out: str
    err: str

    def __str__(self) -> str:
        return f"{self.wall:.2f} s wall, {self.cpu:.2f} s CPU, {self.rss:.0f} MiB, exit {self.code}"


# The command runs inside this wrapper, which reports the process's own peak memory on stderr (``VmHWM`` starts
# afresh at ``exec``; ``wait4``'s ``ru_maxrss`` would also count the benchmark's memory, copied at the fork), as
# bench_hostile.py does. ``-m MODULE``, ``-c CODE`` or ``-p SCRIPT``, then the arguments.
WRAP = """
import runpy, sys
kind, target, *rest = sys.argv[1:]
code = 0
try:
    if kind == "-m":
        sys.argv = [target, *rest]
        runpy.run_module(target, run_name="__main__", alter_sys=True)
    elif kind == "-c":
        sys.argv = ["-c", *rest]
        exec(compile(target, "<string>", "exec"), {"__name__": "__main__"})
    else:
        sys.argv = [target, *rest]
        runpy.run_path(target, run_name="__main__")
except SystemExit as e:
    code = e.code
sys.stdout.flush()
print("@@", [ln for ln in open("/proc/self/status") if ln.startswith("VmHWM")][0].split()[1], file=sys.stderr)
sys.exit(code)
"""


def run(args: list[str], cwd: Path, ok: tuple[int, ...] = (0,)) -> Run:
    """One fresh process: ``certify ARGS`` (``python -m certify.cli``), ``python -c CODE …`` or ``python SCRIPT.py …``."""
    if args[0] == "-c":
        target = args
    elif args[0].endswith(".py"):
        target = ["-p", *args]
    else:
        target = ["-m", "certify.cli", *args]
    with tempfile.TemporaryFile() as out, tempfile.TemporaryFile() as err:
        before = resource.getrusage(resource.RUSAGE_CHILDREN)
        start = time.perf_counter()
        proc = subprocess.Popen([sys.executable, "-c", WRAP, *target], cwd=cwd, env=ENV, stdout=out, stderr=err)
        _, status, _ = os.wait4(proc.pid, 0)
        wall = time.perf_counter() - start
        after = resource.getrusage(resource.RUSAGE_CHILDREN)
        out.seek(0), err.seek(0)
        stderr = err.read().decode()
        hwm = re.findall(r"^@@ (\d+)$", stderr, re.M)
        cpu = after.ru_utime - before.ru_utime + after.ru_stime - before.ru_stime
        r = Run(wall, cpu, int(hwm[-1]) / 1024 if hwm else 0.0, os.waitstatus_to_exitcode(status),
                out.read().decode(), re.sub(r"^@@ \d+\n", "", stderr, flags=re.M))
    if r.code not in ok:
        raise SystemExit(f"{' '.join(args)}: exit {r.code}\n{r.err[-2000:]}")
    return r


def row(case: str, where: str, quoted: str, now: str) -> None:
    ROWS.append((case, where, quoted, now))
    print(f"  {where}\n    quoted: {quoted}\n    now:    {now}", flush=True)


def one_line(text: str) -> str:
    return text.strip().splitlines()[-1][:160] if text.strip() else ""


# --------------------------------------------------------------------------- the cases


def family(d: Path) -> None:
    """``certify family jumps --code hadamard:128 --chains direct``: the largest accepted family file."""
    r = run(["family", "jumps", "--code", "hadamard:128", "--chains", "direct", "--out", "h128.json"], d)
    inputs = re.search(r"inputs\s+([\d,]+)", r.out).group(1)
    size = (d / "h128.json").stat().st_size / 1e6
    now = f"{inputs} inputs, {size:.0f} MB, {r}"
    row("family", "docs/families.md, options (`jumps --code hadamard:128 --chains direct`)",
        "32,131 inputs of 128-bit tokens, 26 MB, about 8 s on the loaded CI machine", now)
    row("family", "docs/performance.md, issue 9 (the largest accepted family file)",
        "32,131 inputs, 26 MB, about 8 s wall (4 s to build, 4 s to write)", now)


def unique_minimizer(d: Path) -> None:
    """``certify unique-minimizer`` (defaults), then ``certify verify`` on its certificate."""
    made = run(["unique-minimizer", "--out", "um.json"], d)
    checked = run(["verify", "um.json"], d)
    row("unique-minimizer", "docs/performance.md, issue 9 (`certify unique-minimizer`, then `certify verify` on its file)",
        "well under a second each", f"{made}; verify: {checked}")


def rank15(d: Path) -> None:
    """``certify construction rank15`` as a command."""
    r = run(["construction", "rank15", "--out", "r15.npz"], d)
    row("rank15", "docs/performance.md, issue 9 (`certify construction rank15`)", "about 1 s as a command", str(r))


def identities(d: Path) -> None:
    """``certify identities`` as a command (sympy)."""
    r = run(["identities"], d)
    row("identities", "docs/constructions.md, `certify identities`", "about 3 s",
        f"{one_line(r.out).strip()}; {r}")


def sympy_import(d: Path) -> None:
    """What importing sympy costs: ``python -c 'import sympy'`` less ``python -c pass``, best of 3 each."""
    bare = min((run(["-c", "pass"], d) for _ in range(3)), key=lambda r: r.wall)
    imp = min((run(["-c", "import sympy"], d) for _ in range(3)), key=lambda r: r.wall)
    row("sympy", "docs/performance.md, issue 2 (`python -c 'import sympy'` less `python -c pass`, best of 3)",
        "importing sympy alone costs ≈ 0.43 s", f"{imp.wall - bare.wall:.2f} s wall ({imp.wall:.2f} s − {bare.wall:.2f} s)")


CODES = ("import time; from codes import greedy_code, rank_nine_code; t = time.perf_counter(); a = rank_nine_code(); "
         "u = time.perf_counter(); b = greedy_code(24, 12, 6, 15); v = time.perf_counter(); "
         "print(a.size, b.size, u - t, v - u)")


def rank_nine_code_(d: Path) -> None:
    """The rank-nine code from the Hadamard rows against ``greedy_code(24, 12, 6, 15)``, in one fresh process."""
    words, greedy_words, hadamard, greedy = run(["-c", CODES], d).out.split()
    row("rank-nine-code", "docs/rank-nine.md, the code (`codes.rank_nine_code()` and `codes.greedy_code(24, 12, 6, 15)`)",
        "about a millisecond instead of half a second",
        f"{words} words in {float(hadamard) * 1000:.1f} ms; greedy {greedy_words} words in {float(greedy):.2f} s")


def softmax_lengths(d: Path) -> None:
    """``certify construction softmax --m M --length N``: the largest N accepted at each m (every length ≤ N)."""
    from certify.constructions import Softmax
    from certify.constructions.exhaustive import MAX_INPUTS, count_inputs

    largest = {}
    for m in (1, 2, 3, 4):
        n = 1
        while int(count_inputs(m, Softmax(m, n + 1).lengths, Softmax(m, n + 1).positions)) <= MAX_INPUTS:
            n += 1
        refused = run(["construction", "softmax", "--m", str(m), "--length", str(n + 1)], d, ok=(2,))
        largest[m] = f"n = {n} (n = {n + 1} refused: exit {refused.code})"
    row("softmax-lengths", "docs/performance.md, issue 9 (softmax, every length up to n, at fixed m)",
        "m = 1 → n = 22, m = 2 → n = 11, m = 3 → n = 8, m = 4 → n = 6",
        "; ".join(f"m = {m}: {t}" for m, t in largest.items()))
    for m, n, quoted in ((2, 11, "59,652,324 inputs, 24 s wall / 10 s CPU"), (3, 8, "150,652,552 inputs, 52 s wall / 22 s CPU")):
        r = run(["construction", "softmax", "--m", str(m), "--length", str(n)], d)
        inputs = re.search(r"([\d,]{6,}) inputs", r.out)
        row("softmax-lengths", f"docs/performance.md, issue 9 (`certify construction softmax --m {m} --length {n}`)",
            quoted, f"{inputs.group(1) if inputs else '?'} inputs, {r}")


def bounds_interval(d: Path) -> None:
    """Interval-mode points near m = 10⁶: a range of N points less a range of one, per point."""
    def per_point(extra: list[str], lo: int, n: int) -> str:
        one = min((run(["bounds", "--m-range", f"{10**6}:{10**6}", *extra], d) for _ in range(2)), key=lambda r: r.wall)
        many = run(["bounds", "--m-range", f"{lo}:{10**6}:100", *extra], d)
        return f"{(many.cpu - one.cpu) / (n - 1) * 1000:.0f} ms CPU per point ({n} points {many.cpu:.2f} s CPU, 1 point {one.cpu:.2f} s)"

    row("bounds-interval", "docs/bounds.md, limits; docs/performance.md, issue 11 (`certify bounds --m-range`, default sections)",
        "about 10 ms each near m = 10⁶", per_point([], 10**6 - 100 * 100, 101))
    row("bounds-interval", "docs/bounds.md, limits; docs/performance.md, issue 11 (with `--length 1000 --heads 2 --degree 2`)",
        "about 0.1 s each", per_point(["--length", "1000", "--heads", "2", "--degree", "2"], 10**6 - 100 * 10, 11))


def theorem1(d: Path) -> None:
    """The exact Theorem-1 evaluation alone (``certify.bounds.values.theorem1``) at m = 10⁴ and 20,000, fresh processes."""
    for m, quoted in ((10_000, "0.08 s at M = 10⁴"), (20_000, "0.45 s at M = 20,000")):
        r = run(["-c", "import time; from certify.bounds.values import theorem1; t = time.perf_counter(); "
                       f"theorem1({m}); print(time.perf_counter() - t)"], d)
        row("theorem1", f"docs/performance.md, issue 3 (the exact Theorem-1 scan alone, `theorem1({m})`, fresh process)",
            quoted, f"{float(r.out):.3f} s")


GREEDY = ("import sys, time\nfrom codes import CodeSpecError, load_code\nt = time.perf_counter()\ntry:\n"
          "    c = load_code(sys.argv[1])\nexcept CodeSpecError as e:\n    sys.exit(f'refused: {e}')\n"
          "print(c.size, time.perf_counter() - t)")


def greedy(d: Path) -> None:
    """Greedy colex scans: ``codes.load_code(SPEC)`` in a fresh process, and the D = 1 specs through ``rank-bound``."""
    from codes.constant_weight import greedy_scan_bound

    for spec, quoted in (("lexicode:20:10:2", "bound 3.1·10⁹, 6,140 words, 12.2 s"),
                         ("lexicode:22:11:3", "bound 6.4·10⁹, 1,641 words, 4.5 s"),
                         ("lexicode:24:12:4", "bound 1.6·10¹⁰, refused at once")):
        M, W, D = map(int, spec.split(":")[1:])
        r = run(["-c", GREEDY, spec], d, ok=(0, 1))
        now = (f"{int(r.out.split()[0]):,} words, scan {float(r.out.split()[1]):.1f} s" if r.code == 0
               else one_line(r.err)[:90])
        row("greedy", f"docs/performance.md, greedy scans (`codes.load_code('{spec}')`, fresh process)", quoted,
            f"bound {greedy_scan_bound(M, W, D):.2g}, {now}; {r}")
    for spec in ("lexicode:24:12:1", "greedy:24:1"):
        r = run(["rank-bound", "--code", spec, "--out", "x.json"], d, ok=(2,))
        row("greedy", f"docs/performance.md, greedy scans (`certify rank-bound --code {spec}`)",
            "exit 2 in 4–6 s: over the compact certificate's 16,384 words", f"{one_line(r.err)[:70]}; {r}")


def _words(path: Path, t: int, m: int, rng: random.Random, min_distance: int = 1) -> None:
    """``t`` random distinct ``m``-bit words (any weights), one per line; with ``min_distance`` 2, every directed
    distance is at least 2 (so that every pair has a chain at length 3)."""
    import numpy as np

    words: list[int] = []
    seen: set[int] = set()
    while len(words) < t:
        w = rng.getrandbits(m)
        if w in seen:
            continue
        if min_distance > 1 and words:
            a = np.array(words, dtype=np.uint64)
            x = np.uint64(w)
            if (np.bitwise_count(x & ~a) < min_distance).any() or (np.bitwise_count(a & ~x) < min_distance).any():
                continue
        words.append(w)
        seen.add(w)
    path.write_text("".join(format(w, f"0{m}b") + "\n" for w in words))


def producers(d: Path) -> None:
    """docs/performance.md, "Bounded producers (issue 18)": each reproducer, now."""
    rng = random.Random(18)
    _words(d / "w8000.txt", 8000, 64, rng, min_distance=2)
    _words(d / "w400.txt", 400, 4096, rng)
    _words(d / "w1800.txt", 1800, 4096, rng)
    where = "docs/performance.md, bounded producers"
    for f, quoted in (("w8000.txt", "8,000 random 64-bit words: exit 2 in 0.44 s, 35 MB (chains of up to 6 jumps exceed the compact work limit)"),
                      ("w400.txt", "400 random 4,096-bit words: exit 2 in 1.9 s, 26 MB"),
                      ("w1800.txt", "1,800 words of 4,096 bits: exit 2 in 0.27 s when the file is read (207,244,800 > 2·10⁸)")):
        r = run(["rank-bound", "--code", f, "--out", "x.json"], d, ok=(2,))
        row("producers", f"{where} (`rank-bound --code FILE`, {(d / f).stat().st_size / 1e3:,.0f} KB)", quoted,
            f"{one_line(r.err)[:110]}; {r}")
    r = run(["unique-minimizer", "--code", "golay24", "--out", "x.json"], d, ok=(2,))
    row("producers", f"{where} (`unique-minimizer --code golay24`)", "exit 2 in 0.26 s, 34 MB: 26,532,800 inputs, about 4,403 MiB",
        f"{one_line(r.err)[9:120]}; {r}")
    for limit, quoted in (("5", "4.7–4.9 s"), ("2", "2.0–2.3 s, 64 MB")):
        r = run(["search", "--m", "64", "--length", "1000", "--error-below", "1/1000", "--time-limit", limit, "--json",
                 "--out", "s.json"], d)
        doc = json.loads(r.out)
        row("producers", f"{where} (`search --m 64 --length 1000 --error-below 1/1000 --time-limit {limit}`)", quoted,
            f"{r}; {doc['counts']['words']:,} words kept, r ≥ {doc['claim']['rank_at_least']}")
    run(["rank-bound", "--code", "hadamard24", "--form", "explicit", "--out", "h24.json"], d)
    try:
        import torch  # noqa: F401
    except ImportError:
        row("producers", f"{where} (`train --family F --ranks 1024`)", "exit 2 in 3.1 s", "not run: no torch")
    else:
        r = run(["train", "--family", "h24.json", "--ranks", "1024", "--out", "tr"], d, ok=(2,))
        row("producers", f"{where} (`train --family F --ranks 1024`, F: hadamard24's 4,370 inputs)",
            "exit 2 in 3.1 s: 13,424,640 feature entries per step, over 10⁷", f"{one_line(r.err)[9:100]}; {r}")
    for args in (["--code", "golay24"], ["--code", "hadamard24", "--length", "1000"]):
        r = run(["rank-bound", *args, "--form", "explicit", "--out", "x.json"], d, ok=(2,))
        row("producers", f"{where} (`rank-bound {' '.join(args)} --form explicit`)", "exit 2 from the counts",
            f"{one_line(r.err)[9:110]}; {r}")


def time_limit(d: Path) -> None:
    """docs/results.md, "`--time-limit` covers the whole command": the table's six commands."""
    for args, quoted in (("--m 64 --length 1000 --error-below 1/1000 --time-limit 2", "2.0–2.3 s, 118–134 of 2,576 words, r ≥ 118–134"),
                         ("--m 64 --length 1000 --error-below 1/1000 --time-limit 5", "4.7–4.9 s, 186–251 of 2,576, r ≥ 186–251"),
                         ("--m 64 --length 1000 --error-below 1/1000 --time-limit 10", "8.6 s, trimmed from 2,576, r ≥ 327"),
                         ("--m 24 --time-limit 3", "3.1 s, trimmed from golay24, r ≥ 32"),
                         ("--m 30 --error-below 1/3 --time-limit 4", "3.9 s, trimmed from 5,320 words, r ≥ 115"),
                         ("--m 64 --time-limit 3", "2.9 s, not trimmed, r ≥ 123")):
        r = run(["search", *args.split(), "--json", "--out", "s.json"], d)
        doc = json.loads(r.out)
        kept = (f"{doc['counts']['words']:,} of {doc['trimmed_from']:,} words" if doc.get("trimmed_from")
                else f"{doc['counts']['words']:,} words, not trimmed")
        row("time-limit", f"docs/results.md, `--time-limit` (`certify search {args}`)", quoted,
            f"{r.wall:.1f} s wall ({r.cpu:.1f} s CPU; search {doc['seconds']:.1f} s), {kept}, r ≥ {doc['claim']['rank_at_least']}")


def check_split(d: Path) -> None:
    """A split at the words × permutations limit: all 12,870 weight-8 words of 16 bits, 77 distinct permutations."""
    from certify.check_split import MAX_WORD_ACTIONS

    doc = json.loads((ROOT / "tests" / "splits" / "valid" / "small_M4_q2.json").read_text())
    doc["setting"].update(M=16, h=8, m=19)
    doc["words"] = [format(w, "016b")[::-1] for w in range(1 << 16) if w.bit_count() == 8]
    rng = random.Random(29)
    perms: set[tuple[int, ...]] = set()
    while len(perms) < MAX_WORD_ACTIONS // len(doc["words"]):
        perms.add(tuple(rng.sample(range(16), 16)))
    doc["permutations"] = [list(p) for p in sorted(perms)]
    (d / "split.json").write_text(json.dumps(doc))
    r = run(["experiment", "check-split", "split.json"], d, ok=(1, 2))
    row("check-split", f"docs/experiments.md, the split (`certify experiment check-split`: 12,870 words × {len(perms)} "
        "permutations, the rest of the file too small: rejected after the actions)",
        "at the limit, 12,870 words × 77 permutations: 2.0 s of CPU and 61 MB for the whole command", str(r))


RANK_TABLE = r"""
import json, random, sys
from witnesses import rank_nine_family
fam = rank_nine_family("paper")
toks = sorted({z for X in fam.inputs for z in X.tokens})
queries = sorted({X.tokens[X.query] for X in fam.inputs})
rnd = random.Random(0)
big = lambda k: rnd.randrange(10 ** (k - 1), 10 ** k)
if sys.argv[1] == "columns":  # α(x, z) = 1/e_z, a 200-digit e_z per token: rank 1
    e = [big(200) for _ in toks]
    kernel = [[f"1/{x}" for x in e] for _ in toks]
else:  # 12 distinct rows of k-digit reciprocals; the 15 query tokens' rows are those rows, three of them twice
    rows = [[f"1/{big(int(sys.argv[1]))}" for _ in toks] for _ in range(12)]
    at = {z: i % 12 for i, z in enumerate(queries)}
    kernel = [rows[at.get(z, i % 12)] for i, z in enumerate(toks)]
json.dump({"tokens": [format(z, "024b")[::-1] for z in toks], "kernel": kernel}, open(sys.argv[2], "w"))
"""


def rank_limits(d: Path) -> None:
    """docs/kernel-table-format.md, "Limits for untrusted tables": the adversarial review's three kernels, rebuilt."""
    for kind, quoted in (("columns", "1/e_z, a 200-digit e_z per token (11.8 MB JSON): 1.9 s, rank 1 exact"),
                         ("300", "12 distinct rows of 300-digit reciprocals in 15 (17 MB): 10.8 s, rank 12 exact"),
                         ("1000", "the same with 1,000-digit entries (57 MB): 12.9 s, ≥ 12 (predicted 166 s)")):
        run(["-c", RANK_TABLE, kind, "t.json"], d)
        r = run(["check-kernel", "t.json"], d, ok=(0, 1))
        rank = re.search(r"kernel rank\s+(≥ )?(\d+)", r.out)
        predicted = re.search(r"predicted to take about ([\d,]+ s)", r.out)
        row("rank-limits", "docs/kernel-table-format.md, limits for untrusted tables (`certify check-kernel TABLE`, "
            "rank-nine family)", quoted,
            f"{(d / 't.json').stat().st_size / 1e6:.1f} MB, kernel rank {(rank.group(1) or '') + rank.group(2)}"
            f"{' exact' if not rank.group(1) else ''}{f' (predicted {predicted.group(1)})' if predicted else ''}; {r}")


TRANSPOSE = r"""
import random, time
from flint import fmpz_mat
from certify.linalg.rank import matrix_rank
rnd = random.Random(0)
rows = [[rnd.randrange(10) for _ in range(193)] for _ in range(12000)]
for r in rows:
    r[192] = r[0] + r[1]
A = fmpz_mat(rows)
t = time.perf_counter()
res = matrix_rank(A)
print(res.rank, res.exact, time.perf_counter() - t)
"""


def transpose(d: Path) -> None:
    """``matrix_rank`` of a tall 12,000 × 193 integer matrix of rank 192 (transposed first)."""
    r = run(["-c", TRANSPOSE], d)
    rank, exact, seconds = r.out.split()
    row("transpose", "docs/kernel-table-format.md, exact ranks (`matrix_rank` of a 12,000 × 193 matrix of rank 192; "
        "here digits 0–9, the last column the sum of the first two)",
        "47.7 s before transposing, 3.5 s after (the review's matrix)",
        f"rank {rank} ({'exact' if exact == 'True' else 'lower bound'}) in {float(seconds):.1f} s")


def first_failure(d: Path) -> None:
    """``check-kernel`` of a width-16 golay24 table (``make_golay_table.py``) with ``--family golay24 --first-failure``."""
    run([str(ROOT / "tests" / "benchmarks" / "make_golay_table.py"), "16", "golay_r16.json"], d)
    r = run(["check-kernel", "golay_r16.json", "--family", "golay24", "--first-failure"], d, ok=(1,))
    ranks = re.search(r"kernel rank\s+(\d+) on .*certified bound r ≥ (\d+)", r.out)
    row("first-failure", "docs/performance.md, check-kernel through a compact family; docs/kernel-table-format.md "
        "(`certify check-kernel golay_r16.json --family golay24 --first-failure`)",
        "21–23 s wall, 20–22 s CPU, 662 MB peak; exit 1, kernel rank 16 < certified 50 (≈ 22 s)",
        f"{r}" + (f", kernel rank {ranks.group(1)}, certified r ≥ {ranks.group(2)}" if ranks else ""))


def interpolated(d: Path) -> None:
    """The share of ordered pairs whose chain needs an interpolated key (no codeword at some inner level)."""
    from itertools import accumulate

    import numpy as np

    shares = []
    for m in (30, 32, 36, 44, 46, 48):
        doc = json.loads((ROOT / "docs" / "results" / f"m{m}.cert.json").read_text())
        words = np.array([int(w[::-1], 2) for w in doc["code"]["words"]], dtype=np.uint64)
        levels = {e["distance"]: list(accumulate(e["gaps"]))[:-1] for e in doc["plan"]["entries"]}
        need = total = 0
        for s in words:
            counts = np.bincount(np.bitwise_count(s & ~words), minlength=m + 1)
            for dist in np.flatnonzero(counts[1:]) + 1:
                total += int(counts[dist])
                need += int(counts[dist]) * any(counts[lv] == 0 for lv in levels[int(dist)])
        shares.append(f"m = {m}: {100 * need / total:.1f}%")
    row("interpolated", "docs/performance.md, issue 20 (second pass); docs/results.md, `--jobs 2` (the committed "
        "certificates' codes and plans, counted in numpy)",
        "m = 44 … 48: 39–79% of the pairs need an interpolated key; m = 30: 11%, m = 32: 22%, m = 36: 0.2%", "; ".join(shares))


def experiment(d: Path) -> None:
    """Single §6.2 runs: ``certify experiment capacity`` at (6,4,8) rank 8 and (10,8,16) ranks 64, 256 and dense."""
    try:
        import torch  # noqa: F401
    except ImportError:
        row("experiment", "docs/performance.md, issue 19", "single runs", "not run: no torch")
        return
    for setting, ranks, quoted in (("6:4", "8", "(6,4,8) rank 8 3.6 s"),
                                   ("10:8", "64,256", "(10,8,16) rank 64 16.7 s, rank 256 20.6 s, dense 8.6 s")):
        r = run(["experiment", "capacity", "--settings", setting, "--ranks", ranks, "--seeds", "0", "--out", f"e{setting[:2]}"], d)
        runs = re.findall(r"^\s+(\d+|dense)\s+[\d.]+\s.*?([\d.]+)\s*$", r.out, re.M)
        row("experiment", f"docs/performance.md, issue 19 (`certify experiment capacity --settings {setting} --ranks "
            f"{ranks} --seeds 0`: the seconds column)", quoted,
            ", ".join(f"{'rank ' + k if k != 'dense' else k} {s} s" for k, s in runs) + f"; whole command {r}")


CASES = {
    "family": family,
    "unique-minimizer": unique_minimizer,
    "rank15": rank15,
    "identities": identities,
    "sympy": sympy_import,
    "rank-nine-code": rank_nine_code_,
    "softmax-lengths": softmax_lengths,
    "bounds-interval": bounds_interval,
    "theorem1": theorem1,
    "greedy": greedy,
    "producers": producers,
    "time-limit": time_limit,
    "check-split": check_split,
    "rank-limits": rank_limits,
    "transpose": transpose,
    "first-failure": first_failure,
    "interpolated": interpolated,
    "experiment": experiment,
}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--only", help="a case, or several separated by commas (--list names them)")
    ap.add_argument("--list", action="store_true", help="name the cases and exit")
    a = ap.parse_args()
    if a.list:
        print("\n".join(f"{k:<18} {(v.__doc__ or '').strip().splitlines()[0] if v.__doc__ else ''}" for k, v in CASES.items()))
        return
    names = a.only.split(",") if a.only else list(CASES)
    unknown = [n for n in names if n not in CASES]
    if unknown:
        ap.error(f"no case {unknown[0]!r}; --list names them")
    sys.path.insert(0, str(ROOT))
    print(f"python {sys.version.split()[0]}, {os.cpu_count()} cores, load average {os.getloadavg()[0]:.2f}, "
          f"{time.strftime('%Y-%m-%d')}", flush=True)
    for name in names:
        start = time.perf_counter()
        print(f"{name}:", flush=True)
        with tempfile.TemporaryDirectory() as tmp:
            CASES[name](Path(tmp))
        print(f"  ({time.perf_counter() - start:.0f} s, load average {os.getloadavg()[0]:.2f})", flush=True)
    print("\n| case | where | quoted | now |\n| --- | --- | --- | --- |")
    for case, where, quoted, now in ROWS:
        print(f"| {case} | {where} | {quoted} | {now} |")


if __name__ == "__main__":
    main()
