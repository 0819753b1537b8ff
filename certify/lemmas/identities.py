"""The algebraic identities behind the lower bounds, checked symbolically with sympy.

Each check builds both sides of an identity from the same library functions the
certificates use (``witness_sums`` of weight domination, ``four_input_sums`` of the
unique-minimizer lemma) and asks sympy whether their difference expands to zero.
``certify identities`` prints the results; the tests run the same functions, and also
feed them a wrong right-hand side to see the check fail.

* weight domination, general ``n`` (A.2; docs/math.md §3): the ``W``-equation is the
  ``(1/(n−1), (n−2)/(n−1))`` combination of ``Y`` and ``Z``; the three correctness
  bounds add up to ``(2εD_Y − (n−2)(d−2ε)D_Z)/(n−1)``, hence ``μ = (n−2)(d−2ε)/(2ε)``;
  ``D_Y − μD_Z = (1−μ)a + (n−1)(b − μc)``; ``μ = d − 1`` at ``n = 3, ε = 1/2``;
* unique minimizer (A.4; docs/math.md §7): ``N_{M₀} + N_{M₁} = N_Y + N_Z`` (and for
  ``D``), the four correctness bounds add up to
  ``(3−d)a + b₀ + 2b₁ − (d−2)c₀ − (d−1)c₁``, and that exceeds the effective-kernel form
  ``K(x,y) − ((d−1)/2)K(x,z)`` by ``(d−3)a + ((d−3)/2)c₀``;
* finite differences (B.1, B.4; docs/math.md §9): ``Σ_{A⊆[L]} (−1)^{|A|} P(1_A) = 0``
  for the general polynomial of degree ``≤ L−1`` in ``L`` indicators (``L ≤ 5``), not
  for degree ``L``; and the multihead numerator ``(F − t)·Π_h D_h`` is such a polynomial;
* dense softmax (A.1; docs/math.md §8): the error formula
  ``t̂ − t = Σ_{j∉M} d_j e^{−τd_j} / (|M| + Σ_{j∉M} e^{−τd_j})``;
* sharper arguments (docs/math.md §5): ``C − sJ`` and ``C∘C + bC + gJ`` as products of
  ``ρ + 1`` and ``binom(ρ+2, 2)`` features, the vertex value of a quadratic, the uniform shift.

>>> [r.holds for r in weight_domination()]
[True, True, True, True]
>>> check("x² − 1 = (x − 1)(x + 1)", "A.0", "demo", "x**2 - 1", "(x - 1)*(x + 1)").holds
True
>>> r = check("x² − 1 = (x − 1)²", "A.0", "demo", "x**2 - 1", "(x - 1)**2")
>>> r.holds, r.detail
(False, 'lhs − rhs = 2*x - 2, not 0')
"""
from __future__ import annotations

from dataclasses import dataclass
from itertools import combinations_with_replacement
from typing import Any, Callable

from .domination import witness_sums
from .unique_minimizer import four_input_sums

__all__ = [
    "Identity",
    "check",
    "weight_domination",
    "unique_minimizer",
    "finite_differences",
    "multihead_numerator",
    "softmax_error",
    "sharper_arguments",
    "all_identities",
]


@dataclass(frozen=True)
class Identity:
    """One symbolic check: what it states, where the paper uses it, and whether it holds."""

    statement: str
    reference: str
    group: str
    holds: bool
    detail: str

    def to_json(self) -> dict[str, Any]:
        return {"statement": self.statement, "reference": self.reference, "group": self.group,
                "holds": self.holds, "detail": self.detail}


def check(statement: str, reference: str, group: str, lhs, rhs, scope: str = "") -> Identity:
    """Whether ``lhs − rhs`` simplifies to 0 (sympy); strings are parsed with ``sympify``.

    ``detail`` says what was shown (and over which cases, ``scope``), or the nonzero residual.
    """
    import sympy as sp

    # expand splits e^{−τ(t+d)} into e^{−τt}·e^{−τd}; cancel then decides rational-function
    # identities exactly (a zero result is a proof); simplify only gets a second look.
    residual = sp.cancel(sp.expand(sp.sympify(lhs) - sp.sympify(rhs)))
    if residual != 0:
        residual = sp.simplify(residual)
    if residual == 0:
        return Identity(statement, reference, group, True, f"lhs − rhs = 0{' ' + scope if scope else ''}")
    text = str(residual)
    return Identity(statement, reference, group, False,
                    f"lhs − rhs = {text if len(text) <= 120 else text[:117] + '…'}, not 0")


def _all_hold(statement: str, reference: str, group: str, results: list[Identity], scope: str) -> Identity:
    """Fold several instances of one identity into one result (the first failure is reported)."""
    for r in results:
        if not r.holds:
            return Identity(statement, reference, group, False, f"{scope}: {r.detail}")
    return Identity(statement, reference, group, True, f"lhs − rhs = 0 {scope}")


def weight_domination(combination: tuple = None) -> list[Identity]:
    """Weight domination at symbolic length ``n`` and error ``ε`` (A.2; docs/math.md §3).

    ``combination`` overrides the weights ``(1/(n−1), (n−2)/(n−1))`` of ``Y`` and ``Z``
    in the ``W``-equation (the tests pass a wrong one to see the check fail).
    """
    import sympy as sp

    a, b, c, p, q, s, n, d, e = sp.symbols("a b c p q s n d epsilon")
    (NY, DY), (NZ, DZ), (NW, DW) = witness_sums(a, b, c, p, q, s, length=n)
    wy, wz = combination if combination is not None else (1 / (n - 1), (n - 2) / (n - 1))
    ref, grp = "A.2; docs/math.md §3", "weight domination"
    mu = (n - 2) * (d - 2 * e) / (2 * e)
    out = [
        _all_hold("N_W = N_Y/(n−1) + (n−2)·N_Z/(n−1) and D_W = D_Y/(n−1) + (n−2)·D_Z/(n−1)", ref, grp,
                  [check("", ref, grp, NW, wy * NY + wz * NZ), check("", ref, grp, DW, wy * DY + wz * DZ)],
                  "for symbolic n, α and g (the values cancel)"),
        check("(εD_W − N_W) + (N_Y + εD_Y)/(n−1) + (n−2)(N_Z − (d−ε)D_Z)/(n−1) = (2εD_Y − (n−2)(d−2ε)D_Z)/(n−1)",
              ref, grp, (e * DW - NW) + (NY + e * DY) / (n - 1) + (n - 2) * (NZ - (d - e) * DZ) / (n - 1),
              (2 * e * DY - (n - 2) * (d - 2 * e) * DZ) / (n - 1),
              "for symbolic n, d, ε: correctness makes each bracket positive, so D_Y > μ·D_Z"),
        check("D_Y − μ·D_Z = (1 − μ)·a + (n−1)(b − μ·c),  μ = (n−2)(d−2ε)/(2ε)", ref, grp,
              DY - mu * DZ, (1 - mu) * a + (n - 1) * (b - mu * c),
              "for symbolic n, d, ε: with μ ≥ 1 and a ≥ 0 this gives α(x,y) > μ·α(x,z)"),
        check("μ = d − 1 at n = 3, ε = 1/2", ref, grp, mu.subs({n: 3, e: sp.Rational(1, 2)}), d - 1,
              "(gap 3 → factor 2, gap 5 → 4, gap 6 → 5)"),
    ]
    return out


def unique_minimizer() -> list[Identity]:
    """The four-input identities of A.4 (docs/math.md §7), for symbolic ``α``, ``g`` and gap ``d``."""
    import sympy as sp

    a, b0, b1, c0, c1, p, q0, q1, s0, s1, d = sp.symbols("a b0 b1 c0 c1 p q0 q1 s0 s1 d")
    (NY, DY), (NZ, DZ), (N0, D0), (N1, D1) = four_input_sums(a, b0, b1, c0, c1, p, q0, q1, s0, s1)
    ref, grp = "A.4; docs/math.md §7", "unique minimizer"
    h = sp.Rational(1, 2)
    combo = (3 - d) * a + b0 + 2 * b1 - (d - 2) * c0 - (d - 1) * c1
    return [
        _all_hold("N_{M₀} + N_{M₁} = N_Y + N_Z and D_{M₀} + D_{M₁} = D_Y + D_Z", ref, grp,
                  [check("", ref, grp, N0 + N1, NY + NZ), check("", ref, grp, D0 + D1, DY + DZ)],
                  "for symbolic α and g (the values cancel)"),
        check("(½D_{M₀} − N_{M₀}) + (3/2·D_{M₁} − N_{M₁}) + (N_Y + ½D_Y) + (N_Z − (d−½)D_Z) "
              "= (3−d)a + b₀ + 2b₁ − (d−2)c₀ − (d−1)c₁", ref, grp,
              (h * D0 - N0) + (3 * h * D1 - N1) + (NY + h * DY) + (NZ - (d - h) * DZ), combo,
              "for symbolic d: error < 1/2 on the four inputs makes each bracket positive"),
        check("(b₀ + 2b₁) − ((d−1)/2)(c₀ + 2c₁) = [(3−d)a + b₀ + 2b₁ − (d−2)c₀ − (d−1)c₁] + (d−3)a + ((d−3)/2)c₀",
              ref, grp, (b0 + 2 * b1) - (d - 1) / 2 * (c0 + 2 * c1), combo + (d - 3) * a + (d - 3) / 2 * c0,
              "for symbolic d: for d ≥ 3 this gives K(x,y) > ((d−1)/2)·K(x,z)"),
    ]


def _alternating_sum(poly, xs) -> Any:
    import sympy as sp

    L = len(xs)
    return sp.expand(sum((-1) ** bin(A).count("1") * poly.subs({xs[j]: (A >> j) & 1 for j in range(L)})
                         for A in range(1 << L)))


def _general_polynomial(xs, degree: int, name: str = "c"):
    """``Σ c_k·monomial_k`` over every monomial of total degree ``≤ degree`` (powers included)."""
    import sympy as sp

    monomials = [sp.Mul(*combo) for k in range(degree + 1) for combo in combinations_with_replacement(xs, k)]
    coeffs = sp.symbols(f"{name}0:{len(monomials)}")
    return sum(cf * mono for cf, mono in zip(coeffs, monomials))


def finite_differences(max_L: int = 5, degree_offset: int = -1) -> list[Identity]:
    """``Σ_{A⊆[L]} (−1)^{|A|} P(1_A) = 0`` for every ``P`` of degree ``≤ L − 1`` in ``L`` indicators (B.1, B.4).

    ``degree_offset = 0`` asks the same of degree ``L`` (false: the tests use it to see
    the check fail). Also reports that the top monomial ``x_1⋯x_L`` leaves ``(−1)^L``.
    """
    import sympy as sp

    ref, grp = "B.1, B.4; docs/math.md §9", "finite differences"
    results = []
    for L in range(1, max_L + 1):
        xs = sp.symbols(f"x1:{L + 1}")
        results.append(check("", ref, grp, _alternating_sum(_general_polynomial(xs, L + degree_offset), xs), 0))
    top = [check("", ref, grp, _alternating_sum(sp.Mul(*sp.symbols(f"x1:{L + 1}")), sp.symbols(f"x1:{L + 1}")),
                 (-1) ** L) for L in range(1, max_L + 1)]
    deg = "L − 1" if degree_offset == -1 else f"L{degree_offset:+d}"
    return [
        _all_hold(f"Σ_{{A⊆[L]}} (−1)^|A| P(1_A) = 0 for every polynomial P of degree ≤ {deg} in L indicators",
                  ref, grp, results, f"for L = 1…{max_L} (general P: a symbolic coefficient per monomial)"),
        _all_hold("the monomial x_1⋯x_L has alternating sum (−1)^L ≠ 0 (degree L is too much)", ref, grp, top,
                  f"for L = 1…{max_L}"),
    ]


def multihead_numerator(max_heads: int = 3) -> Identity:
    """The multihead prediction, cleared of denominators, is a polynomial the alternating sum kills (B.1).

    For ``H`` heads and ``L = H + 1`` replaceable source slots, head ``h`` has
    ``D_h(A) = D_h(∅) + Σ_{j∈A} (α_h(x,y) − α_h(x,s_j))`` and a numerator of the same
    affine form, so ``P(A) = (β − t)·Π_h D_h(A) + Σ_h N_h(A)·Π_{h'≠h} D_{h'}(A)``
    ``= (F_x(X_A) − t)·Π_h D_h(A)`` has degree ``≤ H = L − 1`` in the indicators of ``A``.
    Checked up to ``H = 3`` by default: at ``H = 4`` sympy needs about half a minute
    (the general statement for ``L ≤ 5`` is :func:`finite_differences`).
    """
    import sympy as sp

    ref, grp = "B.1; docs/math.md §9", "finite differences"
    results = []
    for H in range(1, max_heads + 1):
        L = H + 1
        xs = sp.symbols(f"x1:{L + 1}")
        beta_t = sp.Symbol("beta_minus_t")
        D, N = [], []
        for h in range(H):
            a0, n0, ay, gy = sp.symbols(f"D0_{h} N0_{h} ay_{h} gy_{h}")
            a_src = sp.symbols(f"as{h}_1:{L + 1}")
            g_src = sp.symbols(f"gs{h}_1:{L + 1}")
            D.append(a0 + sum(xs[j] * (ay - a_src[j]) for j in range(L)))
            N.append(n0 + sum(xs[j] * (ay * gy - a_src[j] * g_src[j]) for j in range(L)))
        P = beta_t * sp.Mul(*D) + sum(N[h] * sp.Mul(*(D[k] for k in range(H) if k != h)) for h in range(H))
        results.append(check("", ref, grp, _alternating_sum(P, xs), 0))
    return _all_hold("Σ_A (−1)^|A| (F_x(X_A) − t)·Π_h D_h(A) = 0 at exact length H + 2", ref, grp, results,
                     f"for H = 1…{max_heads} heads, symbolic kernels and values")


def softmax_error(max_length: int = 5) -> Identity:
    """The dense-softmax error formula of A.1 (docs/math.md §8), for every length and number of minimizers.

    With overlaps ``o_j = t + d_j`` (``d_j = 0`` exactly for ``j ∈ M``, the minimizers) and
    weights ``e^{−τ o_j}``: ``Σ_j o_j e^{−τo_j} / Σ_j e^{−τo_j} − t``
    ``= Σ_{j∉M} d_j e^{−τd_j} / (|M| + Σ_{j∉M} e^{−τd_j})``.
    """
    import sympy as sp

    ref, grp = "A.1; docs/math.md §8", "dense softmax"
    tau, t = sp.symbols("tau t", positive=True)
    results = []
    for n in range(1, max_length + 1):
        for k in range(1, n + 1):
            ds = sp.symbols(f"d1:{n - k + 1}", positive=True) if n > k else ()
            overlaps = [t] * k + [t + dj for dj in ds]
            lhs = sum(o * sp.exp(-tau * o) for o in overlaps) / sum(sp.exp(-tau * o) for o in overlaps) - t
            rhs = sum((dj * sp.exp(-tau * dj) for dj in ds), sp.Integer(0)) / (k + sum((sp.exp(-tau * dj) for dj in ds), sp.Integer(0)))
            results.append(check("", ref, grp, lhs, rhs))
    return _all_hold("t̂ − t = Σ_{j∉M} d_j e^{−τd_j} / (|M| + Σ_{j∉M} e^{−τd_j}) for scores −τ⟨x_i,x_j⟩, v(z) = z, "
                     "readout ⟨x_i, a_i⟩", ref, grp, results,
                     f"for every length n ≤ {max_length} and number of minimizers |M| = 1…n, symbolic τ, t, d_j > 0")


def sharper_arguments(max_rank: int = 4) -> list[Identity]:
    """The rank relations and the quadratic behind the shifted and square arguments (docs/math.md §5).

    With ``C_SU = Σ_i u_i v_i`` for symbolic ``u, v ∈ ℝ^ρ`` (a rank-``ρ`` factorization):
    ``C_SU − s = ⟨(u, −s), (v, 1)⟩`` (``ρ + 1`` features, so ``rank(C − sJ) ≤ rank C + 1``);
    ``C_SU² + bC_SU + g = ⟨ψ(u), ψ'(v)⟩`` with the ``binom(ρ+2, 2)`` features
    ``ψ(u) = (u_i u_j [i ≤ j], b·u_i, g)``, ``ψ'(v) = (c_ij v_i v_j, v_i, 1)`` (``c_ii = 1``,
    ``c_ij = 2``), so ``rank(C∘C + bC + gJ) ≤ binom(ρ+2, 2)``, for ``ρ = 1 … max_rank``; the value
    of ``x² + bx + g`` at the vertex ``x = −b/2`` is ``g − b²/4``; and the uniform shift
    ``s = 1/(2λ)`` turns the ratio into ``t / (1 + (t−1)/(2λ−1)²)``.
    """
    import sympy as sp

    ref, grp = "docs/math.md §5", "sharper arguments"
    s, b, g, x, t, lam = sp.symbols("s b g x t lambda")
    shift, square = [], []
    for rho in range(1, max_rank + 1):
        u, v = sp.symbols(f"u1:{rho + 1}"), sp.symbols(f"v1:{rho + 1}")
        c = sum(ui * vi for ui, vi in zip(u, v))
        shift.append(check("", ref, grp, c - s, sum(ui * vi for ui, vi in zip(u + (-s,), v + (1,)))))
        pairs = list(combinations_with_replacement(range(rho), 2))
        psi = [u[i] * u[j] for i, j in pairs] + [b * ui for ui in u] + [g]
        psi2 = [(1 if i == j else 2) * v[i] * v[j] for i, j in pairs] + list(v) + [1]
        assert len(psi) == (rho + 1) * (rho + 2) // 2
        square.append(check("", ref, grp, c**2 + b * c + g, sum(p * q for p, q in zip(psi, psi2))))
    scope = f"for ρ = 1…{max_rank}, symbolic u, v"
    uniform_s = 1 / (2 * lam)
    ratio = t**2 * (1 - uniform_s) ** 2 / (t * (1 - uniform_s) ** 2 + t * (t - 1) * uniform_s**2)
    return [
        _all_hold("C_SU − s = ⟨(u, −s), (v, 1)⟩: rank(C − sJ) ≤ rank C + 1", ref, grp, shift, scope),
        _all_hold("C_SU² + b·C_SU + g = ⟨ψ(u), ψ′(v)⟩ with binom(ρ+2, 2) features: rank(C∘C + bC + gJ) ≤ binom(rank C + 2, 2)",
                  ref, grp, square, scope),
        check("x² + bx + g at the vertex x = −b/2 equals g − b²/4", ref, grp,
              (x**2 + b * x + g).subs(x, -b / 2), g - b**2 / 4),
        check("uniform factor λ, s = 1/(2λ): t²(1−s)² / (t(1−s)² + t(t−1)s²) = t / (1 + (t−1)/(2λ−1)²)", ref, grp,
              ratio, t / (1 + (t - 1) / (2 * lam - 1) ** 2)),
    ]


def all_identities(progress: Callable[[int, str], None] | None = None) -> list[Identity]:
    """Every identity, in the order ``certify identities`` prints them.

    ``progress(done, group)`` is called before each group (the whole run takes seconds).
    """
    steps = [("weight domination", weight_domination), ("unique minimizer", unique_minimizer),
             ("finite differences", finite_differences), ("multihead numerator", multihead_numerator),
             ("dense softmax", softmax_error), ("sharper arguments", sharper_arguments)]
    out: list[Identity] = []
    for k, (name, step) in enumerate(steps):
        if progress is not None:
            progress(k, name)
        result = step()
        out.extend(result if isinstance(result, list) else [result])
    return out
