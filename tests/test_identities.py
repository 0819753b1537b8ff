"""The symbolic identities of ``certify identities`` (A.1, A.2, A.4, B.1, B.4; docs/math.md §3, §7–§9).

Each identity is checked by the library function ``certify identities`` runs; each
check is also shown to fail on a wrong statement, so a check that always says
"holds" would be caught.
"""
import sympy as sp

from certify.lemmas import identities as I


def test_weight_domination_identities_hold_for_symbolic_length():
    results = I.weight_domination()
    assert len(results) == 4 and all(r.holds for r in results), [r.detail for r in results]


def test_a_wrong_combination_of_y_and_z_is_caught():
    n = sp.Symbol("n")
    bad = I.weight_domination(combination=(sp.Rational(1, 2), sp.Rational(1, 2)))
    assert not bad[0].holds and "not 0" in bad[0].detail
    assert bad[1].holds  # the other identities do not depend on the combination
    swapped = I.weight_domination(combination=((n - 2) / (n - 1), 1 / (n - 1)))
    assert not swapped[0].holds


def test_unique_minimizer_identities_hold():
    results = I.unique_minimizer()
    assert len(results) == 3 and all(r.holds for r in results), [r.detail for r in results]


def test_finite_differences_kill_degree_below_L_but_not_degree_L():
    low, top = I.finite_differences(max_L=5)
    assert low.holds and top.holds and "L = 1…5" in low.detail
    too_high, _ = I.finite_differences(max_L=3, degree_offset=0)
    assert not too_high.holds


def test_multihead_numerator_is_killed_by_the_alternating_sum():
    r = I.multihead_numerator(max_heads=2)
    assert r.holds, r.detail


def test_softmax_error_formula():
    r = I.softmax_error(max_length=3)
    assert r.holds, r.detail


def test_check_reports_a_residual():
    r = I.check("wrong", "ref", "demo", "a*(b + c)", "a*b")
    assert not r.holds and r.detail == "lhs − rhs = a*c, not 0"


def test_all_identities_is_what_the_command_prints():
    from click.testing import CliRunner

    from certify.cli import cli

    res = CliRunner().invoke(cli, ["identities", "--json"])
    assert res.exit_code == 0, res.output
    import json

    doc = json.loads(res.stdout)  # progress, if the machine is slow, goes to stderr
    assert doc["all_hold"] is True
    assert [r["statement"] for r in doc["identities"]] == [r.statement for r in I.all_identities()]
