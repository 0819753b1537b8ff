"""Length three with positional values and one ReLU: ``min(p, q) = p − ReLU(p − q)`` (C.2; docs/math.md §8).

The query is the final token ``x`` at position 3; the sources are ``y`` (position 1) and
``z`` (position 2). Uniform kernel (rank one), positional values ``v₁(y) = (y, 0)``,
``v₂(z) = (0, z)``, ``v₃(x) = 0`` (``2m`` coordinates), so the head output is
``a = (y, z)/3``; ``p = 3⟨x, a_{1..m}⟩ = ⟨x,y⟩`` and ``q = 3⟨x, a_{m+1..2m}⟩ = ⟨x,z⟩`` are
linear in it, and the readout ``p − ReLU(p − q) = min(⟨x,y⟩, ⟨x,z⟩)`` is the target
(``⟨x,x⟩`` is never smaller). Values depend on the position, which the model of
docs/math.md §2 does not allow: C.2 is the position-identified setting of §5.2.

Integers: ``num = p − max(p − q, 0)`` with ``0 ≤ num ≤ m``, ``den = 1``.

>>> Relu(3).predict((0b011, 0b110, 0b111), 2)
Fraction(2, 1)
>>> Relu(3).predict((0b011, 0b100, 0b111), 2)
Fraction(1, 1)
"""
from __future__ import annotations

from fractions import Fraction

from .exhaustive import Construction

__all__ = ["Relu"]


class Relu(Construction):
    """Checks every ``(y, z, x)`` at exact length 3, queried at the final position."""

    name = "relu"
    title = "uniform kernel α ≡ 1, positional values v₁(y) = (y, 0), v₂(z) = (0, z), v₃(x) = 0, readout p − ReLU(p − q)"
    reference = "§5.2, C.2; docs/math.md §8"

    def __init__(self, m: int) -> None:
        super().__init__(m, (3,))

    def positions(self, n):
        return (2,)

    @property
    def feature_width(self) -> int:
        return 1

    def int_bound(self) -> int:
        return 2 * self.m + 1

    def batch(self, tokens, ov, query):
        import numpy as np

        p, q = ov[:, 0], ov[:, 1]
        return p - np.maximum(p - q, 0), np.ones(len(ov), dtype=np.int64)

    def predict(self, tokens, query):
        y, z, x = tokens
        m = self.m
        v = [[y >> k & 1 for k in range(m)] + [0] * m, [0] * m + [z >> k & 1 for k in range(m)], [0] * (2 * m)]
        a = [Fraction(sum(col), 3) for col in zip(*v)]  # α ≡ 1 over the three positions
        p = 3 * sum(a[k] for k in range(m) if x >> k & 1)
        q = 3 * sum(a[m + k] for k in range(m) if x >> k & 1)
        return p - max(p - q, Fraction(0))

    def features(self):
        import numpy as np

        ones = np.ones((1 << self.m, 1), dtype=np.int64)
        return ones, ones
