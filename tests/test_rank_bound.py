"""The rank bound of any code under a plan, and its certificates (certify/certificates/rank_bound.py).

Also the laws about adding words (issue 10, docs/results.md): the raw trace–Frobenius
ratio can drop when a verified word is added; it does not drop exactly when
δ ≤ 1 + 1/t + σ(2t+1)/t²; and the best bound over sub-codes never drops.
"""
import itertools
import random
from fractions import Fraction
from functools import reduce

import pytest
from hypothesis import given
from hypothesis import strategies as st

from certify.certificates.producer import CertificateBuildError
from certify.certificates.rank_bound import (
    code_bound,
    make_plan,
    parse_error,
    plan_factors,
    rank_bound_certificate,
)
from certify.check import check
from certify.lemmas.domination import domination_factor
from certify.search.codes import adding_keeps_ratio, factor_table
from codes import BinaryCode, hadamard_code, load_code, rank_nine_code
from test_amplification import compositions
from witnesses.plans import GapPlan


def random_code(m, t, seed, weights):
    rng = random.Random(seed)
    words = set()
    while len(words) < t:
        words.add(sum(1 << k for k in rng.sample(range(m), rng.choice(weights))))
    return BinaryCode(m, tuple(sorted(words)))


@pytest.mark.parametrize("n,eps", [(3, Fraction(1, 2)), (4, Fraction(1, 2)), (3, Fraction(1, 3))])
def test_best_plan_gives_every_pair_its_largest_chain_factor(n, eps):
    # Keys exist at every level, so a chain's factor depends only on its gaps: best must
    # beat every composition of every distance of the code.
    code = hadamard_code(20)
    plan = make_plan(code, "best", n, eps)
    factors = plan_factors(plan, n, eps)
    for d in code.distance_counts:
        products = []
        for gaps in compositions(d):
            mus = [domination_factor(g, n, eps) for g in gaps]
            if all(mu >= 1 for mu in mus):
                products.append(reduce(lambda a, b: a * b, mus, Fraction(1)))
        assert factors[d] == max(products)


@pytest.mark.parametrize("name,paper,direct,best", [("rank-nine", 9, 10, 10), ("hadamard24", 13, 17, 17)])
def test_bounds_of_the_small_builtins(name, paper, direct, best):
    code = load_code(name)
    got = {p: code_bound(code, make_plan(code, p)).rank_at_least for p in ("paper", "direct", "best")}
    assert got == {"paper": paper, "direct": direct, "best": best}


def test_expected_values_at_m24():
    # docs/math.md §6: hadamard24 certifies r ≥ 17 and golay24 r ≥ 21 (best chains, n = 3, ε = 1/2).
    h = load_code("hadamard24")
    assert code_bound(h, make_plan(h, "best")).rank_at_least == 17
    g = load_code("golay24")
    b = code_bound(g, make_plan(g, "best"))
    assert b.rank_at_least == 21
    assert b.ratio == Fraction(2576**2) / (2576 + Fraction(495, 9) * 2576 + Fraction(1584, 25) * 2576
                                           + Fraction(495, 81) * 2576 + Fraction(1, 729) * 2576)


@pytest.mark.parametrize("plan", ["paper", "direct", "best"])
@pytest.mark.parametrize("form", ["explicit", "compact"])
def test_certificates_of_both_forms_verify_with_the_same_bound(plan, form):
    code = hadamard_code(12)
    p = make_plan(code, plan)
    cert = rank_bound_certificate(code, p, form=form)
    assert cert["version"] == (1 if form == "explicit" else 2)
    v = check(cert)
    assert v.proved == code_bound(code, p).rank_at_least == cert["claim"]["rank_at_least"]


@given(st.integers(6, 12), st.integers(2, 7), st.integers(0, 10**6), st.sampled_from([3, 4]), st.sampled_from(["1/2", "1/3"]))
def test_random_codes_of_any_weights_certify_what_the_distances_say(m, t, seed, n, eps_text):
    eps = Fraction(eps_text)
    code = random_code(m, t, seed, [m // 2 - 1, m // 2, m // 2 + 1])
    try:
        plan = make_plan(code, "best", n, eps)
    except CertificateBuildError:
        return  # a word inside another, or a distance no chain can bridge
    cert = rank_bound_certificate(code, plan, n, eps, form="compact")
    assert check(cert).proved == code_bound(code, plan, n, eps).rank_at_least
    if code.weight is not None:
        assert check(rank_bound_certificate(code, plan, n, eps, form="explicit")).proved == check(cert).proved


def test_refusals():
    with pytest.raises(CertificateBuildError, match="unknown chain plan"):
        make_plan(rank_nine_code(), "longest")
    with pytest.raises(CertificateBuildError, match="lies inside another"):
        make_plan(BinaryCode(4, (0b0011, 0b0111)), "best")
    with pytest.raises(CertificateBuildError, match="cannot bridge directed distance 1"):
        make_plan(load_code("lexicode:6:3:1"), "best")
    with pytest.raises(CertificateBuildError, match="needs words of one weight"):
        code = BinaryCode(6, (0b000111, 0b111100))  # weights 3 and 4, distances 2 and 3
        rank_bound_certificate(code, make_plan(code, "direct"), form="explicit")
    with pytest.raises(CertificateBuildError, match="uses gap 1"):
        plan_factors(GapPlan("x", ((2, (1, 1)),)))
    with pytest.raises(CertificateBuildError, match="unknown certificate form"):
        rank_bound_certificate(rank_nine_code(), make_plan(rank_nine_code()), form="tiny")


@pytest.mark.parametrize("text,value", [("1/2", Fraction(1, 2)), ("0.25", Fraction(1, 4)), ("3", Fraction(3))])
def test_parse_error_is_exact(text, value):
    assert parse_error(text) == value


@pytest.mark.parametrize("text", ["0", "1/0", "-1/2", "1e-3", "0.1" + "1" * 50, "nan", " 1/2"])
def test_parse_error_refuses(text):
    with pytest.raises(ValueError):
        parse_error(text)


# ----------------------------------------------------------------- adding words (issue 10, point 4)

def ratio_of(words, m, F):
    t = len(words)
    sigma = sum((1 / F[(a & ~b).bit_count()] ** 2 for a in words for b in words if a != b), Fraction(0))
    return Fraction(t * t) / (t + sigma), sigma


def test_adding_a_verified_word_can_lower_the_raw_bound():
    # {S, S^c} in [8]: both pairs at distance 4 (F = 3), R = 4/(2 + 2/9) = 9/5. Add U with
    # two coordinates of S swapped out: every new pair is at distance 2 (F = 1, a valid
    # chain, terms ≈ 1), and R drops to 9/(3 + 2/9 + 4) = 81/65 although every pair verifies.
    m = 8
    F = factor_table(m)
    S, Sc, U = 0b00001111, 0b11110000, 0b00110011
    before, sigma = ratio_of([S, Sc], m, F)
    after, sigma_after = ratio_of([S, Sc, U], m, F)
    assert (before, after) == (Fraction(9, 5), Fraction(81, 65))
    assert after < before
    assert not adding_keeps_ratio(2, sigma, sigma_after - sigma)


@given(st.integers(6, 11), st.integers(1, 6), st.integers(0, 10**6))
def test_adding_keeps_the_ratio_exactly_when_the_condition_holds(m, t, seed):
    F = factor_table(m)
    words = list(random_code(m, t + 1, seed, [m // 2]).words)
    if any(F[(a & ~b).bit_count()] is None for a in words for b in words if a != b):
        return
    old, new = words[:-1], words
    r_old, sigma = ratio_of(old, m, F) if len(old) > 1 else (Fraction(1), Fraction(0))
    r_new, sigma_new = ratio_of(new, m, F)
    delta = sigma_new - sigma
    assert (r_new >= r_old) == adding_keeps_ratio(t, sigma, delta)


def best_subcode_ratio(words, m, F):
    best = Fraction(0)
    for k in range(1, len(words) + 1):
        for sub in itertools.combinations(words, k):
            if all(F[(a & ~b).bit_count()] for a in sub for b in sub if a != b):
                best = max(best, ratio_of(list(sub), m, F)[0])
    return best


@given(st.integers(6, 10), st.integers(1, 5), st.integers(0, 10**6))
def test_the_best_bound_over_sub_codes_never_drops_when_a_word_is_added(m, t, seed):
    F = factor_table(m)
    words = list(random_code(m, t + 1, seed, [m // 2 - 1, m // 2, m // 2 + 1]).words)
    assert best_subcode_ratio(words, m, F) >= best_subcode_ratio(words[:-1], m, F)


def test_a_certificate_the_format_cannot_spell_is_refused_before_writing():
    # 60 random 1,024-bit words: about a hundred distinct distances, and Σ F⁻² over their
    # squared factors has a denominator of hundreds of digits.
    rng = random.Random(3)
    code = BinaryCode(1024, tuple(sorted({rng.getrandbits(1024) for _ in range(60)})))
    plan = make_plan(code, "direct")
    with pytest.raises(CertificateBuildError, match="the format allows 200"):
        rank_bound_certificate(code, plan, form="compact")
