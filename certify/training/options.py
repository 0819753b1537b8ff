"""What to train, as the options of ``certify train`` and ``certify experiment`` give it (§6.1–§6.3).

:class:`TrainConfig` (ranks, seeds, steps, learning rate, feature map, ``δ``), the parsers of
the options (exact: ``--delta`` as a rational, never rounded), the built-in feature maps'
names (:data:`FEATURE_MAPS`), and PyTorch's availability: :func:`require_torch` finds it
without importing it, :func:`import_torch` imports it (:class:`TrainingUnavailable`, exit 2,
when it is missing).

>>> parse_ranks("4,8,9"), parse_seeds("0-2,7")
((4, 8, 9), (0, 1, 2, 7))
>>> parse_ranks("0")
Traceback (most recent call last):
...
ValueError: --ranks: each rank must be an integer from 1 to 1024, not '0'
"""
from __future__ import annotations

import math
from dataclasses import dataclass
from fractions import Fraction

__all__ = ["TORCH_HINT", "MAX_RANK", "MAX_STEPS", "TrainingUnavailable", "TrainingInputError", "FEATURE_MAPS", "RELU_EPS", "TrainConfig", "int_list", "parse_ranks", "parse_feature_map", "parse_delta", "parse_dtype", "DTYPES", "parse_seeds", "import_torch", "require_torch"]

TORCH_HINT = ("certify train needs PyTorch (any torch >= 2.0): from the checkout, pip install '.[train]'; "
              "for the CPU-only build install it first, e.g. pip install torch==2.13.0 (README, Dependencies)")


MAX_RANK = 1024


MAX_STEPS = 1_000_000


class TrainingUnavailable(RuntimeError):
    """PyTorch is not installed (``certify train`` exits 2 with :data:`TORCH_HINT`)."""


class TrainingInputError(ValueError):
    """The family cannot be trained on (too many tokens); exit 2."""


#: ``--feature-map`` built-ins: how ``φ_Q`` and ``φ_K`` are made (docs/experiments.md, "Feature maps").
#: ``softplus`` is a free table per token; the others are functions of the token's bits through a
#: learned linear map ``x ↦ Wx + b`` (``m → r``; FAVOR+: ``m → m``, then fixed random features).
FEATURE_MAPS = {
    "softplus": "φ = softplus(θ[x]), a free N × r table (§6.1)",
    "elu1": "φ(x) = elu(Wx + b) + 1",
    "exp": "φ(x) = exp(Wx + b)",
    "relu": "φ(x) = relu(Wx + b) + 2⁻¹⁰",
    "favor": "φ(x) = exp(Ω(Wx + b) − |Wx + b|²/2)/√r, FAVOR+ positive random features, Ω ~ N(0, 1) fixed by the seed",
}


RELU_EPS = 2.0**-10


@dataclass(frozen=True)
class TrainConfig:
    """What to train: ranks, seeds, steps, the optimizer's learning rate and the feature map (§6.1 defaults)."""

    ranks: tuple[int, ...] = (4, 8, 9, 12, 15, 32)
    seeds: tuple[int, ...] = (0, 1, 2, 3, 4)
    steps: int = 2000
    lr: str = "0.05"  # a decimal string: a training setting, never part of a check
    feature_map: str = "softplus"  # a FEATURE_MAPS name or "module:attr" (a factory (m, r, seed) → (phi_q, phi_k))
    delta: str = "0"  # the denominator constant δ as typed (--delta); training and the table use float(δ), exactly
    dtype: str = "auto"  # --dtype: the feature maps' dtype (auto: each module its own, plain callables float64)

    @property
    def delta_float(self) -> float:
        """``δ`` as the float64 the head is trained with; the exported table holds exactly this number."""
        return float(Fraction(self.delta))

    def describe(self) -> str:
        fmap = FEATURE_MAPS.get(self.feature_map, f"φ_Q, φ_K from the factory {self.feature_map}")
        init = "θ ~ N(0, 1), " if self.feature_map == "softplus" else ""
        den = f", δ = {self.delta} in the denominator (as a float64)" if Fraction(self.delta) else ""
        dtypes = ("float64" if self.dtype == "auto" and self.feature_map in FEATURE_MAPS else
                  "the factory's modules in their own dtype and the rest in float64" if self.dtype == "auto" else
                  f"the feature maps in {self.dtype} and the rest in float64")
        return (f"{self.steps:,} full-batch steps, Adam (lr {self.lr}), mean squared error, "
                f"{fmap}{den}, {init}β = w = 0 at start, {dtypes}, 1 torch thread")


def int_list(text: str, name: str, lo: int, hi: int, what: str) -> tuple[int, ...]:
    out: list[int] = []
    for part in text.split(","):
        part = part.strip()
        bounds = part.split("-") if name == "--seeds" else [part]
        try:
            if len(bounds) == 1:
                vals = [int(bounds[0])]
            elif len(bounds) == 2:
                a, b = int(bounds[0]), int(bounds[1])
                if b < a or b - a > 1000:
                    raise ValueError
                vals = list(range(a, b + 1))
            else:
                raise ValueError
        except ValueError:
            raise ValueError(f"{name}: each {what} must be an integer from {lo} to {hi}, not {part!r}") from None
        for v in vals:
            if not lo <= v <= hi:
                raise ValueError(f"{name}: each {what} must be an integer from {lo} to {hi}, not {part!r}")
            if v not in out:
                out.append(v)
    if not out or len(out) > 64:
        raise ValueError(f"{name}: give between 1 and 64 values, not {len(out)}")
    return tuple(out)


def parse_ranks(text: str) -> tuple[int, ...]:
    """``"4,8,9"`` → ``(4, 8, 9)``; each rank in ``1 … 1024`` (``ValueError`` otherwise)."""
    return int_list(text, "--ranks", 1, MAX_RANK, "rank")


def parse_feature_map(text: str) -> str:
    """A :data:`FEATURE_MAPS` name, or ``module:attr`` (imported only when training starts)."""
    import re

    if text in FEATURE_MAPS or re.fullmatch(r"[A-Za-z_][\w.]*:[A-Za-z_]\w*", text or ""):
        return text
    raise ValueError(f"--feature-map: {text[:60]!r} is neither a built-in ({', '.join(FEATURE_MAPS)}) nor module:attr")


#: --dtype: the feature maps' dtype; ``auto`` gives each module the tokens in its own dtype (plain callables float64).
DTYPES = ("auto", "float64", "float32", "bfloat16", "float16")


def parse_dtype(text: str, feature_map: str) -> str:
    """``--dtype``: one of :data:`DTYPES`; a dtype other than auto/float64 needs a feature map with modules (not softplus)."""
    if text not in DTYPES:
        raise ValueError(f"--dtype {text[:40]!r}: one of {', '.join(DTYPES)}")
    if feature_map == "softplus" and text not in ("auto", "float64"):
        raise ValueError(f"--dtype {text}: the softplus map is a free float64 table; --dtype applies to the "
                         "other feature maps (elu1, exp, relu, favor, module:attr)")
    return text


def parse_delta(text: str) -> str:
    """``--delta``: a number ``≥ 0`` (``p/q`` or a decimal, read exactly, at most 40 characters) that a float64 holds.

    Returns it in lowest terms as text (``"1/1000000"``); ``ValueError`` otherwise.
    """
    from ..kernels.audit import parse_tolerance

    value = parse_tolerance(text, "--delta")
    try:
        as_float = float(value)
    except OverflowError:
        as_float = math.inf
    if not math.isfinite(as_float):
        raise ValueError(f"--delta: {text[:40]!r} is beyond a float64's range")
    if value and as_float == 0:
        raise ValueError(f"--delta: {text[:40]!r} is too small for a float64 (it would train with δ = 0)")
    return str(value)


def parse_seeds(text: str) -> tuple[int, ...]:
    """``"0-4"`` or ``"0,3,7"`` → a tuple of seeds in ``0 … 2³² − 1``."""
    return int_list(text, "--seeds", 0, 2**32 - 1, "seed")


def import_torch():
    try:
        import torch
    except ImportError:
        raise TrainingUnavailable(TORCH_HINT) from None
    return torch


def require_torch() -> None:
    """:class:`TrainingUnavailable` unless PyTorch is found (not imported, ≈ 1.5 s: :func:`import_torch` does that later)."""
    import importlib.util

    if importlib.util.find_spec("torch") is None:
        raise TrainingUnavailable(TORCH_HINT)
