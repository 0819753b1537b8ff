"""The lower-side obstruction checker fails closed like certify/check.py (issue 42, point 4).

``python certify/check_obstruction.py FILE`` checks the ``certify.minrank-lower/1``
certificates of ``certify minrank`` (docs/certificate-format.md, "Lower-side obstruction
certificates"; docs/math.md §11):

* the corpus tests/minrank/{valid,invalid,malformed} (written by
  tests/minrank/make_obstruction_corpus.py; MANIFEST.json gives each file's exit code, the
  field its one line names and a phrase of it), run in-process through ``main``;
* the process faults of check.py: standard output on ``/dev/full`` (exit 2, one line), an
  ASCII locale (``>=`` for ``≥``), a closed pipe (141), Ctrl-C (130), SIGTERM (143), a bug
  in the checker (3, one line); ``--help`` lists the exit codes;
* reading as check.py's ``load``, with this format's 1 MiB checked before parsing.

Subprocesses only where the process matters (/dev/full, the locale, the pipe, one valid and
one invalid file end to end); everything else calls ``main`` in-process.
"""
from __future__ import annotations

import json
import os
import signal
import subprocess
import time

import pytest

from certify import check_obstruction as O

from conftest import ROOT, assert_corpus_regenerates, checker_main, one_line, run_checker_script

CORPUS = ROOT / "tests" / "minrank"
MANIFEST = json.loads((CORPUS / "MANIFEST.json").read_text(encoding="utf-8"))
CASES = [(sub, name, entry) for sub, files in MANIFEST.items() for name, entry in files.items()]
FIVE = str(CORPUS / "valid" / "m5_orders_rank3.json")
REJECTED = str(CORPUS / "invalid" / "rank_three_claimed_from_the_m4_pair.json")
RESULTS = ROOT / "docs" / "results" / "minrank"
COMMITTED = sorted(RESULTS.glob("*.lower.obstruction.json")) + sorted(RESULTS.glob("*.lower.regions.json"))


def _main(capsys, *args: str) -> tuple[int, str, str]:
    return checker_main(capsys, O.main, *args)


_one_line = one_line


def _run(*args: str, stdout=subprocess.PIPE, **env: str) -> subprocess.CompletedProcess:
    return run_checker_script("check_obstruction.py", *args, stdout=stdout, **env)


# --------------------------------------------------------------------------- the corpus


@pytest.mark.parametrize("sub,name,expected", CASES, ids=[f"{s}/{n}" for s, n, _ in CASES])
def test_the_corpus_gives_the_manifest_verdict_in_one_line_naming_the_field(capsys, sub, name, expected):
    path = str(CORPUS / sub / name)
    code, out, err = _main(capsys, path)
    assert code == expected["exit"], out + err
    if code == 0:
        assert err == "" and _one_line(out) == expected["says"]
    else:
        prefix = f"{ {1: 'REJECTED', 2: 'MALFORMED'}[code]}: {path}: {expected['field']}: "
        line = _one_line(err)
        assert out == "" and line.startswith(prefix), line
        assert expected["says"] in line[len(prefix):], line  # in the message, not in the file's name


def test_the_manifest_lists_every_corpus_file_and_the_generator_writes_it_again(tmp_path):
    assert_corpus_regenerates(CORPUS, "make_obstruction_corpus", tmp_path)


@pytest.mark.parametrize("path", COMMITTED, ids=[p.name for p in COMMITTED])
def test_the_committed_lower_bounds_still_verify_with_their_bound(capsys, path):
    doc = json.loads(path.read_text())
    code, out, err = _main(capsys, str(path))
    assert code == 0 and err == "" and _one_line(out) == f"VERIFIED: r*({doc['m']}, 3) ≥ {doc['rank_at_least']}"


# --------------------------------------------------------------------------- the reproducers of issue 42, point 4


def test_unknown_and_repeated_keys_are_refused_naming_the_key(capsys, tmp_path):
    """Was VERIFIED (an extra key ignored, the last of two keys taken)."""
    five = json.loads(open(FIVE).read())
    extra = tmp_path / "extra.json"
    extra.write_text(json.dumps(dict(five, extra=1)))
    code, out, err = _main(capsys, str(extra))
    assert code == 2 and out == "" and "document: unknown key 'extra'" in _one_line(err)
    twice = tmp_path / "twice.json"
    twice.write_text(json.dumps(five).replace('"rank_at_least": 3', '"rank_at_least": 2, "rank_at_least": 3'))
    code, out, err = _main(capsys, str(twice))
    assert code == 2 and out == "" and "format: key 'rank_at_least' appears twice" in _one_line(err)
    with pytest.raises(O.ObstructionError, match="unknown key 'extra'"):  # the in-process API too
        O.check(dict(five, extra=1))


def test_raw_exceptions_are_replaced_by_check_py_messages(capsys):
    """Were: "use sys.set_int_max_str_digits()", a codec message, "maximum recursion depth"."""
    cases = {"m_with_5001_digits.json": "m: integer 1111", "utf16_bom.json": "format: not UTF-8 text (byte 0)",
             "nested_100000_deep.json": "format: JSON nested too deeply"}
    for name, says in cases.items():
        path = str(CORPUS / "malformed" / name)
        code, out, err = _main(capsys, path)
        line = _one_line(err)
        assert code == 2 and line.startswith(f"MALFORMED: {path}: {says}"), line
        assert "set_int_max_str_digits" not in line and "codec" not in line and "recursion" not in line


def test_a_huge_integer_in_process_is_described_not_converted():
    five = json.loads(open(FIVE).read())
    with pytest.raises(O.ObstructionError, match=r"^m: expected an integer from 2 to 12, got an integer of 16,610 b"):
        O.check(dict(five, m=10**5000))


def test_stdout_on_dev_full_is_exit_2_with_one_line():
    """Was a traceback and exit 1 ("rejected") for a valid file."""
    with open("/dev/full", "w") as full:
        proc = _run(FIVE, stdout=full)
    assert proc.returncode == 2 and "Traceback" not in proc.stderr
    assert _one_line(proc.stderr) == "check_obstruction.py: cannot write the output: No space left on device"


def test_an_ascii_locale_gets_the_verdict_in_ascii():
    """Was a UnicodeEncodeError traceback and exit 1 for a valid file."""
    proc = _run(FIVE, PYTHONIOENCODING="ascii")
    assert proc.returncode == 0 and proc.stderr == "" and proc.stdout == "VERIFIED: r*(5, 3) >= 3\n"


def test_a_closed_pipe_is_141_silently():
    read, write = os.pipe()
    os.close(read)
    try:
        proc = _run(FIVE, stdout=write)
    finally:
        os.close(write)
    assert proc.returncode == 141 and proc.stderr == ""


def test_a_valid_and_an_invalid_file_end_to_end():
    good = _run(FIVE)
    assert good.returncode == 0 and good.stdout == "VERIFIED: r*(5, 3) ≥ 3\n" and good.stderr == ""
    bad = _run(REJECTED)
    assert bad.returncode == 1 and bad.stdout == "" and "Traceback" not in bad.stderr
    assert _one_line(bad.stderr).startswith(f"REJECTED: {REJECTED}: rank_at_least: 3 does not follow")


def test_ctrl_c_and_sigterm_are_130_and_143_with_one_line(capsys, monkeypatch):
    def interrupted(*args):
        raise KeyboardInterrupt

    monkeypatch.setattr(O, "sides", interrupted)
    try:
        code, out, err = _main(capsys, FIVE)
    except KeyboardInterrupt:  # escaped the checker: fail this test, not the whole session
        pytest.fail("KeyboardInterrupt escaped main()")
    assert code == 130 and out == "" and _one_line(err) == "check_obstruction.py: interrupted (SIGINT)"

    class Unguarded(Exception):
        pass

    def unguarded(signum, frame):  # only reached if the checker installed no SIGTERM handler of its own
        raise Unguarded

    def terminated(*args):
        os.kill(os.getpid(), signal.SIGTERM)
        time.sleep(10)  # the handler raises here

    monkeypatch.setattr(O, "sides", terminated)
    previous = signal.signal(signal.SIGTERM, unguarded)
    try:
        code, out, err = _main(capsys, FIVE)
        assert signal.getsignal(signal.SIGTERM) is unguarded  # put back afterwards
    finally:
        signal.signal(signal.SIGTERM, previous)
    assert code == 143 and out == "" and _one_line(err) == "check_obstruction.py: terminated (SIGTERM)"


def test_a_bug_in_the_checker_is_exit_3_in_one_line(capsys, monkeypatch):
    def broken(*args):
        raise ZeroDivisionError("boom\nsecond line")

    monkeypatch.setattr(O, "sides", broken)
    code, out, err = _main(capsys, FIVE)
    assert code == 3 and out == ""
    assert _one_line(err) == ("INTERNAL CONTRADICTION: unexpected ZeroDivisionError in the checker: boom second line "
                              "(a bug in this checker)")


def test_help_lists_the_exit_codes_and_bad_usage_is_exit_2(capsys):
    code, out, err = _main(capsys, "--help")
    assert code == 0 and err == "" and out.startswith("usage: python certify/check_obstruction.py [--] FILE")
    codes = out[out.index("Exit codes"):]
    for number in ("0", "1", "2", "3", "130", "141", "143"):
        assert f"{number} " in codes, number
    assert "1 MiB" in out
    for args in ((), (FIVE, FIVE), ("-x",), ("-x", FIVE)):
        code, out, err = _main(capsys, *args)
        assert code == 2 and out == "" and _one_line(err).startswith("usage: python certify/check_obstruction.py")
    code, out, err = _main(capsys, "--", FIVE)  # "--": the next argument is the path
    assert code == 0 and _one_line(out) == "VERIFIED: r*(5, 3) ≥ 3"


# --------------------------------------------------------------------------- reading as check.py's load


def test_missing_files_directories_and_files_over_1_mib_are_refused_before_parsing(capsys, tmp_path):
    missing = str(tmp_path / "missing.json")
    code, out, err = _main(capsys, missing)
    assert code == 2 and _one_line(err) == f"MALFORMED: {missing}: file: no such file"
    code, out, err = _main(capsys, str(tmp_path))
    assert code == 2 and _one_line(err) == f"MALFORMED: {tmp_path}: file: is a directory"
    text = open(FIVE, "rb").read().rstrip()
    at_limit = tmp_path / "at_limit.json"
    at_limit.write_bytes(text + b" " * (O.MAX_FILE_BYTES - len(text)))  # exactly 1 MiB: read and verified
    code, out, err = _main(capsys, str(at_limit))
    assert O.MAX_FILE_BYTES == 2**20 and code == 0 and _one_line(out) == "VERIFIED: r*(5, 3) ≥ 3"
    over = tmp_path / "over.json"
    over.write_bytes(text + b" " * (O.MAX_FILE_BYTES + 1 - len(text)))
    code, out, err = _main(capsys, str(over))
    assert code == 2 and _one_line(err).startswith(f"MALFORMED: {over}: limits: the file is over 1 MiB")
    odd = tmp_path / "two\nlines.json"  # a newline in the name never makes a second line
    odd.write_text("{")
    code, out, err = _main(capsys, str(odd))
    assert code == 2 and "format: " in _one_line(err)


def test_the_checker_s_error_kind_is_a_format_error():
    """Its imports (the standard library and check.py beside it): tests/test_check_independence.py."""
    assert issubclass(O.ObstructionError, ValueError) and O.ObstructionError("m", "x").exit_code == 2


# --------------------------------------------------------------------------- "disjoint-queries" (§11, the pair queries)


def test_pairs_certificate_proves_half_of_m_and_fits_the_file_limit_at_the_largest_m(capsys, tmp_path):
    from certify.minrank.lower import pairs_certificate

    assert pairs_certificate(1) is None
    for m in list(range(2, 40)) + [O.MAX_M_QUERIES]:
        doc = pairs_certificate(m)
        assert doc["rank_at_least"] == m // 2 and O.check(json.loads(json.dumps(doc))) == m // 2, m
    with pytest.raises(ValueError, match="m ≤ 1024"):
        pairs_certificate(O.MAX_M_QUERIES + 1)
    path = tmp_path / "m1024.json"  # the largest standard certificate is a file the script reads
    path.write_text(json.dumps(pairs_certificate(O.MAX_M_QUERIES)))
    assert path.stat().st_size < O.MAX_FILE_BYTES
    code, out, err = _main(capsys, str(path))
    assert code == 0 and _one_line(out) == "VERIFIED: r*(1024, 3) ≥ 512"


def test_disjoint_queries_name_the_query_and_keep_huge_claims_out_of_messages():
    doc = {"schema": O.SCHEMA, "m": 6, "rank_at_least": 2, "argument": "disjoint-queries",
           "queries": ["110000", "000011", "001100"]}
    assert O.explain(doc) == (2, "", "")  # any order, a claim below the number of queries: stated as given
    assert O.explain(dict(doc, queries=["110000", "000011", "010100"]))[:2] == (0, "queries[2]")
    assert O.explain(dict(doc, queries=["000000"]))[:2] == (0, "queries[0]")  # weight 0 (the empty query)
    assert O.explain(dict(doc, rank_at_least=4))[1] == "rank_at_least"
    with pytest.raises(O.ObstructionError, match=r"^rank_at_least: expected an integer from 1 to 2\^53 - 1, got an "
                                                 r"integer of 16,610 bits"):
        O.check(dict(doc, rank_at_least=10**5000))
    with pytest.raises(O.ObstructionError, match="^queries: expected a nonempty array"):
        O.check(dict(doc, queries={"x": "110000"}))
