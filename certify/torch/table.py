"""A head given as PyTorch callables, evaluated once on a family's tokens: its kernel table (``certify.torch``).

:func:`evaluate` runs each callable on the tokens and returns the table's arrays (numpy,
float64 or integers: every float is the rational it denotes from here on); :func:`head_table`
makes the :class:`~certify.kernels.table.KernelTable` that ``certify.torch.check``,
``export`` and ``compare`` use (docs/torch.md; the model is docs/math.md §2).
"""
from __future__ import annotations

from typing import Any, Callable

import numpy as np

from ..kernels.audit import FamilySpec
from ..kernels.table import KernelTable, TableFormatError, table_from_arrays
from .tensors import (KeyEps, as_array, call_on_tokens, declared_heads, family_tokens, import_torch, token_bits,
                      token_tensor)


def callable_parts(fn: Any) -> list[Callable]:
    """One callable, or a list/tuple of callables (one per head)."""
    return list(fn) if isinstance(fn, (list, tuple)) else [fn]


def head_labels(name: str, parts: list) -> list[str]:
    """``name`` for one callable, ``name[0]``, ``name[1]``, … for one per head: how messages name them."""
    return [f"{name}[{h}]" if len(parts) > 1 else name for h in range(len(parts))]


def _hstack(arrays: list[np.ndarray], name: str) -> np.ndarray:
    """The heads' columns side by side, without rounding (integers beyond 2⁵³ are not mixed with floats)."""
    if len(arrays) == 1:
        return arrays[0]
    if len({a.dtype.kind for a in arrays}) > 1:
        for a in arrays:
            if a.dtype.kind in "iu" and a.size and int(np.abs(a).max()) > 2**53:
                raise ValueError(f"{name}: integers beyond 2^53 beside floats would be rounded; give one dtype")
    return np.concatenate(arrays, axis=1)


def part_widths(fn: Any, width: int, label: str) -> list[int]:
    """The widths of the heads in one callable's ``width`` output columns: those it declares (a :class:`Layout` of
    ``H`` heads: ``H`` equal parts, never one head whose kernel is their sum), else one head."""
    H = declared_heads(fn)
    if H > 1 and width % H:
        raise ValueError(f"{label}: it declares {H} heads (heads={H}) but returned {width} columns, which do not "
                         f"split into {H} equal heads")
    return [width // H] * H


def head_widths(given: Any, derived: list[int] | None, name: str, what: str, declared: bool = False) -> list[int] | None:
    """The heads' widths: ``given`` (``heads=`` / ``value_heads=``) checked against those the callables give.

    ``declared``: some of ``derived`` come from a callable that declares its heads (a :class:`Layout`); then
    ``given`` must be those, and the message says why one head is not an option."""
    if given is None:
        return derived if derived is not None and len(derived) > 1 else None
    if isinstance(given, (str, bytes)) or not hasattr(given, "__iter__"):
        raise ValueError(f"{name}: a list of integer widths ≥ 1, not {given!r}")
    widths = []
    for v in given:
        if isinstance(v, (bool, np.bool_)) or not isinstance(v, (int, np.integer)) or v < 1:
            raise ValueError(f"{name}: each width must be an integer ≥ 1, not {v!r}")
        widths.append(int(v))
    if derived is not None and len(derived) > 1 and widths != derived:
        if declared:
            raise ValueError(f"{name} = {widths}, but the {what} declare {len(derived)} heads of widths {derived} "
                             f"(a Layout's heads=): several heads are checked as those heads, each with its own "
                             f"denominator, never as one head whose kernel is their sum; leave {name} out, or build "
                             "the Layout with the heads you mean")
        raise ValueError(f"{name} = {widths}, but the per-head {what} have widths {derived}")
    return widths


def evaluate(phi_q: Any, phi_k: Any, *, values: Any = None, readout: Callable | None = None, tokens: Any,
             heads: Any = None, value_heads: Any = None, dtype: Any = None) -> dict[str, np.ndarray]:
    """The table's arrays: each callable run once on ``tokens`` (``(N, m)`` float64) under ``torch.no_grad``.

    Modules are put in ``eval`` mode for the call and restored afterwards, and get the
    tokens on their own device and in their own dtype; plain callables get them in ``dtype``
    (default float64). Returns ``phi_q``, ``phi_k`` and,
    with a readout, ``beta``, ``w``, ``values`` as numpy arrays (outputs below float64 cast
    up, which is exact). Several heads: ``phi_q``, ``phi_k`` (and ``values``) as lists of
    per-head callables, whose columns are put side by side, or one callable each with
    ``heads=[r_0, …]`` (and ``value_heads=[d_0, …]``) cutting its columns; then the arrays
    include ``heads`` and ``value_heads`` (docs/kernel-table-format.md, "Several heads").
    """
    torch = import_torch()
    if (values is None) != (readout is None):
        raise ValueError("values and readout come together (a head without them is checked as kernel only)")
    N = tokens.shape[0]
    out: dict[str, np.ndarray] = {}
    widths: dict[str, list[int]] = {}
    declared: dict[str, bool] = {}
    with torch.no_grad():
        for name, fn in (("phi_q", phi_q), ("phi_k", phi_k), ("values", values)):
            if fn is None:
                continue
            parts = callable_parts(fn)
            if not parts:
                raise ValueError(f"{name}: an empty list of heads")
            labels = head_labels(name, parts)
            arrs = [as_array(call_on_tokens(f, tokens, dtype, None, n), n, N, 2) for f, n in zip(parts, labels)]
            out[name] = _hstack(arrs, name)
            widths[name] = [w for f, a, n in zip(parts, arrs, labels) for w in part_widths(f, a.shape[1], n)]
            declared[name] = any(declared_heads(f) > 1 for f in parts)
        if readout is not None:
            if isinstance(readout, (list, tuple)):
                raise ValueError("readout: one callable, returning β and every head's w side by side "
                                 "((β, w) or one (N, 1 + Σ d_h) tensor), not a list")
            r = call_on_tokens(readout, tokens, dtype, None, "readout")
            if isinstance(r, (tuple, list)):
                if len(r) != 2:
                    raise ValueError(f"readout: expected (beta, w), got {len(r)} outputs")
                if np.ndim(r[0]) == 2 and np.shape(r[0])[1] != 1:
                    raise ValueError(f"readout beta: expected shape ({N},) or ({N}, 1), got {tuple(np.shape(r[0]))}")
                out["beta"] = as_array(r[0], "readout beta", N, 1) if np.ndim(r[0]) != 2 else \
                    as_array(r[0], "readout beta", N, 2)[:, 0]
                out["w"] = as_array(r[1], "readout w", N, 2)
            else:
                both = as_array(r, "readout", N, 2)
                out["beta"], out["w"] = both[:, 0].copy(), both[:, 1:].copy()
    if out["phi_q"].shape[1] != out["phi_k"].shape[1]:
        raise ValueError(f"phi_q has width {out['phi_q'].shape[1]}, phi_k {out['phi_k'].shape[1]}")
    if len(widths["phi_q"]) != len(widths["phi_k"]) or (len(widths["phi_q"]) > 1 and widths["phi_q"] != widths["phi_k"]):
        raise ValueError(f"phi_q's heads have widths {widths['phi_q']}, phi_k's {widths['phi_k']}"
                         + ("; a Layout declares its heads (heads=): give both maps the same heads"
                            if declared["phi_q"] or declared["phi_k"] else ""))
    if "w" in out and out["w"].shape[1] != out["values"].shape[1]:
        raise ValueError(f"readout w has width {out['w'].shape[1]}, values {out['values'].shape[1]}")
    h = head_widths(heads, widths["phi_q"], "heads", "feature maps", declared["phi_q"] or declared["phi_k"])
    vh = head_widths(value_heads, widths.get("values"), "value_heads", "values", declared.get("values", False))
    if h is not None and len(h) > 1 and readout is None and (declared["phi_q"] or declared["phi_k"]):
        raise ValueError(f"phi_q, phi_k declare {len(h)} heads (a Layout's heads={len(h)}): several heads are checked "
                         "as those heads, by their predictions, never as one head whose kernel is their sum; give "
                         "values= and readout= (certify.torch.LinearHead builds them), or check one head alone, kernel "
                         "only: check(phi_q.head(0), phi_k.head(0))")
    if h is not None and len(h) > 1 and "values" in out and vh is None:
        raise ValueError(f"{len(h)} heads: give values as a list of per-head callables, or value_heads=[d_0, …]")
    if h is not None:
        out["heads"] = np.array(h, dtype=np.int64)
    if vh is not None:
        out["value_heads"] = np.array(vh, dtype=np.int64)
    return out


def head_table(phi_q, phi_k, values, readout, fam: FamilySpec, delta, heads=None,
               value_heads=None, dtype=None) -> tuple[KernelTable, dict[str, np.ndarray], list[str]]:
    """The callables evaluated on the family's tokens: ``(table, arrays, token bits)``; ``delta`` a number or a
    :class:`~certify.torch.tensors.KeyEps` (then the table is :class:`QueryScaledTable`)."""
    tokens, _ = family_tokens(fam)
    bits = [token_bits(z, fam.m) for z in tokens]
    X = token_tensor(bits, fam.m)
    arrays = evaluate(phi_q, phi_k, values=values, readout=readout, tokens=X, heads=heads, value_heads=value_heads,
                      dtype=dtype)
    if isinstance(delta, KeyEps):
        return QueryScaledTable(table_from_arrays(bits, arrays, delta.value)), arrays, bits
    return table_from_arrays(bits, arrays, delta), arrays, bits


class QueryScaledTable(KernelTable):
    """The head of ``delta=KeyEps(eps)`` in the model class: query features ``φ_{Q,h}(x)/s_h(x)``, ``δ = eps``.

    ``s_h(x) = Σ_i φ_{Q,h,i}(x)``, head by head. Dividing a head's numerator and denominator
    ``Σ_j α_h(x, x_j) + eps·s_h(x)`` by ``s_h(x) > 0`` leaves its output unchanged, so the
    predictions are the library's; the kernel's rows are scaled by positive numbers, so its
    ranks are too (docs/math.md §2, "A query-dependent denominator"). Exact: the rows of
    ``phi_q`` are divided as rationals when a check reads them; a token whose ``s_h ≤ 0`` is
    refused (the phantom key's weight ``eps·s_h`` must be positive). Not an ``.npz`` table:
    ``φ_Q/s`` is no float64 (``export`` refuses it).
    """

    def __init__(self, table: KernelTable) -> None:
        self.__dict__.update(table.__dict__)

    def _rows(self, name: str, idx: list[int], cols: list[int] | None = None):
        rows = super()._rows(name, idx, None if name == "phi_q" else cols)
        if name != "phi_q":
            return rows
        from flint import fmpq, fmpq_mat

        width = rows.ncols()
        entries = rows.entries()
        out = list(entries)
        start = 0
        for h, r in enumerate(self.heads):
            for k, i in enumerate(idx):
                s = sum(entries[k * width + start:k * width + start + r], fmpq(0))
                if not s > 0:
                    head = f" of head {h}" if len(self.heads) > 1 else ""
                    raise TableFormatError(
                        f"delta=KeyEps: the query features{head} of token {token_bits(self.tokens[i], self.m)} sum to "
                        f"{float(s):.3g}; eps·Σ_i φ_Q,i(x) is then no positive phantom weight (docs/math.md §2, "
                        "\"A query-dependent denominator\"): KeyEps needs query features whose sum is > 0")
                for c in range(start, start + r):
                    out[k * width + c] = entries[k * width + c] / s
            start += r
        scaled = fmpq_mat(len(idx), width, out)
        if cols is None:
            return scaled
        return fmpq_mat(len(idx), len(cols), [scaled[k, c] for k in range(len(idx)) for c in cols])
