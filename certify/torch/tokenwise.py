"""Is the table the module? :func:`verify_tokenwise` (``certify.torch``; docs/torch.md).

The model class (docs/math.md §2) needs every map to see only its own token. A library
applies its feature map to a whole sequence; this runs the map on the family's real
sequences and on each token alone and reports how far apart they are, judged at the
precision of the module's output dtype. Three outcomes:

* **tokenwise**: the outputs differ by float rounding only;
* **a positive scale per sequence**: each sequence's outputs are ``c > 0`` times the
  tokens' own (one ``c`` per sequence, e.g. a key stabilizer). Scaling every ``α`` of a
  sequence by one factor leaves ``Σ_j α v / Σ_j α`` unchanged, so this is harmless for a
  feature map (``role="features"``) of normalized attention without a denominator constant;
  on values or a readout, or with ``δ > 0`` (``c·Σ α + δ ≠ c·(Σ α + δ)``), it is not;
* **not tokenwise**: the exact verdict is about the tokenwise table, not the module;
  ``certify.torch.compare`` measures how far the module's layer is from it.

The figures are floats (a diagnosis of a float module, not a proof); the exact check
(``certify.torch.check``) is what proves.
"""
from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction
from typing import Any, Callable

import numpy as np

from .tensors import MAX_TENSOR_INPUTS, call_on_tokens, import_torch, family_tensors, positive_ints

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
    """How far a module is from tokenwise on a family (:func:`verify_tokenwise`).

    Differences are judged column by column: an output column is compared with the largest
    ``|output|`` that column has on the tokens alone (a large column cannot hide a change in
    a small one). ``max_relative`` is the largest such ratio, at ``input_index``,
    ``position``; ``max_difference`` the difference there.
    """

    max_difference: float
    input_index: int | None
    position: int | None
    inputs_checked: int
    inputs: int
    scale: float  # the largest |output| of a token alone, over all columns
    rtol: float
    dtype: str = "float64"
    scale_residual: float = 0.0  # relative, after dividing each sequence by its best factor c
    scale_range: tuple[float, float] | None = None  # the factors c over the sequences (None: some c ≤ 0 or none fitted)
    max_relative: float = 0.0
    role: str = "features"  # what the module is in the head: "features" (φ_Q or φ_K), "values" or "readout"
    delta: float = 0.0  # the head's denominator constant: with δ > 0 a per-sequence factor is not harmless

    @property
    def tokenwise(self) -> bool:
        """True when every output in a sequence equals the token's output alone, up to ``rtol`` of its column."""
        return self.max_relative <= self.rtol

    @property
    def per_sequence_scale(self) -> bool:
        """Not tokenwise, but each sequence's outputs are one positive factor times the tokens' own."""
        return (not self.tokenwise and self.scale_range is not None and self.scale_range[0] > 0
                and self.scale_residual <= self.rtol)

    @property
    def verdict(self) -> str:
        """``"tokenwise"``, ``"per-sequence scale"`` or ``"not tokenwise"``."""
        return "tokenwise" if self.tokenwise else "per-sequence scale" if self.per_sequence_scale else "not tokenwise"

    @property
    def harmless(self) -> bool:
        """The exact verdict on the table is a verdict on the module.

        Tokenwise; or a per-sequence factor on a feature map (``role="features"``) of a head
        without a denominator constant — a factor on values or a readout, or with ``δ > 0``,
        changes the output.
        """
        return self.tokenwise or (self.per_sequence_scale and self.role == "features" and self.delta == 0)

    def text(self) -> str:
        part = "" if self.inputs_checked == self.inputs else f" (the first {self.inputs_checked:,} of {self.inputs:,})"
        tol = f"{self.dtype} rounding: ≤ {self.rtol:.0e} of each column"
        if self.tokenwise:
            return (f"tokenwise on {self.inputs_checked:,} inputs{part}: largest difference {self.max_difference:.3g} "
                    f"({self.max_relative:.2g} of its column, {tol}); the verdict on the table is a verdict on the module")
        if self.per_sequence_scale:
            lo, hi = self.scale_range
            head = (f"tokenwise up to a positive factor per sequence on {self.inputs_checked:,} inputs{part} "
                    f"(factors {lo:.3g} to {hi:.3g}; after them {self.scale_residual:.2g} of a column, {tol})")
            if self.harmless:
                return (f"{head}: harmless for a feature map of normalized attention, whose Σ_j α v / Σ_j α does "
                        "not change when a sequence's α are scaled by one factor, so the verdict on the table is a "
                        "verdict on the module (δ = 0)")
            why = ("with δ > 0 the factor changes Σ_j α v / (Σ_j α + δ)" if self.role == "features"
                   else f"a factor on the {self.role} changes the prediction")
            return f"{head}: NOT harmless, {why}; {NEXT_STEP}"
        return (f"NOT tokenwise: outputs differ by up to {self.max_difference:.3g} ({self.max_relative:.2g} of the "
                f"column, {tol}; family.inputs[{self.input_index}], position {self.position}){part}; {NEXT_STEP}")

    def to_json(self) -> dict[str, Any]:
        finite = lambda v: v if np.isfinite(v) else None  # noqa: E731
        return {"verdict": self.verdict, "harmless": self.harmless, "max_difference": self.max_difference,
                "max_relative": self.max_relative, "input_index": self.input_index, "position": self.position,
                "inputs_checked": self.inputs_checked, "inputs": self.inputs, "scale": self.scale, "rtol": self.rtol,
                "dtype": self.dtype, "role": self.role, "delta": self.delta,
                "scale_residual": finite(self.scale_residual),
                "scale_range": None if self.scale_range is None else list(self.scale_range)}


ROLES = ("features", "values", "readout")


def _outputs(out: Any, name: str, rows: int, length: int, width: int | None) -> np.ndarray:
    """A module's output on ``rows`` sequences of ``length`` tokens as a finite float64 ``(rows, length, width)`` array."""
    torch = import_torch()
    a = out.detach().cpu().to(torch.float64).numpy() if isinstance(out, torch.Tensor) else np.asarray(out, dtype=np.float64)
    want = (rows, length, width if width is not None else (a.shape[2] if a.ndim == 3 else "r"))
    if a.ndim != 3 or a.shape[:2] != (rows, length) or (width is not None and a.shape[2] != width):
        raise ValueError(f"{name}: expected an output of shape {want} (sequences × positions × features), "
                         f"got {tuple(a.shape)}")
    if not np.isfinite(a).all():
        k = tuple(int(i) for i in np.argwhere(~np.isfinite(a))[0])
        raise ValueError(f"{name}: output {float(a[k])} at sequence {k[0]}, position {k[1]}, column {k[2]}; "
                         "every output must be finite")
    return a


def verify_tokenwise(module: Callable, family: Any = "rank-nine", *, max_inputs: int = 100_000,
                     batch: int = 4096, rtol: float | None = None, dtype: Any = None, device: Any = None,
                     role: str = "features", delta: Any = 0) -> TokenwiseReport:
    """Run ``module`` on the family's real sequences and on each token alone; report the largest difference.

    ``module`` maps a batch of sequences ``(B, L, m)`` to per-position outputs ``(B, L, r)``
    — as a library's feature map is applied to a sequence (``certify.torch.Layout`` adapts
    the libraries' ``(B, H, L, d)`` and ``(B, L, H, d)`` layouts). Tokens alone are the
    sequences ``(N, 1, m)``. A module gets them on its own device and in its own dtype; a
    plain function gets float64 on the CPU, or ``dtype`` on ``device`` when given.
    The first ``max_inputs`` inputs are compared, ``batch`` at a time; ``rtol`` (default:
    by the output dtype, :data:`TOKENWISE_RTOL`) is relative to the largest output of each
    column. ``role`` (``"features"``, ``"values"``, ``"readout"``) and ``delta`` say what
    the module is in the head, which decides whether a per-sequence factor is harmless. See
    the module docstring for the verdicts. A non-finite output or a wrong shape raises
    ``ValueError`` naming it.
    """
    torch = import_torch()
    if role not in ROLES:
        raise ValueError(f"role {role!r}: one of {', '.join(ROLES)}")
    positive_ints(max_inputs=max_inputs, batch=batch)
    tol = None if rtol is None else float(rtol)
    if tol is not None and not (np.isfinite(tol) and tol >= 0):
        raise ValueError(f"rtol = {rtol!r}: a finite number ≥ 0")
    d = float(Fraction(delta)) if isinstance(delta, (str, Fraction)) else float(delta)
    if not (np.isfinite(d) and d >= 0):
        raise ValueError(f"delta = {delta!r}: a finite number ≥ 0")
    ft = family_tensors(family)
    if ft.inputs is None:
        raise ValueError(f"{ft.family.source}: more than {MAX_TENSOR_INPUTS:,} inputs; give a smaller family")
    X = ft.tokens
    with torch.no_grad():
        raw = call_on_tokens(module, X[:, None, :], dtype, device)
        out_dtype = dtype_name(raw.dtype) if hasattr(raw, "dtype") else "float64"
        alone = _outputs(raw, "module (tokens alone)", X.shape[0], 1, None)[:, 0, :]
        width = alone.shape[1]
        colscale = np.abs(alone).max(axis=0)
        overall = float(colscale.max()) if colscale.size else 0.0
        colscale = np.where(colscale > 0, colscale, overall if overall > 0 else 1.0)  # an all-zero column: the largest
        worst = _Worst()
        c_lo, c_hi, fitted, worst_scaled = np.inf, -np.inf, True, 0.0
        total = min(ft.inputs.shape[0], max_inputs)
        for start in range(0, total, batch):
            idx = ft.inputs[start:min(start + batch, total)]
            lengths = (idx >= 0).sum(1)
            for L in sorted(set(int(v) for v in lengths)):  # one call per length: no padding enters a sequence
                rows = torch.nonzero(lengths == L)[:, 0]
                got = _outputs(call_on_tokens(module, X[idx[rows, :L]], dtype, device), "module (sequences)", len(rows), L, width)
                want = alone[idx[rows, :L].numpy()]
                worst.add(np.abs(got - want) / colscale, np.abs(got - want), rows, start)
                norm = (want * want).sum(axis=(1, 2))
                c = np.where(norm > 0, (got * want).sum(axis=(1, 2)) / np.where(norm > 0, norm, 1.0), 1.0)
                if (c <= 0).any():
                    fitted = False
                else:
                    c_lo, c_hi = min(c_lo, float(c.min())), max(c_hi, float(c.max()))
                    resid = (np.abs(got - c[:, None, None] * want) / colscale).max(axis=(1, 2)) / c
                    worst_scaled = max(worst_scaled, float(resid.max()))
    tol = TOKENWISE_RTOL.get(out_dtype, 1e-12) if tol is None else tol
    rng = (c_lo, c_hi) if fitted and c_lo <= c_hi else None
    return TokenwiseReport(worst.absolute, worst.where[0], worst.where[1], total, ft.inputs.shape[0], overall, tol,
                           out_dtype, worst_scaled if fitted else float("inf"), rng, worst.value, role, d)


class _Worst:
    """The largest relative difference so far, where it was, and the absolute difference there."""

    def __init__(self) -> None:
        self.value, self.absolute, self.where = 0.0, 0.0, (None, None)

    def add(self, rel: np.ndarray, diff: np.ndarray, rows: Any, start: int) -> None:
        per = rel.max(axis=2)
        k = np.unravel_index(int(np.argmax(per)), per.shape)
        if per[k] > self.value:
            col = int(np.argmax(rel[k[0], k[1]]))
            self.value, self.absolute = float(per[k]), float(diff[k[0], k[1], col])
            self.where = (start + int(rows[k[0]]), int(k[1]))
