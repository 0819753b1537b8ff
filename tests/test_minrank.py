"""r*(m, 3) for small m (issue 31; docs/math.md §11): the row condition against the exact readout LP, the brute-force
check, the order obstructions and their checker, the committed tables, and `certify minrank`."""
import json
import random
from fractions import Fraction

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from certify.kernels.audit import check_kernel, load_family
from certify.kernels.json_table import loads_json
from certify.kernels.table import load_table
from certify import check_obstruction as O
from certify.minrank.bracket import all_inputs_family
from certify.minrank.lower import exact_lower_bound, obstruction_certificate
from certify.minrank.rows import matrix_failure, readout, row_epsilon, row_failure
from certify.minrank.verify import brute_force, exact_prediction, input_count

from conftest import ROOT, assert_one_line_error, run_cli, run_cli_here

RESULTS = ROOT / "docs" / "results" / "minrank"
#: what the committed tables show (docs/results.md, "r*(m, 3) for small m"): m → (lower, upper)
BRACKETS = {1: (1, 1), 2: (1, 1), 3: (1, 1), 4: (2, 2), 5: (3, 3), 6: (3, 4), 7: (3, 5), 8: (3, 8)}


def _bits(v, m):
    return "".join("1" if v >> i & 1 else "0" for i in range(m))


def _family(tmp_path, m):
    path = tmp_path / f"all{m}.json"
    path.write_text(json.dumps(all_inputs_family(m)))
    return load_family(str(path))


def _random_kernel(m, seed):
    """Entries c^(w − ⟨x,v⟩)·(1 … 4), sometimes 0: near the boundary of the row condition either way."""
    rng = random.Random(seed)
    n = 1 << m
    c = rng.choice([1, 2, 3])
    A = [[rng.randint(1, 4) * c ** (m - (x & v).bit_count()) if rng.random() > 0.05 else 0 for v in range(n)]
         for x in range(n)]
    for x in range(n):
        A[x][x] = max(A[x][x], rng.randint(0, 1))
    return A


# --------------------------------------------------------------------------- the row condition (Lemma 11.2)


@pytest.mark.parametrize("m", [2, 3])
def test_the_row_condition_is_the_exact_readout_lp(tmp_path, m):
    """Both directions: check-kernel's exact readout LP (a separate implementation, no closed form) agrees with the
    row condition on every kernel tried, solvable and not."""
    fam = _family(tmp_path, m)
    n = 1 << m
    seen = {True: 0, False: 0}
    for seed in range(40 if m == 2 else 25):
        A = _random_kernel(m, 1000 * m + seed)
        closed = matrix_failure(A, m) is None
        try:
            lp = bool(check_kernel(loads_json(json.dumps({"tokens": [_bits(v, m) for v in range(n)], "kernel": A})),
                                   fam, search_readout=True).readout_exists)
        except Exception as exc:  # a zero denominator: (x, x, x) with A[x, x] = 0 — no readout either
            assert "denominator" in str(exc), exc
            lp = False
        assert lp == closed, (seed, A)
        seen[closed] += 1
    assert seen[True] and seen[False]  # both sides were exercised


@settings(max_examples=30, deadline=None)
@given(st.integers(2, 5), st.integers(0, 2**32 - 1))
def test_the_explicit_readout_solves_every_input_when_the_condition_holds(m, seed):
    A = _random_kernel(m, seed)
    passes = matrix_failure(A, m) is None
    result = brute_force(A, m)
    assert result.ok == passes
    if passes:
        assert result.inputs == input_count(m)


def test_the_readout_is_correct_input_by_input():
    m = 4
    A = [[6 ** (m - (x & v).bit_count()) for v in range(16)] for x in range(16)]
    for x in range(16):
        eps = row_epsilon(x, A[x], m)
        assert 0 < eps < Fraction(1, 4) and readout(x, A[x], m, eps)[x] == x.bit_count() - Fraction(1, 2) + 2 * eps
        for y in range(16):
            for z in range(y, 16):
                t = min((x & y).bit_count(), (x & z).bit_count())
                assert abs(exact_prediction(A, m, x, y, z) - t) < Fraction(1, 2)


def test_each_part_of_the_condition_is_named_when_it_fails():
    m = 3
    base = [[6 ** (m - (x & v).bit_count()) for v in range(8)] for x in range(8)]
    x = 0b111
    cases = {"self": (x, x, 0), "negative": (x, 0, -1), "zero": (x, 0b011, 0), "levels": (x, 0b000, 1)}
    for kind, (row, col, value) in cases.items():
        A = [r[:] for r in base]
        A[row][col] = value
        bad = row_failure(row, A[row], m)
        assert bad is not None and bad.kind == kind and f"row {_bits(row, m)}" in bad.describe(m)


# --------------------------------------------------------------------------- order obstructions (Lemma 11.4)


@pytest.mark.parametrize("m", range(4, 10))
def test_the_obstruction_certificates_check(m):
    doc = obstruction_certificate(m)
    assert O.check(json.loads(json.dumps(doc))) == exact_lower_bound(m) == (2 if m == 4 else 3)


def test_a_false_obstruction_is_rejected_and_a_malformed_one_refused():
    four = obstruction_certificate(4)
    five = obstruction_certificate(5)
    assert O.check(dict(four, rank_at_least=3)) == 0  # one pair can be oriented
    assert O.check({**five, "m": 4, "pairs": [[p[:4], q[:4]] for p, q in five["pairs"]]}) == 0  # m = 4 can be ordered
    assert O.check(dict(five, pairs=five["pairs"][:-1])) == 0  # drop a pair: an order exists
    assert O.check(dict(four, pairs=[["0000", "1111"]])) == 0  # no query prefers 0000 to 1111 by 2 … and back
    with pytest.raises(O.ObstructionError, match="rank_at_least"):
        O.check(dict(five, rank_at_least=3.0))
    for bad, match in ((dict(four, schema="x"), "schema"), (dict(four, m=13), "m"), (dict(four, rank_at_least=4), "2 or 3"),
                       (dict(four, pairs=[]), "pairs"), (dict(four, pairs=[["001", "1100"]]), r"pairs\[0\]\[0\]"),
                       (dict(four, pairs=[["0011"]]), r"pairs\[0\]"), (dict(four, pairs=[["00a1", "1100"]] ), "0/1")):
        with pytest.raises(O.ObstructionError, match=match):
            O.check(bad)


def test_the_obstruction_checker_s_exit_codes(tmp_path):
    """Its imports: tests/test_check_independence.py, as for every trusted checker."""
    good = tmp_path / "good.json"
    good.write_text(json.dumps(obstruction_certificate(5)))
    bad = tmp_path / "bad.json"
    bad.write_text(json.dumps(dict(obstruction_certificate(4), rank_at_least=3)))
    (tmp_path / "junk.json").write_text("{")
    import subprocess
    import sys

    def run(path):
        return subprocess.run([sys.executable, str(ROOT / "certify" / "check_obstruction.py"), str(path)],
                              capture_output=True, text=True, cwd=ROOT)

    assert run(good).returncode == 0 and "VERIFIED: r*(5, 3) ≥ 3" in run(good).stdout
    assert run(bad).returncode == 1
    (tmp_path / "deep.json").write_text("[" * 200_000)  # was a RecursionError traceback and exit 1
    deep = run(tmp_path / "deep.json")
    assert deep.returncode == 2 and len(deep.stderr.strip().splitlines()) == 1
    # a true but costly certificate (16 large pairs at m = 12: hours of orientations) is refused from its counts
    core = obstruction_certificate(12)["pairs"]
    extra = [[_bits((1 << k) - 1, 12), _bits(((1 << k) - 1) << (12 - k), 12)] for k in range(2, 13)]
    slow = tmp_path / "slow.json"
    slow.write_text(json.dumps({"schema": O.SCHEMA, "m": 12, "rank_at_least": 3, "pairs": core + extra}))
    refused = run(slow)
    assert refused.returncode == 2 and "edge steps" in refused.stderr
    junk = run(tmp_path / "junk.json")
    assert junk.returncode == 2 and len(junk.stderr.strip().splitlines()) == 1


# --------------------------------------------------------------------------- the committed tables


@pytest.mark.parametrize("m", sorted(BRACKETS))
def test_the_committed_tables_are_verified_again(m):
    lower, upper = BRACKETS[m]
    doc = json.loads((RESULTS / f"m{m}.minrank.json").read_text())
    assert (doc["lower"], doc["upper"]) == (lower, upper)
    table = load_table(str(RESULTS / f"m{m}.rank{upper}.table.json"))
    assert table.size == 1 << m and table.width == upper
    rows = list(range(1 << m))
    A = table.alpha_block([table.index[v] for v in rows], [table.index[v] for v in rows])
    n = 1 << m
    A = [[int(A[i, j]) for j in range(n)] for i in range(n)]
    assert matrix_failure(A, m) is None
    from flint import fmpz_mat

    assert fmpz_mat(A).rank() == upper
    if m <= 6:  # m = 7, 8 (1,056,768 and 8,421,376 inputs) are evaluated by `certify minrank --m 7`, `--m 8`
        assert brute_force(A, m).inputs == input_count(m)
    if m >= 4:
        assert O.check(json.loads((RESULTS / f"m{m}.lower.obstruction.json").read_text())) == exact_lower_bound(m)
        from certify.check import check

        assert check(json.loads((RESULTS / f"m{m}.lower.cert.json").read_text())).proved == doc["certified_search_bound"]
    regions = RESULTS / f"m{m}.lower.regions.json"
    assert regions.exists() == (doc["region_bound"] is not None)
    if regions.exists():
        assert O.check(json.loads(regions.read_text())) == doc["region_bound"] <= lower


@pytest.mark.parametrize("m", [3, 4])
def test_check_kernel_finds_a_readout_for_the_committed_tables(m):
    """The independent path: check-kernel's exact readout LP on the family of every length-3 input."""
    upper = BRACKETS[m][1]
    proc = run_cli("check-kernel", str(RESULTS / f"m{m}.rank{upper}.table.json"), "--family",
                   str(RESULTS / f"m{m}.all-inputs.family.json"), "--search-readout", "--json")
    doc = json.loads(proc.stdout)
    assert proc.returncode == 0 and doc["readout_exists"] is True and doc["kernel_rank"] == upper


# --------------------------------------------------------------------------- certify minrank


def test_minrank_closes_m_5_and_writes_what_it_claims(tmp_path):
    proc = run_cli("minrank", "--m", "5", "--out", "out", "--json", cwd=tmp_path)
    assert proc.returncode == 0, proc.stderr
    doc = json.loads(proc.stdout)
    assert (doc["lower"], doc["upper"], doc["closed"]) == (3, 3, True) and doc["inputs_evaluated"] == input_count(5)
    table = load_table(str(tmp_path / "out" / "m5.rank3.table.json"))
    assert table.width == 3
    assert O.check(json.loads((tmp_path / "out" / "m5.lower.obstruction.json").read_text())) == 3
    from certify.check import check

    assert check(json.loads((tmp_path / "out" / "m5.lower.cert.json").read_text())).proved == doc["certified_search_bound"]


def test_minrank_falls_back_to_dense_softmax_and_refuses_bad_m(tmp_path):
    from certify.minrank.upper import upper_side

    fallback = upper_side(4, 2, 1, 4, 10)  # nothing searched: the generic side alone falls back to dense softmax
    assert fallback.rank == 16 and "nothing searched (--max-rank 1 < 2)" in fallback.how
    proc = run_cli("minrank", "--m", "4", "--max-rank", "1", "--json", cwd=tmp_path)
    doc = json.loads(proc.stdout)  # with the command, the shipped invariant kernel (rank 5) is below 2^4
    assert proc.returncode == 0 and doc["upper"] == doc["symmetric_rank"] < 16 and not doc["closed"]
    assert "invariant under S_4" in doc["upper_how"]
    for m in ("0", "49"):
        bad = run_cli("minrank", "--m", m, cwd=tmp_path)
        assert bad.returncode == 2 and len(bad.stderr.strip().splitlines()) == 1


def test_minrank_plot_draws_the_brackets_written_so_far(tmp_path):
    pytest.importorskip("matplotlib")
    for m in (2, 3):
        proc = run_cli("minrank", "--m", str(m), "--out", "out", "--plot", "p.png", cwd=tmp_path)
        assert proc.returncode == 0, proc.stderr
    from certify.minrank.plot import read_brackets

    assert [d["m"] for d in read_brackets(str(tmp_path / "out"))] == [2, 3] and (tmp_path / "p.png").stat().st_size > 0
    refused = run_cli("minrank", "--m", "2", "--plot", "p.png", cwd=tmp_path)
    assert refused.returncode == 2 and "--plot needs --out" in refused.stderr
    (tmp_path / "out" / "m9.minrank.json").write_text('{"schema": "certify.minrank/1", "m": 9, "lower": 0}')
    broken = run_cli("minrank", "--m", "2", "--out", "out", "--plot", "p.png", cwd=tmp_path)  # was exit 3
    assert broken.returncode == 2 and "m9.minrank.json" in broken.stderr


@pytest.mark.parametrize("m", range(1, 7))
def test_the_symmetric_start_is_a_solution_at_full_rank(m):
    """1.5^{|x| − ⟨x,v⟩} (here times 2^m, in integers) passes the row condition: the search starts from its SVD."""
    n = 1 << m
    A = [[3 ** (x.bit_count() - (x & v).bit_count()) * 2 ** (m - x.bit_count() + (x & v).bit_count())
          for v in range(n)] for x in range(n)]
    assert matrix_failure(A, m) is None


def test_the_symmetric_start_is_seeded():
    import numpy as np

    from certify.minrank.search import ansatz_start, geometry, symmetric_factors

    g = geometry(5)
    a, b = ansatz_start(4, 7, g), ansatz_start(4, 7, g)
    assert all(np.array_equal(x, y) for x, y in zip(a, b)) and not np.array_equal(a[0], ansatz_start(4, 8, g)[0])
    # no LAPACK (whose basis of a degenerate level depended on the BLAS kernel): the Kronecker factors, the choice
    # inside the last level seeded (tests/test_minrank_determinism.py checks that they are singular vectors)
    U, V = ansatz_start(4, 7, g, noise=0.0)
    P, Q = symmetric_factors(5, 4, np.random.default_rng(7))
    assert np.array_equal(U, P) and np.array_equal(V, Q)


def test_region_counting_certificates_check_and_false_ones_are_rejected():
    from certify.minrank.lower import region_certificate
    from certify.check_obstruction import cells, patterns, sides

    assert [cells(k, 2) for k in range(1, 6)] == [2, 4, 6, 8, 10] and cells(3, 3) == 8
    doc = region_certificate(8)
    assert doc is not None and doc["argument"] == "regions" and O.check(json.loads(json.dumps(doc))) == 2
    assert O.check(dict(doc, rank_at_least=3)) == 0  # the same patterns do not exceed the cells of rank 2
    pairs = [sides(int(y[::-1], 2), int(z[::-1], 2), 8) for y, z in doc["pairs"]]
    assert len(patterns(pairs, 8)) > cells(len(pairs), 1)
    assert O.check(dict(doc, pairs=doc["pairs"][:1])) == 0  # one pair: two patterns, two cells
    with pytest.raises(O.ObstructionError, match="argument"):
        O.check(dict(doc, argument="votes"))
    assert region_certificate(5) is None


@settings(max_examples=200, deadline=None)
@given(st.recursive(st.none() | st.booleans() | st.integers(-5, 20) | st.floats(allow_nan=True) | st.text("01a", max_size=9),
                    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.sampled_from(
                        ["schema", "m", "rank_at_least", "argument", "pairs"]), inner, max_size=5), max_leaves=12),
       st.sampled_from(["schema", "m", "rank_at_least", "argument", "pairs"]))
def test_the_obstruction_checker_fails_closed_on_mutated_certificates(junk, key):
    """Fuzz: any field replaced by junk gives a proved bound the true one allows, 0, or ObstructionError — nothing else."""
    doc = dict(obstruction_certificate(5))
    doc[key] = junk
    try:
        proved = O.check(doc)
    except O.ObstructionError:
        return
    assert proved in (0, 2, 3)
    if proved:
        assert doc["m"] >= 4 and proved <= exact_lower_bound(doc["m"])  # never more than the orders can prove


@pytest.mark.parametrize("option", [("--seed", "1"), ("--restarts", "2"), ("--steps", "10"), ("--max-rank", "3"),
                                    ("--budget", "5")])
def test_the_generic_search_s_options_are_refused_where_it_does_not_run(option):
    """Above m = 8 the upper side is an invariant kernel: an option of the generic search would change nothing, so it
    is refused (exit 2, one line naming it) instead of being ignored; at m ≤ 8 the same option is taken."""
    proc = run_cli_here("minrank", "--m", "9", *option)
    assert_one_line_error(proc, 2)
    assert f"{option[0]}: the generic search runs for m ≤ 8 only, and m = 9" in proc.stderr
