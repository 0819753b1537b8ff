"""Text for ``certify construction``: what was built, what was enumerated, the verdict (docs/math.md §8).

Presentation only; the numbers come from :mod:`certify.constructions.exhaustive` and
:mod:`certify.constructions.one_hot`.
"""
from __future__ import annotations

from fractions import Fraction

from ..check import format_rational
from .exhaustive import Result

__all__ = ["render_result", "render_one_hot"]


def _q(value: Fraction) -> str:
    text = format_rational(value)
    if value.denominator == 1:
        return text
    return f"{text} ≈ {float(value):.6g}" if len(text) <= 24 else f"≈ {float(value):.6g}"


def render_result(r: Result) -> list[str]:
    """Lines for an exhaustive run (the CLI prints them after a header)."""
    c, w = r.construction, r.worst
    eps = format_rational(r.error_below)
    lines = [f"head         {c.title}",
             f"             feature rank r = {c.feature_width:,}; {c.reference}",
             f"enumerated   {r.enumerated}"]
    if r.solves:
        exact = "exact on every input" if r.max_error == 0 else f"max error {_q(r.max_error)} < {eps} on every input"
        lines.append(f"solves       yes: {exact}")
    else:
        lines.append(f"solves       no: {r.failing_inputs:,} of {r.inputs_checked:,} inputs have error ≥ {eps}; "
                     f"max error {_q(r.max_error)}")
    if r.max_error:
        lines.append(f"worst input  ({', '.join(w['tokens'])}; query {w['query']}): target {w['target']}, "
                     f"prediction {_q(Fraction(w['prediction']))}")
    if r.kernel_rank is not None:
        lines.append(f"kernel rank  {r.kernel_rank:,} on all {1 << c.m:,} × {1 << c.m:,} Boolean pairs")
        lines.extend(f"             {note}" for note in r.rank_notes)
    return lines


def render_one_hot(table: dict, report, out: str | None) -> list[str]:
    """Lines for ``certify construction rank15``: the table, then ``check-kernel``'s report."""
    b = table["base"]
    p, q = b.numerator, b.denominator
    scale = f"{p}^(‖x‖₁ − ⟨x,z⟩)" + (f"·{q}^⟨x,z⟩" if q != 1 else "")
    lines = [f"head         one-hot queries: φ_Q(x) = e_x over the family's {len(table['queries'])} query tokens, "
             f"φ_K(z)_x = {scale}",
             f"             (the A.1 kernel b^(−⟨x,z⟩), b = {format_rational(b)}, scaled per query), "
             "values v(z) = z, readout ⟨x_i, a_i⟩; §6.1, A.1; docs/math.md §8",
             "checked      by certify check-kernel, exactly, on the table as written"
             + ("" if out is None else f" ({out})")]
    lines.extend(report.text())
    if out is not None:
        lines.append(f"wrote        {out}")
    return lines
