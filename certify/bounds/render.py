"""Text for people from the values of :mod:`certify.bounds.values` (``certify bounds`` without ``--json``).

Presentation only: nothing here computes a bound. Exact integers too long to print are
shown by their size; the JSON output keeps every value exact.
"""
from __future__ import annotations

import math
from typing import Any

from .values import EXACT_LIMIT, RANGE_COLUMNS, Quantity

__all__ = ["quantity_text", "render_text", "render_range"]


def _decimal_digits(n: int) -> int:
    """Number of decimal digits of ``n > 0`` without converting it to a string."""
    d = int(n.bit_length() * 0.30102999566398120) + 1
    return d if n >= 10 ** (d - 1) else d - 1


def _log2_text(q: Quantity) -> str:
    lo, hi = q.log2
    if hi - lo < 1e-6:
        return f"2^{(lo + hi) / 2:.2f}"
    return f"2^[{lo:.2f}, {hi:.2f}]"


def quantity_text(q: Quantity) -> str:
    """A value with its ``log₂``; an exact integer over 128 bits is shown by its number of digits."""
    if q.value is not None and q.value.bit_length() <= 128:
        return f"{q.value:,}  ≈ {_log2_text(q)}"
    if q.value is not None:  # an exact integer too long to print usefully (see --json)
        return f"≈ {_log2_text(q)} (an exact integer of {_decimal_digits(q.value)} digits)"
    return f"≈ {_log2_text(q)}"


_TITLES = {
    "theorem1": "Theorem 1 (A.2): one head, exact length 3, error < 1/2",
    "shell": "Shell counting (A.3): one head, exact length 3",
    "unique_minimizer": "Unique minimizer (A.4): three distinct tokens of M + 2 bits",
    "growing_context": "Growing context (A.2): one head, exact length n",
    "heads": "H heads (B.1–B.2): total rank R = Σ r_h",
    "degree": "Polynomial readout of degree D (B.4): one head",
    "transcripts": "Finite-precision transcripts (§5.2, C.3–C.4)",
}
_MISSING = {"growing_context": "--length n", "heads": "--heads H", "degree": "--degree D"}
_LABELS = {"closed_form": "closed form", "exact": "exact", "code_size": "code size |C| ≥", "shifted": "exact, shifted",
           "null_shifted": "null-shifted"}


def _param_text(params: dict[str, Any]) -> str:
    parts = []
    for k, v in params.items():
        if k in ("M", "length", "error_below", "answers") or v is None:
            continue
        if isinstance(v, dict):
            v = (", ".join(f"gap {g} ×{c}" for g, c in v.items()) if all(isinstance(g, int) for g in v)
                 else "(" + ", ".join(f"{a} {_short(b)}" for a, b in v.items()) + ")")
        parts.append(f"{k} = {_short(v)}")
    return ", ".join(parts)


def _short(v: Any) -> str:
    if isinstance(v, int) and not isinstance(v, bool) and v.bit_length() > 64:
        return f"≈2^{math.log2(v):.2f}"
    if isinstance(v, float):
        return f"{v:.6g}"
    if isinstance(v, list) and len(v) == 2 and all(isinstance(x, float) for x in v):
        return f"[{v[0]:.6g}, {v[1]:.6g}]"
    return str(v)


def render_text(bounds: dict[str, Any]) -> list[str]:
    """The human summary of :func:`all_bounds` (``certify bounds`` without ``--json``)."""
    mode = ("exact integers" if bounds["mode"] == "exact"
            else f"M > {EXACT_LIMIT}: certified intervals (python-flint arb), not exact integers")
    lines = [f"certify bounds  m = {bounds['m']}, M = 2⌊m/2⌋ = {bounds['M']}  ({mode})"]
    c = bounds["constants"]
    lines.append(f"constants  c₃ = {c['c3']:.6f} (A.3),  c_uniq = {c['c_uniq']:.6f} (A.4)")
    for key, title in _TITLES.items():
        sec = bounds.get(key)
        lines.append("")
        lines.append(title)
        if sec is None:
            lines.append(f"  pass {_MISSING[key]}")
            continue
        if not sec.applies:
            lines.append("  does not apply at this m")
        for name, q in sec.values.items():
            label = _LABELS.get(name, name)
            lines.append(f"  {label:<15} {quantity_text(q)}   [{q.kind}{'' if q.nontrivial else '; trivial: says only r ≥ 1'}]")
        text = _param_text(sec.parameters)
        if text:
            lines.append(f"  parameters      {text}")
        for note in sec.notes:
            lines.append(f"  note            {note}")
    return lines


def render_range(rows: list[dict[str, Any]]) -> list[str]:
    """The table of ``certify bounds --m-range`` (log₂ of each bound, ``—`` where trivial)."""
    cols = [c for c in RANGE_COLUMNS if any(r.get(c) is not None for r in rows)]
    lines = ["log₂ of each lower bound (— where trivial or not applicable)",
             "m".rjust(8) + "".join(c.rjust(22) for c in cols)]
    for r in rows:
        lines.append(str(r["m"]).rjust(8) + "".join(("—" if r.get(c) is None else f"{r[c]:.2f}").rjust(22) for c in cols))
    return lines
