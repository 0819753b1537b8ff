"""The kernel check's outputs are byte-identical to the golden record (issue 28).

``tests/tables/GOLDEN.json`` was written by ``python tests/tables/golden.py --write``
with the code as it was before ``certify/kernels/audit.py`` was split into stages: for
each of its cases (the table corpus with and without the readout search, the documented
examples, the bracket tables of docs/results listed and streamed, and tables built on
the m = 12 and hadamard:8 families) the exit code and the refusal's reason, or the
SHA-256 of the text report and of the ``--json`` object. A change of any output byte
fails here, naming the case.
"""
import json
import sys

import pytest

from conftest import ROOT

sys.path.insert(0, str(ROOT / "tests" / "tables"))
import golden  # noqa: E402

GOLDEN = json.loads(golden.GOLDEN.read_text())
GROUPS = sorted({name.split(":", 1)[0] for name in GOLDEN})


def test_the_cases_are_the_recorded_ones():
    assert sorted(golden.cases()) == sorted(GOLDEN)


@pytest.mark.parametrize("group", GROUPS)
def test_outputs_are_byte_identical(group):
    names = [n for n in GOLDEN if n.split(":", 1)[0] == group]
    now = golden.compute(set(names))
    for name in sorted(names):
        assert now[name] == GOLDEN[name], name
