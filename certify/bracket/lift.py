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
               note: str = "") -> dict[str, Any]:
    """The kernel table (docs/kernel-table-format.md) of Theorem 12.1 (b), factors rounded to multiples of ``1/denominator``.

    The table holds the integers ``denominator·φ``: its kernel is ``denominator²·α``, and a
    positive constant factor of the kernel changes no prediction (each is a ratio of sums
    of ``α``), no jump inequality and no rank. Integers keep the file short and exact.
    """
    r = P.shape[1]
    qi = {x: i for i, x in enumerate(red.queries)}
    ki = {z: j for j, z in enumerate(red.keys)}
    tokens = list(red.queries) + [z for z in red.keys if z not in qi]
    zero = [0] * r

    def row(M: np.ndarray, i: int | None) -> list[int]:
        return zero if i is None else [_spell(v, denominator) for v in M[i]]

    table: dict[str, Any] = {
        "tokens": [format(t, f"0{red.m}b")[::-1] for t in tokens],
        "phi_q": [row(P, qi.get(t)) for t in tokens],
        "phi_k": [row(Q, ki.get(t)) for t in tokens],
    }
    if readout:
        bits = [[(t >> k) & 1 for k in range(red.m)] for t in tokens]
        table["beta"] = [str(ETA - Fraction(1, 2))] * len(tokens)
        table["w"] = bits
        table["values"] = bits
    table["note"] = note or (f"certify bracket: rank-{r} factors of the reduced matrix rounded to multiples of "
                             f"1/{denominator} and stored times {denominator} (the kernel times {denominator}^2: the "
                             "same predictions)" + (f"; readout g_x(z) = <x,z> - 1/2 + {ETA} (docs/math.md §12)"
                                                    if readout else ""))
    return table


def checkable(red: Reduced, r: int, max_work: int | None = None) -> bool:
    """Whether ``check-kernel`` takes a lifted table of width ``r`` on this family, and ``--all-pairs`` on it (the
    work limits, from the shapes).

    ``max_work``: the multiply-adds allowed (``--max-work``; default the table limit).
    """
    from ..kernels.table import MAX_PRODUCT_WORK, TableFormatError, check_work

    tokens = len(set(red.queries) | set(red.keys))
    limit = MAX_PRODUCT_WORK if max_work is None else max_work
    try:
        check_work(len(red.queries), tokens, r, True, red.m, limit)  # the family's check
        check_work(tokens, tokens, r, True, red.m, limit)  # α ≥ 0 on every pair of the table's tokens
    except TableFormatError:
        return False
    return True


def verify_lifted(family, red: Reduced, con: Constraints, P: np.ndarray, Q: np.ndarray,
                  say: Callable[[str], None] | None = None, max_work: int | None = None,
                  outcome: dict | None = None):
    """``(denominator, table, report)`` of the first rounding the exact check verifies, else ``None``.

    A rounding is handed to the exact check only when, evaluated in floats, it still meets
    the conditions without margin (``κ = 1``): on golay24 one exact check is minutes of CPU.
    A table is handed to it only if its kernel is ``≥ 0`` on every pair of its tokens,
    exactly (:func:`certify.kernels.audit.all_pairs_nonnegative`, what ``check-kernel
    --all-pairs`` computes). ``max_work``: as ``check-kernel --max-work``. ``outcome``, if
    given, receives ``reached``: whether any table got to the exact check at all.
    """
    from ..kernels.audit import all_pairs_nonnegative, check_kernel
    from ..kernels.table import KernelTable, TableFormatError

    say = say or (lambda text: None)
    outcome = outcome if outcome is not None else {}
    outcome["reached"] = False
    for den in DENOMINATORS:
        Pr, Qr = rounded(P, den), rounded(Q, den)
        loss, _ = violations(con, Pr @ Qr.T, 1.0, 0.0, scale=False)
        if loss > 0:
            continue
        attempts = [True] + ([False] if not family.streamed else [])
        for readout in attempts:
            table = lift_table(red, Pr, Qr, den, readout=readout)
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
                return den, table, report
    return None
