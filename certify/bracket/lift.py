"""From reduced factors to a kernel table, and the exact check that alone decides (docs/math.md §12).

:func:`lift_table` writes the table of Theorem 12.1 (b): ``φ_Q(x_S)`` the row of ``P``,
``φ_K(k)`` the row of ``Q`` for every key ``k``, ``φ_K = 0`` for a query token that is no
key (so ``α(x_S, x_S) = 0``), every entry rounded to a multiple of ``1/denominator``, and
the readout ``g_x(z) = ⟨x, z⟩ − 1/2 + η`` in the table's general-values form (``values``
= ``w`` = the tokens' 0/1 coordinates, ``beta = η − 1/2``). :func:`verify_lifted` hands it
to ``certify check-kernel``'s :func:`certify.kernels.audit.check_kernel` — streamed for a
compact family — which computes every prediction exactly; an explicit family whose
fixed readout falls short is also tried kernel-only, where the exact readout LP decides.
An upper bound is claimed only for a table that check verified and whose kernel is ``≥ 0``
on every pair of tokens (``check-kernel --all-pairs``, exact: the model of docs/math.md §2).
"""
from __future__ import annotations

from fractions import Fraction
from typing import Any, Callable

import numpy as np

from .descent import Constraints, violations
from .reduced import ETA, Reduced

__all__ = ["DENOMINATORS", "checkable", "lift_table", "rounded", "verify_lifted"]

DENOMINATORS = (2**16, 2**24, 2**32)


def rounded(M: np.ndarray, denominator: int) -> np.ndarray:
    """``M`` rounded to multiples of ``1/denominator`` (as floats: exact, the numerators stay below 2⁵³)."""
    return np.rint(M * denominator) / denominator


def _spell(v: float, denominator: int) -> int:
    return int(np.rint(v * denominator))


def lift_table(red: Reduced, P: np.ndarray, Q: np.ndarray, denominator: int, *, readout: bool = True,
               note: str = "", key_denominator: int | None = None) -> dict[str, Any]:
    """The kernel table (docs/kernel-table-format.md) of Theorem 12.1 (b), factors rounded to multiples of ``1/denominator``.

    The table holds the integers ``denominator·φ``: its kernel is ``denominator²·α``, and a
    positive constant factor of the kernel changes no prediction (each is a ratio of sums
    of ``α``), no jump inequality and no rank. Integers keep the file short and exact.
    ``key_denominator``: the key features' own (``Q`` already multiples of its inverse; the
    search by roots, :mod:`certify.bracket.rooted`); the kernel is then ``denominator ·
    key_denominator · α``, still one constant.
    """
    kden = denominator if key_denominator is None else key_denominator
    r = P.shape[1]
    qi = {x: i for i, x in enumerate(red.queries)}
    ki = {z: j for j, z in enumerate(red.keys)}
    tokens = list(red.queries) + [z for z in red.keys if z not in qi]
    zero = [0] * r

    def row(M: np.ndarray, i: int | None, den: int) -> list[int]:
        return zero if i is None else [_spell(v, den) for v in M[i]]

    table: dict[str, Any] = {
        "tokens": [format(t, f"0{red.m}b")[::-1] for t in tokens],
        "phi_q": [row(P, qi.get(t), denominator) for t in tokens],
        "phi_k": [row(Q, ki.get(t), kden) for t in tokens],
    }
    if readout:
        bits = [[(t >> k) & 1 for k in range(red.m)] for t in tokens]
        table["beta"] = [str(ETA - Fraction(1, 2))] * len(tokens)
        table["w"] = bits
        table["values"] = bits
    scale = f"{denominator}^2" if kden == denominator else f"{denominator}*{kden}"
    table["note"] = note or (f"certify bracket: rank-{r} factors of the reduced matrix rounded to multiples of "
                             f"1/{denominator}" + ("" if kden == denominator else f" (key features: 1/{kden})") +
                             f" and stored times that (the kernel times {scale}: the same predictions)" + (f"; readout g_x(z) = <x,z> - 1/2 + {ETA} (docs/math.md §12)"
                                                    if readout else ""))
    return table


def checkable(red: Reduced, r: int, max_work: int | None = None, streamed: bool = False) -> bool:
    """Whether ``check-kernel`` takes a lifted table of width ``r`` on this family, and ``--all-pairs`` on it (the
    work limits, from the shapes: docs/kernel-table-format.md, limits).

    ``max_work``: the multiply-adds allowed (``--max-work``; default the table limit).
    ``streamed``: the family is checked by batches (a compact family's). ``--all-pairs`` on a
    lifted table forms the query tokens × the keys only (every other row of its factors is 0).
    """
    from ..kernels import table as _table

    tokens = len(set(red.queries) | set(red.keys))
    limit = _table.MAX_PRODUCT_WORK if max_work is None else max_work
    check = _table.check_batched_work if streamed else _table.check_work
    try:
        check(len(red.queries), tokens, r, True, red.m, limit)  # the family's check
    except _table.TableFormatError:
        return False
    return 2 * tokens * r <= _table.MAX_FACTOR_ENTRIES and len(red.queries) * len(red.keys) * r <= limit


def verify_lifted(family, red: Reduced, con: Constraints | None, P: np.ndarray, Q: np.ndarray,
                  say: Callable[[str], None] | None = None, max_work: int | None = None,
                  outcome: dict | None = None, candidates=None, holds=None):
    """``(denominator, table, report)`` of the first rounding the exact check verifies, else ``None``.

    A rounding is handed to the exact check only when, evaluated in floats, it still meets
    the conditions without margin (``κ = 1``): on golay24 one exact check is minutes of CPU.
    A table is handed to it only if its kernel is ``≥ 0`` on every pair of its tokens,
    exactly (:func:`certify.kernels.audit.all_pairs_nonnegative`, what ``check-kernel
    --all-pairs`` computes). ``max_work``: as ``check-kernel --max-work``. ``outcome``, if
    given, receives ``reached``: whether any table got to the exact check at all, and
    ``key_denominator``: the verified table's key features' denominator.
    ``candidates``: the roundings to try, ``(denominator, key denominator, P, Q)`` each
    (default: ``P`` and ``Q`` rounded to each of :data:`DENOMINATORS`); ``holds(P, Q)``: their
    test in floats (default: the conditions on the dense block of ``con``).
    """
    from ..kernels.audit import all_pairs_nonnegative, check_kernel
    from ..kernels.table import KernelTable, TableFormatError

    say = say or (lambda text: None)
    outcome = outcome if outcome is not None else {}
    outcome["reached"] = False
    if candidates is None:
        candidates = ((den, den, rounded(P, den), rounded(Q, den)) for den in DENOMINATORS)
    if holds is None:
        holds = lambda Pr, Qr: violations(con, Pr @ Qr.T, 1.0, 0.0, scale=False)[0] == 0  # noqa: E731
    for den, kden, Pr, Qr in candidates:
        if not holds(Pr, Qr):
            continue
        attempts = [True] + ([False] if not family.streamed else [])
        for readout in attempts:
            table = lift_table(red, Pr, Qr, den, readout=readout, key_denominator=kden)
            try:
                kt = KernelTable.from_dict(table)
                if max_work is not None:
                    kt.max_work = max_work
                negative = all_pairs_nonnegative(kt)["negative"]
                outcome["reached"] = True  # an exact check ran (α on every pair), whatever it says
                say(f"α on every pair of the rank-{P.shape[1]} table's tokens (1/{den:,}): {negative:,} negative")
                if negative:
                    break  # the same kernel with or without the readout
                say(f"exact check of a rank-{P.shape[1]} table (1/{den:,}{'' if readout else ', kernel only'})")
                report = check_kernel(kt, family, search_readout=not readout)
            except TableFormatError:
                continue
            ok = report.solves if readout else report.readout_exists
            if ok and report.kernel_rank_bounds.exact:
                outcome["key_denominator"] = kden
                return den, table, report
    return None
