"""The kernel-table corpus: every file that ever broke ``check-kernel`` gets its verdict (issue 7).

``tests/tables/MANIFEST.json`` is written by ``tests/tables/make_tables.py`` from
hand-written expectations next to each attack; here every entry runs through the same
code as ``certify check-kernel`` (in-process for speed, and through the CLI for the
exit code and the one-line message).
"""
import json
import time
from fractions import Fraction

import pytest

from certify.kernels.audit import run_check

from conftest import ROOT, assert_one_line_error, run_cli_here

TABLES = ROOT / "tests" / "tables"
MANIFEST = json.loads((TABLES / "MANIFEST.json").read_text())
FILES = sorted(str(p.relative_to(TABLES)) for d in ("valid", "malformed") for p in (TABLES / d).iterdir())


def test_manifest_lists_exactly_the_files():
    assert sorted(MANIFEST) == FILES


@pytest.mark.parametrize("rel", FILES)
def test_every_table_gets_its_verdict_quickly(rel):
    exp = MANIFEST[rel]
    family = str(TABLES / exp["family"]) if exp["family"] else None
    start = time.process_time()  # CPU seconds, not wall: a loaded machine does not fail it
    code, result = run_check(str(TABLES / rel), family, search_readout=True)
    elapsed = time.process_time() - start
    assert code == exp["exit"], result if isinstance(result, str) else result.text()
    if code == 2:
        assert isinstance(result, str) and "\n" not in result and len(result) < 400
    assert elapsed < 5, f"{rel} took {elapsed:.1f} s of CPU"


@pytest.mark.parametrize("rel", [r for r in FILES if MANIFEST[r]["exit"] == 2][:6])
def test_cli_refuses_malformed_tables_in_one_line(rel):
    exp = MANIFEST[rel]
    args = ["check-kernel", str(TABLES / rel)] + (["--family", str(TABLES / exp["family"])] if exp["family"] else [])
    assert_one_line_error(run_cli_here(*args), 2)


def test_gap_one_family_is_solved_and_its_jump_is_not_checked():
    code, rep = run_check(str(TABLES / "valid" / "gap_one_jump_solved.json"), str(TABLES / "families" / "gap_one.json"))
    assert code == 0 and rep.solves and rep.jumps_checked == 0 and rep.family["jumps_skipped"] == 1
    assert "1 more witnessed, not checked: μ < 1 proves nothing" in "\n".join(rep.text())
    # predictions 0, 8/15, 2/5 for targets 0, 1, 0 (see make_tables.py)
    assert rep.max_error == max(abs(Fraction(8, 15) - 1), Fraction(2, 5))
