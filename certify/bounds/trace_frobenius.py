"""The trace–Frobenius value of a code and its best distance (A.2; docs/math.md §5, docs/bounds.md).

With ``T`` words whose off-diagonal entries are ``< 1/Λ``: :func:`tf_bound` (the paper's
argument), :func:`shifted_tf_bound` and :func:`null_shifted_tf_bound` (docs/math.md §5,
"Sharper arguments"), :func:`half_min` (the paper's uniform form); :func:`optimize_exact`
maximizes one of them over the distance ``Δ`` exactly, from a few ``Δ``;
:func:`tf_interval` is the interval form, :func:`balance_search` the float search for ``Δ``.
"""
from __future__ import annotations

import math
from typing import Callable, Iterable, Sequence

from .code_sizes import MiddleLayerSizes
from .quantities import Quantity, interval_quantity

__all__ = ["tf_bound", "shifted_tf_bound", "null_shifted_tf_bound", "half_min", "optimize_exact", "tf_interval", "balance_search", "float_tf"]


def tf_bound(T: int, L2: int) -> int:
    """``⌊T Λ² / (Λ² + T − 1)⌋ + 1``: trace–Frobenius with ``T`` words, off-diagonals ``< 1/Λ`` (A.2).

    ``t² / ‖C‖_F² > t² / (t + t(t−1)/Λ²)``; with ``T < 2`` only ``r ≥ 1`` follows.
    """
    if T < 2:
        return 1
    return T * L2 // (L2 + T - 1) + 1


def shifted_tf_bound(T: int, L2: int) -> int:
    """The shifted argument with ``T`` words, off-diagonals ``< 1/Λ``, ``s = 1/(2Λ)`` (docs/math.md §5).

    ``t²(1−s)² / (t(1−s)² + t(t−1)s²) = T(2Λ−1)² / ((2Λ−1)² + T − 1)`` and ``r ≥ ⌈·⌉ − 1``:
    ``Λ²`` of :func:`tf_bound` becomes ``(2Λ−1)² < 4Λ²`` (``Λ = √L2``, an integer chain factor).

    >>> tf_bound(15, 16), shifted_tf_bound(15, 16)
    (9, 11)
    """
    lam = math.isqrt(L2)
    if T < 2 or lam * lam != L2:
        return tf_bound(T, L2)
    k = (2 * lam - 1) ** 2
    return max(1, -(-(T * k) // (k + T - 1)) - 1)


def null_shifted_tf_bound(T: int, L2: int) -> int:
    """Theorem A (docs/math.md §5, "The null-space step") with ``T`` words, off-diagonals ``< 1/Λ``, ``s = 1/(2Λ)``.

    The same ratio ``R = T(2Λ−1)² / ((2Λ−1)² + T − 1)`` as :func:`shifted_tf_bound`, and
    ``r ≥ min(T, ⌊R⌋ + 1)`` (the projector ``Π`` on ``ker C``: ``tr(CΠ) = 0``, ``C ≥ 0``,
    ``s⟨J, Π⟩ ≥ 0``, Cauchy–Schwarz). For uniform off-diagonals ``< 1/Λ`` the best ``s`` is
    ``1/(2Λ)``, as for the shifted bound. ``Λ = √L2`` must be an integer ``≥ 1`` (a chain
    factor); otherwise, and for ``T < 2``, the value is :func:`tf_bound`'s, as for
    :func:`shifted_tf_bound`.

    Exactly, for ``T ≥ 2`` and ``L2 = Λ²`` with ``Λ ≥ 1``: ``1 ≤ R < T``, so the value is
    ``⌊R⌋ + 1`` (the cap ``T`` never binds there; it keeps the value ``≤ T`` by construction),
    and ``⌊R⌋ + 1 − (⌈R⌉ − 1)`` is 1 when ``R`` is not an integer and 2 when it is. So the
    value is ``shifted_tf_bound(T, L2) + 2`` when ``R`` is an integer ``≥ 2``, and
    ``shifted_tf_bound(T, L2) + 1`` otherwise (``R`` not an integer, or ``R = 1``, i.e.
    ``Λ = 1``, where the shifted value ``⌈1⌉ − 1 = 0`` is held at 1). It is never below
    :func:`tf_bound` (``(2Λ−1)² ≥ Λ²``) and never above ``T``.

    >>> tf_bound(15, 16), shifted_tf_bound(15, 16), null_shifted_tf_bound(15, 16)  # R = 35/3: one more
    (9, 11, 12)
    >>> shifted_tf_bound(4, 4), null_shifted_tf_bound(4, 4)  # R = 4·9/12 = 3, an integer: two more
    (2, 4)
    >>> shifted_tf_bound(5, 1), null_shifted_tf_bound(5, 1), null_shifted_tf_bound(1, 16)  # R = 1; T = 1
    (1, 2, 1)
    """
    if T < 2 or L2 < 1:
        return tf_bound(T, L2)
    lam = math.isqrt(L2)
    if lam * lam != L2:
        return tf_bound(T, L2)
    k = (2 * lam - 1) ** 2
    return min(T, T * k // (k + T - 1) + 1)


def half_min(T: int, L2: int) -> int:
    """``⌈½ min{T, Λ²}⌉``: the paper's uniform form ``r ≥ ½ min{t, Λ²}`` (A.2), as an integer."""
    return max(1, -(-min(T, L2) // 2))


def optimize_exact(layer: MiddleLayerSizes, candidates: Iterable[int], lam2: Callable[[int], int | None],
                    value: Callable[[int, int], int] = tf_bound,
                    balance: Callable[[int], float] | None = None) -> tuple[int, int | None, int | None, int | None]:
    """``max_Δ value(T_Δ, Λ_Δ²)`` over ``candidates`` (the smallest ``Δ`` on ties), exactly.

    Returns ``(bound, Δ, T_Δ, Λ_Δ²)``, or ``(1, None, None, None)`` when no ``Δ`` gives
    more than ``r ≥ 1``. The maximum is exact, found from a few ``Δ`` instead of all:

    * start where ``T_Δ`` and ``Λ_Δ²`` cross, located by bisection on the float model
      ``balance(Δ) ≈ log₂ T_Δ − log₂ Λ_Δ²`` (the bound peaks there; any start is correct,
      a poor one only costs more steps);
    * upwards: ``value(T, ·) ≤ max(T, 1)`` and ``T_Δ`` does not increase, so once
      ``T_Δ`` is no larger than the best value found, no later ``Δ`` beats it;
    * downwards: ``value`` does not decrease in ``T`` or ``Λ²`` and ``Λ²`` does not
      decrease in ``Δ``, so ``value(C(M, M/2), Λ_Δ²)`` bounds every ``Δ' ≤ Δ``; once
      below the best, no earlier ``Δ`` reaches it.

    ``candidates`` must increase; ``lam2`` (``None``: no chain split, skipped) must not
    decrease along them; ``value`` is :func:`tf_bound`, :func:`half_min`,
    :func:`shifted_tf_bound` or :func:`null_shifted_tf_bound` (the last two at square ``Λ²``).
    """
    if isinstance(candidates, range) and candidates.step > 0:  # the common case, without a list of h items
        cands: Sequence[int] = candidates[:max(0, len(range(candidates.start, layer.h + 1, candidates.step)))]
    else:
        cands = [d for d in candidates if d <= layer.h]
    best: tuple = (1, None, None, None)
    if not cands:
        return best
    start = 0
    if balance is not None:
        lo, hi = 0, len(cands) - 1  # first candidate with balance ≤ 0 (or the last)
        while lo < hi:
            mid = (lo + hi) // 2
            if balance(cands[mid]) <= 0:
                hi = mid
            else:
                lo = mid + 1
        start = lo
    for d in cands[start:]:
        T = layer.code_size(d)
        if T <= best[0]:
            break
        L2 = lam2(d)
        if L2 is None:
            continue
        b = value(T, L2)
        if b > best[0]:
            best = (b, d, T, L2)
    for d in reversed(cands[:start]):
        L2 = lam2(d)
        if L2 is None:
            continue
        if value(layer.total, L2) < best[0]:
            break
        T = layer.code_size(d)
        b = value(T, L2)
        if b > 1 and b >= best[0]:
            best = (b, d, T, L2)
    b, d, T, L2 = best
    return (int(b), d, None if T is None else int(T), None if L2 is None else int(L2))


def tf_interval(T_lo, T_hi, L2_lo, L2_hi) -> Quantity:
    """Interval version of :func:`tf_bound` (monotone in ``T`` and ``Λ²``)."""
    f_lo = T_lo * L2_lo / (L2_lo + T_lo - 1)
    f_hi = T_hi * L2_hi / (L2_hi + T_hi - 1)
    return interval_quantity(f_lo.lower(), f_hi.upper() + 1)


def balance_search(candidates: list[int], score: Callable[[int], float], width: int = 200) -> int:
    """The candidate maximizing ``score`` (float model, for choosing parameters only).

    Scores rise then fall; a ternary search on the index finds the peak region, then a
    window around it is scanned in full.
    """
    lo, hi = 0, len(candidates) - 1
    while hi - lo > 3 * width:
        a = lo + (hi - lo) // 3
        b = hi - (hi - lo) // 3
        if score(candidates[a]) < score(candidates[b]):
            lo = a
        else:
            hi = b
    return max(candidates[lo:hi + 1], key=score)


def float_tf(log2T: float, log2L2: float) -> float:
    return log2T + log2L2 - max(log2T, log2L2) - math.log2(1 + 2 ** -abs(log2T - log2L2))
