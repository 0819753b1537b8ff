"""Is the table the module? :func:`verify_tokenwise` (``certify.torch``; docs/torch.md).

The model class (docs/math.md §2) needs every map to see only its own token. A library
applies its feature map to a whole sequence; this runs the map on the family's real
sequences and on each token alone and reports how far apart they are.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Callable

import numpy as np

from .torch_tensors import MAX_TENSOR_INPUTS, _as_array, _call, _torch, family_tensors


@dataclass
class TokenwiseReport:
    """How far a module is from tokenwise on a family (:func:`verify_tokenwise`)."""

    max_difference: float
    input_index: int | None
    position: int | None
    inputs_checked: int
    inputs: int
    scale: float  # the largest |output| of a token alone
    rtol: float

    @property
    def tokenwise(self) -> bool:
        """True when every output in a sequence equals the token's output alone, up to ``rtol`` × ``scale``.

        Float rounding alone differs between batch shapes (a matrix product is blocked
        differently), by about 10⁻¹⁶ relative; a sequence-dependent map differs by far more.
        """
        return self.max_difference <= self.rtol * self.scale

    def text(self) -> str:
        part = "" if self.inputs_checked == self.inputs else f" (the first {self.inputs_checked:,} of {self.inputs:,})"
        rel = self.max_difference / self.scale if self.scale else 0.0
        if self.tokenwise:
            return (f"tokenwise on {self.inputs_checked:,} inputs{part}: largest difference {self.max_difference:.3g} "
                    f"({rel:.2g} relative, float rounding); the verdict on the table is a verdict on the module")
        return (f"NOT tokenwise: outputs differ by up to {self.max_difference:.3g} ({rel:.2g} relative; "
                f"family.inputs[{self.input_index}], position {self.position}){part}; the verdict is about the "
                "exported table, not the module")


def verify_tokenwise(module: Callable, family: Any = "rank-nine", *, max_inputs: int = 100_000,
                     batch: int = 4096, rtol: float = 1e-12) -> TokenwiseReport:
    """Run ``module`` on the family's real sequences and on each token alone; report the largest difference.

    ``module`` maps a batch of sequences ``(B, L, m)`` to per-position outputs ``(B, L, r)``
    — as a library's feature map is applied to a sequence. Tokens alone are the sequences
    ``(N, 1, m)``. A tokenwise map (each output a function of its own token) gives a
    difference of 0; a map with a per-sequence stabilizer (FAVOR+ takes a maximum over the
    sequence) does not, and then the exact verdict is about the table, not the module. The
    first ``max_inputs`` inputs are compared, ``batch`` at a time, in float64.
    """
    torch = _torch()
    ft = family_tensors(family)
    if ft.inputs is None:
        raise ValueError(f"{ft.family.source}: more than {MAX_TENSOR_INPUTS:,} inputs; give a smaller family")
    X = ft.tokens
    with torch.no_grad():
        alone = _as_array(_call(module, X[:, None, :])[:, 0, :], "module (tokens alone)", X.shape[0], 2)
        worst, where = 0.0, (None, None)
        total = min(ft.inputs.shape[0], max_inputs)
        for start in range(0, total, batch):
            idx = ft.inputs[start:start + batch]
            lengths = (idx >= 0).sum(1)
            for L in sorted(set(int(v) for v in lengths)):  # one call per length: no padding enters a sequence
                rows = torch.nonzero(lengths == L)[:, 0]
                seq = X[idx[rows, :L]]
                out = _call(module, seq)
                got = out.detach().to(torch.float64).cpu().numpy()
                want = alone[idx[rows, :L].numpy()]
                diff = np.abs(got - want).max(axis=2)
                k = np.unravel_index(int(np.argmax(diff)), diff.shape)
                if diff[k] > worst:
                    worst, where = float(diff[k]), (start + int(rows[k[0]]), int(k[1]))
    scale = float(np.abs(alone).max()) if alone.size else 0.0
    return TokenwiseReport(worst, where[0], where[1], total, ft.inputs.shape[0], scale, rtol)
