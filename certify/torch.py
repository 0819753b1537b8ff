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

:func:`check` evaluates them **once**, on the family's tokens, in float64 (bfloat16 and
float16 outputs are cast up, which is exact), builds the kernel table in memory and hands
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

from .kernels.audit import FamilySpec, KernelReport, check_kernel
from .kernels.table import KernelTable, npz_bytes, table_from_arrays
from .kernels.torch_fit import _predict, fit  # noqa: F401 - public (fit) and for tests (_predict)
from .kernels.torch_tensors import (MAX_TENSOR_INPUTS, FamilyTensors, _as_array, _bits, _call, _family,  # noqa: F401
                                    _token_tensor, _torch, family_tensors, family_tokens)
from .kernels.torch_tokenwise import TokenwiseReport, verify_tokenwise

__all__ = ["FamilyTensors", "TokenwiseReport", "family_tensors", "family_tokens", "evaluate", "check", "export",
           "verify_tokenwise", "fit", "MAX_TENSOR_INPUTS"]


# --------------------------------------------------------------------------- evaluation


def evaluate(phi_q: Callable, phi_k: Callable, *, values: Callable | None = None, readout: Callable | None = None,
             tokens: Any) -> dict[str, np.ndarray]:
    """The table's arrays: each callable run once on ``tokens`` (``(N, m)`` float64) under ``torch.no_grad``.

    Modules are put in ``eval`` mode for the call and restored afterwards. Returns
    ``phi_q``, ``phi_k`` and, with a readout, ``beta``, ``w``, ``values`` as numpy arrays.
    """
    torch = _torch()
    if (values is None) != (readout is None):
        raise ValueError("values and readout come together (a head without them is checked as kernel only)")
    N = tokens.shape[0]
    out: dict[str, np.ndarray] = {}
    with torch.no_grad():
        for name, fn in (("phi_q", phi_q), ("phi_k", phi_k), ("values", values)):
            if fn is not None:
                out[name] = _as_array(_call(fn, tokens), name, N, 2)
        if readout is not None:
            r = _call(readout, tokens)
            if isinstance(r, (tuple, list)):
                if len(r) != 2:
                    raise ValueError(f"readout: expected (beta, w), got {len(r)} outputs")
                out["beta"] = _as_array(r[0], "readout beta", N, 1) if np.ndim(r[0]) != 2 else \
                    _as_array(r[0], "readout beta", N, 2)[:, 0]
                out["w"] = _as_array(r[1], "readout w", N, 2)
            else:
                both = _as_array(r, "readout", N, 2)
                out["beta"], out["w"] = both[:, 0].copy(), both[:, 1:].copy()
    if out["phi_q"].shape[1] != out["phi_k"].shape[1]:
        raise ValueError(f"phi_q has width {out['phi_q'].shape[1]}, phi_k {out['phi_k'].shape[1]}")
    if "w" in out and out["w"].shape[1] != out["values"].shape[1]:
        raise ValueError(f"readout w has width {out['w'].shape[1]}, values {out['values'].shape[1]}")
    return out


def _table(phi_q, phi_k, values, readout, fam: FamilySpec, delta) -> tuple[KernelTable, dict[str, np.ndarray], list[str]]:
    tokens, _ = family_tokens(fam)
    bits = [_bits(z, fam.m) for z in tokens]
    X = _token_tensor(bits, fam.m)
    arrays = evaluate(phi_q, phi_k, values=values, readout=readout, tokens=X)
    return table_from_arrays(bits, arrays, delta), arrays, bits


def check(phi_q: Callable, phi_k: Callable, *, values: Callable | None = None, readout: Callable | None = None,
          family: Any = "rank-nine", delta: Any = 0, search_readout: bool = False, first_failure: bool = False,
          clip_negative_alpha: Any = None) -> KernelReport:
    """The exact check of a head given as callables (see the module docstring); returns ``check-kernel``'s report.

    ``report.ok`` is the verdict (readout given: it solves the family; kernel only: some
    readout does); ``report.kernel_rank`` the exact rank on the family's query tokens;
    ``report.text()`` the lines ``certify check-kernel`` prints. Bad outputs (wrong shape,
    NaN, negative ``α`` on a used pair) raise ``ValueError`` /
    :class:`~certify.kernels.table.TableFormatError`; a contradiction with the certified
    theorem raises :class:`~certify.kernels.audit.KernelContradiction`.
    """
    from fractions import Fraction

    from .kernels.audit import parse_tolerance

    fam = _family(family)
    table, _, _ = _table(phi_q, phi_k, values, readout, fam, delta)
    if clip_negative_alpha is not None:
        tol = clip_negative_alpha
        table.clip_negative_alpha(Fraction(tol) if not isinstance(tol, str) else parse_tolerance(tol, "clip_negative_alpha"))
    return check_kernel(table, fam, search_readout=search_readout, first_failure=first_failure)


def export(path: str, phi_q: Callable, phi_k: Callable, *, values: Callable | None = None,
           readout: Callable | None = None, family: Any = "rank-nine", delta: Any = 0, note: str = "") -> str:
    """Write the table :func:`check` would check as an ``.npz`` file (docs/kernel-table-format.md); return ``path``.

    The same bytes for the same arrays (members dated 1980-01-01). Check it later with
    ``certify check-kernel PATH --family …``.
    """
    from fractions import Fraction

    fam = _family(family)
    table, arrays, bits = _table(phi_q, phi_k, values, readout, fam, delta)
    out: dict[str, Any] = {"tokens": np.array(bits)}
    out.update({k: arrays[k] for k in ("phi_q", "phi_k", "beta", "w", "values") if k in arrays})
    if table.delta:
        d = table.delta
        exact_float = float(d) if Fraction(float(d)) == d else None
        if exact_float is None:
            raise ValueError(f"delta {d} is not a float64; write the table as JSON to keep it exact")
        out["delta"] = np.float64(exact_float)
    if note:
        out["note"] = np.array(note)
    from .certificates.producer import write_atomic

    write_atomic(path, npz_bytes(out, compress=True))
    return path
