"""Exact strict feasibility with certificates (certify/kernels/lp.py)."""
from fractions import Fraction
from itertools import combinations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from certify.kernels.lp import LPError, simplex, strict_feasibility

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
