"""The table on the family (stage 2): blocks of ``α`` and ``g`` on its query tokens × tokens, validated.

:func:`_kernel_blocks` bounds the work (``KernelTable.check_work``) before converting
anything and forms the exact blocks; :func:`_validate_inputs` requires ``α ≥ 0`` on every
pair an input uses (collecting every negative pair, :class:`_Negatives`, for one refusal)
and a positive denominator ``δ + Σ_j α`` (docs/math.md §2; docs/kernel-table-format.md).
"""
from __future__ import annotations

from typing import Any

from ..check import format_rational
from .report import _bits, _decimal, _frac
from .table import KernelTable, TableFormatError

__all__ = ["PHANTOM"]

#: The phantom key of a denominator constant ``δ > 0`` (weight ``δ`` in every input, readout value
#: ``β(x)``): not a token (tokens are ``≥ 0`` bitmasks); ``"phantom"`` in a printed readout.
PHANTOM = -1


def _kernel_blocks(table: KernelTable, q_tokens: list[int], k_tokens: list[int]):
    """``(rows, cols, α block, g block or None)`` of the query × key tokens; the work is checked before anything is converted."""
    rows = [table.index[x] for x in q_tokens]
    cols = [table.index[z] for z in k_tokens]
    table.check_work(len(rows), len(cols))  # before anything is converted
    table.prepare(sorted(set(rows) | set(cols)))  # one pass per field, only the rows the family uses
    A = table.alpha_block(rows, cols)
    G = table.g_block(rows, cols) if table.has_readout else None
    return rows, cols, A, G


def _validate_inputs(inputs, alpha, offset: int, delta, negatives: "_Negatives") -> tuple[list, bool]:
    """Denominators ``δ + Σ_j α`` of ``inputs`` (``family.inputs[offset + k]``), every negative used pair recorded.

    Refuses (``TableFormatError``) the first input without a negative pair whose denominator
    is not positive; returns ``(denominators, whether α < 0 was found)``. The caller refuses
    the negatives (:meth:`_Negatives.refuse`) once it has seen all it will.
    """
    dens, found = [], False
    for k, X in enumerate(inputs):
        xq = X.tokens[X.query]
        D = delta
        bad = False
        for z in X.tokens:
            a = alpha(xq, z)
            if a < 0:
                negatives.add(xq, z, a, offset + k)
                bad = found = True
            D += a
        if not bad and not D > 0:
            raise TableFormatError(f"family.inputs[{offset + k}] has denominator Σ_j α = 0; the model needs it positive"
                                   " (a library's denominator constant goes in the table's 'delta' field)")
        dens.append(D)
    return dens, found


class _Negatives:
    """Every pair ``(x, z)`` a family uses with ``α(x, z) < 0``: a count, the worst and the first few (for one line)."""

    SHOWN = 3

    def __init__(self, m: int) -> None:
        self.m = m
        self.pairs: dict[tuple[int, int], int] = {}  # (x, z) → first input using it, in input order
        self.count = 0
        self.worst = None  # (value, x, z)
        self.first: list[tuple[int, int, Any, int]] = []

    def add(self, x: int, z: int, a, i: int) -> None:
        if (x, z) in self.pairs:
            return
        self.pairs[(x, z)] = i
        self.count += 1
        if self.worst is None or a < self.worst[0]:
            self.worst = (a, x, z)
        if len(self.first) < self.SHOWN:
            self.first.append((x, z, a, i))

    def refuse(self) -> None:
        """Raise the one-line refusal naming the count, the worst pair and the first pairs (nothing if none)."""
        if not self.count:
            return
        m = self.m

        def value(v) -> str:  # exact when short, else its decimal
            exact = format_rational(_frac(v))
            return f"= {exact}" if len(exact) <= 24 else f"≈ {_decimal(_frac(v))}"

        x0, z0, a0, i0 = self.first[0]
        text = f"α({_bits(x0, m)}, {_bits(z0, m)}) {value(a0)} < 0 on a pair used by family.inputs[{i0}]"
        if self.count > 1:
            a, x, z = self.worst
            nxt = "; ".join(f"α({_bits(x, m)}, {_bits(z, m)}) {value(v)} (family.inputs[{i}])"
                            for x, z, v, i in self.first[1:])
            text += (f"; {self.count:,} pairs the family uses have α < 0, the worst α({_bits(x, m)}, {_bits(z, m)}) "
                     f"{value(a)}; next: {nxt}")
        raise TableFormatError(text + "; the model needs a nonnegative kernel (--clip-negative-alpha TOL reads entries "
                               "in [−TOL, 0) as 0)")


def _phantom_numerators(table: KernelTable, rows: list[int], delta) -> list:
    """``δ·β(x)`` for each query row: the phantom key (weight ``δ``, value 0) adds ``δ·g_x(phantom) = δ·β(x)`` to the numerator."""
    from flint import fmpq

    if table.delta == 0 or not table.has_readout:
        return [fmpq(0)] * len(rows)
    beta = table._rows("beta", rows)
    return [delta * beta[k, 0] for k in range(len(rows))]
