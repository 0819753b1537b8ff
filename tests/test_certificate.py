"""Producers run through the independent checker; the schema describes what they write."""
import json
from fractions import Fraction
from pathlib import Path

import jsonschema
import pytest

from certify.certificates.producer import CertificateBuildError, build_certificate, rank_nine_certificate, write_certificate
from certify.check import check, check_file, content_hash
from codes import ConstantWeightCode, greedy_code, hadamard_code
from witnesses import build_family

SCHEMA = json.loads((Path(__file__).resolve().parents[1] / "docs" / "certificate.schema.json").read_text())


@pytest.mark.parametrize("plan,bound", [("paper", 9), ("direct", 10)])
def test_rank_nine_certificates_verify(plan, bound):
    cert = rank_nine_certificate(plan)
    assert check(cert).proved == bound == cert["claim"]["rank_at_least"]
    jsonschema.validate(cert, SCHEMA)


@pytest.mark.parametrize("code", [
    greedy_code(12, 6, 3, cap=5),
    greedy_code(16, 8, 4, cap=6),
    hadamard_code(12),
    ConstantWeightCode(10, 5, (0b0000011111, 0b1111100000)),
], ids=["greedy12", "greedy16", "hadamard12", "two-words"])
@pytest.mark.parametrize("plan", ["paper", "direct"])
@pytest.mark.parametrize("length,error", [(3, Fraction(1, 2)), (4, Fraction(1, 2)), (3, Fraction(1, 5))])
def test_producer_output_always_verifies(code, plan, length, error):
    if plan == "paper" and code.min_distance < 3:
        pytest.skip("paper chains need distance ≥ 3")
    cert = build_certificate(build_family(code, plan, length), error)
    verified = check(cert)
    assert verified.proved == cert["arithmetic"]["rank_at_least"] == cert["claim"]["rank_at_least"]
    assert 1 <= verified.proved <= code.size
    jsonschema.validate(cert, SCHEMA)


def test_hadamard_46_direct_certificate():
    # docs/math.md §6: larger codes of length 24 do better.
    cert = build_certificate(build_family(hadamard_code(24), "direct"))
    assert check(cert).proved == cert["claim"]["rank_at_least"]
    assert cert["claim"]["rank_at_least"] > 10


def test_certificates_are_deterministic():
    a, b = rank_nine_certificate("paper"), rank_nine_certificate("paper")
    assert a == b and a["sha256"] == content_hash(a)


def test_written_file_reverifies(tmp_path):
    path = tmp_path / "c.json"
    write_certificate(rank_nine_certificate("direct"), path)
    assert check_file(str(path)).proved == 10
    assert not list(tmp_path.glob("*.tmp*"))


def test_weaker_claim_is_allowed_stronger_is_refused():
    assert check(rank_nine_certificate("paper", rank_at_least=5)).rank_at_least == 5
    with pytest.raises(CertificateBuildError, match="proves r ≥ 9, not r ≥ 10"):
        rank_nine_certificate("paper", rank_at_least=10)


def test_producer_refuses_jumps_that_prove_nothing():
    fam = build_family(greedy_code(12, 6, 3, cap=3), "direct")
    with pytest.raises(CertificateBuildError, match="μ = 1/2 < 1"):
        build_certificate(fam, Fraction(1))
