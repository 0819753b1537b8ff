"""Exact linear programming for readout feasibility, with certificates checked by substitution.

The question "is there a readout that makes this kernel solve the family?" (docs/math.md §2:
with one-hot values ``g_x(z)`` is an arbitrary table) is, for each query token ``x``, a
*strict* linear system in the unknowns ``g_x(z)``: for every input ``X`` with that
query token, with coefficients ``a_X(z) = Σ_{j: x_j = z} α(x, z)`` and
``D_X = Σ_z a_X(z) > 0``,

    (t_X − ε) D_X  <  a_X · g  <  (t_X + ε) D_X .

:func:`strict_feasibility` decides it exactly and returns the answer *with its proof*:

* feasible — a rational ``g`` that satisfies every strict inequality (checked by
  substitution);
* infeasible — a Farkas (Motzkin) certificate: ``λ, ν ≥ 0``, not all zero, with
  ``Σ_X (ν_X − λ_X) a_X = 0`` and ``Σ_X ν_X u_X − Σ_X λ_X l_X ≤ 0``. For any ``g`` the
  combination ``Σ ν_X (u_X − a_X·g) + Σ λ_X (a_X·g − l_X)`` equals the second sum, which
  would be positive if every inequality held; the inputs with ``λ_X + ν_X > 0`` form an
  infeasible sub-family.

Both are found by one exact simplex run (:func:`simplex`, two-phase, Bland's rule,
python-flint ``fmpq``) on the certificate LP
``min Σ ν u − Σ λ l`` s.t. ``Σ (ν − λ) a = 0``, ``Σ (λ + ν) = 1``, ``λ, ν ≥ 0``,
whose dual is ``max δ`` s.t. ``l_X + δ ≤ a_X·g ≤ u_X − δ``: the optimum is positive
exactly when a readout exists, and the dual solution is then the readout. Whatever the
solver returns is verified independently before it is reported, so a solver bug can
only surface as an internal contradiction, never as a wrong answer.

>>> from fractions import Fraction as F
>>> strict_feasibility([[1, 0], [1, 1]], [0, 2], [2, 4]).feasible      # 0 < g1 < 2, 2 < g1 + g2 < 4
True
>>> res = strict_feasibility([[1], [1]], [0, 3], [2, 5])                 # 0 < g < 2 and 3 < g < 5
>>> res.feasible, res.support
(False, (0, 1))
"""
from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction
from typing import Sequence

__all__ = ["LPError", "simplex", "Feasibility", "strict_feasibility"]


class LPError(RuntimeError):
    """The solver's answer failed its own exact verification (a bug: exit 3)."""


def _q(v):
    from flint import fmpq

    if isinstance(v, Fraction):
        return fmpq(v.numerator, v.denominator)
    return fmpq(v)


def _frac(v) -> Fraction:
    return Fraction(int(v.p), int(v.q))


def simplex(c: Sequence, A: Sequence[Sequence], b: Sequence):
    """Minimize ``c·x`` subject to ``A x = b``, ``x ≥ 0``, exactly (two-phase simplex, Bland's rule).

    Returns ``(value, x, w)`` with ``w`` an optimal dual solution (``Aᵀw ≤ c``,
    ``b·w = value``), or raises ``LPError`` if the problem is infeasible or unbounded
    (the certificate LP of :func:`strict_feasibility` is neither).
    """
    from flint import fmpq

    m, n = len(A), len(c)
    zero, one = fmpq(0), fmpq(1)
    sign = [1] * m
    rows = []
    for i in range(m):
        row = [_q(v) for v in A[i]] + [zero] * m + [_q(b[i])]
        if row[-1] < 0:
            row = [-v for v in row]
            sign[i] = -1
        row[n + i] = one
        rows.append(row)
    basis = list(range(n, n + m))
    width = n + m + 1

    def pivot(obj: list, r: int, j: int) -> None:
        pr = rows[r]
        inv = one / pr[j]
        pr[:] = [v * inv for v in pr]
        nz = [k for k in range(width) if pr[k] != 0]
        for row in rows + [obj]:
            if row is pr:
                continue
            f = row[j]
            if f != 0:
                for k in nz:
                    row[k] -= f * pr[k]
        basis[r] = j

    def run(obj: list, allowed: int) -> None:
        while True:
            entering = next((j for j in range(allowed) if obj[j] < 0), None)
            if entering is None:
                return
            best = None
            for r in range(m):
                a = rows[r][entering]
                if a > 0:
                    ratio = rows[r][-1] / a
                    if best is None or ratio < best[0] or (ratio == best[0] and basis[r] < basis[best[1]]):
                        best = (ratio, r)
            if best is None:
                raise LPError("the linear program is unbounded")
            pivot(obj, best[1], entering)

    # Phase 1: minimize the sum of artificials; reduced costs = −(sum of rows) on non-artificials.
    obj1 = [zero] * width
    for row in rows:
        for k in range(n):
            obj1[k] -= row[k]
        obj1[-1] -= row[-1]
    run(obj1, n)
    if obj1[-1] != 0:
        raise LPError("the linear program is infeasible")
    for r in range(m):  # drive artificials at level zero out of the basis where possible
        if basis[r] >= n:
            j = next((k for k in range(n) if rows[r][k] != 0), None)
            if j is not None:
                pivot(obj1, r, j)
    # Phase 2: reduced costs of c with respect to the current basis.
    cq = [_q(v) for v in c] + [zero] * m
    obj2 = cq + [zero]
    for r in range(m):
        cb = cq[basis[r]]
        if cb != 0:
            for k in range(width):
                obj2[k] -= cb * rows[r][k]
    run(obj2, n)
    x = [zero] * n
    for r in range(m):
        if basis[r] < n:
            x[basis[r]] = rows[r][-1]
    # Dual: w_i = c_B B⁻¹ e_i, read from the artificial columns (B⁻¹ lives there), sign-corrected.
    w = [sign[i] * -obj2[n + i] for i in range(m)]
    value = sum((cq[k] * x[k] for k in range(n)), zero)
    return _frac(value), [_frac(v) for v in x], [_frac(v) for v in w]


@dataclass(frozen=True)
class Feasibility:
    """Outcome of :func:`strict_feasibility`, with its verified proof.

    ``feasible``: a solution exists. ``solution``: the ``g`` found (feasible case).
    ``margin``: the optimal ``δ`` of ``l + δ ≤ a·g ≤ u − δ`` (positive iff feasible).
    ``lam``, ``nu``: the Farkas multipliers (infeasible case); ``support``: the indices
    of the inequalities' rows with a nonzero multiplier.
    """

    feasible: bool
    margin: Fraction
    solution: tuple[Fraction, ...] | None = None
    lam: tuple[Fraction, ...] | None = None
    nu: tuple[Fraction, ...] | None = None

    @property
    def support(self) -> tuple[int, ...]:
        if self.lam is None:
            return ()
        return tuple(i for i, (a, b) in enumerate(zip(self.lam, self.nu)) if a or b)


def strict_feasibility(rows: Sequence[Sequence], lo: Sequence, hi: Sequence) -> Feasibility:
    """Decide whether some ``g`` has ``lo[i] < rows[i]·g < hi[i]`` for every ``i`` (exact; see module doc).

    Raises
    ------
    LPError
        If the solver's answer fails verification (never expected).
    """
    rows = [[Fraction(v) for v in r] for r in rows]
    lo = [Fraction(v) for v in lo]
    hi = [Fraction(v) for v in hi]
    k, nvar = len(rows), len(rows[0]) if rows else 0
    # Certificate LP in variables (λ_0..λ_{k−1}, ν_0..ν_{k−1}).
    c = [-v for v in lo] + list(hi)
    A = [[-rows[i][z] for i in range(k)] + [rows[i][z] for i in range(k)] for z in range(nvar)]
    A.append([1] * (2 * k))
    b = [0] * nvar + [1]
    value, y, w = simplex(c, A, b)
    lam, nu = tuple(y[:k]), tuple(y[k:])
    if value <= 0:
        # Verify the Farkas certificate exactly.
        if any(v < 0 for v in y) or sum(y) != 1:
            raise LPError("Farkas multipliers are not a nonnegative combination summing to 1")
        for z in range(nvar):
            if sum((nu[i] - lam[i]) * rows[i][z] for i in range(k)) != 0:
                raise LPError(f"Farkas certificate does not cancel variable {z}")
        if sum(nu[i] * hi[i] - lam[i] * lo[i] for i in range(k)) > 0:
            raise LPError("Farkas certificate has a positive right-hand side")
        return Feasibility(False, value, lam=lam, nu=nu)
    g = tuple(w[:nvar])
    for i in range(k):
        s = sum(rows[i][z] * g[z] for z in range(nvar))
        if not lo[i] < s < hi[i]:
            raise LPError(f"readout from the dual solution violates inequality {i}")
    return Feasibility(True, value, solution=g)
