"""Bound values for a given m (docs/math.md §7) against independent evaluations and the paper's numbers."""
import math
from fractions import Fraction
from itertools import count
from math import comb

import mpmath
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from certify.bounds import chains as CH, code_sizes as CS, quantities as QU, trace_frobenius as TF
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
        gaps = CH.pattern_split(d, 1)
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

    from codes import MiddleLayer

    for M, delta in [(200, 30), (1000, 150), (4000, 600), (4000, 1500), (4000, 1999)]:
        layer = MiddleLayer(M)
        T = layer.code_size(delta)
        with QU.precision():
            lo, hi = CS.T_interval(M, delta)
            assert lo <= arb(fmpz(T)) <= hi
            lam = B.ChainTable(1).factor(delta)
            L2 = arb(fmpz(lam * lam))
            q = TF.tf_interval(lo, hi, L2, L2)
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

    from conftest import cpu_unit

    start = time.process_time()  # CPU time in units of a reference check: any machine's speed or load scales both
    out = B.all_bounds(10**6, length=1000, H=2, D=2, s=12)
    assert time.process_time() - start < 300 * cpu_unit()  # generous (≈ 5 s here): the benchmark records ≈ 0.25 s
    assert out["mode"] == "interval" and out["theorem1"].exact.kind == "interval"


# ---------------------------------------------------------------- fast scans = straightforward scans (issue 11)

def straightforward_optimum(M, candidates, lam2, value=B.tf_bound):
    """The per-m evaluation the fast scan replaces: every Δ upwards with codes.MiddleLayer
    (terms added one by one, one big division per Δ), stopping once T_Δ ≤ best (value ≤ T)."""
    from codes import MiddleLayer

    layer = MiddleLayer(M)
    best = (1, None, None, None)
    for delta in candidates:
        if delta > layer.h:
            break
        T = layer.code_size(delta)
        if T <= best[0]:
            break
        L2 = lam2(delta)
        if L2 is not None and value(T, L2) > best[0]:
            best = (value(T, L2), delta, T, L2)
    return best


def exhaustive_optimum(M, candidates, lam2, value):
    """max over every candidate Δ ≤ M/2 (no stopping rule at all), smallest Δ on ties."""
    h = M // 2
    best = (1, None, None, None)
    for delta in candidates:
        if delta > h:
            break
        T = -(-comb(M, h) // sum(comb(h, a) ** 2 for a in range(delta)))
        L2 = lam2(delta)
        if L2 is not None and value(T, L2) > best[0]:
            best = (value(T, L2), delta, T, L2)
    return best


@given(st.integers(1, 400), st.integers(0, 420), st.integers(0, 420))
def test_binary_splitting_sums_the_squared_binomials(h, a, b):
    assert CS.binom_sq_sum(h, a, b) == sum(comb(h, j) ** 2 for j in range(a, b))


@given(st.integers(1, 300).map(lambda h: 2 * h), st.lists(st.integers(1, 320), min_size=1, max_size=8))
def test_layer_balls_equal_middle_ball_in_any_order_of_requests(M, deltas):
    from codes import gv_count, middle_ball

    layer = CS.MiddleLayerSizes(M)
    for d in deltas:  # each request starts from whichever ball is nearest: order must not matter
        assert layer.ball(d) == middle_ball(M, d)
        assert layer.code_size(d) == gv_count(M, d)


@settings(max_examples=40, deadline=None)
@given(st.integers(2, 160).map(lambda h: 2 * h), st.sampled_from(["chains1", "chains2", "chains7", "heads1", "heads2"]),
       st.sampled_from([B.tf_bound, TF.half_min]))
def test_window_scan_finds_the_exhaustive_maximum(M, kind, value):
    if kind.startswith("chains"):
        table = B.ChainTable(int(kind[6:]))
        cands, lam2 = range(2, M // 2 + 1), table.squared
        balance = lambda d: CS.log2_T_float(M, d) - CH.pattern_log2_squared(d, table.A)  # noqa: E731
    else:
        H, g = int(kind[5:]), 8
        cands = range(g, M // 2 + 1, g)
        lam2 = lambda d: 4 ** -(-(d // g) // H)  # noqa: E731
        balance = lambda d: CS.log2_T_float(M, d) - 2 * -(-(d // g) // H)  # noqa: E731
    want = exhaustive_optimum(M, cands, lam2, value)
    assert TF.optimize_exact(CS.MiddleLayerSizes(M), cands, lam2, value, balance) == want
    # any start gives the same answer: no model, and a model that points at the wrong end
    assert TF.optimize_exact(CS.MiddleLayerSizes(M), cands, lam2, value) == want
    assert TF.optimize_exact(CS.MiddleLayerSizes(M), cands, lam2, value, lambda d: 1.0) == want


@pytest.mark.parametrize("m", [4, 5, 24, 169, 1001, 4000, 9999, 19_999, 20_001])
def test_fast_theorem1_equals_the_straightforward_scan(m):
    M = 2 * (m // 2)
    table = B.ChainTable(1)
    b, delta, T, L2 = straightforward_optimum(M, range(2, M // 2 + 1), table.squared)
    t = B.theorem1(m)
    assert t.exact.kind == "exact" and t.exact.value == b
    if delta is not None:
        assert (t.parameters["distance"], t.parameters["code_size"], t.parameters["chain_factor"] ** 2) == (delta, T, L2)


@pytest.mark.parametrize("m", [300, 2001, 6000])
def test_fast_optional_sections_equal_the_straightforward_scan(m):
    M = 2 * (m // 2)
    for H in (1, 2):
        g = B.g_heads(H)
        if g > M // 2:
            assert not B.heads(m, H).applies
            continue
        q = lambda K: -(-K // H)  # noqa: E731
        cands, lam2 = [K * g for K in range(1, M // 2 // g + 1)], (lambda d: 4 ** q(d // g))
        sec = B.heads(m, H)
        assert sec.exact.value == straightforward_optimum(M, cands, lam2)[0]
        assert sec.closed_form.value == straightforward_optimum(M, cands, lam2, TF.half_min)[0]
    for n in (4, 1000):
        want = straightforward_optimum(M, range(2, M // 2 + 1), B.ChainTable(n - 2).squared)
        sec = B.growing_context(m, n)
        assert (sec.exact.value, sec.parameters["distance"], sec.parameters["code_size"]) == want[:3]


def test_range_rows_equal_per_m_rows_across_the_exact_interval_switch():
    ms = [19_996, 19_999, 20_000, 20_001, 20_002, 20_003, 20_004]
    rows = B.range_rows(ms, length=10, H=1)
    assert [r["m"] for r in rows] == ms
    CS._LAYERS.clear()
    CH._CHAIN_TABLES.clear()  # fresh caches, other order: the rows may not depend on what ran before
    for m in reversed(ms):
        assert B.range_rows([m], length=10, H=1) == [rows[ms.index(m)]]
    kinds = [B.theorem1(m).exact.kind for m in ms]
    assert kinds == ["exact"] * 4 + ["interval"] * 3  # M = 2⌊m/2⌋ ≤ 20,000 is exact


def test_range_rows_reports_progress():
    seen = []
    B.range_rows(range(100, 131, 10), progress=seen.append)
    assert seen == [1, 2, 3, 4]


# ---------------------------------------------------------------- null-shifted value (Theorem A, docs/math.md §5)

def _shifted_ratio(T, lam):
    """R = t²(1−s)² / (t(1−s)² + t(t−1)s²) at s = 1/(2Λ), as a Fraction, from its definition."""
    s = Fraction(1, 2 * lam)
    return Fraction(T * T) * (1 - s) ** 2 / (T * (1 - s) ** 2 + T * (T - 1) * s * s)


def test_null_shifted_against_shifted_and_trace_frobenius_on_a_grid():
    for T in range(2, 120):
        for lam in range(1, 40):
            L2 = lam * lam
            R = _shifted_ratio(T, lam)
            null, shifted, tf = B.null_shifted_tf_bound(T, L2), B.shifted_tf_bound(T, L2), B.tf_bound(T, L2)
            assert null == min(T, math.floor(R) + 1), (T, lam)
            assert shifted + 1 <= null <= T, (T, lam)
            assert null >= tf, (T, lam)
            # two more exactly when R is an integer ≥ 2 (R = 1 only at Λ = 1, where shifted is held at 1)
            assert (null == shifted + 2) == (R.denominator == 1 and R >= 2), (T, lam, R)
            assert null - shifted in (1, 2)


def test_null_shifted_small_and_non_square_arguments_fall_back_to_trace_frobenius():
    for T in (0, 1):
        for L2 in (1, 4, 16, 17):
            assert B.null_shifted_tf_bound(T, L2) == B.tf_bound(T, L2) == 1
    for T in (2, 15, 100):
        for L2 in (2, 3, 5, 8, 15, 17, 1000):  # not squares: as shifted_tf_bound does
            assert B.null_shifted_tf_bound(T, L2) == B.shifted_tf_bound(T, L2) == B.tf_bound(T, L2)
        assert B.null_shifted_tf_bound(T, 0) == B.tf_bound(T, 0)


@pytest.mark.parametrize("T", range(2, 13))
def test_null_shifted_equals_the_producers_best_null_shift(T):
    """choice.best_null_shift picks the best s exactly; for uniform factors Λ that is 1/(2Λ)'s value."""
    from certify.lemmas.choice import best_null_shift
    from certify.lemmas.sharper import null_shifted

    for lam in range(1, 9):
        best = best_null_shift(T, {Fraction(lam): T * (T - 1)})
        assert best.rank_at_least == B.null_shifted_tf_bound(T, lam * lam), (T, lam)
        at_half = null_shifted(T, {Fraction(lam): T * (T - 1)}, Fraction(1, 2 * lam))
        assert at_half.ratio == _shifted_ratio(T, lam) and at_half.rank_at_least == best.rank_at_least


def test_null_shifted_value_is_monotone_where_the_scan_needs_it():
    # _optimize_exact: nondecreasing in T and in Λ² (Λ² a square, as chain tables give), and ≤ max(T, 1)
    for lam in range(1, 30):
        vals = [B.null_shifted_tf_bound(T, lam * lam) for T in range(0, 300)]
        assert vals == sorted(vals) and all(v <= max(T, 1) for T, v in enumerate(vals))
    for T in range(0, 200):
        vals = [B.null_shifted_tf_bound(T, lam * lam) for lam in range(1, 60)]
        assert vals == sorted(vals)


@pytest.mark.parametrize("M", [4, 6, 10, 24, 40, 48, 64, 100, 130, 168])
def test_theorem1_null_shifted_is_the_exhaustive_maximum(M):
    table = B.ChainTable(1)
    want = exhaustive_optimum(M, range(2, M // 2 + 1), table.squared, B.null_shifted_tf_bound)
    shifted = exhaustive_optimum(M, range(2, M // 2 + 1), table.squared, B.shifted_tf_bound)
    t = B.theorem1(M)
    assert t.values["null_shifted"].kind == "exact"
    assert t.values["null_shifted"].value == want[0] and t.parameters.get("null_shifted_distance") == want[1]
    assert t.values["shifted"].value == shifted[0]
    if shifted[0] > 1:  # a Δ with T ≥ 2 exists: one or two more than shifted
        assert shifted[0] + 1 <= want[0] <= shifted[0] + 2
    assert want[0] >= t.exact.value


def test_null_shifted_scan_with_any_start_finds_the_exhaustive_maximum():
    for M in (30, 90, 200, 320):
        table = B.ChainTable(1)
        cands = range(2, M // 2 + 1)
        want = exhaustive_optimum(M, cands, table.squared, B.null_shifted_tf_bound)
        for balance in (None, lambda d: 1.0, lambda d: -1.0):
            assert TF.optimize_exact(CS.MiddleLayerSizes(M), cands, table.squared, B.null_shifted_tf_bound, balance) == want


@pytest.mark.parametrize("m", [24, 48, 169, 5001])
def test_null_shifted_in_json_and_text(m):
    import json

    from conftest import run_cli_here

    d = json.loads(run_cli_here("bounds", "--m", str(m), "--json").stdout)["theorem1"]
    null, shifted = d["values"]["null_shifted"], d["values"]["shifted"]
    assert null["kind"] == "exact" and isinstance(null["value"], int)
    assert shifted["value"] + 1 <= null["value"] <= shifted["value"] + 2
    assert null["value"] > d["exact"] and "null_shifted_distance" in d["parameters"]
    assert {"closed_form", "exact"} <= set(d) and "shifted_distance" in d["parameters"]  # existing keys kept
    text = run_cli_here("bounds", "--m", str(m)).stdout
    from certify.bounds.render import quantity_text

    assert f"\n  null-shifted    {quantity_text(B.theorem1(m).values['null_shifted'])}   [exact]\n" in text


def test_null_shifted_absent_in_interval_mode_and_says_so():
    t = B.theorem1(20_002)
    assert "null_shifted" not in t.values and "shifted" not in t.values
    assert any("null-shifted values: exact mode only" in n for n in t.notes)
