"""Shared fixtures and hypothesis settings for the test suite."""
from __future__ import annotations

import os
import sys
from pathlib import Path

# One BLAS/OpenMP thread per process, set before numpy is imported and inherited by every command a test runs:
# the suite already runs one pytest worker per core (README: pytest -n auto), and more threads only wait on the
# same cores. (No result depends on it: certify bracket gives the same iterations with 1 or 2 threads.)
for _var in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ.setdefault(_var, "1")

from hypothesis import HealthCheck, settings

ROOT = Path(__file__).resolve().parents[1]
CORPUS = ROOT / "tests" / "certificates"

settings.register_profile(
    "default", max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow]
)
settings.register_profile("thorough", max_examples=1000, deadline=None)
settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", "default"))


def run_cli(*args: str, cwd: str | os.PathLike | None = None):
    """Run ``python -m certify.cli ARGS`` in a subprocess; return the CompletedProcess."""
    import subprocess

    return subprocess.run(
        [sys.executable, "-m", "certify.cli", *args],
        capture_output=True, text=True, cwd=cwd, timeout=120,
    )


def assert_one_line_error(proc, code: int) -> None:
    """The CLI failed with exit ``code`` and exactly one line on stderr, no traceback."""
    assert proc.returncode == code, proc.stdout + proc.stderr
    assert "Traceback" not in proc.stderr
    assert len(proc.stderr.strip().splitlines()) == 1, proc.stderr


def cli_in_process(capsys, *args: str) -> tuple[int, str, str]:
    """``certify ARGS`` run in this process (no interpreter start-up): ``(exit code, stdout, stderr)``.

    For tests about what a command computes or prints; tests about the process itself (signals,
    closed pipes, the environment, start-up) run ``python -m certify.cli`` as :func:`run_cli` does.
    """
    from certify.cli import main

    capsys.readouterr()
    try:
        main(list(args))
        code = 0
    except SystemExit as exc:
        code = exc.code if isinstance(exc.code, int) else (0 if exc.code is None else 1)
    out, err = capsys.readouterr()
    return code, out, err
