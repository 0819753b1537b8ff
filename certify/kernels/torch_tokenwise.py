"""Is the table the module? :func:`verify_tokenwise` (``certify.torch``; docs/torch.md).

The model class (docs/math.md §2) needs every map to see only its own token. A library
applies its feature map to a whole sequence; this runs the map on the family's real
sequences and on each token alone and reports how far apart they are, judged at the
precision of the module's output dtype. Three outcomes:

* **tokenwise**: the outputs differ by float rounding only;
* **a positive scale per sequence**: each sequence's outputs are ``c > 0`` times the
  tokens' own (one ``c`` per sequence, e.g. a key stabilizer). Scaling every ``α`` of a
  sequence by one factor leaves ``Σ_j α v / Σ_j α`` unchanged, so this is harmless for
  normalized attention without a denominator constant (with ``δ > 0`` it is not:
  ``c·Σ α + δ ≠ c·(Σ α + δ)``);
* **not tokenwise**: the exact verdict is about the tokenwise table, not the module;
  ``certify.torch.compare`` measures how far the module's layer is from it.

The figures are floats (a diagnosis of a float module, not a proof); the exact check
(``certify.torch.check``) is what proves.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Callable

import numpy as np

from .torch_tensors import MAX_TENSOR_INPUTS, _as_array, _call, _torch, family_tensors

#: Relative tolerance by the module's output dtype: the same map on two batch shapes differs by
#: a few units in the last place (matrix products are blocked differently); a sequence-dependent
#: map differs by far more.
TOKENWISE_RTOL = {"float64": 1e-12, "float32": 1e-5, "float16": 4e-3, "bfloat16": 3e-2}

#: What to do when a map is not tokenwise (the text of :class:`TokenwiseReport`).
NEXT_STEP = ("the exact verdict covers the tokenwise table (each token's features computed alone), not the module; "
             "measure the module's own layer against it with certify.torch.compare(layer, …), or make the map "
             "tokenwise (drop the part that sees the sequence: a stabilizer over positions, rotary or other "
             "positional terms, a softmax over the sequence)")


def dtype_name(dtype: Any) -> str:
    """``"float32"`` for ``torch.float32`` or ``numpy.float32``."""
    return str(dtype).replace("torch.", "")


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
    dtype: str = "float64"
    scale_residual: float = 0.0  # after dividing each sequence by its best factor c
    scale_range: tuple[float, float] | None = None  # the factors c over the sequences (None: some c ≤ 0 or none fitted)

    @property
    def tokenwise(self) -> bool:
        """True when every output in a sequence equals the token's output alone, up to ``rtol`` × ``scale``."""
        return self.max_difference <= self.rtol * self.scale

    @property
    def per_sequence_scale(self) -> bool:
        """Not tokenwise, but each sequence's outputs are one positive factor times the tokens' own."""
        return (not self.tokenwise and self.scale_range is not None and self.scale_range[0] > 0
                and self.scale_residual <= self.rtol * self.scale)

    @property
    def verdict(self) -> str:
        """``"tokenwise"``, ``"per-sequence scale"`` or ``"not tokenwise"``."""
        return "tokenwise" if self.tokenwise else "per-sequence scale" if self.per_sequence_scale else "not tokenwise"

    @property
    def harmless(self) -> bool:
        """The exact verdict on the table is a verdict on the module (normalized attention, ``δ = 0`` for a scale)."""
        return self.verdict != "not tokenwise"

    def text(self) -> str:
        part = "" if self.inputs_checked == self.inputs else f" (the first {self.inputs_checked:,} of {self.inputs:,})"
        rel = self.max_difference / self.scale if self.scale else 0.0
        tol = f"{self.dtype} rounding: ≤ {self.rtol:.0e} relative"
        if self.tokenwise:
            return (f"tokenwise on {self.inputs_checked:,} inputs{part}: largest difference {self.max_difference:.3g} "
                    f"({rel:.2g} relative, {tol}); the verdict on the table is a verdict on the module")
        if self.per_sequence_scale:
            lo, hi = self.scale_range
            return (f"tokenwise up to a positive factor per sequence on {self.inputs_checked:,} inputs{part} "
                    f"(factors {lo:.3g} to {hi:.3g}; after them {self.scale_residual:.3g}, {tol}): harmless for "
                    "normalized attention, whose Σ_j α v / Σ_j α does not change when a sequence's α are scaled "
                    "by one factor, so the verdict on the table is a verdict on the module — without a "
                    "denominator constant δ (with δ > 0 the factor matters: certify.torch.compare measures it)")
        return (f"NOT tokenwise: outputs differ by up to {self.max_difference:.3g} ({rel:.2g} relative, {tol}; "
                f"family.inputs[{self.input_index}], position {self.position}){part}; {NEXT_STEP}")

    def to_json(self) -> dict[str, Any]:
        return {"verdict": self.verdict, "max_difference": self.max_difference, "input_index": self.input_index,
                "position": self.position, "inputs_checked": self.inputs_checked, "inputs": self.inputs,
                "scale": self.scale, "rtol": self.rtol, "dtype": self.dtype, "scale_residual": self.scale_residual if np.isfinite(self.scale_residual) else None,
                "scale_range": None if self.scale_range is None else list(self.scale_range)}


class _Worst:
    """The largest difference so far and where it was."""

    def __init__(self) -> None:
        self.value, self.where = 0.0, (None, None)

    def add(self, diff: np.ndarray, rows: Any, start: int) -> None:
        k = np.unravel_index(int(np.argmax(diff)), diff.shape)
        if diff[k] > self.value:
            self.value, self.where = float(diff[k]), (start + int(rows[k[0]]), int(k[1]) if diff.ndim > 1 else None)


def verify_tokenwise(module: Callable, family: Any = "rank-nine", *, max_inputs: int = 100_000,
                     batch: int = 4096, rtol: float | None = None, dtype: Any = None,
                     device: Any = None) -> TokenwiseReport:
    """Run ``module`` on the family's real sequences and on each token alone; report the largest difference.

    ``module`` maps a batch of sequences ``(B, L, m)`` to per-position outputs ``(B, L, r)``
    — as a library's feature map is applied to a sequence (``certify.torch.Layout`` adapts
    the libraries' ``(B, H, L, d)`` and ``(B, L, H, d)`` layouts). Tokens alone are the
    sequences ``(N, 1, m)``. A module gets them on its own device and in its own dtype; a
    plain function gets float64 on the CPU, or ``dtype`` on ``device`` when given.
    The first ``max_inputs`` inputs are compared, ``batch`` at a time; ``rtol`` (default:
    by the output dtype, :data:`TOKENWISE_RTOL`) is relative to the largest output. See the
    module docstring for the three verdicts.
    """
    torch = _torch()
    ft = family_tensors(family)
    if ft.inputs is None:
        raise ValueError(f"{ft.family.source}: more than {MAX_TENSOR_INPUTS:,} inputs; give a smaller family")
    X = ft.tokens
    with torch.no_grad():
        raw = _call(module, X[:, None, :], dtype, device)
        out_dtype = dtype_name(raw.dtype) if isinstance(raw, torch.Tensor) else dtype_name(np.asarray(raw).dtype)
        alone = _as_array(raw[:, 0, :], "module (tokens alone)", X.shape[0], 2).astype(np.float64)
        worst, worst_scaled = _Worst(), 0.0
        c_lo, c_hi, fitted = np.inf, -np.inf, True
        total = min(ft.inputs.shape[0], max_inputs)
        for start in range(0, total, batch):
            idx = ft.inputs[start:start + batch]
            lengths = (idx >= 0).sum(1)
            for L in sorted(set(int(v) for v in lengths)):  # one call per length: no padding enters a sequence
                rows = torch.nonzero(lengths == L)[:, 0]
                out = _call(module, X[idx[rows, :L]], dtype, device)
                got = out.detach().cpu().to(torch.float64).numpy()
                want = alone[idx[rows, :L].numpy()]
                worst.add(np.abs(got - want).max(axis=2), rows, start)
                norm = (want * want).sum(axis=(1, 2))
                c = np.where(norm > 0, (got * want).sum(axis=(1, 2)) / np.where(norm > 0, norm, 1.0), 1.0)
                if (c <= 0).any():
                    fitted = False
                else:
                    c_lo, c_hi = min(c_lo, float(c.min())), max(c_hi, float(c.max()))
                    resid = np.abs(got - c[:, None, None] * want).max(axis=(1, 2)) / c
                    worst_scaled = max(worst_scaled, float(resid.max()))
    scale = float(np.abs(alone).max()) if alone.size else 0.0
    tol = TOKENWISE_RTOL.get(out_dtype, 1e-12) if rtol is None else float(rtol)
    rng = (c_lo, c_hi) if fitted and c_lo <= c_hi else None
    return TokenwiseReport(worst.value, worst.where[0], worst.where[1], total, ft.inputs.shape[0], scale, tol, out_dtype,
                           worst_scaled if fitted else float("inf"), rng)
