"""Tokens as bitmasks (docs/math.md §1): I/O round trips and overlap laws."""
import pytest
from hypothesis import given
from hypothesis import strategies as st

from codes import TokenFormatError, complement, directed_distance, from_bits, indicator, overlap, support, to_bits, weight

bitstrings = st.integers(1, 40).flatmap(lambda m: st.text("01", min_size=m, max_size=m))


@given(bitstrings)
def test_bits_round_trip(s):
    assert to_bits(from_bits(s), len(s)) == s


@given(bitstrings)
def test_character_k_is_coordinate_k(s):
    x = from_bits(s)
    assert [k for k, ch in enumerate(s) if ch == "1"] == list(support(x))
    assert indicator(support(x)) == x


@given(st.integers(0, 2**30), st.integers(0, 2**30))
def test_overlap_is_symmetric_and_bounded_by_weights(x, z):
    assert overlap(x, z) == overlap(z, x) <= min(weight(x), weight(z))
    assert overlap(x, x) == weight(x)


@given(st.integers(1, 30).flatmap(lambda m: st.tuples(st.just(m), st.lists(st.booleans(), min_size=m, max_size=m),
                                                    st.permutations(list(range(m))))))
def test_directed_distance_of_equal_size_sets_is_half_hamming(args):
    m, bits, perm = args
    s = indicator(k for k, b in enumerate(bits) if b)
    u = indicator(perm[k] for k, b in enumerate(bits) if b)  # same size, permuted
    d = directed_distance(s, u)
    assert d == directed_distance(u, s)
    assert 2 * d == (s ^ u).bit_count()


@given(st.integers(1, 30).flatmap(lambda m: st.tuples(st.just(m), st.integers(0, 2**m - 1))))
def test_complement_partitions_the_coordinates(args):
    m, x = args
    c = complement(x, m)
    assert overlap(x, c) == 0 and weight(x) + weight(c) == m


@pytest.mark.parametrize("bad", ["01a", "0 1", "1\n", "２"])
def test_non_binary_characters_are_named(bad):
    with pytest.raises(TokenFormatError, match="character"):
        from_bits(bad)


def test_wrong_length_is_refused():
    with pytest.raises(TokenFormatError, match="length 3, expected 4"):
        from_bits("010", 4)
    with pytest.raises(TokenFormatError):
        to_bits(16, 4)
