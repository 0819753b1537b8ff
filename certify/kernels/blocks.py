"""The table on the family (stage 2): blocks of ``α`` and ``g`` on its query tokens × tokens, validated.

:func:`_kernel_blocks` bounds the work (``KernelTable.check_work``) before converting
anything and forms the exact blocks; :func:`_batched_blocks` does the same a batch of query
rows at a time (:class:`RowBatches`, for a streamed family: ``KernelTable.check_batched_work``);
:func:`_validate_inputs` requires ``α ≥ 0`` on every pair an input uses (collecting every
negative pair, :class:`_Negatives`, for one refusal) and a positive denominator ``δ + Σ_j α``
(docs/math.md §2; docs/kernel-table-format.md).
"""
from __future__ import annotations

from typing import Any

from ..check import format_rational
from .report import token_bits, decimal_text, _frac
from .table import KernelTable, TableFormatError

__all__ = ["PHANTOM", "RowBatches", "batch_rows"]

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


def _batched_blocks(table: KernelTable, q_tokens: list[int], k_tokens: list[int]):
    """``(rows, cols, α, g or None)`` as :class:`RowBatches`; the work is checked before anything is converted.

    With ``--clip-negative-alpha`` the α block is one batch, formed and bounded as by
    :func:`_kernel_blocks` (``check_work``): the clipped count is of the whole block, and the
    rank of a clipped kernel is that of its whole block.
    """
    rows = [table.index[x] for x in q_tokens]
    cols = [table.index[z] for z in k_tokens]
    if table.clip is not None:
        table.check_work(len(rows), len(cols))
    else:
        table.check_batched_work(len(rows), len(cols))  # before anything is converted
    table.prepare(sorted(set(rows) | set(cols)))
    A = RowBatches(table, rows, cols, "alpha")
    G = RowBatches(table, rows, cols, "g") if table.has_readout else None
    return rows, cols, A, G


def batch_rows(cols: int) -> int:
    """Rows per batch of a block of ``cols`` columns: ``max(1, MAX_EXACT_ENTRIES // cols)``, the block entries held at once."""
    from . import table as _table  # read at the call: a test may lower the module's limit

    return max(1, _table.MAX_EXACT_ENTRIES // max(1, cols))


class RowBatches:
    """``α`` (``kind`` ``"alpha"``) or ``g`` (``"g"``) on table rows × columns, formed a batch of rows at a time.

    A batch is :func:`batch_rows` rows (all of them for a small
    family: one block, as :func:`_kernel_blocks` forms it; with ``--clip-negative-alpha`` the
    α block is always one batch). From factors the column side is converted once and held —
    ``φ_K(cols)ᵀ``, or ``values(cols)ᵀ`` with a row of ones under it — and each batch is one
    exact product: ``φ_Q(batch)·φ_K(cols)ᵀ``, ``[w | β](batch)·[values | 1](cols)ᵀ =
    w·valuesᵀ + β`` (docs/math.md §2); a kernel given directly, a one-hot readout and a clipped
    α are formed by ``KernelTable.alpha_block``/``g_block`` on the batch's rows. ``blk[i, j]``
    (``i`` a position in ``rows``, ``j`` in ``cols``) forms the batch holding row ``i`` if it is
    not the one held: visiting the rows in order forms each batch once per pass.
    """

    def __init__(self, table: KernelTable, rows: list[int], cols: list[int], kind: str) -> None:
        self.table, self.rows, self.cols, self.kind = table, rows, cols, kind
        whole = kind == "alpha" and table.clip is not None
        self.size = max(1, len(rows)) if whole else batch_rows(len(cols))
        self._right = None  # the held column side of a product
        if kind == "alpha" and "kernel" not in table.fields and not whole:
            self._right = table._rows("phi_k", cols).transpose()
        elif kind == "g" and "values" in table.fields:
            self._right = _with_ones(table._rows("values", cols)).transpose()
        self._start, self._block = 0, None
        self._load(0)  # the first batch now (a small family: the whole block, before the report is begun)

    @property
    def batches(self) -> int:
        return max(1, -(-len(self.rows) // self.size))

    def _load(self, b: int) -> None:
        table, rows = self.table, self.rows[b * self.size:(b + 1) * self.size]
        if self._right is None:
            block = (table.alpha_block if self.kind == "alpha" else table.g_block)(rows, self.cols)
        elif self.kind == "alpha":
            block = table._rows("phi_q", rows) * self._right
        else:
            block = _with_column(table._rows("w", rows), table._rows("beta", rows)) * self._right
        self._start, self._block = b * self.size, block

    def __getitem__(self, ij: tuple[int, int]):
        i, j = ij
        k = i - self._start
        if not 0 <= k < self.size:
            self._load(i // self.size)
            k = i - self._start
        return self._block[k, j]

    def entry(self, i: int, j: int):
        """``blk[i, j]``, without forming a batch when ``α`` is a product of held factors: ``⟨φ_Q(row i), φ_K(col j)⟩``."""
        if self.kind != "alpha" or self._right is None or 0 <= i - self._start < self.size:
            return self[i, j]
        from flint import fmpq

        p, R = self.table._rows("phi_q", [self.rows[i]]), self._right
        return sum((p[0, k] * R[k, j] for k in range(R.nrows())), fmpq(0))

    def blocks(self):
        """``(first row position, block)`` of every batch, in order."""
        for b in range(self.batches):
            if self._start != b * self.size:
                self._load(b)
            yield self._start, self._block

    def entries(self):
        """Every entry, row-major over ``rows`` × ``cols`` (a batch at a time)."""
        for _, block in self.blocks():
            yield from block.entries()

    def nonnegative(self) -> bool:
        """True only if every entry is ``≥ 0``: when α is a product of held factors, if both are nonnegative (sufficient,
        not necessary: False then says only that this shortcut does not apply); else entry by entry, a batch at a time."""
        if self.kind == "alpha" and self._right is not None:
            return (all(a.p >= 0 for a in self.table._rows("phi_q", self.rows).entries())
                    and all(a.p >= 0 for a in self._right.entries()))
        return all(a.p >= 0 for a in self.entries())


def _with_ones(M):
    """``[M | 1]``: ``M`` with a column of ones after its last."""
    from flint import fmpq_mat

    return _with_column(M, fmpq_mat(M.nrows(), 1, [1] * M.nrows()))


def _with_column(M, c):
    """``[M | c]`` for a one-column ``c``."""
    from flint import fmpq_mat

    n, w = M.nrows(), M.ncols()
    e, last = M.entries(), c.entries()
    return fmpq_mat(n, w + 1, [x for i in range(n) for x in (*e[i * w:(i + 1) * w], last[i])])


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
            return f"= {exact}" if len(exact) <= 24 else f"≈ {decimal_text(_frac(v))}"

        x0, z0, a0, i0 = self.first[0]
        text = f"α({token_bits(x0, m)}, {token_bits(z0, m)}) {value(a0)} < 0 on a pair used by family.inputs[{i0}]"
        if self.count > 1:
            a, x, z = self.worst
            nxt = "; ".join(f"α({token_bits(x, m)}, {token_bits(z, m)}) {value(v)} (family.inputs[{i}])"
                            for x, z, v, i in self.first[1:])
            text += (f"; {self.count:,} pairs the family uses have α < 0, the worst α({token_bits(x, m)}, {token_bits(z, m)}) "
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
