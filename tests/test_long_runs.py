"""Long runs of certify minrank and certify bracket (issue 42, point 9): progress within a start, the method chosen by
the family's size, an up-front estimate that refuses a run of more than a day, and Ctrl-C and SIGTERM honoured.

No test here reads a clock: progress is asserted through the callbacks (called at every step, counted in steps) or
through CERTIFY_PROGRESS=1, which shows the first progress line at once; the signal tests wait for a progress line
that says the search is running, then signal, and only guard with a generous timeout.
"""
import contextlib
import json
import os
import signal
import subprocess
import sys

import numpy as np
import pytest

from certify.bracket import upper_side
from certify.bracket import upper as bupper
from certify.kernels.audit import load_family

from conftest import CORPUS, ROOT, as_a_background_job, run_cli, sees_sigint

PAPER = str(CORPUS / "valid" / "rank_nine_paper.json")
DIRECT = str(CORPUS / "valid" / "shifted_rank_nine_direct.json")


# --------------------------------------------------------------------------- progress within a start


def test_minrank_reports_every_step_of_a_start():
    from certify.minrank.upper import upper_side as minrank_upper

    lines = []
    up = minrank_upper(4, 2, 2, 1, 300, say=lines.append)
    steps = [line for line in lines if ": step " in line]
    ends = [line for line in lines if "a proposal after" in line or "none after" in line]
    assert up.rank == 2 and len(ends) == 1 and lines[-1] == ends[0]  # the start's end comes after its steps
    used = up.attempts[0]["steps"]
    assert len(steps) == used + 1 and steps[0] == "m = 4, rank 2, start 1/1 (ansatz): step 1/300, loss " + \
        steps[0].rsplit("loss ", 1)[1]


def test_minrank_s_first_progress_line_is_inside_the_first_start():
    """CERTIFY_PROGRESS=1 shows a progress bar's first call at once: the search's is step 1 of the first start
    (before, its first line came only when a start ended). (The lower side's certificate check has its own line.)"""
    proc = subprocess.run([sys.executable, "-m", "certify.cli", "minrank", "--m", "4"], capture_output=True, text=True,
                          cwd=ROOT, timeout=300, env={**os.environ, "CERTIFY_PROGRESS": "1"})
    assert proc.returncode == 0, proc.stderr
    first = next(line for line in proc.stderr.splitlines() if line.startswith("certify minrank --m 4:"))
    assert first.startswith("certify minrank --m 4: m = 4, rank 2, start 1/4 (ansatz): step 1/4,000, loss")


def test_bracket_reports_every_iteration_and_the_reduction():
    lines = []
    res = upper_side(load_family(PAPER), iterations=40, budget=100, restarts=0, progress=lines.append)
    assert res.method == "adam" and res.tried
    assert "reduced matrix: indexing query 1/15" in lines and "reduced matrix: indexing query 15/15" in lines
    steps = [line for line in lines if " step " in line]  # every iteration but a start's last (it stops there)
    assert res.iterations - len(res.tried) <= len(steps) <= res.iterations
    assert steps[0].startswith(f"rank {res.tried[0]['rank']}: warm step 1, loss")


# --------------------------------------------------------------------------- --method auto


def test_auto_is_adam_on_small_blocks_and_boxes_on_large_ones(monkeypatch):
    assert bupper.resolve_method("auto", bupper.AUTO_BOXES_ENTRIES) == "adam"
    assert bupper.resolve_method("auto", bupper.AUTO_BOXES_ENTRIES + 1) == "boxes"
    assert bupper.resolve_method("auto", 10**8, device="cuda") == "adam"  # boxes run on numpy only
    assert bupper.resolve_method("adam", 10**8) == "adam" and bupper.resolve_method("boxes", 1) == "boxes"
    # the documented families keep their search: rank-nine 15 × 224, hadamard24 46 × 138, rows m = 20, 22 (≤ 616²)
    assert 616 * 616 <= bupper.AUTO_BOXES_ENTRIES < 2576 * 2576
    monkeypatch.setattr(bupper, "AUTO_BOXES_ENTRIES", 100)  # rank-nine's 15 × 224 block is now "large"
    res = upper_side(load_family(DIRECT), iterations=2000, budget=20_000, restarts=1)
    assert res.method == "boxes" and res.best is not None and res.best.kernel_rank >= 12


def test_the_command_says_which_method_ran():
    proc = run_cli("bracket", PAPER, "--iterations", "40", "--budget", "100", "--json")
    doc = json.loads(proc.stdout)
    assert (doc["method"], doc["method_option"]) == ("adam", "auto")
    assert doc["estimate"]["entries"] == 15 * 224 and doc["estimate"]["entry_iterations"] == 100 * 15 * 224


# --------------------------------------------------------------------------- the up-front estimate


def test_minrank_refuses_a_search_of_more_than_a_day_from_its_count():
    from certify.minrank.upper import MAX_SECONDS, search_seconds, search_work, too_long

    proc = run_cli("minrank", "--m", "8", "--steps", "1000000")  # the generic search runs for m ≤ 8 (issue 44)
    assert proc.returncode == 2 and len(proc.stderr.strip().splitlines()) == 1, proc.stderr
    assert "1.84e+12 entry-steps" in proc.stderr and "about 2 days" in proc.stderr and "--steps" in proc.stderr
    assert search_work(8, 3, 9, 4, 10**6) == 4**8 * 10**6 * 4 * 7
    # m = 10 with the defaults (ranks 3 … 11, 4 starts of 4,000 steps): 1.51·10¹¹ entry-steps, about 4 hours: accepted
    assert search_work(10, 3, 11, 4, 4000) == 4**10 * 4000 * 4 * 9
    assert search_seconds(search_work(10, 3, 11, 4, 4000)) < MAX_SECONDS and too_long(10, 3, 11, 4, 4000) is None


def test_bracket_refuses_a_search_of_more_than_a_day_from_its_count():
    proc = run_cli("bracket", PAPER, "--budget", "1000000000")
    assert proc.returncode == 2 and len(proc.stderr.strip().splitlines()) == 1, proc.stderr
    assert "3.36e+12 entry-iterations" in proc.stderr and "--budget" in proc.stderr and "more than a day" in proc.stderr
    with pytest.raises(bupper.TooMuchWork, match="--start-rank"):
        upper_side(load_family(PAPER), budget=10**9)
    work, seconds = bupper.search_estimate(2576 * 2576, 400_000, (53 + 2576) // 2)  # golay24 with the defaults
    assert seconds > bupper.MAX_SECONDS
    work, seconds = bupper.search_estimate(2576 * 2576, 20_000, 200)  # its documented run (docs/results.md)
    assert seconds < bupper.MAX_SECONDS


# --------------------------------------------------------------------------- large linear algebra by pieces


def test_large_products_and_truncations_go_by_pieces(monkeypatch):
    """Above LARGE_CALL multiply-adds (lowered here) a product goes by blocks of rows and a truncated SVD by a thin QR
    of the factors or a subspace iteration: the same product, and a rank-r approximation as good as the best one up
    to a factor 2 in the spectral norm (exactly the best one from thin factors)."""
    from certify.bracket import pieces as linalg

    rng = np.random.default_rng(0)
    X, Y = rng.standard_normal((70, 40)), rng.standard_normal((40, 30))
    assert np.array_equal(linalg.matmul(X, Y), X @ Y)  # below the limit: the same call
    monkeypatch.setattr(linalg, "LARGE_CALL", 40_000)
    monkeypatch.setattr(linalg, "BLOCK", 8)
    assert np.allclose(linalg.matmul(X, Y), X @ Y, rtol=1e-13)
    U0 = np.linalg.qr(rng.standard_normal((90, 60)))[0]
    V0 = np.linalg.qr(rng.standard_normal((80, 60)))[0]
    s0 = 0.7 ** np.arange(60)
    M = (U0 * s0) @ V0.T

    def best(A, r):
        u, s, vt = np.linalg.svd(A)
        return (u[:, :r] * s[:r]) @ vt[:r]

    P, Q = U0[:, :20] * s0[:20], V0[:, :20]  # thin factors (90·20² ≤ 40,000): QR of each, SVD of the core
    U, V = linalg.top_factors(P, Q, 6)
    assert np.allclose(U @ V.T, best(P @ Q.T, 6), atol=1e-12) and np.allclose(np.linalg.norm(U, axis=0),
                                                                               np.linalg.norm(V, axis=0))
    for r in (12, 25):  # subspace iteration, then the SVD of the projection (r = 12) or only a balancing (r = 25)
        for P, Q in ((M, None), (U0 * s0, V0)):
            U, V = linalg.top_factors(P, Q, r)
            assert U.shape == (90, r) and V.shape == (80, r)
            assert np.linalg.norm(M - U @ V.T, 2) <= 2 * s0[r]
    assert linalg.top_factors(M, None, 70)[0].shape == (90, 70)  # past the width: zero columns


# --------------------------------------------------------------------------- Ctrl-C and SIGTERM


def _signalled(args, signum, marker):
    """Start ``certify ARGS`` with progress shown at once, wait for a stderr line containing ``marker``, send ``signum``;
    the exit code and the whole stderr. A SIGINT case starts its child from a process that ignores SIGINT, as the
    suite does when started as a background job: the child must restore it (:func:`conftest.sees_sigint`)."""
    import threading

    started = as_a_background_job() if signum == signal.SIGINT else contextlib.nullcontext()
    with started:
        proc = subprocess.Popen([sys.executable, "-m", "certify.cli", *args], cwd=ROOT, stdout=subprocess.DEVNULL,
                                stderr=subprocess.PIPE, text=True, env={**os.environ, "CERTIFY_PROGRESS": "1"},
                                preexec_fn=sees_sigint)
    guard = threading.Timer(300, proc.kill)  # a guard only: no line for minutes ends the read below
    guard.start()
    seen = []
    try:
        for line in proc.stderr:
            seen.append(line)
            if marker in line:
                break
        else:
            raise AssertionError(f"no progress line with {marker!r}: {''.join(seen)}")
        proc.send_signal(signum)
        rest = proc.stderr.read()
        code = proc.wait(timeout=120)  # a guard only: the process is expected to stop within a second or two
    finally:
        guard.cancel()
        if proc.poll() is None:
            proc.kill()
            proc.wait()
    return code, "".join(seen) + rest


@pytest.mark.parametrize("signum, code, word", [(signal.SIGINT, 130, "interrupted (SIGINT)"),
                                                (signal.SIGTERM, 143, "terminated (SIGTERM)")])
def test_minrank_stops_on_a_signal_within_a_start(signum, code, word):
    got, err = _signalled(["minrank", "--m", "7", "--max-rank", "3", "--restarts", "1", "--steps", "1000000"], signum,
                          ": step ")
    assert got == code and err.splitlines()[-1] == f"certify: {word}" and "" not in err.splitlines(), err
    assert "Traceback" not in err


@pytest.mark.parametrize("signum, code, word", [(signal.SIGINT, 130, "interrupted (SIGINT)"),
                                                (signal.SIGTERM, 143, "terminated (SIGTERM)")])
def test_bracket_stops_on_a_signal_within_a_start(signum, code, word):
    got, err = _signalled(["bracket", "--code", "hadamard24", "--iterations", "1000000", "--budget", "10000000"],
                          signum, " step ")
    assert got == code and err.splitlines()[-1] == f"certify: {word}" and "" not in err.splitlines(), err
    assert "Traceback" not in err
