"""``certify check-kernel``: a kernel table against a witness family, exactly — the stages composed (docs/math.md §2–§6; §6.1).

Given a table (``certify.kernels.table``) and a family (a certificate, any file with
``family.inputs``, or by default the rank-nine certificate), :func:`check_kernel`
answers, with exact rationals:

* with a readout: the prediction ``t̂ = Σ_j α(x_i,x_j) g_{x_i}(x_j) / Σ_j α(x_i,x_j)`` and
  the error on every input, ``max_error``, the failing inputs, and ``solves``;
* for every jump ``(x, y, z)`` of the family: whether ``α(x,y) > μ·α(x,z)`` holds
  (``μ = (n−2)(d−2ε)/(2ε)``; ``d − 1`` at length 3, error 1/2 — weight domination, A.2);
* ``kernel_rank``: the exact rank of ``α`` on the family's query tokens × all its tokens,
  and the rank of the certificate's ``t × t`` matrix ``B_{S,U} = α(x_S, x_{U^c})``;
* without a readout (or with ``search_readout``): whether *some* values and affine
  readout make the kernel solve the family — decided exactly by
  :func:`certify.linalg.lp.strict_feasibility` per query token, with a witness readout or an
  infeasible sub-family (a Farkas certificate).

Consistency with the theorem: a table that solves the family (or admits a readout)
must have ``kernel_rank ≥ certified_bound`` and must satisfy every jump. If not, the
check raises :class:`KernelContradiction` (exit 3): that would mean a bug here or a
false theorem, never a property of the table.

The data flows one way through one module per stage:

1. ``families`` — the family (:class:`FamilySpec`: listed, or a compact certificate's, streamed);
2. ``table`` / ``blocks`` — the table read lazily and exactly; its blocks of ``α`` and ``g`` on
   the family's query tokens × tokens, validated (``α ≥ 0`` on used pairs, denominators ``> 0``);
3. ``predict`` — the exact predictions and errors (one evaluator, listed and streamed; several heads);
4. ``jumps`` — the weight-domination inequalities;
5. ``ranks`` — the exact kernel ranks and their consistency with the certified bound;
6. ``readout`` — the exact readout LP (``lp``);
7. ``report`` — :class:`KernelReport`, its text and its JSON.

This module composes them: :func:`check_kernel` on a listed family (:func:`_check_listed`),
on several heads (:func:`check_multihead`), or streamed (``certify.kernels.streamed``), and
:func:`run_check` / :func:`verdict`, which turn every outcome into an exit code.
"""
from __future__ import annotations

import re
from fractions import Fraction
from typing import Any

from . import blocks
from .blocks import _kernel_blocks, _Negatives, _phantom_numerators, _validate_inputs
from .families import (NAMED_FAMILIES, CompactFamily, FamilyFormatError, FamilySpec, family_of_certificate,
                       family_of_code, load_family, require_explicit)
from .jumps import JumpTally
from ..linalg.lp import as_fmpq
from .predict import ErrorTally, exact_predictions, group_by_query, query_errors, query_rows, token_positions
from .ranks import KernelContradiction, assert_consistent, head_ranks, kernel_ranks
from .readout import readout_search
from .report import KernelReport, token_bits, _new_report, unlimited_digits
from .streamed import MAX_LISTED, MAX_STREAM_INPUTS, MAX_STREAM_READOUT_INPUTS, check_streamed
from .table import KernelTable, TableFormatError

__all__ = [
    "MAX_STREAM_INPUTS",
    "MAX_STREAM_READOUT_INPUTS",
    "MAX_LISTED",
    "CompactFamily",
    "require_explicit",
    "FamilyFormatError",
    "KernelContradiction",
    "FamilySpec",
    "load_family",
    "family_of_certificate",
    "family_of_code",
    "NAMED_FAMILIES",
    "assert_consistent",
    "KernelReport",
    "check_kernel",
    "check_multihead",
    "parse_tolerance",
    "run_check",
    "verdict",
    "table_verdict",
]


def check_kernel(table: KernelTable, family: FamilySpec, search_readout: bool = False,
                 first_failure: bool = False) -> KernelReport:
    """Check ``table`` against ``family`` (see the module docstring and :func:`_check_kernel`).

    ``first_failure``: on a streamed (compact) family, stop at the first query token with a
    failing input or a violated jump (:func:`certify.kernels.streamed.check_streamed`); the report's counts are
    then lower bounds (``stopped_early``). Explicit families are always checked in full.

    Exact numbers here are bounded by the table's entry sizes (``certify.kernels.table``
    limits), so Python's 4,300-digit guard on ``str(int)`` is lifted while the report is
    written.
    """
    with unlimited_digits():
        return _check_kernel(table, family, search_readout, first_failure)


def _check_kernel(table: KernelTable, family: FamilySpec, search_readout: bool = False,
                  first_failure: bool = False) -> KernelReport:
    """Check ``table`` against ``family``: several heads, a streamed family, or a listed one.

    Raises
    ------
    TableFormatError
        A family token is missing from the table, ``α < 0`` on a pair the family uses,
        a denominator is not positive, or the token lengths differ.
    KernelContradiction
        A solving kernel below the certified bound or violating a jump (a bug).
    """
    if table.head_count > 1:
        report = check_multihead(table, family)
        report.table["readout_search_skipped"] = bool(search_readout)  # the LP is about one head
        return report
    if family.streamed:
        return check_streamed(table, family, search_readout, first_failure)
    return _check_listed(table, family, search_readout)


def _check_listed(table: KernelTable, family: FamilySpec, search_readout: bool) -> KernelReport:
    """The stages on a listed family: blocks and validation, predictions, jumps, ranks, readout search."""
    m = family.m
    if table.m != m:
        raise TableFormatError(f"table tokens have {table.m} bits, the family's have {m}")
    eps = family.error
    inputs = family.inputs
    # Table indices of the family's query tokens and of all its tokens.
    q_tokens, k_tokens, q_pos, k_pos = token_positions(table, inputs, m)
    rows, cols, A, G = _kernel_blocks(table, q_tokens, k_tokens)
    alpha = lambda x, z: A[q_pos[x], k_pos[z]]  # noqa: E731
    report = _new_report(table, family, eps, len(inputs), len(family.jumps), len(q_tokens), len(k_tokens))
    delta = as_fmpq(table.delta, "delta")
    # Validation: α ≥ 0 on every used pair (all negative pairs listed), positive denominators δ + Σ_j α.
    negatives = _Negatives(m)
    dens = _validate_inputs(inputs, alpha, 0, delta, negatives)[0]
    negatives.refuse()

    def describe(i: int) -> dict[str, Any]:
        X = inputs[i]
        return {"index": i, "tokens": [token_bits(z, m) for z in X.tokens], "query": X.query, "target": X.target}

    by_query = group_by_query(inputs)
    if G is not None:
        _predict_listed(report, table, inputs, by_query, A, G, q_pos, k_pos, delta, eps, describe)
    jumps = JumpTally(m, eps)
    for j, (x, y, z, n_len) in enumerate(family.jumps):
        jumps.check(j, x, y, z, n_len, alpha(x, y), alpha(x, z))
    report.jump_violations, report.jumps_checked = jumps.violations, len(family.jumps)

    known = kernel_ranks(report, family, table, rows, cols)  # None: a lower bound alone shows no contradiction
    if report.solves is not None:
        assert_consistent(report.solves, known, family.certified_bound, len(report.jump_violations))
    if not table.has_readout or search_readout:
        readout_search(report, inputs, q_tokens, alpha, dens, eps, m, describe, delta, by_query)
        assert_consistent(bool(report.readout_exists), known, family.certified_bound, len(report.jump_violations))
    return report


def _predict_listed(report: KernelReport, table: KernelTable, inputs, by_query: dict[int, list[int]], A, G,
                    q_pos: dict[int, int], k_pos: dict[int, int], delta, eps: Fraction, describe) -> None:
    """Predictions and errors of a listed family, query token by query token (``certify.kernels.predict``)."""
    phantom = _phantom_numerators(table, [table.index[x] for x in q_pos], delta)  # δ·β(x) per query row
    tally = ErrorTally(eps)
    for xq, ids in by_query.items():
        r = q_pos[xq]
        arow = {z: A[r, k_pos[z]] for z in dict.fromkeys(z for i in ids for z in inputs[i].tokens)}
        a, g = query_rows(arow, G, r, k_pos, delta if table.delta else 0, phantom[r])
        group = [inputs[i] for i in ids]
        for i, (N, D, diff) in zip(ids, query_errors(group, a, g)):
            tally.add(N, D, diff, lambda: describe(i))
    report.failing_inputs = sorted(tally.failing, key=lambda e: e["index"])
    report.max_error, report.solves = tally.max_error, not tally.failing


def check_multihead(table: KernelTable, family: FamilySpec) -> KernelReport:
    """``check-kernel`` on a table of ``H ≥ 2`` heads: a :class:`KernelReport`.

    Exact predictions and maximum error on every input, the failing inputs, and each
    head's exact kernel rank on the family's query tokens × tokens (their sum bounds the
    rank of the heads' combined features). No jump, bound or readout-LP check: those are
    one-head statements (docs/kernel-table-format.md, "Several heads").
    """
    if family.streamed:
        raise TableFormatError("a table of several heads is checked against a listed family (inputs in the file), "
                               "not a compact certificate's streamed one")
    if not table.has_readout:
        raise TableFormatError(f"several heads ({table.head_count}) need a readout: give readout=… and values=… "
                               "(certify.torch; certify.torch.LinearHead builds them from a layer's parts), or beta "
                               "and w in a table file; several heads are checked by their predictions (or check each "
                               "head alone, kernel only)")
    m, eps = family.m, family.error
    inputs = family.inputs
    preds = exact_predictions(table, inputs, m)
    q_tokens, k_tokens, _, _ = token_positions(table, inputs, m)
    report = _new_report(table, family, eps, len(inputs), 0, len(q_tokens), len(k_tokens))
    report.table["heads"] = list(table.heads)
    report.table["value_heads"] = list(table.value_heads) if table.value_heads else None
    tally = ErrorTally(eps)
    for i, (X, pred) in enumerate(zip(inputs, preds)):
        N, D = pred.numerator, pred.denominator
        tally.add(N, D, abs(N - X.target * D), lambda: {"index": i, "tokens": [token_bits(z, m) for z in X.tokens],
                                                          "query": X.query, "target": X.target})
    report.failing_inputs, report.max_error, report.solves = tally.failing, tally.max_error, not tally.failing
    head_ranks(report, table, [table.index[x] for x in q_tokens], [table.index[z] for z in k_tokens])
    report.one_head_bound = report.certified_bound
    report.certified_bound = None  # a one-head bound says nothing about H heads' sum of ranks
    report.jumps_checked = 0
    return report


def parse_tolerance(text: str, name: str) -> Fraction:
    """A tolerance ``≥ 0`` from an option, exactly: ``p/q``, an integer or a decimal (``1e-9`` is ``1/10⁹``); at most 40 characters.

    >>> parse_tolerance("1e-9", "--tol"), parse_tolerance("3/4", "--tol")
    (Fraction(1, 1000000000), Fraction(3, 4))
    >>> parse_tolerance("1e-999999999", "--tol")
    Traceback (most recent call last):
    ...
    ValueError: --tol: 1e-999999999 would have 1,000,000,000 digits; at most 1,000 are allowed
    """
    from .numbers import _decimal_parts, _json_float

    text = str(text).strip()
    num, slash, den = text.partition("/")
    try:
        if len(text) > 40:
            raise TableFormatError("at most 40 characters")
        if slash:
            if not (re.fullmatch(r"[0-9]+", num) and re.fullmatch(r"[0-9]+", den)) or int(den) == 0:
                raise TableFormatError(f"{text!r} is not p/q with q ≥ 1")
            value = Fraction(int(num), int(den))
        else:
            value = Fraction(*_decimal_parts(_json_float(text)))
    except TableFormatError as exc:
        raise ValueError(f"{name}: {str(exc).removeprefix('number ')}") from None
    if value < 0:
        raise ValueError(f"{name}: must be ≥ 0, not {text}")
    return value


def all_pairs_nonnegative(table: KernelTable) -> dict:
    """``α`` on every pair of the table's ``N`` tokens, exactly: the number of negative entries and the first one.

    Zero negatives means the table's head extends to all of ``{0,1}^m`` with ``α ≥ 0``
    everywhere (every other token given zero features), the model of docs/math.md §2;
    ``check-kernel`` otherwise checks only the pairs the family uses. ``first`` is the first
    negative entry in row-major order over the table's tokens; ``pairs_formed`` counts the
    entries computed.

    From factors (docs/kernel-table-format.md, ``--all-pairs``): ``α(x, z) = ⟨φ_Q(x), φ_K(z)⟩``
    is exactly 0 when ``φ_Q(x)`` or ``φ_K(z)`` is a zero row (every entry's numerator 0; so
    is a clipped entry, ``--clip-negative-alpha``), so only the ``n_Q`` rows with a nonzero
    ``φ_Q`` × the ``n_K`` columns with a nonzero ``φ_K`` are formed, in table order — the
    first negative of the full scan is the first of theirs — a batch of rows at a time against
    ``φ_K``ᵀ converted once. Bounded before anything is converted: ``2·N·r`` factor entries
    read at most ``MAX_FACTOR_ENTRIES``, then ``n_Q·n_K·r ≤`` the table's ``max_work``. A
    kernel given directly: the ``N × N`` block under ``check_work``, a batch of rows at a time.
    """
    from flint import fmpq

    from ..check import format_rational
    from . import table as _table
    from .report import token_bits, _frac

    n = len(table.tokens)
    rows = list(range(n))
    if "kernel" in table.fields:
        table.check_work(n, n)
        table.prepare(rows)
        qrows = kcols = rows
    else:
        r = table.width
        if 2 * n * r > _table.MAX_FACTOR_ENTRIES:
            raise TableFormatError(f"α on all pairs of this table's {n:,} tokens reads 2 × {n:,} × {r:,} = "
                                   f"{2 * n * r:,} factor entries; at most {_table.MAX_FACTOR_ENTRIES:,} "
                                   "(docs/kernel-table-format.md, limits)")
        table.prepare(rows)
        qrows, kcols = (_nonzero_rows(table, f, rows) for f in ("phi_q", "phi_k"))
        work = len(qrows) * len(kcols) * r
        if work > table.max_work:
            raise TableFormatError(f"α on all pairs of this table's {n:,} tokens: its {len(qrows):,} tokens with "
                                   f"nonzero φ_Q × {len(kcols):,} with nonzero φ_K need {work:,} multiply-adds; at "
                                   f"most {table.max_work:,} (docs/kernel-table-format.md, limits; check-kernel "
                                   "--max-work sets it)")
    nk = len(kcols)
    size = blocks.batch_rows(nk)
    Kt = table._rows("phi_k", kcols).transpose() if "kernel" not in table.fields and qrows else None
    lo = None if table.clip is None else fmpq(-table.clip.numerator, table.clip.denominator)  # [lo, 0) read as 0
    negative, first = 0, None
    for start in range(0, len(qrows), size):
        batch = qrows[start:start + size]
        B = table._rows("phi_q", batch) * Kt if Kt is not None else table.alpha_block(batch, kcols)
        N, _ = B.numer_denom()  # a common positive denominator: the sign is the numerator's
        for k, p in enumerate(N.entries()):
            if p < 0:
                a = B[k // nk, k % nk]
                if lo is not None and a >= lo:
                    continue
                negative += 1
                if first is None:
                    first = {"x": token_bits(table.tokens[batch[k // nk]], table.m),
                             "z": token_bits(table.tokens[kcols[k % nk]], table.m), "alpha": format_rational(_frac(a))}
    return {"tokens": n, "negative": negative, "first": first, "pairs_formed": len(qrows) * nk}


def _nonzero_rows(table: KernelTable, name: str, rows: list[int]) -> list[int]:
    """The rows of a field with an entry whose numerator is not 0, in order; read a chunk of rows at a time."""
    from . import table as _table

    f = table.fields[name]
    width = f.shape[1]
    step = max(1, _table._ROW_CHUNK // max(1, width))
    out = []
    for s in range(0, len(rows), step):
        chunk = rows[s:s + step]
        pairs = f.pairs(chunk, None)
        out.extend(i for k, i in enumerate(chunk) if any(p for p, _ in pairs[k * width:(k + 1) * width]))
    return out


def run_check(table_path: str, family_path: str | None = None, search_readout: bool = False,
              clip: Fraction | None = None, first_failure: bool = False,
              all_pairs: bool = False, max_work: int | None = None) -> tuple[int, KernelReport | str]:
    """``certify check-kernel`` without the printing: ``(exit code, report)`` or ``(exit code, one-line reason)``.

    Exit 0: the table's readout solves the family (kernel only: some readout exists);
    1: it does not; 2: the table or family file is unreadable or malformed (the reason
    names the field); 3: a result contradicts the certified theorem (a bug). Every
    input gets one of these: the caller never sees an exception for a bad file.
    """
    try:
        family = load_family(family_path)
    except FamilyFormatError as exc:
        return 2, str(exc)
    return verdict(table_path, family, search_readout, clip, first_failure, all_pairs, max_work)


def verdict(table_path: str, family: FamilySpec, search_readout: bool = False,
            clip: Fraction | None = None, first_failure: bool = False,
            all_pairs: bool = False, max_work: int | None = None) -> tuple[int, KernelReport | str]:
    """:func:`run_check` with the family already loaded (for many tables against one family)."""
    from .table import load_table

    try:
        with unlimited_digits():  # a refusal may quote an exact number of the file
            table = load_table(table_path)
    except TableFormatError as exc:
        return 2, str(exc)
    if max_work is not None:
        table.max_work = max_work
    return table_verdict(table, family, search_readout, clip, first_failure, all_pairs)


def table_verdict(table: KernelTable, family: FamilySpec, search_readout: bool = False,
                  clip: Fraction | None = None, first_failure: bool = False,
                  all_pairs: bool = False) -> tuple[int, KernelReport | str]:
    """:func:`verdict` of a table already read: ``(exit code, report)`` or ``(exit code, one-line reason)``.

    ``all_pairs``: also compute ``α`` on every pair of the table's tokens (one-head tables)
    and count the negative entries (:func:`all_pairs_nonnegative`); any makes the exit 1.
    """
    from ..linalg.lp import LPError

    try:
        with unlimited_digits():  # a refusal may quote an exact number of the file
            if clip is not None:
                table.clip_negative_alpha(clip)
            if all_pairs and table.head_count > 1:
                raise TableFormatError("--all-pairs is for one-head tables (this one has "
                                       f"{table.head_count} heads)")
            report = check_kernel(table, family, search_readout=search_readout, first_failure=first_failure)
            if all_pairs:
                report.all_pairs = all_pairs_nonnegative(table)
    except (TableFormatError, FamilyFormatError) as exc:
        return 2, str(exc)
    except (KernelContradiction, LPError) as exc:
        return 3, str(exc)
    return (0 if report.ok else 1), report
