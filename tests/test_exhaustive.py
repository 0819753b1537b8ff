"""The exhaustive engine (docs/math.md §8): counts, refusals, exact maxima, and the fast path against the definition."""
from fractions import Fraction

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from certify.constructions import Polynomial, RankOne, Relu, Softmax
from certify.constructions import exhaustive as E


def test_count_is_the_number_of_sequences_and_positions():
    assert int(E.count_inputs(3, (1, 2, 3), lambda n: range(n))) == 3 * 8**3 + 2 * 8**2 + 8
    assert str(E.count_inputs(2, (3,), lambda n: (2,))) == "4³ = 64"


def test_every_input_is_enumerated_once():
    r = E.run(RankOne(2, 3), {}, progress=False)
    assert r.inputs_checked == 3 * 4**3 + 2 * 4**2 + 4


def test_runs_over_the_limit_are_refused_with_their_count():
    with pytest.raises(E.ConstructionInputError, match=r"needs 3·4,096³ \+ 2·4,096² \+ 4,096 = 206,191,988,736 inputs"):
        E.run(Softmax(12, 3), {}, progress=False)


def test_block_max_is_exact_and_finds_the_first_maximizer():
    err = np.array([1, 2, 0, 4, 2], dtype=np.int64)
    den = np.array([3, 5, 7, 10, 5], dtype=np.int64)
    assert E._block_max(err, den) == (Fraction(2, 5), 1)
    # 1/3 vs 333333333/1000000000: a float comparison would see them close; the answer is exact
    err = np.array([333333333, 1], dtype=np.int64)
    den = np.array([1000000000, 3], dtype=np.int64)
    assert E._block_max(err, den) == (Fraction(1, 3), 1)
    assert E._block_max(np.zeros(3, dtype=np.int64), np.ones(3, dtype=np.int64)) == (Fraction(0), 0)


def test_popcount_matches_python():
    a = np.arange(0, 5000, 7, dtype=np.int64)
    assert E.popcount(a).tolist() == [int(x).bit_count() for x in a]


CONSTRUCTIONS = [RankOne(3, 3), Softmax(3, 3), Softmax(2, 5), Polynomial(3, 2), Polynomial(2, 3, length=5), Relu(3)]


@pytest.mark.parametrize("c", CONSTRUCTIONS, ids=lambda c: f"{c.name}-{c.lengths}")
@given(data=st.data())
def test_fast_path_equals_the_definition(c, data):
    """batch() is the construction's prediction, computed from the head output by predict()."""
    n = data.draw(st.sampled_from(c.lengths))
    toks = tuple(data.draw(st.lists(st.integers(0, (1 << c.m) - 1), min_size=n, max_size=n)))
    i = data.draw(st.sampled_from(list(c.positions(n))))
    arr = np.array([toks], dtype=np.int64)
    ov = E.popcount(arr[:, i:i + 1] & arr)
    num, den = c.batch(arr, ov, i)
    assert Fraction(int(num[0]), int(den[0])) == c.predict(toks, i)


@pytest.mark.parametrize("c", CONSTRUCTIONS, ids=lambda c: f"{c.name}-{c.lengths}")
def test_integers_stay_below_the_stated_bound(c):
    """int_bound() is what run() relies on for int64 exactness: check it over every input."""
    m, mask = c.m, (1 << c.m) - 1
    for n in c.lengths:
        idx = np.arange(1 << (m * n), dtype=np.int64)
        toks = np.stack([(idx >> (m * j)) & mask for j in range(n)], axis=1)
        for i in c.positions(n):
            ov = E.popcount(toks[:, i:i + 1] & toks)
            num, den = c.batch(toks, ov, i)
            assert int(np.abs(num).max()) <= c.int_bound() and int((c.m * den).max()) <= c.int_bound()


def test_worst_input_is_recomputed_from_the_definition():
    r = E.run(RankOne(3, 3), {}, progress=False)
    w = r.worst
    toks = tuple(int(s[::-1], 2) for s in w["tokens"])
    assert RankOne(3, 3).predict(toks, w["query"]) == Fraction(w["prediction"])
    assert abs(Fraction(w["prediction"]) - w["target"]) == r.max_error


def test_a_lying_fast_path_is_an_internal_contradiction():
    class Liar(RankOne):
        def batch(self, tokens, ov, query):
            num, den = super().batch(tokens, ov, query)
            return num + 1, den

    with pytest.raises(E.ConstructionError, match="literal prediction"):
        E.run(Liar(2, 2), {}, progress=False)


def test_domain_rank_refuses_large_m():
    with pytest.raises(E.ConstructionInputError, match="m ≤ 10"):
        E.domain_kernel_rank(Softmax(11, 3))
