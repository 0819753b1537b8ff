"""certify bracket (issues 16, 32): the reduced matrix, the bisection, and tables kept only when the exact check verifies them.

Laws: a reported upper bound is a table that check-kernel verifies from its file with the
stated exact rank, never below the certified lower bound; a proposal whose kernel breaks
a jump inequality is never accepted; Theorem 12.1 (b) of docs/math.md holds (a kernel
meeting (Y) and (W) is solved by the fixed readout, and the exact LP agrees), and (a) is
necessary (a kernel breaking it has no readout by the exact LP); the exponential start
meets (Y) and (W) in exact rationals; the search is budgeted by iterations and
reproducible from its seed.
"""
import json
import random
from fractions import Fraction

import numpy as np
import pytest

from certify.bracket import (ETA, ReductionError, constraints, descend, exponential_start, lift_table, reduce_family,
                             upper_side, verify_lifted)
from certify.kernels.audit import check_kernel, load_family
from certify.kernels.families import family_of_certificate
from certify.kernels.table import KernelTable

from conftest import CORPUS, ROOT, run_cli_here

DIRECT = str(CORPUS / "valid" / "shifted_rank_nine_direct.json")  # r ≥ 12 (shifted), 435 inputs
PAPER = str(CORPUS / "valid" / "rank_nine_paper.json")  # r ≥ 9, 855 inputs; no query token is a key
M12 = str(ROOT / "docs" / "results" / "m12.cert.json")  # 22 words closed under complement: every query is a key


def _conditions(red, A, eta=ETA):
    """(Y) and (W) of Theorem 12.1 (b) and b_k > 0, in exact rationals, on a block ``A`` (a list of lists of Fractions)."""
    a = [A[i][c] if c >= 0 else Fraction(0) for i, c in enumerate(red.own.tolist())]
    for i, k, o in zip(red.pq.tolist(), red.pk.tolist(), red.po.tolist()):
        w = int(red.weight[i])
        if not (A[i][k] > 0 and 2 * (1 - eta) * A[i][k] > (w - o - 1 + eta) * a[i]):
            return False
    for i, y, z, d, t in zip(*(v.tolist() for v in (red.jq, red.jy, red.jz, red.jd, red.jt))):
        w = int(red.weight[i])
        if not (1 - eta) * A[i][y] > (w - t - 1 + eta) * a[i] + (d - 1 + eta) * A[i][z]:
            return False
    return True


def _necessary(red, A):
    """(a): b_y > ((d − 2)/2)·a + (d − 1)·b_z on every jump."""
    a = [A[i][c] if c >= 0 else Fraction(0) for i, c in enumerate(red.own.tolist())]
    return all(A[i][y] > Fraction(d - 2, 2) * a[i] + (d - 1) * A[i][z]
               for i, y, z, d in zip(*(v.tolist() for v in (red.jq, red.jy, red.jz, red.jd))))


def _exact_table(red, A):
    """The table of the block ``A`` itself (φ_Q = A, φ_K = I): rank ≤ the number of keys; fixed readout."""
    K = len(red.keys)
    P = np.array([[float(v) for v in row] for row in A])  # only for the shape: the entries are replaced below
    table = lift_table(red, P, np.eye(K), 1)
    qi = {x: i for i, x in enumerate(red.queries)}
    tokens = [int(s[::-1], 2) for s in table["tokens"]]
    table["phi_q"] = [[str(v) for v in A[qi[t]]] if t in qi else ["0"] * K for t in tokens]
    return table


@pytest.mark.parametrize("path", [PAPER, DIRECT, M12])
def test_the_exponential_start_meets_the_sufficient_conditions_exactly(path):
    red = reduce_family(load_family(path))
    low = [(x & red.keys[c]).bit_count() for x, c in zip(red.queries, red.root.tolist())]
    A = [[Fraction(0)] * len(red.keys) for _ in red.queries]
    for i, k, o in zip(red.pq.tolist(), red.pk.tolist(), red.po.tolist()):
        A[i][k] = Fraction(1, 2 ** (o - low[i]))
    assert _conditions(red, A)
    Af = exponential_start(red)
    assert np.array_equal(Af, np.array([[float(v) for v in row] for row in A]))  # the float start is that block


@pytest.mark.parametrize("path", [PAPER, M12])
def test_theorem_12_1_on_random_kernels_against_the_exact_lp(path):
    """(b): (Y) and (W) ⇒ the fixed readout solves and the exact LP finds a readout; not (a) ⇒ the LP finds none."""
    family = load_family(path)
    red = reduce_family(family)
    low = [(x & red.keys[c]).bit_count() for x, c in zip(red.queries, red.root.tolist())]
    rng = random.Random(7)
    seen = {"sufficient": 0, "not necessary": 0}
    for trial in range(12):
        spread = [Fraction(1, 1), Fraction(3, 2), Fraction(4, 1)][trial % 3]  # how far entries stray from 2^-(o - low)
        A = [[Fraction(0)] * len(red.keys) for _ in red.queries]
        for i, k, o in zip(red.pq.tolist(), red.pk.tolist(), red.po.tolist()):
            A[i][k] = Fraction(1, 2 ** (o - low[i])) * (1 + spread * Fraction(rng.randrange(-64, 257), 256))
            A[i][k] = max(A[i][k], Fraction(1, 4096))
        table = _exact_table(red, A)
        if _conditions(red, A):
            seen["sufficient"] += 1
            rep = check_kernel(KernelTable.from_dict(table), family)
            assert rep.solves is True and not rep.jump_violations
        elif not _necessary(red, A):
            seen["not necessary"] += 1
            del table["beta"], table["w"], table["values"]
            rep = check_kernel(KernelTable.from_dict(table), family, search_readout=True)
            assert rep.readout_exists is False
        if all(seen.values()) and sum(seen.values()) >= 4:
            break
    assert all(seen.values()), seen  # both verdicts occurred


def test_direct_family_has_a_verified_rank_14_solution_and_the_file_checks(tmp_path):
    proc = run_cli_here("bracket", DIRECT, "--start-rank", "14", "--lowest-rank", "14", "--out", str(tmp_path), "--json")
    assert proc.returncode == 0, proc.stderr
    doc = json.loads(proc.stdout)
    assert doc["schema"] == "certify.bracket/2" and doc["lower"] == 12 and doc["upper"] == 14
    assert doc["reduced"] == {"queries": 15, "keys": 15, "jumps": 210, "by_roots": None} and doc["readout"] == "fixed"
    assert doc["check_kernel"]["solves"] is True
    # the table, re-read from its file by check-kernel, solves the family with exact rank 14
    proc = run_cli_here("check-kernel", doc["upper_table"], "--family", DIRECT, "--json")
    assert proc.returncode == 0, proc.stderr
    report = json.loads(proc.stdout)
    assert report["kernel_rank"] == 14 and report["solves"] is True and report["kernel_rank_exact"] is True


def test_the_bisection_stays_between_its_ends_and_reports_misses_as_not_found():
    family = load_family(PAPER)
    res = upper_side(family, iterations=3000, budget=60_000)
    assert res.best is not None and family.certified_bound <= res.best.kernel_rank <= res.start_rank == 15
    assert all(family.certified_bound <= t["rank"] <= 15 for t in res.tried)
    verified = [t for t in res.tried if t["verified"] is True]
    assert len(verified) == 1 and verified[0]["kernel_rank"] == res.best.kernel_rank <= verified[0]["rank"]
    assert verified[0]["rank"] == min(t["rank"] for t in res.tried if t["found"])  # the lowest found is checked first
    assert all(t["rank"] < res.best.width for t in res.tried if not t["found"])  # misses lie below the best


def test_the_budget_is_counted_in_iterations_and_said(tmp_path):
    res = upper_side(load_family(PAPER), iterations=40, budget=100, restarts=3)
    assert res.iterations <= 100 and res.budget_exhausted
    res = upper_side(load_family(DIRECT), start=14, lowest=14, restarts=1, iterations=40_000, budget=100_000)
    assert res.best is not None and not res.budget_exhausted  # the ends met: the budget did not stop it
    proc = run_cli_here("bracket", PAPER, "--iterations", "30", "--budget", "50", "--start-rank", "13", "--lowest-rank", "9")
    assert proc.returncode == 1, proc.stderr
    assert "upper       no verified table found" in proc.stdout and "budget spent" in proc.stdout
    assert "not found" in proc.stdout and "impossible" not in proc.stdout


def test_the_same_seed_and_budget_give_the_same_factors():
    con = constraints(reduce_family(load_family(DIRECT)))
    a = descend(con, 14, seed=3, iterations=300)
    b = descend(con, 14, seed=3, iterations=300)
    assert a[2] == b[2] and np.array_equal(a[0], b[0]) and np.array_equal(a[1], b[1])


def test_a_proposal_that_breaks_a_jump_is_never_accepted():
    family = load_family(DIRECT)
    red = reduce_family(family)
    con = constraints(red)
    A = exponential_start(red)
    I = np.eye(A.shape[1])
    P, Q, _, loss = descend(con, A.shape[1], 0, 10, start=(A, I))
    assert loss == 0 and verify_lifted(family, red, con, P, Q) is not None
    y, z = int(red.jy[0]), int(red.jz[0])
    Q = Q.copy()
    Q[z] = Q[y]  # α(x, z) = α(x, y): the jump's preference is gone
    assert verify_lifted(family, red, con, P, Q) is None


def test_a_compact_family_is_verified_streamed():
    with open(M12) as f:
        family = family_of_certificate(json.load(f), "m12", stream=True)
    assert family.streamed
    res = upper_side(family, start=12, lowest=12, iterations=20_000)
    assert res.best is not None and res.best.kernel_rank <= 12 and res.best.report.family["streamed"] is True
    assert res.best.report.solves is True


def test_bracket_without_a_certificate_says_so(tmp_path):
    fam = tmp_path / "fam.json"
    assert run_cli_here("family", "jumps", "--code", "rank-nine", "--chains", "direct", "--out", str(fam)).returncode == 0
    proc = run_cli_here("bracket", str(fam), "--start-rank", "15", "--lowest-rank", "15")
    assert proc.returncode == 0, proc.stderr
    assert "lower       none (a family without a certificate)" in proc.stdout and "upper       r ≤ 15" in proc.stdout
    assert "bracket " not in proc.stdout.split("lower")[1]  # no bracket line without a lower side


def test_bad_input_is_exit_2(tmp_path):
    proc = run_cli_here("bracket", DIRECT, "--code", "rank-nine")
    assert proc.returncode == 2 and "not both" in proc.stderr
    proc = run_cli_here("bracket", str(ROOT / "README.md"))
    assert proc.returncode == 2 and proc.stderr.count("\n") == 1
    proc = run_cli_here("bracket", str(CORPUS / "valid" / "um_shifted_not_better.json"))
    assert proc.returncode == 2 and "reduced matrix is not defined" in proc.stderr and proc.stderr.count("\n") == 1
    proc = run_cli_here("bracket", DIRECT, "--start-rank", "12", "--lowest-rank", "13")
    assert proc.returncode == 2 and "above --start-rank" in proc.stderr
    proc = run_cli_here("bracket", DIRECT, "--start-rank", "11")  # below the certified r ≥ 12
    assert proc.returncode == 2 and "below the certified bound r ≥ 12" in proc.stderr
    proc = run_cli_here("bracket", DIRECT, "--lowest-rank", "1000000")  # above the exponential start's rank 15
    assert proc.returncode == 2 and "nothing to search" in proc.stderr and "rank is 15" in proc.stderr
    proc = run_cli_here("bracket", DIRECT, "--out", "")
    assert proc.returncode == 2 and "--out needs a folder name" in proc.stderr
    blocker = tmp_path / "file"
    blocker.write_text("x")
    proc = run_cli_here("bracket", DIRECT, "--out", str(blocker / "sub"))  # refused before any search
    assert proc.returncode == 2 and "cannot write into" in proc.stderr and proc.stderr.count("\n") == 1


def _family_file(path, jumps):
    """A family file of the three witnesses of each jump ``(x, y, z)`` (tokens as 0/1 strings, query first)."""
    seen, inputs = set(), []
    for x, y, z in jumps:
        for t in ((x, y, y), (x, z, z), (x, y, z)):
            if t not in seen:
                seen.add(t)
                inputs.append({"tokens": list(t), "query": 0})
    path.write_text(json.dumps({"family": {"inputs": inputs}}))
    return str(path)


def test_two_jumps_ending_at_one_key_are_refused_not_a_crash(tmp_path):
    """A family where one query's two jumps end at the same key: exit 2 with the reason (not an internal error)."""
    fam = _family_file(tmp_path / "f1.json", [("1111", "0000", "1110"), ("1111", "1000", "1110")])
    proc = run_cli_here("bracket", fam, "--iterations", "10", "--budget", "10")
    assert proc.returncode == 2 and "two jumps of one query end at the same key" in proc.stderr
    assert proc.stderr.count("\n") == 1 and "Traceback" not in proc.stderr


def test_a_query_token_that_is_another_query_s_key_keeps_alpha_nonnegative(tmp_path):
    """Query 1100 is a key of query 1111 only: its α(x, x) is an entry of the block and must stay ≥ 0 (it once went
    negative, and the exact check then refused every table)."""
    fam = _family_file(tmp_path / "f2.json", [("1100", "0011", "1110"), ("1111", "0000", "1100")])
    proc = run_cli_here("bracket", fam, "--json")
    assert proc.returncode == 0, proc.stderr
    doc = json.loads(proc.stdout)
    assert doc["upper"] is not None and doc["check_kernel"]["solves"] is True


def test_the_reduction_refuses_inputs_that_are_not_witnesses(tmp_path):
    family = load_family(DIRECT)
    from dataclasses import replace

    from witnesses.inputs import Input

    x = family.inputs[0].tokens[0]
    bad = replace(family, inputs=family.inputs + (Input((x, x, x), 0, family.m),))
    with pytest.raises(ReductionError, match="not a length-3 witness"):
        reduce_family(bad)


def _block_is_nonnegative(path):
    """α(x, z) ≥ 0 for every pair of the table's tokens, from its integer factors (exact Python integers)."""
    doc = json.loads(path.read_text())
    P = [[int(v) for v in row] for row in doc["phi_q"]]
    Q = [[int(v) for v in row] for row in doc["phi_k"]]
    return all(sum(a * b for a, b in zip(p, q)) >= 0 for p in P if any(p) for q in Q if any(q))


@pytest.mark.parametrize("table,family,rank,lower", [
    ("rank_nine_paper.rank13.table.json", "valid/rank_nine_paper.json", 13, 9),
    ("rank_nine_direct.rank14.table.json", "valid/shifted_rank_nine_direct.json", 14, 12),
    ("hadamard24.rank32.table.json", "hadamard24", 32, 30),
])
def test_committed_upper_side_tables_keep_verifying(table, family, rank, lower):
    """docs/results.md, "Upper side": the committed tables solve their families at the stated exact rank.

    The tables of the results table's rows (m8.rank2 …) are re-checked by tests/test_results.py.
    """
    path = family if family == "hadamard24" else str(CORPUS / family)
    proc = run_cli_here("check-kernel", str(ROOT / "docs" / "results" / "bracket" / table), "--family", path, "--json")
    assert proc.returncode == 0, proc.stderr
    rep = json.loads(proc.stdout)
    assert rep["solves"] is True and rep["kernel_rank"] == rank and rep["kernel_rank_exact"] is True
    assert rep["certified_bound"] == lower <= rank
    # a head of the model of docs/math.md §2: α ≥ 0 on every pair of tokens, not only on the pairs the family uses
    assert _block_is_nonnegative(ROOT / "docs" / "results" / "bracket" / table)


def test_the_torch_search_computes_the_same_loss_and_gradient_and_finds_a_verified_table():
    """--device cpu (the optional extra torch): the same loss and gradient as numpy, and a table the exact check keeps."""
    torch = pytest.importorskip("torch")
    from certify.bracket.descent import violations
    from certify.bracket.descent_torch import _Dense, _violations, descend_torch

    for path in (DIRECT, M12):
        red = reduce_family(load_family(path))
        con = constraints(red)
        A = np.random.default_rng(5).normal(size=red.shape) * 0.4
        l1, G1 = violations(con, A, 1.02, 1e-3)
        l2, G2 = _violations(_Dense(con, torch.device("cpu")), torch.as_tensor(A), 1.02, 1e-3)
        assert abs(l1 - l2) <= 1e-9 * max(1.0, l1) and np.allclose(G1, G2.numpy(), rtol=1e-12, atol=1e-12)
    family = load_family(DIRECT)
    red = reduce_family(family)
    con = constraints(red)
    A = exponential_start(red)  # a solution at full rank: the torch loop stops at once, the table verifies
    I = np.eye(A.shape[1])
    P, Q, used, loss = descend_torch(con, A.shape[1], 0, 100, start=(A, I))
    assert used == 1 and loss < 1e-20
    assert verify_lifted(family, red, con, P, Q) is not None
    from certify.bracket.descent import random_start

    P0, Q0 = random_start(con, 15, 0)
    before = violations(con, P0 @ Q0.T, 1.02, 1e-4)[0]
    P, Q, used, loss = descend_torch(con, 15, 0, 300)  # from the same seeded random start as numpy's, it descends
    assert used == 300 and loss < before


def test_device_cuda_without_a_gpu_is_exit_2():
    torch = pytest.importorskip("torch")
    if torch.cuda.is_available():
        pytest.skip("this machine has a GPU")
    proc = run_cli_here("bracket", DIRECT, "--device", "cuda")
    assert proc.returncode == 2 and "no GPU" in proc.stderr and proc.stderr.count("\n") == 1


def test_the_reduced_matrix_is_bounded_before_its_dense_arrays_are_built(monkeypatch):
    from certify.bracket import descent

    red = reduce_family(load_family(PAPER))  # 15 × 224 = 3,360 entries
    monkeypatch.setattr(descent, "MAX_BLOCK", 3_359)
    with pytest.raises(ReductionError, match="15 query tokens × 224 keys = 3,360 entries"):
        descent.constraints(red)


def test_check_kernel_all_pairs_sees_a_negative_alpha_that_the_family_never_uses(tmp_path):
    """check-kernel --all-pairs: the committed table passes; one extra token whose key features make α < 0 with a
    query (a pair no input uses) still solves the family, but is no head of the §2 model: exit 1, naming the pair."""
    table = ROOT / "docs" / "results" / "bracket" / "rank_nine_direct.rank14.table.json"
    proc = run_cli_here("check-kernel", str(table), "--family", DIRECT, "--all-pairs", "--json")
    assert proc.returncode == 0, proc.stderr
    rep = json.loads(proc.stdout)
    assert rep["all_pairs"]["negative"] == 0 and rep["all_pairs"]["tokens"] == len(json.loads(table.read_text())["tokens"])
    assert "all_pairs" not in json.loads(run_cli_here("check-kernel", str(table), "--family", DIRECT, "--json").stdout)
    doc = json.loads(table.read_text())
    m = len(doc["tokens"][0])
    extra = next(format(v, f"0{m}b") for v in range(2**m) if format(v, f"0{m}b") not in set(doc["tokens"]))
    doc["tokens"].append(extra)
    doc["phi_q"].append([0] * len(doc["phi_q"][0]))
    doc["phi_k"].append([-int(v) for v in doc["phi_q"][0]])  # α(first query, extra) = −|φ_Q(first query)|² < 0
    doc["beta"].append(doc["beta"][0])
    doc["w"].append([int(c) for c in extra])
    doc["values"].append([int(c) for c in extra])
    bad = tmp_path / "bad.json"
    bad.write_text(json.dumps(doc))
    assert run_cli_here("check-kernel", str(bad), "--family", DIRECT).returncode == 0  # the family never looks there
    proc = run_cli_here("check-kernel", str(bad), "--family", DIRECT, "--all-pairs")
    assert proc.returncode == 1
    n = len(doc["tokens"])
    assert f"of the {n} × {n} pairs of the table's tokens, first α(" in proc.stdout and f", {extra})" in proc.stdout


from hypothesis import HealthCheck, given, settings  # noqa: E402
from hypothesis import strategies as st  # noqa: E402


def _jump(x: int, r1: int, r2: int) -> tuple[str, str, str]:
    """A 6-bit jump ``(x, y, z)``: ``z`` shares ``u ≥ 2`` bits with ``x`` (``x`` itself when ``r1`` picks fewer),
    ``y`` all of ``x``'s complement and at most ``u − 2`` of those bits (so the gap is ≥ 2)."""
    z = x & r1 if (x & r1).bit_count() >= 2 else x
    inner = z & r2
    y = (~x & 63) | (inner if inner.bit_count() <= z.bit_count() - 2 else 0)
    bits = lambda v: format(v, "06b")  # noqa: E731
    return bits(x), bits(y), bits(z)


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(st.lists(st.builds(_jump, st.sampled_from([v for v in range(64) if v.bit_count() >= 2]), st.integers(0, 63),
                          st.integers(0, 63)), min_size=1, max_size=8),
       st.integers(0, 3))
def test_fuzz_random_families_are_refused_or_bracketed_with_a_table_that_verifies(tmp_path_factory, triples, seed):
    """Random 6-bit witness families of random jumps (queries that are keys of others included): the search either refuses the family
    (ReductionError, exit 2 in the CLI) or ends; a claimed table always passes check-kernel and --all-pairs."""
    from certify.bracket import BracketRangeError
    from certify.kernels.audit import all_pairs_nonnegative
    from certify.kernels.families import FamilyFormatError

    path = _family_file(tmp_path_factory.mktemp("fz") / "f.json", triples)
    try:
        family = load_family(path)
        res = upper_side(family, seed=seed, iterations=300, budget=900, restarts=1)
    except (FamilyFormatError, ReductionError, BracketRangeError):
        return
    if res.best is not None:
        kt = KernelTable.from_dict(res.best.table)
        rep = check_kernel(kt, family)
        assert rep.solves is True and rep.kernel_rank == res.best.kernel_rank
        assert all_pairs_nonnegative(kt)["negative"] == 0
        assert family.certified_bound is None or res.best.kernel_rank >= family.certified_bound


# --------------------------------------------------------------------------- --method boxes (docs/math.md §12, "A box of sufficient values")

def _box_premise_holds(red, LO, HI, kappa, a_max):
    """The premise of the box lemma, exactly (floats read as the rationals they are): every jump at its worst corner."""
    F = Fraction
    eta = ETA
    for i, y, z, d, t in zip(*(v.tolist() for v in (red.jq, red.jy, red.jz, red.jd, red.jt))):
        a = F(a_max) if red.own[i] >= 0 else F(0)
        w = int(red.weight[i])
        if not (1 - eta) * F(LO[i, y]) >= F(kappa) * ((w - t - 1 + eta) * a + (d - 1 + eta) * F(HI[i, z])):
            return False
    for i, k, o in zip(red.pq.tolist(), red.pk.tolist(), red.po.tolist()):
        a = F(a_max) if red.own[i] >= 0 else F(0)
        if not 2 * (1 - eta) * F(LO[i, k]) >= F(kappa) * (int(red.weight[i]) - o - 1 + eta) * a:
            return False
    return True


def _random_in_box(LO, HI, rng):
    """A random matrix inside the box (unbounded entries capped at LO + 1), as exact rationals."""
    top = np.minimum(HI, LO + 1.0)
    A = LO + rng.random(LO.shape) * (top - LO)
    return [[Fraction(float(v)) for v in row] for row in A]


@pytest.mark.parametrize("path", [PAPER, DIRECT, M12])
def test_every_matrix_in_the_box_meets_the_sufficient_conditions(path):
    """The box lemma: its premise holds exactly at every jump's worst corner, and random points of the box and its
    lower corner meet (Y) and (W) exactly (so a found matrix needs no luck, only the rounding's room)."""
    from certify.bracket.boxes import A_MAX, KAPPA, boxes

    red = reduce_family(load_family(path))
    con = constraints(red)
    LO, HI = boxes(red, con)
    assert (LO <= HI).all() and (LO > 0).all()
    assert _box_premise_holds(red, LO, HI, KAPPA, A_MAX)
    rng = np.random.default_rng(0)
    for _ in range(3):
        assert _conditions(red, _random_in_box(LO, HI, rng))
    assert _conditions(red, [[Fraction(float(v)) for v in row] for row in LO])  # the lower corner


def test_an_empty_box_is_refused_with_the_entry_named():
    from certify.bracket.boxes import boxes

    red = reduce_family(load_family(M12))
    with pytest.raises(ReductionError, match=r"the box is empty at query token \d+, key \d+"):
        boxes(red, constraints(red), a_max=0.5)  # (Y) then asks more of a key than its jump allows


def test_method_boxes_finds_a_verified_table_and_says_so(tmp_path):
    proc = run_cli_here("bracket", DIRECT, "--method", "boxes", "--iterations", "2000", "--budget", "20000",
                        "--out", str(tmp_path))
    assert proc.returncode == 0, proc.stderr
    doc = json.loads((tmp_path / "bracket.json").read_text())
    r = doc["upper"]
    assert doc["method"] == "boxes" and doc["max_work"] is None and doc["lower"] == 12 and 13 <= r <= 16
    assert f"upper       r ≤ {r}:" in proc.stdout and "(alternating projections, seed 0, 1 restart" in proc.stdout
    check = run_cli_here("check-kernel", str(tmp_path / f"rank{r}.table.json"), "--family", DIRECT, "--all-pairs")
    assert check.returncode == 0, check.stdout + check.stderr


def test_method_boxes_runs_on_numpy_only():
    proc = run_cli_here("bracket", DIRECT, "--method", "boxes", "--device", "cpu")
    assert proc.returncode == 2 and "--method boxes runs on numpy only" in proc.stderr


def test_max_work_bounds_the_exact_check_both_ways(tmp_path):
    """check-kernel --max-work: below the table's need the check is refused (exit 2, naming the option); the default
    takes it. bracket passes it to its exact check: below the need nothing is claimed."""
    table = str(ROOT / "docs" / "results" / "bracket" / "rank_nine_paper.rank13.table.json")
    low = run_cli_here("check-kernel", table, "--family", PAPER, "--max-work", "1000")
    assert low.returncode == 2 and "at most" in low.stderr and "1,000" in low.stderr and "--max-work sets" in low.stderr
    assert run_cli_here("check-kernel", table, "--family", PAPER).returncode == 0
    proc = run_cli_here("bracket", DIRECT, "--method", "boxes", "--iterations", "2000", "--budget", "20000",
                        "--max-work", "1000")
    assert proc.returncode == 1 and "beyond the exact check's limits" in proc.stdout
    # enough for the family's check (15 × 239 × 23 multiply-adds) and for α on all pairs, which forms only the 15
    # query tokens × the 224 keys (every other row of the lifted factors is 0): 239 × 239 pairs are no longer needed
    proc = run_cli_here("bracket", PAPER, "--method", "boxes", "--iterations", "2000", "--budget", "20000",
                        "--max-work", "200000")
    assert proc.returncode == 0 and "upper       r ≤" in proc.stdout
    assert "failed it" not in proc.stdout


def test_a_warm_start_with_entries_of_1e_16_is_not_found_before_it_has_room_for_the_rounding(tmp_path):
    """Review: the exponential start's truncation has entries of about 1e-16 where the start has zeros; the
    stopping test took it as found at once, and no rounding of it kept α ≥ 0. Now the search goes on to a
    table with room, which the exact check verifies."""
    path = _family_file(tmp_path / "d.json", [("111000", "000111", "101100"), ("111000", "100110", "111000"),
                                              ("100110", "111000", "100110")])
    proc = run_cli_here("bracket", path, "--method", "boxes", "--iterations", "2000", "--budget", "20000")
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert "exact check rank 2: verified" in proc.stdout


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(st.lists(st.builds(_jump, st.sampled_from([v for v in range(64) if v.bit_count() >= 2]), st.integers(0, 63),
                          st.integers(0, 63)), min_size=1, max_size=8))
def test_fuzz_method_boxes_on_random_families(tmp_path_factory, triples):
    """Random 6-bit families: --method boxes refuses the family or its box (ReductionError), or every box it builds
    meets the lemma's premise exactly and every table it claims passes check-kernel and --all-pairs."""
    from certify.bracket import BracketRangeError
    from certify.bracket.boxes import A_MAX, KAPPA, boxes
    from certify.kernels.audit import all_pairs_nonnegative
    from certify.kernels.families import FamilyFormatError

    path = _family_file(tmp_path_factory.mktemp("fb") / "f.json", triples)
    try:
        family = load_family(path)
        red = reduce_family(family)
        con = constraints(red)
        LO, HI = boxes(red, con)
    except (FamilyFormatError, ReductionError):
        return
    assert _box_premise_holds(red, LO, HI, KAPPA, A_MAX)
    assert _conditions(red, _random_in_box(LO, HI, np.random.default_rng(1)))
    try:
        res = upper_side(family, method="boxes", iterations=300, budget=900, restarts=1)
    except BracketRangeError:
        return
    if res.best is not None:
        kt = KernelTable.from_dict(res.best.table)
        assert check_kernel(kt, family).solves is True
        assert all_pairs_nonnegative(kt)["negative"] == 0
