"""Exact predictions of a kernel table (stage 3 of ``check-kernel``; docs/math.md §2 and §10).

One head (``certify check-kernel``, listed and streamed families alike): per query token
``x`` the rows ``α(x, ·)`` and ``α(x, ·)·g_x(·)`` (:func:`query_rows`; with a denominator
constant ``δ`` the phantom key adds ``δ`` and ``δ·β(x)``), then every input of ``x`` at once
(:func:`query_errors`): ``t̂ = Σ_j α(x, x_j) g_x(x_j) / Σ_j α(x, x_j)`` and its error, in
integers when the rows' common denominators are small (:data:`MAX_SCALE_BITS`), else in
exact rationals. :class:`ErrorTally` keeps the largest error and the failing inputs.

Several heads (docs/kernel-table-format.md, "Several heads"): a table in the multi-head
form lists ``H`` heads side by side: head ``h`` owns ``r_h`` columns of ``phi_q``/``phi_k``
(``heads``) and ``d_h`` columns of ``values``/``w`` (``value_heads``). Its prediction at the
query ``x_i`` of an input ``X`` is::

    t̂_i(X) = β(x_i) + Σ_h  Σ_j α_h(x_i, x_j) g_h(x_i, x_j) / (δ + Σ_j α_h(x_i, x_j)),
    α_h(x, z) = ⟨φ_Q,h(x), φ_K,h(z)⟩,   g_h(x, z) = ⟨w_h(x), v_h(z)⟩,

each head normalized by its own denominator and the heads mixed affinely by the readout
``w`` (its per-head columns) and ``β``. A denominator constant ``δ`` is added to every
head's denominator: head ``h``'s own phantom key, of weight ``δ`` and value 0 (docs/math.md
§2, "A denominator constant"). With ``H = 1`` this is the one-head prediction
above, the denominator constant ``δ`` included. :func:`exact_predictions` computes it for
every input; it is what the §6.2/§6.3 experiments score with (``certify.experiments``) and
what ``check-kernel`` on a multi-head table uses (:func:`certify.kernels.audit.check_multihead`).
"""
from __future__ import annotations

import math
from fractions import Fraction
from typing import Any, Callable, Iterator, Sequence

from witnesses import Input

from ..check import format_rational
from .blocks import PHANTOM
from .report import token_bits, decimal_text
from .table import MAX_BLOCK_ENTRIES, MAX_PREDICTION_TERMS, KernelTable, TableFormatError

__all__ = ["exact_predictions", "token_positions", "group_by_query", "query_rows", "query_errors", "ErrorTally", "MAX_SCALE_BITS"]

#: A query's α and α·g rows are scaled to integers (one common denominator each) while the two
#: common denominators together have at most this many bits; beyond it (many distinct large
#: denominators, e.g. a hostile table), its inputs are summed in exact rationals instead, whose
#: size does not grow with the number of tokens a query uses.
MAX_SCALE_BITS = 512


def group_by_query(inputs: Sequence[Input]) -> dict[int, list[int]]:
    """The indices of the inputs of each query token, the tokens in order of first use."""
    out: dict[int, list[int]] = {}
    for i, X in enumerate(inputs):
        out.setdefault(X.tokens[X.query], []).append(i)
    return out


def query_rows(arow: dict, G, r: int, k_pos: dict[int, int], delta, phantom) -> tuple[dict, dict]:
    """Row ``r`` (query token ``x``) of ``α`` and of ``α·g`` on the tokens of ``arow`` (``{token: α(x, token)}``).

    With ``δ ≠ 0`` both get the phantom key (:data:`certify.kernels.blocks.PHANTOM`): weight
    ``δ`` and numerator term ``phantom = δ·β(x)``.
    """
    grow = {z: a * G[r, k_pos[z]] for z, a in arow.items()}
    if delta:
        arow = dict(arow)
        arow[PHANTOM], grow[PHANTOM] = delta, phantom
    return arow, grow


def query_errors(inputs: Sequence[Input], arow: dict, grow: dict) -> Iterator[tuple[int, int, int]]:
    """``(N, D, diff)`` for each input of one query token: prediction ``N/D``, error ``|t̂ − t| = diff/D``.

    ``arow``/``grow`` from :func:`query_rows` (the phantom key, when present, is in every
    input). The rows are scaled to integers by one positive constant each, so that
    ``t̂ = Σ gi / Σ ai`` exactly (a per-query factor changes no prediction), unless their
    common denominators exceed :data:`MAX_SCALE_BITS` bits; then the sums are exact
    rationals and ``N, D, diff`` the integers of ``t̂`` and its error over one denominator.
    """
    extra = (PHANTOM,) if PHANTOM in arow else ()
    la = math.lcm(*(int(v.q) for v in arow.values()))
    lg = math.lcm(*(int(v.q) for v in grow.values()))
    if la.bit_length() + lg.bit_length() <= MAX_SCALE_BITS:
        ai = {z: int(v.p) * (la // int(v.q)) * lg for z, v in arow.items()}
        gi = {z: int(v.p) * (lg // int(v.q)) * la for z, v in grow.items()}
    else:  # many distinct large denominators: scaled integers would be huge; exact rationals per input
        ai, gi = arow, grow
    for X in inputs:
        D = N = 0
        for z in X.tokens + extra:
            D += ai[z]
            N += gi[z]
        diff = abs(N - X.target * D)
        if ai is arow:  # fmpq sums: the same comparisons with err = diff / D as a reduced fraction
            t_hat, err = N / D, diff / D
            N, D, diff = int(t_hat.p) * int(err.q), int(t_hat.q) * int(err.q), int(err.p) * int(t_hat.q)
        yield N, D, diff


class ErrorTally:
    """The largest error and the failing inputs (error ``≥ ε``), the first ``cap`` of them listed (all: ``None``)."""

    def __init__(self, eps: Fraction, cap: int | None = None) -> None:
        self.ep, self.eq = eps.numerator, eps.denominator
        self.wd, self.wD = 0, 1  # the largest error so far, wd / wD
        self.count = 0
        self.failing: list[dict[str, Any]] = []
        self.cap = cap

    def add(self, N: int, D: int, diff: int, describe: Callable[[], dict[str, Any]]) -> None:
        """One input with prediction ``N/D`` and error ``diff/D`` (``D > 0``); ``describe()``: its report entry."""
        if diff * self.wD > self.wd * D:
            self.wd, self.wD = diff, D
        if not diff * self.eq < self.ep * D:
            self.count += 1
            if self.cap is None or len(self.failing) < self.cap:
                pf = Fraction(N, D)
                self.failing.append(dict(describe(), prediction=format_rational(pf), prediction_decimal=decimal_text(pf),
                                         error=format_rational(Fraction(diff, D))))

    @property
    def max_error(self) -> Fraction:
        return Fraction(self.wd, self.wD)


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
                raise TableFormatError(f"family.inputs[{i}] token {k} ({token_bits(z, m)}) is not in the table")
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
        delta, beta = fmpq(table.delta.numerator, table.delta.denominator), table._rows("beta", rows).entries()
        phantom = beta
    zero = fmpq(0)
    out: list[Fraction] = []
    for i, X in enumerate(inputs):
        qi = q_pos[X.tokens[X.query]]
        base = qi * T
        ks = [k_pos[z] for z in X.tokens]
        pred = beta[qi]
        for h, (A, G) in enumerate(blocks):
            num, den = (phantom[qi], delta) if H == 1 else (zero, delta)  # each head its own phantom key: weight δ, value 0
            for k, z in zip(ks, X.tokens):
                a = A[base + k]
                if a < zero:
                    head = f"head {h}: " if H > 1 else ""
                    raise TableFormatError(f"{head}α({token_bits(X.tokens[X.query], m)}, {token_bits(z, m)}) < 0 on a pair used "
                                           f"by family.inputs[{i}]; the model needs a nonnegative kernel")
                num += a * G[base + k]
                den += a
            if not den > zero:
                head = f" of head {h}" if H > 1 else ""
                raise TableFormatError(f"family.inputs[{i}] has denominator{head} Σ_j α = 0; the model needs it positive")
            pred += num / den
        out.append(Fraction(int(pred.p), int(pred.q)))
    return out
