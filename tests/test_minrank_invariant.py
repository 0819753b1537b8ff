"""r*(m, 3) for every m ≤ 48 (issue 44): the shipped symmetric-kernel certificates, the LP producer, both sides.

The producer's floats only propose; every test here runs what it made, or what is shipped,
through ``certify/check_symmetric.py``'s check, and states the bracket's properties: the
lower side is at least ⌊m/2⌋ and the results row at m or m − 1, the upper side is the rank
the checker accepted, and neither side crosses the other.
"""
import json
import math

import pytest

from conftest import ROOT, run_cli_here

from certify.check import CertificateError
from certify.check_symmetric import check, load
from certify.minrank.results_rows import best_row, claimed_bound
from certify.minrank.symmetric import CERTIFICATES, MAX_M, shipped_path
from certify.minrank.terwilliger import Algebra, multiplicity

RESULTS = ROOT / "docs" / "results"
SHIPPED = sorted(int(p.name[1:].split(".")[0]) for p in CERTIFICATES.glob("m*.symmetric.json"))


def test_every_m_up_to_48_has_a_shipped_certificate_at_m_or_above():
    """m = 45, 46, 47 have none of their own (their searches did not fit issue 44's session): the certificate of
    m = 48 bounds them (docs/math.md Corollary 11.3), and `certify minrank` says so."""
    assert set(range(1, 45)) | {48} <= set(SHIPPED) and max(SHIPPED) == MAX_M == 48


@pytest.mark.parametrize("m", [m for m in SHIPPED if m <= 24])
def test_every_shipped_certificate_is_accepted_and_claims_what_it_is(m):
    doc = load(str(shipped_path(m)))
    result = check(doc)
    assert result.m == m == sum(doc["parts"]) and result.rank == doc["rank_at_most"]
    assert result.rank == sum(mu * r for _, r, mu in result.blocks)
    assert result.rank < 2 ** m or m <= 3  # an upper side below the dense softmax kernel


def test_the_shipped_certificate_for_48_is_accepted_in_seconds_of_checker_work():
    doc = load(str(shipped_path(48)))
    assert check(doc).rank == doc["rank_at_most"] and math.log2(doc["rank_at_most"]) / 48 < 0.5


#: Issue 44's upper targets: values verified before the LP producer existed (≤ m for 9 ≤ m ≤ 11; the two-part
#: kernels S_1 × S_11, S_2 × S_11, S_3 × S_11 at m = 12, 13, 14; the fully invariant ones above).
TARGETS = {9: 9, 10: 10, 11: 11, 12: 22, 13: 46, 14: 59, 20: 514, 24: 3516, 32: 64924, 48: 5399276}


@pytest.mark.parametrize("m", sorted(TARGETS))
def test_the_shipped_certificate_meets_the_upper_target_of_issue_44(m):
    """What the checker accepts, not the file's claim: a certificate regenerated worse than a target fails here."""
    assert check(load(str(shipped_path(m)))).rank <= TARGETS[m]


def test_a_changed_block_entry_of_a_shipped_certificate_is_refused_naming_the_step():
    doc = load(str(shipped_path(12)))
    left = doc["blocks"][0]["left"]
    left[0][0] = "7/3" if left[0][0] != "7/3" else "5/3"
    with pytest.raises(CertificateError) as err:
        check(doc)
    assert err.value.step in ("blocks", "nonnegative", "row", "rank")


def test_multiplicities_add_up_to_the_cube():
    """Σ_κ mult(κ)·size(κ) = 2^m for every partition: the blocks account for every dimension."""
    for parts in [(5,), (1, 4), (2, 3), (1, 1, 3)]:
        alg = Algebra(parts, tuple(a // 2 for a in parts))
        assert sum(multiplicity(parts, k) * len(alg.index[k]) for k in alg.kappas) == 2 ** sum(parts)


@pytest.mark.parametrize("m", [12, 13, 20, 23])
def test_minrank_brackets_r_star_for_m_above_the_generic_search(m):
    proc = run_cli_here("minrank", "--m", str(m), "--rows", str(RESULTS), "--json")
    assert proc.returncode == 0, proc.stderr
    doc = json.loads(proc.stdout)
    row = best_row(m, RESULTS)
    assert row.M == m - m % 2 and doc["results_row"]["bound"] == claimed_bound(row.path)
    assert doc["lower"] == max(m // 2, doc["results_row"]["bound"]) <= doc["upper"]
    assert doc["upper"] == doc["symmetric_rank"] == load(str(shipped_path(doc["symmetric_m"])))["rank_at_most"]
    assert doc["symmetric_m"] >= m and all(load(str(shipped_path(k)))["rank_at_most"] >= doc["upper"]
                                           for k in SHIPPED if k >= m)  # the least of every m' ≥ m
    assert doc["invariant_floor"] >= 1 + min(math.comb(m, k) - math.comb(m, k - 1)
                                             for k in range(doc["k1"], m // 2 + 1))


def test_minrank_says_so_when_the_results_rows_are_not_found(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    monkeypatch.setattr("certify.minrank.results_rows.find_rows_dir", lambda explicit=None: None)
    proc = run_cli_here("minrank", "--m", "14")
    assert proc.returncode == 0, proc.stderr
    assert "results rows: not found (give --rows DIR" in proc.stdout and "pair queries: r ≥ 7" in proc.stdout
    assert proc.stdout.startswith("certify minrank --m 14: 7 ≤ r*(14, 3) ≤ ")


@pytest.mark.parametrize("args, says", [
    (["--parts", "1,11"], "--parts goes with --search-invariant"),
    (["--search-invariant", "--parts", "1,10"], "summing to --m 12"),
    (["--search-invariant", "--parts", "a,b"], "sizes separated by commas"),
    (["--rows", "no-such-folder"], "--rows"),
    (["--ranks", "0.0=1"], "--ranks goes with --search-invariant"),
    (["--search-invariant", "--parts", "1,11", "--ranks", "0.0=x"], "is not K1.K2…=RANK"),
    (["--search-invariant", "--parts", "1,11", "--ranks", "0.6=1"], "is not a block of parts [1, 11]"),
    (["--search-invariant", "--parts", "1,11", "--ranks", "0.0=25"], "its rank must be 0 … 24"),
    (["--tops", "0,1"], "--tops goes with --search-invariant --parts"),
    (["--search-invariant", "--tops", "0,1"], "--tops goes with --search-invariant --parts"),
    (["--search-invariant", "--parts", "1,11", "--tops", "0,1", "--ranks", "0.0=1"], "--tops goes without --ranks"),
    (["--search-invariant", "--parts", "1,11", "--tops", "1,1"], "each from 0 to half the part's size"),
    (["--search-invariant", "--parts", "1,11", "--tops", "0"], "one index per part of --parts 1,11"),
    (["--search-invariant", "--parts", "1,11", "--tops", "0,x"], "block indices separated by commas"),
    (["--search-invariant", "--parts", "1,11", "--tops", "0," * 60], "longer than 100 characters"),
])
def test_minrank_refuses_bad_invariant_options_with_one_line(args, says, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    proc = run_cli_here("minrank", "--m", "12", *args)
    assert proc.returncode == 2 and says in proc.stderr and len(proc.stderr.strip().splitlines()) == 1


def test_the_lp_producer_makes_certificates_the_checker_accepts():
    pytest.importorskip("highspy")
    from certify.minrank.invariant import least_top, search

    assert [least_top((m,)) for m in (3, 4, 11, 12)] == [0, 1, 1, 2]  # K*(m) = K1(⌊m/2⌋) (docs/math.md §11)
    for parts in [(9,), (1, 5), (2, 3)]:
        doc = search(parts)
        assert check(doc).rank == doc["rank_at_most"] < 2 ** sum(parts)
    # the shipped m = 9 certificate is the best known (S_3 × S_6 since the partition chooser), never worse than S_9's
    assert load(str(shipped_path(9)))["rank_at_most"] <= search((9,))["rank_at_most"] <= 9


@pytest.mark.parametrize("text, says", [
    ("0.0=3,0.0=1", "listed twice"),
    ("0=3", "one block index per part"),
    ("1.0=1", "not a block of parts [1, 5]"),
    ("0.1=9", "rank must be 0 … 8"),
    ("0.0=0", "every listed block has rank 0"),
    ("0.0=1e3", "is not K1.K2…=RANK"),
    ("0.0=" + "9" * 5000, "is not K1.K2…=RANK"),  # no 5,000-digit integer is built
    ("0.0=1," * 2000, "longer than 10,000 characters"),
])
def test_given_block_ranks_are_refused_in_one_line_when_malformed(text, says):
    from certify.minrank.invariant import parse_ranks

    with pytest.raises(ValueError) as err:
        parse_ranks(text, (1, 5))
    assert says in str(err.value) and "\n" not in str(err.value)


def test_the_producer_reaches_given_block_ranks_and_the_checker_accepts_them():
    """``search(ranks=…)`` (stage 2' of certify.minrank.invariant): the certificate has exactly the given blocks."""
    pytest.importorskip("highspy")
    from certify.minrank.invariant import parse_ranks, search

    for parts, text in [((1, 5), "0.0=1,0.1=1"), ((2, 3), "0.0=2,0.1=1,1.0=1,1.1=1")]:
        ranks = parse_ranks(text, parts)
        doc = search(parts, ranks=ranks)
        result = check(doc)
        assert {tuple(b["index"]): b["rank"] for b in doc["blocks"]} == ranks
        assert result.rank == doc["rank_at_most"] == sum(multiplicity(parts, k) * r for k, r in ranks.items())


def test_the_search_says_where_its_work_went_stage_by_stage_and_the_counts_add_up():
    """The stage lines (``stage 2 (ranks): N row LPs …``) count every LP the budget counts, stage by stage: the row
    LPs and joint LPs of stages 2 and 2b add up to the solves the shared budget saw (stage 1's feasibility LPs and
    stage 3's rounding aside), and a joint LP is a repair step's (larger than a row's)."""
    pytest.importorskip("highspy")
    import re

    from certify.minrank.invariant import Budget, search

    lines, budget = [], Budget()
    doc = search((12,), say=lines.append, budget=budget)
    assert check(doc).rank == doc["rank_at_most"]
    stages = {line.split(":")[0]: line for line in lines if line.startswith("stage ")}
    assert set(stages) == {"stage 1 (top blocks)", "stage 2 (ranks)", "stage 2b (squeeze)", "stage 3 (exact)"}

    def count(line, kind):
        found = re.search(rf"([\d,]+) {kind} LPs", line)
        return int(found.group(1).replace(",", "")) if found else 0

    work = sum(count(stages[s], kind) for s in ("stage 2 (ranks)", "stage 2b (squeeze)") for kind in ("row", "joint"))
    first = budget.used - work  # stage 1's LPs: one per query weight tuple and tried top (13 per top for S_12)
    assert first > 0 and first % 13 == 0
    assert count(stages["stage 2b (squeeze)"], "joint") > 0
    size = re.search(r"joint LPs \(.*?([\d,]+) rows", stages["stage 2b (squeeze)"])
    assert size and int(size.group(1).replace(",", "")) > 13


def test_given_tops_keep_every_block_of_the_certificate_at_or_below_them():
    """``search(tops=…)`` (make_invariant_certificates.py --tops): each part's own highest block index, where stage 1
    would take one for all parts. S_3 × S_5 at tops (0, 1) is the m = 8 row's shape (rank 6); the uniform top 1
    lets S_3's block 1 in."""
    pytest.importorskip("highspy")
    from certify.minrank.invariant import search

    doc = search((3, 5), tops=(0, 1))
    assert check(doc).rank == doc["rank_at_most"] <= 8
    assert all(b["index"][0] == 0 and b["index"][1] <= 1 for b in doc["blocks"])


def test_given_block_ranks_without_a_solution_raise_no_solution_naming_why():
    """Only block 0 of S_5: Proposition I3 needs a nonzero block k ≥ K1(2) = 1, so not even the free LP solves it."""
    pytest.importorskip("highspy")
    from certify.minrank.invariant import NoSolution, parse_ranks, search

    with pytest.raises(NoSolution, match="no solution even with the listed blocks free"):
        search((5,), ranks=parse_ranks("0=1", (5,)))


def test_minrank_search_invariant_uses_the_certificate_it_made(tmp_path, monkeypatch):
    pytest.importorskip("highspy")
    monkeypatch.chdir(tmp_path)
    proc = run_cli_here("minrank", "--m", "10", "--search-invariant", "--parts", "1,9", "--out", "w")
    assert proc.returncode == 0, proc.stderr
    assert "made by --search-invariant" in proc.stdout and "S_1 × S_9" in proc.stdout
    made = json.loads((tmp_path / "w" / "m10.upper.symmetric.json").read_text())
    assert check(made).rank == made["rank_at_most"] and made["parts"] == [1, 9]


def test_minrank_search_invariant_with_tops_keeps_its_blocks_at_or_below_them(tmp_path, monkeypatch):
    """``--tops 0,1`` with ``--parts 3,6`` (m = 9): no block of S_3's index 1, where the default top (1 for every
    part) would allow one; the certificate written is re-checked here."""
    pytest.importorskip("highspy")
    monkeypatch.chdir(tmp_path)
    proc = run_cli_here("minrank", "--m", "9", "--search-invariant", "--parts", "3,6", "--tops", "0,1", "--out", "w")
    assert proc.returncode == 0, proc.stderr
    made = json.loads((tmp_path / "w" / "m9.upper.symmetric.json").read_text())
    assert check(made).rank == made["rank_at_most"] and made["parts"] == [3, 6]
    assert all(b["index"][0] == 0 and b["index"][1] <= 1 for b in made["blocks"])
