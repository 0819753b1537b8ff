"""Exact strict feasibility with certificates (certify/linalg/lp.py, its simplex certify/linalg/simplex.py)."""
from fractions import Fraction
from itertools import combinations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from certify.linalg.lp import LPError, simplex, strict_feasibility

small = st.fractions(min_value=-5, max_value=5, max_denominator=4)


@given(st.lists(st.tuples(st.fractions(min_value=Fraction(1, 4), max_value=4, max_denominator=4), small, small),
                min_size=1, max_size=6))
def test_one_variable_systems_match_interval_intersection(items):
    rows = [[a] for a, _, _ in items]
    lo = [min(l, u) for _, l, u in items]
    hi = [max(l, u) for _, l, u in items]
    res = strict_feasibility(rows, lo, hi)
    expected = max(l / a for (a, _, _), l in zip(items, lo)) < min(u / a for (a, _, _), u in zip(items, hi))
    assert res.feasible == expected
    if res.feasible:
        g = res.solution[0]
        assert all(l < a * g < u for (a, _, _), l, u in zip(items, lo, hi))
    else:
        assert res.support  # an infeasible sub-system is named


@given(st.lists(st.tuples(small, small, small, small), min_size=1, max_size=7))
def test_two_variable_answers_carry_their_proof(items):
    rows = [[a, b] for a, b, _, _ in items]
    lo = [min(l, u) for _, _, l, u in items]
    hi = [max(l, u) + Fraction(1, 8) for _, _, l, u in items]
    res = strict_feasibility(rows, lo, hi)  # verifies its own certificate; raises LPError otherwise
    if res.feasible:
        g = res.solution
        assert all(l < r[0] * g[0] + r[1] * g[1] < u for r, l, u in zip(rows, lo, hi))
        assert res.margin > 0
    else:
        lam, nu = res.lam, res.nu
        assert all(v >= 0 for v in lam + nu) and sum(lam) + sum(nu) == 1
        for z in range(2):
            assert sum((nu[i] - lam[i]) * rows[i][z] for i in range(len(rows))) == 0
        assert sum(nu[i] * hi[i] - lam[i] * lo[i] for i in range(len(rows))) <= 0


def brute_lp(c, A, b):
    """min c·x over basic feasible solutions of Ax = b, x ≥ 0 (tiny problems only)."""
    from sympy import Matrix

    full = Matrix([row + [bi] for row, bi in zip(A, b)])
    if Matrix(A).rank() < full.rank():
        return None  # inconsistent equations
    # keep a maximal set of independent rows (the others are implied)
    keep = []
    for i in range(len(A)):
        if Matrix([A[k] for k in keep + [i]]).rank() == len(keep) + 1:
            keep.append(i)
    A, b = [A[i] for i in keep], [b[i] for i in keep]
    m, n = len(A), len(c)
    best = None
    for cols in combinations(range(n), m):
        B = Matrix([[A[i][j] for j in cols] for i in range(m)])
        if B.det() == 0:
            continue
        xb = B.solve(Matrix(b))
        if all(v >= 0 for v in xb):
            val = sum(c[j] * xb[k] for k, j in enumerate(cols))
            best = val if best is None else min(best, val)
    return best


@given(st.integers(2, 4).flatmap(lambda n: st.tuples(
    st.lists(st.integers(-3, 3), min_size=n, max_size=n),
    st.lists(st.lists(st.integers(-3, 3), min_size=n, max_size=n), min_size=1, max_size=2))))
def test_simplex_matches_vertex_enumeration(args):
    c, A = args
    A = A + [[1] * len(c)]  # Σx = 1 keeps the feasible set bounded
    b = [0] * (len(A) - 1) + [1]
    best = brute_lp(c, A, b)
    if best is None:
        with pytest.raises(LPError):
            simplex(c, A, b)
        return
    value, x, w = simplex(c, A, b)
    assert value == best
    assert all(v >= 0 for v in x)
    assert all(sum(A[i][j] * x[j] for j in range(len(c))) == b[i] for i in range(len(A)))
    # dual feasibility and strong duality: Aᵀw ≤ c, b·w = value
    assert all(sum(A[i][j] * w[i] for i in range(len(A))) <= c[j] for j in range(len(c)))
    assert sum(b[i] * w[i] for i in range(len(A))) == value


# ---------------------------------------------------------------- sparse rows, HiGHS path (issue 11)

from certify.linalg import lp as LP  # noqa: E402
from certify.linalg import simplex as SX  # noqa: E402

SOLVERS = ["simplex"] + (["highs"] if LP.highs_available() else [])


def check_proof(res, rows, lo, hi):
    """Re-check a Feasibility's proof here, with Fractions (independent of lp.py's own checks)."""
    n = len(rows[0])
    if res.feasible:
        g = res.solution
        assert all(l < sum(r[z] * g[z] for z in range(n)) < u for r, l, u in zip(rows, lo, hi))
    else:
        lam, nu = res.lam, res.nu
        assert all(v >= 0 for v in lam + nu) and sum(lam) + sum(nu) == 1
        for z in range(n):
            assert sum((nu[i] - lam[i]) * rows[i][z] for i in range(len(rows))) == 0
        assert sum(nu[i] * hi[i] - lam[i] * lo[i] for i in range(len(rows))) <= 0


systems = st.integers(1, 4).flatmap(lambda n: st.lists(
    st.tuples(st.lists(small, min_size=n, max_size=n), small, st.fractions(min_value=0, max_value=3, max_denominator=4)),
    min_size=1, max_size=8))


@given(systems)
def test_every_solver_decides_like_the_exact_simplex_and_carries_a_proof(items):
    rows = [r for r, _, _ in items]
    lo = [l for _, l, _ in items]
    hi = [l + w for _, l, w in items]  # w = 0 gives an empty interval: infeasible on its own
    exact = strict_feasibility(rows, lo, hi)
    for solver in SOLVERS:
        res = LP.decide_feasibility(rows, lo, hi, solver=solver)
        assert res.feasible == exact.feasible
        check_proof(res, rows, lo, hi)


@given(systems)
def test_sparse_rows_give_the_same_answer_as_dense_rows(items):
    rows = [r for r, _, _ in items]
    lo = [l for _, l, _ in items]
    hi = [l + w for _, l, w in items]
    sparse = [{z: v for z, v in enumerate(r) if v} for r in rows]
    assert strict_feasibility(sparse, lo, hi, nvar=len(rows[0])) == strict_feasibility(rows, lo, hi)


def test_exact_simplex_answers_without_highs():
    assert LP.decide_feasibility([[1]], [0], [1], solver="simplex").method == "simplex"


@pytest.mark.skipif(not LP.highs_available(), reason="highspy not installed")
def test_highs_answer_is_used_when_it_verifies():
    res = LP.decide_feasibility([[1, 0], [1, 1]], [0, 2], [2, 4], solver="highs")
    assert res.method == "highs" and res.feasible
    res = LP.decide_feasibility([[1], [1], [1]], [0, 3, -9], [2, 5, 9], solver="highs")
    assert res.method == "highs" and not res.feasible and res.support == (0, 1)


@pytest.mark.skipif(not LP.highs_available(), reason="highspy not installed")
def test_exact_simplex_takes_over_when_the_float_answer_does_not_verify():
    # 1 < g < 1 + 10^-30 and 2 < 2g < 2 + 2·10^-30: feasible, far below double precision.
    tiny = Fraction(1, 10**30)
    rows, lo, hi = [[1], [2]], [1, 2], [1 + tiny, 2 + 2 * tiny]
    res = LP.decide_feasibility(rows, lo, hi, solver="highs")
    assert res.feasible and res.method == "simplex"
    check_proof(res, rows, lo, hi)
    # and infeasible by a gap of 10^-30 (0 < g < 1 and 1 + 10^-30 < g < 2): whichever path
    # answers, the certificate is exact
    res = LP.decide_feasibility([[1], [1]], [0, 1 + tiny], [1, 2], solver="highs")
    assert not res.feasible
    check_proof(res, [[1], [1]], [0, 1 + tiny], [1, 2])


def test_floats_and_bad_shapes_are_refused():
    with pytest.raises(TypeError, match="rows\\[0\\]\\[1\\]"):
        strict_feasibility([[1, 0.5]], [0], [1])
    with pytest.raises(TypeError, match="lo\\[0\\]"):
        LP.decide_feasibility([[1]], [0.0], [1])
    with pytest.raises(ValueError, match="one entry per inequality"):
        strict_feasibility([[1]], [0, 1], [1])
    with pytest.raises(ValueError, match="variable index"):
        strict_feasibility([{3: 1}], [0], [1], nvar=2)
    with pytest.raises(ValueError, match="solver"):
        LP.decide_feasibility([[1]], [0], [1], solver="glpk")


def _q_rows(A):
    return [{j: LP.as_fmpq(v) for j, v in enumerate(r) if v} for r in A]


@given(st.integers(2, 4).flatmap(lambda n: st.tuples(
    st.lists(st.integers(-3, 3), min_size=n, max_size=n),
    st.lists(st.lists(st.integers(-3, 3), min_size=n, max_size=n), min_size=1, max_size=2))))
def test_dantzig_rule_reaches_the_same_optimum_as_blands(args):
    c, A = args
    A = A + [[1] * len(c)]
    b = [0] * (len(A) - 1) + [1]
    try:
        bland = SX.simplex_fmpq([LP.as_fmpq(v) for v in c], _q_rows(A), [LP.as_fmpq(v) for v in b])
    except LPError:
        with pytest.raises(LPError):
            SX.simplex_fmpq([LP.as_fmpq(v) for v in c], _q_rows(A), [LP.as_fmpq(v) for v in b], rule="dantzig")
        return
    value, x, w = SX.simplex_fmpq([LP.as_fmpq(v) for v in c], _q_rows(A), [LP.as_fmpq(v) for v in b], rule="dantzig")
    assert value == bland[0]
    assert all(v >= 0 for v in x)
    assert all(sum(A[i][j] * x[j] for j in range(len(c))) == b[i] for i in range(len(A)))


def test_dantzig_rule_terminates_on_beales_cycling_example():
    # Beale (1955): Dantzig's rule with the usual ties cycles from the slack basis; the
    # fallback to Bland's rule after m degenerate pivots guarantees termination anyway.
    F = Fraction
    c = [0, 0, 0, F(-3, 4), 20, F(-1, 2), 6]
    A = [[1, 0, 0, F(1, 4), -8, -1, 9], [0, 1, 0, F(1, 2), -12, F(-1, 2), 3], [0, 0, 1, 0, 0, 1, 0]]
    b = [0, 0, 1]
    value, x, _ = SX.simplex_fmpq([LP.as_fmpq(v) for v in c], _q_rows(A), [LP.as_fmpq(v) for v in b], rule="dantzig")
    assert value == brute_lp(c, A, b) == F(-5, 4)
