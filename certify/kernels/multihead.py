"""Exact predictions of a kernel table with one or several heads, and ``check-kernel`` on several heads.

A table in the multi-head form (docs/kernel-table-format.md, "Several heads") lists ``H``
heads side by side: head ``h`` owns ``r_h`` columns of ``phi_q``/``phi_k`` (``heads``)
and ``d_h`` columns of ``values``/``w`` (``value_heads``). Its prediction at the query
``x_i`` of an input ``X`` is (docs/math.md §2, "Variants", and §10, "Several heads")::

    t̂_i(X) = β(x_i) + Σ_h  Σ_j α_h(x_i, x_j) g_h(x_i, x_j) / Σ_j α_h(x_i, x_j),
    α_h(x, z) = ⟨φ_Q,h(x), φ_K,h(z)⟩,   g_h(x, z) = ⟨w_h(x), v_h(z)⟩,

each head normalized by its own denominator and the heads mixed affinely by the readout
``w`` (its per-head columns) and ``β``. With ``H = 1`` this is the one-head prediction
of ``certify check-kernel``, the denominator constant ``δ`` included.

:func:`exact_predictions` is what the §6.2/§6.3 experiments score with
(``certify.experiments``), and ``check-kernel`` on a multi-head table
(:func:`certify.kernels.audit.check_multihead`): exact predictions, maximum error and each head's exact kernel rank. The jump
inequalities, the certified bound and the readout LP are statements about one head and
are not checked for ``H ≥ 2`` (the report says so).
"""
from __future__ import annotations

from fractions import Fraction
from typing import Sequence

from witnesses import Input

from .table import MAX_BLOCK_ENTRIES, MAX_PREDICTION_TERMS, KernelTable, TableFormatError

__all__ = ["exact_predictions", "token_positions"]


def _bits(x: int, m: int) -> str:
    return format(x, f"0{m}b")[::-1]


def token_positions(table: KernelTable, inputs: Sequence[Input], m: int):
    """The family's query tokens and all its tokens, in order of first use, and each one's position in those lists.

    ``TableFormatError`` naming the first input with a token the table lacks.
    """
    q_tokens: list[int] = []
    k_tokens: list[int] = []
    q_pos: dict[int, int] = {}
    k_pos: dict[int, int] = {}
    for i, X in enumerate(inputs):
        for k, z in enumerate(X.tokens):
            if z not in table.index:
                raise TableFormatError(f"family.inputs[{i}] token {k} ({_bits(z, m)}) is not in the table")
            if z not in k_pos:
                k_pos[z] = len(k_tokens)
                k_tokens.append(z)
        xq = X.tokens[X.query]
        if xq not in q_pos:
            q_pos[xq] = len(q_tokens)
            q_tokens.append(xq)
    return q_tokens, k_tokens, q_pos, k_pos


def exact_predictions(table: KernelTable, inputs: Sequence[Input], m: int) -> list[Fraction]:
    """The exact prediction ``t̂`` of ``table`` at every input's query (module docstring), as ``Fraction``s.

    Every token must be in the table; ``α_h ≥ 0`` on every pair used and every denominator
    positive, else :class:`TableFormatError` naming the head, the pair and the input. The
    work is bounded first (``KernelTable.check_work``) and each head's blocks are formed
    once for the distinct query tokens × tokens.
    """
    from flint import fmpq

    if table.m != m:
        raise TableFormatError(f"table tokens have {table.m} bits, the family's have {m}")
    if not table.has_readout:
        raise TableFormatError("the table has no readout (beta, w): there is nothing to predict")
    _, _, q_pos, k_pos = token_positions(table, inputs, m)
    rows = [table.index[x] for x in q_pos]
    cols = [table.index[z] for z in k_pos]
    table.check_work(len(rows), len(cols))
    H = table.head_count
    T = len(cols)
    if 2 * H * len(rows) * T > MAX_BLOCK_ENTRIES:
        raise TableFormatError(f"{H} head(s) × {len(rows):,} query tokens × {T:,} tokens: {2 * H * len(rows) * T:,} "
                               f"entries of α and g held at once; at most {MAX_BLOCK_ENTRIES:,} "
                               "(docs/kernel-table-format.md, limits)")
    terms = H * sum(len(X.tokens) for X in inputs)
    if H > 1 and terms > MAX_PREDICTION_TERMS:
        raise TableFormatError(f"{H} heads × {len(inputs):,} inputs: {terms:,} terms to predict; at most "
                               f"{MAX_PREDICTION_TERMS:,} for several heads (docs/kernel-table-format.md, limits)")
    table.prepare(sorted(set(rows) | set(cols)))
    if H == 1:
        blocks = [(table.alpha_block(rows, cols).entries(), table.g_block(rows, cols).entries())]
        delta = fmpq(table.delta.numerator, table.delta.denominator)
        beta = [fmpq(0)] * len(rows)
        phantom = ([delta * b for b in table._rows("beta", rows).entries()] if table.delta else beta)
    else:
        blocks = [(table.alpha_block(rows, cols, h).entries(), table.g_block(rows, cols, h).entries()) for h in range(H)]
        delta, beta = fmpq(0), table._rows("beta", rows).entries()
        phantom = beta
    zero = fmpq(0)
    out: list[Fraction] = []
    for i, X in enumerate(inputs):
        qi = q_pos[X.tokens[X.query]]
        base = qi * T
        ks = [k_pos[z] for z in X.tokens]
        pred = beta[qi]
        for h, (A, G) in enumerate(blocks):
            num, den = (phantom[qi], delta) if H == 1 else (zero, zero)
            for k, z in zip(ks, X.tokens):
                a = A[base + k]
                if a < zero:
                    head = f"head {h}: " if H > 1 else ""
                    raise TableFormatError(f"{head}α({_bits(X.tokens[X.query], m)}, {_bits(z, m)}) < 0 on a pair used "
                                           f"by family.inputs[{i}]; the model needs a nonnegative kernel")
                num += a * G[base + k]
                den += a
            if not den > zero:
                head = f" of head {h}" if H > 1 else ""
                raise TableFormatError(f"family.inputs[{i}] has denominator{head} Σ_j α = 0; the model needs it positive")
            pred += num / den
        out.append(Fraction(int(pred.p), int(pred.q)))
    return out
