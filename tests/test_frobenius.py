"""Trace–Frobenius bounds (A.2; docs/math.md §5), checked against exact ranks from python-flint."""
from fractions import Fraction

import pytest
from hypothesis import assume, event, given, target
from hypothesis import strategies as st

from certify.lemmas.frobenius import certified_rank, matrix_trace_frobenius, trace_frobenius_ratio, uniform_bound
from certify.linalg.rank import exact_rank

small_ints = st.integers(-5, 5)


@given(st.integers(1, 7).flatmap(lambda n: st.lists(st.lists(small_ints, min_size=n, max_size=n), min_size=n, max_size=n)))
def test_trace_frobenius_never_exceeds_exact_rank(rows):
    assume(any(v for r in rows for v in r))
    assert matrix_trace_frobenius(rows) <= exact_rank(rows)


@st.composite
def factored_kernels(draw):
    """Nonnegative B = Φ_Q Φ_Kᵀ of width r: query/key i gets a large entry on feature f_i plus noise.

    Distinct f_i (possible only when r ≥ t) make B dominated; shared ones make it fail.
    """
    t = draw(st.integers(2, 5))
    r = draw(st.integers(1, t))
    big = draw(st.integers(1, 12))
    feat = draw(st.lists(st.integers(0, r - 1), min_size=t, max_size=t))
    noise = st.lists(st.lists(st.integers(0, 2), min_size=r, max_size=r), min_size=t, max_size=t)
    nq, nk = draw(noise), draw(noise)
    phi_q = [[big * (k == feat[i]) + nq[i][k] for k in range(r)] for i in range(t)]
    phi_k = [[big * (k == feat[i]) + nk[i][k] for k in range(r)] for i in range(t)]
    return t, r, phi_q, phi_k


@given(factored_kernels(), st.sampled_from([1, 2, 3, 4]))
def test_certified_bound_never_exceeds_rank_of_a_dominated_kernel(kernel, F):
    """Any nonnegative B = Φ_Q Φ_Kᵀ with B_SS > F·B_SU for all S ≠ U has rank ≥ the certified bound.

    F = 1, t = 2 is tight (bound 2 = full rank): an implementation that lost the strict
    inequality would certify only 1.
    """
    t, r, phi_q, phi_k = kernel
    B = [[sum(a * b for a, b in zip(phi_q[i], phi_k[j])) for j in range(t)] for i in range(t)]
    margin = min(B[i][i] - F * B[i][j] for i in range(t) for j in range(t) if i != j)
    target(float(margin), label="domination margin")  # steer the search towards dominated kernels
    event(f"dominated={margin > 0}")
    if margin > 0:
        bound = certified_rank(t, [F] * (t * (t - 1)))
        assert exact_rank(B) >= bound
        assert r >= bound  # the feature width can never be below the bound


def test_two_by_two_domination_is_tight():
    assert certified_rank(2, [1, 1]) == 2 == exact_rank([[2, 1], [1, 2]])


def test_unit_diagonal_with_small_entries_has_large_rank():
    # C = I + ε(J − I): nearly identity, rank t; the bound must not exceed it.
    t, F = 15, 4
    C = [[Fraction(1) if i == j else Fraction(1, 5) for j in range(t)] for i in range(t)]
    assert exact_rank(C) == 15 >= certified_rank(t, [F] * 210) == 9


def test_rank_nine_numbers():
    assert trace_frobenius_ratio(15, [4] * 210) == 8
    assert certified_rank(15, [4] * 210) == 9
    assert trace_frobenius_ratio(15, [5] * 210) == Fraction(125, 13)
    assert certified_rank(15, [5] * 210) == 10


def test_uniform_form_is_at_least_half_the_minimum():
    for t in (2, 10, 100):
        for lam in (1, 2, 7, 30):
            assert uniform_bound(t, lam) >= Fraction(min(t, lam * lam), 2)


def test_refusals():
    with pytest.raises(ValueError, match="t ≥ 2"):
        certified_rank(1, [])
    with pytest.raises(ValueError, match="t\\(t−1\\)"):
        trace_frobenius_ratio(3, [2] * 5)
    with pytest.raises(TypeError):
        certified_rank(2, [2.0, 2])
    with pytest.raises(ValueError):
        matrix_trace_frobenius([[0, 0], [0, 0]])
