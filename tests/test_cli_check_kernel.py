"""``certify check-kernel`` end to end: exit codes and messages."""
import json

import numpy as np
import pytest

from conftest import CORPUS, ROOT, assert_one_line_error, run_cli_here

EX = ROOT / "docs" / "examples"


@pytest.mark.parametrize("name,code,text", [
    ("rank15_solves.npz", 0, "solves       yes"),
    ("rank15_fails.npz", 1, "family.inputs[2]"),
    ("rank15_kernel_only.npz", 0, "readout      exists"),
    ("uniform_kernel_only.json", 1, "readout      none exists"),
])
def test_examples(name, code, text):
    proc = run_cli_here("check-kernel", str(EX / name))
    assert proc.returncode == code, proc.stderr
    assert text in proc.stdout


def test_json_keys():
    d = json.loads(run_cli_here("check-kernel", str(EX / "rank15_solves.npz"), "--json").stdout)
    for key in ("solves", "max_error", "failing_inputs", "jump_violations", "kernel_rank", "certified_bound"):
        assert key in d
    assert d["kernel_rank"] == 15 and d["certified_bound"] == 9 and d["solves"] is True
    k = json.loads(run_cli_here("check-kernel", str(EX / "uniform_kernel_only.json"), "--json").stdout)
    assert k["readout_exists"] is False and len(k["infeasible_subfamily"]) == 3


def test_family_option_with_a_certificate(tmp_path):
    toks = sorted({t for x in json.loads((CORPUS / "valid" / "small_paper.json").read_text())["family"]["inputs"] for t in x["tokens"]})
    path = tmp_path / "uniform.json"
    path.write_text(json.dumps({"tokens": toks, "kernel": [[1] * len(toks)] * len(toks)}))
    proc = run_cli_here("check-kernel", str(path), "--family", str(CORPUS / "valid" / "small_paper.json"))
    assert proc.returncode == 1 and "r ≥ 3" in proc.stdout and "none exists" in proc.stdout


def bad_tables(tmp_path):
    toks = np.array(["1" * 24, "0" * 24])
    cases = {}
    p = tmp_path / "nan.npz"; np.savez(p, tokens=toks, kernel=np.array([[np.nan, 1], [1, 1]])); cases["nan"] = p
    p = tmp_path / "pickle.npz"; np.savez(p, tokens=toks, kernel=np.array([[None, 1], [1, 1]], dtype=object)); cases["pickle"] = p
    p = tmp_path / "shape.npz"; np.savez(p, tokens=toks, kernel=np.ones((2, 3))); cases["shape"] = p
    p = tmp_path / "corrupt.npz"; p.write_bytes(b"PK\x03\x04garbage"); cases["corrupt"] = p
    p = tmp_path / "missing_tokens.npz"; np.savez(p, tokens=toks, kernel=np.ones((2, 2))); cases["missing_tokens"] = p
    p = tmp_path / "bad.json"; p.write_text('{"tokens": ["10"], "kernel": [[Infinity]]}'); cases["inf_json"] = p
    cases["absent"] = tmp_path / "absent.npz"
    return cases


@pytest.mark.parametrize("case", ["nan", "pickle", "shape", "corrupt", "missing_tokens", "inf_json", "absent"])
def test_bad_tables_exit_2_with_one_line(tmp_path, case):
    path = bad_tables(tmp_path)[case]
    assert_one_line_error(run_cli_here("check-kernel", str(path)), 2)


def test_negative_kernel_entry_names_pair(tmp_path):
    arrays = dict(np.load(EX / "rank15_solves.npz"))
    arrays["phi_k"] = arrays["phi_k"].copy()
    arrays["phi_k"][0, :] = -1.0  # every table token is used by the family
    p = tmp_path / "neg.npz"
    np.savez(p, **arrays)
    proc = run_cli_here("check-kernel", str(p))
    assert proc.returncode == 2 and "< 0 on a pair used by family.inputs[" in proc.stderr


def test_bad_family_file(tmp_path):
    p = tmp_path / "f.json"
    p.write_text('{"family": {"inputs": []}}')
    proc = run_cli_here("check-kernel", str(EX / "rank15_solves.npz"), "--family", str(p))
    assert proc.returncode == 2 and "family.inputs" in proc.stderr
    proc = run_cli_here("check-kernel", str(EX / "rank15_solves.npz"), "--family", str(CORPUS / "invalid" / "claim_raised.json"))
    assert proc.returncode == 2 and "does not verify" in proc.stderr
