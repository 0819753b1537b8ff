"""Chain amplification (A.2; docs/math.md §4)."""
from fractions import Fraction
from functools import reduce

import pytest
from hypothesis import given
from hypothesis import strategies as st

from certify.lemmas.amplification import best_split, chain_factor, levels_from_gaps
from certify.lemmas.domination import domination_factor


def compositions(d):
    if d == 0:
        yield ()
        return
    for g in range(1, d + 1):
        for rest in compositions(d - g):
            yield (g,) + rest


@pytest.mark.parametrize("n,eps", [(3, Fraction(1, 2)), (4, Fraction(1, 2)), (3, Fraction(1, 3))])
@pytest.mark.parametrize("d", range(1, 13))
def test_best_split_beats_every_composition(d, n, eps):
    candidates = []
    for gaps in compositions(d):
        mus = [domination_factor(g, n, eps) for g in gaps]
        if all(m >= 1 for m in mus):
            candidates.append(reduce(lambda x, y: x * y, mus, Fraction(1)))
    if not candidates:
        with pytest.raises(ValueError):
            best_split(d, n, eps)
        return
    factor, gaps = best_split(d, n, eps)
    assert factor == max(candidates)
    assert sum(gaps) == d and chain_factor(domination_factor(g, n, eps) for g in gaps) == factor


def test_math_md_table():
    assert [best_split(d)[0] for d in range(2, 13)] == [1, 2, 3, 4, 5, 6, 9, 12, 16, 20, 27]


@given(st.lists(st.fractions(min_value=1, max_value=100, max_denominator=20), min_size=1, max_size=8))
def test_chain_factor_is_the_product_and_never_below_any_step(fs):
    f = chain_factor(fs)
    assert f == reduce(lambda x, y: x * y, fs, Fraction(1))
    assert all(f >= g for g in fs)


def test_chain_factor_refuses_weak_or_inexact_steps():
    with pytest.raises(ValueError, match="< 1"):
        chain_factor([2, Fraction(1, 2)])
    with pytest.raises(ValueError, match="at least one"):
        chain_factor([])
    with pytest.raises(TypeError):
        chain_factor([2.0])


def test_levels_from_gaps():
    assert levels_from_gaps((3, 3)) == (0, 3, 6)


@pytest.mark.parametrize("n,eps", [(3, Fraction(1, 2)), (5, Fraction(1, 2)), (3, Fraction(1, 3))])
@given(d=st.integers(1, 11), prefer=st.sets(st.integers(1, 10), max_size=5))
def test_best_split_is_the_documented_argmax_tie_breaks_included(n, eps, d, prefer):
    """The DP (on ints when every μ_g is an integer, as at n = 3, ε = 1/2; on Fractions otherwise) returns
    exactly the brute-force argmax of (factor, −jumps, preferred inner levels, gaps lexicographically)."""
    best = None
    for gaps in compositions(d):
        mus = [domination_factor(g, n, eps) for g in gaps]
        if not all(m >= 1 for m in mus):
            continue
        levels = levels_from_gaps(gaps)[1:-1]
        key = (reduce(lambda x, y: x * y, mus, Fraction(1)), -len(gaps), sum(v in prefer for v in levels), gaps)
        best = key if best is None or key > best else best
    if best is None:
        with pytest.raises(ValueError):
            best_split(d, n, eps, prefer=prefer)
        return
    factor, gaps = best_split(d, n, eps, prefer=prefer)
    assert type(factor) is Fraction and (factor, gaps) == (best[0], best[3])
