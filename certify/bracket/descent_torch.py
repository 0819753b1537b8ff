"""The same search as :func:`certify.bracket.descent.descend`, on PyTorch (``certify bracket --device cpu|cuda``).

Optional (the extra ``torch``): nothing in ``certify`` needs it. The loss, its gradient, Adam
and the step schedule are those of :mod:`certify.bracket.descent`, line for line, in
float64; the seeded random start is made by numpy exactly as there and then moved to the
device, so a run differs from the numpy one only in the last bits of its sums (another
library's reductions). On a GPU an iteration on golay24's 2,576 × 2,576 reduced matrix is a
few milliseconds instead of about 0.35 s. Floats only propose here too: the factors come
back as numpy arrays and go to the same exact check (:mod:`certify.bracket.lift`).
"""
from __future__ import annotations

import numpy as np

from .descent import FLOOR, NEAR, TOLERANCE, Constraints, random_start, step_size
from .reduced import ETA

__all__ = ["TorchUnavailable", "descend_torch", "torch_device"]


class TorchUnavailable(RuntimeError):
    """PyTorch is not installed, or the requested device is not there."""


def torch_device(name: str):
    """The ``torch.device`` for ``name`` (``cpu`` or ``cuda``); :class:`TorchUnavailable` says why not."""
    try:
        import torch
    except ImportError:
        raise TorchUnavailable("--device cpu|cuda needs PyTorch: pip install torch==2.13.0 (README, extras)") from None
    if name == "cuda" and not torch.cuda.is_available():
        raise TorchUnavailable("--device cuda: torch sees no GPU on this machine")
    return torch.device(name)


class _Dense:
    """The :class:`Constraints` arrays on the device."""

    def __init__(self, con: Constraints, device) -> None:
        import torch

        t = lambda a, dt=torch.float64: torch.as_tensor(np.ascontiguousarray(a), dtype=dt, device=device)  # noqa: E731
        self.shape = con.shape
        self.used = t(con.used)
        self.cpa, self.jump, self.cz, self.ca = t(con.cpa), t(con.jump), t(con.cz), t(con.ca)
        jm = con.jump.ravel()
        self.jm = torch.as_tensor(np.flatnonzero(jm), device=device)
        self.parent = torch.as_tensor(con.parent.ravel()[jm], device=device)
        self.pfull = torch.as_tensor(con.parent, device=device)
        has_a = con.own >= 0
        self.has_a = t(has_a)
        self.rows = torch.arange(con.shape[0], device=device)
        self.own = torch.as_tensor(np.maximum(con.own, 0), device=device)
        self.a_rows = torch.as_tensor(np.flatnonzero(has_a), device=device)
        self.a_cols = torch.as_tensor(con.own[has_a], device=device)
        self.root = torch.as_tensor(con.root, device=device)


def _violations(d: _Dense, A, kappa: float, floor: float, scale: bool = True):
    """:func:`certify.bracket.descent.violations` on the device: ``(loss, gradient)``."""
    import torch

    eta = float(ETA)
    a = (A[d.rows, d.own] * d.has_a)[:, None]
    y = A.reshape(-1)[d.pfull.reshape(-1)].reshape(A.shape)
    h = torch.clamp((1 - eta) * y - kappa * (d.ca * a + d.cz * A), max=0.0) * d.jump
    f = torch.clamp(A - floor * d.used, max=0.0)
    e = torch.clamp(2 * (1 - eta) * A - kappa * d.cpa * a, max=0.0) * d.used
    s = torch.clamp(A[d.rows, d.root] - 1.0, max=0.0) if scale else torch.zeros(A.shape[0], dtype=A.dtype,
                                                                                   device=A.device)
    loss = float((h * h).sum() + (f * f).sum() + (e * e).sum() + (s * s).sum())
    G = (-2 * kappa) * d.cz * h + 2 * f + (4 * (1 - eta)) * e
    G = G.reshape(-1)
    G.index_add_(0, d.parent, (2 * (1 - eta)) * h.reshape(-1)[d.jm])
    G = G.reshape(A.shape)
    ga = (-2 * kappa) * ((d.ca * h).sum(dim=1) + (d.cpa * e).sum(dim=1))
    G.index_put_((d.a_rows, d.a_cols), ga[d.a_rows], accumulate=True)
    G.index_put_((d.rows, d.root), 2 * s, accumulate=True)
    return loss, G


def descend_torch(con: Constraints, r: int, seed: int, iterations: int, *, start=None, kappa: float = 1.02,
                  floor: float = FLOOR, lr: float = 3e-3, lr_end: float | None = None, tolerance: float = TOLERANCE,
                  progress=None, device: str = "cpu"):
    """:func:`certify.bracket.descent.descend` on ``device``; ``(P, Q, iterations used, final loss)`` as numpy arrays."""
    import torch

    dev = torch_device(device)
    d = _Dense(con, dev)
    P0, Q0 = (np.array(a, dtype=float) for a in start) if start is not None else random_start(con, r, seed)
    P = torch.as_tensor(P0, dtype=torch.float64, device=dev)
    Q = torch.as_tensor(Q0, dtype=torch.float64, device=dev)
    moments = [torch.zeros_like(P), torch.zeros_like(P), torch.zeros_like(Q), torch.zeros_like(Q)]
    loss = float("inf")
    out = lambda it, l: (P.cpu().numpy(), Q.cpu().numpy(), it, l)  # noqa: E731
    for it in range(1, iterations + 1):
        A = P @ Q.T
        loss, G = _violations(d, A, kappa, floor)
        if loss < tolerance:
            return out(it, loss)
        if loss < NEAR and it % 100 == 0 and _violations(d, A, 1.0, floor / 2, scale=False)[0] == 0.0:
            return out(it, 0.0)
        if progress is not None:
            progress(it, loss)
        step = step_size(lr, lr_end, it, iterations)
        for j, (X, g) in enumerate(((P, G @ Q), (Q, G.T @ P))):
            m, v = moments[2 * j], moments[2 * j + 1]
            m.mul_(0.9).add_(0.1 * g)
            v.mul_(0.999).add_(0.001 * g * g)
            X.sub_(step * (m / (1 - 0.9**it)) / (torch.sqrt(v / (1 - 0.999**it)) + 1e-15))
    return out(iterations, loss)
