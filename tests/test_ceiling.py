"""The ceiling of the family method (certify/lemmas/ceiling.py; docs/math.md §5, "The ceiling of the family method")."""
import json
import math
import re
from fractions import Fraction

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from certify.lemmas.amplification import best_split
from certify.lemmas.ceiling import CEILING_STEPS, ceiling, ceiling_line, coordinate_excess, covers, lemma_f_holds
from certify.lemmas.choice import best_null_shift

from conftest import ROOT, run_cli_here

RESULTS = ROOT / "docs" / "results"


@pytest.mark.parametrize("t", range(1, 9))
def test_lemma_g_per_coordinate_for_every_pair_of_0_1_vectors(t):
    """|u|·|v| − t·|u∧v| ≤ ((t − a)/2)² ≤ t²/4 for all u, v ∈ {0,1}^t (exhaustive, integers)."""
    for u in range(1 << t):
        for v in range(1 << t):
            a, p, q = (u & v).bit_count(), (u & ~v).bit_count(), (v & ~u).bit_count()
            excess = u.bit_count() * v.bit_count() - t * a
            assert excess == coordinate_excess(t, a, p, q)
            assert 4 * excess <= (t - a) ** 2 <= t * t, (t, u, v)


def test_lemma_g_per_coordinate_is_attained_at_a_equals_0():
    # u and v complementary halves: |u||v| = t²/4 for even t, and a = 0
    for t in range(2, 9, 2):
        assert 4 * coordinate_excess(t, 0, t // 2, t // 2) == t * t


def _gap_sum_bound_holds(xs, ks, m):
    t = len(xs)
    gaps = sum((x & ks[j]).bit_count() - (x & ks[i]).bit_count() for i, x in enumerate(xs) for j in range(t) if j != i)
    return 4 * gaps <= m * t * t


@settings(max_examples=200, deadline=None)
@given(st.integers(1, 16), st.integers(1, 12), st.data())
def test_lemma_g_on_random_systems_of_queries_and_keys(m, t, data):
    """Σ_{i≠j} (⟨x_i, k_j⟩ − ⟨x_i, k_i⟩) ≤ m·t²/4 for any tokens (no gap condition needed)."""
    token = st.integers(0, (1 << m) - 1)
    xs = data.draw(st.lists(token, min_size=t, max_size=t))
    ks = data.draw(st.lists(token, min_size=t, max_size=t))
    assert _gap_sum_bound_holds(xs, ks, m)


def test_lemma_g_is_tight_for_complementary_halves():
    # t = 2, m = 2: x_1 = k_1 = 01, x_2 = k_2 = 10 … gaps ⟨x_i,k_j⟩ − ⟨x_i,k_i⟩ = −1: far from tight; the bound's
    # extremal case is x_i ∧ k_i = 0 with the queries and keys splitting every coordinate in halves
    xs, ks = [0b01, 0b10], [0b10, 0b01]
    assert sum((x & ks[1 - i]).bit_count() - (x & ks[i]).bit_count() for i, x in enumerate(xs)) * 4 == 2 * 2 * 2


@pytest.mark.parametrize("g", range(2, 401))
def test_lemma_f_in_integers_up_to_gap_400(g):
    assert (g - 1) ** 5 <= 4 ** g  # each factor μ_g = g − 1 of a split
    assert lemma_f_holds(g)  # the best split F(g): F(g)⁵ ≤ 4^g


def test_lemma_f_is_tight_at_gap_5():
    assert best_split(5)[0] ** 5 == 4 ** 5 and not 4 ** 5 < best_split(5)[0] ** 5


@pytest.mark.parametrize("t,m", [(2, 8), (15, 24), (46, 24), (2576, 24), (5000, 27), (5000, 48), (8164, 48), (2, 300), (9, 4096)])
def test_the_ceiling_is_the_least_integer_above_the_real_bound(t, m):
    x = 4 * t / (t - 1) * 2 ** (0.2 * m * t / (t - 1))
    n = ceiling(t, m)
    assert n - 1 < x * (1 + 1e-12) and x * (1 - 1e-12) <= n  # floats only to compare, with a margin


@pytest.mark.parametrize("t,m", [(1, 8), (2, 0), (2.5, 8)])
def test_the_ceiling_refuses_what_the_theorem_does_not_cover(t, m):
    with pytest.raises(ValueError, match="t ≥ 2 words and m ≥ 1 bits"):
        ceiling(t, m)


def test_no_line_where_the_theorem_does_not_apply():
    assert ceiling_line(15, 24, None, length=4) is None  # other jump factors
    assert ceiling_line(15, 24, None, error=Fraction(1, 3)) is None
    assert ceiling_line(15, 24, None, error=Fraction(3, 5)) is not None  # ε ≥ 1/2: factors only smaller
    assert "not covered" in ceiling_line(15, 24, {"name": "square-kernel"})
    assert "not covered" not in ceiling_line(15, 24, {"name": "null-shifted"})
    assert covers(None) and all(covers({"name": s}) for s in CEILING_STEPS[1:])
    assert not covers({"name": "square"}) and not covers({"name": "square-kernel"})


@settings(max_examples=30, deadline=None)
@given(st.integers(8, 24), st.integers(3, 40), st.integers(0, 2**32))
def test_random_codes_never_beat_the_ceiling(m, t, seed):
    """The theorem on random weight-⌊m/2⌋ codes: Theorem A's best bound stays ≤ the ceiling, and R_s below it."""
    from codes.random_codes import random_code
    from certify.search.scores import exact_pairs, factor_table

    code = random_code(m, m // 2, 2, t, seed)
    F = factor_table(m)
    factors = {}
    for d, count in exact_pairs(code.words, m).items():
        factors[F[d]] = factors.get(F[d], 0) + count
    arg = best_null_shift(code.size, factors)
    assert arg.rank_at_least <= ceiling(code.size, m)
    assert arg.ratio < ceiling(code.size, m)


def _printed_ceiling(out: str) -> int:
    return int(re.search(r"ceiling     r ≥ ([\d,]+) at most", out).group(1).replace(",", ""))


@pytest.mark.parametrize("code", ["rank-nine", "hadamard24"])
def test_the_printed_ceiling_is_above_what_rank_bound_certifies(code, tmp_path, monkeypatch):
    monkeypatch.setenv("CERTIFY_PROGRESS", "0")
    proc = run_cli_here("rank-bound", "--code", code, "--out", str(tmp_path / "c.json"))
    assert proc.returncode == 0, proc.stderr
    proved = int(re.search(r"re-read the file: r ≥ (\d+)", proc.stdout).group(1))
    printed = _printed_ceiling(proc.stdout)
    assert proved < printed and printed == ceiling({"rank-nine": 15, "hadamard24": 46}[code], 24)


SHIPPED = sorted(RESULTS.glob("*.cert.json"))


@pytest.mark.parametrize("path", SHIPPED, ids=lambda p: p.name)
def test_the_ceiling_is_above_every_shipped_results_row(path):
    """Rows whose last step is covered: their claim. Square-kernel rows: the best covered step on the same factors."""
    doc = json.loads(path.read_text())
    t, m = len(doc["code"]["words"]), doc["claim"]["m"]
    top = ceiling(t, m)
    if covers(doc.get("argument")):
        assert doc["claim"]["rank_at_least"] <= top
    factors = {}
    for e in doc["plan"]["entries"]:
        f = Fraction(e["factor"])
        factors[f] = factors.get(f, 0) + e["pairs"]
    assert sum(factors.values()) == t * (t - 1)
    best = best_null_shift(t, factors)
    assert best.rank_at_least <= top and best.ratio < top
    assert Fraction(doc["arithmetic"]["ratio"]) < top  # trace–Frobenius's own ratio


def test_the_exponent_of_the_ceiling_is_0_2():
    # log2(ceiling)/m → 0.2 as t and m grow: the family method's best possible exponent
    assert abs(math.log2(ceiling(16384, 64)) / 64 - 0.2) < 0.05


def test_search_reports_the_ceiling_of_the_code_it_found(tmp_path):
    import json as _json

    proc = run_cli_here("search", "--m", "8", "--budget", "50", "--out", str(tmp_path / "s.json"), "--json")
    assert proc.returncode == 0, proc.stderr
    doc = _json.loads(proc.stdout)
    top = doc["ceiling"]["rank_at_most_certifiable"]
    assert doc["ceiling"]["m"] == 8 and doc["ceiling"]["t"] == doc["counts"]["words"]
    assert top == ceiling(doc["ceiling"]["t"], 8) >= doc["claim"]["rank_at_least"]
    assert doc["ceiling"]["steps"] == ["trace-frobenius", "shifted", "null-shifted"]
    assert doc["ceiling"]["covers_this_certificate"] == covers(doc["argument"])
