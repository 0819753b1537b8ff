"""Weight domination (A.2; docs/math.md §3): the exact identity, the inequality, its sharpness."""
from fractions import Fraction

import pytest
import sympy as sp
from hypothesis import assume, given
from hypothesis import strategies as st

from certify.lemmas.domination import domination_factor, witness_sums, witnesses_correct


@pytest.mark.parametrize("n", [3, 4, 5, 8])
def test_values_cancel_in_the_exact_identity(n):
    a, b, c, p, q, s = sp.symbols("a b c p q s")
    (NY, DY), (NZ, DZ), (NW, DW) = witness_sums(a, b, c, p, q, s, length=n)
    assert sp.simplify(NW - (NY / (n - 1) + (n - 2) * NZ / (n - 1))) == 0
    assert sp.simplify(DW - (DY / (n - 1) + (n - 2) * DZ / (n - 1))) == 0


def test_identity_for_symbolic_length():
    a, b, c, p, q, s, n = sp.symbols("a b c p q s n")
    (NY, DY), (NZ, DZ), (NW, DW) = witness_sums(a, b, c, p, q, s, length=n)
    assert sp.simplify((n - 1) * NW - NY - (n - 2) * NZ) == 0
    assert sp.simplify((n - 1) * DW - DY - (n - 2) * DZ) == 0


def test_the_three_bounds_combine_to_the_factor():
    # ε D_W − N_W  +  (N_Y + ε D_Y)/(n−1)  +  (n−2)(N_Z − (d−ε) D_Z)/(n−1)
    #   = (2ε D_Y − (n−2)(d−2ε) D_Z) / (n−1): each bracket is positive when all three are correct.
    a, b, c, p, q, s, n, d, e = sp.symbols("a b c p q s n d epsilon")
    (NY, DY), (NZ, DZ), (NW, DW) = witness_sums(a, b, c, p, q, s, length=n)
    lhs = (e * DW - NW) + (NY + e * DY) / (n - 1) + (n - 2) * (NZ - (d - e) * DZ) / (n - 1)
    rhs = (2 * e * DY - (n - 2) * (d - 2 * e) * DZ) / (n - 1)
    assert sp.simplify(lhs - rhs) == 0


def test_factor_values():
    assert [domination_factor(d) for d in range(1, 7)] == [0, 1, 2, 3, 4, 5]
    assert domination_factor(3, length=4, error=Fraction(1, 4)) == 10


def test_factor_refuses_floats_and_bad_arguments():
    with pytest.raises(TypeError, match="exact"):
        domination_factor(3, error=0.5)
    with pytest.raises(ValueError):
        domination_factor(0)
    with pytest.raises(ValueError):
        domination_factor(3, length=2)


nonneg = st.fractions(min_value=0, max_value=50, max_denominator=50)
value = st.fractions(min_value=-20, max_value=20, max_denominator=50)


@given(a=nonneg, b=nonneg, c=nonneg, p=value, q=value, s=value,
       gap=st.integers(1, 8), n=st.integers(3, 6), eps=st.sampled_from([Fraction(1, 2), Fraction(1, 4), Fraction(1, 3)]))
def test_correct_witnesses_force_the_kernel_preference(a, b, c, p, q, s, gap, n, eps):
    mu = domination_factor(gap, n, eps)
    assume(mu >= 1)
    if witnesses_correct(a, b, c, p, q, s, gap, n, eps):
        assert b > mu * c


@given(c=st.fractions(min_value=Fraction(1, 100), max_value=10, max_denominator=100),
       a=st.fractions(min_value=0, max_value=10, max_denominator=100),
       gap=st.integers(2, 8), n=st.integers(3, 6), k=st.integers(1, 1000))
def test_correct_heads_near_the_boundary_exist(c, a, gap, n, k):
    """The search space of the property above is not empty: near b = μc there are correct heads."""
    eps = Fraction(1, 2)
    mu = domination_factor(gap, n, eps)
    assume(mu >= 1)
    b = mu * c * (1 + Fraction(1, k))
    # a = 0 makes the bound tight: q → −ε, s → d − ε, with slack η.
    eta = min(Fraction(1, 100), eps * (b - mu * c) / (4 * (b + (n - 2) * c) + 1))
    assert witnesses_correct(0, b, c, 0, -eps + eta, gap - eps + eta, gap, n, eps)


def test_a_head_at_the_factor_is_caught():
    # b = μ c exactly: no readout makes all three witnesses correct (spot check on a grid).
    gap, n, eps = 3, 3, Fraction(1, 2)
    b, c = Fraction(2), Fraction(1)
    grid = [Fraction(k, 8) for k in range(-40, 41)]
    assert not any(witnesses_correct(0, b, c, 0, q, s, gap, n, eps) for q in grid for s in grid)
