"""``check-kernel`` through a compact certificate's family, generated one query token at a time.

The same stages as for a listed family (docs/kernel-table-format.md, "Compact families"),
in the same order of failure, with the same report: inputs and jumps keep their indices in
the explicit family; failing inputs and jump violations are listed up to :data:`MAX_LISTED`,
with exact counts. Everything decomposes by query token: the inputs and jumps of query
``x_S`` are generated from ``S`` and the code alone, they use only ``α(x_S, ·)`` and
``g_{x_S}(·)`` on that query's tokens, and the readout LP is one system per query token
(one-hot values: ``g_x(·)`` is a separate table per ``x``). Only the kernel rank and the
certificate matrix couple the queries; both go through the factors (``KernelTable.alpha_rank``).
The ``Q × T`` blocks of ``α`` and ``g`` are formed a batch of query rows at a time
(:class:`certify.kernels.blocks.RowBatches`: at most ``MAX_EXACT_ENTRIES`` block entries
held, the column factors converted once), bounded before anything is converted by
``KernelTable.check_batched_work`` (docs/kernel-table-format.md, limits).

Pass 1 (:meth:`_Stream.__init__`) reads each query's token set (plain ints:
:func:`witnesses.plans.planned_query_tokens`), checks them against the table and converts
the column factors; pass 2 (:meth:`_Stream.check_queries`) generates each query's inputs and jumps
(:func:`witnesses.plans.query_part`, the generator of ``expand_family``) and checks them;
pass 3 (:meth:`_Stream.search_readout`), only for the readout search, generates them again
and solves that query's LP. Memory: the held factors, one batch of the blocks and one
query's inputs. Refused before any
work (``FamilyFormatError``, exit 2) past :data:`MAX_STREAM_INPUTS` inputs, or
:data:`MAX_STREAM_READOUT_INPUTS` when a readout is searched.
"""
from __future__ import annotations

from typing import Any

from witnesses import Input

from .blocks import _batched_blocks, _Negatives, _phantom_numerators, _validate_inputs
from .families import FamilyFormatError, FamilySpec, compact_tokens
from .jumps import JumpTally
from ..linalg.lp import as_fmpq
from .predict import ErrorTally, query_errors, query_rows
from .ranks import KernelContradiction, assert_consistent, kernel_ranks
from .readout import ReadoutSearch, readout_problem
from .report import KernelReport, token_bits, _new_report
from .table import KernelTable, TableFormatError

__all__ = ["MAX_STREAM_INPUTS", "MAX_STREAM_READOUT_INPUTS", "MAX_LISTED", "check_streamed"]

#: A streamed (compact) family is checked only up to this many inputs: its cost is linear in
#: the inputs and jumps (≈ 27 µs of CPU per input on the 2-core reference machine, docs/performance.md,
#: "check-kernel through a compact family"); golay24's 13,268,976 inputs fit.
MAX_STREAM_INPUTS = 2**25
#: The readout search (kernel-only tables, ``--search-readout``) on a streamed family: one exact
#: LP per query token with as many rows as the query has inputs; refused above this many inputs in
#: all (docs/performance.md).
MAX_STREAM_READOUT_INPUTS = 200_000
#: A streamed family lists at most this many failing inputs and jump violations (their counts are exact).
MAX_LISTED = 1000


def check_streamed(table: KernelTable, family: FamilySpec, search_readout: bool = False,
                   first_failure: bool = False) -> KernelReport:
    """``check-kernel`` on a compact certificate's family, generated one query at a time (module docstring).

    ``first_failure``: stop at the first query token with a failing input or a violated
    jump; the report's counts are then of the part checked (``stopped_early``).
    """
    s = _Stream(table, family, search_readout, first_failure)
    s.check_queries()
    if s.stopped is not None:
        s.validate_rest()
    known = s.conclude()
    if s.lp and s.stopped is not None and s.stopped[1] is not None:
        s.refute_readout()
    elif s.lp:
        if family.compact.inputs > MAX_STREAM_READOUT_INPUTS:  # --first-failure found no violated jump
            where = f"up to query token {s.stopped[0] + 1}" if s.stopped is not None else "in the whole family"
            raise FamilyFormatError(
                f"{family.source}: no jump is violated {where}, so deciding whether some readout exists needs the "
                f"readout search on {family.compact.inputs:,} inputs; at most {MAX_STREAM_READOUT_INPUTS:,} "
                "(docs/performance.md)")
        s.search_readout()
        assert_consistent(bool(s.report.readout_exists), known, family.certified_bound, s.jumps.count)
    return s.report


class _Stream:
    """One streamed check: pass 1 in the constructor, then the passes as methods, in order."""

    def __init__(self, table: KernelTable, family: FamilySpec, search_readout: bool, first_failure: bool) -> None:
        c = family.compact
        m = family.m
        if table.m != m:
            raise TableFormatError(f"table tokens have {table.m} bits, the family's have {m}")
        if c.inputs > MAX_STREAM_INPUTS:
            raise FamilyFormatError(
                f"{family.source}: the family has {c.inputs:,} inputs and {c.jumps:,} jumps; check-kernel streams a "
                f"compact family of at most {MAX_STREAM_INPUTS:,} inputs (docs/performance.md)")
        self.lp = not table.has_readout or search_readout
        if self.lp and c.inputs > MAX_STREAM_READOUT_INPUTS and not first_failure:
            raise FamilyFormatError(
                f"{family.source}: the readout search on this family means {len(c.code.words):,} exact LPs with "
                f"{c.inputs:,} rows in all; at most {MAX_STREAM_READOUT_INPUTS:,} (docs/performance.md); give a table "
                "with a readout, without --search-readout")
        self.table, self.family, self.c, self.m, self.eps = table, family, c, m, family.error
        self.first_failure = first_failure
        self.code, self.plan, self.n = c.code, c.plan, c.length
        self.words = tuple(self.code.words)
        self._blocks()
        self.negatives = _Negatives(m)
        self.errors = ErrorTally(self.eps, MAX_LISTED)
        self.jumps = JumpTally(m, self.eps, MAX_LISTED)
        self.seen: dict[int, None] = {}  # tokens in order of first use: the explicit path's columns, for the rank
        self.offset = self.j_offset = 0  # inputs and jumps before the current query
        self.witness_of: dict[int, Any] = {}  # the last generated query's witness indices (first_failure)
        self.stopped = None  # (query, its first violated jump, offset of its inputs, its inputs) when first_failure stops

    def _blocks(self) -> None:
        """Pass 1: each query's tokens (cheap; once per family), all in the table, before anything is converted."""
        from witnesses.plans import query_part, planned_query_tokens

        table, m = self.table, self.m
        self.q_tokens = list(dict.fromkeys(self.words))
        self.q_pos = {x: i for i, x in enumerate(self.q_tokens)}
        k_list, self.counts = compact_tokens(self.c)  # counts per query: (inputs, jumps)
        self.k_pos = {z: i for i, z in enumerate(k_list)}
        missing_query = None
        if not self.k_pos.keys() <= table.index.keys():
            missing_query = next(i for i, (toks, _, _) in enumerate(planned_query_tokens(self.code, self.plan))
                                 if not toks <= table.index.keys())
        if missing_query is not None:  # the first input that uses a missing token, as the explicit path names it
            offset = sum(ni for ni, _ in self.counts[:missing_query])
            for k, X in enumerate(query_part(self.code, self.plan, self.n, missing_query)[3]):
                for pos, z in enumerate(X.tokens):
                    if z not in table.index:
                        raise TableFormatError(f"family.inputs[{offset + k}] token {pos} ({token_bits(z, m)}) is not in the table")
        self.k_tokens = list(self.k_pos)
        self.rows, self.cols, self.A, self.G = _batched_blocks(table, self.q_tokens, self.k_tokens)
        self.report = _new_report(table, self.family, self.eps, self.c.inputs, self.c.jumps, len(self.q_tokens),
                                  len(self.k_tokens), streamed=True)
        self.delta = as_fmpq(table.delta, "delta")
        self.phantom = _phantom_numerators(table, self.rows, self.delta) if self.G is not None else None

    def generate(self, i: int):
        """Query ``i``'s jumps and inputs, checked against the counts the checker derived."""
        from witnesses.plans import query_part

        _, jumps, witnesses, inputs = query_part(self.code, self.plan, self.n, i)
        if (len(inputs), len(jumps)) != self.counts[i]:
            raise KernelContradiction(f"query {i}: generated {len(inputs):,} inputs and {len(jumps):,} jumps, "
                                      f"counted {self.counts[i][0]:,} and {self.counts[i][1]:,}")
        self.witness_of[i] = witnesses
        return jumps, inputs

    def describe(self, i: int, X: Input) -> dict[str, Any]:
        return {"index": i, "tokens": [token_bits(z, self.m) for z in X.tokens], "query": X.query, "target": X.target}

    def validate(self, inputs, arow, offset: int) -> bool:
        """:func:`_validate_inputs` on one query's inputs (its row of α); True if ``α < 0`` was found."""
        return _validate_inputs(inputs, lambda _x, z: arow[z], offset, self.delta, self.negatives)[1]

    def check_queries(self) -> None:
        """Pass 2: per query, its inputs (validation, predictions) and its jumps; stops early under first_failure."""
        from ..check import Progress

        progress = Progress("check-kernel: checking the compact family (queries)", total=len(self.words))
        try:
            for i, x in enumerate(self.words):
                stop = self._query(i, x)
                self.offset += self.counts[i][0]
                self.j_offset += self.counts[i][1]
                if stop:
                    break
                progress.update(i + 1)
        finally:
            progress.close()

    def _query(self, i: int, x: int) -> bool:
        """Check query ``i`` (token ``x``); True when ``first_failure`` stops here."""
        jumps, inputs = self.generate(i)
        r = self.q_pos[x]
        toks = dict.fromkeys(z for X in inputs for z in X.tokens)
        self.seen.update(toks)
        arow = {z: self.A[r, self.k_pos[z]] for z in toks}
        if any(not a > 0 for a in arow.values()):  # a negative or zero entry: find the inputs it breaks
            self.validate(inputs, arow, self.offset)  # α < 0 is refused after the scan (negatives.refuse)
        if self.negatives.count:
            return False
        if self.G is not None:
            a, g = query_rows(arow, self.G, r, self.k_pos, self.delta if self.table.delta else 0,
                              self.phantom[r])
            for k, (X, (N, D, diff)) in enumerate(zip(inputs, query_errors(inputs, a, g))):
                self.errors.add(N, D, diff, lambda: self.describe(self.offset + k, X))
        first_jump = None
        for k, J in enumerate(jumps):
            if self.jumps.check(self.j_offset + k, J.x, J.y, J.z, self.n, arow[J.y], arow[J.z]) and first_jump is None:
                first_jump = k
        if self.first_failure and (self.errors.count or self.jumps.count):
            self.stopped = (i, first_jump, self.offset, inputs)
            return True
        return False

    def validate_rest(self) -> None:
        """After a first-failure stop the rest is still validated, so that a bad table is refused (exit 2) as without stopping."""
        from flint import fmpq
        from witnesses.plans import planned_query_tokens

        table, A, q_pos, k_pos = self.table, self.A, self.q_pos, self.k_pos
        zero = fmpq(0)
        # Nothing can fail when α ≥ 0 on the whole block (from nonnegative factors, else entry by entry, a batch at a
        # time) and every denominator has a positive term: δ > 0, or α(x, x) > 0 (every input of a compact family
        # starts with its query).
        if A.nonnegative() and (table.delta > 0 or all(A.entry(q_pos[x], k_pos[x]).p > 0 for x in self.words)):
            return
        rest = self.offset
        for i, (toks, n_inputs, _) in enumerate(planned_query_tokens(self.code, self.plan)):
            if i <= self.stopped[0]:
                continue
            r = q_pos[self.words[i]]
            if not all(A[r, k_pos[z]] > zero for z in toks):  # this query's own pairs: generate and look
                _, inputs = self.generate(i)
                self.validate(inputs, {z: A[r, k_pos[z]] for z in toks}, rest)
            rest += n_inputs

    def conclude(self) -> int | None:
        """Refuse negatives, check the counts, fill the report, the ranks and their consistency; the exact rank or None."""
        self.negatives.refuse()
        c, report, stopped = self.c, self.report, self.stopped
        if stopped is None and (self.offset != c.inputs or self.j_offset != c.jumps):
            raise KernelContradiction(f"generated {self.offset:,} inputs and {self.j_offset:,} jumps; the checker "
                                      f"counted {c.inputs:,} and {c.jumps:,}")
        report.failing_inputs, report.jump_violations = self.errors.failing, self.jumps.violations
        if self.G is not None:
            report.max_error = self.errors.max_error
            report.solves = self.errors.count == 0
            report.failing_count = self.errors.count
        report.violation_count = self.jumps.count
        report.jumps_checked = c.jumps if stopped is None else self.j_offset
        if stopped is not None:
            report.stopped_early = {"query_tokens_checked": stopped[0] + 1, "inputs_checked": self.offset,
                                    "jumps_checked": self.j_offset, "max_error_at_least": True}
            self.seen.update(dict.fromkeys(self.k_tokens))  # every column, for the rank: the order changes no rank
        known = kernel_ranks(report, self.family, self.table, self.rows,
                             [self.table.index[z] for z in self.seen])  # columns in the explicit path's order
        if report.solves is not None:
            assert_consistent(report.solves, known, self.family.certified_bound, self.jumps.count)
        return known

    def refute_readout(self) -> None:
        """A violated jump: its three witnesses admit no readout (weight domination, docs/math.md §3); shown by the
        exact LP on those inputs alone, with its verified Farkas certificate."""
        i, k, base, inputs = self.stopped
        x = self.words[i]
        r = self.q_pos[x]
        ids = list(self.witness_of[i][k])
        arow = {z: self.A[r, self.k_pos[z]] for X in (inputs[j] for j in ids) for z in X.tokens}
        dens = {j: sum((arow[z] for z in inputs[j].tokens), self.delta) for j in ids}
        search = ReadoutSearch(self.m)
        search.token(x, *readout_problem(inputs, x, ids, lambda _x, z: arow[z], dens, self.eps, self.delta),
                     lambda t: self.describe(base + ids[t], inputs[ids[t]]))
        if not search.infeasible:
            raise KernelContradiction(f"jumps[{self.report.jump_violations[0]['index']}] is violated, yet its three "
                                      "witnesses admit a readout (weight domination, A.2)")
        search.finish(self.report)
        self.report.readout_exists = False

    def search_readout(self) -> None:
        """Pass 3: one exact LP per query token, its inputs generated again."""
        search = ReadoutSearch(self.m)
        offset = 0
        for i, x in enumerate(self.words):
            _, inputs = self.generate(i)
            r = self.q_pos[x]
            arow = {z: self.A[r, self.k_pos[z]] for z in dict.fromkeys(z for X in inputs for z in X.tokens)}
            dens = [sum((arow[z] for z in X.tokens), self.delta) for X in inputs]
            base = offset
            search.token(x, *readout_problem(inputs, x, list(range(len(inputs))), lambda _x, z: arow[z], dens, self.eps,
                                             self.delta),
                         lambda k: self.describe(base + k, inputs[k]))
            offset += len(inputs)
        search.finish(self.report)
