"""Unique minimizer (A.4; docs/math.md §7): the four typed inputs and the effective-kernel factor (d−1)/2."""
from fractions import Fraction

import pytest
from hypothesis import given
from hypothesis import strategies as st

from codes import load_code
from certify.lemmas.unique_minimizer import effective_factor, four_input_sums, four_inputs_correct
from witnesses import Jump, WitnessError, unique_minimizer_family
from witnesses.unique_minimizer import has_unique_minimizer, jump_inputs, key0, key1, query_token


@given(t=st.integers(0, 4), d=st.integers(2, 6), r=st.integers(0, 3), outside=st.integers(0, 6),
       ybits=st.integers(0, 63), zbits=st.integers(0, 63))
def test_four_inputs_have_distinct_tokens_a_unique_minimizer_and_the_stated_targets(t, d, r, outside, ybits, zbits):
    # x = the first t + d + r coordinates; y meets x in the first t, z in the first t + d; both add bits outside x
    inside = t + d + r
    M = inside + outside
    x = (1 << inside) - 1
    extra = lambda bits: (bits & ((1 << outside) - 1)) << inside  # noqa: E731
    y, z = ((1 << t) - 1) | extra(ybits), ((1 << (t + d)) - 1) | extra(zbits)
    Y, Z, M0, M1 = jump_inputs(Jump(x, y, z, M))
    assert [X.target for X in (Y, Z, M0, M1)] == [t, t + d, t, t + 1]
    assert all(has_unique_minimizer(X) and X.length == 3 and X.query == 0 for X in (Y, Z, M0, M1))


def test_typed_overlaps():
    x, w = 0b1011, 0b0011
    assert (query_token(x) & key0(w)).bit_count() == 2
    assert (query_token(x) & key1(w)).bit_count() == 3
    assert (query_token(x) & query_token(x)).bit_count() == 5


def test_gap_one_would_tie():
    with pytest.raises(WitnessError, match="gap d ≥ 2"):
        jump_inputs(Jump(0b111, 0b001, 0b011, 3))


def test_factor_values():
    assert [effective_factor(d) for d in (3, 5, 7)] == [1, 2, 3]


nonneg = st.fractions(min_value=0, max_value=20, max_denominator=30)
value = st.fractions(min_value=-10, max_value=10, max_denominator=30)


@given(kernel=st.tuples(*[nonneg] * 5), readout=st.tuples(*[value] * 5), gap=st.integers(3, 9))
def test_correct_heads_prefer_y_in_the_effective_kernel(kernel, readout, gap):
    a, b0, b1, c0, c1 = kernel
    if four_inputs_correct(kernel, readout, gap):
        assert b0 + 2 * b1 > effective_factor(gap) * (c0 + 2 * c1)


@given(c0=st.fractions(min_value=Fraction(1, 10), max_value=5, max_denominator=20),
       c1=st.fractions(min_value=Fraction(1, 10), max_value=5, max_denominator=20), gap=st.integers(3, 9))
def test_the_property_above_is_not_vacuous(c0, c1, gap):
    """Heads that are correct on all four inputs exist (a = 0, a strong preference for y)."""
    # readout 0 at k₀(y), 1 at k₁(y), d at both z keys; b₀ ≫ b₁ ≫ c: Y, M₀ near 0, M₁ near 1, Z = d
    b1 = 10 * gap * (c0 + c1)
    b0 = 100 * b1
    assert four_inputs_correct((0, b0, b1, c0, c1), (0, 0, 1, gap, gap), gap)


def test_sums_satisfy_the_identity_numerically():
    vals = [Fraction(k, 7) for k in range(1, 11)]
    (NY, DY), (NZ, DZ), (N0, D0), (N1, D1) = four_input_sums(*vals)
    assert N0 + N1 == NY + NZ and D0 + D1 == DY + DZ


def test_family_of_a_code():
    fam = unique_minimizer_family(load_code("greedy:24:7:6"))
    assert len(fam.jumps) == 30 and len(fam.inputs) == 96 and fam.inputs[0].m == 26
    assert all(len(w) == 4 for w in fam.witnesses)
    assert all(has_unique_minimizer(X) for X in fam.inputs)
