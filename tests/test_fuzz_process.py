"""Fuzzing process faults (issue 18): random commands under a full disk, a closed pipe or a signal.

``CERTIFY_FUZZ_PROCESS_N`` cases (default 10), fixed by ``CERTIFY_FUZZ_SEED``. Each case runs
a command once normally (its baseline exit code and output), then again under one fault:

* standard output on ``/dev/full``: exit 2 with the reason, or the baseline when the command
  writes nothing to standard output;
* standard output closed by its reader, at once or after a random number of bytes: 141, or 0
  when the output was complete, or the baseline when there was nothing to write;
* SIGINT or SIGTERM after a random delay (0.3–0.9 s: during the imports or the work): 130 or 143
  if it was still running, else the baseline.

Never a traceback, never exit 3, and no temporary file left next to ``--out``.
"""
import os
import random
import signal
import subprocess
import sys
import time

import pytest

from conftest import CORPUS, ROOT, as_a_background_job, sees_sigint
from fuzzing import SEED

N = int(os.environ.get("CERTIFY_FUZZ_PROCESS_N", "10"))
CHECK = [sys.executable, str(ROOT / "certify" / "check.py")]
CERTIFY = [sys.executable, "-m", "certify.cli"]


def _commands(rng, out):
    certs = sorted(str(p) for folder in ("valid", "invalid", "malformed") for p in (CORPUS / folder).glob("*.json"))
    results = [str(ROOT / "docs" / "results" / f"m{m}.cert.json") for m in (8, 10, 12, 14, 16, 20)]
    tables = sorted(str(p) for p in (ROOT / "tests" / "tables").glob("*/*") if p.is_file())
    return rng.choice([
        CHECK + [rng.choice(certs + results)],
        CHECK + ["--json", rng.choice(certs + results)],
        CERTIFY + ["verify", rng.choice(certs + results)],
        CERTIFY + ["bounds", "--m", str(rng.choice([8, 64, 500, 5000, 30000]))] + (["--json"] if rng.random() < 0.5 else []),
        CERTIFY + ["check-kernel", rng.choice(tables), "--family", str(ROOT / "tests" / "tables" / "families" / "gap_one.json")],
        CERTIFY + ["family", "--from", rng.choice(results), "--out", out],
        CERTIFY + ["rank-bound", "--code", rng.choice(["rank-nine", "hadamard24", "lexicode:12:6:2"]), "--out", out],
    ])


def _env():
    return {**os.environ, "CERTIFY_PROGRESS": "0"}


def _no_traceback(err: str) -> None:
    assert "Traceback" not in err and "internal error" not in err, err


def _fault_case(rng, argv, case, what):
    """Run ``argv`` once normally, then under one random fault; assert the exit code, the messages and no leftovers."""
    out = str(case / "out.json")
    base = subprocess.run(argv, capture_output=True, env=_env(), cwd=ROOT, timeout=300)
    _no_traceback(base.stderr.decode())
    assert base.returncode in (0, 1, 2), (argv, base.returncode)
    if os.path.exists(out):
        os.remove(out)
    fault = rng.choice(["full", "closed", "closed-later", "SIGINT", "SIGTERM"])
    what = f"{what}: {' '.join(a.rsplit('/', 1)[-1] for a in argv[1:])} under {fault}"
    if fault == "full":
        with open("/dev/full", "w") as full:
            proc = subprocess.run(argv, stdout=full, stderr=subprocess.PIPE, env=_env(), cwd=ROOT, timeout=300)
        allowed = {base.returncode} if not base.stdout else {2}
        err = proc.stderr.decode()
        if base.stdout:
            assert "cannot write the output" in err, (what, err)
    elif fault.startswith("closed"):
        proc = subprocess.Popen(argv, stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=_env(), cwd=ROOT)
        if fault == "closed-later" and base.stdout:
            proc.stdout.read(rng.randrange(1, len(base.stdout) + 1))
        proc.stdout.close()
        err = proc.stderr.read().decode()
        proc.wait(timeout=300)
        allowed = {141, 0} | ({base.returncode} if fault == "closed-later" or not base.stdout else set())
    else:
        sig = signal.SIGINT if fault == "SIGINT" else signal.SIGTERM
        with as_a_background_job():  # as when the suite runs in the background: the child restores SIGINT
            proc = subprocess.Popen(argv, stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=_env(), cwd=ROOT,
                                    preexec_fn=sees_sigint)
        time.sleep(rng.uniform(0.3, 0.9))  # past the interpreter's own start (its first ~30 ms are Python's, not ours)
        running = proc.poll() is None
        proc.send_signal(sig)
        _, err_b = proc.communicate(timeout=300)
        err = err_b.decode()
        # still running when signalled: 128 + the signal, or killed by it (−n here; the shell shows 128 + n
        # too) when it came after the work, while the interpreter exits; else it had ended with its own code
        code = 130 if sig == signal.SIGINT else 143
        allowed = {code, -sig, base.returncode} if running else {base.returncode}
    _no_traceback(err)
    assert proc.returncode in allowed, (what, proc.returncode, allowed, err[-300:])
    leftovers = [p.name for p in case.iterdir() if p.name not in ("out.json", "cert.json")]
    assert leftovers == [], (what, leftovers)  # no temporary file left behind


@pytest.mark.skipif(not os.path.exists("/dev/full"), reason="needs /dev/full")
def test_process_fault_fuzz(tmp_path):
    rng = random.Random(f"{SEED}:process")
    for k in range(N):
        case = tmp_path / str(k)
        case.mkdir()
        _fault_case(rng, _commands(rng, str(case / "out.json")), case, f"case {k}")


def _alive(marker: str) -> list[str]:
    """Processes (Linux /proc) whose command line names ``marker``: a ``--jobs`` worker left behind would."""
    found = []
    for pid in filter(str.isdigit, os.listdir("/proc")):
        try:
            with open(f"/proc/{pid}/cmdline", "rb") as f:
                if marker.encode() in f.read():
                    found.append(pid)
        except OSError:
            pass
    return found


@pytest.mark.skipif(not os.path.exists("/dev/full") or not os.path.isdir("/proc"), reason="needs /dev/full and /proc")
def test_process_fault_fuzz_under_jobs_2(tmp_path):
    """``certify verify --jobs 2`` (worker processes) under the same faults, on certificates that take a while."""
    rng = random.Random(f"{SEED}:process-jobs")
    certs = [ROOT / "docs" / "results" / f"m{m}.cert.json" for m in (22, 24, 26, 28)] + [
        CORPUS / "invalid" / rng.choice(sorted(p.name for p in (CORPUS / "invalid").glob("*.json")))]
    for k in range(N):
        case = tmp_path / str(k)
        case.mkdir()
        cert = case / "cert.json"  # a path of its own, so that its workers can be found
        cert.write_bytes(rng.choice(certs).read_bytes())
        _fault_case(rng, CERTIFY + ["verify", "--jobs", "2", str(cert)], case, f"case {k}")
        for _ in range(50):  # the workers end with their parent (SIGTERM from it), at once or nearly
            if not _alive(str(cert)):
                break
            time.sleep(0.1)
        assert _alive(str(cert)) == [], f"case {k}: --jobs workers outlived certify verify"
