"""certify.torch answers the question the user asked (issue 55): a Layout's heads are checked as those heads
everywhere, compare names the cause of a difference (and a query-dependent denominator, KeyEps, is modelled exactly),
errors say where to go, long calls show progress, and compare draws a picture.

Each behaviour is reproduced by a minimal layer written in plain torch (the kinds of layer the issue names); the
tests that run a library's own layer skip cleanly where it is missing. CPU only, small families.
"""
import math
from fractions import Fraction

import numpy as np
import pytest

torch = pytest.importorskip("torch")
from torch import nn  # noqa: E402

from certify import torch as ct  # noqa: E402
from certify.kernels.table import TableFormatError  # noqa: E402

from conftest import CORPUS, ROOT  # noqa: E402

SMALL = str(CORPUS / "valid" / "small_paper.json")  # m = 12, certified r ≥ 3; inputs of length ≤ 3
M = 12


class Attention(nn.Module):
    """A two-head elu+1 linear-attention layer written as the libraries write theirs ((b, h, n, d), fused shapes),
    with one of the departures the issue met in libraries:

    * ``faithful``: ``Σ_j α v / (Σ_j α + eps)``, its table's head;
    * ``key_eps``: causal, ``eps`` added to every coordinate of the key prefix sum (performer-pytorch's causal op);
    * ``cosformer``: queries and keys reweighted by ``cos``/``sin`` of their position (cosFormer);
    * ``key_softmax``: each key feature normalised over the positions (``linear-attention`` 0.2.0);
    * ``rmsnorm``: an RMSNorm on each head's output (flash-linear-attention's default);
    * ``no_denominator``: ``Σ_j α v`` without normalisation (flash-linear-attention's default).
    """

    def __init__(self, kind="faithful", heads=2, dim_head=3, eps=1e-3):
        super().__init__()
        self.kind, self.heads, self.eps = kind, heads, eps
        self.to_q = nn.Linear(M, heads * dim_head, bias=False, dtype=torch.float64)
        self.to_k = nn.Linear(M, heads * dim_head, bias=False, dtype=torch.float64)
        self.to_v = nn.Linear(M, heads * dim_head, bias=False, dtype=torch.float64)
        self.to_out = nn.Linear(heads * dim_head, M, dtype=torch.float64)

    def feature_map(self, t):
        return nn.functional.elu(t) + 1

    def forward(self, x):
        b, n, _ = x.shape
        split = lambda t: t.reshape(b, n, self.heads, -1).transpose(1, 2)  # noqa: E731
        q, k, v = self.feature_map(split(self.to_q(x))), self.feature_map(split(self.to_k(x))), split(self.to_v(x))
        if self.kind == "cosformer":
            ang = math.pi / 2 * torch.arange(n, dtype=q.dtype)[:, None] / n
            q = torch.cat([q * torch.cos(ang), q * torch.sin(ang)], -1)
            k = torch.cat([k * torch.cos(ang), k * torch.sin(ang)], -1)
        if self.kind == "key_softmax":
            k = k.softmax(dim=-2)
        if self.kind == "key_eps":
            den = torch.einsum("bhnd,bhnd->bhn", q, k.cumsum(-2) + self.eps)
            context = torch.einsum("bhnd,bhne->bhnde", k, v).cumsum(-3)
            out = torch.einsum("bhnde,bhnd->bhne", context, q) / den[..., None]
        else:
            out = torch.einsum("bhnd,bhde->bhne", q, torch.einsum("bhnd,bhne->bhde", k, v))
            if self.kind != "no_denominator":
                eps = 0.0 if self.kind == "delta_missing" else self.eps
                out = out / (torch.einsum("bhnd,bhd->bhn", q, k.sum(2)) + eps)[..., None]
        if self.kind == "rmsnorm":
            out = out * torch.rsqrt((out * out).mean(-1, keepdim=True) + 1e-6)
        return self.to_out(out.transpose(1, 2).reshape(b, n, -1))


def _layer(kind="faithful", delta=None, seed=0, **kw):
    torch.manual_seed(seed)
    attn = Attention(kind, **kw)
    head = ct.LinearHead(feature_map=attn.feature_map, q_proj=attn.to_q, k_proj=attn.to_k, v_proj=attn.to_v,
                         out_proj=attn.to_out, predict=nn.Linear(M, 1, dtype=torch.float64), heads=attn.heads,
                         delta=attn.eps if delta is None else delta)
    return attn, head


def _layout_parts(head):
    """The head as a user who forgets ``heads=`` gives it: the Layouts and values themselves, not ``parts()``."""
    return {"phi_q": head.phi_q, "phi_k": head.phi_k, "values": head.values, "readout": head.readout,
            "delta": head.delta}


# --------------------------------------------------------------------------- 1. a Layout's heads are its heads


def test_a_layout_of_two_heads_is_checked_as_two_heads_everywhere():
    """`ct.check(h.phi_q, h.phi_k, …)` with `heads=2` in the LinearHead gave one head whose kernel is the sum of the
    two (head_ranks None); now every function sees the heads the Layout declares, the same as parts() gives."""
    attn, head = _layer()
    mine, listed = _layout_parts(head), head.parts()
    rep = ct.check(**mine, family=SMALL)
    assert rep.head_ranks is not None and len(rep.head_ranks) == 2 and rep.table["heads"] == [3, 3]
    assert rep.to_json() == ct.check(**listed, family=SMALL).to_json()
    assert np.array_equal(ct.predict(**mine, family=SMALL), ct.predict(**listed, family=SMALL))
    same = ct.compare(head.layer(attn), **mine, family=SMALL)
    assert same.agrees and same.table_max_error == rep.max_error
    assert ct.fit(**mine, family=SMALL, steps=0) == ct.fit(**listed, family=SMALL, steps=0)  # the same loss
    assert ct.verify_tokenwise(head.values, SMALL, role="values").heads == (3, 3)
    # one head whose kernel is the sum of the two is another model: its prediction differs
    summed = ct.predict(lambda x: head.phi_q(x), lambda x: head.phi_k(x), values=lambda x: head.values(x),
                        readout=head.readout, family=SMALL, delta=head.delta)
    assert np.abs(summed - ct.predict(**mine, family=SMALL)).max() > 1e-3


def test_one_head_is_never_made_of_a_layouts_heads_silently(tmp_path):
    _, head = _layer()
    with pytest.raises(ValueError, match=r"declare 2 heads .*never as one head whose kernel is their sum.*"
                                         r"check\(phi_q.head\(0\), phi_k.head\(0\)\)"):
        ct.check(head.phi_q, head.phi_k, family=SMALL)  # kernel only: refused, naming the way out
    for call in (ct.check, ct.predict, ct.export):
        args = (str(tmp_path / "t.npz"),) if call is ct.export else ()
        with pytest.raises(ValueError, match=r"heads = \[6\], but the feature maps declare 2 heads of widths \[3, 3\] "
                                             r"\(a Layout's heads=\)"):
            call(*args, **_layout_parts(head), family=SMALL, heads=[6], value_heads=[6])
    with pytest.raises(ValueError, match=r"heads = \[6\], but the feature maps declare 2 heads"):
        ct.fit(**_layout_parts(head), family=SMALL, steps=1, heads=[6], value_heads=[6])
    plain_k = lambda x: head.phi_k(x)  # noqa: E731 - declares nothing: 6 columns, one head
    with pytest.raises(ValueError, match=r"phi_q's heads have widths \[3, 3\], phi_k's \[6\]; a Layout declares"):
        ct.check(head.phi_q, plain_k, values=head.values, readout=head.readout, family=SMALL)
    one = [ct.check(head.phi_q.head(h), head.phi_k.head(h), family=SMALL).kernel_rank for h in range(2)]
    assert one == ct.check(**_layout_parts(head), family=SMALL).head_ranks
    with pytest.raises(ValueError, match=r"head 2: an integer from 0 to 1"):
        head.phi_q.head(2)


# --------------------------------------------------------------------------- 2. compare names the cause


@pytest.mark.parametrize("kind, eps, cause, words", [
    ("cosformer", 1e-3, "order", "depends on the order of the other tokens"),
    ("key_softmax", 0.0, "sequence", "a per-feature normalisation over the sequence"),
    ("rmsnorm", 1e-3, "alone", "a norm after attention (RMSNorm"),
    ("no_denominator", 1e-3, "alone", "no division by Σ_j α"),
    ("delta_missing", 1e-3, "delta", "pass delta=0"),
])
def test_compare_names_the_cause_and_never_offers_rtol_far_above_rounding(kind, eps, cause, words):
    attn, head = _layer(kind, eps=eps)
    rep = ct.compare(head.layer(attn), **head.parts(), family=SMALL)
    assert not rep.agrees and rep.far_above_rounding and rep.cause == cause and words in rep.text()
    assert "rtol=" not in rep.text().replace("no rtol= makes it rounding", "")
    assert "no rtol= makes it rounding" in rep.text() and rep.to_json()["cause"] == cause


def test_a_wrong_denominator_constant_is_found_and_the_suggestion_is_the_layers():
    attn, head = _layer("delta_missing")
    rep = ct.compare(head.layer(attn), **head.parts(), family=SMALL)
    assert rep.suggested_delta == 0.0
    attn, head = _layer("faithful", delta=0)  # the layer adds eps = 1e-3; the head was given none
    rep = ct.compare(head.layer(attn), **head.parts(), family=SMALL)
    assert rep.cause == "delta" and rep.suggested_delta == attn.eps and "pass delta=0.001" in rep.text()
    assert ct.compare(head.layer(attn), **{**head.parts(), "delta": rep.suggested_delta}, family=SMALL).agrees


def test_near_rounding_the_text_may_offer_rtol():
    attn, head = _layer()
    def off(x):  # 3e-9 relative to max(1, |t̂|): three times float64's tolerance, as a lower precision inside would
        y = head.layer(attn)(x)
        return y + 3e-9 * y.abs().clamp(min=1)

    rep = ct.compare(off, **head.parts(), family=SMALL)
    assert not rep.agrees and not rep.far_above_rounding and "pass rtol=" in rep.text()


def test_key_eps_models_the_performer_causal_denominator_exactly(tmp_path):
    """δ(x) = eps·Σ_i φ_Q,i(x): compare finds it (with the query last) and suggests KeyEps; with it the layer is its
    table's head, and check's exact predictions are the layer's formula evaluated in rationals."""
    attn, head = _layer("key_eps", delta=0)
    rep = ct.compare(head.layer(attn), **head.parts(), family=SMALL)
    assert rep.cause == "delta" and isinstance(rep.suggested_delta, ct.KeyEps) and rep.suggested_delta.eps == attn.eps
    assert "pass query_last=True" in rep.text() and "pass delta=certify.torch.KeyEps(0.001)" in rep.text()
    parts = {**head.parts(), "delta": ct.KeyEps(attn.eps)}
    assert ct.compare(head.layer(attn), **parts, family=SMALL, query_last=True).agrees
    checked = ct.check(**parts, family=SMALL)
    assert checked.head_ranks == ct.check(**head.parts(), family=SMALL).head_ranks  # rows scaled by s(x) > 0
    assert "δ(x) = 0.001·Σ_i φ_Q,i(x) per head (KeyEps)" in checked.text()
    # the exact prediction of family.inputs[i], from the float64 features read as rationals, by the layer's formula
    ft = ct.family_tensors(SMALL)
    X = ft.tokens
    with torch.no_grad():
        fq, fk, v, ro = head.phi_q(X), head.phi_k(X), head.values(X), head.readout(X)
    F = lambda t: [[Fraction(float(a)) for a in row] for row in t.tolist()]  # noqa: E731
    fq, fk, v, ro, eps = F(fq), F(fk), F(v), F(ro), Fraction(attn.eps)
    failing = {f["index"]: Fraction(f["prediction"]) for f in checked.to_json()["failing_inputs"]}
    for i in list(failing)[:4]:
        toks, qt = [int(t) for t in ft.inputs[i] if t >= 0], int(ft.query[i])
        pred = ro[qt][0]
        for h in range(2):
            c = slice(3 * h, 3 * h + 3)
            alpha = [sum(a * b for a, b in zip(fq[qt][c], fk[t][c])) for t in toks]
            den = sum(alpha) + eps * sum(fq[qt][c])
            num = [sum(a * v[t][c][d] for a, t in zip(alpha, toks)) for d in range(3)]
            pred += sum(w * n for w, n in zip(ro[qt][1:][c], num)) / den
        assert pred == failing[i]
    with pytest.raises(ValueError, match="KeyEps is φ_Q/Σ_i φ_Q,i with δ = eps"):
        ct.export(str(tmp_path / "t.npz"), **parts, family=SMALL)
    with pytest.raises(ValueError, match=r"KeyEps\(0\): eps > 0"):
        ct.KeyEps(0)


def test_key_eps_refuses_query_features_whose_sum_is_not_positive():
    torch.manual_seed(0)
    lin = nn.Linear(M, 3, dtype=torch.float64)
    signed = lambda x: torch.cat([torch.exp(lin(x)), -2 * torch.exp(lin(x)).sum(-1, keepdim=True)], -1)  # noqa: E731
    keys = lambda x: torch.cat([torch.exp(lin(x)), torch.zeros(x.shape[0], 1, dtype=x.dtype)], -1)  # noqa: E731
    v, ro = nn.Linear(M, 2, dtype=torch.float64), nn.Linear(M, 3, dtype=torch.float64)
    with pytest.raises(TableFormatError, match=r"delta=KeyEps: the query features of token [01]+ sum to -[0-9.]+; "
                                               r"eps·Σ_i φ_Q,i\(x\) is then no positive phantom weight"):
        ct.check(signed, keys, values=v, readout=ro, family=SMALL, delta=ct.KeyEps(1e-6))


def test_the_performer_causal_layer_is_checked_as_it_is():
    """performer-pytorch's own causal SelfAttention (ReLU features: tokenwise): compare finds its eps in the key sum,
    and with KeyEps the layer is its table's head."""
    pytest.importorskip("performer_pytorch")
    import contextlib
    import functools
    import io

    from performer_pytorch import SelfAttention
    from performer_pytorch.performer_pytorch import generalized_kernel

    torch.manual_seed(0)
    with contextlib.redirect_stdout(io.StringIO()):  # "unable to import cuda code …": its CPU path
        attn = SelfAttention(dim=M, heads=2, dim_head=6, nb_features=8, causal=True,
                             generalized_attention=True).to(torch.float64)
    fa = attn.fast_attention
    kernel = functools.partial(generalized_kernel, projection_matrix=fa.projection_matrix, kernel_fn=fa.kernel_fn)
    predict = nn.Linear(M, 1, dtype=torch.float64)
    head = lambda delta: ct.LinearHead(feature_map=kernel, q_proj=attn.to_q, k_proj=attn.to_k,  # noqa: E731
                                       v_proj=attn.to_v, out_proj=attn.to_out, predict=predict, heads=2, delta=delta)
    found = ct.compare(head(0).layer(attn), **head(0).parts(), family=SMALL, query_last=True)
    assert found.cause == "delta" and isinstance(found.suggested_delta, ct.KeyEps)
    assert found.suggested_delta.eps == 1e-6  # causal_linear_attention_noncuda's eps
    assert ct.compare(head(found.suggested_delta).layer(attn), **head(found.suggested_delta).parts(), family=SMALL,
                      query_last=True).agrees


# --------------------------------------------------------------------------- 3. errors that say where to go


def test_a_head_for_other_tokens_names_the_callable_and_the_familys_m():
    lin = nn.Linear(24, 8, dtype=torch.float64)  # built for rank-nine's 24-bit tokens
    phi = lambda x: torch.exp(lin(x))  # noqa: E731
    with pytest.raises(ValueError, match=r"^phi_q: torch says 'mat1 and mat2 shapes cannot be multiplied .*'; the "
                                         r"family's tokens have m = 12"):
        ct.check(phi, phi, family=SMALL)


def test_a_low_precision_layer_with_a_float32_tensor_inside_says_so():
    """fast-transformers in bfloat16: every parameter is bf16; LengthMask.float_matrix, made in the call, is float32."""
    bf = torch.bfloat16

    class Masked(nn.Module):
        def __init__(self):
            super().__init__()
            self.lin = nn.Linear(M, 4, dtype=bf)

        def forward(self, x):
            k = torch.relu(self.lin(x)) + 0.1
            mask = torch.ones(x.shape[0], x.shape[1])  # float32, as a length mask's float_matrix
            return ((k * mask[:, :, None]) @ self.lin(x).transpose(1, 2)).sum(-1)  # float32 @ bfloat16

    layer = Masked()
    phi = ct.Layout(lambda t: torch.relu(layer.lin(t)) + 0.1, "BLD")
    with pytest.raises(ValueError, match=r"every parameter and buffer it holds is bfloat16 on cpu already: a tensor "
                                         r"made inside the layer's call .*compare in float32") as err:
        ct.compare(layer, phi, phi, values=layer.lin, readout=nn.Linear(M, 5, dtype=bf), family=SMALL)
    assert "give the module's parameters and buffers one dtype" not in str(err.value)


def test_fast_transformers_in_bfloat16_is_told_to_compare_in_float32():
    """The library's own AttentionLayer: faithful in float32; in bfloat16 its LengthMask.float_matrix is float32."""
    pytest.importorskip("fast_transformers")
    from fast_transformers.attention import AttentionLayer, LinearAttention
    from fast_transformers.masking import FullMask, LengthMask

    torch.manual_seed(0)
    attn = AttentionLayer(LinearAttention(query_dimensions=6), d_model=M, n_heads=2)

    def layer(x):
        B, L, _ = x.shape
        lengths = LengthMask(torch.full((B,), L, dtype=torch.int64), max_len=L)
        return attn(x, x, x, FullMask(L), lengths, lengths)

    fm = attn.inner_attention.feature_map
    head = ct.LinearHead(feature_map=fm.forward_queries, key_feature_map=fm.forward_keys, layout="NLHE",
                         q_proj=attn.query_projection, k_proj=attn.key_projection, v_proj=attn.value_projection,
                         out_proj=attn.out_projection, predict=nn.Linear(M, 1), heads=2, delta=1e-6)
    assert ct.compare(head.layer(layer), **head.parts(), family=SMALL).agrees
    head.to(torch.bfloat16)
    with pytest.raises(ValueError, match=r"every parameter and buffer it holds is bfloat16 on cpu already: a tensor "
                                         r"made inside the layer's call .*compare in float32"):
        ct.compare(head.layer(layer), **head.parts(), family=SMALL)


def test_flash_linear_attentions_naive_op_is_its_table_with_delta_1e_10_sqrt_k():
    """fla's maps and naive causal op on a CPU: normalize=True divides by (q·scale)·Σ_j k_j + 1e-10, scale = K^-1/2."""
    pytest.importorskip("fla")
    import warnings

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        from fla.modules.feature_map import HedgehogFeatureMap
        from fla.ops.linear_attn.naive import naive_recurrent_linear_attn

    torch.manual_seed(0)
    proj = [nn.Linear(M, M, bias=False) for _ in range(4)]
    fq, fk = HedgehogFeatureMap(head_dim=M // 2), HedgehogFeatureMap(head_dim=M // 2)

    def layer(x):
        q, k, v = (p(x).reshape(*x.shape[:2], 2, M // 2) for p in proj[:3])
        o, _ = naive_recurrent_linear_attn(fq(q), fk(k), v, normalize=True)
        return proj[3](o.reshape(*x.shape[:2], M))

    K = M  # Hedgehog's 2·(M/2) features per head
    head = ct.LinearHead(feature_map=fq, key_feature_map=fk, layout="BLHD", q_proj=proj[0], k_proj=proj[1],
                         v_proj=proj[2], out_proj=proj[3], predict=nn.Linear(M, 1), heads=2, delta=1e-10 * K**0.5)
    assert ct.compare(head.layer(layer), **head.parts(), family=SMALL, query_last=True).agrees


def test_check_says_add_delta_for_a_zero_denominator_as_fit_does():
    relu = lambda x: torch.relu(x[:, :2] - 5)  # noqa: E731 - every α is 0
    with pytest.raises(TableFormatError, match=r"Σ_j α = 0; the model needs it positive; .*add delta \(a library's eps\)"):
        ct.check(relu, relu, family=SMALL)
    v, ro = nn.Linear(M, 2, dtype=torch.float64), nn.Linear(M, 3, dtype=torch.float64)
    with pytest.raises(ct.TrainingDiverged, match=r"add delta \(a library's eps\)"):
        ct.fit(relu, relu, v, ro, family=SMALL, steps=1)


def test_text_is_one_string_for_check_compare_and_verify_tokenwise():
    attn, head = _layer()
    rep = ct.check(**head.parts(), family=SMALL)
    texts = [rep.text(), ct.compare(head.layer(attn), **head.parts(), family=SMALL).text(),
             ct.verify_tokenwise(head.phi_k, SMALL).text()]
    assert all(isinstance(t, str) and t for t in texts)
    assert rep.lines() == rep.text().split("\n") and isinstance(rep, ct.CheckReport)


# --------------------------------------------------------------------------- 4. progress


@pytest.mark.parametrize("call", ["check", "predict", "compare"])
def test_long_calls_report_progress_on_stderr_as_the_cli_does(call, capsys, monkeypatch):
    attn, head = _layer()
    run = {"check": lambda: ct.check(**head.parts(), family=SMALL),
           "predict": lambda: ct.predict(**head.parts(), family=SMALL),
           "compare": lambda: ct.compare(head.layer(attn), **head.parts(), family=SMALL)}[call]
    monkeypatch.setenv("CERTIFY_PROGRESS", "1")  # at once
    run()
    out = capsys.readouterr()
    assert f"certify.torch.{call}: " in out.err and "evaluating the head on the family's tokens" in out.err
    assert out.out == ""
    monkeypatch.setenv("CERTIFY_PROGRESS", "0")
    run()
    assert capsys.readouterr().err == ""


def test_fit_says_how_long_is_left(capsys, monkeypatch):
    """A fake clock, one second per look: fit's progress line gives the time left at the rate so far."""
    import certify.check

    class Clock:
        now = 1000.0

        @classmethod
        def monotonic(cls):
            cls.now += 1.0
            return cls.now

    monkeypatch.setattr(certify.check, "time", Clock)
    monkeypatch.delenv("CERTIFY_PROGRESS", raising=False)  # the default: after 2 s
    _, head = _layer()
    ct.fit(**head.parts(), family=SMALL, steps=20)
    lines = [ln for ln in capsys.readouterr().err.splitlines() if ln.startswith("fit on")]
    assert lines
    for ln in lines:
        done = int(ln.split("(steps): ")[1].split("/")[0])
        elapsed, left = ln.split("[")[1].split(" s, about ")
        assert int(left.split(" s left]")[0]) == round(int(elapsed) * (20 - done) / done)


# --------------------------------------------------------------------------- 5. a picture of compare


def test_compare_draws_the_layer_against_its_table(tmp_path):
    pytest.importorskip("matplotlib")
    from certify.bounds.plot import PlotUnavailable

    attn, head = _layer("cosformer")
    rep = ct.compare(head.layer(attn), **head.parts(), family=SMALL)
    path = rep.plot(str(tmp_path / "compare.png"))
    data = open(path, "rb").read()
    assert data[:8] == b"\x89PNG\r\n\x1a\n" and len(data) > 10_000
    with pytest.raises(PlotUnavailable, match="does not exist"):
        rep.plot(str(tmp_path / "no" / "such" / "folder.png"))


# --------------------------------------------------------------------------- 6. the extra


def test_the_torch_extra_is_an_alias_of_train():
    import tomllib

    extras = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]["optional-dependencies"]
    assert extras["torch"] == extras["train"]
