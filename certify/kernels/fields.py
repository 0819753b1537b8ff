"""The fields of a kernel table and their shapes, and its tokens, checked before any entry is read.

Which fields go together (``phi_q`` with ``phi_k``, or ``kernel``; a readout ``beta`` with
``w`` and optionally ``values``; the multi-head widths ``heads``, ``value_heads``), the shape
each must have given ``N`` tokens, and the tokens themselves (0/1 strings of one length, no
repeats): docs/kernel-table-format.md. Every reader of a table (``certify.kernels.table``:
JSON, arrays; ``certify.kernels.npz``: archives) checks these from the shapes alone.

>>> _tokens(["10", "01"])
((1, 2), 2)
>>> _check_fields({"tokens", "kernel", "beta"}, {"kernel": (2, 2), "beta": (2,)}, 2)
Traceback (most recent call last):
...
certify.kernels.table.TableFormatError: a readout needs both 'beta' and 'w' ('values' is optional)
"""
from __future__ import annotations

from typing import Any

from .numbers import TableFormatError, _Matrix

KEYS = ("tokens", "phi_q", "phi_k", "kernel", "beta", "w", "values", "delta", "heads", "value_heads", "note")
NUMERIC = ("phi_q", "phi_k", "kernel", "beta", "w", "values")
MAX_TOKENS = 10**6
MAX_HEADS = 64  # the multi-head form: entries of 'heads' (and 'value_heads')
MAX_TOKEN_BITS = 4096


def _tokens(rows: list[str], name: str = "tokens") -> tuple[tuple[int, ...], int]:
    """0/1 strings → (bitmasks, m); lengths equal, no repeats."""
    if not rows:
        raise TableFormatError(f"{name}: no tokens")
    if len(rows) > MAX_TOKENS:
        raise TableFormatError(f"{name}: {len(rows):,} tokens; at most {MAX_TOKENS:,}")
    m = len(rows[0])
    if not 1 <= m <= MAX_TOKEN_BITS:
        raise TableFormatError(f"{name}[0] has length {m}; tokens have 1 to {MAX_TOKEN_BITS} bits")
    masks = []
    seen: dict[int, int] = {}
    for i, s in enumerate(rows):
        if not isinstance(s, str) or not s or s.strip("01"):
            raise TableFormatError(f"{name}[{i}]: {str(s)[:40]!r} is not a nonempty 0/1 string")
        if len(s) != m:
            raise TableFormatError(f"{name}[{i}] has length {len(s)}, {name}[0] has {m}")
        x = int(s[::-1], 2)
        if x in seen:
            raise TableFormatError(f"{name}[{i}] repeats {name}[{seen[x]}] ({s[:40]})")
        seen[x] = i
        masks.append(x)
    return tuple(masks), m


def _check_bits(tok) -> None:
    """Refuse a numeric token array with an entry other than 0 or 1, naming the first (any integer dtype, bool, float)."""
    import numpy as np

    if not tok.size:
        return
    bad = ~((tok == 0) | (tok == 1))  # NaN compares unequal to both: refused too
    if bad.any():
        i, k = (int(v) for v in np.argwhere(bad)[0])
        raise TableFormatError(f"tokens[{i}][{k}] is {tok[i, k].item()!r}; token entries must be 0 or 1")


def _check_fields(names: set[str], shapes: dict[str, tuple[int, ...]], N: int) -> None:
    """Which fields go together and what shape each must have (before any entry is read)."""
    unknown = sorted(n for n in names if n not in KEYS)
    if unknown:
        name = unknown[0][:40] + ("…" if len(unknown[0]) > 40 else "")
        raise TableFormatError(f"unknown field {name!r}; a table has {', '.join(KEYS)}")
    has_factors = "phi_q" in names or "phi_k" in names
    if has_factors == ("kernel" in names):
        raise TableFormatError("give either 'phi_q' and 'phi_k' or 'kernel', not both and not neither")
    if has_factors and not ("phi_q" in names and "phi_k" in names):
        raise TableFormatError("'phi_q' and 'phi_k' come together")
    if any(k in names for k in ("beta", "w", "values")) and not ("beta" in names and "w" in names):
        raise TableFormatError("a readout needs both 'beta' and 'w' ('values' is optional)")
    if "heads" in names and not has_factors:
        raise TableFormatError("'heads' (the multi-head form) needs 'phi_q' and 'phi_k', not 'kernel'")
    if "value_heads" in names and not ("heads" in names and "values" in names):
        raise TableFormatError("'value_heads' comes with 'heads' and 'values'")
    for name, shape in shapes.items():
        if name in ("heads", "value_heads"):
            if len(shape) != 1 or not 1 <= shape[0] <= MAX_HEADS:
                raise TableFormatError(f"{name} must list 1 to {MAX_HEADS} widths (one-dimensional), got shape {shape}")
        elif name == "beta":
            if len(shape) != 1:
                raise TableFormatError(f"beta must be one-dimensional, got shape {shape}")
        elif len(shape) != 2:
            raise TableFormatError(f"{name} must be two-dimensional, got shape {shape}")

    def rows(name: str, cols: int | None) -> None:
        shape = shapes[name]
        if shape[0] != N:
            what = "entries" if len(shape) == 1 else "rows"
            raise TableFormatError(f"{name} has {shape[0]:,} {what}; expected N = {N:,}")
        if cols is not None and shape[1] != cols:
            raise TableFormatError(f"{name} has {shape[1]:,} columns; expected {cols:,}")

    def width(name: str) -> int:
        if shapes[name][1] < 1:
            raise TableFormatError(f"{name} needs at least one column")
        return shapes[name][1]

    pairs = [("phi_q", width("phi_q")), ("phi_k", width("phi_q"))] if has_factors else [("kernel", N)]
    if "beta" in names:
        pairs += [("beta", None)] + ([("values", width("values")), ("w", width("values"))] if "values" in names else [("w", N)])
    for name, cols in pairs:
        rows(name, cols)
    if "heads" in names and shapes["heads"][0] > 1 and "beta" in names:
        if "value_heads" not in names:
            raise TableFormatError("a readout of several heads needs 'values' and 'value_heads' (each head's value columns)")
        if shapes["value_heads"][0] != shapes["heads"][0]:
            raise TableFormatError(f"value_heads lists {shapes['value_heads'][0]} widths, heads {shapes['heads'][0]}")
    elif "value_heads" in names and shapes["value_heads"][0] != shapes["heads"][0]:
        raise TableFormatError(f"value_heads lists {shapes['value_heads'][0]} widths, heads {shapes['heads'][0]}")


def _check_heads(fields: dict[str, "_Matrix"], heads: list[Any] | None,
                 value_heads: list[Any] | None) -> tuple[tuple[int, ...] | None, tuple[int, ...] | None]:
    """The widths of the multi-head form: integers ``≥ 1`` summing to the columns of the factors (values)."""
    out = []
    for name, vals, field in (("heads", heads, "phi_q"), ("value_heads", value_heads, "values")):
        if vals is None:
            out.append(None)
            continue
        widths = []
        for i, v in enumerate(vals):
            if type(v) is not int or v < 1:
                shown = repr(v) if len(repr(v)) <= 40 else repr(v)[:40] + "…"
                raise TableFormatError(f"{name}[{i}] is {shown}; each width must be an integer ≥ 1")
            widths.append(v)
        total = fields[field].shape[1]
        if sum(widths) != total:
            shown = f"{sum(widths):,}" if sum(widths).bit_length() < 64 else "more than 2^64"
            raise TableFormatError(f"{name} sums to {shown}; {field} has {total:,} columns")
        out.append(tuple(widths))
    return out[0], out[1]
