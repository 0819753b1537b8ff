"""Paley Hadamard matrices and the fixed rank-nine code (docs/math.md §6)."""
import pytest

from codes import CodeError, directed_distance, hadamard_code, paley_hadamard, rank_nine_code


@pytest.mark.parametrize("q", [3, 7, 11, 19, 23, 31, 43, 47])
def test_paley_matrix_is_hadamard_and_normalized(q):
    h = paley_hadamard(q)
    n = q + 1
    assert all(v in (1, -1) for row in h for v in row)
    assert all(h[0][j] == 1 and h[j][0] == 1 for j in range(n))
    for i in range(n):
        for k in range(n):
            assert sum(a * b for a, b in zip(h[i], h[k])) == (n if i == k else 0)


@pytest.mark.parametrize("order", [12, 20, 24, 32])
def test_hadamard_code_distances(order):
    code = hadamard_code(order)
    assert code.size == 2 * (order - 1) and code.weight == order // 2
    half = order - 1
    for i, a in enumerate(code.words):
        for j, b in enumerate(code.words):
            if i != j:
                expected = order // 2 if abs(i - j) == half else order // 4
                assert directed_distance(a, b) == expected


def test_rank_nine_code_parameters():
    code = rank_nine_code()
    assert (code.size, code.length, code.weight) == (15, 24, 12)
    assert dict(code.distance_counts) == {6: 210}
    assert code.words == hadamard_code(24).words[:15]


@pytest.mark.parametrize("q", [5, 9, 13, 15, 2])
def test_paley_refuses_bad_q(q):
    with pytest.raises(CodeError, match="prime q ≡ 3"):
        paley_hadamard(q)
