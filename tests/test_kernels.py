"""check-kernel: exact predictions, jumps, ranks, readout search, and consistency with the theorem."""
from dataclasses import replace
from fractions import Fraction

import pytest
from hypothesis import event, given, settings
from hypothesis import strategies as st

from certify.kernels.audit import KernelContradiction, assert_consistent, check_kernel, load_family
from certify.kernels.families import _detect_jumps
from certify.kernels.json_table import loads_json
from certify.kernels.table import KernelTable, TableFormatError, load_table

from conftest import CORPUS, ROOT

EX = ROOT / "docs" / "examples"
RANK_NINE = load_family(None)
SMALL = load_family(str(CORPUS / "valid" / "small_paper.json"))


def table_from(tokens, m, **fields) -> KernelTable:
    raw = {"tokens": [format(x, f"0{m}b")[::-1] for x in tokens], **fields}
    return KernelTable.from_dict(raw)


def family_tokens(fam):
    return sorted({z for X in fam.inputs for z in X.tokens})


def test_constructed_rank_15_table_solves_with_rank_15():
    rep = check_kernel(load_table(str(EX / "rank15_solves.npz")), RANK_NINE)
    assert rep.solves and rep.ok and rep.max_error < Fraction(1, 2)
    assert rep.kernel_rank == 15 == rep.certificate_matrix_rank
    assert rep.certified_bound == 9 and not rep.jump_violations and rep.jumps_checked == 420


def test_failing_table_names_its_input_and_jump():
    rep = check_kernel(load_table(str(EX / "rank15_fails.npz")), RANK_NINE, search_readout=True)
    assert rep.solves is False and [x["index"] for x in rep.failing_inputs] == [2]
    assert rep.failing_inputs[0]["target"] == 0
    assert [v["index"] for v in rep.jump_violations] == [0]
    assert rep.readout_exists is False and [x["index"] for x in rep.infeasible_subfamily] == [0, 1, 2]


def test_flat_kernel_fails_with_its_readout_but_admits_another():
    rep = check_kernel(load_table(str(EX / "rank15_flat_kernel.npz")), RANK_NINE, search_readout=True)
    assert rep.solves is False and len(rep.failing_inputs) == 420
    assert rep.readout_exists is True and not rep.jump_violations


def test_uniform_kernel_admits_no_readout_and_the_witnesses_of_a_jump_say_why():
    rep = check_kernel(load_table(str(EX / "uniform_kernel_only.json")), RANK_NINE)
    assert rep.readout_exists is False and rep.kernel_rank == 1 and not rep.ok
    sub = [RANK_NINE.inputs[x["index"]] for x in rep.infeasible_subfamily]
    assert len(sub) == 3
    (x, y, _), (_, z, _), w = [s.tokens for s in sub]
    assert w == (x, y, z)  # the witnesses (x,y,y), (x,z,z), (x,y,z) of one jump
    assert rep.infeasible_query_tokens == 15


@pytest.mark.parametrize("name", ["uniform_kernel_only.json", "rank15_fails.npz", "rank15_kernel_only.npz"])
def test_readout_search_output_does_not_depend_on_highs(name, monkeypatch):
    """Printed answers come from the exact simplex; HiGHS (if installed) only decides the tokens after the first failure."""
    from certify.linalg import lp

    def report():
        rep = check_kernel(load_table(str(EX / name)), RANK_NINE, search_readout=True)
        return rep.text(), rep.to_json(), rep.infeasible_query_tokens

    first = report()
    monkeypatch.setattr(lp, "_highs_core", lambda: None)
    assert report() == first


def test_found_readout_solves_when_written_back():
    rep = check_kernel(load_table(str(EX / "rank15_kernel_only.npz")), RANK_NINE)
    assert rep.readout_exists
    base = load_table(str(EX / "rank15_kernel_only.npz"))
    toks = base.tokens
    pos = {format(x, "024b")[::-1]: i for i, x in enumerate(toks)}
    w = [[0] * len(toks) for _ in toks]
    for q, row in rep.readout.items():
        for z, g in row.items():
            w[pos[q]][pos[z]] = Fraction(g)
    n = len(toks)
    r = base.width
    phi = {f: [[base.entry(f, i, k) for k in range(r)] for i in range(n)] for f in ("phi_q", "phi_k")}
    rep2 = check_kernel(KernelTable.from_dict({"tokens": [format(x, "024b")[::-1] for x in toks], **phi,
                                              "beta": [Fraction(0)] * n, "w": w}), RANK_NINE)
    assert rep2.solves


def test_contradiction_is_raised_for_a_broken_bound():
    with pytest.raises(KernelContradiction, match="CONTRADICTION"):
        assert_consistent(True, 15, 16, 0)
    with pytest.raises(KernelContradiction, match="weight-domination"):
        assert_consistent(True, 15, 9, 1)
    assert_consistent(False, 1, 9, 420) is None
    broken = replace(RANK_NINE, certified_bound=16)  # a deliberately wrong "certified" bound
    with pytest.raises(KernelContradiction):
        check_kernel(load_table(str(EX / "rank15_solves.npz")), broken)


def test_bad_kernels_are_refused_with_the_pair_named():
    toks = family_tokens(SMALL)
    n = len(toks)
    neg = [[1] * n for _ in range(n)]
    q = toks.index(SMALL.inputs[0].tokens[0])
    k = toks.index(SMALL.inputs[0].tokens[1])
    neg[q][k] = -1
    with pytest.raises(TableFormatError, match=r"α\(.*\) = -1 < 0 .*family.inputs\[0\]"):
        check_kernel(table_from(toks, 12, kernel=neg), SMALL)
    zero = [[0] * n for _ in range(n)]
    with pytest.raises(TableFormatError, match="denominator"):
        check_kernel(table_from(toks, 12, kernel=zero), SMALL)
    with pytest.raises(TableFormatError, match="not in the table"):
        check_kernel(table_from(toks[1:], 12, kernel=[[1] * (n - 1)] * (n - 1)), SMALL)
    with pytest.raises(TableFormatError, match="bits"):
        check_kernel(table_from([1, 2], 3, kernel=[[1, 1], [1, 1]]), SMALL)


def test_plain_family_files_get_their_jumps_detected(tmp_path):
    import json

    doc = json.loads((CORPUS / "valid" / "small_paper.json").read_text())
    plain = tmp_path / "family.json"
    plain.write_text(json.dumps({"family": {"inputs": [{"tokens": x["tokens"], "query": x["query"]} for x in doc["family"]["inputs"]]}}))
    fam = load_family(str(plain))
    assert fam.certified_bound is None
    assert set(fam.jumps) == set(SMALL.jumps)
    assert set(_detect_jumps(RANK_NINE.inputs)) == set(RANK_NINE.jumps)


# ------------------------------------------------------------------ the theorem, exactly, on random tables

@st.composite
def low_rank_tables(draw, fam, max_rank):
    """Nonnegative factor tables of width ≤ max_rank over the family's tokens, biased towards
    per-query decreasing kernels (the shape of the solutions that exist at full rank)."""
    toks = family_tokens(fam)
    r = draw(st.integers(1, max_rank))
    queries = sorted({X.tokens[X.query] for X in fam.inputs})
    feat = {x: draw(st.integers(0, r - 1)) for x in queries}
    base = draw(st.integers(2, 8))
    phi_q = [[int(feat.get(x) == k) + draw(st.integers(0, 1)) * int(x in feat) for k in range(r)] for x in toks]
    phi_k = [[Fraction(1, base ** max((x & z).bit_count() for x in queries if feat[x] == k) if any(feat[x] == k for x in queries) else 1)
              + draw(st.integers(0, 1)) for k in range(r)] for z in toks]
    return toks, r, phi_q, phi_k


@settings(max_examples=25, deadline=None)
@given(low_rank_tables(SMALL, 2), st.data())
def test_tables_below_the_certified_bound_never_solve(table, data):
    """Small family (r ≥ 3 certified): no kernel of width ≤ 2 admits any readout, and no given readout solves."""
    toks, r, phi_q, phi_k = table
    if any(all(v == 0 for v in row) for row in phi_q):
        phi_q = [[v + 1 for v in row] for row in phi_q]  # keep denominators positive
    beta = [data.draw(st.integers(-3, 3)) for _ in toks]
    w = [[data.draw(st.integers(-6, 6)) for _ in toks] for _ in toks]
    tab = table_from(toks, 12, phi_q=phi_q, phi_k=phi_k, beta=beta, w=w)
    rep = check_kernel(tab, SMALL, search_readout=True)
    event(f"r={r}, jump violations={bool(rep.jump_violations)}")
    assert rep.kernel_rank <= r < SMALL.certified_bound
    assert rep.solves is False and rep.readout_exists is False


@settings(max_examples=4, deadline=None)
@given(low_rank_tables(RANK_NINE, 8))
def test_rank_nine_family_rejects_every_kernel_of_width_below_nine(table):
    toks, r, phi_q, phi_k = table
    tab = table_from(toks, 24, phi_q=phi_q, phi_k=phi_k)
    rep = check_kernel(tab, RANK_NINE)
    assert rep.readout_exists is False


def test_kernel_given_directly_reports_where_its_rank_bounds_come_from(tmp_path):
    import numpy as np

    d = np.load(EX / "rank15_kernel_only.npz")
    path = tmp_path / "k.npz"
    np.savez(path, tokens=d["tokens"], kernel=d["phi_q"] @ d["phi_k"].T)
    rep = check_kernel(load_table(str(path)), RANK_NINE)
    assert rep.kernel_rank == 15 and rep.kernel_rank_bounds.rank == 15
    js = rep.to_json()["kernel_rank_bounds"]
    assert js["lower_from"].startswith("its rank modulo") and js["upper_from"].startswith("the matrix shape")
    assert any(line.strip().startswith("exact: ≥ from its rank modulo") for line in rep.text())


def test_a_rank_proof_over_the_time_limit_reports_a_lower_bound_and_never_a_contradiction(monkeypatch):
    """MAX_RANK_SECONDS = 0: the uniform kernel's rank 1 is reported as "≥ 1", not as exact."""
    import json

    import certify.kernels.table as T
    from certify.kernels.audit import assert_consistent

    tokens = json.loads((EX / "uniform_kernel_only.json").read_text())["tokens"]
    table = loads_json(json.dumps({"tokens": tokens, "kernel": [[1] * len(tokens)] * len(tokens)}))
    assert check_kernel(table, RANK_NINE).kernel_rank_bounds.exact  # within the limit: proved
    monkeypatch.setattr(T, "MAX_RANK_SECONDS", 0)
    rep = check_kernel(table, RANK_NINE)
    assert rep.kernel_rank == 1 and rep.kernel_rank_bounds.exact is False
    js = json.loads(json.dumps(rep.to_json()))
    assert js["kernel_rank_exact"] is False and js["kernel_rank_bounds"]["upper_from"].startswith("not attempted")
    assert any(line.startswith("kernel rank  ≥ 1 ") for line in rep.text())
    assert_consistent(True, None, 9, 0)  # a solving table whose rank is only bounded below: no rank contradiction
    with pytest.raises(KernelContradiction):
        assert_consistent(True, 8, 9, 0)
