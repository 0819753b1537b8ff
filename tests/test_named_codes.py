"""Codes by name (codes.named)."""
import pytest

from codes import CodeError, code_from_spec, hadamard_code, rank_nine_code


def test_names():
    assert code_from_spec("rank-nine").words == rank_nine_code().words
    assert code_from_spec("hadamard:24").words == hadamard_code(24, with_complements=False).words
    c = code_from_spec("greedy:12:3:5")
    assert c.size == 5 and c.min_distance >= 3 and c.weight == 6


@pytest.mark.parametrize("spec", ["", "hadamard", "hadamard:25", "hadamard:200", "greedy:30:7", "greedy:12:7",
                                  "greedy:12:x", "hadamard:24:0", "hadamard:24:99", "rank-nine:3"])
def test_bad_specs_name_the_problem(spec):
    with pytest.raises(CodeError):
        code_from_spec(spec)
