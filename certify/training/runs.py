"""Train one-head positive-feature models on a witness family and check each table exactly (§6.1).

For each feature rank ``r`` and seed: train the model class of §6.1 on the family's inputs
with their Min-IP targets, export the trained head as a kernel table
(docs/kernel-table-format.md), and give it to the same exact check as ``certify
check-kernel`` (:func:`certify.kernels.audit.check_kernel`). The model, the training and
its determinism: :mod:`certify.training`.
"""
from __future__ import annotations

import math
import os
import platform
import random
import time
from dataclasses import dataclass, field
from fractions import Fraction
from typing import Any, Callable

from ..check import format_rational
from ..kernels.audit import FamilySpec, KernelReport, check_kernel
from ..kernels.table import load_table
from .diverged import finite_or_none, first_nonfinite
from .maps import feature_maps
from .options import TrainConfig, TrainingInputError, import_torch

__all__ = ["MAX_TOKENS", "FLOAT_AGREEMENT", "MAX_STEP_ENTRIES", "RunResult", "check_training_size", "family_arrays", "train_head", "export_table", "construction_report", "run_experiment", "environment"]

#: The one-hot readout has N² parameters (with Adam's state, 32 bytes each): at most
#: 5,000 distinct tokens keeps one run under 1 GiB.
MAX_TOKENS = 5000


#: Largest |float prediction − exact prediction| the float64 model may show on a table it
#: exported (docs/experiments.md): three-term normalized sums lose far less than this.
FLOAT_AGREEMENT = 1e-9


@dataclass
class RunResult:
    """One trained head: its float training figures and the exact verdict on its exported table.

    A diverged run (``certify.training.diverged``: a trained entry is not finite) has no table,
    no ``report`` and ``diverged`` set to its first non-finite entry; it does not solve.
    """

    rank: int
    seed: int
    table: str
    loss: float
    float_max_error: float
    seconds: float
    report: KernelReport | None
    float_predictions: list[float] = field(default_factory=list, repr=False)
    diverged: str | None = None

    @property
    def solves(self) -> bool:
        return self.report is not None and bool(self.report.solves)

    def to_json(self) -> dict[str, Any]:
        r = self.report
        out = {"rank": self.rank, "seed": self.seed, "table": self.table or None, "train_seconds": round(self.seconds, 3),
               "loss": finite_or_none(self.loss), "float_max_error": finite_or_none(self.float_max_error),
               "diverged": self.diverged}
        if r is None:
            return dict(out, solves=False, max_error=None, failing_inputs=None, jump_violations=None, kernel_rank=None,
                        certificate_matrix_rank=None, readout_exists=None)
        return dict(out, solves=r.solves,
                    max_error={"exact": format_rational(r.max_error), "decimal": f"{float(r.max_error):.6g}"},
                    failing_inputs=len(r.failing_inputs), jump_violations=len(r.jump_violations),
                    kernel_rank=r.kernel_rank, certificate_matrix_rank=r.certificate_matrix_rank,
                    readout_exists=r.readout_exists)


#: One full-batch step holds a few tensors of ``inputs × length × r`` float64 entries (the gathered
#: key features and their gradients): at most this many, ≈ 80 MB each, so that a run stays near 1 GiB.
MAX_STEP_ENTRIES = 10**7


def check_training_size(family: FamilySpec, config: TrainConfig) -> None:
    """Refuse (``TrainingInputError``, exit 2), before any training, a family whose full-batch step is too large.

    The size of a step is ``inputs × longest input × largest rank`` (:data:`MAX_STEP_ENTRIES`); the
    one-hot readout's ``N²`` is bounded by :data:`MAX_TOKENS` in :func:`family_arrays`. A 300,000-input
    family took 231 s and 941 MB for one step at r = 32 before this check.
    """
    B = family.input_count
    L = max((len(X.tokens) for X in family.inputs), default=0)
    r = max(config.ranks)
    if B * L * r > MAX_STEP_ENTRIES:
        raise TrainingInputError(
            f"one full-batch step on this family is {B:,} inputs × {L} tokens × rank {r} = {B * L * r:,} feature "
            f"entries; at most {MAX_STEP_ENTRIES:,} (train on a smaller family, or lower --ranks)")


def family_arrays(family: FamilySpec) -> dict[str, Any]:
    """The family as index arrays: table tokens (first-appearance order), token indices, queries, targets, mask.

    :class:`TrainingInputError` if the family has more than :data:`MAX_TOKENS` distinct tokens.
    """
    import numpy as np

    tokens: list[int] = []
    pos: dict[int, int] = {}
    for X in family.inputs:
        for z in X.tokens:
            if z not in pos:
                pos[z] = len(tokens)
                tokens.append(z)
    if len(tokens) > MAX_TOKENS:
        raise TrainingInputError(f"the family has {len(tokens):,} distinct tokens; training supports at most {MAX_TOKENS:,} "
                         "(the one-hot readout has N² parameters)")
    L = max(len(X.tokens) for X in family.inputs)
    idx = np.zeros((len(family.inputs), L), dtype=np.int64)
    mask = np.zeros((len(family.inputs), L), dtype=np.float64)
    for i, X in enumerate(family.inputs):
        idx[i, : len(X.tokens)] = [pos[z] for z in X.tokens]
        mask[i, : len(X.tokens)] = 1.0
    query = np.array([pos[X.tokens[X.query]] for X in family.inputs], dtype=np.int64)
    target = np.array([X.target for X in family.inputs], dtype=np.float64)
    return {"tokens": tokens, "idx": idx, "mask": mask, "query": query, "target": target}


def train_head(arrays: dict[str, Any], rank: int, seed: int, steps: int, lr: str = "0.05",
               feature_map: str = "softplus", m: int | None = None, delta: float = 0.0,
               dtype: str = "auto") -> dict[str, Any]:
    """Train one head (the module docstring's model and optimizer); return its float64 arrays and figures.

    Returns ``phi_q``, ``phi_k`` (``N × r``, after the positivity map), ``beta`` (``N``), ``w`` (``N × N``)
    as numpy float64 arrays, the final ``loss`` and ``float_max_error``, the float
    ``predictions`` of the trained model on every input and ``delta``. ``feature_map`` other than
    ``softplus``: :func:`feature_maps` on the tokens' ``m`` bits (the readout stays a table).
    ``delta``: the denominator constant, ``t̂ = (δ·β(x) + Σ_j α g) / (δ + Σ_j α)`` (docs/math.md §2).
    A loss that is not finite stops the run at once: ``diverged`` then says at which step
    and, when some input's denominator is 0 (a feature map that can vanish, ``δ = 0``), which.
    ``dtype`` (``--dtype``): ``"auto"`` gives each feature-map module the tokens in its own
    dtype (a plain callable float64); a dtype name casts the modules to it and gives plain
    callables the tokens in it. Their outputs are cast up to float64 (exact) for the rest.
    """
    import numpy as np

    torch = import_torch()
    random.seed(seed)
    np.random.seed(seed % 2**32)
    torch.manual_seed(seed)
    torch.use_deterministic_algorithms(True)
    threads = torch.get_num_threads()
    torch.set_num_threads(1)  # summation order, hence every bit, is fixed by one thread
    try:
        f64 = torch.float64
        N = len(arrays["tokens"])
        idx = torch.from_numpy(arrays["idx"])
        mask = torch.from_numpy(arrays["mask"])
        query = torch.from_numpy(arrays["query"])
        target = torch.from_numpy(arrays["target"])
        beta = torch.zeros(N, dtype=f64, requires_grad=True)
        w = torch.zeros(N, N, dtype=f64, requires_grad=True)
        if feature_map == "softplus":
            gen = torch.Generator().manual_seed(seed)
            theta_q = torch.randn(N, rank, generator=gen, dtype=f64).requires_grad_()
            theta_k = torch.randn(N, rank, generator=gen, dtype=f64).requires_grad_()
            softplus = torch.nn.functional.softplus
            features = lambda: (softplus(theta_q), softplus(theta_k))  # noqa: E731
            params = [theta_q, theta_k]
        else:
            X = torch.tensor([[float(z >> k & 1) for k in range(m)] for z in arrays["tokens"]], dtype=f64)
            phi_q, phi_k = feature_maps(feature_map, m, rank, seed)
            if dtype != "auto":
                for mod in (phi_q, phi_k):
                    if isinstance(mod, torch.nn.Module):
                        mod.to(getattr(torch, dtype))
            features = lambda: (_features(phi_q, X, rank, "phi_q", dtype),  # noqa: E731
                                _features(phi_k, X, rank, "phi_k", dtype))
            params = list(dict.fromkeys(p for mod in (phi_q, phi_k) for p in getattr(mod, "parameters", list)()))
        opt = torch.optim.Adam(params + [beta, w], lr=float(lr))

        def denominators():
            fq, fk = features()
            return torch.einsum("br,blr->bl", fq[query], fk[idx]) * mask

        def predict():
            alpha = denominators()
            g = beta[query][:, None] + w[query[:, None], idx]
            return ((alpha * g).sum(1) + delta * beta[query]) / (alpha.sum(1) + delta)

        diverged = None
        for step in range(steps):
            loss = ((predict() - target) ** 2).mean()
            if not math.isfinite(float(loss.detach())):
                diverged = _diverged_reason(float(loss.detach()), step, denominators, delta)
                break
            opt.zero_grad()
            loss.backward()
            opt.step()
        with torch.no_grad():
            pred = predict()
            final = float(((pred - target) ** 2).mean())
            if diverged is None and not math.isfinite(final):  # after the last step: the same report as in the loop
                diverged = _diverged_reason(final, steps, denominators, delta)
            err = (pred - target).abs()
            fq, fk = features()
            return {
                "phi_q": fq.numpy().copy(), "phi_k": fk.numpy().copy(),
                "beta": beta.detach().numpy().copy(), "w": w.detach().numpy().copy(),
                "loss": float(((pred - target) ** 2).mean()), "float_max_error": float(err.max()),
                "predictions": pred.numpy().tolist(), "delta": delta, "diverged": diverged,
            }
    finally:
        torch.set_num_threads(threads)


def _diverged_reason(loss: float, step: int, denominators: Callable, delta: float) -> str:
    """Why a run stopped: the loss, the step and, if there is one, the first input whose denominator is 0."""
    torch = import_torch()
    with torch.no_grad():
        den = denominators().sum(1) + delta
    zero = torch.nonzero(den == 0)
    if len(zero):
        return (f"loss {loss} at step {step}: family.inputs[{int(zero[0, 0])}] has denominator Σ_j α = 0 "
                f"({len(zero):,} such inputs); a feature map that can vanish needs --delta")
    return f"loss {loss} at step {step}"


def _features(fn, X, rank: int, name: str, dtype: str = "auto"):
    """``fn`` on the tokens ``X`` (float64): a module in the dtype and on the device of its first floating parameter or
    buffer, a plain callable in ``dtype`` (float64 for auto); the output as float64."""
    torch = import_torch()
    want = torch.float64 if dtype == "auto" else getattr(torch, dtype)
    device = X.device
    if isinstance(fn, torch.nn.Module):
        first = next((t for t in (*fn.parameters(), *fn.buffers()) if t.is_floating_point()), None)
        if first is not None:
            want, device = first.dtype, first.device
    try:
        out = fn(X.to(device=device, dtype=want))
    except Exception as exc:  # user code
        hint = ("; a plain callable gets float64 tokens: give --dtype (e.g. --dtype float32), or return "
                "torch.nn.Module s, which get the tokens in their own dtype"
                if "dtype" in str(exc) and not isinstance(fn, torch.nn.Module) else "")
        raise TrainingInputError(f"--feature-map: {name} failed: {type(exc).__name__}: {str(exc)[:200]}{hint}") from None
    if not isinstance(out, torch.Tensor) or tuple(out.shape) != (X.shape[0], rank):
        raise TrainingInputError(f"--feature-map: {name} returned {getattr(out, 'shape', type(out).__name__)}; "
                                 f"expected a tensor of shape ({X.shape[0]}, {rank})")
    return out.to(torch.float64)


def export_table(path: str, tokens: list[int], m: int, head: dict[str, Any], note: str = "") -> None:
    """Write a trained head as a kernel table (``.npz``, docs/kernel-table-format.md); floats are kept as they are."""
    import numpy as np

    from ..kernels.table import npz_bytes

    fields = {"tokens": np.array([format(z, f"0{m}b")[::-1] for z in tokens]), "phi_q": head["phi_q"],
              "phi_k": head["phi_k"], "beta": head["beta"], "w": head["w"]}
    if head.get("delta"):
        fields["delta"] = np.float64(head["delta"])
    data = npz_bytes(fields, compress=False)
    from ..outputs import write_atomic

    write_atomic(path, data)  # byte-for-byte the same for the same seed (members dated 1980-01-01)


def construction_report(family: FamilySpec) -> KernelReport:
    """The exact check of the dense-softmax construction (A.1; docs/math.md §8) on this family.

    ``φ_Q(x_i) = e_i`` over the family's ``t`` query tokens, ``φ_K(z)_i = b^{−⟨x_i, z⟩}`` with
    ``b = ⌈n/ε⌉`` (``n`` the longest input), and ``g_x(z) = ⟨x, z⟩``: a solution of rank
    ``t`` (15 on the rank-nine family), built with exact rationals and checked like any table.
    """
    import json
    import math

    from ..kernels.json_table import loads_json

    m, eps = family.m, family.error
    n = max(len(X.tokens) for X in family.inputs)
    b = math.ceil(Fraction(n) / eps)
    queries: list[int] = []
    tokens: list[int] = []
    for X in family.inputs:
        if X.tokens[X.query] not in queries:
            queries.append(X.tokens[X.query])
        for z in X.tokens:
            if z not in tokens:
                tokens.append(z)
    bits = lambda z: format(z, f"0{m}b")[::-1]  # noqa: E731
    doc = {
        "tokens": [bits(z) for z in tokens],
        "phi_q": [[int(z == x) for x in queries] for z in tokens],
        "phi_k": [[f"1/{b ** (x & z).bit_count()}" for x in queries] for z in tokens],
        "beta": [0] * len(tokens),
        "w": [[(x & z).bit_count() for z in tokens] for x in tokens],
    }
    return check_kernel(loads_json(json.dumps(doc)), family)


def run_experiment(family: FamilySpec, config: TrainConfig, out_dir: str,
                   on_run: Callable[[RunResult, int, int], None] | None = None) -> list[RunResult]:
    """Train every (rank, seed) of ``config``, export each table into ``out_dir`` and check it exactly.

    The exact check is :func:`certify.kernels.audit.check_kernel` on the table as read
    back from disk (``load_table``); when the trained readout does not solve the family
    the readout LP also runs (does *some* readout make this kernel solve it?).
    ``on_run(result, done, total)`` is called after each run (progress).

    Raises
    ------
    TrainingUnavailable
        PyTorch is not installed.
    KernelContradiction
        A table solves the family below the certified bound (a bug; exit 3).
    """
    import_torch()
    check_training_size(family, config)
    arrays = family_arrays(family)
    os.makedirs(out_dir, exist_ok=True)
    results: list[RunResult] = []
    total = len(config.ranks) * len(config.seeds)
    for rank in config.ranks:
        for seed in config.seeds:
            t0 = time.perf_counter()
            head = train_head(arrays, rank, seed, config.steps, config.lr, config.feature_map, family.m,
                              config.delta_float, config.dtype)
            seconds = time.perf_counter() - t0
            path = os.path.join(out_dir, f"rank{rank}_seed{seed}.npz")
            reason = head["diverged"] or first_nonfinite(head)
            if reason is not None:  # diverged: a result, recorded without a table (certify.training.diverged)
                if os.path.exists(path):
                    os.remove(path)  # an earlier run's table under this name would not be this run's
                res = RunResult(rank, seed, "", head["loss"], head["float_max_error"], seconds, None, diverged=reason)
            else:
                export_table(path, arrays["tokens"], family.m, head)
                table = load_table(path)
                report = check_kernel(table, family)
                if not report.solves:
                    report = check_kernel(table, family, search_readout=True)
                res = RunResult(rank, seed, path, head["loss"], head["float_max_error"], seconds, report,
                                head["predictions"])
            results.append(res)
            if on_run is not None:
                on_run(res, len(results), total)
    return results


def environment() -> dict[str, Any]:
    """Versions that determine the trained bits: Python, numpy, torch, platform."""
    import numpy as np

    torch = import_torch()
    return {"python": platform.python_version(), "numpy": np.__version__, "torch": torch.__version__,
            "machine": platform.machine(), "torch_threads": 1}
