"""Commands that write into a folder (--out DIR) never write over one of their inputs, and draw a --plot into the
folder they create (issue 42, points 3 and 7; certify/cli/common.py, ``writes_into``)."""
import json
import os
import shutil

import pytest

from conftest import ROOT, run_cli_here

M8 = ROOT / "docs" / "results" / "m8.cert.json"


@pytest.fixture(autouse=True)
def _quiet(monkeypatch):
    monkeypatch.setenv("CERTIFY_PROGRESS", "0")


def test_bracket_refuses_an_out_folder_that_holds_its_input_under_an_output_name(tmp_path):
    """Issue 42's reproducer: the certificate copied to run/bracket.json, then `bracket run/bracket.json --out run`
    replaced it with the bracket summary (exit 0) and printed a "check it" command naming the destroyed file."""
    run = tmp_path / "run"
    run.mkdir()
    cert = run / "bracket.json"
    shutil.copy(M8, cert)
    before = cert.read_bytes()
    code, out, err = _run("bracket", str(cert), "--method", "boxes", "--iterations", "50",
                                    "--out", str(run))
    assert code == 2 and out == "" and len(err.strip().splitlines()) == 1, err
    assert f"would write {run}/bracket.json, the input file given as FAMILY" in err
    assert cert.read_bytes() == before and sorted(os.listdir(run)) == ["bracket.json"]


@pytest.mark.parametrize("name", ["rank9.table.json", "rank200.table.npz"])
def test_bracket_refuses_an_input_named_like_its_table_or_linked_from_elsewhere(tmp_path, name):
    """The table's name depends on the rank found, so every rank<r>.table.* in the folder is an output; an input
    outside the folder that is a link to one of them would be replaced too."""
    run = tmp_path / "run"
    run.mkdir()
    shutil.copy(M8, run / name)
    link = tmp_path / "family.json"
    link.symlink_to(run / name)
    for given in (run / name, link):
        code, _, err = _run("bracket", str(given), "--out", str(run))
        assert code == 2 and f"would write {run}/{name}" in err, err


def test_an_input_outside_the_folder_or_under_another_name_is_fine(tmp_path):
    """The rule refuses only real clashes (unit level: the same check the commands run before any work)."""
    from certify.cli.common import _written_into

    run = tmp_path / "run"
    (run / "sub").mkdir(parents=True)
    patterns = ("bracket.json", "rank*.table.json", "*/draw*/split.json")
    assert _written_into(str(run), str(tmp_path / "bracket.json"), patterns) is None
    assert _written_into(str(run), str(run / "family.json"), patterns) is None
    assert _written_into(str(run), str(run / "sub" / "bracket.json"), patterns) is None
    assert _written_into(str(run), str(run / "sub" / "draw0" / "split.json"), patterns) == f"{run}/sub/draw0/split.json"
    assert _written_into(str(run) + "/", str(run / "rank7.table.json"), patterns) is not None


def test_train_refuses_a_family_that_is_one_of_its_tables(tmp_path):
    out = tmp_path / "trained"
    out.mkdir()
    fam = out / "rank4_seed0.npz"
    shutil.copy(ROOT / "tests" / "certificates" / "valid" / "small_paper.json", fam)
    code, _, err = _run("train", "--family", str(fam), "--ranks", "4", "--seeds", "0",
                                  "--out", str(out))
    assert code == 2 and f"would write {fam}, the input file given as --family" in err, err


def test_a_plot_in_the_folder_the_command_creates_is_accepted(tmp_path):
    """Issue 42's reproducer: `minrank --m 4 --out W/new --plot W/new/plot.png` was refused because W/new did not
    exist yet; the command creates it before it draws."""
    pytest.importorskip("matplotlib")
    new = tmp_path / "new"
    code, out, err = _run("minrank", "--m", "4", "--out", str(new), "--plot", str(new / "plot.png"),
                                    "--json")
    assert code == 0, err
    assert (new / "plot.png").read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    assert str(new / "plot.png") in json.loads(out)["written"]
    code, _, err = _run("minrank", "--m", "4", "--out", str(tmp_path / "other"), "--plot",
                                  str(tmp_path / "missing" / "plot.png"))
    assert code == 2 and "does not exist" in err  # a folder nothing creates is still refused before the search


def test_check_plot_path_accepts_only_the_folder_being_created(tmp_path):
    pytest.importorskip("matplotlib")
    from certify.bounds.plot import PlotUnavailable, check_plot_path

    check_plot_path(str(tmp_path / "new" / "p.png"), creates=str(tmp_path / "new"))
    with pytest.raises(PlotUnavailable, match="does not exist"):
        check_plot_path(str(tmp_path / "new" / "deeper" / "p.png"), creates=str(tmp_path / "new"))
    with pytest.raises(PlotUnavailable, match="does not exist"):
        check_plot_path(str(tmp_path / "new" / "p.png"))


def _run(*args: str) -> tuple[int, str, str]:
    """``certify ARGS`` in this process (conftest.run_cli_here): ``(exit code, stdout, stderr)``."""
    proc = run_cli_here(*args)
    return proc.returncode, proc.stdout, proc.stderr
