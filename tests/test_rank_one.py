"""Rank one at lengths one and two (§3, A.2; docs/math.md §8): exact there, and it must fail at length three."""
from fractions import Fraction

import pytest

from certify.constructions import RankOne
from certify.constructions.exhaustive import domain_kernel_rank, run


@pytest.mark.parametrize("m", [1, 2, 3, 4, 5])
def test_exact_at_every_length_up_to_two(m):
    r = run(RankOne(m, 2), {}, progress=False)
    assert r.solves and r.max_error == 0 and r.failing_inputs == 0


@pytest.mark.parametrize("m", [2, 3, 4])
def test_fails_at_length_three_naming_an_input(m):
    r = run(RankOne(m, 3), {}, progress=False)
    assert not r.solves and r.max_error >= Fraction(1, 2)
    w = r.worst
    assert len(w["tokens"]) == 3  # the failure is at length 3, never at 1 or 2
    assert abs(Fraction(w["prediction"]) - w["target"]) == r.max_error


def test_one_bit_tokens_are_the_exception():
    """At m = 1 every overlap is 0 or 1 and the average stays within 1/3 of the minimum."""
    r = run(RankOne(1, 3), {}, progress=False)
    assert r.solves and r.max_error == Fraction(1, 3)


def test_length_three_prediction_averages_instead_of_taking_the_minimum():
    # 2⟨x,a⟩ − ‖x‖₁ = (2/3)(‖x‖₁ + ⟨x,y⟩ + ⟨x,z⟩) − ‖x‖₁, target min(⟨x,y⟩, ⟨x,z⟩)
    c = RankOne(3, 3)
    assert c.predict((0b111, 0b000, 0b000), 0) == -1  # target 0
    assert c.predict((0b011, 0b011, 0b000), 0) == Fraction(2, 3)  # target 0


def test_kernel_rank_is_one():
    assert domain_kernel_rank(RankOne(4, 2))[0] == 1
