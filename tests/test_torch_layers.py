"""certify.torch for the layers people train (issue 30): several heads in one call, dtypes and devices,
a tokenwise test at the output's precision, a layer compared with its table, fit on any module, layouts.

Skipped cleanly without PyTorch (the extra ``train``); CPU only, no third-party library.
"""
import json
from fractions import Fraction

import numpy as np
import pytest

torch = pytest.importorskip("torch")

from certify import torch as ct  # noqa: E402
from certify.kernels.audit import check_kernel, load_family  # noqa: E402
from certify.kernels.predict import exact_predictions  # noqa: E402
from certify.kernels.table import load_table  # noqa: E402

from conftest import CORPUS, run_cli_here  # noqa: E402

SMALL = str(CORPUS / "valid" / "small_paper.json")  # m = 12, certified r ≥ 3
M = 12


class Elu1(torch.nn.Module):
    def __init__(self, m=M, r=4, dtype=torch.float32):
        super().__init__()
        self.lin = torch.nn.Linear(m, r, dtype=dtype)

    def forward(self, x):
        return torch.nn.functional.elu(self.lin(x)) + 1


def _two_heads(dtype=torch.float32, r=3, dv=2, seed=0):
    torch.manual_seed(seed)
    q, k = [Elu1(r=r, dtype=dtype) for _ in range(2)], [Elu1(r=r, dtype=dtype) for _ in range(2)]
    v = [torch.nn.Linear(M, dv, dtype=dtype) for _ in range(2)]
    return q, k, v, torch.nn.Linear(M, 1 + 2 * dv, dtype=dtype)


def _layer(q, k, v, ro, eps, rotary=False, causal=False):
    """The heads as a library runs them on (B, L, m) sequences: a prediction at every position."""
    def run(seq):
        seq = seq.to(q[0].lin.weight.dtype)
        fq, fk = torch.stack([f(seq) for f in q]), torch.stack([f(seq) for f in k])
        if rotary:
            r = fq.shape[-1] // 2 * 2
            ang = torch.arange(seq.shape[1], dtype=fq.dtype)[:, None] * torch.ones(r // 2, dtype=fq.dtype)
            c, s = torch.cos(ang), torch.sin(ang)
            rot = lambda t: torch.cat([t[..., 0:r:2] * c - t[..., 1:r:2] * s, t[..., 0:r:2] * s + t[..., 1:r:2] * c,  # noqa: E731
                                       t[..., r:]], -1)
            fq, fk = rot(fq), rot(fk)
        vv = torch.stack([f(seq) for f in v])
        alpha = torch.einsum("hbir,hbjr->hbij", fq, fk)
        if causal:
            L = seq.shape[1]
            alpha = alpha * torch.tril(torch.ones(L, L, dtype=alpha.dtype))
        heads = torch.einsum("hbij,hbjd->hbid", alpha, vv) / (alpha.sum(-1, keepdim=True) + eps)
        out = ro(seq)
        return out[..., 0] + (out[..., 1:] * torch.cat(list(heads), -1)).sum(-1)
    return run


# --------------------------------------------------------------------------- several heads in one call


def test_two_float32_heads_with_delta_are_checked_in_one_call():
    q, k, v, ro = _two_heads()
    eps = 2.0**-20
    rep = ct.check(q, k, values=v, readout=ro, family=SMALL, delta=eps)
    doc = rep.to_json()
    assert doc["table"]["heads"] == [3, 3] and doc["table"]["value_heads"] == [2, 2]
    assert doc["table"]["delta"] == "1/1048576" and len(rep.head_ranks) == 2 and rep.head_ranks_exact
    assert rep.certified_bound is None and rep.one_head_bound == 3 and doc["several_heads"]["certified_bound"] is None
    assert rep.solves is not None and rep.max_error > 0
    # the same table as one callable each, cut by heads= / value_heads=
    cat = lambda fs: (lambda x: torch.cat([f(x.float()) for f in fs], 1))  # noqa: E731
    same = ct.check(cat(q), cat(k), values=cat(v), readout=lambda x: ro(x.float()), family=SMALL, delta=eps,
                    heads=[3, 3], value_heads=[2, 2])
    assert same.to_json() == doc


def test_the_exported_multi_head_table_gets_the_same_report(tmp_path):
    q, k, v, ro = _two_heads()
    fam = load_family(SMALL)
    rep = ct.check(q, k, values=v, readout=ro, family=fam, delta=1e-3)
    ct.export(str(tmp_path / "t.npz"), q, k, values=v, readout=ro, family=fam, delta=1e-3)
    assert rep.to_json() == check_kernel(load_table(str(tmp_path / "t.npz")), fam).to_json()


def test_head_widths_must_agree():
    q, k, v, ro = _two_heads()
    with pytest.raises(ValueError, match=r"heads = \[2, 4\], but the per-head feature maps have widths \[3, 3\]"):
        ct.check(q, k, values=v, readout=ro, family=SMALL, heads=[2, 4])
    with pytest.raises(ValueError, match="phi_q's heads have widths"):
        ct.check(q, [Elu1(r=2), Elu1(r=4)], values=v, readout=ro, family=SMALL)


# --------------------------------------------------------------------------- tokenwise at the output's precision


def test_float32_rounding_is_tokenwise_at_float32_precision_and_not_at_float64():
    """A float32 map whose outputs move by one unit in the last place with the position: rounding, not the sequence."""
    phi = Elu1()

    def jitter(seq):
        out = phi(seq)
        odd = (torch.arange(seq.shape[1]) % 2).to(out.dtype)[None, :, None]
        return out * (1 + odd * torch.finfo(torch.float32).eps)

    rep = ct.verify_tokenwise(jitter, SMALL, dtype=torch.float32)
    assert rep.dtype == "float32" and rep.verdict == "tokenwise" and rep.harmless and rep.max_difference > 0
    assert "float32 rounding" in rep.text()
    strict = ct.verify_tokenwise(jitter, SMALL, dtype=torch.float32, rtol=1e-12)
    assert strict.verdict == "not tokenwise" and "certify.torch.compare" in strict.text()


def test_a_positive_factor_per_sequence_is_harmless_and_compare_agrees():
    """Keys scaled by 1/L (one factor per sequence): normalized attention is unchanged (δ = 0)."""
    q, k, v, ro = _two_heads(dtype=torch.float64)
    scaled = [lambda s, f=f: f(s) / s.shape[1] for f in k]
    rep = ct.verify_tokenwise(scaled[0], SMALL)
    assert rep.verdict == "per-sequence scale" and rep.harmless and not rep.tokenwise
    assert rep.scale_range[0] == pytest.approx(1 / 3) and "harmless" in rep.text()

    def layer(seq):  # the library's layer with the scaled keys
        k_scaled = [lambda s, f=f: f(s) / seq.shape[1] for f in k]
        return _layer(q, k_scaled, v, ro, 0.0)(seq)

    assert ct.compare(layer, q, k, values=v, readout=ro, family=SMALL).agrees
    with_delta = ct.compare(lambda s: _layer(q, [lambda x, f=f: f(x) / s.shape[1] for f in k], v, ro, 0.5)(s),
                            q, k, values=v, readout=ro, family=SMALL, delta=0.5)
    assert not with_delta.agrees  # with δ > 0 the factor changes the output, as the text warns


def test_a_sequence_dependent_map_is_not_tokenwise():
    phi = Elu1(dtype=torch.float64)
    soft = lambda s: phi(s).softmax(dim=-2)  # noqa: E731 - a softmax over positions
    rep = ct.verify_tokenwise(soft, SMALL)
    assert rep.verdict == "not tokenwise" and not rep.harmless and "NOT tokenwise" in rep.text()
    assert json.loads(json.dumps(rep.to_json()))["verdict"] == "not tokenwise"


# --------------------------------------------------------------------------- the layer against its table


@pytest.mark.parametrize("dtype", [torch.float64, torch.float32])
def test_compare_a_faithful_layer_agrees_and_a_rotary_one_does_not(dtype):
    q, k, v, ro = _two_heads(dtype=dtype)
    eps = 2.0**-20
    faithful = ct.compare(_layer(q, k, v, ro, eps), q, k, values=v, readout=ro, family=SMALL, delta=eps)
    assert faithful.agrees and faithful.dtype == str(dtype).replace("torch.", "")
    assert faithful.max_difference < Fraction(1, 10**4) and faithful.inputs_checked == len(load_family(SMALL).inputs)
    rotary = ct.compare(_layer(q, k, v, ro, eps, rotary=True), q, k, values=v, readout=ro, family=SMALL, delta=eps)
    assert not rotary.agrees and rotary.max_difference > Fraction(1, 100) and "NOT its table's head" in rotary.text()
    assert faithful.table_max_error == rotary.table_max_error  # the same table, exactly


def test_compare_a_causal_layer_needs_the_query_last():
    q, k, v, ro = _two_heads(dtype=torch.float64)
    causal = _layer(q, k, v, ro, 0.0, causal=True)
    assert ct.compare(causal, q, k, values=v, readout=ro, family=SMALL, query_last=True).agrees
    assert not ct.compare(causal, q, k, values=v, readout=ro, family=SMALL).agrees


def test_predict_is_the_exact_prediction_in_float():
    q, k, v, ro = _two_heads(dtype=torch.float64)
    fam = load_family(SMALL)
    got = ct.predict(q, k, values=v, readout=ro, family=fam, delta=0.25)
    from certify.torch.table import head_table

    table, _, _ = head_table(q, k, v, ro, fam, 0.25, None, None)
    exact = exact_predictions(table, fam.inputs, fam.m)
    assert got.shape == (len(fam.inputs),) and max(abs(Fraction(g) - e) for g, e in zip(got.tolist(), exact)) < 1e-12


def test_family_tensors_can_put_the_query_last():
    a, b = ct.family_tensors(SMALL), ct.family_tensors(SMALL, query_last=True)
    lengths = b.mask.sum(1).long()
    assert torch.equal(b.query_position, lengths - 1) and torch.equal(a.query, b.query) and torch.equal(a.targets, b.targets)
    for i in range(a.inputs.shape[0]):
        assert sorted(a.inputs[i].tolist()) == sorted(b.inputs[i].tolist())
        assert int(b.inputs[i, b.query_position[i]]) == int(a.query[i])


# --------------------------------------------------------------------------- fit on any module


@pytest.mark.parametrize("dtype", [torch.float32, torch.bfloat16, torch.float64])
def test_fit_trains_modules_of_any_float_dtype(dtype):
    q, k, v, ro = _two_heads(dtype=dtype)
    start = ct.fit(q, k, v, ro, family=SMALL, steps=0)
    end = ct.fit(q, k, v, ro, family=SMALL, steps=40, lr=0.05)
    assert end < start and q[0].lin.weight.dtype == dtype
    assert ct.check(q, k, values=v, readout=ro, family=SMALL).head_ranks is not None


def test_fit_takes_plain_callables_untrained_and_refuses_nothing_to_train():
    W = torch.randn(M, 3, dtype=torch.float64, generator=torch.Generator().manual_seed(0))
    fixed = lambda x: torch.exp(x @ W / 4)  # noqa: E731
    v, ro = torch.nn.Linear(M, 2, dtype=torch.float64), torch.nn.Linear(M, 3, dtype=torch.float64)
    before = W.clone()
    assert ct.fit(fixed, fixed, v, ro, family=SMALL, steps=20) < ct.fit(fixed, fixed, v, ro, family=SMALL, steps=0) + 1e-12
    assert torch.equal(W, before)
    with pytest.raises(ValueError, match="nothing to train"):
        ct.fit(fixed, fixed, lambda x: x, lambda x: x[:, :M + 1], family=SMALL, steps=1)


def test_fit_stops_on_a_nan_loss_naming_the_step_and_delta_cures_a_vanishing_map():
    relu = lambda x: torch.relu(x[:, :2] - 5)  # noqa: E731 - every α is 0: 0/0
    v, ro = torch.nn.Linear(M, 2, dtype=torch.float64), torch.nn.Linear(M, 3, dtype=torch.float64)
    with pytest.raises(ct.TrainingDiverged, match=r"the loss is nan at step 0 of 5 .*add delta"):
        ct.fit(relu, relu, v, ro, family=SMALL, steps=5)
    assert np.isfinite(ct.fit(relu, relu, v, ro, family=SMALL, steps=5, delta=1e-3))


def test_fit_restores_the_thread_count_and_shows_progress(capsys, monkeypatch):
    q, k, v, ro = _two_heads(dtype=torch.float64)
    before = torch.get_num_threads()
    monkeypatch.setenv("CERTIFY_PROGRESS", "1")
    ct.fit(q, k, v, ro, family=SMALL, steps=3, threads=2)
    inputs = len(load_family(SMALL).inputs)
    assert torch.get_num_threads() == before and f"fit on {inputs} inputs (steps)" in capsys.readouterr().err
    with pytest.raises(ValueError, match="threads"):
        ct.fit(q, k, v, ro, family=SMALL, steps=1, threads=0)


def test_fit_is_reproducible_for_a_seed():
    runs = []
    for _ in range(2):
        q, k, v, ro = _two_heads(dtype=torch.float32, seed=3)
        runs.append((ct.fit(q, k, v, ro, family=SMALL, steps=15, seed=7), q[0].lin.weight.detach().clone()))
    assert runs[0][0] == runs[1][0] and torch.equal(runs[0][1], runs[1][1])


# --------------------------------------------------------------------------- devices and layouts


def test_a_module_gets_the_tokens_on_its_own_device_and_dtype():
    """A module on the `meta` device (no GPU in the tests) receives meta tensors of its dtype."""
    seen = {}

    class Probe(torch.nn.Module):
        def __init__(self):
            super().__init__()
            self.register_buffer("w", torch.zeros(1, dtype=torch.float16, device="meta"))

        def forward(self, x):
            seen.update(device=x.device.type, dtype=x.dtype)
            return torch.ones(x.shape[0], 2)

    probe = Probe()
    assert ct.placement(probe) == (torch.float16, torch.device("meta"))
    ct.evaluate(probe, probe, tokens=ct.family_tensors(SMALL).tokens)
    assert seen == {"device": "meta", "dtype": torch.float16}


@pytest.mark.parametrize("layout", ["BHLD", "BLHD", "NLHE", "BLD"])
def test_layouts_give_the_heads_side_by_side(layout):
    torch.manual_seed(0)
    heads = 1 if layout == "BLD" else 2
    d = M // heads
    W = torch.randn(d, 3, dtype=torch.float64)
    fm = lambda t: torch.exp(t @ W / 4)  # noqa: E731 - acts on the last axis, whatever the layout
    phi = ct.Layout(fm, layout, heads=heads)
    X = ct.family_tensors(SMALL).tokens
    want = torch.cat([torch.exp(X[:, h * d:(h + 1) * d] @ W / 4) for h in range(heads)], 1)
    assert torch.allclose(phi(X), want, rtol=0, atol=0)
    seq = X[:6].reshape(2, 3, M)
    assert torch.equal(phi(seq), want[:6].reshape(2, 3, -1))
    assert ct.verify_tokenwise(phi, SMALL).verdict == "tokenwise"
    if heads == 2:
        v, ro = torch.nn.Linear(M, 4, dtype=torch.float64), torch.nn.Linear(M, 5, dtype=torch.float64)
        rep = ct.check(phi, phi, values=v, readout=ro, family=SMALL, heads=[3, 3], value_heads=[2, 2])
        assert len(rep.head_ranks) == 2


def test_a_layout_refuses_what_it_cannot_cut():
    with pytest.raises(ValueError, match="layout 'XYZ'"):
        ct.Layout(lambda t: t, "XYZ")
    with pytest.raises(ValueError, match="do not split into 5 heads"):
        ct.Layout(lambda t: t, "BHLD", heads=5)(ct.family_tensors(SMALL).tokens)


# --------------------------------------------------------------------------- certify train --delta


T2R = ("import torch\n"
       "def make(m, r, seed):  # flash-linear-attention's T2R: relu(Wx + b), exactly 0 on many tokens\n"
       "    torch.manual_seed(seed)\n"
       "    maps = [torch.nn.Linear(m, r, dtype=torch.float64) for _ in range(2)]\n"
       "    with torch.no_grad():\n"
       "        for lin in maps:\n"
       "            lin.bias.fill_(-4.0)\n"
       "    return tuple(torch.nn.Sequential(lin, torch.nn.ReLU()) for lin in maps)\n")


def test_train_with_a_relu_map_diverges_per_run_without_delta_and_completes_with_it(tmp_path):
    (tmp_path / "t2r.py").write_text(T2R)
    args = ("train", "--family", SMALL, "--feature-map", "t2r:make", "--ranks", "2,4", "--seeds", "0", "--steps", "5",
            "--json")
    bare = run_cli_here(*args, "--out", "a", cwd=tmp_path)
    assert bare.returncode == 0, bare.stderr
    runs = json.loads(bare.stdout)["runs"]
    assert [r["diverged"] is not None for r in runs] == [True, True]
    assert "denominator Σ_j α = 0" in runs[0]["diverged"] and "--delta" in runs[0]["diverged"]
    cured = run_cli_here(*args, "--out", "b", "--delta", "1e-6", cwd=tmp_path)
    doc = json.loads(cured.stdout)
    assert cured.returncode == 0 and doc["config"]["delta"] == "1/1000000"
    assert all(r["diverged"] is None and r["table"] for r in doc["runs"])
    table = load_table(str(tmp_path / "b" / "rank2_seed0.npz"))
    assert table.delta == Fraction(1e-6)  # the float64 trained with, exactly


@pytest.mark.parametrize("bad", ["-1", "1e999999999", "abc", "1/0"])
def test_train_refuses_a_bad_delta_before_training(tmp_path, bad):
    proc = run_cli_here("train", "--family", SMALL, "--delta", bad, "--out", "o", cwd=tmp_path)
    assert proc.returncode == 2 and "--delta" in proc.stderr and len(proc.stderr.strip().splitlines()) == 1


# --------------------------------------------------------------------------- the review's reproducers (issue 30)


def test_a_non_finite_output_on_sequences_is_refused_not_called_tokenwise():
    """Was 'tokenwise' (a NaN difference never counts as the largest): float16 maps can overflow on sequences."""
    W = torch.randn(M, 3, dtype=torch.float64, generator=torch.Generator().manual_seed(0))
    f = lambda x: torch.exp(x @ W / 4) * (float("nan") if x.shape[1] > 1 else 1.0)  # noqa: E731
    with pytest.raises(ValueError, match=r"module \(sequences\): output nan"):
        ct.verify_tokenwise(f, SMALL)


def test_a_large_column_does_not_hide_a_positional_change_in_a_small_one():
    """Was 'tokenwise': the tolerance was relative to the largest output over all columns (1e12 here)."""
    def phi_k(x):
        pos = torch.arange(x.shape[1], dtype=x.dtype)[None, :, None] if x.dim() == 3 else 0
        return torch.cat([1e12 * x[..., :1], 1 + x[..., 1:2] + 0.3 * pos], -1)

    rep = ct.verify_tokenwise(phi_k, SMALL)
    assert rep.verdict == "not tokenwise" and rep.max_relative > 0.1


def test_a_per_sequence_factor_is_harmless_only_on_features_without_delta():
    phi = Elu1(dtype=torch.float64)
    scaled = lambda s: phi(s) / s.shape[1]  # noqa: E731
    assert ct.verify_tokenwise(scaled, SMALL).harmless
    for kw in ({"role": "values"}, {"role": "readout"}, {"delta": 1e-3}):
        rep = ct.verify_tokenwise(scaled, SMALL, **kw)
        assert rep.verdict == "per-sequence scale" and not rep.harmless and "NOT harmless" in rep.text()
    with pytest.raises(ValueError, match="role"):
        ct.verify_tokenwise(scaled, SMALL, role="keys")


def test_compare_judges_each_input_on_its_own():
    """Was 'agrees': the tolerance was rtol × the largest prediction, so β = 10⁵ on one query token hid a layer off by
    5 on every other input."""
    q, k, v, ro = _two_heads(dtype=torch.float64)
    ft = ct.family_tensors(SMALL)
    big = ft.tokens[int(ft.query[0])]

    def readout(x):
        out = ro(x).clone()
        out[..., 0] = out[..., 0] + 1e5 * (x == big).all(-1)
        return out

    def layer(seq):
        good = _layer(q, k, v, readout, 0.0)(seq)
        is_big = (seq == big).all(-1)
        return torch.where(is_big, good, good + 5.0)

    rep = ct.compare(layer, q, k, values=v, readout=readout, family=SMALL)
    assert not rep.agrees and rep.worst_relative >= 4 and rep.input_index is not None


def test_bad_arguments_and_outputs_are_value_errors_naming_them():
    q, k, v, ro = _two_heads(dtype=torch.float64)
    phi = Elu1(dtype=torch.float64)
    cases = [
        (lambda: ct.verify_tokenwise(phi, SMALL, max_inputs=0), "max_inputs"),
        (lambda: ct.verify_tokenwise(phi, SMALL, batch=0), "batch"),
        (lambda: ct.verify_tokenwise(lambda s: phi(s).sum(1), SMALL), "expected an output of shape"),
        (lambda: ct.compare(_layer(q, k, v, ro, 0.0), q, k, values=v, readout=ro, family=SMALL, rtol=float("nan")),
         "rtol"),
        (lambda: ct.compare(_layer(q, k, v, ro, 0.0), q, k, values=v, readout=ro, family=SMALL, max_inputs=0),
         "max_inputs"),
        (lambda: ct.predict(q, k, values=None, readout=None, family=SMALL), "needs values and readout"),
        (lambda: ct.check(q, k, values=v, readout=[ro, ro], family=SMALL), "readout: one callable"),
        (lambda: ct.check(q, k, values=v, readout=ro, family=SMALL, heads="33"), "heads"),
        (lambda: ct.check(q, k, values=v, readout=ro, family=SMALL, heads=[True, 5]), "heads"),
        (lambda: ct.check(q, k, values=v, readout=ro, family=SMALL, heads=[3.0, 3.0]), "heads"),
        (lambda: ct.check(q, k, values=torch.nn.Linear(M, 4, dtype=torch.float64), readout=ro, family=SMALL),
         "value_heads"),
        (lambda: ct.check(q, k, values=v, readout=lambda x: (ro(x)[:, :3], ro(x)[:, 1:]), family=SMALL),
         "readout beta"),
        (lambda: ct.Layout(lambda t: t, "BHLD")(np.zeros((3, M))), "Layout: expected a tensor"),
        (lambda: ct.Layout(lambda t: t.sum(2), "BHLD", heads=2)(ct.family_tensors(SMALL).tokens), "Layout BHLD"),
        (lambda: ct.export("/tmp/never.npz", q, k, values=v, readout=ro, family=SMALL, delta=10**400), "float64"),
    ]
    for call, match in cases:
        with pytest.raises(ValueError, match=match):
            call()
    assert ct.Layout(lambda t: t, "BLHD", heads=np.int64(2)).heads == 2


def test_fit_checks_the_heads_it_trains_like_check():
    q, k, v, ro = _two_heads(dtype=torch.float64)
    cat = lambda fs: (lambda x: torch.cat([f(x) for f in fs], 1))  # noqa: E731
    for kw, match in (({"heads": [2, 2], "value_heads": [2, 2]}, "sums to 4"),
                      ({"heads": [3, 3]}, "same number of heads"),
                      ({"delta": -5.0}, "delta"), ({"delta": float("nan")}, "delta"), ({"delta": 1e-400 * 0 - 1}, "delta")):
        with pytest.raises(ValueError, match=match):
            ct.fit(cat(q), cat(k), cat(v), ro, family=SMALL, steps=1, **kw)
    with pytest.raises(ValueError, match="phi_q's heads have widths"):
        ct.fit(q, [Elu1(r=2, dtype=torch.float64), Elu1(r=4, dtype=torch.float64)], v, ro, family=SMALL, steps=1)
    with pytest.raises(ValueError, match="readout w has width"):
        ct.fit(q, k, v, torch.nn.Linear(M, 7, dtype=torch.float64), family=SMALL, steps=1)
    assert np.isfinite(ct.fit(cat(q), cat(k), cat(v), ro, family=SMALL, steps=2, heads=[3, 3], value_heads=[2, 2],
                              delta=Fraction(1, 3)))


def test_fit_and_verify_tokenwise_take_plain_functions_returning_numpy():
    W = np.random.default_rng(0).normal(size=(M, 3))
    fixed = lambda x: np.exp(np.asarray(x) @ W / 4)  # noqa: E731
    v, ro = torch.nn.Linear(M, 2, dtype=torch.float64), torch.nn.Linear(M, 3, dtype=torch.float64)
    assert np.isfinite(ct.fit(fixed, fixed, v, ro, family=SMALL, steps=3))
    assert ct.verify_tokenwise(fixed, SMALL).verdict == "tokenwise"


def test_train_reports_a_denominator_that_vanishes_after_the_last_step_per_run(tmp_path):
    """Was exit 2 for the whole command: the final prediction's NaN was not looked at, the table was refused."""
    (tmp_path / "die.py").write_text(
        "import torch\n"
        "class K(torch.nn.Module):\n"
        "    def __init__(s, r):\n"
        "        super().__init__(); s.p = torch.nn.Parameter(torch.zeros((), dtype=torch.float64)); s.r = r\n"
        "    def forward(s, x):\n"
        "        return torch.relu(1e-3 + s.p * (1 + x[:, :1])).expand(-1, s.r) * 1.0\n"
        "class Q(torch.nn.Module):\n"
        "    def __init__(s, r):\n"
        "        super().__init__(); s.lin = torch.nn.Linear(1, 1, dtype=torch.float64); s.r = r\n"
        "    def forward(s, x): return torch.ones(x.shape[0], s.r, dtype=torch.float64) + 0 * s.lin(x[:, :1])\n"
        "def plus(m, r, seed): return Q(r), K(r)\n")
    proc = run_cli_here("train", "--family", SMALL, "--feature-map", "die:plus", "--ranks", "2", "--seeds", "0",
                        "--steps", "2", "--out", "o", "--json", cwd=tmp_path)
    assert proc.returncode == 0, proc.stderr
    run = json.loads(proc.stdout)["runs"][0]
    assert run["diverged"] is not None and "step 2" in run["diverged"] and run["table"] is None


@pytest.mark.parametrize("text, ok", [("1e-400", False), ("1e308", True), ("1.7e308", True), ("1e309", False),
                                      ("-0", True)])
def test_train_delta_must_be_a_float64_it_can_train_with(tmp_path, text, ok):
    from certify.training import parse_delta

    if ok:
        assert Fraction(parse_delta(text)) == Fraction(text)
    else:
        with pytest.raises(ValueError, match="--delta"):
            parse_delta(text)
