"""Heads of linear-attention libraries (issue 17): token dtypes, the denominator constant δ,
negative α from roundoff, named families and what a family's size can show.

Each property is checked against an independent computation (plain ``Fraction`` loops) or
against the same check without the new feature, never against a stored answer.
"""
import json
from fractions import Fraction

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from certify.kernels.audit import (KernelContradiction, check_kernel, family_of_code, load_family, parse_tolerance,
                                   run_check)
from certify.kernels.table import KernelTable, TableFormatError, load_table, npz_bytes

from conftest import CORPUS, ROOT, run_cli_here
from fuzzing import reference_predictions

EX = ROOT / "docs" / "examples"
SMALL = load_family(str(CORPUS / "valid" / "small_paper.json"))
RANK_NINE = load_family(None)


def run_cli(*args):  # certify ARGS in this process, in the environment a subprocess was given here
    return run_cli_here(*args, env={"CERTIFY_PROGRESS": "0", "PATH": "/usr/bin:/bin"})


def tokens_of(fam):
    return list(dict.fromkeys(z for X in fam.inputs for z in X.tokens))


def bits(z, m):
    return format(z, f"0{m}b")[::-1]


# --------------------------------------------------------------------------- tokens of every dtype


@pytest.mark.parametrize("dtype", [np.int8, np.uint8, np.int16, np.uint16, np.int32, np.uint32, np.int64, np.uint64,
                                   bool, np.float16, np.float32, np.float64])
def test_tokens_of_every_integer_bool_and_float_dtype_read_as_the_same_bits(tmp_path, dtype):
    with np.load(EX / "rank15_solves.npz") as z:
        arrays = {k: z[k] for k in z.files}
    rows = np.array([[int(c) for c in s] for s in arrays["tokens"]], dtype=dtype)
    np.savez(tmp_path / "t.npz", **dict(arrays, tokens=rows))  # what a user writes: np.savez, nothing else
    ref = load_table(str(EX / "rank15_solves.npz"))
    assert load_table(str(tmp_path / "t.npz")).tokens == ref.tokens
    code, rep = run_check(str(tmp_path / "t.npz"))
    assert code == 0 and rep.kernel_rank == 15


def test_uint8_tokens_pass_check_kernel_from_the_command_line(tmp_path):
    with np.load(EX / "rank15_solves.npz") as z:
        arrays = {k: z[k] for k in z.files}
    np.savez(tmp_path / "u8.npz", **dict(arrays, tokens=np.array([[int(c) for c in s] for s in arrays["tokens"]],
                                                                   dtype=np.uint8)))
    proc = run_cli("check-kernel", str(tmp_path / "u8.npz"))
    assert proc.returncode == 0 and "solves       yes" in proc.stdout


@pytest.mark.parametrize("bad,shown", [(2, "2"), (0.5, "0.5"), (np.nan, "nan"), (-1, "-1")])
def test_a_token_entry_other_than_0_or_1_is_refused_naming_it(tmp_path, bad, shown):
    rows = np.array([[1, 0], [0, 1]], dtype=np.float64 if isinstance(bad, float) else np.int8)
    rows[1, 0] = bad
    np.savez(tmp_path / "t.npz", tokens=rows, kernel=np.ones((2, 2)))
    with pytest.raises(TableFormatError, match=rf"tokens\[1\]\[0\] is {shown}"):
        load_table(str(tmp_path / "t.npz"))


@pytest.mark.parametrize("row,ok", [("[1.0, 0]", True), ("[1e0, 0.0]", True), ("[true, 0]", False),
                                    ("[1.5, 0]", False), ('["1", 0]', False)])
def test_json_token_rows_take_0_1_numbers_only(row, ok):
    from certify.kernels.json_table import loads_json

    doc = '{"tokens": [%s, [0, 1]], "kernel": [[1, 1], [1, 1]]}' % row
    if ok:
        assert loads_json(doc).tokens == (1, 2)
    else:
        with pytest.raises(TableFormatError, match=r"tokens\[0\]\[0\]"):
            loads_json(doc)


# --------------------------------------------------------------------------- the denominator constant δ


def random_table(rng, fam, delta):
    toks = tokens_of(fam)
    N = len(toks)
    raw = {"tokens": [bits(z, fam.m) for z in toks],
           "phi_q": [[Fraction(rng.randint(1, 6), rng.randint(1, 4)) for _ in range(2)] for _ in toks],
           "phi_k": [[Fraction(rng.randint(1, 6), rng.randint(1, 4)) for _ in range(2)] for _ in toks],
           "beta": [Fraction(rng.randint(-3, 3), 2) for _ in toks],
           "w": [[rng.randint(-2, 3) for _ in range(N)] for _ in toks]}
    if delta is not None:
        raw["delta"] = delta
    return raw


@settings(max_examples=25, deadline=None)
@given(seed=st.integers(0, 2**32 - 1), delta=st.sampled_from([Fraction(0), Fraction(1, 1000), Fraction(3, 2), 7]))
def test_delta_predictions_are_those_of_a_phantom_key_of_weight_delta_and_value_beta(seed, delta):
    import random

    raw = random_table(random.Random(seed), SMALL, delta)
    rep = check_kernel(KernelTable.from_dict(raw), SMALL)
    ref = {k: v for k, v in raw.items()}
    ref["phi_q"] = [[Fraction(x) for x in r] for r in raw["phi_q"]]
    ref["phi_k"] = [[Fraction(x) for x in r] for r in raw["phi_k"]]
    preds = reference_predictions(ref, SMALL.inputs, SMALL.m)  # (Σ α g + δβ)/(Σ α + δ), plain Fractions
    errors = [abs(p - X.target) for p, X in zip(preds, SMALL.inputs)]
    assert rep.max_error == max(errors)
    assert {x["index"] for x in rep.failing_inputs} == {i for i, e in enumerate(errors) if not e < SMALL.error}


def test_delta_zero_is_the_table_without_delta():
    import random

    raw = random_table(random.Random(3), SMALL, None)
    a = check_kernel(KernelTable.from_dict(raw), SMALL).to_json()
    b = check_kernel(KernelTable.from_dict(dict(raw, delta=0)), SMALL).to_json()
    assert a == b


def test_delta_makes_a_zero_denominator_positive_and_enters_the_readout_search():
    """All-zero α on the query's row: refused without δ (no verdict), decided exactly with δ > 0."""
    toks = tokens_of(SMALL)
    zero = {"tokens": [bits(z, SMALL.m) for z in toks], "kernel": [[0] * len(toks) for _ in toks]}
    with pytest.raises(TableFormatError, match=r"denominator Σ_j α = 0.*'delta' field"):
        check_kernel(KernelTable.from_dict(zero), SMALL)
    rep = check_kernel(KernelTable.from_dict(dict(zero, delta="1/1000")), SMALL)
    # α = 0: every prediction is the phantom's value β(x) alone, and one query token has inputs of
    # different targets, so no readout exists; the LP says so with a verified Farkas certificate.
    assert rep.readout_exists is False and rep.infeasible_subfamily
    assert rep.table["delta"] == "1/1000"


def test_delta_readout_found_by_the_lp_is_verified_with_its_phantom_value():
    from certify.training import construction_report  # noqa: F401  (the A.1 construction's table)
    from certify.constructions.one_hot import one_hot_table

    t = one_hot_table(SMALL)
    raw = {k: (t[k].tolist() if hasattr(t[k], "tolist") else t[k]) for k in ("tokens", "phi_q", "phi_k")}
    raw["delta"] = "1/100"
    rep = check_kernel(KernelTable.from_dict(raw), SMALL)
    assert rep.readout_exists is True
    for X in SMALL.inputs:  # substitute the printed readout, phantom included, by plain Fractions
        q = bits(X.tokens[X.query], SMALL.m)
        g = rep.readout[q]
        idx = {s: i for i, s in enumerate(raw["tokens"])}
        alpha = lambda a, b: sum(Fraction(u) * Fraction(v) for u, v in zip(raw["phi_q"][idx[a]], raw["phi_k"][idx[b]]))  # noqa: E731
        zs = [bits(z, SMALL.m) for z in X.tokens]
        pred = (sum(alpha(q, z) * Fraction(g[z]) for z in zs) + Fraction(1, 100) * Fraction(g["phantom"])) / \
            (sum(alpha(q, z) for z in zs) + Fraction(1, 100))
        assert abs(pred - X.target) < SMALL.error


@settings(max_examples=20, deadline=None)
@given(seed=st.integers(0, 2**32 - 1), delta=st.sampled_from([Fraction(1, 8), Fraction(5), Fraction(1, 10**6)]))
def test_weight_domination_still_holds_with_delta(seed, delta):
    """docs/math.md §2: δ enters all three witnesses alike, so a solving head never violates a jump (else exit 3)."""
    import random

    raw = random_table(random.Random(seed), SMALL, delta)
    raw.pop("beta"), raw.pop("w")
    try:
        rep = check_kernel(KernelTable.from_dict(raw), SMALL)  # kernel only: the LP decides, with the phantom
    except KernelContradiction as exc:  # pragma: no cover - would be a false theorem or a bug
        pytest.fail(str(exc))
    if rep.readout_exists:
        assert not rep.jump_violations and rep.kernel_rank >= SMALL.certified_bound


@pytest.mark.parametrize("delta,msg", [(-1, "must be ≥ 0"), ('"-1/2"', "must be ≥ 0"), ("true", "expected a number"),
                                       ("1e999999", "digits")])
def test_bad_delta_in_json_is_refused(delta, msg):
    from certify.kernels.json_table import loads_json

    with pytest.raises(TableFormatError, match=msg):
        loads_json('{"tokens": ["1"], "kernel": [[1]], "delta": %s}' % delta)


@pytest.mark.parametrize("value,msg", [(np.array(-0.5), "must be ≥ 0"), (np.array(np.nan), "finite"),
                                       (np.array([1.0, 2.0]), "one number"), (np.array("x"), "delta: expected a numeric")])
def test_bad_delta_in_npz_is_refused(tmp_path, value, msg):
    (tmp_path / "t.npz").write_bytes(npz_bytes({"tokens": np.array(["1"]), "kernel": np.ones((1, 1)), "delta": value}))
    with pytest.raises(TableFormatError, match=msg):
        load_table(str(tmp_path / "t.npz"))


def test_delta_in_npz_is_read_exactly(tmp_path):
    (tmp_path / "t.npz").write_bytes(npz_bytes({"tokens": np.array(["1"]), "kernel": np.ones((1, 1)),
                                                "delta": np.float64(1e-6)}))
    assert load_table(str(tmp_path / "t.npz")).delta == Fraction(1e-6)


def test_streamed_family_gives_the_same_report_with_delta():
    import random

    m12 = str(ROOT / "docs" / "results" / "m12.cert.json")
    explicit, streamed = load_family(m12), load_family(m12, stream=True)
    raw = random_table(random.Random(5), explicit, Fraction(1, 3))
    a = check_kernel(KernelTable.from_dict(raw), explicit).to_json()
    b = check_kernel(KernelTable.from_dict(raw), streamed).to_json()
    b["family"].pop("streamed")
    assert a == b and a["table"]["delta"] == "1/3"


# --------------------------------------------------------------------------- negative α


def _kernel_with_negatives(values):
    toks = tokens_of(SMALL)
    k = [[1] * len(toks) for _ in toks]
    pos = {z: i for i, z in enumerate(toks)}
    pairs = []
    used = [X for X in SMALL.inputs if X.tokens[-1] != X.tokens[X.query]]
    for X, v in zip(used[::7], values):  # distinct used pairs (query, last token), never α(x, x)
        q, z = pos[X.tokens[X.query]], pos[X.tokens[-1]]
        if (q, z) not in pairs:
            k[q][z] = v
            pairs.append((q, z))
    return {"tokens": [bits(z, SMALL.m) for z in toks], "kernel": k}, pairs


def test_every_negative_pair_is_counted_and_the_worst_named():
    raw, pairs = _kernel_with_negatives(["-1/10"] * 3 + ["-3"] + ["-1/100"] * 2)
    with pytest.raises(TableFormatError) as exc:
        check_kernel(KernelTable.from_dict(raw), SMALL)
    msg = str(exc.value)
    assert f"{len(pairs)} pairs the family uses have α < 0" in msg
    assert "the worst α(" in msg and ") = -3; next" in msg and "--clip-negative-alpha" in msg


def test_clipping_reads_small_negatives_as_zero_and_says_so():
    raw, pairs = _kernel_with_negatives(["-1/10000000000"] * 3)
    t = KernelTable.from_dict(raw)
    t.clip_negative_alpha(Fraction(1, 10**9))
    rep = check_kernel(t, SMALL)
    clipped = dict(raw, kernel=[[0 if v == "-1/10000000000" else v for v in row] for row in raw["kernel"]])
    ref = check_kernel(KernelTable.from_dict(clipped), SMALL)  # the kernel with those entries 0, given as such
    assert any(line.startswith(f"clipped      {len(pairs)} entries") for line in rep.text())
    a, b = json.loads(json.dumps(rep.to_json())), json.loads(json.dumps(ref.to_json()))
    assert a["table"].pop("clip_negative_alpha") == {"tolerance": "1/1000000000", "entries_clipped": len(pairs)}
    assert b["table"].pop("clip_negative_alpha") is None
    assert a == b


def test_clipping_keeps_entries_below_the_tolerance_negative():
    raw, _ = _kernel_with_negatives(["-1/10"])
    t = KernelTable.from_dict(raw)
    t.clip_negative_alpha(Fraction(1, 100))
    with pytest.raises(TableFormatError, match="-1/10 < 0"):
        check_kernel(t, SMALL)


def test_clipped_factor_table_gets_the_rank_of_the_clipped_kernel():
    """Factors of rank 1 with one product −ε: clipped, the kernel is no longer Φ_QΦ_Kᵀ and its own rank is computed."""
    toks = tokens_of(SMALL)
    pos = {z: i for i, z in enumerate(toks)}
    X = SMALL.inputs[0]
    q, z = pos[X.tokens[X.query]], pos[X.tokens[1]]
    phi_q = [[1, 0] for _ in toks]
    phi_k = [[1, 0] for _ in toks]
    phi_q[q] = [1, 1]
    phi_k[z] = [1, "-10000000001/10000000000"]  # α(q, z) = −10⁻¹⁰, every other entry 1 (rank 2 factors)
    raw = {"tokens": [bits(t, SMALL.m) for t in toks], "phi_q": phi_q, "phi_k": phi_k}
    t = KernelTable.from_dict(raw)
    t.clip_negative_alpha(Fraction(1, 10**9))
    rep = check_kernel(t, SMALL)
    assert rep.table["clip_negative_alpha"]["entries_clipped"] == 1 and rep.kernel_rank == 2


def test_clip_option_on_the_command_line(tmp_path):
    raw, pairs = _kernel_with_negatives(["-1/10000000000"] * 2)
    (tmp_path / "t.json").write_text(json.dumps(raw))
    fam = str(CORPUS / "valid" / "small_paper.json")
    refused = run_cli("check-kernel", str(tmp_path / "t.json"), "--family", fam)
    assert refused.returncode == 2 and refused.stdout == "" and len(refused.stderr.strip().splitlines()) == 1
    ok = run_cli("check-kernel", str(tmp_path / "t.json"), "--family", fam, "--clip-negative-alpha", "1e-9")
    assert ok.returncode in (0, 1) and f"clipped      {len(pairs)} entries of α in [−1/1000000000, 0) read as 0" in ok.stdout
    bad = run_cli("check-kernel", str(tmp_path / "t.json"), "--family", fam, "--clip-negative-alpha", "1e-99999999")
    assert bad.returncode == 2 and "digits" in bad.stderr


@pytest.mark.parametrize("text,value", [("0", 0), ("1e-9", Fraction(1, 10**9)), ("3/4", Fraction(3, 4)),
                                        ("0.25", Fraction(1, 4))])
def test_tolerances_are_read_exactly(text, value):
    assert parse_tolerance(text, "--x") == value


@pytest.mark.parametrize("text", ["-1", "1/0", "abc", "nan", "inf", "1" * 41, "1e-1001"])
def test_bad_tolerances_are_refused(text):
    with pytest.raises(ValueError, match="--x"):
        parse_tolerance(text, "--x")


# --------------------------------------------------------------------------- families


def test_a_plain_family_says_it_has_no_certified_bound(tmp_path):
    proc = run_cli("family", "--from", str(CORPUS / "valid" / "small_paper.json"), "--out", str(tmp_path / "f.json"))
    assert proc.returncode == 0
    toks = tokens_of(SMALL)
    (tmp_path / "t.json").write_text(json.dumps({"tokens": [bits(z, SMALL.m) for z in toks],
                                                 "kernel": [[1] * len(toks) for _ in toks]}))
    out = run_cli("check-kernel", str(tmp_path / "t.json"), "--family", str(tmp_path / "f.json")).stdout
    assert "no certified bound:" in out
    out = run_cli("check-kernel", str(tmp_path / "t.json"), "--family", str(CORPUS / "valid" / "small_paper.json")).stdout
    assert "certified bound r ≥ 3" in out and "no certified bound" not in out


def test_the_rank_line_says_when_the_family_caps_the_rank():
    rep = check_kernel(load_table(str(EX / "rank15_solves.npz")), RANK_NINE)
    assert rep.kernel_rank == 15 == rep.family["query_tokens"] and rep.rank_capped
    assert any("with 15 query tokens this family shows rank min(r, 15)" in line for line in rep.text())
    low = check_kernel(load_table(str(EX / "uniform_kernel_only.json")), RANK_NINE)
    assert low.kernel_rank == 1 and not low.rank_capped
    assert not any("cannot tell ranks" in line for line in low.text())


def test_named_families_are_certificates_verified_before_use():
    had = load_family("hadamard24")
    assert had.certified_bound is not None and had.certified_bound >= 17 and not had.streamed
    assert len({X.tokens[X.query] for X in had.inputs}) == 46
    assert family_of_code("hadamard24") is had  # built once per process
    assert load_family("rank-nine").certified_bound == 9


def test_code_option_and_family_option_exclude_each_other(tmp_path):
    proc = run_cli("check-kernel", str(EX / "rank15_solves.npz"), "--family", "hadamard24", "--code", "hadamard24")
    assert proc.returncode == 2 and "not both" in proc.stderr
    proc = run_cli("check-kernel", str(EX / "rank15_solves.npz"), "--code", "nosuchcode:1")
    assert proc.returncode == 2 and proc.stderr.startswith("certify: error: --code nosuchcode:1")


def test_hadamard24_by_name_checks_a_table_on_its_tokens(tmp_path):
    fam = load_family("hadamard24")
    toks = tokens_of(fam)
    raw = {"tokens": [bits(z, fam.m) for z in toks], "kernel": [[1] * len(toks) for _ in toks]}
    (tmp_path / "t.json").write_text(json.dumps(raw))
    proc = run_cli("check-kernel", str(tmp_path / "t.json"), "--family", "hadamard24")
    assert proc.returncode == 1, proc.stderr
    assert f"certified bound r ≥ {fam.certified_bound}" in proc.stdout and "kernel rank  1 on 46 query tokens" in proc.stdout


# --------------------------------------------------------------------------- stopping at the first failure


def test_first_failure_stops_early_with_the_same_verdict_and_a_verified_farkas_certificate():
    import random

    m12 = str(ROOT / "docs" / "results" / "m12.cert.json")
    streamed = load_family(m12, stream=True)
    rnd = random.Random(1)
    toks = tokens_of(load_family(m12))
    raw = {"tokens": [bits(z, streamed.m) for z in toks], "phi_q": [[rnd.randint(1, 5) for _ in range(3)] for _ in toks],
           "phi_k": [[rnd.randint(1, 5) for _ in range(3)] for _ in toks]}
    full = check_kernel(KernelTable.from_dict(raw), streamed)
    quick = check_kernel(KernelTable.from_dict(raw), streamed, first_failure=True)
    assert full.readout_exists is False and quick.readout_exists is False
    assert quick.stopped_early and quick.stopped_early["query_tokens_checked"] < full.family["query_tokens"]
    assert quick.kernel_rank == full.kernel_rank and quick.certificate_matrix_rank == full.certificate_matrix_rank
    assert quick.n_violated >= 1 and len(quick.infeasible_subfamily) <= 3  # the three witnesses of one jump
    assert any(line.startswith("stopped      at the first failure") for line in quick.text())
    # the witnesses named are inputs of the family: the same indices the full expansion gives
    explicit = load_family(m12)
    x, y, z = (quick.jump_violations[0][k] for k in ("x", "y", "z"))
    named = {tuple(explicit.inputs[e["index"]].tokens) for e in quick.infeasible_subfamily}
    b = lambda s: int(s[::-1], 2)  # noqa: E731
    assert named <= {(b(x), b(y), b(y)), (b(x), b(z), b(z)), (b(x), b(y), b(z))}


# --------------------------------------------------------------------------- found by the adversarial review


M12 = str(ROOT / "docs" / "results" / "m12.cert.json")


def _ones_kernel(fam, changes=None):
    toks = tokens_of(load_family(M12))
    k = [[1] * len(toks) for _ in toks]
    pos = {z: i for i, z in enumerate(toks)}
    for (x, z), v in (changes or {}).items():
        k[pos[x]][pos[z]] = v
    return {"tokens": [bits(z, fam.m) for z in toks], "kernel": k}


def test_first_failure_still_refuses_a_bad_entry_in_a_query_after_the_stop():
    """α ≡ 1 violates a jump of the first query; a negative α on the last query's pair must still be exit 2."""
    streamed, explicit = load_family(M12, stream=True), load_family(M12)
    last = explicit.inputs[-1]
    raw = _ones_kernel(streamed, {(last.tokens[0], last.tokens[1]): -5})
    msgs = set()
    for ff in (False, True):
        with pytest.raises(TableFormatError) as exc:
            check_kernel(KernelTable.from_dict(raw), streamed, first_failure=ff)
        msgs.add(str(exc.value))
    msg = msgs.pop()
    assert not msgs and "= -5 < 0 on a pair used by family.inputs[" in msg
    first = int(msg.split("family.inputs[")[1].split("]")[0])  # the first input of the last query using that pair
    assert explicit.inputs[first].tokens[0] == last.tokens[0] and last.tokens[1] in explicit.inputs[first].tokens


def test_first_failure_without_a_violated_jump_does_not_bypass_the_readout_search_limit(monkeypatch):
    from certify.kernels import audit, streamed as stream_stage

    streamed = load_family(M12, stream=True)
    toks = tokens_of(load_family(M12))
    m = streamed.m
    raw = {"tokens": [bits(z, m) for z in toks],  # α = 10⁶^(m − ⟨x,z⟩): every jump holds
           "kernel": [[(10**6) ** (m - (x & z).bit_count()) for z in toks] for x in toks]}
    monkeypatch.setattr(stream_stage, "MAX_STREAM_READOUT_INPUTS", 100)
    for ff in (False, True):
        with pytest.raises(audit.FamilyFormatError, match="at most 100"):
            check_kernel(KernelTable.from_dict(raw), streamed, first_failure=ff)


def test_first_failure_says_its_max_error_is_a_lower_bound():
    streamed = load_family(M12, stream=True)
    raw = _ones_kernel(streamed)
    raw.update(beta=[0] * len(raw["tokens"]), w=[[1000] * len(raw["tokens"]) for _ in raw["tokens"]])
    full = check_kernel(KernelTable.from_dict(raw), streamed)
    quick = check_kernel(KernelTable.from_dict(raw), streamed, first_failure=True)
    assert quick.max_error <= full.max_error and quick.stopped_early["max_error_at_least"] is True
    line = next(x for x in quick.text() if x.startswith("solves"))
    assert f"of the {quick.stopped_early['inputs_checked']} inputs checked" in line and "max error ≥" in line


@pytest.mark.skipif(np.finfo(np.longdouble).eps >= np.finfo(np.float64).eps, reason="no extended long double here")
def test_rationals_beyond_python_digit_guard_are_printed_not_crashed(tmp_path):
    """A subnormal long-double delta: errors with ≈ 4,950-digit denominators; the text output used to exit 3."""
    toks = tokens_of(SMALL)
    arrays = {"tokens": np.array([bits(z, SMALL.m) for z in toks]), "kernel": np.ones((len(toks), len(toks))),
              "beta": np.full(len(toks), 7.0), "w": np.zeros((len(toks), len(toks))),
              "delta": np.nextafter(np.longdouble(0), np.longdouble(1))}
    (tmp_path / "t.npz").write_bytes(npz_bytes(arrays))
    proc = run_cli("check-kernel", str(tmp_path / "t.npz"), "--family", str(CORPUS / "valid" / "small_paper.json"))
    assert proc.returncode == 1 and "solves       no" in proc.stdout and proc.stderr == ""


@pytest.mark.parametrize("text", ["²/3", "٣/4", "𝟏/2"])
def test_tolerances_take_ascii_digits_only(text):
    with pytest.raises(ValueError, match="--x"):
        parse_tolerance(text, "--x")


def test_an_empty_code_spec_is_refused():
    proc = run_cli("check-kernel", str(EX / "rank15_solves.npz"), "--code", "")
    assert proc.returncode == 2 and "empty code spec" in proc.stderr


def test_first_failure_validates_the_rest_of_a_factor_table_too():
    streamed, explicit = load_family(M12, stream=True), load_family(M12)
    toks = tokens_of(explicit)
    last = explicit.inputs[-1]
    x, z = last.tokens[0], last.tokens[1]
    raw = {"tokens": [bits(t, streamed.m) for t in toks],
           "phi_q": [[0, 1] if t == x else [1, 0] for t in toks],  # α ≡ 1 except α(x, ·) = phi_k[·][1]
           "phi_k": [[1, -5] if t == z else [1, 1] for t in toks]}
    msgs = set()
    for ff in (False, True):
        with pytest.raises(TableFormatError) as exc:
            check_kernel(KernelTable.from_dict(raw), streamed, first_failure=ff)
        msgs.add(str(exc.value))
    assert len(msgs) == 1 and "= -5 < 0 on a pair used by" in msgs.pop()
