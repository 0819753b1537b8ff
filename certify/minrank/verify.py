"""Every length-3 input, evaluated exactly: the brute-force check of a kernel for r*(m, 3) (docs/math.md §11).

For a nonnegative integer matrix ``A`` (``2^m × 2^m``) that passes the row condition
(:mod:`certify.minrank.rows`), :func:`brute_force` builds each row's explicit readout with
its ``ε_x`` and evaluates the prediction on **every** input ``(x, y, z)`` — each query ``x``
and each multiset ``{y, z}`` of the other two tokens, the query's own token included — in
exact integers: ``|2N − 2t·D·L| < D·L`` where ``N/L`` is the numerator scaled by the row's
common denominator ``L``. It is an independent confirmation of the sufficiency proof, on
every size where it runs: ``2^m · 2^m(2^m + 1)/2`` inputs (m = 7: 1,056,768; m = 8: 8,421,376).
"""
from __future__ import annotations

import math
from dataclasses import dataclass
from fractions import Fraction
from typing import Sequence

import numpy as np

from .rows import readout, row_epsilon, row_failure

__all__ = ["BruteForce", "brute_force", "input_count", "MAX_BRUTE_FORCE_M"]

#: Beyond this m the inputs (``2^{3m−1}`` and more) are not enumerated; the row condition (proved) stands alone.
MAX_BRUTE_FORCE_M = 8


def input_count(m: int) -> int:
    """The length-3 inputs with a query position: ``2^m`` queries × ``2^m(2^m + 1)/2`` multisets of the other two."""
    n = 1 << m
    return n * n * (n + 1) // 2


@dataclass
class BruteForce:
    """The outcome: inputs evaluated, and the first failing one (query, y, z) if any."""

    m: int
    inputs: int
    failure: tuple[int, int, int] | None = None

    @property
    def ok(self) -> bool:
        return self.failure is None


def brute_force(A: Sequence[Sequence[int]], m: int) -> BruteForce:
    """Evaluate the explicit readouts of ``A`` (integers ``≥ 0``) on every length-3 input, exactly.

    A row that fails the row condition is reported as a failure at ``(x, x, x)`` without
    evaluation. ``ValueError`` for ``m > MAX_BRUTE_FORCE_M`` or a matrix of the wrong shape.
    """
    if not 1 <= m <= MAX_BRUTE_FORCE_M:
        raise ValueError(f"m = {m}: the brute-force check enumerates inputs for m ≤ {MAX_BRUTE_FORCE_M} only")
    n = 1 << m
    if len(A) != n or any(len(row) != n for row in A):
        raise ValueError(f"A must be {n} × {n}")
    levels_of = np.array([[(x & v).bit_count() for v in range(n)] for x in range(n)], dtype=np.int64)
    for x in range(n):
        row = [int(a) for a in A[x]]
        if row_failure(x, row, m) is not None:
            return BruteForce(m, 0, (x, x, x))
        g = readout(x, row, m, row_epsilon(x, row, m))
        L = math.lcm(*(q.denominator for q in g))
        G = [int(q * L) for q in g]
        bad = _row_inputs(x, row, G, L, levels_of[x])
        if bad is not None:
            return BruteForce(m, 0, (x, *bad))
    return BruteForce(m, input_count(m))


def _row_inputs(x: int, a: list[int], G: list[int], L: int, level) -> tuple[int, int] | None:
    """The first pair ``{y, z}`` of query ``x`` whose prediction misses by 1/2 or more, or ``None``."""
    n = len(a)
    aG = [ai * gi for ai, gi in zip(a, G)]
    bound = 6 * max(a) * (max(abs(v) for v in G) + x.bit_count() * L) + 1  # |2N| and |2tDL| at most this
    if bound < 2**62:  # every intermediate fits in int64: all pairs at once
        av = np.array(a, dtype=np.int64)
        aGv = np.array(aG, dtype=np.int64)
        N = a[x] * G[x] + aGv[:, None] + aGv[None, :]
        D = a[x] + av[:, None] + av[None, :]
        t = np.minimum(level[:, None], level[None, :])
        ok = np.abs(2 * N - 2 * t * D * L) < D * L
        if ok.all():
            return None
        y, z = np.argwhere(~ok)[0]
        return int(y), int(z)
    for y in range(n):  # large entries: the same in Python integers
        for z in range(y, n):
            N = a[x] * G[x] + aG[y] + aG[z]
            D = a[x] + a[y] + a[z]
            t = min(int(level[y]), int(level[z]))
            if not abs(2 * N - 2 * t * D * L) < D * L:
                return y, z
    return None


def exact_prediction(A: Sequence[Sequence[int]], m: int, x: int, y: int, z: int) -> Fraction:
    """The prediction of ``A`` with its explicit readout on the input ``(x, y, z)`` (for tests and messages)."""
    row = [int(a) for a in A[x]]
    g = readout(x, row, m, row_epsilon(x, row, m))
    num = row[x] * g[x] + row[y] * g[y] + row[z] * g[z]
    return num / (row[x] + row[y] + row[z])
