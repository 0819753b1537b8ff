"""certify.torch (issue 17): heads given as PyTorch callables, checked exactly; the worked examples.

Skipped cleanly without PyTorch (the extra ``train``); no GPU, no third-party
linear-attention library. The examples of docs/torch.md are console sessions, re-run by
tests/test_docs_sessions.py (torch_elu1_golay24.py by tests/benchmarks/bench_docs.py).
"""
import os
from fractions import Fraction

import numpy as np
import pytest

torch = pytest.importorskip("torch")

from certify import torch as ct  # noqa: E402
from certify.torch.fit import predict_tensors  # noqa: E402 - the module that owns it
from certify.torch.tensors import as_array  # noqa: E402
from certify.kernels.audit import check_kernel, load_family  # noqa: E402
from certify.kernels.table import load_table  # noqa: E402

from conftest import CORPUS, ROOT, run_cli_here  # noqa: E402

EXAMPLES = ROOT / "docs" / "examples"
SMALL = str(CORPUS / "valid" / "small_paper.json")
_ENV = dict(os.environ, CERTIFY_PROGRESS="0")


class Elu1(torch.nn.Module):
    def __init__(self, m, r):
        super().__init__()
        self.lin = torch.nn.Linear(m, r, dtype=torch.float64)

    def forward(self, x):
        return torch.nn.functional.elu(self.lin(x)) + 1


def _head(m=12, r=4, dv=3, seed=0):
    torch.manual_seed(seed)
    return (Elu1(m, r), Elu1(m, r), torch.nn.Linear(m, dv, dtype=torch.float64),
            torch.nn.Linear(m, dv + 1, dtype=torch.float64))


def test_family_tensors_are_the_family():
    ft = ct.family_tensors(SMALL)
    fam = load_family(SMALL)
    assert ft.tokens.dtype == torch.float64 and ft.tokens.shape == (len(ft.token_bits), fam.m)
    assert ft.inputs.shape[0] == len(fam.inputs) == ft.targets.shape[0] and ft.certified_bound == 3
    for i, X in enumerate(fam.inputs):  # tokens back from the tensors, and the Min-IP target from them
        toks = ft.tokens[ft.inputs[i][ft.mask[i] > 0]]
        bits = ["".join(str(int(b)) for b in row) for row in toks.tolist()]
        assert [int(s[::-1], 2) for s in bits] == list(X.tokens)
        q = toks[int(ft.query_position[i])]
        others = [j for j in range(len(X.tokens)) if j != X.query]
        assert ft.targets[i] == min(float((q * toks[j]).sum()) for j in others)
        assert torch.equal(ft.tokens[ft.query[i]], q)


def test_a_streamed_family_lists_its_tokens_not_its_inputs():
    """golay24's 13,268,976 inputs are streamed (its example above); forced here on m12, the same tokens."""
    m12 = str(ROOT / "docs" / "results" / "m12.cert.json")
    streamed, explicit = ct.family_tensors(load_family(m12, stream=True)), ct.family_tensors(m12)
    assert streamed.inputs is None and explicit.inputs is not None
    assert sorted(streamed.token_bits) == sorted(explicit.token_bits)


# --------------------------------------------------------------------------- check and export


def test_check_is_check_kernel_on_the_exported_table(tmp_path):
    pq, pk, v, ro = _head()
    fam = load_family(SMALL)
    rep = ct.check(pq, pk, values=v, readout=ro, family=fam)
    ct.export(str(tmp_path / "t.npz"), pq, pk, values=v, readout=ro, family=fam)
    assert rep.to_json() == check_kernel(load_table(str(tmp_path / "t.npz")), fam).to_json()


def test_readout_as_a_pair_or_as_one_tensor_gives_the_same_report():
    pq, pk, v, ro = _head()
    a = ct.check(pq, pk, values=v, readout=ro, family=SMALL).to_json()
    b = ct.check(pq, pk, values=v, readout=lambda x: (ro(x)[:, 0], ro(x)[:, 1:]), family=SMALL).to_json()
    assert a == b


def test_low_precision_outputs_are_cast_up_exactly():
    pq, pk, _, _ = _head()
    half = lambda f: (lambda x: f(x).to(torch.bfloat16))  # noqa: E731
    a = ct.check(half(pq), half(pk), family=SMALL)
    b = ct.check(lambda x: pq(x).to(torch.bfloat16).to(torch.float64),
                 lambda x: pk(x).to(torch.bfloat16).to(torch.float64), family=SMALL)
    assert a.to_json() == b.to_json()


def test_delta_is_passed_to_the_check_exactly():
    pq, pk, v, ro = _head()
    rep = ct.check(pq, pk, values=v, readout=ro, family=SMALL, delta=1e-6)
    assert rep.table["delta"] == str(Fraction(1e-6))


def test_bad_outputs_are_refused_naming_them():
    pq, pk, _, _ = _head()
    with pytest.raises(ValueError, match=r"phi_k\[0, 1\] is nan"):
        ct.check(pq, lambda x: pk(x).index_fill(1, torch.tensor([1]), float("nan")), family=SMALL)
    with pytest.raises(ValueError, match="phi_q has width 4, phi_k 3"):
        ct.check(pq, lambda x: pk(x)[:, :3], family=SMALL)
    with pytest.raises(ValueError, match="values and readout come together"):
        ct.check(pq, pk, values=lambda x: x, family=SMALL)


def test_a_signed_feature_map_with_negative_alpha_is_refused_like_a_table():
    from certify.kernels.table import TableFormatError

    torch.manual_seed(1)
    lin_q, lin_k = torch.nn.Linear(12, 3, dtype=torch.float64), torch.nn.Linear(12, 3, dtype=torch.float64)
    with pytest.raises(TableFormatError, match="< 0 on a pair used by"):
        ct.check(lin_q, lin_k, family=SMALL)


# --------------------------------------------------------------------------- tokenwise


def test_a_tokenwise_map_is_reported_tokenwise_and_a_sequence_stabilizer_is_recognised_against_its_reference():
    """A key stabilizer (the sequence's maximum subtracted in the exponent) against the map on single tokens (each
    rescaled by its own maximum) is a factor per sequence times one per token: recognised, NOT harmless as it is;
    against the map without the stabilizer (reference=) it is one factor per sequence: harmless (issue 45)."""
    pq, _, _, _ = _head()
    assert ct.verify_tokenwise(pq, SMALL).tokenwise
    stab = lambda x: torch.exp(pq(x) - pq(x).amax(dim=(-2, -1), keepdim=True))  # noqa: E731
    rep = ct.verify_tokenwise(stab, SMALL)
    assert not rep.tokenwise and rep.max_difference > 1e-6 and rep.verdict == "stabilizer" and not rep.harmless
    assert "NOT a verdict on the module" in rep.text() and "reference=" in rep.text()
    lo, hi = rep.token_range
    assert 0 < lo < hi == 1 and rep.stabilizer_residual <= rep.rtol
    fam = load_family(SMALL)
    assert 0 <= rep.input_index < len(fam.inputs) and 0 <= rep.position < len(fam.inputs[rep.input_index].tokens)
    plain = lambda x: torch.exp(pq(x))  # noqa: E731
    rep = ct.verify_tokenwise(stab, SMALL, reference=plain)
    assert rep.verdict == "per-sequence scale" and rep.harmless and rep.text().startswith("harmless: a per-sequence factor (")
    assert rep.reference and rep.scale_range[1] <= 1
    # a map that depends on the sequence otherwise (a softmax over positions) is neither
    soft = lambda x: torch.softmax(pq(x), dim=-2)  # noqa: E731
    rep = ct.verify_tokenwise(soft, SMALL)
    assert rep.verdict == "not tokenwise" and "NOT tokenwise" in rep.text()


# --------------------------------------------------------------------------- fit


def test_fit_lowers_the_loss_and_is_deterministic():
    losses = []
    for _ in range(2):
        pq, pk, v, ro = _head(seed=3)
        with torch.no_grad():
            before = float(((predict_tensors(pq, pk, v, ro, *_tensors()) - ct.family_tensors(SMALL).targets) ** 2).mean())
        losses.append(ct.fit(pq, pk, v, ro, family=SMALL, steps=60, lr=0.05, seed=3))
    assert losses[0] == losses[1] and losses[0] < before


def _tensors():
    ft = ct.family_tensors(SMALL)
    return ft.tokens, ft.inputs.clamp(min=0), ft.mask, ft.query, 0.0


# --------------------------------------------------------------------------- certify train --feature-map


def _train(*args, cwd=None):  # in this process: torch's import is most of a short run's cost
    return run_cli_here("train", "--family", SMALL, "--seeds", "0", "--steps", "30", *args, env=_ENV, cwd=cwd)


def test_train_elu1_from_the_command_line_checks_every_table_exactly(tmp_path):
    proc = _train("--feature-map", "elu1", "--ranks", "2,8", "--out", str(tmp_path), "--json")
    assert proc.returncode == 0, proc.stderr
    import json

    doc = json.loads(proc.stdout)
    assert doc["config"]["feature_map"] == "elu1" and len(doc["runs"]) == 2
    for run in doc["runs"]:  # re-check each exported table independently of the run
        rep = check_kernel(load_table(run["table"]), load_family(SMALL))
        assert rep.solves == run["solves"] and rep.kernel_rank == run["kernel_rank"] <= run["rank"]
        assert not (run["rank"] < 3 and run["solves"])  # the certified bound r ≥ 3


@pytest.mark.parametrize("fmap", ["elu1", "exp", "relu", "favor"])
def test_every_built_in_feature_map_is_a_positive_function_of_the_bits(fmap):
    from certify import training as T

    fam = load_family(SMALL)
    arrays = T.family_arrays(fam)
    head = T.train_head(arrays, 4, 0, 5, "0.05", fmap, fam.m)
    assert head["phi_q"].shape == (len(arrays["tokens"]), 4) and (head["phi_q"] > 0).all() and (head["phi_k"] > 0).all()
    again = T.train_head(arrays, 4, 0, 5, "0.05", fmap, fam.m)
    assert np.array_equal(head["phi_q"], again["phi_q"])  # seeded: the same bits
    pq, _ = T.feature_maps(fmap, fam.m, 4, 0)
    X = torch.tensor([[float(z >> k & 1) for k in range(fam.m)] for z in arrays["tokens"]], dtype=torch.float64)
    with torch.no_grad():  # a function of the bits: equal tokens, equal features, whatever the batch
        assert torch.allclose(pq(X)[:1], pq(X[:1]), rtol=1e-12, atol=0)


def test_train_with_a_user_factory(tmp_path):
    (tmp_path / "mymaps.py").write_text(
        "import torch\n"
        "def make(m, r, seed):\n"
        "    a, b = torch.nn.Linear(m, r, dtype=torch.float64), torch.nn.Linear(m, r, dtype=torch.float64)\n"
        "    return torch.nn.Sequential(a, torch.nn.Softplus()), torch.nn.Sequential(b, torch.nn.Softplus())\n"
        "def wrong(m, r, seed):\n"
        "    return (lambda x: x), (lambda x: x)\n")
    ok = _train("--feature-map", "mymaps:make", "--ranks", "4", "--out", str(tmp_path / "o"), cwd=str(tmp_path))
    assert ok.returncode == 0, ok.stderr
    assert "φ_Q, φ_K from the factory mymaps:make" in ok.stdout
    from certify import training as T

    fam = load_family(SMALL)
    os.chdir(tmp_path)  # as the command line imports it: from the current directory
    try:
        with pytest.raises(T.TrainingInputError, match=r"phi_q returned torch.Size\(\[8, 12\]\); expected a tensor"):
            T.train_head(T.family_arrays(fam), 4, 0, 1, "0.05", "mymaps:wrong", fam.m)
        with pytest.raises(T.TrainingInputError, match="ModuleNotFoundError"):
            T.feature_maps("nosuchmodule:make", fam.m, 4, 0)
    finally:
        os.chdir(ROOT)


def test_train_records_a_diverged_run_and_goes_on(tmp_path):
    """Issue 29, defect 1, for certify train: a factory whose features overflow makes every trained entry inf/NaN.
    Was exit 2 (the exported table refused); now the runs are diverged, without tables, not solving, exit 0."""
    (tmp_path / "blowup.py").write_text(
        "import torch\n"
        "def make(m, r, seed):\n"
        "    a, b = torch.nn.Linear(m, r, dtype=torch.float64), torch.nn.Linear(m, r, dtype=torch.float64)\n"
        "    with torch.no_grad():\n"
        "        a.weight.fill_(1e300); b.weight.fill_(1e300)\n"
        "    return torch.nn.Sequential(a, torch.nn.Softplus()), torch.nn.Sequential(b, torch.nn.Softplus())\n")
    proc = _train("--feature-map", "blowup:make", "--ranks", "4", "--seeds", "0,1", "--out", str(tmp_path / "o"),
                  "--json", "--plot", str(tmp_path / "p.png"), cwd=str(tmp_path))
    assert proc.returncode == 0, proc.stderr
    import json

    doc = json.loads(proc.stdout)
    assert [r["diverged"] is not None for r in doc["runs"]] == [True, True]
    assert all(r["table"] is None and r["solves"] is False and r["max_error"] is None for r in doc["runs"])
    assert doc["summary"] == [{"rank": 4, "seeds": [0, 1], "mean_max_error": None, "mean_max_error_decimal": None,
                               "solving": 0, "runs": 2, "readout_exists": 0, "diverged": 2}]
    assert not list((tmp_path / "o").glob("*.npz")) and (tmp_path / "p.png").stat().st_size > 0
    from certify import training as T
    from certify.training.report import render_text

    fam = load_family(SMALL)
    runs = [T.RunResult(4, s, "", float("nan"), float("nan"), 0.5, None, diverged=r["diverged"])
            for s, r in zip((0, 1), doc["runs"])]
    text = "\n".join(render_text(fam, T.TrainConfig(ranks=(4,), seeds=(0, 1)), runs, T.construction_report(fam), "o"))
    assert "no (diverged: no table)" in text and "  diverged     2 of 2 runs" in text and doc["runs"][0]["diverged"] in text


def test_train_refuses_a_feature_map_that_is_no_name():
    proc = _train("--feature-map", "not a name", "--ranks", "4")
    assert proc.returncode == 2 and "--feature-map" in proc.stderr


def test_to_numpy_helper_keeps_float64_bits():
    x = torch.tensor([[0.1, 1e-300]], dtype=torch.float64)
    assert np.array_equal(as_array(x, "x", 1, 2), x.numpy())


# --------------------------------------------------------------------------- an optional library (skipped without it)


def test_performer_pytorch_favor_plus_keys_are_not_tokenwise_and_its_queries_are():
    """performer-pytorch installs on CPU; its FAVOR+ stabilizer is a max over the sequence for keys, per token for queries."""
    pp = pytest.importorskip("performer_pytorch.performer_pytorch")
    torch.manual_seed(0)
    proj = pp.gaussian_orthogonal_random_matrix(16, 12).to(torch.float64)

    def fm(is_query):  # (B, L, m) → (B, L, r), as the library applies it to (batch, heads, seq, dim)
        return lambda s: pp.softmax_kernel(s[:, None].to(torch.float64), projection_matrix=proj, is_query=is_query)[:, 0]

    assert ct.verify_tokenwise(fm(True), SMALL).tokenwise
    assert not ct.verify_tokenwise(fm(False), SMALL).tokenwise
    each = lambda q: (lambda x: fm(q)(x[:, None, :])[:, 0])  # noqa: E731  (each token its own sequence)
    rep = ct.check(each(True), each(False), family=SMALL)  # the tables of its maps, checked exactly
    assert rep.readout_exists in (True, False) and rep.kernel_rank <= 16
