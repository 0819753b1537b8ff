"""Dense softmax at ``τ = log(n/ε)``, ``ε = 1/2``: kernel ``(1/(2n))^⟨x,z⟩``, ``v(z) = z``, readout ``⟨x_i, a_i⟩`` (A.1).

docs/math.md §8. Scores ``−τ⟨x_i,x_j⟩`` with ``e^{−τ} = ε/n = 1/(2n)`` make the kernel
``α(x,z) = (2n)^{−⟨x,z⟩}``, a rational, so the head is checked exactly. A.1 shows
``0 ≤ t̂ − t < ε`` at every length ``≤ n``: with ``d_j = ⟨x_i,x_j⟩ − t`` and ``M`` the
minimizers, ``t̂ − t = Σ_{j∉M} d_j(2n)^{−d_j} / (|M| + Σ_{j∉M}(2n)^{−d_j})`` (the formula
``certify identities`` checks), and ``d·(2n)^{−d} ≤ 1/(2n)`` for ``d ≥ 1``.

Its kernel on the whole Boolean domain is ``[[1, 1], [1, ρ]]^{⊗m}`` with ``ρ = 1/(2n)``, of
rank exactly ``2^m``, and ``φ_Q(x) = e_x``, ``φ_K(z)_u = ρ^{⟨u,z⟩}`` is an exact factorization
of that width (:meth:`Softmax.features`, :meth:`Softmax.kronecker_check`).

Integers (:meth:`Softmax.batch`): each weight is scaled by ``(2n)^m``, ``w_j = (2n)^{m − ⟨x_i,x_j⟩}``
(a common positive factor leaves ``t̂`` unchanged). Then ``den = Σ_j w_j ≤ n(2n)^m``,
``0 ≤ num = Σ_j w_j⟨x_i,x_j⟩ ≤ m·den`` and ``t·den ≤ m·den``, so every integer is at most
``m·n·(2n)^m`` (:meth:`Softmax.int_bound`; ``run`` refuses parameters where this reaches
``2^63``).

>>> Softmax(2, 3).predict((0b11, 0b01, 0b00), 0)
Fraction(8, 43)
"""
from __future__ import annotations

from fractions import Fraction

from .exhaustive import Construction

__all__ = ["Softmax"]


class Softmax(Construction):
    """Checks every length ``1, …, n`` at temperature ``τ = log(2n)``."""

    name = "softmax"
    title = "dense softmax, kernel (1/(2n))^⟨x,z⟩ (τ = log 2n), values v(z) = z, readout ⟨x_i, a_i⟩"
    reference = "A.1; docs/math.md §8"

    def __init__(self, m: int, length: int = 3) -> None:
        super().__init__(m, tuple(range(1, length + 1)))
        self.n = length
        self.title = (f"dense softmax, kernel (1/{2 * length})^⟨x,z⟩ (τ = log {2 * length}), "
                      "values v(z) = z, readout ⟨x_i, a_i⟩")

    @property
    def feature_width(self) -> int:
        return 1 << self.m

    def int_bound(self) -> int:
        return self.m * self.n * (2 * self.n) ** self.m

    def batch(self, tokens, ov, query):
        import numpy as np

        powers = np.array([(2 * self.n) ** k for k in range(self.m + 1)], dtype=np.int64)
        w = powers[self.m - ov]
        return (w * ov).sum(axis=1), w.sum(axis=1)

    def predict(self, tokens, query):
        x, m = tokens[query], self.m
        rho = Fraction(1, 2 * self.n)
        alpha = [rho ** (x & z).bit_count() for z in tokens]
        total = sum(alpha)
        a = [sum(al * (z >> k & 1) for al, z in zip(alpha, tokens)) / total for k in range(m)]  # head output
        return sum(a[k] for k in range(m) if x >> k & 1)  # readout ⟨x_i, a_i⟩

    def features(self):
        """``Φ_Q = I`` (``φ_Q(x) = e_x``) and ``Φ_K[z, u] = (2n)^{m − ⟨u,z⟩}`` (= ``ρ^{⟨u,z⟩}`` scaled by ``(2n)^m``)."""
        import numpy as np

        from .exhaustive import popcount

        N = 1 << self.m
        u = np.arange(N, dtype=np.int64)
        powers = np.array([(2 * self.n) ** k for k in range(self.m + 1)], dtype=np.int64)
        return np.eye(N, dtype=np.int64), powers[self.m - popcount(u[:, None] & u[None, :])]

    def kernel_matrix(self):
        """``(2n)^{m − ⟨x,z⟩}`` over all pairs, from the definition (the kernel scaled by ``(2n)^m``)."""
        return self.features()[1]

    def kronecker_check(self) -> bool:
        """Whether the scaled kernel equals ``B^{⊗m}``, ``B = [[2n, 2n], [2n, 1]]`` (``det B ≠ 0``).

        Coordinate ``k`` of ``x`` and ``z`` contributes the factor ``2n`` unless both are 1.
        """
        import numpy as np

        B = np.array([[2 * self.n, 2 * self.n], [2 * self.n, 1]], dtype=np.int64)
        K = np.ones((1, 1), dtype=np.int64)
        for _ in range(self.m):
            K = np.kron(K, B)
        return bool((K == self.kernel_matrix()).all())
