"""Blocks formed a batch of query rows at a time (streamed check-kernel, --all-pairs): the same answers, bounded.

``certify.kernels.blocks.RowBatches`` forms ``α`` and ``g`` a batch of query rows at a time
(``batch_rows``: at most ``MAX_EXACT_ENTRIES`` block entries); here the batch is forced down
to a row or two, so that the small committed families are split into many batches, and every
report must be the one formed in one block. ``all_pairs_nonnegative`` skips the zero rows of
``φ_Q`` and ``φ_K`` (their ``α`` is exactly 0): its count and first negative must be those of
the brute-force scan of all ``N × N`` pairs. The factor-entry limit (``MAX_FACTOR_ENTRIES``,
docs/kernel-table-format.md, limits) refuses from the shapes, before any entry is converted.
"""
import json
import random
from fractions import Fraction

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from conftest import ROOT

from certify.check import format_rational
from certify.constructions.one_hot import one_hot_table
from certify.kernels import audit, blocks
from certify.kernels import table as table_module
from certify.kernels.audit import all_pairs_nonnegative, load_family
from certify.kernels.report import token_bits
from certify.kernels.table import KernelTable, TableFormatError, check_batched_work, check_work, load_table

RESULTS = ROOT / "docs" / "results"
M12 = str(RESULTS / "m12.cert.json")


@pytest.fixture(scope="module")
def m12():
    return load_family(M12), load_family(M12, stream=True)


def _one_hot(family):
    t = one_hot_table(family)
    return {k: (t[k].tolist() if hasattr(t[k], "tolist") else t[k]) for k in ("tokens", "phi_q", "phi_k", "beta", "w", "values")}


def _random_factored(family, seed, one_hot_readout=True):
    """A random positive factored table on the family's tokens: it fails (predictions and jumps)."""
    rnd = random.Random(seed)
    toks = _one_hot(family)["tokens"]
    raw = {"tokens": toks, "phi_q": [[rnd.randint(1, 5) for _ in range(4)] for _ in toks],
           "phi_k": [[rnd.randint(1, 5) for _ in range(4)] for _ in toks], "beta": [0] * len(toks)}
    if one_hot_readout:
        raw["w"] = [[rnd.randint(-2, 2) for _ in toks] for _ in toks]
    else:
        raw["values"] = [[rnd.randint(-2, 2) for _ in range(3)] for _ in toks]
        raw["w"] = [[f"{rnd.randint(-3, 3)}/{rnd.randint(1, 4)}" for _ in range(3)] for _ in toks]
    return raw


def _kernel_only_one_hot(family):
    raw = _one_hot(family)
    return {"tokens": raw["tokens"], "phi_q": raw["phi_q"], "phi_k": raw["phi_k"]}


def _kernel_field(family, variant="solves"):
    """The one-hot head's kernel given directly (``kernel``, ``N × N``), with its readout. ``negative``: one used
    pair set below 0 (refused, naming it); ``failing``: a random positive kernel; ``failing, zero``: with one zero
    on the diagonal (after a first-failure stop the rest is validated query by query, and refused)."""
    raw = _one_hot(family)
    P, K = raw["phi_q"], raw["phi_k"]
    kernel = [[sum(a * b for a, b in zip(p, k)) for k in K] for p in P]
    if variant == "negative":
        kernel[0][1] = -1
    elif variant.startswith("failing"):
        rnd = random.Random(5)
        kernel = [[rnd.randint(1, 9) for _ in K] for _ in P]
        if variant == "failing, zero":
            kernel[-1][-1] = 0  # an input of the last query has all its α zero: refused after the stop
    return {"tokens": raw["tokens"], "kernel": kernel, "beta": raw["beta"], "w": raw["w"], "values": raw["values"]}


def _report(table_raw, family, search=False, first_failure=False, clip=None):
    """``(exit code, report JSON or the refusal)`` of the streamed check, as ``table_verdict`` gives it."""
    table = KernelTable.from_dict(table_raw) if isinstance(table_raw, dict) else load_table(table_raw)
    code, rep = audit.table_verdict(table, family, search, clip, first_failure)
    return code, (rep if isinstance(rep, str) else rep.to_json())


def _batched(monkeypatch, rows=2):
    """Force batches of ``rows`` query rows; returns a list that records each batch formed."""
    formed = []
    load = blocks.RowBatches._load

    def spy(self, b):
        formed.append((self.kind, b))
        return load(self, b)

    monkeypatch.setattr(blocks, "batch_rows", lambda cols: rows)
    monkeypatch.setattr(blocks.RowBatches, "_load", spy)
    return formed


CASES = {  # name: (table, options, exit code)
    "committed rank-9 table (solves, values readout)": (lambda f: str(RESULTS / "bracket" / "m12.rank9.table.json"), {}, 0),
    "committed rank-9 table, readout LP": (lambda f: str(RESULTS / "bracket" / "m12.rank9.table.json"), {"search": True}, 0),
    "one-hot head (solves)": (_one_hot, {}, 0),
    "one-hot head, kernel only (readout LP)": (_kernel_only_one_hot, {}, 0),
    "random table, one-hot readout (fails)": (lambda f: _random_factored(f, 1), {"search": True}, 1),
    "random table, values readout (fails)": (lambda f: _random_factored(f, 2, one_hot_readout=False), {}, 1),
    "random table, first failure": (lambda f: _random_factored(f, 3), {"first_failure": True}, 1),
    "kernel given directly (solves)": (_kernel_field, {}, 0),
    "kernel given directly, first failure": (lambda f: _kernel_field(f, "failing"), {"first_failure": True}, 1),
    "kernel given directly, first failure, then refused": (lambda f: _kernel_field(f, "failing, zero"),
                                                           {"first_failure": True}, 2),
    "kernel given directly, negative used pair (refused)": (lambda f: _kernel_field(f, "negative"), {}, 2),
    "clipped": (lambda f: _random_factored(f, 4), {"clip": Fraction(1, 10**9)}, 1),
}


@pytest.mark.parametrize("case", list(CASES))
def test_batched_streamed_report_is_the_one_block_report(m12, monkeypatch, case):
    """Batches of 2 query rows (the family has 22): the exit code and the whole report (or refusal) are unchanged."""
    make, kw, code = CASES[case]
    explicit, streamed = m12
    whole = _report(make(explicit), streamed, **kw)
    formed = _batched(monkeypatch)
    batched = _report(make(explicit), streamed, **kw)
    assert batched == whole and whole[0] == code
    last = -(-len(dict.fromkeys(X.tokens[X.query] for X in explicit.inputs)) // 2) - 1
    if case == "clipped":  # the clipped α is one block (its clipped count and its rank are of the whole block)
        assert ("alpha", 1) not in formed and ("g", last) in formed
    elif "refused" not in case and "first failure" not in case:
        assert ("alpha", last) in formed  # the last of several batches was formed
    elif "first failure" in case:  # it stops at the first failing query: later batches are formed only if needed
        assert ("alpha", 0) in formed
    if "first failure" in case and code == 1:
        assert batched[1]["stopped_early"]


def test_batched_streamed_refusal_names_the_same_input(m12, monkeypatch):
    """α < 0 on a used pair: the one-line refusal (exit 2) is the same with batches."""
    explicit, streamed = m12
    whole = _report(_kernel_field(explicit, "negative"), streamed)
    _batched(monkeypatch, rows=1)
    assert _report(_kernel_field(explicit, "negative"), streamed) == whole
    assert whole[0] == 2 and "family.inputs[" in whole[1] and "\n" not in whole[1]


def test_batches_are_formed_once_per_pass(m12, monkeypatch):
    """Queries are visited in order: each batch of α and g is formed once in the query pass."""
    explicit, streamed = m12
    formed = _batched(monkeypatch, rows=3)
    code, rep = _report(str(RESULTS / "bracket" / "m12.rank9.table.json"), streamed)
    assert code == 0 and rep["solves"] is True
    queries = len(dict.fromkeys(X.tokens[X.query] for X in explicit.inputs))
    n = -(-queries // 3)
    assert [b for k, b in formed if k == "alpha"] == list(range(n))
    assert [b for k, b in formed if k == "g"] == list(range(n))


def test_row_batches_entries_are_the_whole_blocks(m12, monkeypatch):
    """Every entry of α and g, by position, by ``entry`` (α from the held factors, no batch formed) and row-major,
    is that of the blocks formed whole (``alpha_block``, ``g_block``)."""
    table = load_table(str(RESULTS / "bracket" / "m12.rank9.table.json"))
    rows, cols = list(range(0, table.size, 2)), list(range(table.size - 1, -1, -1))
    A0, G0 = table.alpha_block(rows, cols), table.g_block(rows, cols)
    formed = _batched(monkeypatch, rows=3)
    A, G = blocks.RowBatches(table, rows, cols, "alpha"), blocks.RowBatches(table, rows, cols, "g")
    for i in reversed(range(len(rows))):
        for j in range(len(cols)):
            assert A.entry(i, j) == A0[i, j]
    assert formed == [("alpha", 0), ("g", 0)]  # entry() formed no batch of α
    assert list(A.entries()) == A0.entries() and list(G.entries()) == G0.entries()
    assert all(G[i, j] == G0[i, j] for i in reversed(range(len(rows))) for j in range(len(cols)))
    assert A.batches == -(-len(rows) // 3) > 1
    assert all(a >= 0 for a in A0.entries()) and not A.nonnegative()  # signed factors: the shortcut does not apply
    K = KernelTable.from_dict(_kernel_field(m12[0]))
    assert blocks.RowBatches(K, rows, cols, "alpha").nonnegative()  # a kernel given directly: entry by entry


# --------------------------------------------------------------------------- --all-pairs


def _brute_force(raw, clip=None):
    """Negatives of α on all N × N pairs, row-major, in Fractions (clipped: entries in [−clip, 0) read as 0)."""
    m = len(raw["tokens"][0])
    toks = [int(t[::-1], 2) for t in raw["tokens"]]  # the table's token order and bit order
    table = KernelTable.from_dict(raw)
    assert list(table.tokens) == toks
    P = [[Fraction(v) for v in row] for row in raw["phi_q"]]
    K = [[Fraction(v) for v in row] for row in raw["phi_k"]]
    negative, first = 0, None
    for i, p in enumerate(P):
        for j, k in enumerate(K):
            a = sum(x * y for x, y in zip(p, k))
            if a < 0 and not (clip is not None and a >= -clip):
                negative += 1
                if first is None:
                    first = {"x": token_bits(toks[i], m), "z": token_bits(toks[j], m), "alpha": format_rational(a)}
    return negative, first


def _factored_table(data):
    """A small factored table with zero rows and planted negatives, drawn by hypothesis."""
    n = data.draw(st.integers(1, 9), label="tokens")
    r = data.draw(st.integers(1, 3), label="width")
    m = 4
    toks = data.draw(st.lists(st.integers(0, 2**m - 1), min_size=n, max_size=n, unique=True), label="tokens")
    entry = st.one_of(st.integers(0, 4), st.integers(-3, 4), st.sampled_from(["1/3", "-1/3", "-1/1000000000000"]))

    def rows(name):
        zero = data.draw(st.lists(st.booleans(), min_size=n, max_size=n), label=f"zero rows of {name}")
        return [[0] * r if z else data.draw(st.lists(entry, min_size=r, max_size=r), label=f"{name} row")
                for z in zero]

    return {"tokens": [format(t, f"0{m}b") for t in toks], "phi_q": rows("phi_q"), "phi_k": rows("phi_k")}


@settings(max_examples=80, deadline=None)
@given(st.data(), st.integers(1, 4), st.booleans())
def test_all_pairs_skipping_zero_rows_is_the_full_scan(data, rows_per_batch, clipped):
    """Count, first negative (row-major over the table's tokens) and the pairs formed: n_Q·n_K of the nonzero rows."""
    raw = _factored_table(data)
    clip = Fraction(1, 10**9) if clipped else None
    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(blocks, "batch_rows", lambda cols: rows_per_batch)
        table = KernelTable.from_dict(raw)
        if clip is not None:
            table.clip_negative_alpha(clip)
        out = all_pairs_nonnegative(table)
    negative, first = _brute_force(raw, clip)
    nq = sum(any(Fraction(v) for v in row) for row in raw["phi_q"])
    nk = sum(any(Fraction(v) for v in row) for row in raw["phi_k"])
    assert out == {"tokens": len(raw["tokens"]), "negative": negative, "first": first, "pairs_formed": nq * nk}


def test_all_pairs_on_a_kernel_given_directly_forms_every_pair(monkeypatch):
    raw = {"tokens": ["00", "01", "10"], "kernel": [[0, 1, 0], [0, 0, "-1/2"], [-3, 0, 0]]}
    monkeypatch.setattr(blocks, "batch_rows", lambda cols: 1)
    out = all_pairs_nonnegative(KernelTable.from_dict(raw))
    assert out == {"tokens": 3, "negative": 2, "first": {"x": "01", "z": "10", "alpha": "-1/2"}, "pairs_formed": 9}


def test_all_pairs_of_a_committed_table_skip_its_zero_rows():
    """A lifted table: φ_Q is zero off the query tokens; the same verdict as the N × N scan, fewer pairs formed."""
    path = RESULTS / "bracket" / "m12.rank9.table.json"
    raw = json.loads(path.read_text())
    out = all_pairs_nonnegative(load_table(str(path)))
    negative, first = _brute_force({k: raw[k] for k in ("tokens", "phi_q", "phi_k")})
    assert (out["negative"], out["first"]) == (negative, first) == (0, None)
    nq = sum(any(row) for row in raw["phi_q"])
    assert out["pairs_formed"] == nq * sum(any(row) for row in raw["phi_k"]) <= len(raw["tokens"]) ** 2


# --------------------------------------------------------------------------- limits


class _Untouchable:
    """A field whose shape is all there is: reading an entry fails the test."""

    def __init__(self, field):
        self.name, self.shape = field.name, field.shape

    def prepare(self, rows):
        raise AssertionError(f"{self.name} was read before the limits were checked")

    pairs = prepare


def _shapes_only(table):
    table.fields = {k: _Untouchable(f) for k, f in table.fields.items()}
    return table


def test_factor_entry_limit_refuses_from_the_shapes(m12, monkeypatch):
    """(Q + T)·(r + d_v) + Q factor entries past MAX_FACTOR_ENTRIES: exit 2, one line naming the limit, nothing read."""
    explicit, streamed = m12
    path = str(RESULTS / "bracket" / "m12.rank9.table.json")
    table = load_table(path)
    Q = len(dict.fromkeys(X.tokens[X.query] for X in explicit.inputs))
    T = len(dict.fromkeys(z for X in explicit.inputs for z in X.tokens))
    need = (Q + T) * (table.width + table.value_width) + Q
    monkeypatch.setattr(table_module, "MAX_FACTOR_ENTRIES", need - 1)
    code, reason = audit.table_verdict(_shapes_only(load_table(path)), streamed)
    assert code == 2 and "\n" not in reason
    assert f"{need:,} factor entries converted and held (at most {need - 1:,})" in reason
    assert "multiply-adds" not in reason and "docs/kernel-table-format.md, limits" in reason
    monkeypatch.setattr(table_module, "MAX_FACTOR_ENTRIES", need)  # exactly at the limit: checked
    assert audit.table_verdict(load_table(path), streamed)[0] == 0
    # the explicit family keeps its own rule (the whole block at once): unchanged
    assert audit.table_verdict(load_table(path), explicit)[0] == 0


def test_work_limit_still_applies_to_batches(m12):
    explicit, streamed = m12
    table = _shapes_only(load_table(str(RESULTS / "bracket" / "m12.rank9.table.json")))
    table.max_work = 10
    code, reason = audit.table_verdict(table, streamed)
    assert code == 2 and "multiply-adds (at most 10; check-kernel --max-work sets it)" in reason


def test_all_pairs_limits_refuse_before_the_products(monkeypatch):
    path = str(RESULTS / "bracket" / "m12.rank9.table.json")
    table = load_table(path)
    n, r = table.size, table.width
    monkeypatch.setattr(table_module, "MAX_FACTOR_ENTRIES", 2 * n * r - 1)
    with pytest.raises(TableFormatError, match=f"{2 * n * r:,} factor entries; at most {2 * n * r - 1:,}"):
        all_pairs_nonnegative(_shapes_only(load_table(path)))
    monkeypatch.setattr(table_module, "MAX_FACTOR_ENTRIES", 2 * n * r)
    table.max_work = 1  # the zero rows are read (linear), no product formed
    with pytest.raises(TableFormatError, match="multiply-adds; at most 1 "):
        all_pairs_nonnegative(table)


@settings(max_examples=200, deadline=None)
@given(st.integers(1, 10**4), st.integers(1, 10**5), st.one_of(st.none(), st.integers(1, 400)), st.booleans(),
       st.one_of(st.none(), st.integers(1, 64)), st.integers(1, 10**11))
def test_batched_work_accepts_whatever_check_work_accepts(Q, T, width, readout, value_width, max_work):
    try:
        check_work(Q, T, width, readout, value_width, max_work)
    except TableFormatError:
        return
    check_batched_work(Q, T, width, readout, value_width, max_work)
