"""Unique-minimizer certificates (A.4): producer, the independent checker, and what it must refuse."""
import copy
import functools
import json

import pytest

from certify.certificates.producer import CertificateBuildError
from certify.certificates.unique_minimizer import unique_minimizer_certificate
from certify.check import (CertificateError, CertificateRejected, UniqueMinimizerVerified, check, content_hash,
                           loads)


@functools.cache
def default_cert() -> dict:
    """The default certificate, built once when a test first needs it (≈ 2 s of CPU for its greedy code) rather
    than at import: every pytest-xdist worker imports this module to collect it. Tests copy it before changing it."""
    return unique_minimizer_certificate()


def rehash(c):
    c["sha256"] = content_hash(c)
    return c


def test_default_certificate_verifies_r_at_least_four():
    v = check(copy.deepcopy(default_cert()))
    assert isinstance(v, UniqueMinimizerVerified) and v.proved == 4 == default_cert()["claim"]["rank_at_least"]
    assert "three distinct tokens with a unique minimizer" in v.summary()


def test_round_trip_through_the_strict_reader():
    from certify.certificates.producer import dumps

    assert check(loads(dumps(default_cert()))).proved == 4


@pytest.mark.parametrize("spec,expected", [("hadamard:20:4", 3), ("hadamard:32", 9)])
def test_other_codes(spec, expected):
    assert check(unique_minimizer_certificate(spec)).proved == expected


def test_best_chains_use_the_product_of_effective_factors():
    from certify.certificates.families import chain_plan
    from certify.certificates.unique_minimizer import build_unique_minimizer_certificate
    from codes import load_code
    from witnesses import unique_minimizer_family

    # rank-nine words are at distance 6: direct gives (6−1)/2 = 5/2; a 3 + 3 split only 1
    fam = unique_minimizer_family(load_code("rank-nine"), chain_plan("best", 3, True), plan_name="best")
    cert = build_unique_minimizer_certificate(fam)
    assert {c["factor"] for c in cert["chains"]} == {"5/2"}
    assert check(cert).proved == 5


def test_gaps_below_three_are_refused_by_the_producer():
    assert check(unique_minimizer_certificate("hadamard:12:4")).proved == 2  # distance 3: factor 1, still usable
    with pytest.raises(CertificateBuildError, match=r"gap 2: \(d−1\)/2 = 1/2 < 1 proves nothing"):
        unique_minimizer_certificate("greedy:8:2:4")  # some pairs at distance 2


def mutate(f):
    c = copy.deepcopy(default_cert())
    f(c)
    return rehash(c)


@pytest.mark.parametrize("name,edit,step", [
    ("claim raised", lambda c: c["claim"].update(rank_at_least=5), "claim"),
    ("factor raised", lambda c: c["jumps"][0].update(factor="7/2"), "jumps"),
    ("weight-domination factor instead", lambda c: c["jumps"][0].update(factor="6"), "jumps"),
    ("M₁ target", lambda c: c["family"]["inputs"][c["jumps"][0]["witnesses"][3]].update(target=0), "family"),
    ("witnesses swapped", lambda c: c["jumps"][0]["witnesses"].reverse(), "jumps"),
    ("chain factor", lambda c: c["chains"][0].update(factor="4"), "chains"),
    ("arithmetic", lambda c: c["arithmetic"].update(ratio="4"), "arithmetic"),
])
def test_edits_are_rejected_by_the_step_that_owns_them(name, edit, step):
    with pytest.raises(CertificateRejected) as info:
        check(mutate(edit))
    assert info.value.step == step, str(info.value)


def test_a_repeated_token_breaks_the_distinct_tokens_claim():
    def edit(c):
        X = c["family"]["inputs"][0]
        X["tokens"][2] = X["tokens"][1]
        toks = [int(s[::-1], 2) for s in X["tokens"]]
        X["target"] = min((toks[0] & z).bit_count() for z in toks)
    with pytest.raises(CertificateRejected, match="three distinct tokens|unique minimizer"):
        check(mutate(edit))


@pytest.mark.parametrize("edit,match", [
    (lambda c: c["claim"].update(error_below="1/4"), "error < 1/2"),
    (lambda c: c["claim"].update(length=4), "exact length 3"),
    (lambda c: c["claim"].update(inputs="any"), "claim.inputs"),
    (lambda c: c["jumps"][0]["witnesses"].pop(), "array of 3 items"),
    (lambda c: c["code"].update(length=26), "claim.m − 2"),
    (lambda c: c.update(version=2), "version 1"),
])
def test_malformed_files_exit_2(edit, match):
    with pytest.raises(CertificateError, match=match) as info:
        check(mutate(edit))
    assert info.value.exit_code == 2


def test_rank_certificates_are_unaffected_by_the_dispatch():
    from certify.certificates.producer import rank_nine_certificate

    c = rank_nine_certificate("paper")
    c["format"] = "certify.unique-minimizer-certificate"
    with pytest.raises(CertificateError) as info:  # read as the other kind: a format error, never a verdict
        check(rehash(c))
    assert info.value.exit_code == 2 and "claim" in str(info.value)


def test_schema_describes_what_the_producer_writes():
    from pathlib import Path

    import jsonschema

    schema = json.loads((Path(__file__).resolve().parents[1] / "docs" / "unique-minimizer-certificate.schema.json").read_text())
    jsonschema.validate(default_cert(), schema)
    jsonschema.validate(unique_minimizer_certificate("hadamard:20:4"), schema)
    bad = copy.deepcopy(default_cert())
    bad["jumps"][0]["witnesses"].pop()
    with pytest.raises(jsonschema.ValidationError):
        jsonschema.validate(bad, schema)


def test_as_a_family_for_check_kernel_it_is_verified_and_keeps_its_bound(tmp_path):
    """A unique-minimizer certificate given to check-kernel --family is verified first (adversarial review)."""
    from certify.kernels.audit import FamilyFormatError, load_family

    cert = unique_minimizer_certificate()
    good = tmp_path / "um.json"
    good.write_text(json.dumps(cert, ensure_ascii=False))
    fam = load_family(str(good))
    assert fam.certified_bound == 4 and fam.jumps == () and len(fam.inputs) == 96
    bad = copy.deepcopy(cert)
    bad["claim"]["rank_at_least"] = 99
    bad["sha256"] = content_hash(bad)
    (tmp_path / "bad.json").write_text(json.dumps(bad, ensure_ascii=False))
    with pytest.raises(FamilyFormatError, match="does not verify"):
        load_family(str(tmp_path / "bad.json"))


def test_a_certificate_beyond_the_checker_file_limit_is_refused_before_it_is_built(tmp_path):
    """Issue 18: `certify unique-minimizer --code golay24` ran for minutes past 2 GB; the size is known from the plan."""
    import subprocess
    import sys

    proc = subprocess.run([sys.executable, "-m", "certify.cli", "unique-minimizer", "--code", "golay24", "--out",
                           str(tmp_path / "u.json")], capture_output=True, text=True, timeout=120,
                          env={"CERTIFY_PROGRESS": "0", "PATH": "/usr/bin:/bin"})
    assert proc.returncode == 2 and proc.stdout == "" and len(proc.stderr.strip().splitlines()) == 1
    assert "26,532,800 inputs" in proc.stderr and "at most 64 MiB" in proc.stderr
    assert not (tmp_path / "u.json").exists()
