"""The upper side of r*(m, 3): a kernel of low rank, verified exactly before it is claimed (docs/math.md §11).

:func:`upper_side` tries ranks from the proved lower bound upwards; at each rank
:func:`certify.minrank.search.propose` gets ``restarts`` seeded starts of ``steps`` steps
(alternately the symmetric kernel's truncated SVD and a random start),
and every proposal is rounded to integer factors (``round(2^k · U)``, ``k`` = 8, 12, 16, 20)
and kept only when :func:`verified_table` passes: the kernel ``A = U Vᵀ`` is ``≥ 0``, every
row passes the row condition in integers, its exact rank (python-flint) is the width, and —
for ``m ≤`` :data:`certify.minrank.verify.MAX_BRUTE_FORCE_M` — every length-3 input is
evaluated with the explicit readout in exact integers. If no rank up to ``max_rank``
verifies, the upper side is the dense-softmax kernel ``6^{m − ⟨x, v⟩}`` of rank ``2^m``
(A.1, docs/math.md §8), checked the same way. The table is an ordinary kernel table
(docs/kernel-table-format.md): ``phi_q``, ``phi_k`` (or ``kernel``) in integers.

The work is known before the search: :func:`search_work` counts it in entry-steps (``4^m``
entries of the kernel × the steps of every start at every rank, at most), and
:func:`search_seconds` converts that to seconds on the 2-core machine with
:data:`SECONDS_PER_ENTRY_STEP` — only to say it; ``certify minrank`` refuses a run above
:data:`MAX_SECONDS` (a day) from the count, before any step (issue 42).
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Callable

import numpy as np

from ..estimates import MAX_SECONDS, duration
from .rows import bits as _bits, matrix_failure
from .search import geometry, propose
from .verify import MAX_BRUTE_FORCE_M, brute_force

__all__ = ["Upper", "verified_table", "upper_side", "softmax_table", "table_doc", "SCALES", "search_work",
           "search_seconds", "too_long", "SECONDS_PER_ENTRY_STEP", "MAX_SECONDS"]

SCALES = (8, 12, 16, 20)

#: Seconds per entry-step (one step of :func:`certify.minrank.search.propose` over one entry of the ``2^m × 2^m``
#: kernel) on the 2-core machine: 54 ms per step at ``m = 10`` (1,048,576 entries: 5·10⁻⁸ each) when the other core is
#: idle, up to about 0.16 s beside other work; ``m = 8, 9``: 3 and 11 ms (``tests/benchmarks/bench_estimates.py``,
#: 2026-12-03; docs/performance.md, "certify minrank"). For the message only: the refusal is decided by the count.
SECONDS_PER_ENTRY_STEP = 1e-7


@dataclass
class Upper:
    """A verified upper bound: the rank, how it was found, the table (JSON-ready) and the checks that passed."""

    m: int
    rank: int
    how: str
    table: dict[str, Any] | None  # None when the upper side is a symmetric-kernel certificate (Bracket.symmetric)
    inputs_checked: int
    attempts: list[dict[str, Any]] = field(default_factory=list)


def _factor_rank(Ui: list[list[int]], Vi: list[list[int]]) -> int:
    """The exact rank of ``A = U Vᵀ`` from its factors (:func:`certify.linalg.rank.factored_rank`: ``rank(U·VᵀV)``,
    a ``2^m × r`` matrix, not the ``2^m × 2^m`` one — ``m = 10``: seconds in one call that Ctrl-C cannot stop)."""
    from flint import fmpz_mat

    from ..linalg.rank import factored_rank

    return factored_rank(fmpz_mat(Ui), fmpz_mat(Vi)) if Ui and Ui[0] else 0


def verified_table(m: int, Ui: list[list[int]], Vi: list[list[int]]) -> tuple[int, int] | None:
    """``(exact rank, inputs evaluated)`` if the integer factors give a kernel that solves every length-3 input, else ``None``."""
    n = 1 << m
    A = [[sum(a * b for a, b in zip(Ui[x], Vi[v])) for v in range(n)] for x in range(n)]
    if any(a < 0 for row in A for a in row) or matrix_failure(A, m) is not None:
        return None
    inputs = 0
    if m <= MAX_BRUTE_FORCE_M:
        result = brute_force(A, m)
        if not result.ok:
            raise AssertionError(f"m = {m}: the row condition holds but the input {result.failure} fails "
                                 "(the sufficiency proof of docs/math.md §11 would be wrong)")
        inputs = result.inputs
    return _factor_rank(Ui, Vi), inputs


def table_doc(m: int, Ui: list[list[int]] | None, Vi: list[list[int]] | None, note: str,
              kernel: list[list[int]] | None = None) -> dict[str, Any]:
    """The kernel table (docs/kernel-table-format.md): every token of ``{0,1}^m``, integer factors or a kernel."""
    doc: dict[str, Any] = {"note": note, "tokens": [_bits(v, m) for v in range(1 << m)]}
    if kernel is not None:
        doc["kernel"] = kernel
    else:
        doc["phi_q"], doc["phi_k"] = Ui, Vi
    return doc


def softmax_table(m: int) -> tuple[dict[str, Any], int]:
    """The dense-softmax kernel ``6^{m − ⟨x, v⟩}`` (rank ``2^m``), verified as any table is; ``(table, inputs)``."""
    n = 1 << m
    A = [[6 ** (m - (x & v).bit_count()) for v in range(n)] for x in range(n)]
    if matrix_failure(A, m) is not None:
        raise AssertionError("the dense-softmax kernel fails the row condition")
    inputs = brute_force(A, m).inputs if m <= MAX_BRUTE_FORCE_M else 0
    return table_doc(m, None, None, f"dense softmax 6^(m - <x,v>), rank 2^{m} (A.1)", kernel=A), inputs


def search_work(m: int, lower: int, max_rank: int, restarts: int, steps: int) -> int:
    """The entry-steps :func:`upper_side` spends at most: ``4^m`` entries × ``steps`` × ``restarts`` × the ranks from
    ``lower`` to ``min(max_rank, 2^m)`` (every start run to its last step; a start that proposes stops earlier)."""
    ranks = max(0, min(max_rank, 1 << m) - max(lower, 1) + 1)
    return (1 << 2 * m) * steps * restarts * ranks


def search_seconds(work: int) -> float:
    """``work`` entry-steps in seconds on the 2-core machine (:data:`SECONDS_PER_ENTRY_STEP`): for messages only."""
    return work * SECONDS_PER_ENTRY_STEP


def too_long(m: int, lower: int, max_rank: int, restarts: int, steps: int) -> str | None:
    """The one-line refusal of a search above :data:`MAX_SECONDS` (:func:`search_work`, then :func:`search_seconds`),
    naming the estimate and the options that lower it; ``None`` for a search that fits in a day."""
    work = search_work(m, lower, max_rank, restarts, steps)
    seconds = search_seconds(work)
    if seconds <= MAX_SECONDS:
        return None
    ranks = max(0, min(max_rank, 1 << m) - max(lower, 1) + 1)
    return (f"the search would take up to {work:.3g} entry-steps (4^{m} kernel entries × {steps:,} steps × {restarts} "
            f"start{'s' if restarts != 1 else ''} × {ranks} rank{'s' if ranks != 1 else ''}), about {duration(seconds)} on the "
            f"2-core machine (docs/performance.md), more than a day: lower --steps, --restarts or --max-rank")


def upper_side(m: int, lower: int, max_rank: int, restarts: int, steps: int, seed: int = 0,
               say: Callable[[str], None] | None = None) -> Upper:
    """The least rank from ``lower`` to ``max_rank`` at which a proposal verifies (module docstring), else softmax.

    ``say`` gets a line at every step of every start (rank, start, step, loss: the caller's
    :class:`certify.check.Progress` shows one every few seconds) and one when a start ends.
    """
    say = say or (lambda text: None)
    geo = geometry(m)
    attempts: list[dict[str, Any]] = []
    for r in range(max(lower, 1), min(max_rank, 1 << m) + 1):
        for k in range(restarts):
            s = seed + 1000 * r + k
            kind = "ansatz" if k % 2 == 0 else "random"  # the symmetric kernel's truncated SVD, then a random start
            where = f"m = {m}, rank {r}, start {k + 1}/{restarts} ({kind})"

            def step(t: int, loss: float, where: str = where) -> None:
                say(f"{where}: step {t:,}/{steps:,}, loss {loss:.3g}")

            U, V, used = propose(m, r, s, steps, start="ansatz" if kind == "ansatz" else None, geo=geo, progress=step)
            attempts.append({"rank": r, "seed": s, "start": kind, "steps": used, "proposed": U is not None})
            say(f"m = {m}, rank {r}, start {k + 1}/{restarts} ({kind}): "
                f"{'a proposal' if U is not None else 'none'} after {used:,} steps")
            if U is None:
                continue
            for bits in SCALES:
                Ui = np.rint(U * 2**bits).astype(np.int64).tolist()
                Vi = np.rint(V * 2**bits).astype(np.int64).tolist()
                got = verified_table(m, Ui, Vi)
                if got is not None and got[0] <= r:
                    rank, inputs = got
                    attempts[-1]["verified_at_bits"] = bits
                    note = (f"certify minrank --m {m}: rank {rank}, seed {s} ({kind} start), {used} steps, factors "
                            f"round(2^{bits} x); verified: A >= 0, every row condition, exact rank"
                            + (f", all {inputs:,} length-3 inputs" if inputs else ""))
                    return Upper(m, rank, f"search (rank {r}, seed {s}, {kind} start, {used:,} steps, factors × 2^{bits})",
                                 table_doc(m, Ui, Vi, note), inputs, attempts)
    table, inputs = softmax_table(m)
    searched = (f"no search proposal at ranks {max(lower, 1)}–{min(max_rank, 1 << m)} verified"
                if max(lower, 1) <= min(max_rank, 1 << m) else f"nothing searched (--max-rank {max_rank} < {lower})")
    return Upper(m, 1 << m, f"dense softmax (A.1): {searched}", table, inputs, attempts)
