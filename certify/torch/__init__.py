"""Check PyTorch heads exactly: feature maps in, the exact verdict of ``certify check-kernel`` out.

The glue between a model written in PyTorch and the exact check (docs/torch.md; the model
class is docs/math.md §2, the paper's §2.2). A head is given as callables — functions or
``torch.nn.Module`` s — on a tensor of 0/1 tokens of shape ``(N, m)``:

* ``phi_q``, ``phi_k``: the query and key feature maps, ``(N, m) → (N, r)``;
* ``values``: the tokenwise values, ``(N, m) → (N, d_v)`` (optional);
* ``readout``: the query-dependent affine readout, ``(N, m) → (β, w)`` with ``β`` of
  shape ``(N,)`` and ``w`` of shape ``(N, d_v)``, or one ``(N, 1 + d_v)`` tensor whose
  column 0 is ``β`` (optional, with ``values``);
* ``delta``: the denominator constant a library adds (``Σ_j α + δ``; docs/math.md §2), or
  :class:`KeyEps` ``(eps)`` for the ``eps`` a library adds to every coordinate of the key sum
  (``δ(x) = eps·Σ_i φ_{Q,i}(x)``, docs/math.md §2, "A query-dependent denominator").

:func:`check` evaluates them **once**, on the family's tokens (each module in its own dtype
and on its own device; outputs below float64 are cast up, which is exact), builds the kernel table in memory and hands
it to :func:`certify.kernels.audit.check_kernel`: every number after the evaluation is
exact, and the verdict is about the table of these float64 values. :func:`export` writes
the same table as an ``.npz`` file (docs/kernel-table-format.md). Whether the table *is*
the module — whether the module is tokenwise — is a separate question, answered by
:func:`verify_tokenwise`. :func:`fit` trains such a head on a family (full batch, Adam,
mean squared error), for experiments and the worked examples.

PyTorch is the optional extra ``train``; nothing else in ``certify`` imports this package.
This module is its public face; its parts, one stage each: :mod:`~certify.torch.tensors`
(the family as tensors, a callable run on tokens), :mod:`~certify.torch.table` (the
callables evaluated into a kernel table), :mod:`~certify.torch.heads` (the exact check and
the export), :mod:`~certify.torch.tokenwise` (is the table the module?),
:mod:`~certify.torch.compare` (the module's own outputs against the exact predictions, and
the cause when they differ), :mod:`~certify.torch.plot` (its picture) and
:mod:`~certify.torch.fit` (training).

Families (``family=``): a :class:`~certify.kernels.audit.FamilySpec`, a built-in name
(``"rank-nine"``, ``"hadamard24"``, ``"golay24"``), or the path of a certificate (any
kind and version, compact included) or a family file.
"""

from __future__ import annotations

from .compare import CompareReport, compare, predict
from .fit import TrainingDiverged, fit
from .heads import CheckReport, check, export
from .layer import LinearHead
from .table import evaluate
from .tensors import (LAYOUTS, MAX_TENSOR_INPUTS, FamilyTensors, KeyEps, Layout, family_tensors, family_tokens,
                      placement)
from .tokenwise import TokenwiseReport, verify_tokenwise

__all__ = ["FamilyTensors", "TokenwiseReport", "CompareReport", "Layout", "LAYOUTS", "family_tensors", "family_tokens",
           "evaluate", "check", "export", "verify_tokenwise", "compare", "predict", "fit", "placement", "TrainingDiverged",
           "MAX_TENSOR_INPUTS", "LinearHead", "KeyEps", "CheckReport"]
