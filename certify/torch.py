"""Check PyTorch heads exactly: feature maps in, the exact verdict of ``certify check-kernel`` out.

The glue between a model written in PyTorch and the exact check (docs/torch.md; the model
class is docs/math.md §2, the paper's §2.2). A head is given as callables — functions or
``torch.nn.Module`` s — on a tensor of 0/1 tokens of shape ``(N, m)``:

* ``phi_q``, ``phi_k``: the query and key feature maps, ``(N, m) → (N, r)``;
* ``values``: the tokenwise values, ``(N, m) → (N, d_v)`` (optional);
* ``readout``: the query-dependent affine readout, ``(N, m) → (β, w)`` with ``β`` of
  shape ``(N,)`` and ``w`` of shape ``(N, d_v)``, or one ``(N, 1 + d_v)`` tensor whose
  column 0 is ``β`` (optional, with ``values``);
* ``delta``: the denominator constant a library adds (``Σ_j α + δ``; docs/math.md §2).

:func:`check` evaluates them **once**, on the family's tokens (each module in its own dtype
and on its own device; outputs below float64 are cast up, which is exact), builds the kernel table in memory and hands
it to :func:`certify.kernels.audit.check_kernel`: every number after the evaluation is
exact, and the verdict is about the table of these float64 values. :func:`export` writes
the same table as an ``.npz`` file (docs/kernel-table-format.md). Whether the table *is*
the module — whether the module is tokenwise — is a separate question, answered by
:func:`verify_tokenwise`. :func:`fit` trains such a head on a family (full batch, Adam,
mean squared error), for experiments and the worked examples.

PyTorch is the optional extra ``train``; nothing else in ``certify`` imports this module.
Its parts, one stage each: ``certify/kernels/torch_tensors.py`` (the family as tensors, a
callable run on tokens), ``torch_tokenwise.py`` (is the table the module?) and
``torch_fit.py`` (training); this module evaluates, checks and exports.

Families (``family=``): a :class:`~certify.kernels.audit.FamilySpec`, a built-in name
(``"rank-nine"``, ``"hadamard24"``, ``"golay24"``), or the path of a certificate (any
kind and version, compact included) or a family file.
"""
from __future__ import annotations

from typing import Any, Callable

import numpy as np

from .kernels.audit import KernelReport, check_kernel
from .kernels.table import npz_bytes
from .kernels.torch_compare import CompareReport, compare, predict
from .kernels.torch_fit import TrainingDiverged, _predict, fit  # noqa: F401 - _predict: for tests
from .kernels.torch_table import evaluate, head_table
from .kernels.torch_tensors import (LAYOUTS, MAX_TENSOR_INPUTS, FamilyTensors, Layout, _as_array, _family,  # noqa: F401
                                    family_tensors, family_tokens, placement)
from .kernels.torch_tokenwise import TokenwiseReport, verify_tokenwise

__all__ = ["FamilyTensors", "TokenwiseReport", "CompareReport", "Layout", "LAYOUTS", "family_tensors", "family_tokens",
           "evaluate", "check", "export", "verify_tokenwise", "compare", "predict", "fit", "placement", "TrainingDiverged",
           "MAX_TENSOR_INPUTS"]


# --------------------------------------------------------------------------- evaluation


def check(phi_q: Any, phi_k: Any, *, values: Any = None, readout: Callable | None = None,
          family: Any = "rank-nine", delta: Any = 0, heads: Any = None, value_heads: Any = None,
          search_readout: bool = False, first_failure: bool = False, clip_negative_alpha: Any = None) -> KernelReport:
    """The exact check of a head given as callables (see the module docstring); returns ``check-kernel``'s report.

    ``report.ok`` is the verdict (readout given: it solves the family; kernel only: some
    readout does); ``report.kernel_rank`` the exact rank on the family's query tokens;
    ``report.text()`` the lines ``certify check-kernel`` prints. Several heads (lists of
    per-head callables, or ``heads=`` / ``value_heads=``; see :func:`evaluate`): exact
    predictions with ``δ`` in every head's denominator, ``report.head_ranks`` each head's
    exact rank, no bound carried (docs/kernel-table-format.md, "Several heads"). Bad outputs
    (wrong shape, NaN, negative ``α`` on a used pair) raise ``ValueError`` /
    :class:`~certify.kernels.table.TableFormatError`; a contradiction with the certified
    theorem raises :class:`~certify.kernels.audit.KernelContradiction`.
    """
    from fractions import Fraction

    from .kernels.audit import parse_tolerance

    fam = _family(family)
    table, _, _ = head_table(phi_q, phi_k, values, readout, fam, delta, heads, value_heads)
    if clip_negative_alpha is not None:
        tol = clip_negative_alpha
        table.clip_negative_alpha(Fraction(tol) if not isinstance(tol, str) else parse_tolerance(tol, "clip_negative_alpha"))
    return check_kernel(table, fam, search_readout=search_readout, first_failure=first_failure)


def export(path: str, phi_q: Any, phi_k: Any, *, values: Any = None, readout: Callable | None = None,
           family: Any = "rank-nine", delta: Any = 0, heads: Any = None, value_heads: Any = None, note: str = "") -> str:
    """Write the table :func:`check` would check as an ``.npz`` file (docs/kernel-table-format.md); return ``path``.

    The same bytes for the same arrays (members dated 1980-01-01). Check it later with
    ``certify check-kernel PATH --family …``.
    """
    from fractions import Fraction

    fam = _family(family)
    table, arrays, bits = head_table(phi_q, phi_k, values, readout, fam, delta, heads, value_heads)
    out: dict[str, Any] = {"tokens": np.array(bits)}
    out.update({k: arrays[k] for k in ("phi_q", "phi_k", "beta", "w", "values", "heads", "value_heads") if k in arrays})
    if table.delta:
        d = table.delta
        try:
            exact_float = float(d) if Fraction(float(d)) == d else None
        except OverflowError:
            exact_float = None
        if exact_float is None:
            raise ValueError(f"delta {d if len(str(d)) < 60 else '≈ %.3g' % float(min(d, 10**308))} is not a float64; "
                             "check() keeps it exact in memory, but an .npz table holds float64 (use a float64 delta)")
        out["delta"] = np.float64(exact_float)
    if note:
        out["note"] = np.array(note)
    from .outputs import write_atomic

    write_atomic(path, npz_bytes(out, compress=True))
    return path
