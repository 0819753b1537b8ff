"""Train a head given as PyTorch modules on a family: :func:`fit` (``certify.torch``; docs/torch.md).

For experiments and the worked examples; the head trained is the one ``certify.torch.check``
checks (docs/math.md §2).
"""
from __future__ import annotations

from typing import Any

from .torch_tensors import MAX_TENSOR_INPUTS, _torch, family_tensors


def fit(phi_q: Any, phi_k: Any, values: Any, readout: Any, *, family: Any = "rank-nine", steps: int = 500,
        lr: float = 0.01, delta: float = 0.0, seed: int = 0) -> float:
    """Train the four modules on a family's inputs (full batch, Adam, mean squared error); return the final loss.

    The head is the one :func:`check` checks: ``α = ⟨phi_q(x), phi_k(z)⟩``,
    ``t̂ = β(x) + ⟨w(x), Σ_j α v(x_j) / (Σ_j α + δ)⟩``. float64, one thread, seeded: the
    same seed and modules give the same parameters. The modules are trained in place.
    """
    torch = _torch()
    ft = family_tensors(family)
    if ft.inputs is None:
        raise ValueError(f"{ft.family.source}: more than {MAX_TENSOR_INPUTS:,} inputs; train on a smaller family")
    torch.manual_seed(seed)
    threads = torch.get_num_threads()
    torch.set_num_threads(1)
    try:
        params = [p for mod in (phi_q, phi_k, values, readout) for p in mod.parameters()]
        opt = torch.optim.Adam(params, lr=lr)
        X, idx, mask, q, target = ft.tokens, ft.inputs.clamp(min=0), ft.mask, ft.query, ft.targets
        loss = None
        for _ in range(steps):
            loss = ((_predict(phi_q, phi_k, values, readout, X, idx, mask, q, delta) - target) ** 2).mean()
            opt.zero_grad()
            loss.backward()
            opt.step()
        with torch.no_grad():
            return float(((_predict(phi_q, phi_k, values, readout, X, idx, mask, q, delta) - target) ** 2).mean())
    finally:
        torch.set_num_threads(threads)


def _predict(phi_q, phi_k, values, readout, X, idx, mask, q, delta):
    fq, fk, v = phi_q(X), phi_k(X), values(X)
    r = readout(X)
    beta, w = (r[0].reshape(-1), r[1]) if isinstance(r, (tuple, list)) else (r[:, 0], r[:, 1:])
    alpha = (fq[q][:, None, :] * fk[idx]).sum(-1) * mask
    head = (alpha[:, :, None] * v[idx]).sum(1) / (alpha.sum(1) + delta)[:, None]
    return beta[q] + (w[q] * head).sum(1)
