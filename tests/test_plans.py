"""Gap plans, the codewords-first key rule and the families they generate (witnesses/plans.py)."""
import random

import pytest
from hypothesis import given
from hypothesis import strategies as st

from codes import BinaryCode, ConstantWeightCode, complement, greedy_code, hadamard_code, rank_nine_code
from witnesses import WitnessError, build_family
from witnesses.plans import (
    GapPlan,
    build_planned_family,
    direct_gaps,
    first_at_level,
    iter_planned_inputs,
    paper_gaps,
    planned_counts,
    planned_keys,
)


def random_code(m, t, seed, weights=None):
    rng = random.Random(seed)
    words = set()
    while len(words) < t:
        w = rng.choice(weights) if weights else m // 2
        words.add(sum(1 << k for k in rng.sample(range(m), w)))
    return BinaryCode(m, tuple(sorted(words)))


def some_plan(code, rng):
    entries = []
    for d in sorted(set(code.distance_counts) - {0}):
        gaps, left = [], d
        while left:
            g = rng.randint(1, left)
            gaps.append(g)
            left -= g
        entries.append((d, tuple(gaps)))
    return GapPlan("random", tuple(entries))


codes_and_plans = st.tuples(st.integers(6, 14), st.integers(2, 9), st.integers(0, 10**6), st.booleans())


@given(codes_and_plans)
def test_every_key_has_its_level_and_every_chain_joins_the_two_complements(args):
    m, t, seed, mixed = args
    code = random_code(m, t, seed, [m // 2 - 1, m // 2, m // 2 + 1] if mixed else None)
    if 0 in code.distance_counts:
        return  # a word inside another: no chain (tested below)
    rng = random.Random(seed)
    plan = some_plan(code, rng)
    for i, s in enumerate(code.words):
        first = first_at_level(i, code.words)
        for j, u in enumerate(code.words):
            if i == j:
                continue
            levels = plan.levels((s & ~u).bit_count())
            keys = planned_keys(i, j, code.words, m, levels, first)
            assert keys[0] == complement(s, m) and keys[-1] == complement(u, m)
            assert [(s & k).bit_count() for k in keys] == list(levels)
            for level, key in zip(levels[1:-1], keys[1:-1]):
                if level in first:  # codewords first: the first word at that distance
                    assert key == complement(code.words[first[level]], m)


@given(codes_and_plans)
def test_counts_without_building_equal_the_built_family(args):
    m, t, seed, mixed = args
    code = random_code(m, t, seed, [m // 2 - 1, m // 2, m // 2 + 1] if mixed else None)
    if 0 in code.distance_counts:
        with pytest.raises(WitnessError, match="lies inside"):
            planned_counts(code, some_plan(code, random.Random(seed)))
        return
    plan = some_plan(code, random.Random(seed))
    fam = build_planned_family(code, plan, 3)
    assert planned_counts(code, plan) == (len(fam.jumps), len(fam.inputs))
    assert len(set(fam.inputs)) == len(fam.inputs) and len(set(fam.jumps)) == len(fam.jumps)
    assert list(iter_planned_inputs(code, plan, 3)) == list(fam.inputs)
    assert len(fam.chains) == t * (t - 1)
    for jump, wit in zip(fam.jumps, fam.witnesses):
        assert tuple(fam.inputs[i] for i in wit) == jump.witnesses(3)


@pytest.mark.parametrize("plan_name,rule", [("paper", paper_gaps), ("direct", direct_gaps)])
def test_interpolation_only_plans_reproduce_the_rank_nine_family(plan_name, rule):
    # No codeword of the rank-nine code sits at level 3, so every inner key is interpolated:
    # the planned family is exactly build_family's.
    code = rank_nine_code()
    plan = GapPlan.from_rule(plan_name, code.distance_counts, rule)
    a, b = build_planned_family(code, plan), build_family(code, plan_name)
    assert a.jumps == b.jumps and a.inputs == b.inputs and a.witnesses == b.witnesses
    assert [(c.source, c.target, c.jumps) for c in a.chains] == [(c.source, c.target, c.jumps) for c in b.chains]


def test_codeword_keys_make_the_family_smaller():
    # Hadamard 12: rows at distance 3, a row and its complement at 6; the 6 = 3 + 3 chain
    # can go through another row's complement (codewords first) instead of a new key.
    code = hadamard_code(12)
    plan = GapPlan("paper", ((3, (3,)), (6, (3, 3))))
    fam = build_planned_family(code, plan)
    interpolated = build_family(code, "paper")
    assert len(fam.inputs) < len(interpolated.inputs)
    keys = {k for j in fam.jumps for k in (j.y, j.z)}
    assert keys <= {complement(w, 12) for w in code.words}


def test_plan_validation():
    with pytest.raises(WitnessError, match="must be positive and sum to 6"):
        GapPlan("x", ((6, (2, 3)),))
    with pytest.raises(WitnessError, match="repeated"):
        GapPlan("x", ((6, (6,)), (6, (3, 3))))
    with pytest.raises(WitnessError, match="no entry for directed distance 6"):
        GapPlan("x", ((3, (3,)),)).levels(6)
    with pytest.raises(WitnessError, match="at least 3"):
        GapPlan.from_rule("paper", {2}, paper_gaps)


def test_a_word_inside_another_has_no_chain():
    code = BinaryCode(6, (0b000011, 0b000111, 0b111000))
    with pytest.raises(WitnessError, match="lies inside"):
        planned_counts(code, GapPlan("direct", ((1, (1,)), (2, (2,)), (3, (3,)))))


def test_golay_sized_counts_follow_from_the_codeword_keys():
    # Every distance of golay24 is a codeword distance, so all keys are codeword complements:
    # per query t keys and t − 1 jumps (one per pair), hence t(t−1) jumps and t(2t−1) inputs.
    code = greedy_code(12, 6, 2)
    levels = set(code.distance_counts)
    plan = GapPlan("direct", tuple((d, (d,)) for d in sorted(levels)))
    t = code.size
    assert planned_counts(code, plan) == (t * (t - 1), t * t + t * (t - 1))
    assert ConstantWeightCode(12, 6, code.words).size == t
