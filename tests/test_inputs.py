"""Min-IP inputs and targets (docs/math.md §1)."""
import pytest
from hypothesis import given
from hypothesis import strategies as st

from witnesses import Input, WitnessError

inputs = st.integers(1, 16).flatmap(
    lambda m: st.lists(st.integers(0, 2**m - 1), min_size=1, max_size=6).flatmap(
        lambda toks: st.tuples(st.just(m), st.just(tuple(toks)), st.integers(0, len(toks) - 1))
    )
)


@given(inputs)
def test_target_is_the_minimum_overlap_including_the_query(args):
    m, toks, q = args
    x = Input(toks, q, m)
    overlaps = [sum(1 for k in range(m) if toks[q] >> k & 1 and t >> k & 1) for t in toks]
    assert x.target == min(overlaps)
    assert x.target <= bin(toks[q]).count("1")


@given(inputs)
def test_json_round_trip(args):
    m, toks, q = args
    x = Input(toks, q, m)
    assert Input.from_json(x.to_json(), m) == x


def test_wrong_stated_target_is_refused():
    with pytest.raises(WitnessError, match="stated target 2, actual 1"):
        Input.from_json({"tokens": ["11", "10"], "query": 0, "target": 2}, 2)


@pytest.mark.parametrize("q", [-1, 2, 5])
def test_query_out_of_range(q):
    with pytest.raises(WitnessError, match="out of range"):
        Input((1, 2), q, 4)
