"""Dense softmax at τ = log(2n) (A.1; docs/math.md §8): error < 1/2 at every length ≤ n, kernel rank 2^m."""
from fractions import Fraction

import pytest
from hypothesis import given
from hypothesis import strategies as st

from certify.constructions import Softmax
from certify.constructions.exhaustive import domain_kernel_rank, run


@pytest.mark.parametrize("m,n", [(1, 6), (2, 4), (3, 3), (4, 3), (3, 4)])
def test_error_below_one_half_at_every_length_up_to_n(m, n):
    r = run(Softmax(m, n), {}, progress=False)
    assert r.solves and r.max_error < Fraction(1, 2)
    assert r.inputs_checked == sum(L * 2 ** (m * L) for L in range(1, n + 1))


@given(m=st.integers(1, 6), n=st.integers(1, 6), data=st.data())
def test_prediction_never_below_the_target(m, n, data):
    """0 ≤ t̂ − t (A.1): every weight is positive and every overlap is ≥ t."""
    toks = tuple(data.draw(st.lists(st.integers(0, (1 << m) - 1), min_size=1, max_size=n)))
    i = data.draw(st.integers(0, len(toks) - 1))
    t = min((toks[i] & z).bit_count() for z in toks)
    assert Fraction(0) <= Softmax(m, n).predict(toks, i) - t < Fraction(1, 2)


def test_a_colder_kernel_is_not_enough():
    """At τ = log 2 (the kernel of n = 1 used at length 3) the error reaches 1/2: the temperature matters."""
    c = Softmax(3, 1)
    c.lengths = (1, 2, 3)
    r = run(c, {}, progress=False)
    assert not r.solves


@pytest.mark.parametrize("m", [1, 2, 3, 5])
def test_boolean_domain_kernel_has_rank_two_to_the_m(m):
    rank, notes = domain_kernel_rank(Softmax(m, 3))
    assert rank == 2**m
    assert any("Kronecker" in n or "⊗" in n for n in notes)
    assert Softmax(m, 3).kronecker_check()
