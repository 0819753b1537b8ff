"""The §6.2/§6.3 sensitivity study (docs/experiments.md, "Which choices move §6.2 and §6.3"): its committed JSON
documents are what their printed commands ask for, the doc's tables and verdicts are what those documents give, and
the study's default cells repeat the committed default runs number for number.

Nothing here trains (no torch needed): the study itself is ``tests/benchmarks/study_experiments.py --run``, and
``--rerun CELL`` reruns one cell and byte-compares its JSON.
"""
import importlib.util
import json
import shlex
import subprocess
import sys

import pytest

from conftest import ROOT

SCRIPT = ROOT / "tests" / "benchmarks" / "study_experiments.py"
_spec = importlib.util.spec_from_file_location("study_experiments", SCRIPT)
study = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(study)
CELLS = study.cells()


def _params(cell):
    """The options the CLI parses from the cell's printed command (click's own parser; nothing runs)."""
    from certify.cli.experiments import apply_preset, capacity_cmd, heads_cmd

    argv = shlex.split(study.printed(cell))
    assert argv[:3] == ["certify", "experiment", cell["kind"]]
    cmd = capacity_cmd if cell["kind"] == "capacity" else heads_cmd
    ctx = cmd.make_context(cell["kind"], argv[3:])
    return apply_preset(ctx, ctx.params["preset"], ctx.params) if ctx.params.get("preset") else ctx.params


@pytest.mark.parametrize("cell", CELLS, ids=[c["name"] for c in CELLS])
def test_each_committed_document_is_what_its_printed_command_asks_for(cell):
    from certify.training import parse_seeds

    doc = json.loads(open(cell["json"], encoding="utf-8").read())
    p, c = _params(cell), doc["config"]
    assert doc["schema"] == f"certify.experiment.{cell['kind']}/1"
    assert (c["lr"], c["steps"], c["feature_map"], c["layout"], c["dense"]) == \
        (p["lr"], p["steps"], p["feature_map"], p["layout"], not p["no_dense"])
    assert c["split"]["train"] == p["n_train"] and c["seeds"] == list(parse_seeds(p["seeds"]))
    if cell["kind"] == "capacity":
        assert c["ranks"] == [int(r) for r in p["ranks"].split(",")]
        assert [f"{s['M']}:{s['q']}" for s in c["settings"]] == p["settings"].split(",")
        assert all(s["m"] == s["M"] + (2 if p["layout"] == "M+2" else 3) for s in c["settings"])
    else:
        assert c["draws"] == [int(d) for d in p["draws"].split(",")]
    # every run of the plan is there, each scored exactly on the whole test set
    assert all(r["exact"]["test"]["total"] == c["split"]["test"] for r in doc["runs"])
    assert doc["environment"]["torch_threads"] == 1


def test_the_doc_section_is_what_the_committed_documents_give():
    proc = subprocess.run([sys.executable, str(SCRIPT), "--check-doc"], capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0, proc.stderr
    assert "matches the committed JSON documents" in proc.stdout


def _by_run(doc):
    return {(r["setting"], r["draw"], r["rank"], r["heads"], r["seed"]):
            (r["exact"]["test"]["correct"], r["exact"]["train"]["correct"], r["selected_step"]) for r in doc["runs"]}


def test_the_default_cells_repeat_the_committed_default_runs_number_for_number():
    """Same options and seeds, fewer ranks or draws, made a day later by newer code: every shared run has the same
    exact test and train counts and the same selected checkpoint (docs/experiments.md, "What is reproducible")."""
    results = ROOT / "docs" / "results" / "experiments"
    pairs = [("capacity.json", [c for c in CELLS if c["name"].endswith("-defaults")]),
             ("heads.json", [c for c in CELLS if c["name"] in ("heads-draw0", "heads-draw1")])]
    shared = 0
    for committed, cells in pairs:
        old = _by_run(json.loads((results / committed).read_text()))
        for cell in cells:
            new = _by_run(json.loads(open(cell["json"], encoding="utf-8").read()))
            for key, value in new.items():
                assert old[key] == value, (cell["name"], key)
                shared += 1
    assert shared >= 2 * 3 * 4 + 2 * 75
