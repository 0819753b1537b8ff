"""Train one-head positive-feature models on a witness family and check each table exactly (§6.1).

The §6.1 experiment of the paper, made repeatable: for each feature rank ``r`` and seed,
train the model class of §6.1 on the family's inputs with their Min-IP targets, export
the trained head as a kernel table (docs/kernel-table-format.md), and give it to the
same exact check as ``certify check-kernel`` (:func:`certify.kernels.audit.check_kernel`):
exact predictions and maximum error, jump inequalities, exact kernel rank, and — when
the trained readout fails — whether *any* readout would make this kernel solve the family
(exact LP). The float training loss is reported next to the exact verdict.

The model (docs/math.md §2, §10), one parameter row per token of the family:

* ``φ_Q(x) = softplus(θ_Q[x])``, ``φ_K(z) = softplus(θ_K[z])`` — positive query/key
  tables of width ``r``, so ``α(x, z) = ⟨φ_Q(x), φ_K(z)⟩ > 0``;
* one-hot tokenwise values and a query-dependent affine readout, i.e. an arbitrary
  table ``g_x(z) = β[x] + w[x, z]`` (``beta``: ``N``, ``w``: ``N × N``);
* prediction ``t̂ = Σ_j α(x, x_j) g_x(x_j) / Σ_j α(x, x_j)`` at the queried position.

Training: full batch, mean squared error, Adam (learning rate 0.05), ``θ ~ N(0, 1)``,
``β = w = 0`` at the start, float64 throughout. Determinism: Python ``random``, numpy and
torch are seeded with the run's seed, ``torch.use_deterministic_algorithms(True)`` and one
torch thread, so a seed gives byte-identical arrays.

PyTorch is an optional extra (``pip install '.[train]'`` from the checkout); it is imported only
inside the functions that train, never by the rest of ``certify``.

This package is training's room, shared by ``certify train`` and ``certify experiment``; its
parts: :mod:`~certify.training.options` (what to train, PyTorch's availability),
:mod:`~certify.training.maps` (the feature maps), :mod:`~certify.training.runs` (training,
export and the exact check of each run), :mod:`~certify.training.diverged` (what a diverged
run is), :mod:`~certify.training.report` (text, JSON and plot of ``certify train``).

>>> import certify.training as T
>>> T.parse_ranks("4,8,9"), T.parse_seeds("0-2,7")
((4, 8, 9), (0, 1, 2, 7))
"""

from .diverged import TRAINED_FIELDS, finite_or_none, first_nonfinite
from .maps import feature_maps, positive_map
from .options import (FEATURE_MAPS, MAX_RANK, MAX_STEPS, RELU_EPS, TORCH_HINT, TrainConfig, TrainingInputError,
                      TrainingUnavailable, import_torch, int_list, parse_delta, parse_dtype, parse_feature_map,
                      parse_ranks, parse_seeds, require_torch)
from .runs import (FLOAT_AGREEMENT, MAX_STEP_ENTRIES, MAX_TOKENS, RunResult, check_training_size, construction_report,
                   environment, export_table, family_arrays, run_experiment, train_head)

__all__ = ["TORCH_HINT", "TrainingUnavailable", "TrainingInputError", "TrainConfig", "RunResult", "FEATURE_MAPS",
           "MAX_RANK", "MAX_STEPS", "MAX_TOKENS", "MAX_STEP_ENTRIES", "FLOAT_AGREEMENT", "RELU_EPS", "TRAINED_FIELDS",
           "parse_ranks", "parse_seeds", "parse_feature_map", "parse_delta", "parse_dtype", "int_list", "require_torch",
           "import_torch", "positive_map", "feature_maps", "check_training_size", "family_arrays", "train_head",
           "export_table", "construction_report", "run_experiment", "environment", "first_nonfinite",
           "finite_or_none"]
