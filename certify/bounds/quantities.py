"""What a bound value is: an integer, exact or pinned down by a certified interval (docs/bounds.md).

:class:`Quantity` is one lower bound with its kind (``closed_form``, ``exact`` or
``interval``) and a certified enclosure of its ``log₂``; :class:`Section` is one bound of
the paper at one ``m`` with its values, parameters and notes. The interval helpers work in
python-flint ``arb`` at :data:`PREC` bits; floats appear only as outward-rounded display
endpoints.
"""
from __future__ import annotations

import math
from contextlib import contextmanager
from dataclasses import dataclass, field
from fractions import Fraction
from typing import Any

__all__ = ["EXACT_LIMIT", "M_MAX", "PREC", "BoundsInputError", "Quantity", "Section", "precision", "outward", "arb_log2", "log2_int", "interval_quantity", "check_m", "even"]


EXACT_LIMIT = 20_000  # largest even M evaluated with exact integers


M_MAX = 10**6


PREC = 192  # bits of arb precision for interval mode


class BoundsInputError(ValueError):
    """An argument is out of the supported range (the CLI turns this into exit 2)."""


@contextmanager
def precision(bits: int = PREC):
    from flint import ctx

    old = ctx.prec
    ctx.prec = bits
    try:
        yield
    finally:
        ctx.prec = old


def outward(lo, hi) -> tuple[float, float]:
    """Float endpoints rounded outward from arb endpoints (display only; still enclose)."""
    return math.nextafter(float(lo), -math.inf), math.nextafter(float(hi), math.inf)


def arb_log2(x) -> tuple[float, float]:
    from flint import arb

    with precision():
        y = x.log() / arb(2).log()
        return outward(y.lower(), y.upper())


def log2_int(n: int) -> tuple[float, float]:
    from flint import arb, fmpz

    with precision():
        return arb_log2(arb(fmpz(n)))


@dataclass(frozen=True)
class Quantity:
    """A lower bound on a rank (or a size), with what it is.

    ``kind`` is ``"closed_form"`` (the paper's formula), ``"exact"`` (the argument
    evaluated with integers and rationals) or ``"interval"`` (evaluated with certified
    interval arithmetic; ``value`` is then the integer when the interval pins it down,
    else None). ``log2`` is a certified enclosure of ``log₂`` of the value.
    """

    kind: str
    value: int | None
    log2: tuple[float, float]

    @classmethod
    def of_int(cls, n: int, kind: str = "exact") -> "Quantity":
        return cls(kind, n, log2_int(n) if n > 0 else (-math.inf, -math.inf))

    @property
    def nontrivial(self) -> bool:
        """Whether the bound says more than ``r ≥ 1`` (every head has rank ≥ 1)."""
        return self.value >= 2 if self.value is not None else self.log2[0] >= 1

    def to_json(self) -> dict[str, Any]:
        lo, hi = self.log2
        return {
            "kind": self.kind,
            "value": self.value,
            "log2": None if math.isinf(lo) else round((lo + hi) / 2, 6),
            "log2_interval": None if math.isinf(lo) else [lo, hi],
            "nontrivial": self.nontrivial,
        }


@dataclass(frozen=True)
class Section:
    """One bound of the paper at one ``m``: its values, parameters and notes."""

    name: str
    ref: str
    applies: bool
    values: dict[str, Quantity] = field(default_factory=dict)
    parameters: dict[str, Any] = field(default_factory=dict)
    notes: tuple[str, ...] = ()

    @property
    def closed_form(self) -> Quantity | None:
        return self.values.get("closed_form")

    @property
    def exact(self) -> Quantity | None:
        return self.values.get("exact")

    def to_json(self) -> dict[str, Any]:
        def plain(v):
            if isinstance(v, Fraction):
                return str(v)
            if isinstance(v, tuple):
                return list(v)
            return v

        return {
            "section": self.ref,
            "applies": self.applies,
            "values": {k: q.to_json() for k, q in self.values.items()},
            "parameters": {k: plain(v) for k, v in self.parameters.items()},
            "notes": list(self.notes),
        }


def interval_quantity(lo, hi, kind: str = "interval") -> Quantity:
    """An integer bound known to lie in ``[lo, hi]`` (arb reals; ``lo ≥ 1``)."""
    from flint import arb

    # At the caller's precision: the floors must be exact to pin the integer down.
    a, b = lo.floor().unique_fmpz(), hi.floor().unique_fmpz()
    value = int(a) if a is not None and a == b else None
    lo = lo if lo > 1 else arb(1)
    return Quantity(kind, value, (arb_log2(lo)[0], arb_log2(hi)[1]))


def check_m(m: Any) -> int:
    if isinstance(m, bool) or not isinstance(m, int) or not 1 <= m <= M_MAX:
        raise BoundsInputError(f"m must be an integer between 1 and {M_MAX}, not {m!r}")
    return m


def even(m: int) -> int:
    return 2 * (m // 2)
