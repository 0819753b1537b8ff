"""The outputs of the commands and functions issue 43 moved are byte-identical to the record made before the moves.

``tests/golden/MOVES.json`` was written by ``python tests/golden/moves.py --write`` on the code
before the PyTorch glue, training, the exact LP, the trusted checkers and the split modules
moved (docs/architecture.md); every exact case must reproduce it (exit code and output hash).
The cases that train floats are compared by ``python tests/golden/moves.py --torch`` on the
machine that recorded them (their bits depend on the CPU), not here.
"""
import json
import sys

import pytest

from conftest import ROOT

sys.path.insert(0, str(ROOT / "tests" / "golden"))
import moves  # noqa: E402

GOLDEN = json.loads(moves.EXACT.read_text())


def test_the_record_covers_exactly_the_cases():
    assert sorted(moves.exact_cases()) == sorted(GOLDEN)


@pytest.mark.parametrize("name", sorted(GOLDEN))
def test_the_output_is_as_recorded(name, monkeypatch):
    monkeypatch.setenv("CERTIFY_PROGRESS", "0")
    assert moves.exact_cases()[name]() == GOLDEN[name]
