"""Jumps, witnesses and chains (A.2, §6.1; docs/math.md §3–§6)."""
import random

import pytest
from hypothesis import given
from hypothesis import strategies as st

from codes import complement, overlap
from witnesses import Jump, WitnessError, direct_levels, interpolating_key, pair_chain, paper_levels


def equal_weight_pair(m, w, seed):
    rng = random.Random(seed)
    s = sum(1 << k for k in rng.sample(range(m), w))
    u = sum(1 << k for k in rng.sample(range(m), w))
    return s, u


pairs = st.integers(2, 30).flatmap(
    lambda m: st.tuples(st.just(m), st.integers(1, m - 1), st.integers(0, 10**6))
)


@given(pairs)
def test_interpolating_keys_have_the_right_overlap_and_weight(args):
    m, w, seed = args
    s, u = equal_weight_pair(m, w, seed)
    d = (s & ~u).bit_count()
    for level in range(d + 1):
        key = interpolating_key(s, u, level, m)
        assert overlap(s, key) == level
        assert key.bit_count() == m - w
    assert interpolating_key(s, u, 0, m) == complement(s, m)
    assert interpolating_key(s, u, d, m) == complement(u, m)


@given(pairs, st.sampled_from(["paper", "direct"]))
def test_chain_runs_from_own_complement_to_other_complement(args, plan):
    m, w, seed = args
    s, u = equal_weight_pair(m, w, seed)
    d = (s & ~u).bit_count()
    levels = {"paper": paper_levels, "direct": direct_levels}[plan]
    if d < (3 if plan == "paper" else 1):
        with pytest.raises(WitnessError):
            pair_chain(s, u, m, levels)
        return
    chain = pair_chain(s, u, m, levels)
    assert chain[0].y == complement(s, m) and chain[-1].z == complement(u, m)
    assert all(j.x == s for j in chain)
    assert all(a.z == b.y for a, b in zip(chain, chain[1:]))
    assert [j.low for j in chain] + [chain[-1].high] == list(levels(d))


@given(st.integers(3, 200))
def test_paper_levels_use_gaps_of_three_to_five(d):
    levels = paper_levels(d)
    gaps = [b - a for a, b in zip(levels, levels[1:])]
    assert len(gaps) == d // 3
    assert all(g == 3 for g in gaps[:-1]) and 3 <= gaps[-1] <= 5


@given(st.integers(0, 2**12 - 1), st.integers(0, 2**12 - 1), st.integers(0, 2**12 - 1), st.integers(3, 6))
def test_witnesses_have_targets_t_u_t(x, y, z, n):
    t, u = overlap(x, y), overlap(x, z)
    if not t < u <= overlap(x, x):
        with pytest.raises(WitnessError, match="not a jump"):
            Jump(x, y, z, 12)
        return
    Y, Z, W = Jump(x, y, z, 12).witnesses(n)
    assert [X.target for X in (Y, Z, W)] == [t, u, t]
    assert all(X.query == 0 and X.length == n for X in (Y, Z, W))
    assert W.tokens == (x, y) + (z,) * (n - 2)


def test_length_three_witnesses_are_the_papers_triples():
    j = Jump(0b1111, 0b0000, 0b0111, 4)
    assert [w.tokens for w in j.witnesses(3)] == [(15, 0, 0), (15, 7, 7), (15, 0, 7)]


def test_witnesses_need_length_three():
    with pytest.raises(WitnessError, match="n ≥ 3"):
        Jump(0b1111, 0b0000, 0b0111, 4).witnesses(2)
