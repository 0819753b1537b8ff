"""Process faults (issue 18): signals, closed pipes, full disks and strict JSON, the same in check.py and the CLI.

Exit codes: 130 Ctrl-C (SIGINT), 143 SIGTERM, 141 standard output closed by its reader
(or 0 when the output was already complete), 2 a write error on standard output, with
one line on stderr and never a traceback. Exit 3 is kept for real contradictions.
"""
import json
import os
import signal
import subprocess
import sys

import pytest

from conftest import CORPUS, ROOT, as_a_background_job, run_cli_here, sees_sigint

CHECK = [sys.executable, str(ROOT / "certify" / "check.py")]
CERTIFY = [sys.executable, "-m", "certify.cli"]
SMALL = str(ROOT / "docs" / "results" / "m12.cert.json")
LONG = str(ROOT / "docs" / "results" / "m30.cert.json")  # about 90 s to verify: long enough to interrupt


def _env(**extra):
    return {**os.environ, "CERTIFY_PROGRESS": "0", **extra}


def _one_line(err: str) -> str:
    lines = [line for line in err.splitlines() if line.strip()]
    assert len(lines) == 1 and "Traceback" not in err, err
    return lines[0]


@pytest.mark.skipif(not os.path.exists("/dev/full"), reason="needs /dev/full")
@pytest.mark.parametrize("argv", [
    CHECK + [SMALL],
    CHECK + ["--json", SMALL],
    CERTIFY + ["verify", SMALL],
    CERTIFY + ["bounds", "--m", "64"],
    CERTIFY + ["bounds", "--m", "64", "--json"],
    CERTIFY + ["check-kernel", str(ROOT / "docs" / "examples" / "rank15_solves.npz")],
], ids=lambda a: " ".join(x.rsplit("/", 1)[-1] for x in a[1:]))
def test_a_full_disk_on_standard_output_is_exit_2_with_the_reason(argv):
    with open("/dev/full", "w") as full:
        proc = subprocess.run(argv, stdout=full, stderr=subprocess.PIPE, text=True, env=_env(), cwd=ROOT)
    assert proc.returncode == 2
    assert "cannot write the output: No space left on device" in _one_line(proc.stderr)


@pytest.mark.parametrize("argv", [CHECK + ["--json", SMALL], CERTIFY + ["bounds", "--m", "5000"]],
                         ids=["check.py", "certify bounds"])
def test_a_reader_that_closes_the_pipe_gets_141_or_0_and_no_traceback(argv):
    proc = subprocess.Popen(argv, stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=_env(), cwd=ROOT)
    proc.stdout.close()  # like `| head -0`: closed before the first write
    err = proc.stderr.read().decode()
    assert proc.wait() in (141, 0) and err == ""


@pytest.mark.parametrize("sig,code,word", [(signal.SIGINT, 130, "interrupted (SIGINT)"),
                                           (signal.SIGTERM, 143, "terminated (SIGTERM)")])
@pytest.mark.parametrize("argv,prog", [(CHECK + [LONG], "check.py"),
                                       (CERTIFY + ["search", "--m", "20", "--budget", "10000000"], "certify")],
                         ids=["check.py", "certify search"])
def test_a_signal_mid_run_is_128_plus_its_number_with_one_line(argv, prog, sig, code, word, tmp_path):
    # Started as from a background job (SIGINT ignored, and inherited so): the child restores it (sees_sigint).
    with as_a_background_job():
        proc = subprocess.Popen(argv + (["--out", str(tmp_path / "s.json")] if prog == "certify" else []),
                                stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, cwd=ROOT,
                                env=_env(CERTIFY_PROGRESS="1"),  # progress at once: the first line says it is working
                                preexec_fn=sees_sigint)
    try:
        first = proc.stderr.readline()
        assert first.strip(), "no progress line"
        proc.send_signal(sig)
        out, err = proc.communicate(timeout=120)
    finally:  # a failing run must not leave the process behind
        if proc.poll() is None:
            proc.kill()
            proc.communicate()
    assert proc.returncode == code
    assert err.splitlines()[-1] == f"{prog}: {word}" and "" not in err.splitlines() and "Traceback" not in err, err
    assert list(tmp_path.iterdir()) == []  # nothing written, no temporary file left


def _strict(text: str):
    def refuse(constant):
        raise ValueError(f"not JSON: {constant}")

    return json.loads(text, parse_constant=refuse)


@pytest.mark.parametrize("m", [64, 1230, 1231, 5000, 20017, 20018])
def test_bounds_json_is_strict_json_for_every_m(m):
    """m from 1,231 to 20,017 wrote Infinity for the transcript bits; now null and bits_log2."""
    proc = subprocess.run(CERTIFY + ["bounds", "--m", str(m), "--json"], capture_output=True, text=True, env=_env(),
                          cwd=ROOT)
    assert proc.returncode == 0, proc.stderr
    if hasattr(sys, "set_int_max_str_digits"):
        sys.set_int_max_str_digits(0)  # exact integers of thousands of digits are JSON too
    params = _strict(proc.stdout)["transcripts"]["parameters"]
    if "bits_log2" in params:  # q·log₂(s+1) beyond the float range
        lo, hi = params["bits_log2"]
        assert params["bits"] is None and 1023 < lo <= hi  # above the largest float, 2^1024
    if 1231 <= m <= 20017:  # the range that wrote Infinity
        assert "bits_log2" in params


def test_verify_expand_onto_its_own_input_is_refused_before_anything_is_written(tmp_path):
    cert = tmp_path / "c.json"
    cert.write_bytes((CORPUS / "valid" / "rank_nine_paper.json").read_bytes())
    before = cert.read_bytes()
    for argv in (["verify", str(cert), "--expand", str(cert)], ["family", "--from", str(cert), "--out", str(cert)]):
        proc = subprocess.run(CERTIFY + argv, capture_output=True, text=True, env=_env(), cwd=ROOT)
        assert proc.returncode == 2 and "is the input file given as" in _one_line(proc.stderr)
        assert cert.read_bytes() == before


@pytest.mark.parametrize("args", [
    ["rank-nine", "--out", "{tmp}/r.json", "--no-sharper", "--json"],
    ["verify", str(CORPUS / "valid" / "rank_nine_paper.json"), "--json"],
    ["verify", str(CORPUS / "invalid" / "paper_chains_claim_raised_to_ten.json"), "--json"],
    ["family", "jumps", "--code", "rank-nine", "--out", "{tmp}/f.json", "--json"],
    ["unique-minimizer", "--out", "{tmp}/u.json", "--json"],
    ["rank-bound", "--code", "hadamard:12", "--out", "{tmp}/h.json", "--json"],
    ["search", "--m", "8", "--budget", "50", "--out", "{tmp}/s.json", "--json"],
    ["bounds", "--m", "200", "--json"],
    ["check-kernel", str(ROOT / "docs" / "examples" / "rank15_solves.npz"), "--json"],
    ["construction", "rank-one", "--m", "3", "--length", "3", "--json"],
    ["bracket", str(CORPUS / "valid" / "shifted_rank_nine_direct.json"), "--start-rank", "15", "--lowest-rank", "15",
     "--restarts", "1", "--json"],
    ["minrank", "--m", "4", "--json"],
], ids=lambda a: a[0])
def test_every_command_s_json_is_strict_json(args, tmp_path):
    """No NaN or Infinity anywhere (json.dumps(allow_nan=False) in every command): strict parsers accept it all.
    (What the commands print, not a process fault: run in this process.)"""
    proc = run_cli_here(*[a.replace("{tmp}", str(tmp_path)) for a in args], env=_env(), cwd=ROOT)
    assert proc.returncode in (0, 1), proc.stderr
    assert isinstance(_strict(proc.stdout), dict)


def test_two_processes_writing_the_same_out_leave_one_whole_verified_file(tmp_path):
    """Atomic writes, each re-checked from the bytes its own process wrote: both succeed with their own bound,
    and the file left is the whole certificate of one of them (issue 18: a replaced --out once gave exit 3)."""
    out = tmp_path / "same.json"
    runs = [subprocess.Popen(CERTIFY + ["rank-nine", "--chains", chains, "--out", str(out), "--json"],
                             stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=_env(), cwd=tmp_path)
            for chains in ("paper", "direct", "paper", "direct")]
    docs = []
    for proc in runs:
        stdout, err = proc.communicate(timeout=300)
        assert proc.returncode == 0 and "Traceback" not in err, err
        docs.append(json.loads(stdout))
    assert [d["claim"]["rank_at_least"] for d in docs] == [9, 10, 9, 10]
    left = json.loads(out.read_text())
    sys.path.insert(0, str(ROOT))
    from certify.check import check

    assert left["sha256"] in {d["sha256"] for d in docs} and check(left).proved in (9, 10)
    names = sorted(p.name for p in tmp_path.iterdir())
    assert names == ["same.json", "same.json.sharper.json"]  # rank-nine also writes its sharper certificate; no temp file
    assert check(json.loads((tmp_path / names[1]).read_text())).proved >= 9


@pytest.mark.parametrize("restored", [False, True], ids=["inherited", "sees_sigint"])
def test_a_child_of_a_background_job_sees_sigint_only_when_it_restores_it(restored):
    """Why the signal tests start their children through :func:`conftest.sees_sigint`: a shell starts a background
    job (``pytest … &``) with SIGINT ignored, its children inherit that, and Python keeps it ignored; the test's
    SIGINT would then never arrive. Here the same start, from a process that ignores SIGINT, with and without it."""
    probe = "import signal; print(signal.getsignal(signal.SIGINT) is signal.default_int_handler)"
    with as_a_background_job():
        proc = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, timeout=60,
                              preexec_fn=sees_sigint if restored else None)
    assert proc.returncode == 0 and proc.stdout.strip() == str(restored), proc.stderr
