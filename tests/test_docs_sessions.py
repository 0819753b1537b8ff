"""Every console session in docs/*.md is real output (issue 29; the mechanism: tests/docs_sessions.py).

The sessions marked ``<!-- session -->`` (or ``<!-- session: torch -->``, skipped where
PyTorch is missing, and ``<!-- session: torch needs MODULE -->``, also where that library is missing) are re-run here and must print what the doc shows (time columns masked); those marked ``<!-- session: benchmark -->`` take minutes and
are re-run by ``tests/benchmarks/bench_docs.py``. A console block with a ``$`` command and
neither marker fails here, so a new session cannot be added without being re-run.
"""
import pytest

import docs_sessions as D

FAST = [s for s in D.sessions() if not s.benchmark]
_RUNS: dict = {}  # session name → (its directory, D.run's results): each session is run once per process


def _run_once(session, tmp_path_factory):
    """D.run on ``session`` in a fresh directory, or what that run gave and left if this process already ran it."""
    if session.name not in _RUNS:
        where = tmp_path_factory.mktemp("session")
        _RUNS[session.name] = (where, D.run(session, where, timeout=300))
    return _RUNS[session.name]


def test_every_console_session_is_marked():
    assert D.unmarked() == []
    assert FAST and any(s.benchmark for s in D.sessions())


@pytest.mark.parametrize("session", FAST, ids=lambda s: s.name)
def test_docs_session_is_real_output(tmp_path_factory, session):
    if session.torch:
        pytest.importorskip("torch")
    for module in session.needs:  # a third-party library's worked example (docs/torch.md, "Libraries")
        pytest.importorskip(module)
    for command, expected, printed in _run_once(session, tmp_path_factory)[1]:
        assert printed == expected, f"{session.name}: $ {command}\n{printed}"


def test_the_documented_rank15_table_is_the_one_the_session_writes(tmp_path_factory):
    """docs/constructions.md's session writes rank15_solves.npz in its directory (not into docs/); the committed
    docs/examples/rank15_solves.npz must be that file, byte for byte. (The session's run is shared with its
    test_docs_session_is_real_output case when this process ran that first.)"""
    session = next(s for s in FAST if "construction rank15 --out rank15_solves.npz" in s.text)
    where, _ = _run_once(session, tmp_path_factory)
    assert (where / "rank15_solves.npz").read_bytes() == (D.ROOT / "docs" / "examples" / "rank15_solves.npz").read_bytes()
