"""The issue-9 commands end to end: construction, family, unique-minimizer (identities: test_identities.py)."""
import json

import pytest

from conftest import CORPUS, assert_one_line_error, run_cli_here


def test_rank_one_at_length_three_fails_naming_an_input():
    proc = run_cli_here("construction", "rank-one", "--m", "3", "--length", "3")
    assert proc.returncode == 1, proc.stderr
    assert "solves       no:" in proc.stdout and "worst input  (111, 000, 000; query 0): target 0, prediction -1" in proc.stdout


def test_json_keys_and_rank():
    d = json.loads(run_cli_here("construction", "softmax", "--m", "3", "--rank", "--json").stdout)
    assert d["solves"] is True and d["kernel_rank"] == 8 and d["inputs_checked"] == 3 * 8**3 + 2 * 8**2 + 8
    assert d["max_error"] == "1/4"


def test_rank15_command_writes_a_table_check_kernel_accepts(tmp_path):
    out = tmp_path / "t.npz"
    proc = run_cli_here("construction", "rank15", "--family", str(CORPUS / "valid" / "small_paper.json"), "--out", str(out))
    assert proc.returncode == 0, proc.stderr
    check = run_cli_here("check-kernel", str(out), "--family", str(CORPUS / "valid" / "small_paper.json"))
    assert check.returncode == 0 and "solves       yes" in check.stdout


@pytest.mark.parametrize("args", [
    ["construction", "relu", "--degree", "2"],
    ["construction", "relu", "--length", "4"],
    ["construction", "rank15", "--m", "3"],
    ["construction", "rank-one", "--out", "x.npz"],
    ["construction", "softmax", "--m", "12"],
    ["construction", "softmax", "--m", "0"],
    ["construction", "polynomial", "--degree", "17"],
    ["construction", "softmax", "--m", "11", "--length", "1", "--rank"],
    ["construction", "rank15", "--family", "/nonexistent.json"],
    ["construction", "rank15", "--out", "table.csv"],
    ["family", "multihead", "--out", "f.json", "--code", "rank-nine"],
    ["family", "transcript", "--out", "f.json", "--s", "0"],
    ["family", "jumps"],
    ["unique-minimizer", "--code", "greedy:8:2:4"],
])
def test_bad_input_is_one_line_exit_2(tmp_path, args):
    assert_one_line_error(run_cli_here(*args, cwd=tmp_path), 2)


def test_family_command_then_check_kernel(tmp_path):
    out = tmp_path / "um.json"
    proc = run_cli_here("family", "unique-minimizer", "--out", str(out))
    assert proc.returncode == 0 and "96 of length 3 on 26-bit tokens" in proc.stdout
    table = tmp_path / "t.npz"
    assert run_cli_here("construction", "rank15", "--family", str(out), "--out", str(table)).returncode == 0


def test_unique_minimizer_command_writes_a_verified_certificate(tmp_path):
    proc = run_cli_here("unique-minimizer", "--out", str(tmp_path / "um.json"))
    assert proc.returncode == 0 and "r ≥ 4" in proc.stdout
    v = run_cli_here("verify", str(tmp_path / "um.json"))
    assert v.returncode == 0 and "unique minimizer" in v.stdout
