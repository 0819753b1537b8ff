"""Rank one at lengths one and two: uniform kernel, ``v(z) = z``, readout ``2⟨x_i, a_i⟩ − ‖x_i‖₁`` (§3, A.2).

docs/math.md §8. With ``α ≡ 1`` the head output is the mean ``a_i = (1/n)Σ_j x_j``, so
``2⟨x_i, a_i⟩ − ‖x_i‖₁ = (2/n)Σ_j ⟨x_i, x_j⟩ − ‖x_i‖₁``. At ``n = 1`` this is ``‖x_i‖₁``,
and at ``n = 2`` it is ``⟨x_i, x_j⟩`` for the other token, which never exceeds
``‖x_i‖₁``: exact. At ``n = 3`` it averages the two other overlaps instead of taking
their minimum and fails (e.g. ``(x, x, 0)`` queried at ``x`` predicts ``‖x‖₁/3``).

Integers (:meth:`RankOne.batch`): ``num = 2Σ_j ⟨x_i,x_j⟩ − n‖x_i‖₁``, ``den = n``;
``|num| ≤ 2nm`` and ``m·den = nm``, far below ``2^63``.

>>> c = RankOne(3, 3)
>>> c.predict((0b111, 0b111, 0b000), 0)
Fraction(1, 1)
>>> RankOne(3, 2).predict((0b011, 0b110), 0)
Fraction(1, 1)
"""
from __future__ import annotations

from fractions import Fraction

from .exhaustive import Construction

__all__ = ["RankOne"]


class RankOne(Construction):
    """Checks every length ``1, …, n`` (the claim: exact at every length ≤ 2)."""

    name = "rank-one"
    title = "uniform kernel α ≡ 1, values v(z) = z, readout 2⟨x_i, a_i⟩ − ‖x_i‖₁"
    reference = "§3, A.2; docs/math.md §8"

    def __init__(self, m: int, length: int = 2) -> None:
        super().__init__(m, tuple(range(1, length + 1)))

    @property
    def feature_width(self) -> int:
        return 1

    def int_bound(self) -> int:
        n = max(self.lengths)
        return 2 * n * self.m + n * self.m

    def batch(self, tokens, ov, query):
        import numpy as np

        n = tokens.shape[1]
        return 2 * ov.sum(axis=1) - n * ov[:, query], np.full(len(ov), n, dtype=np.int64)

    def predict(self, tokens, query):
        n, m, x = len(tokens), self.m, tokens[query]
        a = [Fraction(sum(z >> k & 1 for z in tokens), n) for k in range(m)]  # α ≡ 1: the mean of v(x_j) = x_j
        return 2 * sum(a[k] for k in range(m) if x >> k & 1) - x.bit_count()

    def features(self):
        import numpy as np

        ones = np.ones((1 << self.m, 1), dtype=np.int64)
        return ones, ones
