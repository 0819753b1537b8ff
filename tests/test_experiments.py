"""§6.2/§6.3 experiments: the task and its split, the split checker, multi-head tables, and smoke runs.

The split checker is tested on the corpus in tests/splits (valid, invalid — each named after
the attack it covers, with the step it must fail — and malformed), and on splits built
here for several settings and draws. The smoke runs (one setting, two ranks, one seed, a
few steps) need torch, which the test extra installs; they are skipped without it.
"""
import json
import subprocess
import sys
from fractions import Fraction

import numpy as np
import pytest
from hypothesis import assume, given, settings
from hypothesis import strategies as st

from certify.experiments.protocol import T975, exact_scores, t_interval
from certify.check_split import check_split, check_split_file
from certify.experiments.tasks import Setting, SplitConfig, SplitError, build_split, permute_word, split_to_json
from certify.kernels.audit import FamilySpec, check_kernel, load_family
from certify.kernels.predict import exact_predictions
from certify.kernels.json_table import loads_json
from certify.kernels.table import TableFormatError, load_table, table_from_arrays
from witnesses import Input

from conftest import ROOT, assert_one_line_error, run_cli, run_cli_here

SPLITS = ROOT / "tests" / "splits"
MANIFEST = json.loads((SPLITS / "MANIFEST.json").read_text())


# --------------------------------------------------------------------------- the task and the split


@settings(max_examples=8)
@given(st.sampled_from(["4:2", "6:3", "6:4", "8:3"]), st.integers(0, 10**6))
def test_built_splits_pass_the_checker_and_labels_are_the_oracles(text, draw):
    s = Setting.parse(text)
    try:  # a small training set may leave too few covered test sequences for some draw: a refusal, not a bug
        split = build_split(s, SplitConfig(train=24 if text == "4:2" else 160, val=4, test=4), draw)
    except SplitError as exc:
        assert "distinct test sequences" in str(exc)
        assume(False)
    report = check_split(json.loads(json.dumps(split_to_json(split))))
    assert report.ok, report.failure
    for seq, (words, pattern, k) in zip(split.test, split.test_origin):
        targets = [X.target for X in split.inputs(seq)]
        assert sorted(targets) == sorted(pattern)  # the oracle's label is the slot's answer, p_i
        assert len(seq) == s.n and sum(1 for z in seq if z & 3 == 2) == s.q


@settings(max_examples=8)
@given(st.sampled_from(["4:2", "6:3", "6:4", "8:3"]), st.integers(0, 10**6))
def test_paper_layout_splits_pass_the_checker_and_labels_are_the_oracles(text, draw):
    """The M + 2 layout (docs/math.md §10): the same checker proves it held out, and the oracle's labels are p."""
    s = Setting.parse(text, layout="M+2")
    assert s.m == s.M + 2
    try:
        split = build_split(s, SplitConfig(train=24 if text == "4:2" else 160, val=4, test=4), draw)
    except SplitError as exc:
        assert "distinct test sequences" in str(exc)
        assume(False)
    doc = json.loads(json.dumps(split_to_json(split)))
    assert doc["setting"]["m"] == s.M + 2 and all(len(t) == s.M + 2 for t in doc["tokens"])
    report = check_split(doc)
    assert report.ok, report.failure
    for seq, (words, pattern, k) in zip(split.test, split.test_origin):
        assert sorted(X.target for X in split.inputs(seq)) == sorted(pattern)


@pytest.mark.parametrize("M", [4, 5, 6, 7, 8])
def test_paper_layout_overlaps_make_the_label_the_pattern(M):
    """Exhaustively, for every weight h and words S ≠ T: ⟨q_S, d_S,0⟩ = 0, ⟨q_S, d_S,1⟩ = 1, and every other token
    (a query token, or T's match or padding) has overlap ≥ 1 with q_S — so the Min-IP target at q_S is p_S."""
    ip = lambda a, b: (a & b).bit_count()  # noqa: E731
    for h in range(1, M):
        s = Setting(M, 2, h, layout="M+2")
        words = [w for w in range(1 << M) if w.bit_count() == h]
        # the paddings are exactly the weight-(h + 1) sets holding coordinate 0 (what check-split's tokens step asks)
        assert {s.database_token(S, 1) >> 2 for S in words} == \
            {T for T in range(1 << M) if T.bit_count() == h + 1 and T & 1}
        for S in words:
            q = s.query_token(S)
            assert ip(q, s.database_token(S, 0)) == 0 and ip(q, s.database_token(S, 1)) == 1
            assert ip(q, q) >= 1 and s.database_token(S, 1) < 1 << s.m
            for T in words:
                if T != S:
                    assert min(ip(q, s.query_token(T)), ip(q, s.database_token(T, 0)),
                               ip(q, s.database_token(T, 1))) >= 1


def test_the_two_layouts_draw_the_same_training_and_validation_origins():
    """Only the tokens' spelling differs: train and validation come from the same words, patterns and permutations
    (the test set may differ, as its coverage test is about tokens)."""
    a = build_split(Setting.parse("6:4"), SplitConfig(train=64, val=8, test=8), 3)
    b = build_split(Setting.parse("6:4", layout="M+2"), SplitConfig(train=64, val=8, test=8), 3)
    assert a.train_origin == b.train_origin and a.val_origin == b.val_origin
    assert a.train != b.train and {len(format(z, "b")) <= 9 for seq in a.train for z in seq} == {True}


def test_the_same_draw_gives_the_same_split_and_another_draw_another():
    a = split_to_json(build_split(Setting.parse("6:4"), SplitConfig(train=64, val=8, test=8), 3))
    b = split_to_json(build_split(Setting.parse("6:4"), SplitConfig(train=64, val=8, test=8), 3))
    c = split_to_json(build_split(Setting.parse("6:4"), SplitConfig(train=64, val=8, test=8), 4))
    assert json.dumps(a) == json.dumps(b) and a["parts"] != c["parts"]


@pytest.mark.parametrize("name", MANIFEST["valid"])
def test_valid_split_files_hold(name):
    proc = run_cli_here("experiment", "check-split", str(SPLITS / "valid" / name))
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert "held out     yes" in proc.stdout


@pytest.mark.parametrize("name,step", sorted(MANIFEST["invalid"].items()))
def test_each_attack_on_a_split_is_rejected_at_its_step(name, step):
    report = check_split_file(str(SPLITS / "invalid" / name))
    assert report.failure is not None and report.failure[0] == step, report.failure


def test_a_rejected_split_exits_1_naming_the_step_and_the_sequence():
    proc = run_cli_here("experiment", "check-split", str(SPLITS / "invalid" / "test_sequence_in_training_via_a_permutation.json"))
    assert proc.returncode == 1 and proc.stderr == ""
    assert "disjoint   FAILS: parts.test[0] occurs in train as parts.train[" in proc.stdout


@pytest.mark.parametrize("name", MANIFEST["malformed"])
def test_malformed_split_files_exit_2_with_one_line(name):
    assert_one_line_error(run_cli_here("experiment", "check-split", str(SPLITS / "malformed" / name)), 2)


def test_the_split_checker_uses_only_the_standard_library():
    code = ("import sys; import certify.check_split\n"
            "bad = [m for m in ('numpy', 'flint', 'sympy', 'torch', 'codes', 'witnesses') if m in sys.modules]\n"
            "assert not bad, bad")
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=ROOT)
    assert proc.returncode == 0, proc.stderr


def test_the_check_split_json_names_the_failure():
    proc = run_cli_here("experiment", "check-split", "--json", str(SPLITS / "invalid" / "test_label_flipped.json"))
    doc = json.loads(proc.stdout)
    assert proc.returncode == 1 and doc["holds"] is False and doc["failure"]["step"] == "labels"


def test_check_split_bounds_words_times_permutations_before_the_work(tmp_path):
    """Issue 29, defect 5: the reported file (all 12,870 weight-8 words of 16 bits, 10,000 permutations, 818 KB)
    took 5 GB and 235 s before exit 2; now the product is refused from the counts, before any action is computed."""
    from certify.check_split import MAX_WORD_ACTIONS

    doc = json.loads((SPLITS / "valid" / "small_M4_q2.json").read_text())
    doc["setting"].update(M=16, h=8, m=19)
    doc["words"] = [format(w, "016b")[::-1] for w in range(1 << 16) if w.bit_count() == 8]
    doc["permutations"] = [list(range(16))] * 10_000
    path = tmp_path / "big.json"
    path.write_text(json.dumps(doc))
    proc = run_cli("experiment", "check-split", str(path))  # a process of its own: the work it guards is 5 GB
    assert_one_line_error(proc, 2)
    assert "12,870 words × 10,000 permutations = 128,700,000" in proc.stderr and f"{MAX_WORD_ACTIONS:,}" in proc.stderr
    # the producer refuses what the checker would: before drawing a permutation
    with pytest.raises(SplitError, match="word actions"):
        build_split(Setting(16, 2, 8), SplitConfig(permutations=1 + MAX_WORD_ACTIONS // 12_870), 0)


# --------------------------------------------------------------------------- strict splits (issue 46)


def test_the_split_corpus_is_what_its_generator_writes(tmp_path):
    """tests/splits/make_splits.py's write() makes every committed file and MANIFEST.json again, byte for byte, and the
    manifest lists exactly the files on disk."""
    import importlib.util

    spec = importlib.util.spec_from_file_location("make_splits", SPLITS / "make_splits.py")
    gen = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(gen)
    assert gen.write(tmp_path) == MANIFEST
    listed = {f"valid/{n}" for n in MANIFEST["valid"]} | {f"invalid/{n}" for n in MANIFEST["invalid"]} | \
        {f"malformed/{n}" for n in MANIFEST["malformed"]}
    assert {f"{p.parent.name}/{p.name}" for sub in ("valid", "invalid", "malformed") for p in (SPLITS / sub).iterdir()} \
        == listed
    for name in sorted(listed) + ["MANIFEST.json"]:
        assert (tmp_path / name).read_bytes() == (SPLITS / name).read_bytes(), name


@settings(max_examples=6)
@given(st.sampled_from(["6:3", "6:4", "8:3"]), st.integers(0, 10**6))
def test_strict_splits_pass_the_checker_and_keep_the_listed_training_data(text, draw):
    """--split strict (docs/math.md §10, "Strictly held out"): the listed split's training and validation sequences,
    a test set in which no sequence has an all-training origin (producer and checker agree), proved by check-split."""
    try:
        split = build_split(Setting.parse(text), SplitConfig(train=160, val=4, test=4, strict=True), draw)
    except SplitError as exc:  # too few covered (or strict) test sequences for this draw: a refusal, not a bug
        assert "distinct test sequences" in str(exc) or "no all-training origin" in str(exc)
        assume(False)
    listed = split.listed
    assert split.strict and not listed.strict
    assert (split.train, split.val, split.train_origin) == (listed.train, listed.val, listed.train_origin)
    assert split.tokens == listed.tokens  # so a model trained on either is the same model
    assert all(split.training_origin(o) is None for o in split.test_origin)
    doc = json.loads(json.dumps(split_to_json(split)))
    report = check_split(doc)
    assert doc["strict"] is True and report.ok and report.steps[-1] == "strict", report.failure
    # the listed split claimed strict: the checker names the first test sequence the producer finds an origin for
    claimed = dict(split_to_json(listed), strict=True)
    first = next((i for i, o in enumerate(listed.test_origin) if listed.training_origin(o) is not None), None)
    report = check_split(json.loads(json.dumps(claimed)))
    if first is None:
        assert report.ok
    else:
        assert report.failure[0] == "strict" and report.failure[1].startswith(f"parts.test[{first}] has an all-training")


def test_an_all_training_origin_has_the_held_out_patterns_bits_reordered():
    """The second origin of a listed test sequence: training words, a training permutation, and the same answer per
    permuted word — so its pattern is the held-out one's bits in another order, and it makes the same multiset."""
    split = build_split(Setting.parse("8:3"), SplitConfig(train=512, val=16, test=64), 0)
    found = 0
    for seq, origin in zip(split.test, split.test_origin):
        other = split.training_origin(origin)
        if other is None:
            continue
        found += 1
        ws, pat, k = other
        assert k not in split.held_perms and pat not in split.held_patterns and split.held_words.isdisjoint(ws)
        assert sorted(pat) == sorted(origin[1]) and pat != origin[1]
        made = [split.setting.query_token(w) for w in (permute_word(w, split.perms[k]) for w in ws)]
        made += [split.setting.database_token(permute_word(w, split.perms[k]), b) for w, b in zip(ws, pat)]
        assert sorted(made) == sorted(seq)
    assert found


def test_the_strict_attack_is_rejected_naming_the_sequence_and_its_second_origin():
    proc = run_cli_here("experiment", "check-split",
                        str(SPLITS / "invalid" / "test_sequence_with_a_second_all_training_origin.json"))
    assert proc.returncode == 1 and proc.stderr == ""
    assert "strict     FAILS: parts.test[1] has an all-training origin: words [" in proc.stdout
    ok = run_cli_here("experiment", "check-split", str(SPLITS / "valid" / "strict_M6_q2.json"))
    assert ok.returncode == 0 and "strict     holds" in ok.stdout and "strictly     yes" in ok.stdout


def test_an_impossible_strict_split_is_refused_saying_how_many_the_draw_has():
    with pytest.raises(SplitError, match=r"only 2 test sequences with no all-training origin .* exactly 2 "):
        build_split(Setting(4, 2, 2), SplitConfig(train=24, val=6, test=6, strict=True), 0)
    from certify.check_split import MAX_ORIGIN_SEARCH

    with pytest.raises(SplitError, match="word look-ups for check-split"):  # what the checker would refuse
        build_split(Setting(6, 12, 3), SplitConfig(test=200_000, permutations=40, strict=True), 0)
    assert 200_000 * 30 * 12 > MAX_ORIGIN_SEARCH  # 30 training permutations of 40


@pytest.mark.parametrize("setting,config,words", [
    (Setting(6, 4, 3, distance=2), SplitConfig(), "too few code words"),  # 4 words at directed distance 2, q = 4
    (Setting(4, 1, 2), SplitConfig(held_out_patterns=Fraction(9, 10)), "too few patterns"),  # both of 2 held out
    (Setting(4, 2, 2), SplitConfig(train=24, val=6, test=500), "distinct test sequences"),
])
def test_impossible_splits_are_refused(setting, config, words):
    with pytest.raises(SplitError, match=words):
        build_split(setting, config, 0)


# --------------------------------------------------------------------------- multi-head tables


def _fraction_prediction(d, X, pos, delta=0):
    """t̂ of a multi-head array table, recomputed here with Fractions (independently of certify/kernels/predict.py);
    ``delta`` is added to each head's denominator (docs/math.md §2, "Several heads with a denominator constant")."""
    F = lambda v: Fraction(v)  # noqa: E731 - ints (or exact floats)
    heads, vheads = list(d["heads"]), list(d["value_heads"])
    x = pos[X.tokens[X.query]]
    out = F(d["beta"][x])
    c = v = 0
    for r, dv in zip(heads, vheads):
        a = [sum(F(d["phi_q"][x][k]) * F(d["phi_k"][pos[z]][k]) for k in range(c, c + r)) for z in X.tokens]
        g = [sum(F(d["w"][x][k]) * F(d["values"][pos[z]][k]) for k in range(v, v + dv)) for z in X.tokens]
        out += sum(ai * gi for ai, gi in zip(a, g)) / (delta + sum(a))
        c, v = c + r, v + dv
    return out


@settings(max_examples=25)
@given(st.integers(0, 2**32 - 1), st.sampled_from([[1], [2, 1], [1, 1, 2]]),
       st.sampled_from([Fraction(0), Fraction(1, 100), Fraction(3, 2)]))
def test_multihead_predictions_are_the_sum_of_separately_normalized_heads(seed, heads, delta):
    rng = np.random.default_rng(seed)
    m, N = 4, 6
    toks = [format(i, "04b") for i in rng.choice(16, N, replace=False)]
    r, vheads = sum(heads), [rng.integers(1, 3) for _ in heads]
    d = {"phi_q": rng.integers(1, 5, (N, r)), "phi_k": rng.integers(0, 5, (N, r)), "beta": rng.integers(-3, 4, N),
         "values": rng.integers(-3, 4, (N, sum(vheads))), "w": rng.integers(-3, 4, (N, sum(vheads))),
         "heads": np.array(heads), "value_heads": np.array(vheads)}
    d["phi_k"][:, :] += 1  # every α_h > 0
    if len(heads) == 1 and delta:  # one head: δ's phantom carries β (docs/math.md §2); compare the δ = 0 case only
        delta = Fraction(0)
    table = table_from_arrays(toks, d, delta)
    pos = {int(t[::-1], 2): i for i, t in enumerate(toks)}
    ints = list(pos)
    inputs = [Input(tuple(int(rng.choice(ints)) for _ in range(int(rng.integers(1, 5)))), 0, m) for _ in range(10)]
    assert exact_predictions(table, inputs, m) == [_fraction_prediction(d, X, pos, delta) for X in inputs]


def test_a_denominator_constant_is_each_heads_own_phantom_key():
    """δ with two heads = the δ = 0 table on inputs with one more token p: α_h(x, p) = δ and v_h(p) = 0 in every head."""
    base = json.loads((ROOT / "tests/tables/valid/two_heads_solve.json").read_text())
    fam = load_family(str(ROOT / "tests" / "tables" / "families" / "gap_one.json"))
    delta = Fraction(3, 7)
    with_delta = loads_json(json.dumps(dict(base, delta="3/7")))
    # the phantom as a real token "01": phi_q gets a column per head that meets it, values 0
    phantom = dict(base, tokens=base["tokens"] + ["01"], heads=[2, 2],
                   phi_q=[[row[0], 1, row[1], 1] for row in base["phi_q"]] + [[0, 0, 0, 0]],
                   phi_k=[[row[0], 0, row[1], 0] for row in base["phi_k"]] + [[0, "3/7", 0, "3/7"]],
                   values=base["values"] + [[0, 0, 0, 0]], w=base["w"] + [[0, 0, 0, 0]], beta=base["beta"] + [0])
    p = int("01"[::-1], 2)
    extended = [Input(X.tokens + (p,), X.query, X.m) for X in fam.inputs]
    assert exact_predictions(with_delta, fam.inputs, fam.m) == exact_predictions(loads_json(json.dumps(phantom)), extended, fam.m)
    assert exact_predictions(with_delta, fam.inputs, fam.m) != exact_predictions(loads_json(json.dumps(base)), fam.inputs, fam.m)
    assert delta == Fraction(with_delta.delta)


def test_several_heads_report_that_no_bound_is_carried():
    fam = load_family("rank-nine")
    rng = np.random.default_rng(0)
    toks = list(dict.fromkeys(z for X in fam.inputs for z in X.tokens))
    bits = [format(z, f"0{fam.m}b")[::-1] for z in toks]
    N = len(bits)
    d = {"phi_q": rng.integers(1, 3, (N, 4)), "phi_k": rng.integers(1, 3, (N, 4)), "beta": np.zeros(N, dtype=int),
         "values": rng.integers(0, 2, (N, 2)), "w": rng.integers(0, 2, (N, 2)), "heads": np.array([2, 2]),
         "value_heads": np.array([1, 1])}
    report = check_kernel(table_from_arrays(bits, d, "1/1000"), fam)
    doc, text = report.to_json(), "\n".join(report.text())
    assert doc["certified_bound"] is None and doc["several_heads"]["one_head_bound"] == 9
    assert "bound        none carried for 2 heads: the certificate's r ≥ 9 is about one head" in text
    assert doc["table"]["delta"] == "1/1000" and len(doc["head_ranks"]) == 2


def test_one_head_predictions_agree_with_check_kernel():
    """exact_predictions on a one-head table gives check-kernel's maximum error (two implementations, one answer)."""
    fam = load_family(str(ROOT / "tests" / "tables" / "families" / "gap_one.json"))
    for name in ("gap_one_jump_solved.json", "delta_phantom_key.json", "tiny_kernel_entry.json"):
        table = load_table(str(ROOT / "tests" / "tables" / "valid" / name))
        preds = exact_predictions(table, fam.inputs, fam.m)
        assert max(abs(p - X.target) for p, X in zip(preds, fam.inputs)) == check_kernel(table, fam).max_error


def test_check_kernel_on_two_heads_reports_each_heads_rank():
    proc = run_cli_here("check-kernel", str(ROOT / "tests/tables/valid/two_heads_solve.json"), "--family",
                        str(ROOT / "tests/tables/families/gap_one.json"), "--json")
    doc = json.loads(proc.stdout)
    assert proc.returncode == 0 and doc["solves"] is True
    assert doc["head_ranks"] == [1, 1] and doc["kernel_rank"] == 2 and doc["table"]["heads"] == [1, 1]
    text = run_cli_here("check-kernel", str(ROOT / "tests/tables/valid/two_heads_solve.json"), "--family",
                        str(ROOT / "tests/tables/families/gap_one.json")).stdout
    assert "2 heads, φ_Q/φ_K widths r_h = 1 + 1 = 2, value widths d_h = 3 + 1" in text
    assert "kernel ranks 1 + 1 = 2" in text and "jumps        not checked" in text


def test_two_heads_against_a_streamed_family_are_refused():
    fam = load_family(str(ROOT / "tests" / "tables" / "families" / "gap_one.json"))
    streamed = FamilySpec((), fam.m, fam.error, (), None, None, "a compact certificate", compact=object())
    with pytest.raises(TableFormatError, match="listed family"):
        check_kernel(load_table(str(ROOT / "tests/tables/valid/two_heads_solve.json")), streamed)


def test_clipping_is_counted_and_ranked_per_head(tmp_path):
    """Head 0's α(10, 01) = −10⁻¹² is clipped to 0: its block becomes rank 1, head 1's stays rank 1."""
    table = {"tokens": ["10", "01", "11"], "heads": [2, 1], "value_heads": [1, 1], "beta": [0, 0, 1],
             "values": [[0, 0]] * 3, "w": [[0, 0]] * 3, "phi_q": [[1, 0, 1], [1, 1, 1], [1, 1, 1]],
             "phi_k": [[1, 0, 1], ["-1/1000000000000", "1/1000000000000", 1], [1, 0, 1]]}
    fam = {"family": {"inputs": [{"tokens": ["10", "01"], "query": 0}, {"tokens": ["11", "01"], "query": 0}]}}
    for order in (table, dict(table, heads=[1, 2], phi_q=[r[::-1] for r in table["phi_q"]],
                              phi_k=[r[::-1] for r in table["phi_k"]])):  # the clipped head first, then last
        (tmp_path / "t.json").write_text(json.dumps(order))
        (tmp_path / "f.json").write_text(json.dumps(fam))
        doc = json.loads(run_cli_here("check-kernel", "t.json", "--family", "f.json", "--clip-negative-alpha", "1e-9",
                                      "--json", cwd=tmp_path).stdout)
        assert doc["table"]["clip_negative_alpha"]["entries_clipped"] == 1
        assert doc["head_ranks"] == [1, 1]


def test_several_heads_say_the_readout_lp_is_skipped_and_refuse_oversized_work():
    fam = load_family(str(ROOT / "tests" / "tables" / "families" / "gap_one.json"))
    two = load_table(str(ROOT / "tests/tables/valid/two_heads_solve.json"))
    assert "readout      not searched (--search-readout)" in "\n".join(check_kernel(two, fam, search_readout=True).text())
    many = [Input(fam.inputs[0].tokens * 2, 0, fam.m)] * 4_000_000  # 2·4·10⁶·6 terms > 2·10⁷
    with pytest.raises(TableFormatError, match="terms to predict"):
        exact_predictions(two, many, fam.m)


def test_heads_must_cover_the_factor_columns():
    base = json.loads((ROOT / "tests/tables/valid/two_heads_solve.json").read_text())
    with pytest.raises(TableFormatError, match="heads sums to 3; phi_q has 2 columns"):
        loads_json(json.dumps(dict(base, heads=[2, 1])))
    with pytest.raises(TableFormatError, match="value_heads sums to 5; values has 4 columns"):
        loads_json(json.dumps(dict(base, value_heads=[3, 2])))


# --------------------------------------------------------------------------- statistics


def test_t_quantiles_are_student_t_975_percent_points():
    from sympy import Rational, stats

    for df in (1, 2, 4, 9, 30):
        T = stats.StudentT("T", df)
        got = float(stats.cdf(T)(Rational(str(T975[df - 1]))).evalf(20))
        assert abs(got - 0.975) < 2e-4, (df, got)


def test_t_interval_is_exact_in_the_mean():
    mean, half = t_interval([Fraction(1, 2), Fraction(3, 4), Fraction(1, 4)])
    assert mean == Fraction(1, 2) and abs(half - 4.303 * 0.25 / 3**0.5) < 1e-12


# --------------------------------------------------------------------------- smoke runs (torch)


SMOKE = ["--seeds", "0", "--steps", "20", "--train", "96", "--val", "16", "--test", "16", "--eval-every", "10"]


@pytest.fixture(scope="module")
def capacity_run(tmp_path_factory):
    pytest.importorskip("torch")
    where = tmp_path_factory.mktemp("capacity")
    # in this process (torch's import is most of a smoke run's cost); test_the_same_seed_gives_byte_identical_tables_and_json
    # reruns it in a fresh process and compares the bytes
    proc = run_cli_here("experiment", "capacity", "--settings", "6:4", "--ranks", "2", *SMOKE, "--out", "out", "--json",
                        cwd=where)
    assert proc.returncode == 0, proc.stderr
    return where, json.loads(proc.stdout), proc


def test_capacity_smoke_runs_are_scored_exactly_from_their_tables(capacity_run):
    where, doc, proc = capacity_run
    assert doc["schema"] == "certify.experiment.capacity/1"
    assert [(r["rank"], r["model"]) for r in doc["runs"]] == [(2, "positive"), (None, "dense")]
    split = build_split(Setting.parse("6:4"), SplitConfig(train=96, val=16, test=16), 0)
    for run in doc["runs"]:
        figures, verdicts, _ = exact_scores(load_table(str(where / run["table"])), split, "test")
        assert run["exact"]["test"]["correct"] == figures["correct"] == sum(verdicts)
        # check-kernel on the split's test family: a sequence is correct iff none of its q inputs fails
        ck = json.loads(run_cli_here("check-kernel", run["table"], "--family", "out/M6_q4/draw0/split.json", "--json",
                                     cwd=where).stdout)
        failing = {x["index"] // 4 for x in ck["failing_inputs"]}
        assert 16 - len(failing) == run["exact"]["test"]["correct"]


def test_capacity_writes_a_split_that_check_split_proves_held_out(capacity_run):
    where, doc, _ = capacity_run
    proc = run_cli_here("experiment", "check-split", "out/M6_q4/draw0/split.json", cwd=where)
    assert proc.returncode == 0 and "held out     yes" in proc.stdout
    assert json.loads((where / "out" / "results.json").read_text()) == doc


def test_a_strict_run_trains_the_listed_runs_model_and_scores_its_test_set_in_halves(capacity_run, tmp_path):
    """--split strict keeps the listed split's training data, so the same tables: the same selected steps and training
    counts, and the listed test set's two halves add up to the listed run's test count (docs/experiments.md, "A strict
    split"); the listed run's document has none of the strict keys."""
    where, doc, _ = capacity_run
    proc = run_cli_here("experiment", "capacity", "--settings", "6:4", "--ranks", "2", *SMOKE, "--split", "strict",
                        "--out", "out", "--json", cwd=tmp_path)
    assert proc.returncode == 0, proc.stderr
    strict = json.loads(proc.stdout)
    assert strict["config"]["split"]["strict"] is True and "strict" not in doc["config"]["split"]
    assert strict["splits"][0]["strict"] is True and "listed_test" not in doc["splits"][0]
    for a, b in zip(strict["runs"], doc["runs"]):
        assert "listed_test" not in b and (a["selected_step"], a["exact"]["train"]) == (b["selected_step"], b["exact"]["train"])
        halves = a["listed_test"]
        assert halves["with_training_origin"]["total"] == strict["splits"][0]["listed_test"]["with_training_origin"]
        assert sum(h["correct"] for h in halves.values()) == b["exact"]["test"]["correct"]
        assert sum(h["total"] for h in halves.values()) == b["exact"]["test"]["total"]
        assert (tmp_path / a["table"]).read_bytes() == (where / b["table"]).read_bytes()
    assert check_split_file(str(tmp_path / "out" / "M6_q4" / "draw0" / "split.json")).steps[-1] == "strict"


def test_the_same_seed_gives_byte_identical_tables_and_json(capacity_run, tmp_path):
    where, doc, _ = capacity_run
    proc = run_cli("experiment", "capacity", "--settings", "6:4", "--ranks", "2", *SMOKE, "--out", "out", "--json",
                   cwd=tmp_path)  # a fresh process: the fixture's run was in this one
    assert json.loads(proc.stdout) == doc and proc.stdout == (where / "out" / "results.json").read_text()
    for run in doc["runs"]:
        assert (tmp_path / run["table"]).read_bytes() == (where / run["table"]).read_bytes()


@pytest.mark.parametrize("fmap", ["elu1", "exp", "relu", "favor"])
def test_each_feature_map_trains_exports_positive_features_and_is_scored_exactly(tmp_path, fmap):
    """--feature-map (docs/experiments.md, "The models"): the exported φ are the map's, > 0, and the exact score of
    the table read back is the run's; the configuration records the map and the layout."""
    pytest.importorskip("torch")
    proc = run_cli_here("experiment", "capacity", "--settings", "6:4", "--ranks", "4", *SMOKE, "--no-dense",
                        "--feature-map", fmap, "--layout", "M+2", "--out", "out", "--json", cwd=tmp_path)
    assert proc.returncode == 0, proc.stderr
    doc = json.loads(proc.stdout)
    assert (doc["config"]["feature_map"], doc["config"]["layout"]) == (fmap, "M+2")
    assert doc["config"]["settings"][0]["m"] == 8
    run = doc["runs"][0]
    table = load_table(str(tmp_path / run["table"]))
    assert table.m == 8
    phi = np.array([[float(table.entry("phi_q", i, j)) for j in range(4)] for i in range(len(table.tokens))])
    assert (phi > 0).all()
    split = build_split(Setting.parse("6:4", layout="M+2"), SplitConfig(train=96, val=16, test=16), 0)
    figures, _, _ = exact_scores(table, split, "test")
    assert run["exact"]["test"]["correct"] == figures["correct"]


def test_the_feature_maps_are_the_maps_of_the_same_projection(tmp_path):
    """softplus, elu + 1, exp and relu + 2⁻¹⁰ apply to the same ``u = W x̃`` from the same parameter draws;
    FAVOR+ projects to ``m + 1`` coordinates and maps them through its fixed ``Ω`` (``R × (m + 1)``)."""
    torch = pytest.importorskip("torch")
    from certify.experiments.models import TrainSpec, _Params

    X = torch.tensor([[1.0, 0.0, 1.0, 1.0], [0.0, 1.0, 0.0, 1.0]], dtype=torch.float64)
    outs, params = {}, {}
    for fmap in ("softplus", "elu1", "exp", "relu", "favor"):
        torch.manual_seed(3)
        p = _Params(TrainSpec(rank=5, heads=1, dense=False, seed=3, steps=1, feature_map=fmap), 3)
        outs[fmap] = p.features(X)[0].detach()
        params[fmap] = p
        assert outs[fmap].shape == (2, 5) and bool((outs[fmap] > 0).all())
    u = X @ params["softplus"].WQ.T
    assert all(torch.equal(params[f].WQ, params["softplus"].WQ) for f in ("elu1", "exp", "relu"))
    assert torch.allclose(outs["softplus"], torch.nn.functional.softplus(u))
    assert torch.allclose(outs["elu1"], torch.nn.functional.elu(u) + 1)
    assert torch.allclose(outs["exp"], torch.exp(u))
    assert torch.allclose(outs["relu"], torch.relu(u) + 2.0**-10)
    f = params["favor"]
    assert f.WQ.shape == (4, 4) and f.omega.shape == (5, 4)
    v = X @ f.WQ.T
    assert torch.allclose(outs["favor"], torch.exp(v @ f.omega.T - (v * v).sum(-1, keepdim=True) / 2) / 5 ** 0.5)


@pytest.mark.parametrize("args,steps", [([], 2000), (["--steps", "30"], 30), (["--steps", "600"], 600)])
def test_the_paper_preset_sets_only_what_is_not_given(args, steps):
    """``capacity --preset paper`` is ``--steps 2000`` unless --steps is given (docs/experiments.md, "A preset")."""
    from certify.cli.experiments import PRESETS, apply_preset, capacity_cmd

    ctx = capacity_cmd.make_context("capacity", ["--preset", "paper", *args])
    out = apply_preset(ctx, "paper", ctx.params)
    assert out["steps"] == steps and PRESETS["paper"] == {"steps": 2000}
    assert {k: v for k, v in out.items() if k != "steps"} == {k: v for k, v in ctx.params.items() if k != "steps"}


def test_a_preset_run_writes_the_json_of_its_options_spelled_out(tmp_path):
    """With --steps given, --preset paper changes nothing: the same JSON byte for byte (the preset is only values)."""
    pytest.importorskip("torch")
    (tmp_path / "a").mkdir()
    (tmp_path / "b").mkdir()
    common = ["experiment", "capacity", "--settings", "6:4", "--ranks", "2", *SMOKE, "--no-dense", "--out", "out", "--json"]
    a = run_cli_here(*common, "--preset", "paper", cwd=tmp_path / "a")
    b = run_cli_here(*common, cwd=tmp_path / "b")
    assert a.returncode == b.returncode == 0 and a.stdout == b.stdout


def test_heads_smoke_run_writes_multi_head_tables(tmp_path, monkeypatch):
    pytest.importorskip("torch")
    monkeypatch.delenv("CERTIFY_PROGRESS", raising=False)  # progress on: one line per run
    proc = run_cli_here("experiment", "heads", "--budgets", "4", "--draws", "1", "--no-dense", *SMOKE, "--out", "out",
                        "--json", cwd=tmp_path)
    assert proc.returncode == 0, proc.stderr
    assert [ln.split(":")[1] for ln in proc.stderr.splitlines() if ln.startswith("certify experiment heads: run")] == \
        [" run 1/3", " run 2/3", " run 3/3"]
    doc = json.loads(proc.stdout)
    assert doc["schema"] == "certify.experiment.heads/1"
    assert [r["heads"] for r in doc["runs"]] == [1, 2, 4]
    four = load_table(str(tmp_path / doc["runs"][2]["table"]))
    assert four.heads == (1, 1, 1, 1) and four.value_heads == (16, 16, 16, 16)
    claims = doc["summary"]["claims"]["draw1"]
    assert set(claims) >= {"one_head_lowest_overall", "two_and_four_head_curves_cross",
                           "all_paired_H2_H1_intervals_include_zero", "largest_budget"}


@pytest.mark.parametrize("command,stale", [
    (["capacity", "--settings", "6:4", "--ranks", "2", "--seeds", "0-1", "--plot", "fig.png"],
     "M6_q4/draw0/rank2_seed0.npz"),
    (["heads", "--budgets", "4", "--heads", "1", "--draws", "0", "--seeds", "0"], "M8_q3/draw0/rank4_seed0.npz")])
def test_a_diverged_run_is_a_result_reported_everywhere_not_exit_3(tmp_path, command, stale):
    """Issue 29, defect 1: Adam at lr 10³⁰⁰ makes every trained entry NaN (at lr 10⁶, as first written, seed 0 of the
    capacity run stays finite on some CPUs). Was exit 3 ("an exported table was
    refused"); now each run is recorded as diverged (its first non-finite entry), writes no table, counts as
    0 correct, and the command goes on and exits 0 with the text, JSON and plot saying so."""
    pytest.importorskip("torch")
    pytest.importorskip("matplotlib")
    stale = tmp_path / "out" / stale
    stale.parent.mkdir(parents=True)
    stale.write_bytes(b"an earlier run's table")  # not this run's: removed, not left beside a diverged run
    proc = run_cli_here("experiment", *command, *SMOKE[2:], "--lr", "1e300", "--no-dense", "--out", "out", cwd=tmp_path)
    assert proc.returncode == 0, proc.stderr
    assert "  diverged     " in proc.stdout and "is nan" in proc.stdout
    doc = json.loads((tmp_path / "out" / "results.json").read_text())
    assert doc["runs"] and all(r["diverged"] and " is " in r["diverged"] and r["table"] is None for r in doc["runs"])
    assert all(r["exact"]["test"]["correct"] == 0 and r["exact"]["test"]["max_error_decimal"] is None for r in doc["runs"])
    assert doc["summary"]["diverged_runs"] == len(doc["runs"])
    assert not list((tmp_path / "out").rglob("*.npz"))
    assert "--plot" not in command or (tmp_path / "fig.png").stat().st_size > 0


def test_first_nonfinite_names_the_entry():
    np = pytest.importorskip("numpy")
    from certify.training.diverged import first_nonfinite

    assert first_nonfinite({"tokens": np.array(["01"]), "phi_q": np.ones((2, 3)), "heads": np.array([1, 2])}) is None
    assert first_nonfinite({"phi_q": np.ones((2, 3)), "phi_k": np.array([[1.0, np.inf]])}) == "phi_k[0, 1] is inf"
    assert first_nonfinite({"kernel": np.array([[0.0, -np.inf]]), "beta": np.array([np.nan])}) == "kernel[0, 1] is -inf"


def test_matched_heads_share_parameter_count_and_initial_values():
    pytest.importorskip("torch")
    from certify.experiments.models import TrainSpec, _Params

    import torch

    ps = []
    for H in (1, 2, 4):
        torch.manual_seed(3)  # as train_model does with the run's seed
        ps.append(_Params(TrainSpec(rank=8, heads=H, dense=False, seed=3, steps=1, value_dim=64), m=11))
    for p in ps[1:]:
        assert all(a.shape == b.shape and bool((a == b).all()) for a, b in zip(ps[0].list(), p.list()))


@pytest.mark.parametrize("args,words", [
    (["capacity", "--ranks", "0"], "--ranks"),
    (["capacity", "--settings", "3:2"], "setting '3:2'"),
    (["capacity", "--held-out-words", "1"], "--held-out-words"),
    (["capacity", "--lr", "-1"], "--lr"),
    (["capacity", "--settings", "6:4", "--distance", "2"], "too few code words"),
    (["heads", "--budgets", "6"], "cannot be split equally among 4 heads"),
    (["heads", "--value-width", "30"], "--value-width 30"),
    (["capacity", "--settings", "4:2", "--train", "24", "--val", "6", "--test", "500"], "distinct test sequences"),
    (["capacity", "--settings", "4:2", "--train", "24", "--val", "6", "--test", "6", "--split", "strict"],
     "this draw has exactly 2"),
    (["capacity", "--feature-map", "tanh"], "--feature-map"),
    (["heads", "--layout", "M+4"], "--layout"),
])
def test_bad_options_and_impossible_splits_exit_2_before_training(tmp_path, args, words):
    pytest.importorskip("torch")
    proc = run_cli_here("experiment", *args, "--out", "out", cwd=tmp_path)
    assert_one_line_error(proc, 2)
    assert words in proc.stderr
    assert not list((tmp_path).glob("out/**/*.npz"))  # nothing was trained


def test_experiments_without_torch_exit_2_saying_what_to_install(tmp_path):
    code = ("import sys; sys.modules['torch'] = None\n"
            "from certify.cli import main; main(['experiment', 'capacity', '--out', 'x'])")
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=tmp_path, timeout=120)
    assert_one_line_error(proc, 2)
    assert "pip install '.[train]'" in proc.stderr and "certify experiment" in proc.stderr
