"""The rank-nine witness families (§6.1; docs/math.md §6) and their counts."""
import pytest

from codes import greedy_code, rank_nine_code
from witnesses import WitnessError, build_family, paper_levels, rank_nine_family


@pytest.mark.parametrize("plan", ["paper", "direct"])
def test_family_is_deduplicated_and_consistent(plan):
    fam = rank_nine_family(plan)
    assert len(set(fam.inputs)) == len(fam.inputs)
    assert len(set(fam.jumps)) == len(fam.jumps)
    assert {(c.source, c.target) for c in fam.chains} == {(i, j) for i in range(15) for j in range(15) if i != j}
    for jump, wit in zip(fam.jumps, fam.witnesses):
        assert tuple(fam.inputs[i] for i in wit) == jump.witnesses(3)
    used = {i for w in fam.witnesses for i in w}
    assert used == set(range(len(fam.inputs)))


def test_paper_plan_counts_follow_from_the_distances():
    code = rank_nine_code()
    fam = rank_nine_family("paper")
    expected_jumps = sum(len(paper_levels(d)) - 1 for d, c in code.distance_counts.items() for _ in range(c))
    assert len(fam.jumps) == expected_jumps == 420
    # Per ordered pair: Y=(x,y3,y3), W1=(x,S^c,y3), Z2=(x,U^c,U^c), W2=(x,y3,U^c) are new;
    # (x,S^c,S^c) is shared by the 14 chains of one query: 4·210 + 15 = 855 distinct inputs.
    assert len(fam.inputs) == 4 * 210 + 15 == 855


def test_direct_plan_counts():
    fam = rank_nine_family("direct")
    assert len(fam.jumps) == 210 and len(fam.inputs) == 2 * 210 + 15


def test_lengths_above_three():
    fam = build_family(greedy_code(12, 6, 3, cap=4), "paper", length=5)
    assert all(x.length == 5 for x in fam.inputs)


def test_unbridgeable_pairs_are_refused():
    with pytest.raises(WitnessError, match="at least 3"):
        build_family(greedy_code(8, 4, 2), "paper")
    with pytest.raises(WitnessError, match="at least two words"):
        build_family(greedy_code(8, 4, 2, cap=1), "paper")
