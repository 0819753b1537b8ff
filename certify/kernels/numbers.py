"""Exact numbers of a kernel table: number spellings, entries as exact rationals, and the format's error.

A table's numbers become exact only when a check asks for them (``certify.kernels.table``):
a JSON decimal literal is the decimal it spells (``0.1`` in JSON is ``1/10``), a ``"p/q"``
string is ``p/q``, a binary float of a numpy array is the rational it denotes (``0.1`` in
an ``.npz`` is ``3602879701896397/36028797018963968``). Number spellings whose exact value
would be huge (``1e999999999``) are refused while parsing, from the spelling alone, before
the number is built (:data:`MAX_DIGITS`).

>>> _decimal_parts(_json_float("-1.25e-1"))
(-125, 1000)
>>> _json_entry("3/6"), _json_entry(_json_float("2e3"))
((3, 6), (2000, 1))
"""
from __future__ import annotations

import json
import re
from fractions import Fraction
from typing import Any

MAX_DIGITS = 1000  # of an exact JSON number: numerator and denominator each


class TableFormatError(ValueError):
    """The table file is unreadable or malformed (exit 2); the message names the field."""


# Raised here and by every reader of a table; its public name is certify.kernels.table.TableFormatError
# (re-exported there), which is what tracebacks and pickles keep calling it.
TableFormatError.__module__ = "certify.kernels.table"


_DECIMAL = re.compile(r"-?(0|[1-9][0-9]*)(?:\.([0-9]+))?(?:[eE]([+-]?[0-9]+))?\Z")
_RATIONAL = re.compile(r"\s*(-?[0-9]+)(?:/([0-9]+))?\s*\Z")


class _Decimal(str):
    """A JSON decimal literal, validated and kept as text until its exact value is needed."""


def _decimal_parts(text: str) -> tuple[int, int]:
    """``(numerator, denominator)`` of a decimal literal whose size was checked by :func:`_json_float`."""
    mo = _DECIMAL.match(text)
    whole, frac, exp = mo.group(1), mo.group(2) or "", int(mo.group(3) or 0)
    num = int(whole + frac) * (-1 if text.startswith("-") else 1)
    shift = exp - len(frac)
    return (num * 10**shift, 1) if shift >= 0 else (num, 10**-shift)


def _json_float(text: str) -> _Decimal:
    mo = _DECIMAL.match(text)
    if mo is None:
        raise TableFormatError(f"number {text[:40]} is not a JSON decimal literal")
    digits = len(mo.group(1)) + len(mo.group(2) or "")
    exp = (mo.group(3) or "0").lstrip("+-").lstrip("0") or "0"
    # Decide from the exponent's spelling alone: never build a power larger than the limit.
    if len(exp) > 12:
        raise TableFormatError(f"number {text[:40]}… has an exponent of {len(exp):,} digits; "
                               f"at most {MAX_DIGITS:,} digits are allowed in a number")
    if digits + int(exp) > MAX_DIGITS:
        raise TableFormatError(f"number {text[:40]} would have {digits + int(exp):,} digits; "
                               f"at most {MAX_DIGITS:,} are allowed")
    return _Decimal(text)


def _json_int(text: str) -> int:
    if len(text.lstrip("-")) > MAX_DIGITS:
        raise TableFormatError(f"integer of {len(text):,} digits; at most {MAX_DIGITS:,} are allowed")
    return int(text)


def _no_constants(text: str):
    raise TableFormatError(f"{text} is not a number")


def _no_duplicates(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for k, v in pairs:
        if k in out:
            raise TableFormatError(f"key {k[:40]!r} appears twice in one object")
        out[k] = v
    return out


def _check_json_entry(v: Any, where: str) -> None:
    """Validate one JSON entry's type and spelling (no conversion)."""
    if isinstance(v, bool) or v is None:
        raise TableFormatError(f"{where}: expected a number, got {json.dumps(v)}")
    if isinstance(v, (int, _Decimal, Fraction)):
        return
    if isinstance(v, str):
        mo = _RATIONAL.match(v) if len(v) <= 2 * MAX_DIGITS + 3 else None
        if mo is None or len(mo.group(1).lstrip("-")) > MAX_DIGITS or len(mo.group(2) or "") > MAX_DIGITS:
            raise TableFormatError(f"{where}: {v[:40]!r} is not a rational number \"p/q\" (at most {MAX_DIGITS:,} digits each)")
        if mo.group(2) is not None and int(mo.group(2)) == 0:
            raise TableFormatError(f"{where}: {v[:40]!r} is not a rational number (zero denominator)")
        return
    raise TableFormatError(f"{where}: expected a number, got {type(v).__name__}")


def _json_entry(v: Any) -> tuple[int, int]:
    """Exact ``(numerator, denominator)`` of a validated JSON entry."""
    if isinstance(v, _Decimal):
        return _decimal_parts(v)
    if isinstance(v, str):
        mo = _RATIONAL.match(v)
        return int(mo.group(1)), int(mo.group(2) or 1)
    if isinstance(v, Fraction):
        return v.numerator, v.denominator
    return int(v), 1


def _np_entries(sub) -> list[tuple[int, int]]:
    """Exact ``(numerator, denominator)`` of every entry of a numpy block (ints, bools, finite floats)."""
    kind = sub.dtype.kind
    if kind == "f":
        if sub.dtype.itemsize <= 8:  # tolist() gives Python floats, exact for these widths
            return [x.as_integer_ratio() for x in sub.ravel().tolist()]
        return [x.as_integer_ratio() for x in sub.ravel()]  # long double: numpy scalars, exact
    return [(int(x), 1) for x in sub.ravel().tolist()]


class _Matrix:
    """One numeric field held in memory (JSON: nested lists; or a numpy array), converted on demand."""

    def __init__(self, name: str, data: Any, shape: tuple[int, ...]) -> None:
        self.name, self.data, self.shape = name, data, shape

    def prepare(self, rows: list[int]) -> None:
        """Nothing to do: the data are in memory (see :class:`certify.kernels.npz._NpzMatrix`)."""

    def pairs(self, rows: list[int], cols: list[int] | None) -> list[tuple[int, int]]:
        """``(numerator, denominator)`` of the entries in ``rows`` × ``cols`` (all columns if None), row-major."""
        d = self.data
        if len(self.shape) == 1:
            return _np_entries(d[rows]) if hasattr(d, "dtype") else [_json_entry(d[i]) for i in rows]
        if hasattr(d, "dtype"):
            import numpy as np

            return _np_entries(d[np.ix_(rows, cols)] if cols is not None else d[rows])
        return [_json_entry(d[i][j]) for i in rows for j in (range(self.shape[1]) if cols is None else cols)]


def _fmpq_mat(nrows: int, ncols: int, pairs: list[tuple[int, int]]):
    from flint import fmpq, fmpq_mat

    return fmpq_mat(nrows, ncols, [fmpq(p, q) for p, q in pairs])


def _display(value: Fraction) -> str:
    """A number for a message: exact when short (``-3/4``), else a six-digit decimal (for display only)."""
    if value.denominator == 1 and value.numerator.bit_length() <= 64 or len(str(value)) <= 12:
        return str(value)
    try:
        return f"{float(value):.6g}"
    except OverflowError:
        return "a number beyond a float64's range" if value > 0 else "a negative number"


def _check_delta(value: Fraction) -> Fraction:
    if value < 0:
        raise TableFormatError(f"delta is {_display(value)}; the denominator constant must be ≥ 0")
    return value
