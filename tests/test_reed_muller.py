"""Reed–Muller codes and their shortened constant-weight codes (codes/reed_muller.py)."""
from collections import Counter

import pytest

from codes import CodeError
from codes.reed_muller import reed_muller, shortened_words, weight_distribution


@pytest.mark.parametrize("r,k,dim,dmin", [(1, 3, 4, 4), (1, 4, 5, 8), (2, 4, 11, 4), (1, 5, 6, 16), (2, 5, 16, 8)])
def test_dimension_and_minimum_distance(r, k, dim, dmin):
    words = reed_muller(r, k)
    assert len(words) == 2**dim == len(set(words))
    assert min(w.bit_count() for w in words if w) == dmin  # linear: minimum distance = minimum weight
    s = set(words)
    assert all((a ^ b) in s for a in words[:50] for b in words[:50])


def test_rm25_weight_enumerator_is_the_published_one():
    # RM(2,5): A_8 = 620, A_12 = 13,888, A_16 = 36,518 (MacWilliams–Sloane, Ch. 15).
    assert weight_distribution(reed_muller(2, 5)) == Counter({0: 1, 8: 620, 12: 13888, 16: 36518, 20: 13888, 24: 620, 32: 1})


@pytest.mark.parametrize("length", [20, 24, 26, 28])
def test_shortening_keeps_weight_and_distances(length):
    code = shortened_words(2, 5, 12, length)
    s = 32 - length
    full = [w for w in reed_muller(2, 5) if w.bit_count() == 12 and not w & ((1 << s) - 1)]
    assert code.words == tuple(w >> s for w in full)
    assert code.weight == 12 and code.length == length
    assert code.min_distance >= 4  # Hamming distance ≥ 8 between equal-weight words


def test_bad_parameters_are_refused():
    with pytest.raises(CodeError, match="0 ≤ r ≤ k ≤ 6"):
        reed_muller(2, 7)
    with pytest.raises(CodeError, match="length must be in"):
        shortened_words(2, 5, 12, 40)
    with pytest.raises(CodeError, match="has 0 word"):
        shortened_words(2, 5, 12, 12)
