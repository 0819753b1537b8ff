"""The multihead replacement family at exact length H+2 (B.1; docs/math.md §9)."""
import pytest

from witnesses import WitnessError, multihead_family, replacement_inputs


def test_group_has_two_to_the_L_inputs_with_the_stated_targets():
    x, y = 0b11110000, 0b00001111
    zs = (0b11100001, 0b11010010)
    group = replacement_inputs(x, y, zs, 8)
    assert len(group) == 2 ** 3 and all(X.length == 4 for X in group)
    assert group[0].tokens == (x, zs[0], zs[1], zs[0])
    assert group[0].target == 3 and all(X.target == 0 for X in group[1:])
    for a, X in enumerate(group):  # slot j holds y exactly when bit j of a is set
        assert [X.tokens[1 + j] == y for j in range(3)] == [bool(a >> j & 1) for j in range(3)]


def test_family_covers_every_tuple_of_candidates():
    x, y = 0b1111, 0b0000
    cands = (0b0111, 0b1011, 0b1101)
    fam = multihead_family(x, y, cands, 2, 4)
    assert len(fam.groups) == 9
    assert {keys for keys, _ in fam.groups} == {(a, b) for a in cands for b in cands}
    assert len(set(fam.inputs)) == len(fam.inputs)


def test_keys_must_be_worse_by_the_gap():
    with pytest.raises(WitnessError, match="by ≥ 3"):
        replacement_inputs(0b1111, 0b0000, (0b0011,), 4, min_gap=3)
    with pytest.raises(WitnessError, match="heads"):
        multihead_family(0b1, 0b0, (0b1,), 0, 1)
