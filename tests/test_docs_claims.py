"""Claims in prose, in ```sh blocks and in ``--help`` texts, re-run: the command a text quotes and the outcome it
states (an exit code, a refusal, a printed number).

The console sessions of README.md and docs/ are re-run by tests/test_readme.py and tests/test_docs_sessions.py;
what the prose says about a command was not, and that is where docs drifted from the program (a refusal that
no longer happened, a search that no longer existed, a check time off by a factor of twenty). Each claim below
names the file it comes from and a quote of the sentence that states it; the test first finds the quote there
(whitespace aside; the failure names the line), so a claim rewritten in the docs must be rewritten here, then
runs the command in this process and compares the exit code and the quoted output. Only quick commands (well
under a few seconds each) are here; timings are never compared (the machine's speed is not a claim the suite can
check). The commands that only measure (tests/benchmarks/) keep their own scripts.
"""
from __future__ import annotations

import random
import re
from dataclasses import dataclass
from pathlib import Path

import click
import pytest

from conftest import ROOT, run_check_here, run_checker_here, run_cli_here


@dataclass(frozen=True)
class Claim:
    source: str  # a file of the repository, or "certify SUBCOMMAND --help"
    quote: str  # the text there that states the outcome (found with whitespace normalized)
    argv: tuple[str, ...]  # certify ARGS, or ("check.py" | "check_symmetric.py", ARGS…); "{tmp}" is the test's folder
    code: int
    says: tuple[str, ...] = ()  # each printed (standard output or error), in this order
    files: tuple[str, ...] = ()  # written into {tmp} first, each by its maker in FILES


def _random_words(bits: int, count: int) -> str:
    rng = random.Random(0)
    return "".join(format(rng.getrandbits(bits), f"0{bits}b") + "\n" for _ in range(count))


FILES = {
    "words4096": lambda: _random_words(4096, 1800),
    "one-word": lambda: "0101\n",
    "huge-number.json": lambda: '{"tokens": ["0", "1"], "phi_q": [[1e999999999], [1]], "phi_k": [[1], [1]]}',
}

REFUSED_M8 = ("the search would take up to 1.84e+12 entry-steps (4^8 kernel entries × 1,000,000 steps × 4 starts × 7 "
              "ranks), about 2 days on the 2-core machine (docs/performance.md), more than a day: lower --steps, "
              "--restarts or --max-rank")

CLAIMS = [
    # certify minrank: which m runs the generic search, and what a long one does
    Claim("docs/results.md", "`--m 8 --steps 1000000` is refused (tests/test_docs_claims.py re-runs it)",
          ("minrank", "--m", "8", "--steps", "1000000"), 2, ("certify: error: " + REFUSED_M8,)),
    Claim("docs/performance.md", "`--m 8 --steps 1000000` is 1.84·10¹² entry-steps, about 2 days, and is refused",
          ("minrank", "--m", "8", "--steps", "1000000"), 2, ("1.84e+12 entry-steps", "about 2 days")),
    Claim("certify minrank --help", "with --steps 1000000 about 2 days and is refused",
          ("minrank", "--m", "8", "--steps", "1000000"), 2, ("about 2 days",)),
    Claim("certify minrank --help", "Above m = 8 there is no generic search, and --seed, --restarts, --steps, "
          "--max-rank or --budget given there are refused (exit 2)",
          ("minrank", "--m", "10", "--steps", "1000000", "--restarts", "100"), 2,
          ("certify: error: --restarts, --steps: the generic search runs for m ≤ 8 only, and m = 10",)),
    Claim("docs/performance.md", "`--rows DIR` naming a folder without rows is refused (exit 2: `holds no results rows "
          "(no file m<M>.cert.json in it)`)", ("minrank", "--m", "30", "--rows", "{tmp}"), 2,
          ("holds no results rows (no file m<M>.cert.json in it)",)),
    Claim("certify minrank --help", "[1<=x<=48; required]", ("minrank", "--m", "49"), 2, ("1<=x<=48",)),
    Claim("docs/commands.md", "no S_12-invariant kernel has rank below 55 (K1(6) = 2;", ("minrank", "--m", "12"), 0,
          ("certify minrank --m 12: 7 ≤ r*(12, 3) ≤ 22  (open; 2^12 = 4,096)", "lower        7: the results row m = 12",
           "pair queries: r ≥ 6", "upper        22: a kernel invariant under S_1 × S_11",
           "no S_12-invariant kernel has rank below 55 (K1(6) = 2;")),
    # the shipped symmetric-kernel certificates
    Claim("docs/performance.md", "certificate (`python certify/check_symmetric.py certify/minrank/certificates/"
          "m48.symmetric.json`: six blocks, rank 2,599,181",
          ("check_symmetric.py", "certify/minrank/certificates/m48.symmetric.json"), 0,
          ("VERIFIED: r*(48, 3) ≤ 2599181", "(5) rank")),
    Claim("docs/performance.md", "| 20 | 191 | `S_20` | squeeze, margin 0.05;",
          ("check_symmetric.py", "certify/minrank/certificates/m20.symmetric.json"), 0, ("VERIFIED: r*(20, 3) ≤ 191",)),
    # results rows
    Claim("docs/results.md", "| 24 | **r ≥ 53** |", ("check.py", "docs/results/m24.cert.json"), 0, ("VERIFIED: r ≥ 53.",)),
    # bounded producers (docs/performance.md, "Bounded producers" and "Greedy scans")
    Claim("docs/performance.md", "| `lexicode:24:12:4` | 1.6·10¹⁰ | — | refused at once |",
          ("rank-bound", "--code", "lexicode:24:12:4"), 2, ("1.61e+10 distance checks", "at most 1e+10")),
    Claim("docs/performance.md", "exit 2 in 0.27 s when the file is read: `t(t−1)⌈m/64⌉ = 207,244,800 > 2·10⁸`",
          ("rank-bound", "--code", "{tmp}/words4096"), 2,
          ("1,800 words of 4,096 bits", "207,244,800 word operations", "at most 200,000,000"), ("words4096",)),
    Claim("docs/performance.md", "exit 2 in 0.26 s, 34 MB: 26,532,800 inputs, about 4,403 MiB written out, over the "
          "checker's 64 MiB", ("unique-minimizer", "--code", "golay24"), 2,
          ("26,532,800 inputs", "about 4,403 MiB", "64 MiB")),
    Claim("docs/performance.md", "`--code hadamard24 --form explicit --length 1000` | 6.6 GB / 463 MB files | exit 2 "
          "from the counts", ("rank-bound", "--code", "hadamard24", "--form", "explicit", "--length", "1000"), 2,
          ("the explicit certificate would have", "at most 64 MiB")),
    Claim("docs/rank-nine.md", "a one-word code is refused", ("rank-bound", "--code", "{tmp}/one-word"), 2,
          ("1 word(s); the rank bound needs at least two",), ("one-word",)),
    Claim("certify verify --help", "over it: exit 2 with the number",
          ("verify", "tests/certificates/valid/compact_hadamard24_best.json", "--max-work", "1"), 2,
          ("8,280 units of key generation (at most 1 by --max-work",)),
    Claim("docs/kernel-table-format.md", "`1e999999999`, `1e-999999999` or a 5,000-digit integer are refused while "
          "parsing, from the spelling", ("check-kernel", "{tmp}/huge-number.json"), 2,
          ("number 1e999999999 would have 1,000,000,000 digits; at most 1,000",), ("huge-number.json",)),
    # certify construction: the limit of 250,000,000 inputs (docs/performance.md, the constructions' table)
    Claim("docs/performance.md", "| `rank-one` | 1–2 | 13 | 134,225,920 | 12.0 s | 11.2 M | m = 14: 536,887,296 "
          "inputs, refused |", ("construction", "rank-one", "--m", "14", "--length", "2"), 2,
          ("= 536,887,296 inputs, more than the limit of 250,000,000",)),
    Claim("docs/performance.md", "| `softmax` | 1–3 | 8 | 50,462,976 | 11.9 s | 4.2 M | m = 9: 403,177,984, refused |",
          ("construction", "softmax", "--m", "9", "--length", "3"), 2, ("= 403,177,984 inputs",)),
    Claim("docs/performance.md", "| `softmax` | 1–4 | 6 | 67,903,552 | 19.0 s | 3.6 M | m = 7: 1,080,066,176, refused |",
          ("construction", "softmax", "--m", "7", "--length", "4"), 2, ("= 1,080,066,176 inputs",)),
    Claim("docs/performance.md", "| `polynomial` | D = 2, length 3 | 8 | 50,331,648 | 24.8 s | 2.0 M | m = 9: "
          "402,653,184, refused |", ("construction", "polynomial", "--m", "9", "--degree", "2", "--length", "3"), 2,
          ("= 402,653,184 inputs",)),
    Claim("docs/performance.md", "| `relu` | 3 | 9 | 134,217,728 | 15.6 s | 8.6 M | m = 10: 1,073,741,824, refused |",
          ("construction", "relu", "--m", "10"), 2, ("= 1,073,741,824 inputs",)),
    Claim("docs/performance.md", "m = 1 → n = 22, m = 2 → n = 11", ("construction", "softmax", "--m", "1", "--length",
                                                                     "23"), 2, ("more than the limit of 250,000,000",)),
    Claim("docs/performance.md", "m = 4 → n = 6;", ("construction", "softmax", "--m", "4", "--length", "7"), 2,
          ("= 1,985,229,328 inputs",)),
]


def _normalized(text: str) -> str:
    return " ".join(text.split())


def _help(path: str) -> str:
    """``certify A B --help`` rendered (click's wrapping undone by the normalization)."""
    from certify.cli import cli

    command = cli
    for name in path.split()[1:-1]:
        command = command.commands[name]
    return command.get_help(click.Context(command, info_name=path.rsplit(" ", 1)[0]))


def _source_text(source: str) -> str:
    return _help(source) if source.startswith("certify ") else (ROOT / source).read_text(encoding="utf-8")


def _run(argv: tuple[str, ...]):
    if argv[0] == "check.py":
        return run_check_here(*argv[1:], cwd=ROOT)
    if argv[0] == "check_symmetric.py":
        return run_checker_here(*argv, cwd=ROOT)
    return run_cli_here(*argv, cwd=ROOT)


@pytest.mark.parametrize("claim", CLAIMS, ids=lambda c: f"{c.source.split('/')[-1]}: {' '.join(c.argv)[:60]}")
def test_a_claim_in_the_docs_is_what_the_command_does(claim, tmp_path, monkeypatch):
    monkeypatch.setenv("CERTIFY_PROGRESS", "0")
    text = _source_text(claim.source)
    found = re.search(r"\s+".join(map(re.escape, claim.quote.split())), text)
    assert found, f"{claim.source} no longer says {claim.quote!r}: update the claim with the text"
    line = text.count("\n", 0, found.start()) + 1
    for name in claim.files:
        (tmp_path / name).write_text(FILES[name]())
    argv = tuple(a.replace("{tmp}", str(tmp_path)) for a in claim.argv)
    proc = _run(argv)
    printed = proc.stdout + proc.stderr
    context = f"{claim.source}:{line} says {claim.quote!r}; {' '.join(argv)} gave exit {proc.returncode}: {printed[-600:]}"
    assert proc.returncode == claim.code, context
    assert "Traceback" not in printed, context
    at = 0
    for piece in claim.says:
        found = printed.find(piece, at)
        assert found >= 0, f"{piece!r} not printed (in order); {context}"
        at = found + len(piece)
    if claim.code == 2:  # a refusal is one line on standard error, nothing on standard output
        assert proc.stdout == "" and len(proc.stderr.splitlines()) == 1, context


def test_the_m8_search_count_the_docs_quote():
    """docs/results.md and docs/performance.md: ``--m 8`` with the defaults is 7.34·10⁹ entry-steps (7 ranks), about
    12 minutes by the count, and runs (not refused); the ``--help`` of ``--steps`` says the same."""
    from certify.estimates import duration
    from certify.minrank.lower import exact_lower_bound
    from certify.minrank.upper import search_seconds, search_work, too_long

    assert "`--m 8` with the defaults is\n7.34·10⁹ entry-steps (7 ranks), about 12 minutes" in \
        (ROOT / "docs" / "results.md").read_text(encoding="utf-8")
    assert "m = 8 with the defaults counts about 12 minutes and runs" in _normalized(_help("certify minrank --help"))
    lower = exact_lower_bound(8)
    work = search_work(8, lower, 9, 4, 4000)
    assert f"{work:.3g}" == "7.34e+09" and min(9, 256) - lower + 1 == 7
    assert duration(search_seconds(work)) == "12 minutes" and too_long(8, lower, 9, 4, 4000) is None


def test_every_claim_names_a_source_that_exists():
    """The list stays honest: every source exists, every file a claim needs has a maker, no claim is listed twice."""
    for claim in CLAIMS:
        assert claim.source.startswith("certify ") or (ROOT / claim.source).is_file(), claim.source
        assert all(name in FILES for name in claim.files), claim
    keys = [(c.source, c.quote, c.argv) for c in CLAIMS]
    assert len(keys) == len(set(keys))
