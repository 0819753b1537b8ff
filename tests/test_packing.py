"""Middle-layer packing counts (A.2 "Packing", A.3; docs/math.md §7) against enumeration."""
from math import comb

import pytest
from hypothesis import given
from hypothesis import strategies as st

from codes import CodeError, MiddleLayer, colex_words, greedy_code, gv_count, middle_ball


@pytest.mark.parametrize("M", [2, 4, 6, 8, 10, 12])
def test_ball_counts_middle_layer_words_within_distance(M):
    h = M // 2
    fixed = (1 << h) - 1
    dists = [(x & ~fixed).bit_count() for x in colex_words(M, h)]
    for g in range(1, h + 3):
        assert middle_ball(M, g) == sum(1 for d in dists if d < g)


@given(st.integers(1, 40).map(lambda k: 2 * k), st.integers(1, 45))
def test_incremental_layer_matches_direct_sums(M, g):
    layer = MiddleLayer(M)
    assert layer.ball(g) == middle_ball(M, g) == sum(comb(M // 2, a) ** 2 for a in range(min(g, M // 2 + 1)))
    assert layer.code_size(g) == gv_count(M, g)


@pytest.mark.parametrize("M,delta", [(6, 2), (8, 2), (8, 3), (10, 2), (10, 3), (12, 3), (12, 4)])
def test_maximal_codes_reach_the_gilbert_varshamov_count(M, delta):
    assert greedy_code(M, M // 2, delta).size >= gv_count(M, delta)


def test_refusals():
    with pytest.raises(CodeError):
        middle_ball(7, 2)
    with pytest.raises(CodeError):
        middle_ball(8, 0)
