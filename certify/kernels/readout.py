"""The readout search of ``check-kernel`` (``--search-readout``; kernel-only tables): is there *some* readout?

Per query token ``x`` the values ``g_x(·)`` with error below ``ε`` on all of ``x``'s inputs
form a strict linear system (docs/math.md §2); :func:`readout_problem` writes it and
:class:`ReadoutSearch` decides it exactly (``certify.linalg.lp``), keeping a witness
readout, or the first infeasible token's sub-family with its verified Farkas certificate.
"""
from __future__ import annotations

from typing import Any

from .blocks import PHANTOM
from ..linalg.lp import as_fmpq
from .predict import group_by_query
from ..check import format_rational
from .report import KernelReport, token_bits

__all__ = ["readout_search", "ReadoutSearch"]


def readout_problem(inputs, xq: int, ids: list[int], alpha, dens, eps, delta=None):
    """The strict system of query token ``xq`` (docs/math.md §2): ``(t − ε)D < Σ_z a_X(z) g(z) < (t + ε)D``.

    One row per input ``ids[k]`` (the inputs that query ``xq``). Rows are sparse,
    ``{key index: a_X(z)}`` with ``a_X(z) = Σ_{j: x_j = z} α(x, z)``: at most one entry
    per distinct token of the input. With a denominator constant ``delta > 0`` the phantom
    key (:data:`certify.kernels.blocks.PHANTOM`, last) has coefficient ``delta`` in every row: its value
    ``g_x(phantom) = β(x)`` is one more unknown. Returns ``(keys, rows, lo, hi)``.
    """
    keys = sorted({z for i in ids for z in inputs[i].tokens})
    if delta:
        keys.append(PHANTOM)
    col = {z: k for k, z in enumerate(keys)}
    e = as_fmpq(eps, "eps")
    rows, lo, hi = [], [], []
    for i in ids:
        r: dict[int, Any] = {col[PHANTOM]: delta} if delta else {}
        for z in inputs[i].tokens:
            r[col[z]] = r.get(col[z], 0) + as_fmpq(alpha(xq, z), "alpha")
        D = as_fmpq(dens[i], "denominator")
        rows.append(r)
        lo.append((inputs[i].target - e) * D)
        hi.append((inputs[i].target + e) * D)
    return keys, rows, lo, hi


def readout_search(report: KernelReport, inputs, q_tokens, alpha, dens, eps, m, describe, delta=None,
                   by_query: dict[int, list[int]] | None = None) -> None:
    """Per query token: is there a readout table ``g_x(·)`` with error < ε on all its inputs? (exact LP)

    Tokens are taken in order with the exact simplex
    (:func:`certify.linalg.lp.strict_feasibility`) until the first one without a
    readout: everything printed — every token's readout when all have one, or that
    token's Farkas certificate — comes from it, so the output is a function of the data
    alone. After that only the *number* of tokens without a readout is reported, and
    the remaining tokens are decided by :func:`certify.linalg.lp.decide_feasibility`
    (HiGHS when installed, every answer verified exactly; else the exact simplex). ``by_query``:
    the input indices of each query token, when the caller has them (:func:`certify.kernels.predict.group_by_query`).
    """
    if by_query is None:
        by_query = group_by_query(inputs)
    search = ReadoutSearch(m)
    for xq in q_tokens:
        ids = by_query[xq]
        search.token(xq, *readout_problem(inputs, xq, ids, alpha, dens, eps, delta), lambda k: describe(ids[k]))
    search.finish(report)


class ReadoutSearch:
    """The per-token steps of :func:`readout_search`, shared with the streamed path (tokens fed in order)."""

    def __init__(self, m: int) -> None:
        self.m = m
        self.readout: dict[str, dict[str, str]] = {}
        self.infeasible = 0
        self.sub: list[dict[str, Any]] | None = None

    def token(self, xq: int, keys, rows, lo, hi, describe) -> None:
        """Decide query token ``xq``'s system; ``describe(k)``: the report entry of its ``k``-th row's input."""
        from ..linalg.lp import decide_feasibility, strict_feasibility

        m = self.m
        if self.sub is None:
            res = strict_feasibility(rows, lo, hi, len(keys))
            if res.feasible:
                self.readout[token_bits(xq, m)] = {(token_bits(z, m) if z != PHANTOM else "phantom"): format_rational(g)
                                              for z, g in zip(keys, res.solution)}
            else:
                self.sub = [dict(describe(k), multiplier=format_rational(res.lam[k] + res.nu[k])) for k in res.support]
        else:
            res = decide_feasibility(rows, lo, hi, len(keys))
        self.infeasible += not res.feasible

    def finish(self, report: KernelReport) -> None:
        report.readout_exists = self.infeasible == 0
        report.infeasible_query_tokens = self.infeasible
        report.readout = self.readout if self.infeasible == 0 else None
        report.infeasible_subfamily = self.sub
