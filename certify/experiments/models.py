"""The models of §6.2 and §6.3, their training, and their export as kernel tables (PyTorch; optional).

A model has ``H`` heads and sees a sequence of ``n`` tokens ``x ∈ {0,1}^m`` (no positions);
``x̃ = (x, 1)`` appends a constant coordinate, so every map below is affine in ``x``
(docs/experiments.md, "The models"):

* positive features ``φ_Q(x) = softplus(W_Q x̃)``, ``φ_K(x) = softplus(W_K x̃)`` of width
  ``R``, split into ``H`` heads of ``R/H`` columns: ``α_h(x, z) = ⟨φ_Q,h(x), φ_K,h(z)⟩ > 0``
  (``--feature-map``: ``elu(u) + 1``, ``exp(u)``, ``relu(u) + 2⁻¹⁰`` of ``u = W x̃`` instead, or
  FAVOR+ ``exp(Ω u − |u|²/2)/√R`` with ``u = W x̃`` of width ``m + 1`` and ``Ω`` (``R × (m + 1)``,
  ``N(0, 1)``) fixed by the run's seed: :data:`certify.training.FEATURE_MAPS`);
  the *dense* reference has one head with ``α(x, z) = exp(⟨W_Q x̃, W_K x̃⟩)`` (softmax);
* values ``v(z) = W_V z̃`` of width ``D`` (``d_v``), split into ``H`` heads of ``D/H``;
* the head outputs ``o_h(x_i) = Σ_j α_h(x_i, x_j) v_h(x_j) / Σ_j α_h(x_i, x_j)`` and a
  query-dependent affine readout ``t̂_i = Σ_h ⟨a_h(x_i), o_h(x_i)⟩ + ⟨b, x̃_i⟩`` with
  ``a(x) = W_A x̃`` (``D`` wide, split like the values).

So ``g_h(x, z) = ⟨a_h(x), v_h(z)⟩`` is any bilinear-affine form of ``(x̃, z̃)`` once
``D/H ≥ m + 1`` — "the full affine value/readout class" of the paper. The exported
table holds exactly these float64 arrays on the split's tokens (``phi_q``, ``phi_k``,
``values = v``, ``w = a``, ``beta = ⟨b, x̃⟩``, ``heads``, ``value_heads``; the dense
reference as ``kernel``, ``exp`` of the scores less each query's largest score, which
leaves every normalized prediction unchanged), and its exact evaluation
(:func:`certify.kernels.predict.exact_predictions`) is the model's prediction computed
without rounding.

Parameters are drawn once, for ``H = 1``, from the run's seed (PyTorch's ``Linear``
initialization, float64) and cut into heads: models with ``H = 1, 2, 4`` at one budget
``R`` have the same parameter count, the same initial values and — the minibatches are
drawn from a generator seeded by the run's seed alone — the same minibatch order.
"""
from __future__ import annotations

import random
from dataclasses import dataclass
from typing import Any

__all__ = ["MAPS", "TrainSpec", "train_model", "export_arrays"]


@dataclass(frozen=True)
class TrainSpec:
    """One run: the model (``rank`` ``R``, ``heads`` ``H``, ``dense``), the optimizer and the checkpoints."""

    rank: int
    heads: int
    dense: bool
    seed: int
    steps: int
    batch: int = 64
    lr: str = "0.01"
    value_dim: int = 16
    eval_every: int = 50
    feature_map: str = "softplus"  # MAPS: the positive map applied to W x̃ (the dense reference ignores it)


#: The positive feature maps of ``--feature-map`` (names of :data:`certify.training.FEATURE_MAPS`).
MAPS = ("softplus", "elu1", "exp", "relu", "favor")


def _torch():
    from ..training import import_torch as get

    return get()


def _tensor_tokens(tokens: list[int], m: int):
    torch = _torch()
    X = torch.tensor([[float(z >> k & 1) for k in range(m)] for z in tokens], dtype=torch.float64)
    return torch.cat([X, torch.ones(len(tokens), 1, dtype=torch.float64)], dim=1)


class _Params:
    """The parameters of a run, drawn for one head and cut into ``H`` heads (module docstring)."""

    def __init__(self, spec: TrainSpec, m: int) -> None:
        torch = _torch()
        k = m + 1
        favor = spec.feature_map == "favor" and not spec.dense
        width = (m + 1) if spec.dense or favor else spec.rank
        lin = lambda out: torch.nn.Linear(k, out, bias=False, dtype=torch.float64).weight  # noqa: E731
        self.WQ, self.WK = lin(width), lin(width)
        self.WV, self.WA = lin(spec.value_dim), lin(spec.value_dim)
        self.b = lin(1)
        self.spec = spec
        self.omega = None
        if favor:  # fixed random features Ω, from their own generator seeded by the run's seed (not trained)
            gen = torch.Generator().manual_seed(spec.seed)
            self.omega = torch.randn(spec.rank, k, generator=gen, dtype=torch.float64)

    def list(self):
        return [self.WQ, self.WK, self.WV, self.WA, self.b]

    def features(self, Xt):
        """``(φ_Q, φ_K)`` rows of the tokens ``Xt`` (``x̃``); dense: the query and key projections."""
        if self.spec.dense:
            return Xt @ self.WQ.T, Xt @ self.WK.T
        return self._map(Xt @ self.WQ.T), self._map(Xt @ self.WK.T)

    def _map(self, u):
        from ..training import positive_map

        return positive_map(self.spec.feature_map, u, self.omega, self.spec.rank)

    def predict(self, idx, qmask, table_tokens):
        """Predictions ``(B, n)`` for token-index sequences ``idx`` (only query positions are used)."""
        torch = _torch()
        Xb = table_tokens[idx]  # (B, n, m + 1): a constant, so the gradients flow through matrix products only
        q, k = self.features(Xb)
        v, a = Xb @ self.WV.T, Xb @ self.WA.T
        H = 1 if self.spec.dense else self.spec.heads
        out = (Xb @ self.b.T)[..., 0]
        r, d = q.shape[-1] // H, v.shape[-1] // H
        for h in range(H):
            qs, ks = q[..., h * r:(h + 1) * r], k[..., h * r:(h + 1) * r]
            scores = qs @ ks.transpose(1, 2)
            att = torch.softmax(scores, dim=-1) if self.spec.dense else scores / scores.sum(-1, keepdim=True)
            o = att @ v[..., h * d:(h + 1) * d]
            out = out + (a[..., h * d:(h + 1) * d] * o).sum(-1)
        return out


def _arrays(parts: dict[str, list], tokens: list[int], m: int):
    """Token-index tensors, query masks and targets of each part."""
    import numpy as np

    from .tasks import is_query_token

    torch = _torch()
    pos = {z: i for i, z in enumerate(tokens)}
    out = {}
    for name, (seqs, targets) in parts.items():
        idx = np.array([[pos[z] for z in s] for s in seqs], dtype=np.int64)
        qmask = np.array([[float(is_query_token(z)) for z in s] for s in seqs])
        tgt = np.array(targets, dtype=np.float64)
        out[name] = (torch.from_numpy(idx), torch.from_numpy(qmask), torch.from_numpy(tgt))
    return out


def _scores(params: _Params, data, Xt):
    """Float (MSE on query positions, exact-sequence accuracy, per-sequence max error) of one part."""
    torch = _torch()
    idx, qmask, tgt = data
    with torch.no_grad():
        pred = params.predict(idx, qmask, Xt)
        err = (pred - tgt).abs() * qmask
        mse = float(((pred - tgt) ** 2 * qmask).sum() / qmask.sum())
        worst = err.max(dim=1).values
        acc = float((worst < 0.5).double().mean())
    return mse, acc, pred


def train_model(spec: TrainSpec, tokens: list[int], m: int, parts: dict[str, tuple[list, list]]) -> dict[str, Any]:
    """Train one model; return its exported arrays, the selected step and float figures.

    ``parts``: ``{"train": (sequences, targets), "val": …, "test": …}`` with targets as
    ``(B, n)`` lists (0 at non-query positions, ignored). Adam, mean squared error on the
    query positions, minibatches of ``spec.batch`` sequences drawn without replacement
    (reshuffled each epoch) by a generator seeded with ``spec.seed``. Every
    ``spec.eval_every`` steps and at the end the validation set is scored and the
    checkpoint with the best validation exact-sequence accuracy (ties: the lower
    validation loss, then the earlier step) is kept; only validation is looked at.
    Deterministic: the seeds, ``torch.use_deterministic_algorithms(True)`` and one thread.
    """
    import numpy as np

    torch = _torch()
    random.seed(spec.seed)
    np.random.seed(spec.seed % 2**32)
    torch.manual_seed(spec.seed)
    torch.use_deterministic_algorithms(True)
    threads = torch.get_num_threads()
    torch.set_num_threads(1)
    try:
        params = _Params(spec, m)
        Xt = _tensor_tokens(tokens, m)
        data = _arrays(parts, tokens, m)
        opt = torch.optim.Adam(params.list(), lr=float(spec.lr))
        gen = torch.Generator().manual_seed(spec.seed)
        idx, qmask, tgt = data["train"]
        S = idx.shape[0]
        order, at = torch.randperm(S, generator=gen), 0
        best = None

        def consider(step: int):
            nonlocal best
            mse, acc, _ = _scores(params, data["val"], Xt)
            key = (acc, -mse)
            if best is None or key > best[0]:
                best = (key, step, [p.detach().clone() for p in params.list()])

        for step in range(1, spec.steps + 1):
            if at + spec.batch > S:
                order, at = torch.randperm(S, generator=gen), 0
            b = order[at:at + spec.batch]
            at += spec.batch
            pred = params.predict(idx[b], qmask[b], Xt)
            loss = (((pred - tgt[b]) ** 2) * qmask[b]).sum() / qmask[b].sum()
            opt.zero_grad()
            loss.backward()
            opt.step()
            if step % spec.eval_every == 0 or step == spec.steps:
                consider(step)
        with torch.no_grad():
            for p, saved in zip(params.list(), best[2]):
                p.copy_(saved)
        figures = {}
        for name in data:
            mse, acc, pred = _scores(params, data[name], Xt)
            figures[name] = {"loss": mse, "accuracy": acc, "predictions": pred.numpy()}
        return {"arrays": export_arrays(params, Xt), "step": best[1], "float": figures}
    finally:
        torch.set_num_threads(threads)


def export_arrays(params: _Params, Xt) -> dict[str, Any]:
    """The kernel table's arrays (module docstring): float64, as the model computes them."""
    import numpy as np

    torch = _torch()
    spec = params.spec
    with torch.no_grad():
        fq, fk = params.features(Xt)
        out = {"values": (Xt @ params.WV.T).numpy().copy(), "w": (Xt @ params.WA.T).numpy().copy(),
               "beta": (Xt @ params.b.T)[:, 0].numpy().copy()}
        if spec.dense:
            scores = fq @ fk.T
            out["kernel"] = torch.exp(scores - scores.max(dim=1, keepdim=True).values).numpy().copy()
        else:
            out["phi_q"], out["phi_k"] = fq.numpy().copy(), fk.numpy().copy()
            if spec.heads > 1:
                out["heads"] = np.array([spec.rank // spec.heads] * spec.heads, dtype=np.int64)
                out["value_heads"] = np.array([spec.value_dim // spec.heads] * spec.heads, dtype=np.int64)
    return out

