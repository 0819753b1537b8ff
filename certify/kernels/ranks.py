"""The ranks of ``check-kernel`` and their consistency with the theorem (stage 5; docs/math.md §4–§5).

:func:`kernel_ranks`: the exact rank of ``α`` on the family's query tokens × tokens (by the
factors when the table has them, ``KernelTable.alpha_rank``) and, for a certificate's
family, of its ``t × t`` matrix ``B_{S,U} = α(x_S, x_{U^c})``. :func:`assert_consistent`:
a table that solves the family (or admits a readout) must reach the certified bound and
satisfy every jump; if not, :class:`KernelContradiction` (exit 3) — a bug here or a false
theorem, never a property of the table.
"""
from __future__ import annotations

from typing import TYPE_CHECKING

from codes import complement

from . import table as _table

if TYPE_CHECKING:
    from .families import FamilySpec
    from .report import KernelReport
    from .table import KernelTable

__all__ = ["KernelContradiction", "assert_consistent", "kernel_ranks", "head_ranks"]


class KernelContradiction(RuntimeError):
    """A result contradicts the certified theorem (exit 3): a bug, never the table's fault."""


def assert_consistent(solved: bool, kernel_rank: int | None, certified_bound: int | None, violated_jumps: int) -> None:
    """Raise :class:`KernelContradiction` if a solving kernel breaks the certified bound or a jump.

    ``solved`` means: the table's readout solves the family, or some readout exists.
    ``kernel_rank`` is ``None`` when only a lower bound on it is known (no rank contradiction
    can then be shown).
    """
    if not solved:
        return
    if certified_bound is not None and kernel_rank is not None and kernel_rank < certified_bound:
        raise KernelContradiction(
            f"CONTRADICTION: the kernel solves the family with rank {kernel_rank}, "
            f"below the certified bound r ≥ {certified_bound}")
    if violated_jumps:
        raise KernelContradiction(
            f"CONTRADICTION: the kernel solves the family but violates {violated_jumps} "
            "weight-domination inequalities (A.2)")


def kernel_ranks(report: KernelReport, family: FamilySpec, table: KernelTable, rows: list[int], cols: list[int]) -> int | None:
    """Set the report's kernel rank (table rows × columns) and certificate matrix rank; the rank if exact, else ``None``.

    ``None`` means only a lower bound is known: it shows no rank contradiction.
    """
    rank = table.alpha_rank(rows, cols)
    report.kernel_rank, report.kernel_rank_bounds = rank.rank, rank
    if family.code_words is not None:
        ws, m = family.code_words, family.m
        # Through the table: by the factors when it has them (an r × r Gram matrix, not t × t entries).
        b_rank = table.alpha_rank([table.index[s] for s in ws], [table.index[complement(u, m)] for u in ws])
        report.certificate_matrix_rank = b_rank.rank if b_rank.exact else None
    return report.kernel_rank if rank.exact else None


def head_ranks(report: KernelReport, table: KernelTable, rows: list[int], cols: list[int]) -> None:
    """A table of several heads: each head's exact kernel rank (one time budget for all heads) and their sum."""
    budget = _table.MAX_RANK_SECONDS / table.head_count  # one budget for all heads' rank proofs, not one each
    ranks = [table.alpha_rank(rows, cols, h, max_seconds=budget) for h in range(table.head_count)]
    report.head_ranks = [r.rank for r in ranks]
    report.head_ranks_exact = all(r.exact for r in ranks)
    report.kernel_rank = sum(report.head_ranks)
