"""The sharper arguments (docs/math.md §5): shifted and square trace–Frobenius, the null-space
step (null-shifted, Theorem A) and the square less a PSD kernel (square-kernel, Lemma N).

Laws: no argument ever bounds the rank of a nonnegative matrix with unit diagonal
above its exact rank; the checker's recomputation (certify/check.py) and the library's
(certify/lemmas/sharper.py), written separately, agree; the chosen shift is optimal on
a grid; Theorem A is sharp on the closed box; the issue's bounds are certified and an
over-claim by one is refused, naming the argument.
"""
from __future__ import annotations

import json
from fractions import Fraction

import pytest
from hypothesis import assume, given, settings
from hypothesis import strategies as st

from certify import check as C
from certify.certificates.compact import build_compact_certificate
from certify.certificates.producer import CertificateBuildError, rank_nine_certificate
from certify.certificates.rank_bound import expand_certificate, make_plan
from certify.lemmas import choice as SC
from certify.lemmas import sharper as S
from codes import load_code

from conftest import ROOT, run_cli_here

factor = st.fractions(min_value=1, max_value=40, max_denominator=12)


@st.composite
def families(draw, max_t: int = 12):
    """``(t, {F: count})`` with counts summing to ``t(t−1)``, as a chain plan gives them."""
    t = draw(st.integers(2, max_t))
    pairs = t * (t - 1)
    fs = draw(st.lists(factor, min_size=1, max_size=4, unique=True))
    cuts = sorted(draw(st.lists(st.integers(0, pairs), min_size=len(fs) - 1, max_size=len(fs) - 1)))
    counts = [b - a for a, b in zip([0] + cuts, cuts + [pairs])]
    return t, {f: c for f, c in zip(fs, counts) if c}


def _checker_arg(a: S.Argument) -> dict:
    return dict({"name": a.name}, **a.params)


def _classes(fs: dict) -> dict:
    """``{(F, d): count}`` for arguments that read only ``F`` (the distance is then irrelevant)."""
    return {(f, 0): c for f, c in fs.items()}


@settings(max_examples=150, deadline=None)
@given(families(), st.fractions(min_value=0, max_value=Fraction(49, 50), max_denominator=50))
def test_checker_and_library_agree_on_the_shift(fam, s):
    t, fs = fam
    a = S.shifted(t, fs, s)
    assert C._argument_bound(t, _classes(fs), _checker_arg(a), None) == (a.frobenius_squared, a.ratio, a.rank_at_least)
    n = S.null_shifted(t, fs, s)
    assert C._argument_bound(t, _classes(fs), _checker_arg(n), None) == (n.frobenius_squared, n.ratio, n.rank_at_least)
    assert n.ratio == a.ratio and n.rank_at_least == min(t, a.ratio.numerator // a.ratio.denominator + 1)
    assert n.rank_at_least >= a.rank_at_least + 1  # ⌊R⌋ + 1 > ⌈R⌉ − 1, and R ≤ t − … keeps ⌈R⌉ − 1 < t


@st.composite
def classed_families(draw, max_t: int = 12):
    """``(t, {(F, d): count}, length)``: pairs counted by chain factor and directed distance ``d ≤ length/2``."""
    t, fs = draw(families(max_t))
    length = draw(st.integers(4, 40))
    out: dict = {}
    for f, c in fs.items():
        d = draw(st.integers(1, length // 2))
        out[(f, d)] = out.get((f, d), 0) + c
    return t, out, length


kernels = st.lists(st.fractions(0, Fraction(1, 50), max_denominator=10**4), max_size=3)


@settings(max_examples=150, deadline=None)
@given(classed_families(), st.fractions(-2, 2, max_denominator=60), st.fractions(-1, 1, max_denominator=60), kernels)
def test_checker_and_library_agree_on_the_square_with_a_kernel(fam, b, g, mu):
    t, classes, length = fam
    m0 = sum(v * length ** j for j, v in enumerate(mu, 1))
    assume(1 + b + g > m0)
    a = S.square_kernel(t, classes, length, b, g, mu)
    arg = dict(_checker_arg(a), mu=tuple(a.params["mu"]))
    assert C._argument_bound(t, classes, arg, length) == (a.frobenius_squared, a.ratio, a.rank_at_least)
    if not mu:  # no kernel: exactly the square argument
        assert (a.ratio, a.rank_at_least) == (S.square(t, S.factors_of(classes), b, g).ratio,
                                              S.square(t, S.factors_of(classes), b, g).rank_at_least)


def test_the_kernel_hypotheses_are_refused_by_name():
    t, classes, length = 15, {(Fraction(5), 6): 210}, 24
    base = {"name": "square-kernel", "b": Fraction(-1, 5), "g": Fraction(1, 100)}
    with pytest.raises(C.CertificateRejected, match=r"μ_2 = -1/1000 < 0"):
        C._argument_bound(t, classes, dict(base, mu=(Fraction(0), Fraction(-1, 1000))), length)
    with pytest.raises(C.CertificateRejected, match="Lemma N needs m₀ < 1 \\+ b \\+ g"):
        C._argument_bound(t, classes, dict(base, mu=(Fraction(1, 20),)), length)  # m₀ = 24/20 > 1 − 1/5 + 1/100
    with pytest.raises(C.CertificateRejected, match="several weights"):
        C._argument_bound(t, classes, dict(base, mu=()), None)
    with pytest.raises(C.CertificateRejected, match="Theorem A needs 0 ≤ s < 1"):
        C._argument_bound(t, classes, {"name": "null-shifted", "s": Fraction(-1, 10)}, None)
    with pytest.raises(ValueError):
        S.square_kernel(t, classes, length, base["b"], base["g"], [Fraction(-1, 1000)])


@settings(max_examples=150, deadline=None)
@given(families(), st.fractions(-2, 2, max_denominator=60), st.fractions(-1, 1, max_denominator=60))
def test_checker_and_library_agree_on_the_square(fam, b, g):
    assume(1 + b + g != 0)
    t, fs = fam
    a = S.square(t, fs, b, g)
    assert C._argument_bound(t, _classes(fs), _checker_arg(a), None) == (a.frobenius_squared, a.ratio, a.rank_at_least)


@settings(max_examples=40, deadline=None)
@given(families())
def test_the_chosen_shift_is_best_on_a_grid_and_the_best_argument_never_below_trace_frobenius(fam):
    t, fs = fam
    best, null = SC.best_shift(t, fs), SC.best_null_shift(t, fs)
    for k in range(0, 100):
        assert S.shifted(t, fs, Fraction(k, 100)).rank_at_least <= best.rank_at_least
        assert S.null_shifted(t, fs, Fraction(k, 100)).rank_at_least <= null.rank_at_least
    assert SC.best_argument(t, fs).rank_at_least >= null.rank_at_least >= S.trace_frobenius(t, fs).rank_at_least


def test_quadratic_maximum_is_at_an_end_point_or_the_vertex():
    # x² − x/2 on [0, 1/2]: 0 at both ends, −1/16 at the vertex 1/4.
    assert S.quadratic_max_abs(Fraction(-1, 2), 0, Fraction(1, 2)) == Fraction(1, 16)
    # the vertex outside the interval does not count: x² + x on [0, 1] peaks at x = 1.
    assert S.quadratic_max_abs(1, 0, 1) == 2
    grid = [Fraction(k, 64) for k in range(0, 33)]
    for b in (Fraction(-1, 3), Fraction(-3, 4), Fraction(1, 5)):
        for g in (Fraction(0), Fraction(1, 50), Fraction(-1, 20)):
            exact = S.quadratic_max_abs(b, g, Fraction(1, 2))
            assert all(abs(x * x + b * x + g) <= exact for x in grid)


def test_least_square_rank_is_the_least_r_with_binomial_at_least_k():
    for k in range(0, 3000):
        r = S.least_square_rank(k)
        assert (r + 1) * (r + 2) // 2 >= k and (r == 0 or r * (r + 1) // 2 < k)


# --------------------------------------------------------------------------- never above the exact rank


@st.composite
def low_rank_nonnegative(draw):
    """``C = B/w`` for the Gram matrix ``B_SU = |S ∩ U|`` of ``t`` distinct ``w``-subsets of ``[ρ]``.

    ``B`` is nonnegative of rank ``≤ ρ`` (a product of ``t × ρ`` indicator matrices), with unit
    diagonal after dividing by ``w`` and off-diagonal entries ``|S ∩ U|/w < 1`` (distinct sets
    of one size) — the situation of a certified family. Chain factors ``F_SU < 1/C_SU`` with
    a drawn slack, as a family would certify them.
    """
    from itertools import combinations

    rho = draw(st.integers(2, 7))
    w = draw(st.integers(1, rho - 1))
    sets = list(combinations(range(rho), w))
    chosen = draw(st.lists(st.sampled_from(sets), min_size=2, max_size=min(len(sets), 12), unique=True))
    t = len(chosen)
    Cm = [[Fraction(len(set(a) & set(b)), w) for b in chosen] for a in chosen]
    slack = draw(st.sampled_from([Fraction(99, 100), Fraction(1, 2), Fraction(9999, 10000)]))
    fs: dict[Fraction, int] = {}
    for i in range(t):
        for j in range(t):
            if i != j:
                c = Cm[i][j]
                f = max(Fraction(1), slack / c) if c else Fraction(10**4)
                fs[f] = fs.get(f, 0) + 1
    # the sets as words of length ρ and one weight w: a pair's directed distance is w − |S ∩ U|
    classes: dict = {}
    for i in range(t):
        for j in range(t):
            if i != j:
                c = Cm[i][j]
                key = (max(Fraction(1), slack / c) if c else Fraction(10**4), w - len(set(chosen[i]) & set(chosen[j])))
                classes[key] = classes.get(key, 0) + 1
    return t, Cm, fs, classes, rho


@settings(max_examples=60, deadline=None)
@given(low_rank_nonnegative(), kernels)
def test_no_argument_ever_exceeds_the_exact_rank(case, mu):
    from flint import fmpq, fmpq_mat

    t, Cm, fs, classes, rho = case
    rank = fmpq_mat(t, t, [fmpq(x.numerator, x.denominator) for row in Cm for x in row]).rank()
    found = [S.trace_frobenius(t, fs), SC.best_shift(t, fs), SC.best_square(t, fs), SC.best_null_shift(t, fs),
             SC.best_square_kernel(t, classes, rho)]
    b, g = Fraction(-1, 8), Fraction(1, 200)
    if 1 + b + g > sum(v * rho ** j for j, v in enumerate(mu, 1)):
        found.append(S.square_kernel(t, classes, rho, b, g, mu))
    for a in found:
        assert a.rank_at_least <= rank, (a.label(), a.rank_at_least, rank)


def test_theorem_a_is_sharp_on_the_closed_box():
    """``I + (J − J_blocks)/5`` (three blocks of five): every off-diagonal entry in ``[0, 1/5]``, rank 13 —
    and Theorem A proves 13 from ``F = 5`` on all 210 pairs (docs/math.md §5): nothing that uses only the
    box can prove 14. (The certificate's box is open, ``C_SU < 1/5``; the example sits on its boundary.)"""
    from flint import fmpq, fmpq_mat

    t = 15
    entries = [fmpq(1) if i == j else fmpq(0) if i // 5 == j // 5 else fmpq(1, 5) for i in range(t) for j in range(t)]
    assert fmpq_mat(t, t, entries).rank() == 13
    assert SC.best_null_shift(t, {Fraction(5): 210}).rank_at_least == 13


# --------------------------------------------------------------------------- the issue's bounds, end to end


def test_issue_bounds_are_certified_and_over_claims_rejected():
    """Paper family r ≥ 12, direct r ≥ 13, hadamard24 r ≥ 30 (null-shifted), golay24 r ≥ 53 (square-kernel),
    through check.py; and the older last steps on the same data (11, 12, 29: shifted)."""
    h24, g24 = load_code("hadamard24"), load_code("golay24")
    cases = [
        (rank_nine_certificate("paper", argument="best"), 9, 12, "null-shifted (s = 1/8)"),
        (rank_nine_certificate("direct", argument="best"), 10, 13, "null-shifted (s = 1/10)"),
        (build_compact_certificate(h24, make_plan(h24, "best"), argument="best"), 17, 30, "null-shifted (s = 1/10)"),
        (build_compact_certificate(g24, make_plan(g24, "best"), argument="best"), 21, 53, "square-kernel (b = "),
        (rank_nine_certificate("paper", argument="shifted"), 9, 11, "shifted (s = 1/8)"),
        (rank_nine_certificate("direct", argument="shifted"), 10, 12, "shifted (s = 1/10)"),
        (build_compact_certificate(h24, make_plan(h24, "best"), argument="shifted"), 17, 29, "shifted (s = 1/10)"),
    ]
    for cert, tf, sharp, label in cases:
        v = C.check(cert)
        assert (v.trace_frobenius, v.proved, v.rank_at_least) == (tf, sharp, sharp)
        assert label in v.summary()
        over = json.loads(json.dumps(cert))
        over["claim"]["rank_at_least"] = sharp + 1
        over["sha256"] = C.content_hash(over)
        with pytest.raises(C.CertificateRejected) as info:
            C.check(over)
        assert info.value.step == "claim" and f"the {label}" in str(info.value) and f"gives r ≥ {sharp}" in str(info.value)


def test_golay24_square_certificate_in_the_corpus_proves_fifty_and_not_fifty_one():
    v = C.check_file(str(ROOT / "tests/certificates/valid/compact_square_golay24.json"))
    assert v.proved == 50 and v.trace_frobenius == 21 and v.argument["name"] == "square"
    with pytest.raises(C.CertificateRejected, match=r"the square \(b = -29/94, g = 1/84\) argument gives r ≥ 50"):
        C.check_file(str(ROOT / "tests/certificates/invalid/square_claim_raised.json"))


def test_producers_refuse_a_claim_above_both_bounds():
    with pytest.raises(CertificateBuildError, match="proves r ≥ 12 .trace–Frobenius 9, null-shifted .s = 1/8. 12., not r ≥ 13"):
        rank_nine_certificate("paper", rank_at_least=13, argument="best")


def test_expanding_a_compact_sharper_certificate_keeps_its_argument():
    code = load_code("rank-nine")
    cert = build_compact_certificate(code, make_plan(code, "paper"), argument="best")
    explicit = expand_certificate(cert)
    assert explicit["argument"] == cert["argument"] and C.check(explicit).proved == 12


def test_rank_nine_writes_the_papers_certificate_and_the_sharper_one_beside_it(tmp_path):
    out = tmp_path / "r9.cert.json"
    proc = run_cli_here("rank-nine", "--out", str(out), "--json")
    assert proc.returncode == 0, proc.stderr
    doc = json.loads(proc.stdout)
    assert doc["claim"]["rank_at_least"] == 9 and "argument" not in json.loads(out.read_text())
    sharp = tmp_path / "r9.sharper.cert.json"
    assert doc["sharper"]["out"] == str(sharp) and doc["sharper"]["claim"]["rank_at_least"] == 12
    assert C.check_file(str(sharp)).proved == 12 and doc["sharper"]["argument"]["name"] == "null-shifted"
    same = tmp_path / "same.cert.json"
    proc = run_cli_here("rank-nine", "--out", str(same), "--sharper-out", str(same))
    assert proc.returncode == 2 and "need two files" in proc.stderr and not same.exists()  # refused before writing
    proc = run_cli_here("rank-nine", "--out", str(tmp_path / "only.cert.json"), "--no-sharper")
    assert proc.returncode == 0 and "sharper" not in proc.stdout
    assert not (tmp_path / "only.sharper.cert.json").exists()


def test_rank_bound_prints_both_bounds_and_obeys_the_argument_option(tmp_path):
    proc = run_cli_here("rank-bound", "--code", "hadamard24", "--out", str(tmp_path / "h.json"))
    assert proc.returncode == 0, proc.stderr
    assert "bounds      trace–Frobenius: r ≥ 17; null-shifted (s = 1/10): r ≥ 30" in proc.stdout
    proc = run_cli_here("rank-bound", "--code", "hadamard24", "--argument", "trace-frobenius", "--out", str(tmp_path / "t.json"))
    assert proc.returncode == 0 and "argument" not in json.loads((tmp_path / "t.json").read_text())
    assert C.check_file(str(tmp_path / "t.json")).proved == 17


def test_unique_minimizer_gets_the_sharper_argument(tmp_path):
    out = tmp_path / "um.json"
    proc = run_cli_here("unique-minimizer", "--code", "hadamard:32:31", "--out", str(out), "--json")
    assert proc.returncode == 0, proc.stderr
    doc = json.loads(proc.stdout)
    assert doc["claim"]["rank_at_least"] == 17 and doc["arithmetic"]["rank_at_least"] == 9
    assert doc["argument"]["name"] == "null-shifted" and C.check_file(str(out)).proved == 17


def test_certify_bounds_shift_is_the_lemma_on_uniform_factors_and_at_most_a_factor_four_on_lambda_squared():
    from certify.bounds.values import shifted_tf_bound, tf_bound

    for T in range(2, 40):
        for lam in range(1, 9):
            uniform = S.shifted(T, {Fraction(lam): T * (T - 1)}, Fraction(1, 2 * lam)).rank_at_least
            assert shifted_tf_bound(T, lam * lam) == max(1, uniform)
            assert shifted_tf_bound(T, lam * lam) <= tf_bound(T, 4 * lam * lam)


def test_standalone_checker_json_reports_the_argument():
    import subprocess
    import sys

    proc = subprocess.run([sys.executable, str(ROOT / "certify" / "check.py"), "--json",
                           str(ROOT / "tests/certificates/valid/shifted_rank_nine_direct.json")],
                          capture_output=True, text=True)
    assert proc.returncode == 0, proc.stderr
    doc = json.loads(proc.stdout)
    assert doc["proved_by"] == "shifted" and doc["trace_frobenius_rank_at_least"] == 10 and doc["ratio"] == "125/13"
    assert doc["proved_rank_at_least"] == 12 and doc["argument"] == {
        "name": "shifted", "s": "1/10", "frobenius_squared_at_most": "57/4", "ratio": "243/19", "rank_at_least": 12}


@pytest.mark.parametrize("name,schema", [
    ("shifted_rank_nine_direct.json", "certificate.schema.json"),
    ("trace_frobenius_named.json", "certificate.schema.json"),
    ("compact_square_golay24.json", "compact-certificate.schema.json"),
    ("um_shifted_not_better.json", "unique-minimizer-certificate.schema.json"),
])
def test_certificates_with_an_argument_match_their_schema(name, schema):
    import jsonschema

    jsonschema.validate(json.loads((ROOT / "tests/certificates/valid" / name).read_text()),
                        json.loads((ROOT / "docs" / schema).read_text()))


@pytest.mark.parametrize("name", ["argument_not_an_object.json", "argument_unknown_name.json", "argument_extra_key.json",
                                  "argument_square_missing_g.json", "argument_trace_frobenius_with_s.json"])
def test_the_schema_refuses_argument_shapes_the_checker_refuses(name):
    import jsonschema

    with pytest.raises(jsonschema.ValidationError):
        jsonschema.validate(json.loads((ROOT / "tests/certificates/malformed" / name).read_text()),
                            json.loads((ROOT / "docs" / "compact-certificate.schema.json").read_text()))


def test_an_argument_over_too_many_distinct_factors_is_refused_before_its_sums():
    fs = {Fraction(k + 1): 1 for k in range(C.MAX_ARGUMENT_FACTORS + 1)}
    with pytest.raises(C.CertificateLimitError, match="distinct chain factors"):
        C._argument_bound(3, _classes(fs), {"name": "shifted", "s": Fraction(1, 8)}, None)


def test_chosen_parameters_are_always_spellable_in_a_certificate():
    """Many distinct factors make exact optima long; the producer keeps to what the format can state."""
    from certify.check import MAX_RATIONAL_CHARS

    t = 300
    fs = {Fraction(p, 7): 0 for p in (11, 13, 17, 19, 23, 29, 31, 37, 41, 43, 47, 53, 59, 61, 67, 71, 73, 79, 83, 89)}
    keys = list(fs)
    for i in range(t * (t - 1)):
        fs[keys[i % len(keys)]] += 1
    for a in (SC.best_shift(t, fs), SC.best_square(t, fs), SC.best_argument(t, fs)):
        doc = a.to_json() or {}
        assert all(len(v) <= MAX_RATIONAL_CHARS for v in doc.values() if isinstance(v, str)), a.label()
