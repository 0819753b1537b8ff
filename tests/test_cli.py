"""The ``certify`` command end to end (subprocesses, real exit codes)."""
import json

import pytest

from conftest import CORPUS, ROOT, run_cli, run_cli_here
from conftest import assert_one_line_error as one_line_error


@pytest.mark.parametrize("plan,bound,jumps,inputs", [("paper", 9, 420, 855), ("direct", 10, 210, 435)])
def test_rank_nine_builds_writes_and_reverifies(tmp_path, plan, bound, jumps, inputs):
    args = ["rank-nine"] + ([] if plan == "paper" else ["--chains", plan])
    proc = run_cli(*args, cwd=tmp_path)
    assert proc.returncode == 0, proc.stderr
    out = proc.stdout
    assert f"r ≥ {bound}" in out and f"{jumps} jumps" in out and f"{inputs} inputs" in out
    assert "rank-nine.cert.json" in out
    cert = json.loads((tmp_path / "rank-nine.cert.json").read_text())
    assert cert["claim"]["rank_at_least"] == bound
    again = run_cli("verify", "rank-nine.cert.json", cwd=tmp_path)
    assert again.returncode == 0 and f"VERIFIED: r ≥ {bound}." in again.stdout


def test_rank_nine_json_and_out(tmp_path):
    proc = run_cli("rank-nine", "--chains", "direct", "--out", str(tmp_path / "d.json"), "--json")
    assert proc.returncode == 0
    summary = json.loads(proc.stdout)
    assert summary["verified"] and summary["claim"]["rank_at_least"] == 10
    assert summary["arithmetic"]["ratio"] == "125/13"


@pytest.mark.parametrize("args", [
    ["rank-nine", "--chains", "best"],
    ["rank-nine", "--out", "/nonexistent-dir/x.json"],
    ["rank-nine", "--bogus"],
    ["verify"],
    ["verify", "/nonexistent.json"],
    ["verify", "."],
    ["nonsense"],
])
def test_bad_input_exits_2_with_one_line(tmp_path, args):
    one_line_error(run_cli(*args, cwd=tmp_path), 2)


@pytest.mark.parametrize("rel,code,prefix", [
    ("invalid/paper_chains_claim_raised_to_ten.json", 1, "REJECTED: claim:"),
    ("invalid/broken_hash.json", 1, "REJECTED: integrity:"),
    ("malformed/truncated.json", 2, "MALFORMED: format:"),
    ("malformed/deeply_nested.json", 2, "MALFORMED: format:"),
])
def test_verify_failures(rel, code, prefix):
    proc = run_cli("verify", str(CORPUS / rel))
    one_line_error(proc, code)
    assert proc.stderr.startswith(prefix)


def test_verify_json():
    ok = run_cli("verify", "--json", str(CORPUS / "valid" / "small_paper.json"))
    bad = run_cli("verify", "--json", str(CORPUS / "invalid" / "claim_raised.json"))
    assert json.loads(ok.stdout)["status"] == "verified"
    assert json.loads(bad.stdout)["step"] == "claim" and bad.returncode == 1


def test_version_and_help():
    assert run_cli("--version").stdout.strip() == "certify, version 0.1.0"
    assert "rank-nine" in run_cli("--help").stdout


def test_out_never_replaces_a_special_file(tmp_path):
    import os
    import stat

    fifo = tmp_path / "pipe"
    os.mkfifo(fifo)
    proc = run_cli("rank-nine", "--out", str(fifo))
    one_line_error(proc, 2)
    assert "not a regular file" in proc.stderr and stat.S_ISFIFO(os.stat(fifo).st_mode)


@pytest.mark.parametrize("args", [["experiment", "capacity", "--steps", "x"], ["experiment", "check-split"],
                                  ["experiment", "heads", "--budgets"], ["check-kernel"], ["experiment", "nosuch"]])
def test_a_usage_error_hints_at_a_help_that_exists(args):
    """Issue 29: the experiment subcommands' hints named 'certify capacity --help' and 'certify check-split --help',
    which do not exist. The hint is now the command's full path, and that help exits 0."""
    import re

    proc = run_cli(*args)
    assert proc.returncode == 2 and len(proc.stderr.strip().splitlines()) == 1
    hint = re.search(r"\(try '(certify[^']*) --help'\)", proc.stderr).group(1).split()
    assert hint[1:] == [a for a in args if not a.startswith("-") and a not in ("x", "nosuch")][:len(hint) - 1]
    assert run_cli(*hint[1:], "--help").returncode == 0


@pytest.mark.parametrize("args", [
    ["verify", str(CORPUS / "valid" / "small_paper.json")],
    ["verify", "--json", str(CORPUS / "invalid" / "claim_raised.json")],
    ["check-kernel", str(ROOT / "docs" / "examples" / "rank15_solves.npz"), "--family", "rank-nine"],
    ["rank-nine", "--chains", "best"],
])
def test_the_in_process_runner_gives_what_the_process_gives(args):
    """conftest.run_cli_here, which tests of what a command computes use instead of a process (issue 42), returns
    the exit code, standard output and standard error of ``python -m certify.cli`` itself."""
    here, there = run_cli_here(*args), run_cli(*args)
    assert (here.returncode, here.stdout, here.stderr) == (there.returncode, there.stdout, there.stderr)
    assert here.stdout or here.stderr
