"""Bound values for a given ``m``: the paper's closed forms and the same arguments evaluated exactly.

docs/math.md §7 restates each bound; ``docs/bounds.md`` derives every value printed by
``certify bounds``. The sections:

* :func:`theorem1` — one head, length 3, error < 1/2 (A.2): the closed form
  ``2^{4⌊M/40⌋−1}`` (even ``M ≥ 168``) and the argument evaluated exactly — the
  Gilbert–Varshamov code size ``T_Δ = ⌈C(M, M/2)/V_Δ(M)⌉``, the best chain split of
  the overlap rise ``Δ`` (factor ``Λ_Δ``), and the trace–Frobenius bound
  ``⌊T Λ² / (Λ² + T − 1)⌋ + 1``, maximized over ``Δ``;
* :func:`shell` (A.3) and :func:`unique_minimizer` (A.4): ``2^{cM}/(μ²(M+1)V_g(M))``;
* :func:`growing_context` (A.2), :func:`heads` (B.1–B.2), :func:`degree` (B.4),
  :func:`transcripts` (C.3–C.4).

This module is the public face of :mod:`certify.bounds`: every section at one ``m``
(:func:`all_bounds`), its JSON (:func:`to_json`) and the rows of a range (:func:`range_rows`).
The parts, one object each: :mod:`~certify.bounds.quantities` (what a value is),
:mod:`~certify.bounds.chains` (chain factors), :mod:`~certify.bounds.code_sizes` (code
sizes ``T_Δ``), :mod:`~certify.bounds.trace_frobenius` (the value of a code and its best
distance), :mod:`~certify.bounds.sections` (the paper's bounds).

Values are exact integers up to ``M = EXACT_LIMIT``; above it the exact evaluation
would need integers of hundreds of thousands of digits, and values become certified
intervals (python-flint ``arb``) of ``log₂``, with the distance chosen by a
floating-point search (any distance gives a valid bound; the value at the chosen one
is certified). Every value carries its kind: ``closed_form``, ``exact`` or
``interval``.

>>> t = theorem1(168)
>>> t.closed_form.value, t.exact.value, t.parameters["distance"]
(32768, 1389433, 26)
>>> g_heads(1), g_heads(2), g_heads(3)
(8, 172, 5468)
>>> theorem1(0)
Traceback (most recent call last):
...
certify.bounds.quantities.BoundsInputError: m must be an integer between 1 and 1000000, not 0
"""
from __future__ import annotations

from typing import Any, Callable, Iterable

from .chains import ChainTable
from .quantities import EXACT_LIMIT, M_MAX, BoundsInputError, Quantity, Section, check_m, even
from .sections import constants, degree, g_heads, growing_context, heads, shell, theorem1, transcripts, unique_minimizer
from .trace_frobenius import null_shifted_tf_bound, shifted_tf_bound, tf_bound

__all__ = [
    "EXACT_LIMIT",
    "M_MAX",
    "BoundsInputError",
    "Quantity",
    "Section",
    "ChainTable",
    "tf_bound",
    "shifted_tf_bound",
    "null_shifted_tf_bound",
    "g_heads",
    "constants",
    "theorem1",
    "shell",
    "unique_minimizer",
    "growing_context",
    "heads",
    "degree",
    "transcripts",
    "all_bounds",
    "to_json",
    "range_rows",
]


def all_bounds(m: int, length: int | None = None, H: int | None = None, D: int | None = None,
               s: int | None = None) -> dict[str, Any]:
    """Every section at ``m`` (the optional ones when their parameter is given), for the CLI."""
    m = check_m(m)
    M = even(m)
    out: dict[str, Any] = {
        "m": m,
        "M": M,
        "mode": "exact" if M <= EXACT_LIMIT else "interval",
        "theorem1": theorem1(m),
        "constants": constants(),
        "shell": shell(m),
        "unique_minimizer": unique_minimizer(m),
        "growing_context": growing_context(m, length) if length is not None else None,
        "heads": heads(m, H) if H is not None else None,
        "degree": degree(m, D) if D is not None else None,
        "transcripts": transcripts(m, s, length),
    }
    return out


def to_json(bounds: dict[str, Any]) -> dict[str, Any]:
    """The stable JSON object of ``certify bounds --json`` (schema ``certify.bounds/1``; docs/bounds.md)."""
    out: dict[str, Any] = {"schema": "certify.bounds/1"}
    for key, val in bounds.items():
        out[key] = val.to_json() if isinstance(val, Section) else val
    t1 = bounds["theorem1"]
    out["theorem1"]["closed_form"] = t1.closed_form.value if t1.closed_form else None
    out["theorem1"]["exact"] = t1.exact.value
    if bounds.get("heads") is not None:
        out["heads"]["g_H"] = bounds["heads"].parameters["g_H"]
    if bounds.get("degree") is not None:
        out["degree"]["g_D"] = bounds["degree"].parameters["g_D"]
    return out


RANGE_COLUMNS = ("theorem1.closed_form", "theorem1.exact", "shell", "unique_minimizer",
                 "growing_context.exact", "heads.exact", "degree.exact")


def range_rows(ms: Iterable[int], length: int | None = None, H: int | None = None,
               D: int | None = None, progress: Callable[[int], None] | None = None) -> list[dict[str, Any]]:
    """``log₂`` of each bound for every ``m`` in ``ms`` (None where a bound does not apply or is trivial).

    Each ``m`` is evaluated on its own, exactly as at ``--m``; consecutive ``m`` share the
    chain-factor tables (:func:`chain_table`) and the sections at one ``m`` share its
    middle-layer balls (:func:`layer_sizes`). ``progress``, if given, is called with the number
    of ``m`` done after each one (the CLI passes ``certify.check.Progress.update``).
    """
    rows = []
    for m in ms:
        row: dict[str, Any] = {"m": m}
        t1 = theorem1(m)
        picks = {
            "theorem1.closed_form": t1.closed_form,
            "theorem1.exact": t1.exact,
            "shell": shell(m).closed_form,
            "unique_minimizer": unique_minimizer(m).closed_form,
        }
        if length is not None:
            picks["growing_context.exact"] = growing_context(m, length).exact
        if H is not None:
            picks["heads.exact"] = heads(m, H).exact
        if D is not None:
            picks["degree.exact"] = degree(m, D).exact
        for col, q in picks.items():
            row[col] = round(sum(q.log2) / 2, 4) if q is not None and q.nontrivial else None
        rows.append(row)
        if progress is not None:
            progress(len(rows))
    return rows
