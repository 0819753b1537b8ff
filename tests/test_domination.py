"""Weight domination (A.2; docs/math.md §3): the inequality and its sharpness (identities: test_identities.py)."""
from fractions import Fraction

import pytest
from hypothesis import assume, given
from hypothesis import strategies as st

from certify.lemmas.domination import domination_factor, witnesses_correct


# The symbolic identities (values cancel, the three bounds combine to μ) are checked by
# certify.lemmas.identities, which ``certify identities`` runs: tests/test_identities.py.


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
