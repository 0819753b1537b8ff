"""K1(N) and its certificates: the producer certify/minrank/degree.py and the checker certify/check_degree.py.

``python certify/check_degree.py FILE`` checks ``certify.invariant-degree/1`` certificates
(docs/certificate-format.md, "Invariant-degree certificates"; docs/math.md §11, "The 1-D
problem and K1", Proposition I3):

* the corpus tests/degree/{valid,invalid,malformed} (written by tests/degree/make_degree_corpus.py;
  MANIFEST.json gives each file's exit code, the step or field its one line names and a phrase
  of it), in-process through ``main`` and as a script; its valid and invalid files have the
  shape of docs/invariant-degree-certificate.schema.json;
* the producer reproduces the table of K1(N) for N = 0…24, each certificate checked, and a
  polynomial of degree below K1(N) breaks some condition (property test);
* the process faults of check.py's guard: /dev/full, an ASCII locale, a bug (exit 3), --help.
"""
from __future__ import annotations

import functools
import json
import subprocess
import sys
from concurrent.futures import ThreadPoolExecutor
from fractions import Fraction
from math import comb

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from certify import check_degree as C
from certify.check import format_rational
from certify.minrank.degree import degree_certificate, k1, solve

from conftest import ROOT, assert_corpus_regenerates, checker_main, one_line, run_checker_script

CORPUS = ROOT / "tests" / "degree"
MANIFEST = json.loads((CORPUS / "MANIFEST.json").read_text(encoding="utf-8"))
CASES = [(sub, name, entry) for sub, files in MANIFEST.items() for name, entry in files.items()]
SCHEMA = json.loads((ROOT / "docs" / "invariant-degree-certificate.schema.json").read_text(encoding="utf-8"))
VALID = str(CORPUS / "valid" / "m48_degree_5.json")
SAYS = MANIFEST["valid"]["m48_degree_5.json"]["says"]
#: K1(N) for N = 0…24 (docs/math.md §11): 0 for N ≤ 1, 1 for 2–5, 2 for 6–10, 3 for 11–15, 4 for 16–20,
#: 5 for 21–25.
TABLE = [0] * 2 + [1] * 4 + [2] * 5 + [3] * 5 + [4] * 5 + [5] * 4


def _main(capsys, *args: str) -> tuple[int, str, str]:
    return checker_main(capsys, C.main, *args)


_one_line = one_line


def _run(*args: str, stdout=subprocess.PIPE, **env: str) -> subprocess.CompletedProcess:
    return run_checker_script("check_degree.py", *args, stdout=stdout, **env)


def _expect(code: int, out: str, err: str, path: str, expected: dict) -> None:
    assert code == expected["exit"], out + err
    if code == 0:
        assert err == "" and out.rstrip("\n") == expected["says"]
    else:
        prefix = f"{ {1: 'REJECTED', 2: 'MALFORMED'}[code]}: {path}: {expected['field']}: "
        line = _one_line(err)
        assert out == "" and line.startswith(prefix), line
        assert expected["says"] in line[len(prefix):], line  # in the message, not in the file's name


# --------------------------------------------------------------------------- the corpus


@pytest.mark.parametrize("sub,name,expected", CASES, ids=[f"{s}/{n}" for s, n, _ in CASES])
def test_the_corpus_gives_the_manifest_verdict_naming_the_step_or_field(capsys, sub, name, expected):
    path = str(CORPUS / sub / name)
    _expect(*_main(capsys, path), path, expected)


#: As a script (``python -I -S``, check.py beside it): every valid and invalid file, and a malformed one per field.
SCRIPT_CASES = [c for c in CASES if c[0] != "malformed"] + list(
    {e["field"]: ("malformed", n, e) for n, e in sorted(MANIFEST["malformed"].items(), reverse=True)}.values())


def test_the_corpus_gives_the_manifest_verdict_as_a_script():
    def one(case):
        sub, name, expected = case
        path = str(CORPUS / sub / name)
        proc = subprocess.run([sys.executable, "-I", "-S", str(ROOT / "certify" / "check_degree.py"), path],
                              capture_output=True, text=True, cwd=ROOT, timeout=60)
        return proc.returncode, proc.stdout, proc.stderr, path, expected

    with ThreadPoolExecutor(4) as pool:
        for result in pool.map(one, SCRIPT_CASES):
            _expect(*result)


def test_the_manifest_lists_every_corpus_file_and_the_generator_writes_it_again(tmp_path):
    assert_corpus_regenerates(CORPUS, "make_degree_corpus", tmp_path)


@functools.cache
def _validator():
    import jsonschema

    cls = jsonschema.validators.validator_for(SCHEMA)
    cls.check_schema(SCHEMA)
    return cls(SCHEMA)


@pytest.mark.parametrize("rel", [f"{s}/{n}" for s, n, e in CASES if e["exit"] in (0, 1)])
def test_well_formed_corpus_files_match_the_schema(rel):
    _validator().validate(json.loads((CORPUS / rel).read_text(encoding="utf-8")))


#: Malformed files whose fault is a value the schema cannot see (a range that depends on m, order, lowest terms, a
#: sum of sizes) or that are not JSON documents at all.
SCHEMA_BLIND = {"degree_above_N", "more_multipliers_than_conditions", "multipliers_given_at_degree_0",
                "polynomial_one_coefficient_short", "multiplier_denominators_lcm_over_4096_bits",
                "multipliers_out_of_order", "multiplier_repeated", "coefficient_not_in_lowest_terms"}


def _parsed(name: str):
    try:
        return C.loads((CORPUS / "malformed" / name).read_bytes())
    except C.CertificateFormatError:  # refused by the strict reader, before any shape
        return None


@pytest.mark.parametrize("name", [n for n in sorted(MANIFEST["malformed"]) if _parsed(n) is not None])
def test_malformed_shapes_are_refused_by_the_schema_too(name):
    import jsonschema

    doc = _parsed(name)
    if name.removesuffix(".json") in SCHEMA_BLIND:
        _validator().validate(doc)  # the schema passes it: the checker is what refuses it
    else:
        with pytest.raises(jsonschema.ValidationError):
            _validator().validate(doc)


# --------------------------------------------------------------------------- the producer


@pytest.mark.parametrize("n", range(25))
def test_the_producer_reproduces_the_table_of_k1_each_certificate_checked(n):
    doc = degree_certificate(2 * n + 1 - n % 2)  # odd and even m: N = ⌊m/2⌋ either way
    assert doc["degree"] == TABLE[n] == k1(n)
    assert C.check(json.loads(json.dumps(doc)))[1:3] == (n, TABLE[n])
    _validator().validate(doc)
    if doc["degree"]:  # the multipliers kill the binomials below the degree, and the polynomial has that degree
        assert doc["multipliers"] and doc["polynomial"][-1] not in (0, "0")


def test_the_producer_writes_small_numbers_and_refuses_m_out_of_range():
    for m in (24, 48):
        doc = degree_certificate(m)
        assert all(abs(int(c)) < 100 for c in doc["polynomial"]), doc["polynomial"]
        assert all(type(y) is int and y > 0 for _, _, y in doc["multipliers"])
    for m in (0, 201):
        with pytest.raises(ValueError):
            degree_certificate(m)
    assert degree_certificate(1)["degree"] == 0 and degree_certificate(1)["multipliers"] == []


def _h(coefficients, u: int) -> int:
    return sum(c * comb(u, e) for e, c in enumerate(coefficients))


def _meets(values: list) -> bool:
    """The chain conditions, written from their definition (docs/math.md §11), not with the checker's ``form``."""
    n = len(values) - 1
    return all(v > 0 for v in values) and all(
        values[u + d] > (d - 1) * values[u] + Fraction(d - 2, 2) * values[0]
        for d in range(2, n + 1) for u in range(n - d + 1))


@settings(max_examples=150, deadline=None)
@given(st.integers(2, 24).flatmap(lambda n: st.tuples(
    st.just(n), st.lists(st.integers(-10**6, 10**6), min_size=1, max_size=TABLE[n]))))
def test_a_polynomial_of_degree_below_k1_breaks_some_condition(case):
    n, coefficients = case
    values = [_h(coefficients, u) for u in range(n + 1)]
    assert not _meets(values)
    # and the certificate's multipliers show why: their combination of the conditions is 0 on h
    _, polynomial, multipliers = solve(n)
    assert sum(y * (values[u] if d == 0 else values[u + d] - (d - 1) * values[u] - Fraction(d - 2, 2) * values[0])
               for u, d, y in multipliers) == 0
    assert _meets([_h(polynomial, u) for u in range(n + 1)])


@settings(max_examples=100, deadline=None)
@given(st.lists(st.fractions(max_denominator=50), min_size=1, max_size=12))
def test_the_checker_s_form_is_twice_the_condition(values):
    n = len(values) - 1
    for u, d in C.conditions(n):
        want = values[u] if d == 0 else values[u + d] - (d - 1) * values[u] - Fraction(d - 2, 2) * values[0]
        assert C.form(u, d, values.__getitem__) == 2 * want
    assert _meets(values) == all(C.form(u, d, values.__getitem__) > 0 for u, d in C.conditions(n))


@settings(max_examples=40, deadline=None)
@given(st.integers(2, 24), st.integers(1, 10**6), st.data())
def test_a_positive_rescaling_of_a_certificate_still_verifies(n, scale, data):
    doc = degree_certificate(2 * n)
    num = data.draw(st.integers(1, 10**6))
    q = Fraction(num, scale)
    doc = dict(doc, polynomial=[format_rational(Fraction(int(c)) * q) for c in doc["polynomial"]],
               multipliers=[[u, d, format_rational(y / q)] for u, d, y in doc["multipliers"]])
    assert C.check(doc)[1:3] == (n, TABLE[n])


def test_conditions_are_counted_as_the_limits_say():
    for n in range(0, 30):
        conds = C.conditions(n)
        assert len(conds) == len(set(conds)) == (n + 1) + (n - 1) * n // 2 and conds == sorted(conds)


def test_the_invariant_rank_is_one_plus_the_least_multiplicity_from_k1_on():
    assert C.invariant_rank(4, 1) == 3  # mult_1 = 3, mult_2 = 6 − 4 = 2
    assert C.invariant_rank(12, 2) == 1 + 54 and C.invariant_rank(7, 0) == 1
    for m in range(2, 60):
        for k in range(1, m // 2 + 1):
            assert C.invariant_rank(m, k) >= comb(m, k) / (m + 1)  # the bound Proposition I3 states


# --------------------------------------------------------------------------- the checker as a process


def test_a_valid_file_end_to_end_and_an_ascii_locale():
    good = _run(VALID)
    assert good.returncode == 0 and good.stderr == "" and good.stdout == SAYS + "\n"
    ascii_run = _run(VALID, PYTHONIOENCODING="ascii")
    assert ascii_run.returncode == 0 and ascii_run.stderr == "" and ascii_run.stdout.startswith("VERIFIED: K1(24) = 5\n")


def test_stdout_on_dev_full_is_exit_2_with_one_line():
    with open("/dev/full", "w") as full:
        proc = _run(VALID, stdout=full)
    assert proc.returncode == 2 and "Traceback" not in proc.stderr
    assert _one_line(proc.stderr) == "check_degree.py: cannot write the output: No space left on device"


def test_a_bug_in_the_checker_is_exit_3_in_one_line(capsys, monkeypatch):
    def broken(*args):
        raise ZeroDivisionError("boom\nsecond line")

    monkeypatch.setattr(C, "conditions", broken)
    code, out, err = _main(capsys, VALID)
    assert code == 3 and out == ""
    assert _one_line(err) == ("INTERNAL CONTRADICTION: unexpected ZeroDivisionError in the checker: boom second line "
                              "(a bug in this checker)")


def test_help_lists_the_exit_codes_and_bad_usage_is_exit_2(capsys):
    code, out, err = _main(capsys, "--help")
    assert code == 0 and err == "" and out.startswith("usage: python certify/check_degree.py [--] FILE")
    codes = out[out.index("Exit codes"):]
    for number in ("0", "1", "2", "3", "130", "141", "143"):
        assert f"{number} " in codes, number
    for args in ((), (VALID, VALID), ("-x",)):
        code, out, err = _main(capsys, *args)
        assert code == 2 and out == "" and _one_line(err).startswith("usage: python certify/check_degree.py")
    code, out, err = _main(capsys, "--", VALID)
    assert code == 0 and out.rstrip("\n") == SAYS


def test_missing_files_directories_and_files_over_2_mib_are_refused_before_parsing(capsys, tmp_path):
    missing = str(tmp_path / "missing.json")
    code, out, err = _main(capsys, missing)
    assert code == 2 and _one_line(err) == f"MALFORMED: {missing}: file: no such file"
    code, out, err = _main(capsys, str(tmp_path))
    assert code == 2 and _one_line(err) == f"MALFORMED: {tmp_path}: file: is a directory"
    text = open(VALID, "rb").read().rstrip()
    at_limit = tmp_path / "at_limit.json"
    at_limit.write_bytes(text + b" " * (C.MAX_FILE_BYTES - len(text)))
    code, out, err = _main(capsys, str(at_limit))
    assert C.MAX_FILE_BYTES == 2 * 2**20 and code == 0 and out.rstrip("\n") == SAYS
    over = tmp_path / "over.json"
    over.write_bytes(text + b" " * (C.MAX_FILE_BYTES + 1 - len(text)))
    code, out, err = _main(capsys, str(over))
    assert code == 2 and _one_line(err).startswith(f"MALFORMED: {over}: limits: the file is over 2 MiB")


def test_the_largest_certificate_the_limits_allow_is_checked_in_seconds():
    """m = 200 (N = 100), degree 100, every one of the 5,051 conditions with a multiplier of a 198-digit numerator:
    well formed; h = c·Σ_e C(u, e) = c·2^u meets every condition, and the sum for the first binomial is not 0."""
    import time

    big = "9" * 198
    doc = {"schema": C.SCHEMA, "m": 200, "degree": 100, "polynomial": [big] * 101,
           "multipliers": [[u, d, big] for u, d in C.conditions(100)], "invariant_rank_at_least": 1}
    start = time.perf_counter()
    with pytest.raises(C.DegreeRejected, match=r"^gordan: Σ y·L\(C\(·, 0\)\) = "):
        C.check(doc)
    doc["polynomial"] = ["1"] + ["0"] * 99 + ["1"]  # 1 + C(u, 100): h(2) = h(0)
    with pytest.raises(C.DegreeRejected, match=r"^polynomial: \(u, d\) = \(0, 2\)"):
        C.check(doc)
    assert time.perf_counter() - start < 10


def test_the_error_kinds_and_in_process_values():
    assert issubclass(C.DegreeError, ValueError) and C.DegreeError("m", "x").exit_code == 2
    assert C.DegreeRejected("claim", "x").exit_code == 1
    doc = json.loads(open(VALID).read())
    with pytest.raises(C.DegreeError, match=r"^m: expected an integer from 1 to 200, got an integer of 16,610 b"):
        C.check(dict(doc, m=10**5000))
    with pytest.raises(C.DegreeError, match="^document: expected a JSON object"):
        C.check([doc])
