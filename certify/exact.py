"""Exact numbers at the boundary of ``certify``: accept int/Fraction/fmpq, refuse floats.

Every function in ``certify`` that does arithmetic takes its numbers through
:func:`exact`, so a float can never slip into a check (STYLE.md, "Exact or refuse").
Floats read from user files are converted once, exactly, with :func:`from_float`.

>>> exact(3), exact(Fraction(1, 2))
(Fraction(3, 1), Fraction(1, 2))
>>> from_float(0.1)
Fraction(3602879701896397, 36028797018963968)
>>> exact(0.5, "error")
Traceback (most recent call last):
...
TypeError: Argument 'error' must be exact (int, Fraction or fmpq), not float 0.5
"""
from __future__ import annotations

import math
from fractions import Fraction
from typing import Any

__all__ = ["exact", "from_float", "Fraction"]


def exact(value: Any, name: str = "value") -> Fraction:
    """Return ``value`` as a ``Fraction``; raise ``TypeError`` unless it is exact.

    Accepts ``int`` (not ``bool``), ``Fraction`` and python-flint ``fmpz``/``fmpq``.
    """
    if isinstance(value, bool):
        raise TypeError(f"Argument {name!r} must be exact (int, Fraction or fmpq), not bool")
    if isinstance(value, (int, Fraction)):
        return Fraction(value)
    kind = type(value).__name__
    if kind == "fmpq":
        return Fraction(int(value.p), int(value.q))
    if kind == "fmpz":
        return Fraction(int(value))
    raise TypeError(f"Argument {name!r} must be exact (int, Fraction or fmpq), not {kind} {value!r}")


def from_float(value: float) -> Fraction:
    """The exact rational value of a finite float (no rounding); ``ValueError`` on NaN/inf."""
    if not math.isfinite(value):
        raise ValueError(f"{value!r} is not a finite number")
    return Fraction(value)
