"""Outputs never replace inputs, and a refused expansion is bad input (issue 29, defects 3 and 4).

One rule for every command that writes (``certify.cli.common.refuse_inputs_as_outputs``): an
output path that is one of the command's input files — the same file by ``os.path.samefile``,
so another spelling or a link counts too — is exit 2 before any work, and the input is left
as it was. A family too large to write out is refused from its verified counts with exit 2
naming the limit (it was exit 3, "internal error", before).
"""
import os

import pytest

from conftest import CORPUS, assert_one_line_error, run_cli, run_cli_here

CODE = "0000011111\n1111100000\n0011100011\n1100011100\n"


@pytest.mark.parametrize("argv", [
    ["rank-bound", "--code", "{code}", "--out", "{code}"],
    ["rank-bound", "--code", "{code}", "--out", "{link}"],
    ["rank-bound", "--code", "{code}", "--out", "{dotted}"],
    ["unique-minimizer", "--code", "{code}", "--out", "{code}"],
    ["family", "jumps", "--code", "{code}", "--out", "{code}"],
    ["construction", "rank15", "--family", "{cert}", "--out", "{cert}"],
    ["verify", "{cert}", "--expand", "{cert}"],
    ["family", "--from", "{cert}", "--out", "{link_cert}"],
    ["rank-nine", "--out", "{cert}", "--sharper-out", "{code}"],
])
def test_an_output_that_is_an_input_is_refused_and_the_input_kept(tmp_path, argv):
    code, cert = tmp_path / "code.txt", tmp_path / "cert.json"
    code.write_text(CODE)
    cert.write_bytes((CORPUS / "valid" / "rank_nine_paper.json").read_bytes())
    os.symlink(code, tmp_path / "link.txt")
    os.symlink(cert, tmp_path / "link_cert.json")
    names = {"code": str(code), "cert": str(cert), "link": str(tmp_path / "link.txt"),
             "link_cert": str(tmp_path / "link_cert.json"), "dotted": str(tmp_path / "." / "code.txt")}
    before = {p: p.read_bytes() for p in (code, cert)}
    proc = run_cli_here(*[a.format(**names) for a in argv])
    if argv[0] == "rank-nine":  # no input file: rank-nine writes its two certificates wherever it is told
        assert proc.returncode == 0, proc.stderr
        return
    assert_one_line_error(proc, 2)
    assert "is the input file given as" in proc.stderr
    assert {p: p.read_bytes() for p in (code, cert)} == before


def test_a_different_output_path_is_still_written(tmp_path):
    code = tmp_path / "code.txt"
    code.write_text(CODE)
    proc = run_cli_here("rank-bound", "--code", str(code), "--out", str(tmp_path / "out.json"))
    assert proc.returncode == 0, proc.stderr
    assert (tmp_path / "out.json").exists() and code.read_text() == CODE


def test_a_family_too_large_to_write_is_exit_2_naming_the_limit(tmp_path):
    cert = tmp_path / "big.json"  # 47,851 inputs of length 1,000: about 2.9 GB written out, over the 2 GiB limit
    proc = run_cli("rank-bound", "--code", "hadamard:60", "--length", "1000", "--form", "compact", "--out", str(cert))
    assert proc.returncode == 0, proc.stderr
    for argv in (["verify", str(cert), "--expand", str(tmp_path / "x.json")],
                 ["family", "--from", str(cert), "--out", str(tmp_path / "y.json")]):
        proc = run_cli(*argv)
        assert_one_line_error(proc, 2)
        assert "limits:" in proc.stderr and "2,048 MiB" in proc.stderr and "internal error" not in proc.stderr
        assert not (tmp_path / "x.json").exists() and not (tmp_path / "y.json").exists()


@pytest.mark.parametrize("command", ["capacity", "heads"])
@pytest.mark.parametrize("option", ["--lr", "--held-out-words", "--held-out-patterns", "--held-out-permutations"])
@pytest.mark.parametrize("spelling", ["1e999999999", "1e-999999999", "1e9999999"])
def test_expanding_spellings_of_the_experiment_options_are_refused_at_once(tmp_path, command, option, spelling):
    """Issue 29, defect 2: these were expanded (`Fraction("1e999999999")`), still running at 120 s; now the
    spelling is refused before any number is built (exit 2, one line naming the option)."""
    proc = run_cli("experiment", command, option, spelling, "--out", str(tmp_path / "out"))
    assert_one_line_error(proc, 2)
    assert option in proc.stderr and not (tmp_path / "out").exists()
