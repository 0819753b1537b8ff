"""Rank one with a degree-``D`` polynomial readout, exact at length ``D + 1`` (B.4; docs/math.md §8).

Uniform kernel ``α ≡ 1`` and one-hot values over the ``2^m`` tokens, so the head output
is the vector of frequencies ``p_z``. For ``k = 1, …, ‖x‖₁`` let
``s_k = (D+1)·Σ_{z: ⟨x,z⟩ ≥ k} p_z`` — at length ``D + 1`` the number of tokens with
overlap at least ``k``, which is in ``{1, …, D+1}`` because the query itself counts.
``J(s) = (s−1)(s−2)⋯(s−D)/D!`` vanishes at ``1, …, D`` and is 1 at ``D + 1``, so the readout
``Σ_k J(s_k)``, a polynomial of degree ``D`` in the head output, counts the thresholds
that every token meets: the minimum overlap, exactly. At other lengths the same
readout is not exact (the command accepts ``--length`` to show it).

Integers (:meth:`Polynomial.batch`): at length ``n`` with ``c_k`` tokens of overlap ``≥ k``,
``s_k = (D+1)c_k/n`` and ``J(s_k) = Π_{i=1}^{D} ((D+1)c_k − i·n) / (n^D·D!)``, so
``num = Σ_{k ≤ ‖x‖₁} Π_i ((D+1)c_k − i·n)`` and ``den = n^D·D!``. Each factor is at most
``(D+1)n`` in absolute value, so ``|num| ≤ m((D+1)n)^D`` and ``m·den ≤ m·n^D·D!``
(:meth:`Polynomial.int_bound`).

>>> Polynomial(3, 2).predict((0b111, 0b011, 0b110), 0)
Fraction(2, 1)
>>> Polynomial(3, 2, length=4).predict((0b111, 0b011, 0b110, 0b000), 0)  # target 0: not exact at D + 2
Fraction(15, 32)
"""
from __future__ import annotations

import math
from collections import Counter
from fractions import Fraction

from .exhaustive import Construction

__all__ = ["Polynomial"]


class Polynomial(Construction):
    """Checks exact length ``n`` (default ``D + 1``), every queried position."""

    name = "polynomial"
    reference = "§5.1, B.4; docs/math.md §8"

    def __init__(self, m: int, degree: int, length: int | None = None) -> None:
        n = degree + 1 if length is None else length
        super().__init__(m, (n,))
        self.D, self.n = degree, n
        factors = "(s−1)" if degree == 1 else "(s−1)(s−2)" if degree == 2 else f"(s−1)⋯(s−{degree})"
        self.title = (f"uniform kernel α ≡ 1, one-hot values, readout Σ_k J(s_k) of degree D = {degree}, "
                      f"J(s) = {factors}/{degree}!, s_k = {degree + 1}·Σ_(⟨x,z⟩≥k) p_z")

    @property
    def feature_width(self) -> int:
        return 1

    def int_bound(self) -> int:
        D, n, m = self.D, self.n, self.m
        return max(m * ((D + 1) * n) ** D, m * n ** D * math.factorial(D)) + 1

    def batch(self, tokens, ov, query):
        import numpy as np

        D, n = self.D, self.n
        num = np.zeros(len(ov), dtype=np.int64)
        weight = ov[:, query]
        for k in range(1, self.m + 1):
            c = (ov >= k).sum(axis=1)
            term = np.ones(len(ov), dtype=np.int64)
            for i in range(1, D + 1):
                term *= (D + 1) * c - i * n
            num += np.where(weight >= k, term, 0)
        return num, np.full(len(ov), n ** D * math.factorial(D), dtype=np.int64)

    def predict(self, tokens, query):
        x, n, D = tokens[query], len(tokens), self.D
        p = {z: Fraction(c, n) for z, c in Counter(tokens).items()}  # the head output: frequencies
        total = Fraction(0)
        for k in range(1, x.bit_count() + 1):
            s = (D + 1) * sum(pz for z, pz in p.items() if (x & z).bit_count() >= k)
            total += Fraction(math.prod(s - i for i in range(1, D + 1)), math.factorial(D))
        return total

    def features(self):
        import numpy as np

        ones = np.ones((1 << self.m, 1), dtype=np.int64)
        return ones, ones
