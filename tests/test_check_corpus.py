"""The certificate corpus: one test per file, each with its expected exit code and failing step.

``tests/certificates/MANIFEST.json`` is written by ``make_corpus.py`` from hand-written
expectations next to each attack; this test compares them with the checker.
"""
import json

import pytest

from certify.check import CertificateError, check_file

from conftest import CORPUS

MANIFEST = json.loads((CORPUS / "MANIFEST.json").read_text())
FILES = sorted(str(p.relative_to(CORPUS)) for d in ("valid", "invalid", "malformed") for p in (CORPUS / d).iterdir())


def test_manifest_lists_exactly_the_files():
    assert sorted(MANIFEST) == FILES


def test_every_folder_has_its_outcome():
    for rel, exp in MANIFEST.items():
        assert exp["exit"] == {"valid": 0, "invalid": 1, "malformed": 2}[rel.split("/")[0]], rel


@pytest.mark.parametrize("rel", FILES)
def test_corpus_file(rel):
    exp = MANIFEST[rel]
    path = str(CORPUS / rel)
    if exp["exit"] == 0:
        verified = check_file(path)
        assert verified.rank_at_least <= verified.proved
        return
    with pytest.raises(CertificateError) as info:
        check_file(path)
    assert info.value.exit_code == exp["exit"], str(info.value)
    assert info.value.step == exp["step"], str(info.value)
    assert "\n" not in str(info.value)


def test_paper_certificate_edited_to_claim_ten_is_rejected():
    with pytest.raises(CertificateError, match="rank_at_least 10 is not proved: the data give r ≥ 9"):
        check_file(str(CORPUS / "invalid" / "paper_chains_claim_raised_to_ten.json"))


def test_missing_file_is_malformed(tmp_path):
    with pytest.raises(CertificateError, match="no such file") as info:
        check_file(str(tmp_path / "absent.json"))
    assert info.value.exit_code == 2
