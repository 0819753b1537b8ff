"""Rank one with a degree-D readout, exact at length D+1 (B.4; docs/math.md §8), not at D+2."""
import pytest

from certify.constructions import Polynomial
from certify.constructions.exhaustive import run


@pytest.mark.parametrize("m,D", [(1, 1), (4, 1), (3, 2), (4, 2), (2, 3), (2, 4)])
def test_exact_at_length_d_plus_one(m, D):
    r = run(Polynomial(m, D), {}, progress=False)
    assert r.solves and r.max_error == 0 and r.construction.lengths == (D + 1,)


def test_degree_one_is_the_rank_one_threshold():
    """D = 1: exact at length 2, fails at length 3 (§5.1: the two-token/three-token threshold)."""
    assert not run(Polynomial(3, 1, length=3), {}, progress=False).solves


def test_fails_at_length_d_plus_two():
    r = run(Polynomial(4, 2, length=4), {}, progress=False)
    assert not r.solves and len(r.worst["tokens"]) == 4


def test_readout_values_of_J():
    # J(s) = (s−1)(s−2)/2 is 0 at 1, 2 and 1 at 3: the readout counts thresholds met by all three tokens
    c = Polynomial(3, 2)
    assert c.predict((0b111, 0b111, 0b111), 1) == 3
    assert c.predict((0b111, 0b011, 0b001), 0) == 1
