"""The partition chooser of ``certify minrank --search-invariant`` (certify.minrank.partitions; docs/math.md §11).

Small m only (a few seconds of CPU in all): the plans and their order, the joint chain filter
against its checked certificate (docs/math.md Lemma 11.11), the choice where the answer is
known, the budget counted in LP solves, and the progress lines.
"""
import math

import pytest

from conftest import run_cli_here

from certify.check_degree import check_product
from certify.check_symmetric import check
from certify.minrank.product_degree import certificate
from certify.minrank.partitions import chain_feasible, partitions, plans
from certify.minrank.terwilliger import Algebra, multiplicity


def test_the_candidates_are_full_symmetry_small_splits_and_two_parts_near_the_k1_thresholds():
    assert partitions(12) == [(12,), (1, 11), (2, 10), (3, 9)]
    assert partitions(24) == [(24,), (1, 23), (2, 22), (3, 21), (14, 10), (13, 11), (4, 20)]
    for m in range(1, 49):
        found = partitions(m)
        assert found[0] == (m,) and all(sum(p) == m and min(p) >= 1 for p in found)
        assert len({tuple(sorted(p)) for p in found}) == len(found)  # each partition once


def test_the_plans_are_ordered_by_their_all_rank_one_count_from_the_lowest_degrees():
    from certify.minrank.degree import k1

    for m in (4, 12, 23):
        found = plans(m)
        keys = [(p.count, len(p.parts)) for p in found]
        assert keys == sorted(keys)
        for p in found:
            assert p.count == math.prod(math.comb(a, d) for a, d in zip(p.parts, p.degrees))
            assert all(k1(a // 2) <= d <= min(k1(a // 2) + 1, a // 2) for a, d in zip(p.parts, p.degrees))
    first = plans(12)
    assert first.index(next(p for p in first if p.parts == (1, 11))) < first.index(
        next(p for p in first if p.parts == (12,)))


def test_the_chain_filter_agrees_with_the_checked_product_degree_certificate():
    """Every plan of m = 12 and 13: the filter's verdict is the claim of a certificate check_degree.py accepts."""
    for m in (12, 13):
        for plan in plans(m):
            grid = [(a // 2, min(d, a // 2)) for a, d in zip(plan.parts, plan.degrees) if a >= 2]
            doc = certificate([n for n, _ in grid], [d for _, d in grid])
            assert check_product(doc)[2] == ("feasible" if chain_feasible(plan) else "infeasible")
    assert not chain_feasible(next(p for p in plans(12) if p.parts == (2, 10) and p.degrees == (0, 1)))


def test_at_m_12_the_first_plan_through_both_filters_is_s1_x_s11_not_s12():
    """K1(6) = 2 but K1(5) = 1: splitting off one coordinate lowers the large part's degree (Proposition 11.10)."""
    pytest.importorskip("highspy")
    from certify.minrank.partitions import passing

    tried = []
    first = next(passing(12, tried=tried))
    assert (first.parts, first.degrees) == ((1, 11), (0, 1))
    assert tried and all("fails the joint chain problem" in line for line in tried)


def test_at_m_4_the_chooser_certifies_r_star_itself():
    """r*(4, 3) = 2 (the order obstruction, docs/math.md Lemma 11.4): S_4 gives 4, the chooser's S_1 × S_3 gives 2."""
    pytest.importorskip("highspy")
    from certify.minrank.lower import exact_lower_bound
    from certify.minrank.partitions import best

    lines = []
    doc, tried = best(4, say=lines.append)
    assert check(doc).rank == doc["rank_at_most"] == exact_lower_bound(4) == 2 and doc["parts"] == [1, 3]
    assert any(line.startswith("S_4 at degrees 1: rank 4") for line in tried)  # every passing plan was certified
    assert lines[0].startswith("partition S_1 × S_3 at degrees 0, 0, count 1:")
    assert any("(best so far 2, S_1 × S_3)" in line for line in lines) and lines[-1].startswith("chose S_1 × S_3")


def test_a_spent_budget_of_lp_solves_stops_the_chooser_with_what_it_has():
    """Spent in the first full LP: nothing to certify, and it says so. Spent in a search: the blocks reached so far
    (here every block at full rank) are rounded, and that certificate is checked like any other."""
    pytest.importorskip("highspy")
    from certify.minrank.invariant import Budget, BudgetSpent, feasible
    from certify.minrank.partitions import best

    budget = Budget()
    assert feasible((1, 11), (0, 1), budget=budget) and budget.used == 2 * 12  # one LP per query weight tuple
    with pytest.raises(BudgetSpent, match="budget of 20 LP solves was spent before any certificate"):
        best(12, budget=20)
    doc, tried = best(12, budget=30)
    full = Algebra((1, 11), (0, 1))  # every block at full rank: its dimension, times its multiplicity
    assert doc["parts"] == [1, 11] and check(doc).rank == doc["rank_at_most"] == sum(
        multiplicity((1, 11), k) * len(full.index[k]) for k in full.kappas)
    assert "the budget ran out in its search" in tried[-2] and tried[-1] == "the budget of 30 LP solves spent"


def test_lp_budget_goes_with_the_chooser_only(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    for args in (["--lp-budget", "5"], ["--search-invariant", "--parts", "1,11", "--lp-budget", "5"]):
        proc = run_cli_here("minrank", "--m", "12", *args)
        assert proc.returncode == 2 and "--lp-budget goes with --search-invariant without --parts" in proc.stderr
        assert len(proc.stderr.strip().splitlines()) == 1
