"""Bound values for a given m (docs/math.md §7) against independent evaluations and the paper's numbers."""
import math
from itertools import count
from math import comb

import mpmath
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from certify.bounds import values as B
from certify.lemmas.frobenius import certified_rank


# ---------------------------------------------------------------- independent evaluations

def brute_best_factor(d, A=1):
    """max Π A(g_i − 1) over all compositions of d into parts ≥ 2 (no cap on the gap)."""
    best = {0: 1}
    for e in range(1, d + 1):
        cands = [A * (g - 1) * best[e - g] for g in range(2, e + 1) if best.get(e - g) is not None]
        best[e] = max(cands) if cands else None
    return best[d]


def brute_theorem1(M):
    """Theorem 1 exact evaluation with direct binomial sums, every Δ, no early stop."""
    h = M // 2
    top = 1
    for delta in range(2, h + 1):
        T = -(-comb(M, h) // sum(comb(h, a) ** 2 for a in range(delta)))
        lam = brute_best_factor(delta)
        if T >= 2 and lam is not None:
            top = max(top, (T * lam * lam) // (lam * lam + T - 1) + 1)
    return top


# ---------------------------------------------------------------- chains and trace–Frobenius

@pytest.mark.parametrize("A", [1, 2, 3, 5])
def test_chain_dp_equals_brute_force_over_all_compositions(A):
    table = B.ChainTable(A)
    for d in range(1, 26):
        assert table.factor(d) == brute_best_factor(d, A)
        gaps = table.gaps(d)
        if table.factor(d) is not None:
            assert sum(g * c for g, c in gaps.items()) == d
            assert math.prod((A * (g - 1)) ** c for g, c in gaps.items()) == table.factor(d)


def test_four_five_pattern_is_the_optimum_at_length_three():
    table = B.ChainTable(1)
    for d in range(16, 10_001):
        gaps = B._pattern_split(d, 1)
        assert sum(g * c for g, c in gaps.items()) == d
        assert math.prod((g - 1) ** c for g, c in gaps.items()) == table.factor(d), d


def test_math_md_chain_table():
    assert [B.ChainTable(1).factor(d) for d in range(2, 13)] == [1, 2, 3, 4, 5, 6, 9, 12, 16, 20, 27]


@given(st.integers(2, 12), st.integers(1, 6))
def test_tf_bound_agrees_with_the_certificate_arithmetic(t, lam):
    assert B.tf_bound(t, lam * lam) == certified_rank(t, [lam] * (t * (t - 1)))


# ---------------------------------------------------------------- Theorem 1

def test_paper_value_at_168():
    t = B.theorem1(168)
    assert t.closed_form.value == 32768 == 2**15
    assert t.exact.value == brute_theorem1(168)
    assert 2**20 <= t.exact.value < 2**21  # docs/math.md §7: "at m = 168 it is about 2^20"


@pytest.mark.parametrize("M", [4, 6, 10, 24, 40, 64, 100, 130])
def test_exact_evaluation_matches_brute_force(M):
    assert B.theorem1(M).exact.value == brute_theorem1(M)


def test_closed_form_threshold():
    assert B.theorem1(166).closed_form is None and B.theorem1(167).closed_form is None
    assert B.theorem1(169).closed_form.value == 32768  # M = 2⌊m/2⌋ = 168


def test_paper_condition_F_is_nonnegative_exactly_from_168():
    # F(M) = (9/10 − H₂(1/4))M − 2 log₂(M+1), at 60 digits.
    mpmath.mp.dps = 60
    H = -(mpmath.mpf(1) / 4) * mpmath.log(mpmath.mpf(1) / 4, 2) - (mpmath.mpf(3) / 4) * mpmath.log(mpmath.mpf(3) / 4, 2)
    F = lambda M: (mpmath.mpf(9) / 10 - H) * M - 2 * mpmath.log(M + 1, 2)  # noqa: E731
    assert all(F(M) < 0 for M in range(2, 168, 2))
    assert all(F(M) >= 0 for M in range(168, 5000, 2))


def test_exact_is_never_below_the_closed_form():
    for M in range(168, 4001, 2):
        t = B.theorem1(M)
        assert t.exact.value >= t.closed_form.value, M
    for m in (20_002, 50_000, 123_457, 10**6):  # interval mode: compare certified log₂ enclosures
        t = B.theorem1(m)
        assert t.exact.kind == "interval"
        assert t.exact.log2[0] >= t.closed_form.log2[1], m


def test_interval_enclosures_contain_the_exact_integers():
    from flint import arb, fmpz

    for M, delta in [(200, 30), (1000, 150), (4000, 600), (4000, 1500), (4000, 1999)]:
        layer = B.MiddleLayer(M)
        T = layer.code_size(delta)
        with B._precision():
            lo, hi = B._T_interval(M, delta)
            assert lo <= arb(fmpz(T)) <= hi
            lam = B.ChainTable(1).factor(delta)
            L2 = arb(fmpz(lam * lam))
            q = B._tf_interval(lo, hi, L2, L2)
        exact = B.tf_bound(T, lam * lam)
        assert q.log2[0] <= math.log2(exact) <= q.log2[1]


# ---------------------------------------------------------------- constants, shell, unique

def test_constants():
    c = B.constants()
    assert round(c["c_uniq"], 2) == 0.11 and abs(c["c_uniq"] - 0.1088) < 1e-4
    assert abs(c["c3"] - 0.1862) < 1e-4
    mpmath.mp.dps = 50
    c3 = 1 - mpmath.log(1 + mpmath.power(4, -mpmath.mpf(1) / 5), 2)
    cu = 1 - mpmath.log(1 + mpmath.power(3, -mpmath.mpf(1) / 7), 2)
    assert c["c3_interval"][0] <= c3 <= c["c3_interval"][1]
    assert c["c_uniq_interval"][0] <= cu <= c["c_uniq_interval"][1]


@pytest.mark.parametrize("m", [500, 1200, 3000, 9000])
def test_shell_and_unique_values_match_mpmath(m):
    mpmath.mp.dps = 3000
    for sec, mu, g, pre, M in ((B.shell(m), 4, 5, 16, 2 * (m // 2)), (B.unique_minimizer(m), 3, 7, 9, 2 * ((m - 2) // 2))):
        c = 1 - mpmath.log(1 + mpmath.power(mu, -mpmath.mpf(1) / g), 2)
        V = sum(comb(M // 2, a) ** 2 for a in range(g))
        X = mpmath.power(2, c * M) / (pre * (M + 1) * V)
        assert sec.closed_form.value == max(1, int(mpmath.ceil(X)))


def test_small_m_sections_say_they_do_not_apply():
    assert not B.unique_minimizer(15).applies  # M = 12 < 14
    assert B.unique_minimizer(16).applies
    assert not B.shell(300).closed_form.nontrivial
    assert B.theorem1(1).exact.value == 1


# ---------------------------------------------------------------- heads, degree, growing, transcripts

def test_g_values():
    assert [B.g_heads(H) for H in (1, 2, 3)] == [8, 172, 5468]
    assert B.heads(1000, 2).parameters["g_H"] == 172
    assert B.degree(1000, 2).parameters["g_D"] == 172 and B.degree(1000, 2).parameters["rank_one_length"] == 3


@pytest.mark.parametrize("H,M", [(1, 40), (1, 168), (2, 400), (2, 1000)])
def test_heads_exact_matches_brute_force(H, M):
    g = B.g_heads(H)
    h = M // 2
    best_tf, best_half = 1, 1
    for K in range(1, h // g + 1):
        delta = K * g
        T = -(-comb(M, h) // sum(comb(h, a) ** 2 for a in range(delta)))
        q = -(-K // H)
        best_tf = max(best_tf, B.tf_bound(T, 4**q))
        best_half = max(best_half, max(1, -(-min(T, 4**q) // 2)))
    sec = B.heads(M, H)
    assert sec.exact.value == best_tf
    assert sec.closed_form.value == best_half


def test_heads_beyond_reach():
    assert not B.heads(1000, 3).applies  # g_3 = 5468 > M/2


@pytest.mark.parametrize("n", [4, 6, 100, 10**6])
def test_growing_context_paper_distance(n):
    M = 1000
    sec = B.growing_context(M, n)
    k = math.ceil(M / (2 * math.log2(n - 2)))
    assert sec.parameters["paper_distance"] in (2 * k, 2 * k + 2, 2 * k - 2)  # float check; exact below
    d = sec.parameters["paper_distance"] // 2
    assert (n - 2) ** (2 * d) >= 2**M > (n - 2) ** (2 * (d - 1))
    assert sec.exact.value >= B.theorem1(M).exact.value  # more context never hurts


def test_growing_context_at_length_three_is_theorem1():
    assert B.growing_context(500, 3).exact.value == B.theorem1(500).exact.value


@pytest.mark.parametrize("m,s", [(168, 8), (300, 5), (1000, 10)])
def test_transcript_code_size_matches_mpmath(m, s):
    mpmath.mp.dps = 500
    M = m - 2 - s
    X = mpmath.power(2, M) / ((M + 1) * (s + 1) * mpmath.power(mpmath.e * M / s, 2 * s))
    sec = B.transcripts(m, s)
    assert sec.values["code_size"].value == int(mpmath.ceil(X))
    sec = B.transcripts(m, s, 40)
    assert sec.parameters["q"] == 20
    lo, hi = sec.parameters["bits"]
    assert lo <= 20 * math.log2(s + 1) <= hi


def test_bad_arguments():
    for bad in (0, -1, 10**6 + 1, 2.5, True, "10"):
        with pytest.raises(B.BoundsInputError):
            B.theorem1(bad)
    with pytest.raises(B.BoundsInputError):
        B.growing_context(100, 2)
    with pytest.raises(B.BoundsInputError):
        B.g_heads(0)


def test_large_m_is_fast_and_interval():
    import time

    start = time.perf_counter()
    out = B.all_bounds(10**6, length=1000, H=2, D=2, s=12)
    assert time.perf_counter() - start < 20  # generous: the benchmark records ≈ 0.25 s
    assert out["mode"] == "interval" and out["theorem1"].exact.kind == "interval"
