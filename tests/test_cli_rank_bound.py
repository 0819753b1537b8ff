"""The CLI of issue 10: rank-bound, search, verify --expand, check-kernel --family with a compact certificate."""
import json

import pytest

from conftest import ROOT, assert_one_line_error, run_cli, run_cli_here


def test_rank_bound_hadamard24_explicit(tmp_path):
    out = tmp_path / "h.json"
    proc = run_cli_here("rank-bound", "--code", "hadamard24", "--out", str(out))
    assert proc.returncode == 0, proc.stderr
    assert "r ≥ 17" in proc.stdout and "version 1" in proc.stdout
    assert "distance 12: gaps 4+4+4 → F = 27  (46 ordered pairs)" in proc.stdout
    assert json.loads(out.read_text())["version"] == 1


def test_rank_bound_compact_json_and_verify_expand(tmp_path):
    out = tmp_path / "r9.json"
    proc = run_cli_here("rank-bound", "--code", "rank-nine", "--chains", "paper", "--form", "compact", "--out", str(out), "--json")
    assert proc.returncode == 0, proc.stderr
    summary = json.loads(proc.stdout)
    assert summary["version"] == 2 and summary["counts"]["inputs"] == 855
    # the default last step is the sharpest (docs/math.md §5): null-shifted, r ≥ 12, beside trace–Frobenius's 9
    assert summary["claim"]["rank_at_least"] == 12 and summary["trace_frobenius"] == 9
    assert summary["argument"]["name"] == "null-shifted" and summary["argument"]["s"] == "1/8"
    fam = tmp_path / "fam.json"
    proc = run_cli_here("verify", str(out), "--expand", str(fam))
    assert proc.returncode == 0 and "855 inputs written" in proc.stdout
    inputs = json.loads(fam.read_text())["family"]["inputs"]
    explicit = json.loads((ROOT / "tests" / "certificates" / "valid" / "rank_nine_paper.json").read_text())
    assert inputs == explicit["family"]["inputs"]


def test_check_kernel_accepts_a_compact_family(tmp_path):
    out = tmp_path / "r9.json"
    assert run_cli_here("rank-bound", "--code", "rank-nine", "--form", "compact", "--out", str(out)).returncode == 0
    proc = run_cli_here("check-kernel", str(ROOT / "docs" / "examples" / "rank15_solves.npz"), "--family", str(out))
    assert proc.returncode == 0, proc.stderr
    assert "r ≥ 13: 435 inputs" in proc.stdout  # best chains and the null-shifted last step (docs/math.md §5)


def test_rank_bound_from_a_code_file_with_unequal_weights(tmp_path):
    code = tmp_path / "mixed.txt"
    code.write_text("0000011111\n1111100000\n0011100011\n1100011100\n1100100111\n")
    out = tmp_path / "mixed.cert.json"
    proc = run_cli_here("rank-bound", "--code", str(code), "--out", str(out))
    assert proc.returncode == 0, proc.stderr
    assert "weights 5×4, 6×1" in proc.stdout and "version 2" in proc.stdout


@pytest.mark.parametrize("args,needle", [
    (["--code", "nope"], "neither a built-in"),
    (["--code", "rank-nine", "--error-below", "0.5e0"], "--error-below"),
    (["--code", "rank-nine", "--error-below", "0"], "--error-below"),
    (["--code", "lexicode:8:4:2", "--chains", "paper"], "cannot bridge directed distance 2"),
    (["--code", "lexicode:8:4:2", "--form", "explicit", "--error-below", "1"], "no split of an overlap rise of 2"),
    (["--code", "rank-nine", "--length", "2"], "--length"),
    (["--code", "rank-nine", "--out", "/nonexistent/dir/x.json"], "cannot write"),
])
def test_rank_bound_bad_input_is_one_line_exit_2(tmp_path, args, needle):
    proc = run_cli_here("rank-bound", *args, cwd=tmp_path)
    assert_one_line_error(proc, 2)
    assert needle in proc.stderr


def test_search_writes_a_verified_certificate(tmp_path):
    out = tmp_path / "s.json"
    proc = run_cli_here("search", "--m", "10", "--budget", "500", "--out", str(out), "--json")
    assert proc.returncode == 0, proc.stderr
    summary = json.loads(proc.stdout)
    assert summary["verified"] and summary["claim"]["m"] == 10 and summary["claim"]["rank_at_least"] >= 3
    assert summary["budget"] == summary["steps"] == 500 and summary["reproducible"] is True
    again = tmp_path / "again.json"
    assert run_cli("search", "--m", "10", "--budget", "500", "--out", str(again), "--json").returncode == 0
    assert again.read_bytes() == out.read_bytes()  # same seed and budget: the same certificate, byte for byte
    # (the second run in a fresh process: nothing of the first, in this one, can carry over)
    assert summary["how"].startswith("seed ")
    assert run_cli_here("verify", str(out), "--quiet").returncode == 0


@pytest.mark.parametrize("args,needle", [
    (["--m", "3"], "--m"), (["--m", "10", "--time-limit", "0"], "--time-limit"),
    (["--m", "10", "--budget", "0"], "--budget"), (["--m", "10", "--budget", "1e3"], "--budget"),
    (["--m", "10", "--error-below", "x"], "--error-below"),
])
def test_search_bad_input(tmp_path, args, needle):
    proc = run_cli_here("search", *args, cwd=tmp_path)
    assert_one_line_error(proc, 2)
    assert needle in proc.stderr


def test_rank_bound_refuses_a_code_beyond_the_checker_limits_before_the_work(tmp_path):
    import random

    from certify.check import MAX_COMPACT_WORDS

    rng = random.Random(0)
    words = set()
    while len(words) <= MAX_COMPACT_WORDS:
        words.add("".join(rng.choice("01") for _ in range(40)))
    path = tmp_path / "big.txt"
    path.write_text("\n".join(sorted(words)) + "\n")
    proc = run_cli("rank-bound", "--code", str(path), cwd=tmp_path)
    assert_one_line_error(proc, 2)
    # refused when the file is read (t(t−1)⌈m/64⌉ of the pair distances), else by the checker's word limit
    assert "at most 200,000,000" in proc.stderr or "at most 16,384" in proc.stderr


@pytest.mark.parametrize("args", [["verify", "{cert}", "--expand", "{out}"], ["family", "--from", "{cert}", "--out", "{out}"]])
@pytest.mark.parametrize("name", ["tests/certificates/valid/small_paper.json", "docs/results/m16.cert.json"])  # v1, v2
def test_expanding_a_certificate_checks_it_once(tmp_path, monkeypatch, args, name):
    """`verify --expand` and `family --from` write the family of the document they just checked, without a second check."""
    from click.testing import CliRunner

    import certify.certificates.compact as compact
    import certify.check as check_mod
    from certify.cli import cli

    calls = []
    real = check_mod.check

    def counting(doc, *a, **k):
        calls.append(1)
        return real(doc, *a, **k)

    monkeypatch.setattr(check_mod, "check", counting)
    monkeypatch.setattr(compact, "check", counting)
    monkeypatch.setattr("certify.cli.certificates.check", counting)
    out = tmp_path / "family.json"
    cert = ROOT / name
    res = CliRunner().invoke(cli, [a.format(cert=cert, out=out) for a in args])
    assert res.exit_code == 0, res.output
    assert len(calls) == 1
    fam = json.loads(out.read_text())
    assert fam["from_certificate"] == json.loads(cert.read_text())["sha256"] and fam["family"]["inputs"]


@pytest.mark.parametrize("args,inputs", [(["--code", "hadamard24", "--length", "1000"], "12,132"),
                                         (["--code", "golay24"], "13,268,976")])
def test_an_explicit_form_over_the_checker_s_file_limit_is_refused_before_it_is_built(tmp_path, args, inputs):
    """Issue 18: these built GBs in memory (and a 463 MB file the checker refuses); now exit 2 from the counts alone."""
    out = tmp_path / "x.json"
    proc = run_cli("rank-bound", *args, "--form", "explicit", "--out", str(out))
    assert_one_line_error(proc, 2)
    assert f"would have {inputs} inputs" in proc.stderr and "use --form compact" in proc.stderr
    assert not out.exists()


def test_a_code_file_is_bounded_by_words_times_bits_when_read(tmp_path):
    """1,800 words of 4,096 bits: t(t−1)⌈m/64⌉ > 2·10⁸ word operations just for the distances, refused on reading."""
    proc = _rank_bound_of_random_words(tmp_path, words=1800, seed=2)
    assert_one_line_error(proc, 2)
    assert "t(t−1)⌈m/64⌉ = 207,244,800" in proc.stderr


def test_a_wide_code_is_refused_from_its_plan_without_a_split_per_distance(tmp_path):
    """400 random 4,096-bit words (148 distances near 2,048): the best splits came from one table, not 148 DPs
    (122 s before, 3 s now); the chains of up to 231 jumps are over the checker's limit: exit 2."""
    proc = _rank_bound_of_random_words(tmp_path, words=400, seed=1)
    assert_one_line_error(proc, 2)
    assert "exceed the checker's work limit" in proc.stderr


def _rank_bound_of_random_words(tmp_path, words: int, seed: int):
    """`certify rank-bound --code FILE` on a file of ``words`` random 4,096-bit words."""
    import random

    rng = random.Random(seed)
    path = tmp_path / "words.txt"
    path.write_text("".join(format(rng.getrandbits(4096), "04096b") + "\n" for _ in range(words)))
    return run_cli("rank-bound", "--code", str(path), cwd=tmp_path)


@pytest.mark.parametrize("command", [["rank-bound", "--code", "hadamard24", "--length", "1000"],
                                     ["search", "--m", "12", "--budget", "1", "--length", "1000"]])
def test_form_auto_never_chooses_a_form_it_then_refuses(tmp_path, command):
    """Issue 42: `rank-bound --code hadamard24 --length 1000` (12,132 inputs, under the 50,000 of --form auto, but
    312 MiB listed) chose the explicit form and refused it, "use --form compact"; auto now writes the compact form.
    `certify search` has --form too (its refusal named an option it lacked)."""
    from certify.check import check
    from conftest import run_cli_here

    out = tmp_path / "c.json"
    code, stdout, stderr = _run(*command, "--out", str(out), "--json")
    assert code == 0, stderr
    doc = json.loads(stdout)
    assert doc["version"] == 2 and check(json.loads(out.read_text())).proved == doc["claim"]["rank_at_least"]
    code, _, stderr = _run(*command, "--form", "explicit", "--out", str(out))
    assert code == 2 and "use --form compact" in stderr and len(stderr.strip().splitlines()) == 1


def _run(*args: str) -> tuple[int, str, str]:
    """``certify ARGS`` in this process (conftest.run_cli_here): ``(exit code, stdout, stderr)``."""
    proc = run_cli_here(*args)
    return proc.returncode, proc.stdout, proc.stderr


def test_max_work_is_the_limit_built_within_and_verified_with(tmp_path):
    """--max-work goes to the producer's limit and the checker's: the exact work passes, one less is refused (exit 2)."""
    from certify.check import compact_work

    work = compact_work(46, 3, 24)  # hadamard24: 46 words, chains of at most 3 jumps (12 → 4+4+4)
    out = tmp_path / "h.json"
    proc = run_cli_here("rank-bound", "--code", "hadamard24", "--form", "compact", "--max-work", str(work),
                        "--out", str(out))
    assert proc.returncode == 0, proc.stderr
    assert "re-read the file: r ≥ 30" in proc.stdout
    proc = run_cli_here("rank-bound", "--code", "hadamard24", "--form", "compact", "--max-work", str(work - 1),
                        "--out", str(tmp_path / "g.json"))
    assert_one_line_error(proc, 2)
    assert f"at most {work - 1:,} by --max-work" in proc.stderr and not (tmp_path / "g.json").exists()
