"""Helpers for side-by-side benchmarks: today's code against the code of an earlier commit.

The benchmarks of issue 11 (``bench_bounds_range.py``, ``bench_readout.py``) compare the
fast paths with the paths they replaced. Rather than keep dead copies of the old code in
the package, the old module is read from git history (``git show REV:PATH``) and loaded
under a private name; so the comparison needs a git checkout (it is a benchmark, not a
test). ``BASELINE_REV`` is the last commit before issue 11's changes.
"""
from __future__ import annotations

import importlib.util
import os
import resource
import subprocess
import sys
import tempfile
import time
import types

sys.path.insert(0, os.path.dirname(__file__))
from bench_rank_nine import run  # noqa: E402

BASELINE_REV = "b745acb"
ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))


def git_source(rev: str, path: str) -> str:
    """The text of ``path`` at commit ``rev`` of this repository."""
    try:
        return subprocess.run(["git", "show", f"{rev}:{path}"], cwd=ROOT, check=True, capture_output=True,
                              text=True).stdout
    except (OSError, subprocess.CalledProcessError) as exc:
        raise SystemExit(f"cannot read {path} at {rev} from git ({exc}); run from a git checkout "
                         "or pass --no-baseline") from None


def load_module(rev: str, path: str, name: str) -> types.ModuleType:
    """Module ``path`` as it was at ``rev``, imported as ``name`` (absolute imports only)."""
    with tempfile.NamedTemporaryFile("w", suffix=".py", delete=False) as fh:
        fh.write(git_source(rev, path))
    spec = importlib.util.spec_from_file_location(name, fh.name)
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module  # dataclasses look their module up while the class is built
    spec.loader.exec_module(module)
    os.unlink(fh.name)
    return module


def export_tree(rev: str, dest: str) -> str:
    """The repository's files at ``rev``, unpacked under ``dest`` (``git archive``): run the old
    command with ``PYTHONPATH=<returned path> python -m certify.cli …``."""
    os.makedirs(dest, exist_ok=True)
    archive = subprocess.run(["git", "archive", rev], cwd=ROOT, check=True, capture_output=True).stdout
    subprocess.run(["tar", "-x", "-C", dest], input=archive, check=True)
    return dest


def run_cpu(cmd: list[str], cwd: str, ok: tuple[int, ...] = (0,)) -> tuple[float, float, int]:
    """Wall time (s), CPU time (user + system, s) and peak RSS (KiB) of one run of ``cmd``."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    wall, rss = run(cmd, cwd, ok)  # bench_rank_nine.run reaps the child, so its CPU lands in RUSAGE_CHILDREN
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    return wall, after.ru_utime - before.ru_utime + after.ru_stime - before.ru_stime, rss


def cpu(f):
    """``(result, CPU seconds)`` of ``f()`` in this process."""
    start = time.process_time()
    out = f()
    return out, time.process_time() - start
