"""The checker under attack: bounded memory and time, any locale, progress (issue 7).

The corpus (tests/certificates/) holds the small hostile files; the big ones are made
here, in a temporary folder, so the repository stays small.
"""
import os
import subprocess
import sys
import time

import pytest

from certify.check import MAX_PARSE_MEMORY, CertificateLimitError, check_file, parse_memory_estimate

from conftest import CORPUS, ROOT

CHECKER = ROOT / "certify" / "check.py"
MEASURE = ("import runpy, sys\nsys.argv = ['check.py', sys.argv[1]]\ncode = 0\n"
           "try:\n    runpy.run_path(%r, run_name='__main__')\nexcept SystemExit as e:\n    code = e.code\n"
           "hwm = [ln for ln in open('/proc/self/status') if ln.startswith('VmHWM')][0].split()[1]\n"
           "print(hwm, code, file=sys.stderr)\n")


def peak_kib_and_exit(path):
    """Run the lone checker on ``path`` in a fresh interpreter; return (peak RSS in KiB, exit code).

    The peak is the process's own high-water mark (``VmHWM``, Linux), which starts afresh
    at ``exec``; ``getrusage`` would also count the memory of the forking test process.
    """
    proc = subprocess.run([sys.executable, "-c", MEASURE % str(CHECKER), str(path)], capture_output=True, text=True)
    rss, code = proc.stderr.strip().splitlines()[-1].split()
    return int(rss), int(code)


@pytest.mark.skipif(not os.path.exists("/proc/self/status"), reason="peak memory is read from /proc (Linux)")
def test_a_file_of_empty_arrays_is_refused_before_parsing(tmp_path):
    bomb = tmp_path / "bomb.json"
    bomb.write_bytes(b'{"x": [' + b",".join([b"[]"] * 10_000_000) + b"]}")  # 29 MiB
    import certify.check as C

    def no_parse(*args, **kwargs):
        raise AssertionError("the file was parsed")

    with pytest.MonkeyPatch.context() as mp:  # refused from its byte counts: json.loads is never reached
        mp.setattr(C.json, "loads", no_parse)
        with pytest.raises(CertificateLimitError, match="MiB"):
            check_file(str(bomb))
    rss, code = peak_kib_and_exit(bomb)
    assert code == 2 and rss < 150 * 1024, rss  # the file itself plus the interpreter, never the tree


def test_the_parse_estimate_bounds_the_memory_of_every_json_shape():
    import json
    import tracemalloc

    n = 20_000
    shapes = {"empty arrays": "[" + ",".join(["[]"] * n) + "]", "objects": "[" + ",".join(['{"a":{}}'] * n) + "]",
              "small ints": "[" + ",".join(["7"] * n) + "]", "ints": "[" + ",".join(["9999999"] * n) + "]",
              "strings": "[" + ",".join(['"0101"'] * n) + "]", "nested": "[" + ",".join(["[[[]]]"] * n) + "]",
              "non-ascii": '["' + "é" * n + '", "\U0001f600"]'}
    for name, text in shapes.items():
        data = text.encode()
        tracemalloc.start()
        json.loads(data.decode())
        peak = tracemalloc.get_traced_memory()[1]
        tracemalloc.stop()
        assert peak <= parse_memory_estimate(data), name


def test_the_parse_memory_limit_is_below_a_gibibyte():
    assert MAX_PARSE_MEMORY <= 2**30


@pytest.mark.parametrize("encoding", ["ascii", "latin-1", "cp1252", "utf-8"])
def test_any_stdout_encoding_prints_the_verdict(encoding):
    env = dict(os.environ, PYTHONIOENCODING=encoding)
    for cmd in ([sys.executable, str(CHECKER)], [sys.executable, "-m", "certify.cli", "verify"]):
        ok = subprocess.run(cmd + [str(CORPUS / "valid" / "small_paper.json")], capture_output=True, env=env, cwd=ROOT)
        assert ok.returncode == 0, ok.stderr
        text = ok.stdout.decode(encoding)
        assert ("r ≥ 3" if encoding == "utf-8" else "r >= 3") in text
        bad = subprocess.run(cmd + [str(CORPUS / "invalid" / "claim_raised.json")], capture_output=True, env=env, cwd=ROOT)
        assert bad.returncode == 1 and b"Traceback" not in bad.stderr


def test_cli_commands_print_under_an_ascii_locale(tmp_path):
    env = dict(os.environ, PYTHONIOENCODING="latin-1")
    proc = subprocess.run([sys.executable, "-m", "certify.cli", "rank-nine", "--out", str(tmp_path / "c.json")],
                          capture_output=True, env=env)
    assert proc.returncode == 0 and b"r >= 9" in proc.stdout


def test_progress_is_shown_on_request_and_not_by_default():
    env = dict(os.environ, CERTIFY_PROGRESS="1")
    path = str(CORPUS / "valid" / "rank_nine_paper.json")
    shown = subprocess.run([sys.executable, str(CHECKER), path], capture_output=True, text=True, env=env)
    quiet = subprocess.run([sys.executable, str(CHECKER), path], capture_output=True, text=True)
    assert shown.returncode == quiet.returncode == 0
    assert "checking certificate:" in shown.stderr and quiet.stderr == ""


@pytest.mark.parametrize("rel", ["invalid/many_codewords_few_chains.json", "invalid/huge_chain_product_in_message.json",
                                 "malformed/chain_product_over_limit.json"])
def test_costly_attacks_are_decided_in_well_under_a_second(rel):
    from certify.check import CertificateError

    from conftest import cpu_unit

    start = time.process_time()  # CPU time in units of a reference check: any machine's speed or load scales both
    with pytest.raises(CertificateError) as info:
        check_file(str(CORPUS / rel))
    assert time.process_time() - start < 60 * cpu_unit()  # ≈ 1 s here
    assert len(str(info.value)) < 300


@pytest.mark.parametrize("flag", ["--help", "-h"])
def test_check_py_help_is_a_paragraph_on_stdout_and_exit_0(flag):
    """Issue 29: ``python certify/check.py --help`` printed the usage line on stderr and exited 2 (the file people
    copy should say what it does). Now: what it checks, its options and its exit codes, exit 0; after ``--`` a
    file named --help is still a path."""
    proc = subprocess.run([sys.executable, str(CHECKER), flag], capture_output=True, text=True)
    assert proc.returncode == 0 and proc.stderr == ""
    assert proc.stdout.startswith("usage: check.py") and "standard library" in proc.stdout
    assert "Exit codes: 0 verified, 1 rejected, 2 malformed" in proc.stdout and "--max-work N" in proc.stdout
    proc = subprocess.run([sys.executable, str(CHECKER), "--", flag], capture_output=True, text=True)
    assert proc.returncode == 2 and "no such file" in proc.stderr


def test_a_path_starting_with_a_dash_is_read_after_double_dash(tmp_path):
    import shutil

    shutil.copy(CORPUS / "valid" / "small_paper.json", tmp_path / "-cert.json")
    ok = subprocess.run([sys.executable, str(CHECKER), "--", "-cert.json"], capture_output=True, text=True, cwd=tmp_path)
    refused = subprocess.run([sys.executable, str(CHECKER), "-cert.json"], capture_output=True, text=True, cwd=tmp_path)
    assert ok.returncode == 0 and refused.returncode == 2 and "usage" in refused.stderr
