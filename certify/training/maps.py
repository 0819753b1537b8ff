"""The positive feature maps of the trained heads (docs/experiments.md, "Feature maps").

:func:`positive_map` applies a built-in map (:data:`~certify.training.options.FEATURE_MAPS`)
to ``h = W x + b``; :func:`feature_maps` builds the pair ``(φ_Q, φ_K)`` of modules for a run,
seeded, shared by ``certify train`` and ``certify experiment``.
"""
from __future__ import annotations

import math
import os

from .options import FEATURE_MAPS, RELU_EPS, TrainingInputError, import_torch

__all__ = ["positive_map", "feature_maps"]

def positive_map(name: str, h, omega=None, rank: int | None = None):
    """The built-in map ``name`` of :data:`FEATURE_MAPS` applied to ``h = W x + b`` (a torch tensor, last axis the
    features); ``favor`` needs its fixed ``omega`` (``rank × width of h``) and ``rank``. Shared by ``certify train``
    and ``certify experiment --feature-map``."""
    torch = import_torch()
    if name == "softplus":
        return torch.nn.functional.softplus(h)
    if name == "elu1":
        return torch.nn.functional.elu(h) + 1
    if name == "exp":
        return torch.exp(h)
    if name == "relu":
        return torch.relu(h) + RELU_EPS
    if name == "favor":
        return torch.exp(h @ omega.T - (h * h).sum(-1, keepdim=True) / 2) / math.sqrt(rank)
    raise ValueError(f"--feature-map {name!r}: expected one of {', '.join(FEATURE_MAPS)}")


def feature_maps(name: str, m: int, rank: int, seed: int):
    """``(phi_q, phi_k)`` torch modules of a built-in feature map or a ``module:attr`` factory, float64, seeded.

    A factory is called as ``factory(m, r, seed)`` and returns two modules (or callables
    with parameters) mapping ``(N, m)`` 0/1 float64 tokens to ``(N, r)`` features.
    ``TrainingInputError`` for an unknown name, an unimportable factory or a wrong shape.
    """
    torch = import_torch()
    if name in FEATURE_MAPS and name != "softplus":
        gen = torch.Generator().manual_seed(seed)
        omega = torch.randn(rank, m, generator=gen, dtype=torch.float64)  # FAVOR+: fixed, not trained

        class Map(torch.nn.Module):
            def __init__(self) -> None:
                super().__init__()
                self.lin = torch.nn.Linear(m, m if name == "favor" else rank, dtype=torch.float64)

            def forward(self, x):
                return positive_map(name, self.lin(x), omega, rank)

        return Map(), Map()
    if ":" not in name:
        raise TrainingInputError(f"--feature-map: {name!r} is neither a built-in ({', '.join(FEATURE_MAPS)}) "
                                 "nor module:attr")
    import importlib

    mod, _, attr = name.partition(":")
    import sys

    added = os.getcwd() not in sys.path
    if added:  # as `python -m` would: a module in the current directory (or on PYTHONPATH)
        sys.path.insert(0, os.getcwd())
    try:
        factory = getattr(importlib.import_module(mod), attr)
        pq, pk = factory(m, rank, seed)
    except Exception as exc:  # user code: any failure is bad input, named
        raise TrainingInputError(f"--feature-map {name}: {type(exc).__name__}: {str(exc)[:200]}") from None
    finally:
        if added:
            sys.path.remove(os.getcwd())
    return pq, pk
