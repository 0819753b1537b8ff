"""The certified results rows as lower bounds of r*(m, 3): ``certify.minrank.results_rows``.

``best_row`` picks, of the committed ``docs/results/m{M}.cert.json`` with the two largest ``M ≤ m``,
the one claiming more (Corollary 11.3), ``recheck`` verifies it with ``certify.check`` and refuses a file that no
longer verifies or bounds something else, ``find_rows_dir`` finds the folder. Only the cheap
rows (``M ≤ 12``, milliseconds) are checked here; ``M = 48`` takes about a minute.
"""
from __future__ import annotations

import json
import shutil

import pytest

from certify.check import content_hash
from certify.minrank import results_rows as R

from conftest import ROOT

RESULTS = ROOT / "docs" / "results"


def test_best_row_is_the_row_of_m_or_m_minus_1_that_claims_more_and_none_below_8():
    for m in range(8, 50):
        row = R.best_row(m, RESULTS)
        mine = [M for M in (m, m - 1) if (RESULTS / f"m{M}.cert.json").is_file()]
        best = max(mine, key=lambda M: (R.claimed_bound(RESULTS / f"m{M}.cert.json"), M))
        assert row is not None and row.M == best and row.path == RESULTS / f"m{best}.cert.json", m
        assert row.claimed == R.claimed_bound(row.path) == max(R.claimed_bound(RESULTS / f"m{M}.cert.json") for M in mine)
    assert R.best_row(60, RESULTS).M == 48  # beyond the table: the last row (monotonicity)
    assert R.best_row(9, RESULTS).M == 8 and R.best_row(27, RESULTS).M == 27  # no row at 9; an odd row from 27 on
    for m in range(1, 8):
        assert R.best_row(m, RESULTS) is None
    assert R.best_row(48, None) is None


def test_the_committed_rows_grow_with_M_so_the_largest_M_is_the_best():
    table = R.rows(RESULTS)
    assert [r.M for r in table] == sorted(set(range(8, 49, 2)) | set(range(27, 48, 2)))
    assert all(a.claimed <= b.claimed for a, b in zip(table, table[1:])), [(r.M, r.claimed) for r in table]


@pytest.mark.parametrize("M,bound", [(8, 2), (10, 4), (12, 7)])
def test_recheck_of_the_small_rows_gives_the_table_s_bound(M, bound, monkeypatch):
    monkeypatch.setenv("CERTIFY_PROGRESS", "0")
    told = []
    row = R.best_row(M, RESULTS)
    assert row.claimed == bound and R.recheck(row, announce=told.append) == bound
    assert len(told) == 1 and told[0] > 0  # the work, announced before the check


def _copy(tmp_path, M: int, name: str | None = None, **claim):
    doc = json.loads((RESULTS / f"m{M}.cert.json").read_text())
    doc["claim"].update(claim)
    doc["sha256"] = content_hash(doc)
    folder = tmp_path / "rows"
    folder.mkdir(exist_ok=True)
    path = folder / (name or f"m{M}.cert.json")
    path.write_text(json.dumps(doc))
    return path


def test_a_tampered_copy_is_refused(tmp_path, monkeypatch):
    monkeypatch.setenv("CERTIFY_PROGRESS", "0")
    raised = _copy(tmp_path, 10, rank_at_least=5)  # the claim raised, the hash made to match
    row = R.best_row(10, raised.parent)
    assert row.claimed == 5  # what the file claims: not a check
    with pytest.raises(R.RowNotVerified, match=r"m10\.cert\.json: does not verify \(rejected: claim: rank_at_least 5"):
        R.recheck(row)
    doc = json.loads(raised.read_text())  # the hash left as it was: refused too
    doc["sha256"] = json.loads((RESULTS / "m10.cert.json").read_text())["sha256"]
    raised.write_text(json.dumps(doc))
    with pytest.raises(R.RowNotVerified, match="rejected: integrity"):
        R.recheck(row)


def test_a_row_under_another_name_or_for_other_inputs_is_refused(tmp_path, monkeypatch):
    monkeypatch.setenv("CERTIFY_PROGRESS", "0")
    renamed = tmp_path / "rows" / "m9.cert.json"  # valid, but a bound at M = 8 filed as M = 9
    renamed.parent.mkdir()
    shutil.copy(RESULTS / "m8.cert.json", renamed)
    with pytest.raises(R.RowNotVerified, match=r"verifies, but is no bound on r\*\(9, 3\): its claim is for m = 8"):
        R.recheck(R.best_row(9, renamed.parent))


def test_find_rows_dir(tmp_path, monkeypatch):
    with pytest.raises(ValueError, match="no such folder"):
        R.find_rows_dir(tmp_path / "missing")
    (tmp_path / "empty").mkdir()
    with pytest.raises(ValueError, match="holds no results rows"):
        R.find_rows_dir(tmp_path / "empty")
    assert R.find_rows_dir(RESULTS) == RESULTS
    here = tmp_path / "work" / "docs" / "results"
    here.mkdir(parents=True)
    shutil.copy(RESULTS / "m8.cert.json", here)
    monkeypatch.chdir(tmp_path / "work")  # docs/results under the current directory
    assert R.find_rows_dir() == here and R.best_row(48, R.find_rows_dir()).M == 8
    monkeypatch.chdir(tmp_path / "empty")  # none here: beside the package (this checkout)
    assert R.find_rows_dir() == RESULTS


def test_claimed_bound_reads_without_checking_and_refuses_what_it_cannot_read(tmp_path):
    assert R.claimed_bound(RESULTS / "m48.cert.json") == 804  # a 470 KB file: read, not checked
    bad = tmp_path / "m8.cert.json"
    bad.write_text("{")
    with pytest.raises(ValueError, match="cannot be read"):
        R.claimed_bound(bad)
