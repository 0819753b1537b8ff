"""Kernel tables written as JSON (docs/kernel-table-format.md): parsed exactly, refused before they expand.

The parse is bounded first (the file's size, then the memory its parse needs, estimated from
byte counts as :func:`certify.check.parse_memory_estimate` does); decimal literals become the
decimals they spell, ``"p/q"`` strings their rationals, and spellings whose exact value would
be huge (``1e999999999``) are refused while parsing (:mod:`certify.kernels.numbers`).

>>> t = loads_json('{"tokens": ["10", "01"], "kernel": [[1, "1/2"], [0.25, 1]]}')
>>> t.size, t.m, t.width, t.has_readout, t.entry("kernel", 1, 0)
(2, 2, None, False, Fraction(1, 4))
>>> loads_json('{"tokens": ["10", "01"], "kernel": [[1, 1e999999999], [0, 1]]}')
Traceback (most recent call last):
...
certify.kernels.table.TableFormatError: number 1e999999999 would have 1,000,000,000 digits; at most 1,000 are allowed
"""
from __future__ import annotations

import json
from fractions import Fraction
from typing import Any

from .fields import MAX_TOKENS, NUMERIC, _check_fields, _check_heads, _tokens
from .numbers import (TableFormatError, _check_delta, _check_json_entry, _Decimal, _decimal_parts, _json_entry,
                      _json_float, _json_int, _Matrix, _no_constants, _no_duplicates)
from .table import MAX_JSON_BYTES, KernelTable

__all__ = ["loads_json", "table_of_json_object"]


def loads_json(data: bytes | str) -> KernelTable:
    """Parse a JSON table: decimal literals exact, NaN/Infinity and expanding spellings refused."""
    from ..check import parse_memory_estimate

    raw_bytes = data.encode("utf-8") if isinstance(data, str) else data
    if len(raw_bytes) > MAX_JSON_BYTES:
        raise TableFormatError(f"JSON table larger than {MAX_JSON_BYTES // 2**20} MiB; use an .npz archive")
    estimate = parse_memory_estimate(raw_bytes)
    if estimate > 4 * MAX_JSON_BYTES:
        raise TableFormatError(f"parsing this JSON would need about {estimate / 2**20:,.0f} MiB; "
                               f"at most {4 * MAX_JSON_BYTES // 2**20:,} MiB (use an .npz archive)")
    if isinstance(data, bytes):
        try:
            data = data.decode("utf-8")
        except UnicodeDecodeError:
            raise TableFormatError("table is not UTF-8 text") from None
    try:
        raw = json.loads(data, parse_float=_json_float, parse_int=_json_int, parse_constant=_no_constants,
                         object_pairs_hook=_no_duplicates)
    except TableFormatError:
        raise
    except (json.JSONDecodeError, RecursionError, ValueError) as exc:
        raise TableFormatError(f"invalid JSON: {str(exc).splitlines()[0][:120] if str(exc) else type(exc).__name__}") from None
    return table_of_json_object(raw)


def table_of_json_object(raw: Any) -> KernelTable:
    """The table of a parsed JSON object (or a JSON-like dict), every field and entry checked."""
    if not isinstance(raw, dict):
        raise TableFormatError("a JSON table is an object with fields tokens, phi_q/phi_k or kernel, …")
    raw = {k: v for k, v in raw.items() if k != "note"}
    delta = Fraction(0)
    if "delta" in raw:
        _check_json_entry(raw["delta"], "delta")
        delta = _check_delta(Fraction(*_json_entry(raw.pop("delta"))))
    if "tokens" not in raw:
        raise TableFormatError("missing field 'tokens'")
    if not isinstance(raw["tokens"], list):
        raise TableFormatError("tokens: expected an array")
    rows = []
    for i, t in enumerate(raw["tokens"]):
        if isinstance(t, list):
            bits = []
            for k, b in enumerate(t):
                v = Fraction(*_decimal_parts(b)) if isinstance(b, _Decimal) else b if type(b) is int else None
                if v not in (0, 1):
                    raise TableFormatError(f"tokens[{i}][{k}] is {json.dumps(b) if not isinstance(b, _Decimal) else b}; "
                                           "token entries must be 0 or 1")
                bits.append("01"[int(v)])
            t = "".join(bits)
        elif not isinstance(t, str):
            raise TableFormatError(f"tokens[{i}]: expected a 0/1 string or a row of 0/1 integers")
        rows.append(t)
    if len(rows) > MAX_TOKENS:
        raise TableFormatError(f"tokens: {len(rows):,} tokens; at most {MAX_TOKENS:,}")
    shapes: dict[str, tuple[int, ...]] = {}
    for name in ("heads", "value_heads"):
        if name in raw:
            if not isinstance(raw[name], list):
                raise TableFormatError(f"{name}: expected an array of integers")
            shapes[name] = (len(raw[name]),)
    for name, v in raw.items():
        if name not in NUMERIC:
            continue
        if not isinstance(v, list):
            raise TableFormatError(f"{name}: expected an array")
        if name == "beta":
            shapes[name] = (len(v),)
            continue
        for i, row in enumerate(v):
            if not isinstance(row, list):
                raise TableFormatError(f"{name}[{i}]: expected an array (a row)")
        width = len(v[0]) if v else 0
        for i, row in enumerate(v):
            if len(row) != width:
                raise TableFormatError(f"{name}[{i}] has {len(row)} columns; {name}[0] has {width}")
        shapes[name] = (len(v), width)
    _check_fields(set(raw), shapes, len(rows))
    tokens, m = _tokens(rows)
    fields = {}
    for name, shape in shapes.items():
        v = raw[name]
        if name in ("heads", "value_heads"):
            continue
        if len(shape) == 1:
            for i, x in enumerate(v):
                _check_json_entry(x, f"{name}[{i}]")
        else:
            for i, row in enumerate(v):
                for j, x in enumerate(row):
                    _check_json_entry(x, f"{name}[{i}][{j}]")
        fields[name] = _Matrix(name, v, shape)
    widths = [None if k not in raw else [x if type(x) is int else str(x) for x in raw[k]] for k in ("heads", "value_heads")]
    return KernelTable(tokens, m, fields, delta, *_check_heads(fields, *widths))
