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
    assert c["split"].get("strict", False) is (p["split_mode"] == "strict")  # issue 46: absent on a listed split
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


STRICT = [c for c in CELLS if c["name"].endswith("-strict")]


def test_the_strict_cells_are_the_verdict_cells_on_strict_splits():
    """Issue 46: the cells that carry the verdicts — the preset at the paper's three settings (with the dense
    reference) and §6.3's five draws — each again with --split strict, and nothing else changed but the dense runs."""
    by_name = {c["name"]: c for c in CELLS}
    assert sorted(c["name"] for c in STRICT) == sorted(
        [f"capacity-preset-paper-{k}-strict" for k in study.PRESET_SETTINGS] + [f"heads-draw{d}-strict" for d in study.HEADS_DRAWS])
    for cell in STRICT:
        listed = by_name[cell["name"].removesuffix("-strict")]
        strip = lambda argv: [a for a in argv if a not in ("--split", "strict", "--no-dense") and a != cell["name"]  # noqa: E731
                              and a != listed["name"]]
        assert strip(cell["argv"]) == strip(listed["argv"])


@pytest.mark.parametrize("cell", STRICT, ids=[c["name"] for c in STRICT])
def test_each_strict_cell_trains_its_listed_cells_models(cell):
    """A strict split keeps the listed split's training and validation sequences, so the same models: each positive run
    has the listed run's selected step and training count, and its scores on the listed test set's two halves (with
    and without an all-training origin) add up to the listed run's test count (docs/experiments.md, "A strict split")."""
    doc = json.loads(open(cell["json"], encoding="utf-8").read())
    listed = json.loads(open(cell["json"].replace("-strict.json", ".json"), encoding="utf-8").read())
    old = {(r["setting"], r["draw"], r["rank"], r["heads"], r["seed"]): r for r in listed["runs"]}
    n = doc["splits"][0]["listed_test"]
    compared = 0
    for r in doc["runs"]:
        halves = r["listed_test"]
        assert halves["with_training_origin"]["total"] == n["with_training_origin"]
        assert halves["without_training_origin"]["total"] == n["total"] - n["with_training_origin"]
        if r["model"] != "positive":
            continue
        o = old[(r["setting"], r["draw"], r["rank"], r["heads"], r["seed"])]
        assert (r["selected_step"], r["exact"]["train"]) == (o["selected_step"], o["exact"]["train"])
        assert sum(h["correct"] for h in halves.values()) == o["exact"]["test"]["correct"]
        compared += 1
    assert compared == len(listed["runs"])


@pytest.mark.parametrize("cell", STRICT, ids=[c["name"] for c in STRICT])
def test_each_strict_cells_split_counts_are_what_the_producer_draws(cell):
    """The split summary of each strict document: 1,024 strict test sequences, and as many of the listed test set's
    with an all-training origin as the producer finds today (505 at (8, 6, 12) and so on: the issue's counts)."""
    from certify.experiments.tasks import Setting, SplitConfig, build_split

    doc = json.loads(open(cell["json"], encoding="utf-8").read())
    sp = doc["splits"][0]
    c = doc["config"]
    setting = c["settings"][0] if cell["kind"] == "capacity" else c["setting"]
    split = build_split(Setting(setting["M"], setting["q"], setting["h"]), SplitConfig(strict=True), sp["draw"])
    assert sp["strict"] is True and sp["test"] == len(split.test) == 1024
    assert sp["listed_test"]["with_training_origin"] == sum(split.listed.training_origin(o) is not None
                                                            for o in split.listed.test_origin)


def test_the_verdict_table_has_the_strict_column_for_every_claim():
    """docs/experiments.md's verdict table (regenerated by --report, held by --check-doc above): a fourth column, the
    verdict on strict splits, in bold with the numbers behind it, on every claim's row."""
    text = (ROOT / "docs" / "experiments.md").read_text(encoding="utf-8")
    section = text.split(study.BEGIN, 1)[1].split(study.END, 1)[0]
    table = section.split("| claim (paper) |", 1)[1].strip().splitlines()
    assert table[0].endswith("| on strict splits |")
    rows = [ln for ln in table[2:] if ln.startswith("| §6")]
    assert len(rows) == 6
    for row in rows:
        cells = [c.strip() for c in row.strip("|").split(" | ")]
        assert len(cells) == 4 and cells[3].startswith("**"), row
