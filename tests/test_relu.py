"""Length three, positional values and one ReLU (C.2; docs/math.md §8)."""
import pytest

from certify.constructions import Relu
from certify.constructions.exhaustive import run


@pytest.mark.parametrize("m", [1, 2, 3, 4, 5])
def test_exact_on_every_final_query(m):
    r = run(Relu(m), {}, progress=False)
    assert r.solves and r.max_error == 0 and r.inputs_checked == 2 ** (3 * m)


def test_only_the_final_position_is_covered():
    assert list(Relu(3).positions(3)) == [2]
    # queried at the first position the same head is not Min-IP: (x, z, y) with the query first
    c = Relu(2)
    assert c.predict((0b11, 0b00, 0b11), 2) == 0
