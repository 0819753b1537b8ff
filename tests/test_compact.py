"""Compact certificates (format version 2): producer, checker section, tampering, expansion.

Every tamper is followed by recomputing ``sha256`` (an attacker can always do that), so
the mathematics has to catch it.
"""
import copy
import functools
import json
import random
from fractions import Fraction
from pathlib import Path

import jsonschema
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from certify.certificates.compact import (
    MAX_EXPAND_INPUTS,
    build_compact_certificate,
    code_and_plan,
    expand_family,
    explicit_view,
    write_family,
)
from certify.certificates.rank_bound import code_bound, expand_certificate, make_plan, rank_bound_certificate
from certify.check import (
    MAX_COMPACT_WORDS,
    CertificateError,
    check,
    check_file,
    content_hash,
)
from codes import BinaryCode, hadamard_code, load_code, rank_nine_code
from witnesses import build_family
from witnesses.plans import GapPlan, planned_counts

SCHEMA = json.loads((Path(__file__).resolve().parents[1] / "docs" / "compact-certificate.schema.json").read_text())


def compact(code, plan="best", **kw):
    return build_compact_certificate(code, make_plan(code, plan), **kw)


def rehash(doc):
    doc["sha256"] = content_hash(doc)
    return doc


def rejected(doc, step, exit_code=1):
    with pytest.raises(CertificateError) as info:
        check(doc)
    steps = (step,) if isinstance(step, str) else step
    assert info.value.exit_code == exit_code and info.value.step in steps, str(info.value)
    assert "\n" not in str(info.value)
    return str(info.value)


H24 = compact(load_code("hadamard24"))


@functools.lru_cache(maxsize=None)
def golay_certificate():
    """golay24, best chains, compact: built once (≈ 5 s), verified by the tests that use it."""
    return compact(load_code("golay24"))


def test_hadamard24_compact_verifies_and_matches_the_schema():
    v = check(H24)
    assert v.proved == 17 and v.counts == {"words": 46, "inputs": 4370, "jumps": 2162, "chains": 2070}
    jsonschema.validate(H24, SCHEMA)
    bad = copy.deepcopy(H24)
    bad["plan"]["keys"] = "interpolated"
    with pytest.raises(jsonschema.ValidationError):
        jsonschema.validate(bad, SCHEMA)


def test_golay24_compact_certifies_21():
    cert = golay_certificate()
    v = check(cert)
    assert v.proved == 21 == cert["claim"]["rank_at_least"]
    assert v.counts["jumps"] == 2576 * 2575 and v.counts["inputs"] == 2576 * 2576 + 2576 * 2575
    assert [e["gaps"] for e in cert["plan"]["entries"]] == [[4], [6], [4, 4], [4, 4, 4]]


@pytest.mark.parametrize("plan", ["paper", "direct", "best"])
@pytest.mark.parametrize("code", [rank_nine_code(), hadamard_code(12), hadamard_code(20)], ids=["r9", "h12", "h20"])
def test_compact_and_explicit_forms_prove_the_same_and_describe_the_same_family(code, plan):
    p = make_plan(code, plan)
    v2 = build_compact_certificate(code, p)
    v1 = rank_bound_certificate(code, p, form="explicit")
    a, b = check(v2), check(v1)
    assert (a.proved, a.counts) == (b.proved, b.counts)
    assert expand_family(v2)["family"]["inputs"] == v1["family"]["inputs"]
    e = expand_certificate(v2)
    assert e["family"] == v1["family"] and e["jumps"] == v1["jumps"] and check(e).proved == a.proved


def test_rank_nine_paper_plan_reproduces_the_rank_nine_certificate_family():
    v2 = compact(rank_nine_code(), "paper")
    fam = build_family(rank_nine_code(), "paper")
    assert expand_family(v2)["family"]["inputs"] == [x.to_json() for x in fam.inputs]
    assert check(v2).proved == 9


def test_unequal_weights_are_allowed_in_the_compact_form():
    code = BinaryCode(10, (0b0000011111, 0b1111100000, 0b0011100011, 0b1100011100, 0b1100100111))  # weights 5, 5, 5, 5, 6
    assert code.weight is None
    cert = compact(code, "best")
    v = check(cert)
    assert v.proved == code_bound(code, make_plan(code, "best")).rank_at_least
    assert len(expand_family(cert)["family"]["inputs"]) == v.counts["inputs"]


# ----------------------------------------------------------------- tampering (hash recomputed)

def test_a_word_changed():
    c = copy.deepcopy(H24)
    w = c["code"]["words"][3]
    c["code"]["words"][3] = ("1" if w[0] == "0" else "0") + w[1:]
    rejected(rehash(c), ("plan", "chains"))  # distances change: new ones without a plan entry, or wrong pair counts


def test_a_word_rotated_is_caught_by_the_distances():
    c = copy.deepcopy(H24)
    c["code"]["words"][0] = c["code"]["words"][0][6:] + c["code"]["words"][0][:6]  # same weight, other distances
    rejected(rehash(c), ("plan", "chains"))


def test_a_plan_entry_changed():
    c = copy.deepcopy(H24)
    c["plan"]["entries"][1]["gaps"] = [6, 6]  # factor 25, stated 27
    assert "product of its jump factors is 25" in rejected(rehash(c), "chains")
    c["plan"]["entries"][1]["factor"] = "25"
    rejected(rehash(c), "family")  # level 6 has codeword keys: a different family
    code, plan, _ = code_and_plan(c)
    c["family"]["jumps"], c["family"]["inputs"] = planned_counts(code, plan)
    rejected(rehash(c), "arithmetic")  # Σ F⁻² and the ratio change (the bound stays 17)


def test_a_plan_entry_with_a_useless_gap():
    c = copy.deepcopy(H24)
    c["plan"]["entries"][0]["gaps"] = [1, 5]
    assert "μ" in rejected(rehash(c), "jumps")


def test_gaps_that_do_not_reach_the_distance():
    c = copy.deepcopy(H24)
    c["plan"]["entries"][0]["gaps"] = [7]
    rejected(rehash(c), "chains")


def test_a_pair_omitted():
    c = copy.deepcopy(H24)
    c["plan"]["entries"][0]["pairs"] -= 1  # one pair at distance 6 left out of Σ F⁻²
    assert "2,023" in rejected(rehash(c), "plan")


def test_a_distance_without_a_plan_entry():
    c = copy.deepcopy(H24)
    del c["plan"]["entries"][1]
    assert "no entry" in rejected(rehash(c), "chains")


def test_an_unused_plan_entry():
    c = copy.deepcopy(H24)
    c["plan"]["entries"].insert(1, {"distance": 8, "gaps": [4, 4], "pairs": 0, "factor": "9"})
    rejected(rehash(c), "plan")


def test_a_claim_raised():
    c = copy.deepcopy(H24)
    c["claim"]["rank_at_least"] = 18
    assert "data give r ≥ 17" in rejected(rehash(c), "claim")


def test_family_counts_and_arithmetic_are_checked():
    c = copy.deepcopy(H24)
    c["family"]["inputs"] += 1
    rejected(rehash(c), "family")
    c = copy.deepcopy(H24)
    c["arithmetic"]["rank_at_least"] = 18
    rejected(rehash(c), "arithmetic")


def test_code_facts():
    c = copy.deepcopy(H24)
    c["code"]["words"][5] = c["code"]["words"][4]
    rejected(rehash(c), "code")
    c = copy.deepcopy(H24)
    c["code"]["words"] = c["code"]["words"][:1]
    rejected(rehash(c), "code")
    inside = compact(BinaryCode(6, (0b000111, 0b111000)))
    inside["code"]["words"].append("111100")  # contains word 0 ("111000" as a token is {0,1,2})
    rejected(rehash(inside), "code")


def test_broken_hash_and_format():
    c = copy.deepcopy(H24)
    c["claim"]["rank_at_least"] = 16
    rejected(c, "integrity")
    for edit in (lambda d: d["plan"].update(keys="interpolated"), lambda d: d.update(jumps=[]),
                 lambda d: d["plan"]["entries"].reverse(), lambda d: d["code"].update(weight=12)):
        c = copy.deepcopy(H24)
        edit(c)
        rejected(rehash(c), "format", 2)


def test_limits_are_checked_before_the_quadratic_work():
    m = 24
    words = [format(i, f"0{m}b") for i in range(MAX_COMPACT_WORDS + 1)]
    c = copy.deepcopy(H24)
    c["code"]["words"] = words
    rejected(rehash(c), "limits", 2)
    rng = random.Random(1)
    words = sorted({"".join(rng.choice("01") for _ in range(64)) for _ in range(9000)})
    c = copy.deepcopy(H24)
    c["claim"]["m"] = c["code"]["length"] = 64
    c["code"]["words"] = words
    c["plan"]["entries"] = [{"distance": 32, "gaps": [2] * 16, "pairs": 1, "factor": "1"}]
    assert "units of key generation" in rejected(rehash(c), "limits", 2)


@settings(max_examples=150)
@given(st.integers(0, 2**32))
def test_accepted_mutants_are_true_by_an_independent_computation(seed):
    rng = random.Random(seed)
    doc = compact(hadamard_code(12))
    for _ in range(rng.randint(1, 2)):
        kind = rng.choice(["word", "gaps", "pairs", "factor", "claim", "swap", "count"])
        if kind == "word":
            i, k = rng.randrange(len(doc["code"]["words"])), rng.randrange(12)
            w = doc["code"]["words"][i]
            doc["code"]["words"][i] = w[:k] + ("1" if w[k] == "0" else "0") + w[k + 1:]
        elif kind == "swap":
            ws = doc["code"]["words"]
            i, j = rng.randrange(len(ws)), rng.randrange(len(ws))
            ws[i], ws[j] = ws[j], ws[i]
        elif kind == "gaps":
            e = rng.choice(doc["plan"]["entries"])
            d = e["distance"]
            cut = rng.randint(1, d - 1) if d > 1 else d
            e["gaps"] = [cut, d - cut] if cut < d else [d]
        elif kind == "pairs":
            rng.choice(doc["plan"]["entries"])["pairs"] += rng.choice([-1, 1])
        elif kind == "factor":
            rng.choice(doc["plan"]["entries"])["factor"] = str(rng.randint(1, 9))
        elif kind == "count":
            doc["family"][rng.choice(["jumps", "inputs"])] += rng.choice([-1, 1])
        else:
            doc["claim"]["rank_at_least"] += rng.choice([-1, 1])
    rehash(doc)
    try:
        verified = check(doc)
    except CertificateError as exc:
        assert exc.exit_code in (1, 2)
        return
    code, plan, n = code_and_plan(doc)
    bound = code_bound(code, plan, n, Fraction(doc["claim"]["error_below"]))
    assert verified.proved == bound.rank_at_least >= doc["claim"]["rank_at_least"]
    assert planned_counts(code, plan) == (doc["family"]["jumps"], doc["family"]["inputs"])
    assert [e["pairs"] for e in doc["plan"]["entries"]] == [bound.pairs[d] for d, _ in plan.entries]


# ----------------------------------------------------------------- expansion

def test_expand_family_of_a_version_one_certificate_is_its_family():
    cert = rank_bound_certificate(rank_nine_code(), make_plan(rank_nine_code(), "paper"), form="explicit")
    assert expand_family(cert)["family"]["inputs"] == cert["family"]["inputs"]


def test_write_family_streams_the_same_object(tmp_path):
    path = tmp_path / "fam.json"
    assert write_family(H24, path) == 4370
    assert json.loads(path.read_text()) == expand_family(H24)
    assert not list(tmp_path.glob("*.tmp*"))


def test_expansion_refuses_rejected_or_huge_certificates():
    c = copy.deepcopy(H24)
    c["claim"]["rank_at_least"] = 30
    with pytest.raises(CertificateError):
        expand_family(rehash(c))
    golay = golay_certificate()
    assert golay["family"]["inputs"] > MAX_EXPAND_INPUTS
    with pytest.raises(CertificateError, match="write_family streams"):
        expand_family(golay)
    code = load_code("rank-nine")  # a 2 KB compact certificate whose family would be ~13 GB written out
    huge_n = rank_bound_certificate(code, make_plan(code, "direct", 10**6), 10**6, form="compact")
    with pytest.raises(CertificateError, match="at most"):
        write_family(huge_n, "/nonexistent-folder/never-written.json")
    with pytest.raises(CertificateError, match="at most"):
        explicit_view(golay)


def test_explicit_view_has_the_version_one_spellings():
    view = explicit_view(H24)
    v1 = rank_bound_certificate(load_code("hadamard24"), make_plan(load_code("hadamard24"), "best"), form="explicit")
    assert view["family"] == v1["family"]
    assert view["jumps"] == [{k: j[k] for k in "xyz"} for j in v1["jumps"]]
    assert view["code"]["words"] == v1["code"]["words"]


def test_a_compact_file_on_disk(tmp_path):
    from certify.certificates.producer import write_certificate

    path = tmp_path / "h24.cert.json"
    write_certificate(H24, path)
    assert check_file(str(path)).proved == 17


def test_the_producer_refuses_what_the_checker_would_refuse():
    from certify.certificates.compact import check_compact_limits
    from certify.certificates.producer import CertificateBuildError

    with pytest.raises(CertificateBuildError, match="at most 16,384"):
        check_compact_limits(MAX_COMPACT_WORDS + 1)
    with pytest.raises(CertificateBuildError, match="work limit"):
        check_compact_limits(9000, GapPlan("long", ((32, (2,) * 16),)))
    check_compact_limits(2576, GapPlan("golay", ((12, (4, 4, 4)),)))
