"""The symmetric-kernel checker ``certify/check_symmetric.py`` (docs/certificate-format.md, "Symmetric-kernel
certificates"; docs/math.md §11).

* the corpus tests/symmetric/{valid,invalid,malformed} (written by
  tests/symmetric/make_symmetric_corpus.py; MANIFEST.json gives each file's exit code, the step or
  field its one line names and a phrase of it), in-process through ``main``, and the generator
  writes the same bytes again;
* the mathematics the checker rests on, as properties over random small kernels (``m ≤ 5``):
  the β transform and the inverse map are inverse to each other, ``β = G·H`` as tabulated, and
  ``Σ_κ mult(κ)·rank B_κ`` is the rank of the explicit ``2^m × 2^m`` matrix (python-flint, in the
  test only); ``exact_rank`` against python-flint;
* the step ``blocks`` catches a wrong inverse map; the work estimate refuses large numbers
  before eliminating; ``--max-work``; the process as check.py's (``/dev/full``, a closed pipe, a
  bug is exit 3 in one line, an ASCII locale, ``--help``);
* the schema docs/symmetric-kernel-certificate.schema.json holds every well-formed corpus file.

Subprocesses only where the process matters; everything else calls ``main`` in-process.
"""
from __future__ import annotations

import json
import os
import random
import subprocess
from fractions import Fraction
from itertools import product
from math import prod

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from certify import check_symmetric as S

from conftest import ROOT, assert_corpus_regenerates, checker_main, one_line, run_checker_script

CORPUS = ROOT / "tests" / "symmetric"
MANIFEST = json.loads((CORPUS / "MANIFEST.json").read_text(encoding="utf-8"))
CASES = [(sub, name, entry) for sub, files in MANIFEST.items() for name, entry in files.items()]
FOUR = str(CORPUS / "valid" / "m4_s4_three_halves.json")
ROWS = str(CORPUS / "invalid" / "row_inequality_violated_c_eleven_tenths.json")


def _main(capsys, *args: str) -> tuple[int, str, str]:
    return checker_main(capsys, S.main, *args)


_one_line = one_line


def _run(*args: str, stdout=subprocess.PIPE, **env: str) -> subprocess.CompletedProcess:
    return run_checker_script("check_symmetric.py", *args, stdout=stdout, **env)


def _doc(sub: str, name: str) -> dict:
    return json.loads((CORPUS / sub / name).read_text(encoding="utf-8"))


# --------------------------------------------------------------------------- the corpus


@pytest.mark.parametrize("sub,name,expected", CASES, ids=[f"{s}/{n}" for s, n, _ in CASES])
def test_the_corpus_gives_the_manifest_verdict_in_one_line_naming_the_step(capsys, sub, name, expected):
    path = str(CORPUS / sub / name)
    code, out, err = _main(capsys, path)
    assert code == expected["exit"], out + err
    if code == 0:
        lines = out.splitlines()
        assert err == "" and len(lines) == 2 and lines[0] == expected["says"]
        assert lines[1].startswith("  a kernel invariant under S_")
    else:
        prefix = f"{ {1: 'REJECTED', 2: 'MALFORMED'}[code]}: {path}: {expected['field']}: "
        line = _one_line(err)
        assert out == "" and line.startswith(prefix), line
        assert expected["says"] in line[len(prefix):], line


def test_the_manifest_lists_every_corpus_file_and_the_generator_writes_it_again(tmp_path):
    assert_corpus_regenerates(CORPUS, "make_symmetric_corpus", tmp_path)


def test_the_in_process_check_returns_the_claim_and_the_blocks():
    result = S.check(_doc("valid", "m4_s2_s2_three_halves.json"))
    assert (result.m, result.parts, result.rank) == (4, [2, 2], 16)
    assert result.blocks == [((0, 0), 9, 1), ((0, 1), 3, 1), ((1, 0), 3, 1), ((1, 1), 1, 1)]
    assert result.lines()[1] == ("  a kernel invariant under S_2 × S_2, blocks (0, 0) rank 9 ×1, (0, 1) rank 3 ×1, "
                                 "(1, 0) rank 3 ×1, (1, 1) rank 1 ×1")
    with pytest.raises(S.SymmetricError, match=r"^m: expected an integer from 1 to 64, got an integer of 16,610 b"):
        S.check(dict(_doc("valid", "m2_s2_rank2.json"), m=10**5000))


# --------------------------------------------------------------------------- the mathematics, on random kernels


def _parts(rng: random.Random) -> list[int]:
    m = rng.randint(1, 5)
    cuts = sorted(rng.sample(range(1, m), rng.randint(0, min(m - 1, 3)))) if m > 1 else []
    return [b - a for a, b in zip([0] + cuts, cuts + [m])]


def _cells(parts):
    return list(product(*(S.part_cells(a) for a in parts)))


def _flint_rank(A) -> int:
    import flint

    return flint.fmpq_mat([[flint.fmpq(Fraction(v).numerator, Fraction(v).denominator) for v in r] for r in A]).rank()


def _explicit(parts, f):
    offsets = [sum(parts[:l]) for l in range(len(parts))]

    def cell(x, z):
        return tuple((((x >> o) & ((1 << a) - 1)).bit_count(), ((z >> o) & ((1 << a) - 1)).bit_count(),
                      (((x & z) >> o) & ((1 << a) - 1)).bit_count()) for o, a in zip(offsets, parts))

    m = sum(parts)
    return [[f[cell(x, z)] for z in range(1 << m)] for x in range(1 << m)]


@settings(max_examples=25, deadline=None)
@given(st.integers(0, 2**32))
def test_the_transform_and_the_inverse_map_are_inverse(seed):
    rng = random.Random(seed)
    parts = _parts(rng)
    f = {c: Fraction(rng.randint(-9, 9), rng.randint(1, 4)) for c in _cells(parts)}
    blocks = S.blocks_of_kernel(parts, f)
    assert sorted(blocks) == sorted(product(*(range(a // 2 + 1) for a in parts)))
    assert all(len(B) == len(S.block_rows(parts, k)) for k, B in blocks.items())
    assert S.kernel_from_blocks(parts, blocks) == f
    some = {k: B for k, B in blocks.items() if rng.random() < 0.5}  # the others zero
    again = S.blocks_of_kernel(parts, S.kernel_from_blocks(parts, some))
    assert all(again[k] == some.get(k, [[0] * len(B) for _ in B]) for k, B in again.items())


@settings(max_examples=25, deadline=None)
@given(st.integers(0, 2**32))
def test_the_rank_of_the_explicit_matrix_is_the_sum_over_the_blocks(seed):
    rng = random.Random(seed)
    parts = _parts(rng)
    blocks = {}
    for index in product(*(range(a // 2 + 1) for a in parts)):
        n, r = len(S.block_rows(parts, index)), rng.randint(0, 3)
        L, R = ([[Fraction(rng.randint(-3, 3), rng.randint(1, 2)) for _ in range(r)] for _ in range(n)] for _ in "LR")
        blocks[index] = [[sum((x * y for x, y in zip(u, v)), Fraction(0)) for v in R] for u in L]
    formula = sum(prod(S.mult(a, k) for a, k in zip(parts, index)) * S.exact_rank(B) for index, B in blocks.items())
    assert _flint_rank(_explicit(parts, S.kernel_from_blocks(parts, blocks))) == formula


def test_beta_is_the_tabulated_product_and_symmetric_in_i_and_j():
    for a in range(1, 9):
        for i, j in product(range(a + 1), repeat=2):
            n, tlo, G, H, *_ = S._table(a, min(i, j), max(i, j))
            for k, t in product(range(n), range(tlo, tlo + n)):
                want = S.beta(a, i, j, k, t)
                assert want == sum(G[k][u] * H[u][t - tlo] for u in range(n)) == S.beta(a, j, i, k, t)
    assert [S.mult(6, k) for k in range(4)] == [1, 5, 9, 5] and len(S.part_cells(4)) == 35


@settings(max_examples=40, deadline=None)
@given(st.integers(0, 2**32))
def test_exact_rank_is_flint_s(seed):
    rng = random.Random(seed)
    n, m, r = rng.randint(1, 7), rng.randint(1, 7), rng.randint(0, 4)
    L = [[Fraction(rng.randint(-4, 4), rng.randint(1, 5)) for _ in range(r)] for _ in range(n)]
    R = [[Fraction(rng.randint(-4, 4), rng.randint(1, 5)) for _ in range(m)] for _ in range(r)]
    A = [[sum((L[i][q] * R[q][j] for q in range(r)), Fraction(0)) for j in range(m)] for i in range(n)]
    assert S.exact_rank(A) == _flint_rank(A)


# --------------------------------------------------------------------------- the guards


def test_a_wrong_inverse_map_is_caught_by_the_round_trip(capsys, monkeypatch):
    """The inverse map is not trusted: whatever kernel it gives, its blocks must be the listed ones."""
    right = S._kernel

    def wrong(parts, blocks):
        f = right(parts, blocks)
        f[(1,), (2,)] = [v + Fraction(1, 7) for v in f[(1,), (2,)]]
        return f

    monkeypatch.setattr(S, "_kernel", wrong)
    code, out, err = _main(capsys, FOUR)
    assert code == 1 and _one_line(err).startswith(f"REJECTED: {FOUR}: blocks: block (0) entry ((1), (2)) is ")


def test_large_numbers_are_refused_by_the_work_estimate_before_any_elimination():
    """Rationals of 200 characters over unrelated denominators: the rank's elimination would take minutes."""
    rng = random.Random(5)
    entries = [[str(Fraction(rng.randrange(10**98, 10**99), rng.randrange(10**98, 10**99))) for _ in range(49)]
               for _ in range(49)]
    doc = {"schema": S.SCHEMA, "m": 48, "parts": [48], "rank_at_most": 49,
           "blocks": [{"index": [0], "rank": 49, "entries": entries}]}
    assert S.work([48], [(49, None, 0)]) < S.MAX_WORK // 10  # the dimensions alone pass: the numbers do not
    with pytest.raises(S.CertificateLimitError, match="^limits: .*(work estimate|common denominator)"):
        S.check(doc)
    small = [[str(Fraction(rng.randrange(1, 10), rng.randrange(1, 10))) for _ in range(49)] for _ in range(49)]
    with pytest.raises(S.SymmetricRejected):  # the same block with one-digit numbers is checked (and rejected)
        S.check(dict(doc, blocks=[{"index": [0], "rank": 49, "entries": small}]))


def test_unrelated_denominators_are_refused_as_they_are_read():
    """Review, issue 44: entries "1/q" with distinct 198-digit q made the inverse map's integers grow to tens of
    thousands of bits (minutes, GB) under a small work estimate; the file's common denominator is now bounded."""
    rng = random.Random(7)
    qs = [rng.randrange(10**197, 10**198) | 1 for _ in range(40)]
    left = [[f"1/{q}"] for q in qs[:25]]
    right = [[f"1/{q}"] for q in qs[15:40]]
    doc = {"schema": S.SCHEMA, "m": 48, "parts": [48], "rank_at_most": 1,
           "blocks": [{"index": [0], "rank": 1, "left": left + [["1"]] * 24, "right": right + [["1"]] * 24}]}
    with pytest.raises(S.CertificateLimitError, match="common denominator .* exceeds 2\\^4096"):
        S.check(doc)


def test_many_small_parts_count_their_pairs_of_weight_tuples():
    """Review, issue 44: eight parts of size 1 cost 2p transform calls per pair of weight tuples (65,536 pairs)."""
    assert S.work([1] * 8, []) >= 40 * 8 * 256 ** 2 and S.work([2, 2] + [1] * 6, []) > S.MAX_WORK


def test_max_work_sets_the_cap(capsys):
    code, out, err = _main(capsys, "--max-work", "100", FOUR)
    assert code == 2 and "limits: the check's work estimate is" in _one_line(err) and "by --max-work" in err
    code, out, err = _main(capsys, "--max-work", "10000000", FOUR)
    assert code == 0 and out.startswith("VERIFIED: r*(4, 3) ≤ 16\n")
    code, out, err = _main(capsys, "--max-work", "ten", FOUR)
    assert code == 2 and _one_line(err).startswith("MALFORMED: --max-work: expected an integer")


def test_help_lists_the_exit_codes_and_bad_usage_is_exit_2(capsys):
    code, out, err = _main(capsys, "--help")
    assert code == 0 and err == "" and out.startswith("usage: python certify/check_symmetric.py")
    codes = out[out.index("Exit codes"):]
    for number in ("0", "1", "2", "3", "130", "141", "143"):
        assert f"{number} " in codes, number
    for args in ((), (FOUR, FOUR), ("-x", FOUR)):
        code, out, err = _main(capsys, *args)
        assert code == 2 and out == "" and _one_line(err).startswith("usage: python certify/check_symmetric.py")


def test_files_are_read_as_check_py_reads_them(capsys, tmp_path):
    missing = str(tmp_path / "missing.json")
    code, out, err = _main(capsys, missing)
    assert code == 2 and _one_line(err) == f"MALFORMED: {missing}: file: no such file"
    code, out, err = _main(capsys, str(tmp_path))
    assert code == 2 and _one_line(err) == f"MALFORMED: {tmp_path}: file: is a directory"
    over = tmp_path / "over.json"
    over.write_bytes(b" " * (S.MAX_FILE_BYTES + 1))
    code, out, err = _main(capsys, str(over))
    assert code == 2 and _one_line(err).startswith(f"MALFORMED: {over}: limits: the file is over 16 MiB")


def test_a_bug_in_the_checker_is_exit_3_in_one_line(capsys, monkeypatch):
    def broken(*args):
        raise ZeroDivisionError("boom\nsecond line")

    monkeypatch.setattr(S, "_row", broken)
    code, out, err = _main(capsys, FOUR)
    assert code == 3 and out == "" and _one_line(err) == (
        "INTERNAL CONTRADICTION: unexpected ZeroDivisionError in the checker: boom second line (a bug in this checker)")


def test_the_script_end_to_end_with_the_process_faults_check_py_handles():
    good, bad = _run(FOUR), _run(ROWS)
    assert good.returncode == 0 and good.stderr == "" and good.stdout.startswith("VERIFIED: r*(4, 3) ≤ 16\n")
    assert bad.returncode == 1 and bad.stdout == "" and _one_line(bad.stderr).startswith(f"REJECTED: {ROWS}: row: ")
    ascii_ = _run(FOUR, PYTHONIOENCODING="ascii")
    assert ascii_.returncode == 0 and ascii_.stdout.startswith("VERIFIED: r*(4, 3) <= 16\n  a kernel invariant under S_4")
    with open("/dev/full", "w") as full:
        proc = _run(FOUR, stdout=full)
    assert proc.returncode == 2 and _one_line(proc.stderr) == "check_symmetric.py: cannot write the output: No space left on device"
    read, write = os.pipe()
    os.close(read)
    try:
        proc = _run(FOUR, stdout=write)
    finally:
        os.close(write)
    assert proc.returncode == 141 and proc.stderr == ""


# --------------------------------------------------------------------------- the schema and the docs


def _validator():
    import jsonschema

    schema = json.loads((ROOT / "docs" / "symmetric-kernel-certificate.schema.json").read_text())
    cls = jsonschema.validators.validator_for(schema)
    cls.check_schema(schema)
    return cls(schema)


def test_every_well_formed_corpus_file_has_the_schema_s_shape_and_some_malformed_ones_do_not():
    import jsonschema

    v = _validator()
    for sub, name, _ in CASES:
        if sub != "malformed":
            v.validate(_doc(sub, name))
    for name in ("both_entries_and_factors.json", "unknown_key_extra.json", "m_65_over_the_limit.json",
                 "blocks_empty.json", "entry_as_a_decimal_string.json", "left_without_right.json",
                 "note_of_2001_characters.json", "block_rank_zero.json", "nine_parts.json"):
        with pytest.raises(jsonschema.ValidationError):
            v.validate(_doc("malformed", name))


def test_the_example_of_the_format_section_verifies():
    text = (ROOT / "docs" / "certificate-format.md").read_text(encoding="utf-8")
    section = text[text.index("## Symmetric-kernel certificates"):]
    example = section[section.index("```json\n") + 8:section.index("\n```", section.index("```json\n"))]
    doc = json.loads(example)
    assert S.check(doc).lines()[0] == "VERIFIED: r*(2, 3) ≤ 2"
    assert doc == _doc("valid", "m2_s2_rank2_factored.json")
