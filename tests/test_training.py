"""certify train (§6.1): trained heads, their exported tables, and the exact verdict on each.

Needs torch (the test extra installs the CPU build); the last tests run certify with
torch hidden and show that nothing but `certify train` needs it.
"""
import json
import subprocess
import sys
from fractions import Fraction

import numpy as np
import pytest

from certify import training as T
from certify.training import runs as TR
from certify.kernels.audit import check_kernel, load_family
from certify.kernels.table import load_table

from conftest import CORPUS, ROOT, assert_one_line_error, run_cli_here

SMALL = load_family(str(CORPUS / "valid" / "small_paper.json"))  # 32 inputs, certified r ≥ 3
SMALL_FOUR = load_family(str(CORPUS / "valid" / "small_length_four.json"))


def exact_predictions(path, family):
    """Every prediction of an exported table, recomputed here with Fractions (independently of audit.py)."""
    d = np.load(path)
    pos = {int(s[::-1], 2): i for i, s in enumerate(d["tokens"])}
    F = lambda x: Fraction(float(x))  # noqa: E731 - exact value of the float
    out = []
    for X in family.inputs:
        x = pos[X.tokens[X.query]]
        a = [sum(F(p) * F(k) for p, k in zip(d["phi_q"][x], d["phi_k"][pos[z]])) for z in X.tokens]
        g = [F(d["beta"][x]) + F(d["w"][x][pos[z]]) for z in X.tokens]
        out.append(sum(ai * gi for ai, gi in zip(a, g)) / sum(a))
    return out


@pytest.mark.parametrize("family", [SMALL, SMALL_FOUR], ids=["length3", "length4"])
def test_exact_check_agrees_with_the_float_model_within_the_stated_error(tmp_path, family):
    [run] = T.run_experiment(family, T.TrainConfig(ranks=(4,), seeds=(0,), steps=150), str(tmp_path))
    exact = exact_predictions(run.table, family)
    assert len(exact) == len(run.float_predictions) == len(family.inputs)
    for e, f in zip(exact, run.float_predictions):
        assert abs(float(e) - f) <= T.FLOAT_AGREEMENT
    worst = max(abs(e - X.target) for e, X in zip(exact, family.inputs))
    assert worst == run.report.max_error  # audit.py's exact maximum is the independent one
    assert abs(float(worst) - run.float_max_error) <= T.FLOAT_AGREEMENT
    assert run.report.solves == (worst < family.error)


def test_same_seed_gives_byte_identical_tables_and_another_seed_does_not(tmp_path):
    cfg = T.TrainConfig(ranks=(3,), seeds=(7,), steps=60)
    [a] = T.run_experiment(SMALL, cfg, str(tmp_path / "a"))
    [b] = T.run_experiment(SMALL, cfg, str(tmp_path / "b"))
    [c] = T.run_experiment(SMALL, T.TrainConfig(ranks=(3,), seeds=(8,), steps=60), str(tmp_path / "c"))
    da, db, dc = np.load(a.table), np.load(b.table), np.load(c.table)
    for k in ("tokens", "phi_q", "phi_k", "beta", "w"):
        assert da[k].tobytes() == db[k].tobytes(), k
    with open(a.table, "rb") as fa, open(b.table, "rb") as fb:
        assert fa.read() == fb.read()  # the files too: members are dated 1980-01-01, not now
    assert da["phi_q"].tobytes() != dc["phi_q"].tobytes()
    assert a.loss == b.loss and a.report.max_error == b.report.max_error


@pytest.mark.parametrize("rank", [1, 2])
def test_a_head_below_the_certified_bound_is_never_reported_as_solving(tmp_path, rank):
    """r < 3 on a family certifying r ≥ 3: neither the trained readout nor any other readout solves it."""
    runs = T.run_experiment(SMALL, T.TrainConfig(ranks=(rank,), seeds=(0, 1), steps=200), str(tmp_path))
    assert SMALL.certified_bound == 3
    for run in runs:
        assert run.report.kernel_rank <= rank < SMALL.certified_bound
        assert run.report.solves is False and run.report.readout_exists is False
        assert run.report.max_error >= SMALL.error


def test_exported_table_is_the_model_in_the_documented_format(tmp_path):
    [run] = T.run_experiment(SMALL, T.TrainConfig(ranks=(4,), seeds=(1,), steps=200), str(tmp_path))
    table = load_table(run.table)
    d = np.load(run.table)
    assert set(d.files) == {"tokens", "phi_q", "phi_k", "beta", "w"}
    assert d["phi_q"].shape == (table.size, 4) and (d["phi_q"] > 0).all() and (d["phi_k"] > 0).all()
    assert d["w"].shape == (table.size, table.size) and d["phi_q"].dtype == np.float64
    assert check_kernel(table, SMALL).max_error == run.report.max_error  # check-kernel says the same


def test_the_construction_solves_the_rank_nine_family_at_rank_15():
    rep = T.construction_report(load_family(None))
    assert rep.solves and rep.kernel_rank == 15 and rep.max_error < Fraction(1, 2) and not rep.jump_violations


def test_options_are_validated():
    assert T.parse_seeds("0-4") == (0, 1, 2, 3, 4) and T.parse_ranks("32,4,32") == (32, 4)
    for bad in ("", "0", "1025", "x", "4.5", "-3"):
        with pytest.raises(ValueError):
            T.parse_ranks(bad)
    for bad in ("4-2", "a-b", "0-5000", "-1"):
        with pytest.raises(ValueError):
            T.parse_seeds(bad)


def test_cli_train_json_table_and_plot(tmp_path):
    out, png = tmp_path / "tables", tmp_path / "p.png"
    proc = run_cli_here("train", "--family", str(CORPUS / "valid" / "small_paper.json"), "--ranks", "2,4", "--seeds", "0",
                        "--steps", "200", "--out", str(out), "--json", "--plot", str(png))
    assert proc.returncode == 0, proc.stderr
    doc = json.loads(proc.stdout)
    assert doc["schema"] == "certify.train/1" and doc["config"]["seeds"] == [0]
    assert [r["rank"] for r in doc["runs"]] == [2, 4] and doc["runs"][0]["solves"] is False
    assert (out / "rank2_seed0.npz").exists() and png.read_bytes()[:4] == b"\x89PNG"
    assert doc["construction"]["solves"] is True and doc["family"]["certified_bound"] == 3
    text = run_cli_here("train", "--family", str(CORPUS / "valid" / "small_paper.json"), "--ranks", "2", "--seeds", "0",
                        "--steps", "50", "--out", str(out))
    assert text.returncode == 0 and "no (no readout exists)" in text.stdout


@pytest.mark.parametrize("args", [["--ranks", "0"], ["--seeds", "9-1"], ["--steps", "0"], ["--family", "/nonexistent.json"],
                                  ["--plot", "curve.unknown-extension"], ["--plot", "/nonexistent-folder/x.png"]])
def test_cli_train_rejects_bad_options_with_exit_2(args, tmp_path):
    import time

    start = time.process_time()  # CPU seconds of this process, where the command runs; not wall time (load)
    assert_one_line_error(run_cli_here("train", "--out", str(tmp_path), *args), 2)
    assert time.process_time() - start < 60  # refused before any training (the default run takes minutes of CPU)


HIDE_TORCH = "import sys; sys.modules['torch'] = None\n"  # `import torch` now raises ImportError


def _without_torch(code: str, cwd) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-c", HIDE_TORCH + code], capture_output=True, text=True, cwd=cwd, timeout=120)


def test_train_without_torch_exits_2_saying_what_to_install(tmp_path):
    proc = _without_torch("from certify.cli import main; main(['train', '--steps', '1', '--out', 'x'])", tmp_path)
    assert_one_line_error(proc, 2)
    assert "pip install '.[train]'" in proc.stderr and "torch==2.13.0" in proc.stderr


def test_checker_and_other_commands_work_without_torch(tmp_path):
    code = (
        "import importlib, pkgutil, subprocess, sys\n"
        "import certify, codes, witnesses\n"
        "for pkg in (certify, codes, witnesses):\n"
        "    for mod in pkgutil.walk_packages(pkg.__path__, pkg.__name__ + '.'):\n"
        "        importlib.import_module(mod.name)\n"
        "assert sys.modules['torch'] is None\n"
        "from certify.cli import main\n"
        f"for args in (['rank-nine', '--out', 'c.json'], ['verify', 'c.json'], ['check-kernel', {str(ROOT / 'docs/examples/rank15_solves.npz')!r}]):\n"
        "    try:\n"
        "        main(args)\n"
        "    except SystemExit as e:\n"
        "        assert e.code == 0, (args, e.code)\n"
    )
    proc = _without_torch(code, tmp_path)
    assert proc.returncode == 0, proc.stderr


def test_a_family_with_too_many_tokens_is_refused_before_any_training(monkeypatch):
    monkeypatch.setattr(TR, "MAX_TOKENS", 3)  # the module that owns the limit
    with pytest.raises(T.TrainingInputError, match="distinct tokens"):
        T.family_arrays(SMALL)


def test_a_full_batch_step_over_the_limit_is_refused_before_any_training(monkeypatch):
    """Issue 18: a 300,000-input family took 231 s and 941 MB for one step; the size is inputs × length × rank."""
    B, L = len(SMALL.inputs), max(len(X.tokens) for X in SMALL.inputs)
    T.check_training_size(SMALL, T.TrainConfig(ranks=(4,)))  # within the limit: nothing
    monkeypatch.setattr(TR, "MAX_STEP_ENTRIES", B * L * 4 - 1)
    with pytest.raises(T.TrainingInputError, match=f"{B:,} inputs × {L} tokens × rank 4 = {B * L * 4:,}"):
        T.check_training_size(SMALL, T.TrainConfig(ranks=(2, 4)))
    monkeypatch.setattr(TR, "train_head", lambda *a, **k: pytest.fail("trained although refused"))
    with pytest.raises(T.TrainingInputError):
        T.run_experiment(SMALL, T.TrainConfig(ranks=(4,), seeds=(0,), steps=1), "/nonexistent/never-made")
