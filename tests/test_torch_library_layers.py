"""certify.torch on library layers as they are (issue 45): a Layout that is a module, stabilizers recognised per head,
bf16 compared fairly, the head built from a layer's parts, dtype=, messages with a next step, NaN parameters restored.

Each reproducer of the issue is a test here (float32 and bf16 modules; torch's ``meta`` device for placement). CPU
only; the libraries themselves are not needed (their layers are imitated in a few lines), and the tests that use one
skip when it is missing.
"""
import functools
import math

import pytest

torch = pytest.importorskip("torch")
from torch import nn  # noqa: E402

from certify import torch as ct  # noqa: E402
from certify.kernels.table import TableFormatError  # noqa: E402

from conftest import CORPUS, run_cli_here  # noqa: E402

SMALL = str(CORPUS / "valid" / "small_paper.json")  # m = 12, certified r ≥ 3; inputs of length ≤ 3
M = 12


class LinearAttention(nn.Module):
    """A linear-attention layer written as the libraries write it: fused shapes, (b, h, n, d), elu+1, eps."""

    def __init__(self, dim=M, heads=2, dim_head=3, eps=1e-6, rotary=False, stabilize=False):
        super().__init__()
        self.heads, self.eps, self.rotary, self.stabilize = heads, eps, rotary, stabilize
        self.to_q = nn.Linear(dim, heads * dim_head, bias=False)
        self.to_k = nn.Linear(dim, heads * dim_head, bias=False)
        self.to_v = nn.Linear(dim, heads * dim_head, bias=False)
        self.to_out = nn.Linear(heads * dim_head, dim)

    def feature_map(self, t):
        return nn.functional.elu(t) + 1

    def key_map(self, t, stabilize=True):
        """exp features; stabilized as FAVOR+/darkformer do for keys: minus the maximum over positions and features,
        per sequence and head (t is (b, h, n, d))."""
        return torch.exp(t - t.amax(dim=(-2, -1), keepdim=True)) if stabilize else torch.exp(t)

    def forward(self, x):
        b, n, _ = x.shape
        split = lambda t: t.reshape(b, n, self.heads, -1).transpose(1, 2)  # noqa: E731
        q = self.feature_map(split(self.to_q(x)))
        k = self.key_map(split(self.to_k(x)), self.stabilize) if self.stabilize else self.feature_map(split(self.to_k(x)))
        v = split(self.to_v(x))
        if self.rotary:
            ang = torch.arange(n, dtype=q.dtype)[:, None]
            q, k = q * (1 + torch.cos(ang)), k * (1 + torch.sin(ang))
        kv = torch.einsum("bhnd,bhne->bhde", k, v)
        z = 1 / (torch.einsum("bhnd,bhd->bhn", q, k.sum(2)) + self.eps)
        out = torch.einsum("bhnd,bhde,bhn->bhne", q, kv, z)
        return self.to_out(out.transpose(1, 2).reshape(b, n, -1))


def _head(attn, key_map=None, predict=None, **kw):
    return ct.LinearHead(feature_map=attn.feature_map, key_feature_map=key_map, q_proj=attn.to_q, k_proj=attn.to_k,
                         v_proj=attn.to_v, out_proj=attn.to_out, predict=predict or nn.Linear(M, 1),
                         heads=attn.heads, delta=attn.eps, **kw)


def _params(module):
    return [p.detach().clone() for p in module.parameters()]


# --------------------------------------------------------------------------- 1. Layout is a module


def test_a_layout_over_a_float32_lambda_runs_in_the_modules_dtype():
    """The reproducer: `Layout(lambda t: lin(t).exp(), "BHLD", heads=2)` with a float32 `lin` raised
    "mat1 and mat2 must have the same dtype"; the Layout owns `lin` and runs in its dtype."""
    torch.manual_seed(0)
    lin = nn.Linear(M // 2, M // 2)
    phi = ct.Layout(lambda t: lin(t).exp() / 4, "BHLD", heads=2)
    assert isinstance(phi, nn.Module) and any(p is lin.weight for p in phi.parameters())
    assert ct.placement(phi) == (torch.float32, torch.device("cpu"))
    v, ro = nn.Linear(M, 2), nn.Linear(M, 3)
    rep = ct.check(phi, phi, values=v, readout=ro, family=SMALL, heads=[6, 6], value_heads=[1, 1])
    assert rep.head_ranks is not None and len(rep.head_ranks) == 2
    with pytest.raises(ValueError, match=r"declare 2 heads .*never as one head whose kernel is their sum"):
        ct.check(ct.Layout(lambda t: lin(t).exp(), "BHLD", heads=2), phi, family=SMALL)  # not one head of 12
    kernel_only = ct.check(phi.head(1), phi.head(1), family=SMALL)  # one head alone, kernel only
    assert kernel_only.kernel_rank == rep.head_ranks[1]


def test_fit_trains_the_module_inside_a_layout_and_to_moves_its_buffers():
    """With a float64 module inside a lambda, fit left its parameters untrained without a word; `.to(bfloat16)`
    missed its buffers."""
    torch.manual_seed(0)

    class Projected(nn.Module):
        def __init__(self):
            super().__init__()
            self.lin = nn.Linear(M // 2, 4, dtype=torch.float64)
            self.register_buffer("omega", torch.randn(4, 4, dtype=torch.float64))

        def forward(self, t):
            return torch.exp(self.lin(t) @ self.omega / 8)

    proj = Projected()
    phi = ct.Layout(lambda t: proj(t), "BHLD", heads=2)
    v, ro = nn.Linear(M, 2, dtype=torch.float64), nn.Linear(M, 3, dtype=torch.float64)
    before = proj.lin.weight.detach().clone()
    ct.fit(phi, phi, v, ro, family=SMALL, steps=3, heads=[4, 4], value_heads=[1, 1])
    assert not torch.equal(proj.lin.weight.detach(), before)  # trained
    phi.to(torch.bfloat16)
    assert proj.omega.dtype == proj.lin.weight.dtype == torch.bfloat16 and ct.placement(phi)[0] == torch.bfloat16
    out = phi(ct.family_tensors(SMALL).tokens[:5].to(torch.bfloat16))
    assert out.dtype == torch.bfloat16 and out.shape == (5, 8)


def test_a_layout_finds_bound_methods_partials_and_globals_and_takes_modules_explicitly():
    lin = nn.Linear(M, 4, dtype=torch.float64)

    class Map(nn.Module):
        def __init__(self):
            super().__init__()
            self.lin = nn.Linear(M, 4, dtype=torch.float64)

        def features(self, t, scale=1.0):
            return torch.exp(self.lin(t) * scale)

    owner = Map()
    found = lambda phi: {id(p) for p in phi.parameters()}  # noqa: E731
    assert found(ct.Layout(owner.features, "BLD")) == {id(p) for p in owner.parameters()}
    assert found(ct.Layout(functools.partial(owner.features, scale=0.5), "BLD")) == {id(p) for p in owner.parameters()}
    assert found(ct.Layout(lambda t: torch.exp(GLOBAL_LIN(t)), "BLD")) == {id(p) for p in GLOBAL_LIN.parameters()}
    assert found(ct.Layout(lambda t: torch.exp(lin(t)), "BLD", modules=[lin])) == {id(p) for p in lin.parameters()}
    with pytest.raises(ValueError, match="modules= is a list of torch.nn.Module"):
        ct.Layout(lambda t: t, "BLD", modules=[lambda t: t])


GLOBAL_LIN = nn.Linear(M, 4, dtype=torch.float64)


def test_a_layout_made_inside_a_modules_init_owns_its_parent_without_a_cycle():
    """`self.phi = Layout(self.feature_map)` makes the Layout own the module that holds it: owned modules are not
    children, so repr, .to() and state_dict do not recurse (review of issue 45); the notebook form likewise."""

    class Attn(nn.Module):
        def __init__(self):
            super().__init__()
            self.lin = nn.Linear(M, 4)
            self.phi = ct.Layout(self.feature_map, "BLD")

        def feature_map(self, t):
            return torch.exp(self.lin(t))

    a = Attn()
    assert any(o is a for o in a.phi.owned) and "layout='BLD', heads=1" in repr(a)
    assert set(a.state_dict()) == {"lin.weight", "lin.bias"}
    a.phi.to(torch.float64)
    assert a.lin.weight.dtype == torch.float64 and ct.placement(a.phi)[0] == torch.float64
    a.to(torch.float32)
    assert a.lin.weight.dtype == torch.float32 and [p is a.lin.weight for p in a.phi.parameters()].count(True) == 1
    a.phi.eval()
    assert not a.training and not a.lin.training
    model = nn.Module()
    model.lin = nn.Linear(M, 4)
    model.phi = ct.Layout(lambda t: torch.exp(model.lin(t)), "BLD")
    model.to(torch.float64)
    assert model.lin.weight.dtype == torch.float64 and repr(model)


def test_a_layout_owns_what_modules_gives_even_a_generator_and_not_a_global_named_like_an_attribute():
    inner = nn.Sequential(nn.Linear(M, 4), nn.Linear(4, 4))
    phi = ct.Layout(lambda t: torch.exp(inner(t)), "BLD", modules=inner.children())
    assert len(phi.owned) == 2 and len(list(phi.parameters())) == 4
    cfg = nn.Module()
    cfg.lin = nn.Linear(M, 4, dtype=torch.float64)
    phi = ct.Layout(lambda t: torch.exp(cfg.lin(t)), "BLD")
    assert phi.owned == [cfg] and all(o is not lin for o in phi.owned)  # `lin`, the global below, is only a name


lin = nn.Linear(M, 4)  # a global that shares the name of cfg.lin above


def test_a_layout_on_the_meta_device_is_placed_there():
    """Placement through the wrapped module: tokens reach it on its device (meta: no GPU needed) and dtype."""
    seen = {}
    lin = nn.Linear(M, 2, dtype=torch.float16, device="meta")

    def fm(t):
        seen.update(device=t.device.type, dtype=t.dtype)
        return lin(t)

    phi = ct.Layout(fm, "BLD")
    assert ct.placement(phi) == (torch.float16, torch.device("meta"))
    with pytest.raises(NotImplementedError, match="meta tensor"):  # no numbers on meta: it stops after the call
        ct.evaluate(phi, phi, tokens=ct.family_tensors(SMALL).tokens)
    assert seen == {"device": "meta", "dtype": torch.float16}


# --------------------------------------------------------------------------- 2. stabilizers, per head


def _stabilized(W, heads=2):
    """A key map stabilized per sequence and head (darkformer's key_feature_map), and the same map without it."""
    def key(t, stabilize=True):
        h = t @ W
        return torch.exp(h - h.amax(dim=(-2, -1), keepdim=True)) if stabilize else torch.exp(h)
    return (ct.Layout(key, "BHLD", heads=heads), ct.Layout(functools.partial(key, stabilize=False), "BHLD", heads=heads))


def test_a_stabilizer_over_the_whole_sequence_is_recognised():
    """The reproducer `verify_tokenwise(lambda s: exp(s @ W − max(s @ W)))` said "not tokenwise": it is a factor per
    sequence times a factor per token (the table of single tokens is another head), and harmless against the map
    without the stabilizer."""
    W = torch.randn(M, 8, dtype=torch.float64, generator=torch.Generator().manual_seed(1))
    stab = lambda s: torch.exp(s @ W - (s @ W).amax(dim=(-2, -1), keepdim=True))  # noqa: E731
    rep = ct.verify_tokenwise(stab, SMALL)
    assert rep.verdict == "stabilizer" and not rep.harmless and "reference=" in rep.text()
    rep = ct.verify_tokenwise(stab, SMALL, reference=lambda s: torch.exp(s @ W))
    assert rep.verdict == "per-sequence scale" and rep.harmless and rep.text().startswith("harmless: a per-sequence factor (")
    lo, hi = rep.scale_range
    assert 0 < lo <= hi <= 1 and f"factors {lo:.3g} to {hi:.3g}" in rep.text()


def test_a_stabilizer_per_head_is_harmless_per_head_and_compare_agrees():
    """darkformer's stabilized keys: one factor per sequence *and head* — one factor for both heads does not fit."""
    W = torch.randn(M // 2, 3, dtype=torch.float64, generator=torch.Generator().manual_seed(2))
    key, plain = _stabilized(W)
    rep = ct.verify_tokenwise(key, SMALL, reference=plain)  # heads=2 from the Layout
    assert rep.heads == (3, 3) and rep.verdict == "per-sequence scale" and rep.harmless
    assert rep.text().startswith("harmless: a per-sequence factor per head (")
    assert ct.verify_tokenwise(key, SMALL, reference=plain, heads=1).verdict == "not tokenwise"
    assert ct.verify_tokenwise(key, SMALL, reference=plain, heads=[3, 3]).harmless
    with pytest.raises(ValueError, match=r"the Layout has 2 head\(s\)"):  # a factor per column would fit anything
        ct.verify_tokenwise(key, SMALL, reference=plain, heads=6)
    with pytest.raises(ValueError, match="do not split into 4 equal heads"):
        ct.verify_tokenwise(lambda s: key(s), SMALL, reference=plain, heads=4)

    torch.manual_seed(0)
    attn = LinearAttention(heads=2, dim_head=3, eps=0.0, stabilize=True).to(torch.float64)
    head = _head(attn, key_map=lambda t: attn.key_map(t, stabilize=False), predict=nn.Linear(M, 1, dtype=torch.float64))
    stabilized = ct.Layout(attn.key_map, "BHLD", heads=2, project=attn.to_k)
    assert ct.verify_tokenwise(stabilized, SMALL, reference=head.phi_k).harmless
    rep = ct.compare(head.layer(attn), **head.parts(), family=SMALL)
    assert rep.agrees and rep.within and rep.worst_relative < 1e-9


@pytest.mark.skipif(not __import__("importlib").util.find_spec("darkformer_pytorch"), reason="darkformer-pytorch missing")
def test_darkformer_stabilized_keys_are_harmless_against_its_unstabilized_map():
    from darkformer_pytorch import DataAwareRandomFeatures

    rf = DataAwareRandomFeatures(head_dim=M // 2, num_heads=2, num_features=8, projection_seed=0)
    key = ct.Layout(rf.key_feature_map, "BHLD", heads=2)
    plain = ct.Layout(functools.partial(rf.key_feature_map, stabilize=False), "BHLD", heads=2)
    assert ct.placement(key)[0] == torch.float32
    rep = ct.verify_tokenwise(key, SMALL, reference=plain)
    assert rep.harmless and rep.text().startswith("harmless: a per-sequence factor per head")
    assert ct.verify_tokenwise(key, SMALL).verdict == "stabilizer"


# --------------------------------------------------------------------------- 3. bf16 compared fairly


def test_a_faithful_trained_bf16_layer_agrees_and_its_parameters_come_back_as_they_were():
    torch.manual_seed(0)
    attn = LinearAttention(heads=2, dim_head=3)
    head = _head(attn)
    ct.fit(**head.parts(), family=SMALL, steps=30, lr=0.05)
    head.to(torch.bfloat16)
    before = _params(head)
    rep = ct.compare(head.layer(attn), **head.parts(), family=SMALL)
    assert rep.dtype == "bfloat16" and rep.agrees and rep.float32 is not None and rep.float32.within
    assert rep.float32.dtype == "float32" and rep.float32.worst_relative < 1e-4
    assert rep.depth == M + 3 + 3 + 6 + 2 and rep.rtol == max(5e-2, rep.depth * 2.0**-8)
    assert "the same weights in float32" in rep.text() and "roundings in a row × u = 2^-8" in rep.text()
    after = _params(head)
    assert all(a.dtype == torch.bfloat16 and torch.equal(a, b) for a, b in zip(after, before))
    rotary = LinearAttention(heads=2, dim_head=3, rotary=True)
    rotary.load_state_dict(attn.state_dict())
    rotary.to(torch.bfloat16)
    bad = ct.compare(head.layer(rotary), **head.parts(), family=SMALL)
    assert not bad.agrees and bad.float32 is not None and not bad.float32.within and "NOT its table's head" in bad.text()


def test_a_bf16_layer_is_judged_by_its_float32_re_evaluation():
    """A bf16 layer with a term that grows with the sequence is within bf16's loose tolerance, but its float32
    re-evaluation is not: the report says NOT (review of issue 45). Plain bf16 callables get float32 tokens there."""
    torch.manual_seed(0)
    bf = torch.bfloat16
    q, k = nn.Linear(M, 4, dtype=bf), nn.Linear(M, 4, dtype=bf)
    v, ro = nn.Linear(M, 2, dtype=bf), nn.Linear(M, 3, dtype=bf)
    phi_q, phi_k = (lambda x: q(x).exp()), (lambda x: k(x).exp())

    def layer(x, t=0.0):
        a = torch.einsum("bir,bjr->bij", phi_q(x), phi_k(x))
        out = torch.einsum("bij,bjd->bid", a, v(x)) / a.sum(-1, keepdim=True)
        r = ro(x)
        return r[..., 0] + (r[..., 1:] * out).sum(-1) + t * (x.shape[1] - 1)

    good = ct.compare(layer, phi_q, phi_k, values=v, readout=ro, family=SMALL, dtype=bf)
    assert good.agrees and good.float32 is not None and good.float32.dtype == "float32"
    bad = ct.compare(lambda x: layer(x, 0.03), phi_q, phi_k, values=v, readout=ro, family=SMALL, dtype=bf)
    assert bad.within and not bad.agrees and "NOT its table's head: within bfloat16's loose tolerance" in bad.text()
    assert all(p.dtype == bf for mod in (q, k, v, ro) for p in mod.parameters())
    own = ct.compare(lambda x: layer(x.to(bf)), phi_q, phi_k, values=v, readout=ro, family=SMALL, dtype=bf)
    assert own.float32 is None and "no float32 re-evaluation: layer: torch says" in own.text()


def test_the_tolerance_is_derived_from_the_dtype_and_the_depth():
    from certify.torch.compare import depth, tolerance

    assert depth(24, 21, 3, 8) == 58 and tolerance("bfloat16", 58) == 58 / 256
    assert tolerance("float32", 58) == 1e-4 and tolerance("float64", 10) == 1e-9 and tolerance("float16", 100) == 100 / 2048


# --------------------------------------------------------------------------- 4. the head from a layer's parts


def test_a_two_head_float32_layer_from_its_parts_is_trained_checked_verified_and_compared():
    torch.manual_seed(0)
    attn = LinearAttention(heads=2, dim_head=3)
    head = _head(attn)
    before = attn.to_q.weight.detach().clone()
    loss = ct.fit(**head.parts(), family=SMALL, steps=40, lr=0.05)
    assert math.isfinite(loss) and not torch.equal(attn.to_q.weight.detach(), before)
    rep = ct.check(**head.parts(), family=SMALL)
    assert rep.head_ranks is not None and len(rep.head_ranks) == 2 and rep.to_json()["table"]["heads"] == [3, 3]
    for phi in head.parts()["phi_k"]:
        assert ct.verify_tokenwise(phi, SMALL).tokenwise
    assert ct.verify_tokenwise(head.phi_k, SMALL).heads == (3, 3)
    cmp = ct.compare(head.layer(attn), **head.parts(), family=SMALL)
    assert cmp.agrees and cmp.dtype == "float32" and cmp.table_max_error == rep.max_error
    assert ct.compare(head, **head.parts(), family=SMALL).agrees  # the head's own float forward


def test_linear_head_reads_an_affine_readout_with_residual_and_refuses_a_nonlinear_one():
    torch.manual_seed(0)
    attn = LinearAttention(heads=1, dim_head=4).to(torch.float64)
    predict = nn.Linear(M, 1, dtype=torch.float64)
    head = _head(attn, predict=predict, residual=True)
    X = ct.family_tensors(SMALL).tokens
    beta_w = head.readout(X)
    y0 = attn.to_out(torch.zeros(1, 4, dtype=torch.float64))
    assert torch.allclose(beta_w[:, 0], predict(X + y0)[:, 0]) and beta_w[:, 0].std() > 0  # β depends on the query
    assert ct.compare(head.layer(attn), **head.parts(), family=SMALL).agrees
    bad = ct.LinearHead(feature_map=attn.feature_map, q_proj=attn.to_q, k_proj=attn.to_k, v_proj=attn.to_v,
                        out_proj=nn.Sequential(attn.to_out, nn.Tanh()), predict=predict)
    with pytest.raises(ValueError, match="not affine"):
        ct.check(**bad.parts(), family=SMALL)
    with pytest.raises(ValueError, match="predict is the prediction layer"):
        ct.LinearHead(feature_map=attn.feature_map, predict=None)
    norm = ct.LinearHead(feature_map=attn.feature_map, q_proj=attn.to_q, k_proj=attn.to_k, v_proj=attn.to_v,
                         out_proj=nn.Sequential(nn.LayerNorm(4, dtype=torch.float64), attn.to_out), predict=predict)
    with pytest.raises(ValueError, match="not affine"):  # exact at 0, the unit vectors and all-ones: random probes
        ct.check(**norm.parts(), family=SMALL)
    wide = ct.LinearHead(feature_map=attn.feature_map, q_proj=attn.to_q, k_proj=attn.to_k, v_proj=attn.to_v,
                         out_proj=attn.to_out, predict=nn.Linear(M, 2, dtype=torch.float64))
    with pytest.raises(ValueError, match=r"predict must map to one output"):
        ct.check(**wide.parts(), family=SMALL)

    class Quad(nn.Module):  # t + 0.05 t², in bfloat16: visible at random probes in float64
        def __init__(self):
            super().__init__()
            self.lin = nn.Linear(M, 1, dtype=torch.bfloat16)

        def forward(self, y):
            t = self.lin(y)
            return t + 0.05 * t * t

    low = LinearAttention(heads=1, dim_head=4).to(torch.bfloat16)
    quad = ct.LinearHead(feature_map=low.feature_map, q_proj=low.to_q, k_proj=low.to_k, v_proj=low.to_v,
                         out_proj=low.to_out, predict=Quad())
    with pytest.raises(ValueError, match="not affine"):
        ct.check(**quad.parts(), family=SMALL)


# --------------------------------------------------------------------------- 5. dtype= and --dtype


def test_fit_gives_plain_float32_callables_their_dtype():
    torch.manual_seed(0)
    lin = nn.Linear(M, 3)
    fm = lambda x: nn.functional.elu(lin(x)) + 1  # noqa: E731
    v, ro = nn.Linear(M, 2), nn.Linear(M, 3)
    with pytest.raises(ValueError, match=r"phi_q: torch says .*same dtype.*dtype=torch.float32"):
        ct.fit(fm, fm, v, ro, family=SMALL, steps=2)
    before = lin.weight.detach().clone()
    assert math.isfinite(ct.fit(fm, fm, v, ro, family=SMALL, steps=2, dtype=torch.float32))
    assert not torch.equal(lin.weight.detach(), before)  # a plain callable's module is trained too
    assert ct.check(fm, fm, values=v, readout=ro, family=SMALL, dtype=torch.float32).max_error >= 0
    assert ct.check(fm, fm, values=v, readout=ro, family=SMALL, dtype="float32").max_error >= 0  # or np.float32
    for bad, msg in ((torch.int64, "a floating dtype"), ("bogus", "a floating dtype")):
        with pytest.raises(ValueError, match=msg):
            ct.check(fm, fm, values=v, readout=ro, family=SMALL, dtype=bad)
    with pytest.raises(ValueError, match="device = 'gpu': a torch device"):
        ct.verify_tokenwise(fm, SMALL, device="gpu")
    with pytest.raises(ValueError, match="lr = '0.01': a finite number > 0"):
        ct.fit(fm, fm, v, ro, family=SMALL, steps=1, lr="0.01", dtype=torch.float32)
    for delta in (None, "abc", "1e-400", "-1e-400", "1e-999999999"):  # what fit refuses, verify_tokenwise refuses
        with pytest.raises(ValueError, match="delta = "):
            ct.verify_tokenwise(fm, SMALL, dtype=torch.float32, delta=delta)


FACTORY = '''
import torch

class Elu1(torch.nn.Module):
    def __init__(self, m, r):
        super().__init__()
        self.lin = torch.nn.Linear(m, r)  # float32, torch's default

    def forward(self, x):
        return torch.nn.functional.elu(self.lin(x)) + 1

def make(m, r, seed):
    torch.manual_seed(seed)
    return Elu1(m, r), Elu1(m, r)

def plain(m, r, seed):
    torch.manual_seed(seed)
    lin = torch.nn.Linear(m, r)
    return (lambda x: torch.nn.functional.elu(lin(x)) + 1), (lambda x: torch.nn.functional.elu(lin(x)) + 1)
'''


def test_train_takes_float32_factories_and_a_dtype(tmp_path):
    (tmp_path / "f32maps.py").write_text(FACTORY)
    args = ("train", "--family", SMALL, "--ranks", "3", "--seeds", "0", "--steps", "3")
    ok = run_cli_here(*args, "--feature-map", "f32maps:make", "--out", str(tmp_path / "a"), cwd=tmp_path)
    assert ok.returncode == 0, ok.stderr
    assert "the factory's modules in their own dtype and the rest in float64" in ok.stdout
    bad = run_cli_here(*args, "--feature-map", "f32maps:plain", "--out", str(tmp_path / "b"), cwd=tmp_path)
    assert bad.returncode == 2 and "give --dtype (e.g. --dtype float32)" in bad.stderr and "Traceback" not in bad.stderr
    ok = run_cli_here(*args, "--feature-map", "f32maps:plain", "--dtype", "float32", "--out", str(tmp_path / "c"),
                      cwd=tmp_path)
    assert ok.returncode == 0 and "the feature maps in float32 and the rest in float64" in ok.stdout
    for dtype, msg in (("float8", "--dtype 'float8': one of auto"), ("float32", "the softplus map is a free float64")):
        r = run_cli_here(*args, "--dtype", dtype, "--out", str(tmp_path / "d"), cwd=tmp_path)
        assert r.returncode == 2 and msg in r.stderr


# --------------------------------------------------------------------------- 6. messages with a next step


def test_messages_say_what_to_do():
    torch.manual_seed(0)
    lin = nn.Linear(M, 3)
    fm = lambda x: torch.exp(lin(x))  # noqa: E731
    with pytest.raises(ValueError, match=r"^phi_q: torch says .*; it got the tokens as float64 on cpu, as a plain "
                                         r"callable does; it uses Linear: wrap it as certify.torch.Layout"):
        ct.check(fm, fm, family=SMALL)
    attn = LinearAttention(heads=2, dim_head=3).to(torch.float64)
    head = _head(attn, predict=nn.Linear(M, 1, dtype=torch.float64))
    parts = head.parts()
    with pytest.raises(TableFormatError, match=r"several heads \(2\) need a readout: give readout=…"):
        ct.check(parts["phi_q"], parts["phi_k"], family=SMALL)

    def causal(seq):  # the head's own computation, each position seeing those before it only
        out = [head(seq[:, :i + 1])[:, -1] for i in range(seq.shape[1])]
        return torch.stack(out, 1)

    rep = ct.compare(causal, **parts, family=SMALL)
    assert not rep.agrees and rep.query_last_relative is not None and "pass query_last=True" in rep.text()
    assert ct.compare(causal, **parts, family=SMALL, query_last=True).agrees


# --------------------------------------------------------------------------- 7. fit after diverging


def test_fit_restores_the_last_finite_parameters_and_names_the_overflow():
    """A float32 exp map overflows after a few large steps (darkformer's run in float32): the parameters are put back
    to the last ones with a finite loss, and the message names the tensor and the cause."""
    torch.manual_seed(0)
    lin = nn.Linear(M, 3)
    phi = ct.Layout(lambda t: torch.exp(lin(t)), "BLD")
    v, ro = nn.Linear(M, 2), nn.Linear(M, 3)
    with pytest.raises(ct.TrainingDiverged) as err:
        ct.fit(phi, phi, v, ro, family=SMALL, steps=50, lr=30.0)
    text = str(err.value)
    assert "an overflow: float32 holds at most 3.4e+38" in text and "phi_q is inf at token" in text
    assert "the parameters are back at those of step" in text
    step = int(text.split("back at those of step ")[1].split(" ")[0])
    assert all(torch.isfinite(p).all() for p in (*lin.parameters(), *v.parameters(), *ro.parameters()))
    # the restored parameters give a finite loss: fit from them for 0 steps
    assert math.isfinite(ct.fit(phi, phi, v, ro, family=SMALL, steps=0)) and step >= 0


def test_a_zero_denominator_is_named_as_such():
    relu = lambda x: torch.relu(x[:, :2] - 5)  # noqa: E731 - every α is 0: 0/0
    v, ro = nn.Linear(M, 2, dtype=torch.float64), nn.Linear(M, 3, dtype=torch.float64)
    with pytest.raises(ct.TrainingDiverged, match=r"a zero denominator: family.inputs\[0\] has Σ_j α \+ δ = 0 .*add "
                                                  r"delta.*the loss was not finite at the start"):
        ct.fit(relu, relu, v, ro, family=SMALL, steps=5)


# --------------------------------------------------------------------------- 8. small inconsistencies


def test_delta_is_read_as_the_cli_reads_it_and_a_negative_one_prints_as_a_decimal():
    torch.manual_seed(0)
    lin = nn.Linear(M, 3, dtype=torch.float64)
    fm = lambda x: torch.exp(lin(x) / 4)  # noqa: E731
    v, ro = nn.Linear(M, 2, dtype=torch.float64), nn.Linear(M, 3, dtype=torch.float64)
    rep = ct.check(fm, fm, values=v, readout=ro, family=SMALL, delta="1e-10")
    assert rep.to_json()["table"]["delta"] == "1/10000000000"
    small = ct.check(fm, fm, values=v, readout=ro, family=SMALL, delta=1e-6)  # the float64 nearest 10⁻⁶
    assert "denominator constant δ = 1e-06 (exactly: --json)" in small.text() and isinstance(small.text(), str)
    assert small.to_json()["table"]["delta"] == "4722366482869645/4722366482869645213696"
    with pytest.raises(TableFormatError, match=r"^delta is -1e-06; the denominator constant must be ≥ 0$"):
        ct.check(fm, fm, values=v, readout=ro, family=SMALL, delta=-1e-6)
    with pytest.raises(TableFormatError, match="would have 1,000,000,000 digits"):
        ct.check(fm, fm, values=v, readout=ro, family=SMALL, delta="1e-999999999")
