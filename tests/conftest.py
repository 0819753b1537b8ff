"""Shared fixtures and hypothesis settings for the test suite."""
from __future__ import annotations

import contextlib
import os
import signal
import subprocess
import sys
from pathlib import Path

# One BLAS/OpenMP thread per process, set before numpy is imported and inherited by every command a test runs:
# the suite already runs one pytest worker per core (README: pytest -n auto), and more threads only wait on the
# same cores. (No result depends on it: certify bracket gives the same iterations with 1 or 2 threads.)
for _var in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ.setdefault(_var, "1")

# Progress off for every test and every command a test runs, whatever the caller's environment: a progress line
# appears once a command has run for 2 s, so on a loaded machine a test that reads stderr would see one that an idle
# machine never prints. A test about progress turns it on itself (CERTIFY_PROGRESS=1 in the child's environment, or
# monkeypatch), so no result of the suite depends on the machine's speed.
os.environ["CERTIFY_PROGRESS"] = "0"

import pytest
from hypothesis import HealthCheck, settings

ROOT = Path(__file__).resolve().parents[1]
CORPUS = ROOT / "tests" / "certificates"

settings.register_profile(
    "default", max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow]
)
settings.register_profile("thorough", max_examples=1000, deadline=None)
settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", "default"))


#: ``CERTIFY_SUITE_FULL=1``: also run the cases that a sweep keeps out of the default suite (issue 42, its CPU
#: time); ``python tests/benchmarks/bench_suite_full.py`` runs exactly those. Each is marked with :func:`full_only`.
SUITE_FULL = os.environ.get("CERTIFY_SUITE_FULL") == "1"


def full_only(*values, why: str):
    """A ``pytest.param`` of ``values`` that runs only with ``CERTIFY_SUITE_FULL=1`` (skipped, saying ``why``, otherwise):
    a further case of a check that the default suite makes on a representative one."""
    import pytest

    return pytest.param(*values, marks=pytest.mark.skipif(
        not SUITE_FULL, reason=f"in the full sweep only (CERTIFY_SUITE_FULL=1, tests/benchmarks/bench_suite_full.py): {why}"))


@pytest.fixture(autouse=True)
def _int_digit_limit_put_back():
    """Python's int-to-str digit limit as it was before each test: a test that lifts it (exact integers of
    thousands of digits) must not change what a later test in the same worker sees."""
    saved = sys.get_int_max_str_digits()
    yield
    sys.set_int_max_str_digits(saved)


def sees_sigint() -> None:
    """``preexec_fn`` of a child that a test signals with SIGINT: the default disposition, as a terminal's foreground
    job has. A shell starts a background job with SIGINT ignored, every process it starts inherits that, and Python
    then keeps it ignored (as it should): without this, a suite started as ``( pytest … & )`` sends SIGINT to
    children that never see it."""
    signal.signal(signal.SIGINT, signal.SIG_DFL)


@contextlib.contextmanager
def as_a_background_job():
    """SIGINT ignored in this process for the ``with`` body, as in a job a shell started with ``&``; put back after.

    The signal tests run their SIGINT cases inside it, so that a spawner without :func:`sees_sigint` fails
    wherever the suite is started, not only in the background."""
    previous = signal.signal(signal.SIGINT, signal.SIG_IGN)
    try:
        yield
    finally:
        signal.signal(signal.SIGINT, previous)


def run_cli(*args: str, cwd: str | os.PathLike | None = None):
    """Run ``python -m certify.cli ARGS`` in a subprocess; return the CompletedProcess."""
    import subprocess

    return subprocess.run(
        [sys.executable, "-m", "certify.cli", *args],
        capture_output=True, text=True, cwd=cwd, timeout=120,
    )


def run_cli_here(*args: str, cwd: str | os.PathLike | None = None, env: dict[str, str] | None = None):
    """``certify ARGS`` run in this process (``certify.cli.main``, what ``python -m certify.cli`` runs); the
    CompletedProcess that :func:`run_cli` would return: the exit code, standard output and standard error as text.

    For tests about what a command computes, prints and writes — not about the process: signals, a closed
    pipe, start-up, the environment, the stand-alone ``check.py``, ``--jobs`` worker processes keep
    :func:`run_cli`. It saves a process start per call (1.5–3 s of CPU where the command imports torch).
    As in a fresh process: standard output and error are UTF-8 streams that are not a terminal (the
    text read back with universal newlines, as ``subprocess.run(text=True)`` does), standard input is
    empty, warnings are printed on standard error under Python's default filters, ``env`` (as
    subprocess.run's) is the whole environment during the call, a module the command imports from ``cwd``
    (a ``--feature-map module:attr`` factory) is forgotten afterwards, the int-to-str digit limit is a new
    interpreter's, and the interpreter state a command may change (working directory, environment, that
    limit, the random generators, torch's thread count and determinism flag) is put back afterwards.
    """
    from certify.cli import main

    return _in_process(lambda argv: main(argv), ["certify", *map(str, args)], cwd, env)


def run_check_here(*args: str, cwd: str | os.PathLike | None = None, env: dict[str, str] | None = None):
    """``python certify/check.py ARGS`` run in this process (``certify.check.main``, which the file runs as a
    program): the CompletedProcess of a subprocess, as :func:`run_cli_here` gives it. For a test that compares
    another command's output with the stand-alone checker's; tests of check.py as a lone file keep a subprocess."""
    from certify.check import main

    return _in_process(lambda argv: sys.exit(main(argv)), ["check.py", *map(str, args)], cwd, env)


def run_checker_here(script: str, *args: str, cwd: str | os.PathLike | None = None,
                     env: dict[str, str] | None = None):
    """``python certify/SCRIPT ARGS`` for any of the trusted checkers (``check_symmetric.py``, …) run in this
    process, as :func:`run_check_here` runs ``check.py``."""
    import importlib

    main = importlib.import_module(f"certify.{script.removesuffix('.py')}").main
    return _in_process(lambda argv: sys.exit(main(argv)), [script, *map(str, args)], cwd, env)


def _in_process(entry, argv: list[str], cwd, env):
    """``entry(argv[1:])`` with the isolation :func:`run_cli_here` describes; its CompletedProcess."""
    import io
    import random
    import subprocess
    import warnings

    out = io.TextIOWrapper(io.BytesIO(), encoding="utf-8", write_through=True)
    err = io.TextIOWrapper(io.BytesIO(), encoding="utf-8", errors="backslashreplace", write_through=True)
    stdin = io.TextIOWrapper(io.BytesIO(b""), encoding="utf-8")
    torch = sys.modules.get("torch")
    np = sys.modules.get("numpy")
    saved = {"cwd": os.getcwd(), "env": dict(os.environ), "digits": sys.get_int_max_str_digits(),
             "random": random.getstate(), "numpy": np.random.get_state() if np else None,
             "streams": (sys.stdin, sys.stdout, sys.stderr), "modules": set(sys.modules)}
    if torch is not None:
        saved["torch"] = (torch.get_rng_state(), torch.get_num_threads(), torch.are_deterministic_algorithms_enabled(),
                          torch.is_deterministic_algorithms_warn_only_enabled())

    def show(message, category, filename, lineno, file=None, line=None):
        err.write(warnings.formatwarning(message, category, filename, lineno, line))

    try:
        with warnings.catch_warnings():
            warnings.resetwarnings()  # Python's defaults (a non-debug build), not the suite's
            for category in (DeprecationWarning, PendingDeprecationWarning, ImportWarning, ResourceWarning):
                warnings.simplefilter("ignore", category)
            warnings.filterwarnings("default", category=DeprecationWarning, module="__main__")
            warnings.showwarning = show
            if cwd is not None:
                os.chdir(cwd)
            if env is not None:
                os.environ.clear()
                os.environ.update(env)
            fresh = sys.flags.int_max_str_digits  # what a new interpreter starts with (-1: the built-in default)
            sys.set_int_max_str_digits(fresh if fresh >= 0 else sys.int_info.default_max_str_digits)
            sys.stdin, sys.stdout, sys.stderr = stdin, out, err
            try:
                entry(argv[1:])
                code = 0
            except SystemExit as exc:
                code = exc.code if isinstance(exc.code, int) else (0 if exc.code is None else 1)
            with contextlib.suppress(ValueError):
                out.flush()
                err.flush()
    finally:
        sys.stdin, sys.stdout, sys.stderr = saved["streams"]
        if cwd is not None:
            here = os.path.realpath(cwd)
            for name in set(sys.modules) - saved["modules"]:
                path = getattr(sys.modules[name], "__file__", None)
                if path and os.path.realpath(path).startswith(here + os.sep):
                    del sys.modules[name]
        os.chdir(saved["cwd"])
        if dict(os.environ) != saved["env"]:
            os.environ.clear()
            os.environ.update(saved["env"])
        sys.set_int_max_str_digits(saved["digits"])
        random.setstate(saved["random"])
        if np is not None:
            np.random.set_state(saved["numpy"])
        if "torch" in saved:
            rng, threads, deterministic, warn_only = saved["torch"]
            torch.set_rng_state(rng)
            torch.set_num_threads(threads)
            torch.use_deterministic_algorithms(deterministic, warn_only=warn_only)
        elif "torch" in sys.modules:  # imported by the command: its flag as a fresh import has it
            sys.modules["torch"].use_deterministic_algorithms(False)
    text = lambda s: s.buffer.getvalue().decode(s.encoding, s.errors).replace("\r\n", "\n").replace("\r", "\n")  # noqa: E731
    return subprocess.CompletedProcess(argv, code, text(out), text(err))


def assert_one_line_error(proc, code: int) -> None:
    """The CLI failed with exit ``code`` and exactly one line on stderr, no traceback."""
    assert proc.returncode == code, proc.stdout + proc.stderr
    assert "Traceback" not in proc.stderr
    assert len(proc.stderr.strip().splitlines()) == 1, proc.stderr


_UNIT: list[float] = []


def cpu_unit() -> float:
    """CPU seconds of one reference check (the rank-nine certificate, paper chains), the least of three.

    Cost guards are stated in these units, not in seconds (issue 42: no test may depend on the
    machine's speed): a fast, slow or loaded machine scales the guarded work and the unit alike.
    About 16 ms on the 2-core CI machine.
    """
    if not _UNIT:
        import time

        from certify.check import check_file

        runs = []
        for _ in range(3):
            start = time.process_time()
            check_file(str(CORPUS / "valid" / "rank_nine_paper.json"))
            runs.append(time.process_time() - start)
        _UNIT.append(max(min(runs), 1e-3))
    return _UNIT[0]


def checker_main(capsys, main, *args: str) -> tuple[int, str, str]:
    """A trusted checker's ``main(args)`` in this process: ``(exit code, stdout, stderr)``, never a traceback."""
    code = main(list(args))
    out, err = capsys.readouterr()
    assert "Traceback" not in out + err
    return code, out, err


def one_line(text: str) -> str:
    """The only line of ``text`` (a checker's one-line message)."""
    lines = text.strip().splitlines()
    assert len(lines) == 1, text
    return lines[0]


def run_checker_script(name: str, *args: str, stdout=subprocess.PIPE, **env: str) -> subprocess.CompletedProcess:
    """``python certify/NAME ARGS`` as a program, from the repository root, progress off."""
    return subprocess.run([sys.executable, str(ROOT / "certify" / name), *args], stdout=stdout,
                          stderr=subprocess.PIPE, text=True, cwd=ROOT, timeout=60,
                          env=dict(os.environ, CERTIFY_PROGRESS="0", **env))


def assert_corpus_regenerates(corpus, generator: str, tmp_path) -> None:
    """A checker corpus (``valid``/``invalid``/``malformed`` + ``MANIFEST.json``): the manifest lists exactly the files
    on disk with exit 0, 1, 2 by folder, and ``corpus/GENERATOR.py``'s ``write`` makes the same bytes again."""
    import importlib.util
    import json

    manifest = json.loads((corpus / "MANIFEST.json").read_text(encoding="utf-8"))
    cases = [(sub, name, entry) for sub, files in manifest.items() for name, entry in files.items()]
    on_disk = {f"{p.parent.name}/{p.name}" for sub in manifest for p in (corpus / sub).iterdir()}
    assert on_disk == {f"{sub}/{name}" for sub, name, _ in cases}
    for sub, code in (("valid", 0), ("invalid", 1), ("malformed", 2)):
        assert {e["exit"] for s, _, e in cases if s == sub} == {code}
    spec = importlib.util.spec_from_file_location(generator, corpus / f"{generator}.py")
    gen = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(gen)
    assert gen.write(tmp_path) == manifest
    for sub, name, _ in cases:  # deterministic: the committed bytes
        assert (tmp_path / sub / name).read_bytes() == (corpus / sub / name).read_bytes(), f"{sub}/{name}"
    assert (tmp_path / "MANIFEST.json").read_bytes() == (corpus / "MANIFEST.json").read_bytes()
