"""The extended Golay code and its dodecads (docs/math.md §6; codes/golay.py)."""
from collections import Counter

import pytest

from codes import CodeError, directed_distance, golay_code, golay_dodecads
from codes.golay import GOLAY_WEIGHTS, dodecad_neighbours, golay_generator


def test_golay_code_is_linear_with_the_golay_weight_enumerator():
    words = golay_code()
    assert len(words) == 4096 == len(set(words))
    assert Counter(w.bit_count() for w in words) == Counter(GOLAY_WEIGHTS)
    word_set = set(words)
    sample = words[::37]
    assert all((a ^ b) in word_set for a in sample for b in sample)  # closed under addition
    assert all(w >> 24 == 0 for w in words)


def test_minimum_distance_is_eight():
    words = golay_code()
    # Linear code: the minimum distance is the minimum nonzero weight.
    assert min(w.bit_count() for w in words if w) == 8


def test_generator_is_the_non_residue_idempotent_of_length_23():
    residues = {(a * a) % 23 for a in range(1, 23)}
    g = golay_generator()
    assert {k for k in range(23) if g >> k & 1} == set(range(1, 23)) - residues
    assert g.bit_count() == 11


def test_dodecads_distance_distribution_is_the_same_for_every_word():
    code = golay_dodecads()
    assert (code.size, code.length, code.weight) == (2576, 24, 12)
    words = code.words
    expected = {4: 495, 6: 1584, 8: 495, 12: 1}
    for s in words:
        assert Counter(directed_distance(s, u) for u in words if u != s) == expected
    assert dict(code.distance_counts) == {d: 2576 * c for d, c in expected.items()}
    assert dict(dodecad_neighbours(code)) == expected


def test_dodecads_are_closed_under_complement():
    words = set(golay_dodecads().words)
    full = (1 << 24) - 1
    assert {full ^ w for w in words} == words


def test_a_wrong_generator_is_refused():
    with pytest.raises(CodeError, match="dimension"):
        golay_code(generator=0b1011)
    residues = sum(1 << ((a * a) % 23) for a in range(1, 12))  # the other idempotent: still a 12-dim QR code
    assert len(golay_code(generator=residues)) == 4096
