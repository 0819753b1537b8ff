"""The transcript hard family (C.3; docs/math.md §7): every unintended overlap exceeds s."""
from itertools import product

import pytest

from codes import greedy_code
from witnesses import WitnessError, transcript_family
from witnesses.transcript import database_token, query_token, unintended_overlaps


@pytest.mark.parametrize("M,s,q", [(6, 1, 2), (8, 1, 3), (8, 2, 2), (10, 2, 3)])
def test_targets_are_the_assigned_answers(M, s, q):
    code = greedy_code(M, M // 2, s + 1, cap=q)
    fam = transcript_family(code, s, q)
    assert len(fam.inputs) == q * (s + 1) ** q and fam.m == 2 + M + s
    for X, (answers, i) in zip(fam.inputs, ((a, i) for a in product(range(s + 1), repeat=q) for i in range(q))):
        assert X.length == 2 * q and X.query == i and X.target == answers[i]
    assert fam.min_unintended_overlap > s


def test_query_tokens_and_positions_are_fixed_across_assignments():
    fam = transcript_family(greedy_code(8, 4, 2, cap=3), 1)
    assert len({X.tokens[:3] for X in fam.inputs}) == 1


def test_overlap_formulas():
    M, s = 6, 2
    S, U = 0b000111, 0b111000
    assert (query_token(S, M, s) & database_token(S, 2, M, s)).bit_count() == 2
    assert (query_token(S, M, s) & database_token(U, 0, M, s)).bit_count() == 3
    assert all(ov > s for _, _, ov in unintended_overlaps((S, U), M, s))


def test_a_code_without_distance_is_refused():
    with pytest.raises(WitnessError, match="directed distance ≥ s \\+ 1 = 3"):
        transcript_family(greedy_code(8, 4, 2, cap=3), 2)
