"""Family files (docs/families.md): every kind, read back by check-kernel's family loader."""
import json

import pytest

from certify.certificates.families import FAMILY_KINDS, FamilyInputError, family_document
from certify.kernels.audit import load_family
from witnesses.unique_minimizer import has_unique_minimizer

from conftest import ROOT, assert_one_line_error, run_cli_here


@pytest.fixture(scope="module")
def docs():
    return {
        "jumps": family_document("jumps"),
        "jumps-5": family_document("jumps", code="hadamard:12:4", length=5),
        "unique-minimizer": family_document("unique-minimizer"),
        "multihead": family_document("multihead", heads=2, candidates=2),
        "transcript": family_document("transcript", word_length=8, s=2, queries=2),
    }


def test_every_kind_is_covered(docs):
    assert {d["kind"] for d in docs.values()} == set(FAMILY_KINDS)


@pytest.mark.parametrize("name", ["jumps", "jumps-5", "unique-minimizer", "multihead", "transcript"])
def test_files_are_read_back_with_their_targets(tmp_path, docs, name):
    doc = docs[name]
    path = tmp_path / "f.json"
    path.write_text(json.dumps(doc, ensure_ascii=False), encoding="utf-8")
    fam = load_family(str(path))  # Input.from_json recomputes and compares every target
    assert len(fam.inputs) == doc["counts"]["inputs"] == len(doc["family"]["inputs"])
    assert fam.m == doc["m"] and doc["format"] == "certify.family" and doc["version"] == 1


def test_jumps_family_matches_the_rank_nine_certificate(docs):
    from certify.certificates.producer import rank_nine_certificate

    assert docs["jumps"]["family"] == rank_nine_certificate("paper")["family"]


def test_length_five_jumps_use_gap_two_steps(docs):
    doc = docs["jumps-5"]
    assert all(len(x["tokens"]) == 5 for x in doc["family"]["inputs"])
    assert {j["overlaps"][1] - j["overlaps"][0] for j in doc["jumps"]} <= {2, 3}
    assert all(j["factor"] == str(3 * (j["overlaps"][1] - j["overlaps"][0] - 1)) for j in doc["jumps"])


def test_unique_minimizer_inputs(docs, tmp_path):
    path = tmp_path / "f.json"
    path.write_text(json.dumps(docs["unique-minimizer"], ensure_ascii=False), encoding="utf-8")
    assert all(has_unique_minimizer(X) for X in load_family(str(path)).inputs)


def test_multihead_groups_index_subsets(docs):
    doc = docs["multihead"]
    H = doc["parameters"]["heads"]
    inputs = doc["family"]["inputs"]
    y = doc["better_key"]
    for g in doc["groups"]:
        assert len(g["inputs"]) == 2 ** (H + 1)
        for a, i in enumerate(g["inputs"]):
            toks = inputs[i]["tokens"]
            assert len(toks) == H + 2 and [toks[1 + j] == y for j in range(H + 1)] == [bool(a >> j & 1) for j in range(H + 1)]
    assert doc["m"] == 2 * 172 + 2 and doc["parameters"]["g_H"] == 172


def test_transcript_overlaps(docs):
    doc = docs["transcript"]
    assert doc["min_unintended_overlap"] > doc["parameters"]["s"]
    assert doc["counts"] == {"inputs": 2 * 3**2, "assignments": 9}


@pytest.mark.parametrize("kind,options,match", [
    ("jumps", {"heads": 2}, "does not apply to jumps"),
    ("multihead", {"code": "rank-nine"}, "does not apply to multihead"),
    ("jumps", {"code": "golay"}, "neither a built-in"),
    ("unique-minimizer", {"chains": "paper"}, "direct or best"),
    ("multihead", {"heads": 1, "m": 10}, "--gap must be between 1 and m/2 = 5"),
    ("multihead", {"heads": 1, "candidates": 100}, "--candidates"),
    ("transcript", {"word_length": 24, "s": 9, "queries": 9}, "the limits are 1,000,000 inputs and 32 MiB"),
    ("jumps", {"code": "hadamard:128"}, r"up to 480,060 inputs \(a file of about 220 MiB\)"),
    ("nope", {}, "unknown family kind"),
])
def test_bad_options(kind, options, match):
    with pytest.raises(FamilyInputError, match=match):
        family_document(kind, **options)


@pytest.mark.parametrize("cert", ["tests/certificates/valid/small_paper.json", "docs/results/m10.cert.json"])
def test_family_from_a_certificate_is_what_check_kernel_reads(tmp_path, cert):
    """``certify family --from CERT`` (either version): the verified family, explicitly, readable by check-kernel."""
    out = tmp_path / "family.json"
    proc = run_cli_here("family", "--from", str(ROOT / cert), "--out", str(out), "--json")
    assert proc.returncode == 0, proc.stderr
    doc = json.loads(out.read_text())
    summary = json.loads(proc.stdout)
    assert summary["inputs"] == len(doc["family"]["inputs"]) and doc["from_certificate"] == summary["sha256"]
    table = tmp_path / "t.npz"
    assert run_cli_here("construction", "rank15", "--family", str(ROOT / cert), "--out", str(table)).returncode == 0
    assert run_cli_here("check-kernel", str(table), "--family", str(out)).returncode == 0


@pytest.mark.parametrize("args,code", [(["--from", "tests/certificates/invalid/claim_raised.json"], 1),
                                       (["--from", "tests/certificates/malformed/truncated.json"], 2),
                                       (["jumps", "--from", "tests/certificates/valid/small_paper.json"], 2),
                                       (["--from", "tests/certificates/valid/small_paper.json", "--length", "4"], 2),
                                       ([], 2)])
def test_family_from_refuses_what_it_cannot_stand_behind(tmp_path, args, code):
    assert_one_line_error(run_cli_here("family", *args, "--out", str(tmp_path / "f.json"), cwd=ROOT), code)


def test_sigterm_while_writing_a_family_leaves_no_temporary_file(tmp_path):
    """`kill` during `certify family --from` (1.3 GB to write): exit 143, neither OUT nor OUT.tmp<pid> remains."""
    import signal
    import subprocess
    import sys
    import time

    from conftest import ROOT

    out = tmp_path / "fam.json"
    proc = subprocess.Popen([sys.executable, "-m", "certify.cli", "family", "--from",
                             str(ROOT / "docs" / "results" / "golay24.cert.json"), "--out", str(out)],
                            stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    deadline = time.monotonic() + 60
    while not list(tmp_path.glob("fam.json.tmp*")) and proc.poll() is None and time.monotonic() < deadline:
        time.sleep(0.05)
    assert list(tmp_path.glob("fam.json.tmp*")), "the temporary file never appeared"
    proc.send_signal(signal.SIGTERM)
    _, err = proc.communicate(timeout=60)
    assert proc.returncode == 143 and err.strip().splitlines()[-1] == "certify: terminated (SIGTERM)"
    assert list(tmp_path.iterdir()) == []
