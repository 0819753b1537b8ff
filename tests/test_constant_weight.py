"""Constant-weight codes: the greedy builder, the verifier, the validated code object."""
from itertools import combinations
from math import comb

import pytest
from hypothesis import given
from hypothesis import strategies as st

from codes import CodeError, ConstantWeightCode, colex_words, greedy_code, indicator, verify_code

params = st.integers(2, 10).flatmap(
    lambda m: st.tuples(st.just(m), st.integers(1, m - 1)).flatmap(
        lambda mw: st.tuples(st.just(mw[0]), st.just(mw[1]), st.integers(1, min(mw[1], mw[0] - mw[1])))
    )
)


@given(params)
def test_codewords_have_weight_w_and_distance_at_least_delta(p):
    m, w, delta = p
    code = greedy_code(m, w, delta)
    assert all(x.bit_count() == w and x >> m == 0 for x in code)
    verify_code(code.words, m, w, delta)  # raises if some pair is too close


@given(params)
def test_uncapped_greedy_code_is_maximal(p):
    m, w, delta = p
    code = greedy_code(m, w, delta)
    for x in colex_words(m, w):
        if x not in code.words:
            assert any((x & ~u).bit_count() < delta for u in code.words)


@given(params)
def test_greedy_code_meets_the_gilbert_varshamov_count(p):
    # docs/math.md §7 "Packing": a maximal code has at least C(m,w)/V words, V = #words within distance < Δ.
    m, w, delta = p
    code = greedy_code(m, w, delta)
    ball = sum(comb(w, a) * comb(m - w, a) for a in range(delta))
    assert code.size * ball >= comb(m, w)


def test_colex_words_lists_every_subset_once_in_increasing_order():
    got = list(colex_words(7, 3))
    assert got == sorted(indicator(c) for c in combinations(range(7), 3))


def test_cap_stops_early_and_is_a_prefix():
    full = greedy_code(12, 6, 3)
    capped = greedy_code(12, 6, 3, cap=4)
    assert capped.words == full.words[:4]


def test_small_greedy_values():
    # 14 = the weight-4 words of the extended Hamming code, A(8, 4, 4) = 14.
    assert greedy_code(8, 4, 2).size == 14
    assert greedy_code(24, 12, 6, cap=15).size == 15


def test_verifier_names_the_offending_pair():
    with pytest.raises(CodeError, match=r"words 0 .* and 2 .* directed distance 1, below the required 2"):
        verify_code([0b000111, 0b111000, 0b001011], 6, 3, 2)


def test_code_object_names_bad_word():
    with pytest.raises(CodeError, match="word 1 .* has weight 1, expected 2"):
        ConstantWeightCode(4, 2, (0b0011, 0b0001))
    with pytest.raises(CodeError, match="words 0 and 1 are equal"):
        ConstantWeightCode(4, 2, (0b0011, 0b0011))
    with pytest.raises(CodeError, match="not a token of length 4"):
        ConstantWeightCode(4, 2, (0b110000,))


@pytest.mark.parametrize("args", [(0, 1, 1), (4, 5, 1), (4, 2, 0), (4.0, 2, 1)])
def test_builder_refuses_bad_parameters(args):
    with pytest.raises(CodeError):
        greedy_code(*args)


def test_code_is_immutable_and_round_trips_through_bits():
    code = greedy_code(10, 5, 2, cap=5)
    with pytest.raises(AttributeError):
        code.words = ()
    again = ConstantWeightCode.from_bits(code.to_bits())
    assert again.words == code.words and again.weight == 5
