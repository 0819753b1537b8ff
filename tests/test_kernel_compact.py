"""check-kernel through a compact family, streamed query by query (issue 16: large families).

The streamed path (``FamilySpec.compact``; used by default past the explicit expansion's
limit, e.g. golay24's 13,268,976 inputs) must give the same verdict and report as the
explicit family; here it is forced on small committed certificates.
"""
import json
import random

import pytest

from conftest import ROOT

from certify.constructions.one_hot import one_hot_table
from certify.kernels import audit, predict, streamed
from certify.kernels.audit import FamilyFormatError, check_kernel, load_family
from certify.kernels.table import KernelTable, TableFormatError

RESULTS = ROOT / "docs" / "results"
M12, M16 = str(RESULTS / "m12.cert.json"), str(RESULTS / "m16.cert.json")


@pytest.fixture(scope="module")
def m12():
    return load_family(M12), load_family(M12, stream=True)


def _both(table, explicit, streamed, search=False):
    a = check_kernel(table, explicit, search).to_json()
    b = check_kernel(table, streamed, search).to_json()
    assert b["family"].pop("streamed") is True
    return a, b


def _one_hot(family):
    t = one_hot_table(family)
    return {k: (t[k].tolist() if hasattr(t[k], "tolist") else t[k]) for k in ("tokens", "phi_q", "phi_k", "beta", "w", "values")}


def test_small_compact_families_are_listed_by_default(m12):
    explicit, streamed = m12
    assert not explicit.streamed and len(explicit.inputs) == 946
    assert streamed.streamed and streamed.inputs == () and streamed.input_count == 946 and streamed.jump_count == 462


@pytest.mark.parametrize("cert,table", [(M12, "m12.rank9.table.json"), (M16, "m16.rank16.table.json")])
def test_committed_tables_same_report(cert, table):
    explicit, streamed = load_family(cert), load_family(cert, stream=True)
    path = str(RESULTS / "bracket" / table)
    from certify.kernels.table import load_table

    a, b = _both(load_table(path), explicit, streamed)
    assert a == b and a["solves"] is True and a["max_error"] == b["max_error"]  # the tables carry their readout
    a, b = _both(load_table(path), explicit, streamed, search=True)  # and the exact LP, listed and streamed, agrees
    assert a == b and a["readout_exists"] is True and a["readout"]


def test_one_hot_solves_same_report(m12):
    table = KernelTable.from_dict(_one_hot(m12[0]))
    for search in (False, True):
        a, b = _both(table, *m12, search)
        assert a == b and a["solves"] is True and a["max_error"] == b["max_error"]


def test_rejected_table_same_report(m12):
    """A random positive table: predictions fail and jumps break; same failing inputs and violations, same exit."""
    rnd = random.Random(1)
    toks = _one_hot(m12[0])["tokens"]
    raw = {"tokens": toks, "phi_q": [[rnd.randint(1, 5) for _ in range(4)] for _ in toks],
           "phi_k": [[rnd.randint(1, 5) for _ in range(4)] for _ in toks],
           "beta": [0] * len(toks), "w": [[rnd.randint(-2, 2) for _ in toks] for _ in toks]}
    a, b = _both(KernelTable.from_dict(raw), *m12, True)
    assert a == b and a["solves"] is False and a["readout_exists"] is False
    assert a["jump_violations"] and a["failing_inputs"]


def test_one_broken_jump(m12):
    """The one-hot table with one entry raised so that exactly the jumps through that pair break."""
    explicit, streamed = m12
    raw = _one_hot(explicit)
    x, y, z, _ = explicit.jumps[5]
    col = {t: k for k, t in enumerate(int(s[::-1], 2) for s in raw["tokens"])}
    q = list(dict.fromkeys(X.tokens[X.query] for X in explicit.inputs)).index(x)  # x's one-hot feature
    raw["phi_k"][col[z]][q] = raw["phi_k"][col[y]][q]  # α(x, z) = α(x, y): breaks α(x,y) > μ·α(x,z)
    a, b = _both(KernelTable.from_dict(raw), explicit, streamed)
    assert a == b and a["jump_violations"] and 5 in {v["index"] for v in a["jump_violations"]}


def test_errors_name_the_same_input(m12):
    toks = _one_hot(m12[0])["tokens"]
    k = [[1] * len(toks) for _ in toks]
    k[3][5] = -1
    msgs = set()
    for fam in m12:
        with pytest.raises(TableFormatError) as exc:
            check_kernel(KernelTable.from_dict({"tokens": toks, "kernel": k}), fam)
        msgs.add(str(exc.value))
    assert len(msgs) == 1 and "family.inputs[" in msgs.pop()
    short = {"tokens": toks[:-1], "kernel": [[1] * (len(toks) - 1)] * (len(toks) - 1)}
    msgs = set()
    for fam in m12:
        with pytest.raises(TableFormatError) as exc:
            check_kernel(KernelTable.from_dict(short), fam)
        msgs.add(str(exc.value))
    assert len(msgs) == 1 and "is not in the table" in msgs.pop()


def test_lists_are_capped_counts_exact(m12, monkeypatch):
    rnd = random.Random(2)
    toks = _one_hot(m12[0])["tokens"]
    raw = {"tokens": toks, "phi_q": [[rnd.randint(1, 5) for _ in range(3)] for _ in toks],
           "phi_k": [[rnd.randint(1, 5) for _ in range(3)] for _ in toks],
           "beta": [0] * len(toks), "w": [[3] * len(toks) for _ in toks]}
    table = KernelTable.from_dict(raw)
    full = check_kernel(table, m12[0]).to_json()
    monkeypatch.setattr(streamed, "MAX_LISTED", 10)
    rep = check_kernel(table, m12[1])
    out = rep.to_json()
    assert out["failing_inputs"] == full["failing_inputs"][:10]
    assert out["failing_inputs_count"] == len(full["failing_inputs"]) == rep.n_failing
    assert out["jump_violations"] == full["jump_violations"][:10]
    assert out["jump_violations_count"] == len(full["jump_violations"])
    assert any("the first 10" in line for line in rep.text())


def test_bounded_before_any_work(m12, monkeypatch):
    table = KernelTable.from_dict(_one_hot(m12[0]))
    monkeypatch.setattr(streamed, "MAX_STREAM_INPUTS", 945)
    with pytest.raises(FamilyFormatError, match="946 inputs"):
        check_kernel(table, m12[1])
    monkeypatch.setattr(streamed, "MAX_STREAM_INPUTS", 946)
    monkeypatch.setattr(streamed, "MAX_STREAM_READOUT_INPUTS", 945)
    assert check_kernel(table, m12[1]).solves is True  # a readout: no LP
    with pytest.raises(FamilyFormatError, match="946 rows"):
        check_kernel(table, m12[1], search_readout=True)


def test_verdict_exit_2_on_a_refused_stream(m12, monkeypatch, tmp_path):
    """What the CLI returns: exit 2 and the one-line reason naming the number."""
    path = tmp_path / "t.json"
    path.write_text(json.dumps(_one_hot(m12[0])))
    monkeypatch.setattr(streamed, "MAX_STREAM_INPUTS", 100)
    code, reason = audit.verdict(str(path), m12[1])
    assert code == 2 and "946 inputs" in reason and "\n" not in reason
    monkeypatch.setattr(streamed, "MAX_STREAM_INPUTS", 10**9)
    code, rep = audit.verdict(str(path), m12[1])
    assert code == 0 and rep.solves is True


def test_other_commands_refuse_a_streamed_family(m12):
    with pytest.raises(FamilyFormatError, match="certify bracket builds the family in memory"):
        audit.require_explicit(m12[1], "certify bracket")
    audit.require_explicit(m12[0], "certify bracket")


@pytest.mark.parametrize("seed", [0, 1])
def test_tables_with_many_large_denominators_take_the_rational_path_with_the_same_report(m12, seed, monkeypatch):
    """Past MAX_SCALE_BITS a query's rows are not scaled to integers (hostile tables: each token its own
    large denominator would make every input's integers as long as the whole row); the report is unchanged."""
    rnd = random.Random(seed)
    raw = _one_hot(m12[0])
    primes = [1_000_003, 1_000_033, 1_000_037, 1_000_039, 1_000_081, 1_000_099, 1_000_117]
    raw["phi_k"] = [[f"{v}/{rnd.choice(primes) ** rnd.randint(1, 9)}" if v else "0" for v in row] for row in raw["phi_k"]]
    if seed:  # and a failing, jump-breaking variant
        raw["phi_q"] = [[rnd.randint(1, 3) for _ in row] for row in raw["phi_q"]]
    table = KernelTable.from_dict(raw)
    scaled = _both(table, *m12)
    monkeypatch.setattr(predict, "MAX_SCALE_BITS", 0)  # every query through exact rationals
    rational = _both(table, *m12)
    assert scaled[0] == scaled[1] == rational[0] == rational[1]
