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

Both are found by one exact simplex run (``certify.linalg.simplex``: two-phase, Bland's
rule, python-flint ``fmpq``, sparse rows) on the certificate LP
``min Σ ν u − Σ λ l`` s.t. ``Σ (ν − λ) a = 0``, ``Σ (λ + ν) = 1``, ``λ, ν ≥ 0``,
whose dual is ``max δ`` s.t. ``l_X + δ ≤ a_X·g ≤ u_X − δ``: the optimum is positive
exactly when a readout exists, and the dual solution is then the readout. Whatever the
solver returns is verified independently before it is reported, so a solver bug can
only surface as an internal contradiction, never as a wrong answer.

Rows are sparse: a row of the readout problem has one nonzero per distinct token of
its input (at most three at length 3), so the tableau stays sparse and both the pivots
and the verification cost time in proportion to the nonzeros, not to
``inputs × tokens``. Rows may be given as dense sequences or as ``{variable: coefficient}``
mappings; the answer is the same either way (the pivot rule does not depend on the
representation).

:func:`decide_feasibility` answers the same question faster when the optional HiGHS
solver is installed (package ``highspy``, the extra ``highs``): a floating-point solve proposes
a readout or an infeasible sub-system, which is made exact and verified, with the exact
simplex as fallback. Its decision is exact and proved, but which proof it finds may
depend on HiGHS; ``check-kernel`` therefore prints only answers of
:func:`strict_feasibility` and uses :func:`decide_feasibility` where only the decision
counts.

>>> from fractions import Fraction as F
>>> strict_feasibility([[1, 0], [1, 1]], [0, 2], [2, 4]).feasible      # 0 < g1 < 2, 2 < g1 + g2 < 4
True
>>> res = strict_feasibility([[1], [1]], [0, 3], [2, 5])                 # 0 < g < 2 and 3 < g < 5
>>> res.feasible, res.support
(False, (0, 1))
>>> strict_feasibility([{0: 1}, {1: F(1, 2)}], [0, 0], [1, 1], nvar=2).solution   # sparse rows
(Fraction(1, 2), Fraction(1, 1))
>>> strict_feasibility([[0.5]], [0], [1])
Traceback (most recent call last):
...
TypeError: Argument 'rows[0][0]' must be exact (int, Fraction or fmpq), not float 0.5
"""
from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction
from typing import Any, Mapping, Sequence

from .simplex import LPError, as_fmpq, as_fraction, simplex, simplex_fmpq, sparse_row  # noqa: F401 - LPError, as_fmpq, simplex: public here too

__all__ = ["LPError", "as_fmpq", "simplex", "Feasibility", "strict_feasibility", "decide_feasibility",
           "highs_available"]


@dataclass(frozen=True)
class Feasibility:
    """Outcome of :func:`strict_feasibility`, with its verified proof.

    ``feasible``: a solution exists. ``solution``: the ``g`` found (feasible case).
    ``margin``: from :func:`strict_feasibility`, the optimal ``δ`` of
    ``l + δ ≤ a·g ≤ u − δ`` (positive iff feasible); from the HiGHS path of
    :func:`decide_feasibility`, the smallest slack of ``solution`` (feasible) or the
    value of the certificate (``≤ 0``). ``lam``, ``nu``: the Farkas multipliers
    (infeasible case); ``support``: the indices of the inequalities' rows with a
    nonzero multiplier. ``method``: ``"simplex"`` (the exact simplex; the answer is a
    function of the data alone) or ``"highs"`` (found from a floating-point solve,
    verified exactly; which proof is found may depend on the HiGHS version).
    """

    feasible: bool
    margin: Fraction
    solution: tuple[Fraction, ...] | None = None
    lam: tuple[Fraction, ...] | None = None
    nu: tuple[Fraction, ...] | None = None
    method: str = "simplex"

    @property
    def support(self) -> tuple[int, ...]:
        if self.lam is None:
            return ()
        return tuple(i for i, (a, b) in enumerate(zip(self.lam, self.nu)) if a or b)


def strict_feasibility(rows: Sequence[Sequence | Mapping], lo: Sequence, hi: Sequence,
                       nvar: int | None = None) -> Feasibility:
    """Decide whether some ``g`` has ``lo[i] < rows[i]·g < hi[i]`` for every ``i`` (exact; see module doc).

    Parameters
    ----------
    rows : sequence of dense rows or ``{variable: coefficient}`` mappings
        Exact numbers (int, Fraction, fmpq).
    lo, hi : sequences of exact numbers
    nvar : int, optional
        The number of variables; needed when the rows are mappings (default: the
        length of the first dense row).

    Raises
    ------
    TypeError
        On a float (or any inexact number).
    LPError
        If the solver's answer fails verification (never expected).
    """
    return _exact_feasibility(*_parse(rows, lo, hi, nvar))


def _parse(rows, lo, hi, nvar):
    """Rows, bounds and ``nvar`` as sparse ``fmpq`` data (``TypeError`` on inexact numbers)."""
    a = [sparse_row(r, f"rows[{i}]") for i, r in enumerate(rows)]
    lo_q = [as_fmpq(v, f"lo[{i}]") for i, v in enumerate(lo)]
    hi_q = [as_fmpq(v, f"hi[{i}]") for i, v in enumerate(hi)]
    if not len(a) == len(lo_q) == len(hi_q):
        raise ValueError("Arguments 'rows', 'lo', 'hi' must have one entry per inequality, "
                         f"not {len(a)}, {len(lo_q)}, {len(hi_q)}")
    if nvar is None:
        nvar = len(rows[0]) if rows and not isinstance(rows[0], Mapping) else 1 + max((j for r in a for j in r), default=-1)
    if any(not isinstance(j, int) or j < 0 or j >= nvar for r in a for j in r):
        raise ValueError(f"Argument 'rows' has a variable index outside 0..{nvar - 1}")
    return a, lo_q, hi_q, nvar


def _exact_feasibility(a: list[dict[int, Any]], lo_q: list, hi_q: list, nvar: int,
                       rule: str = "bland") -> Feasibility:
    """:func:`strict_feasibility` on parsed data (``rule``: the simplex's pivot rule, see :func:`certify.linalg.simplex._simplex`)."""
    k = len(a)
    # Certificate LP in variables (λ_0..λ_{k−1}, ν_0..ν_{k−1}): row z is Σ_i (ν_i − λ_i) a_i[z] = 0.
    cons: list[dict[int, Any]] = [{} for _ in range(nvar)]
    for i, r in enumerate(a):
        for z, v in r.items():
            cons[z][i] = -v
            cons[z][k + i] = v
    from flint import fmpq

    one = fmpq(1)
    cons.append({j: one for j in range(2 * k)})
    b = [fmpq(0)] * nvar + [one]
    value, y, w = simplex_fmpq([-v for v in lo_q] + hi_q, cons, b, rule)
    if value <= 0:
        _verify_farkas(a, lo_q, hi_q, y, nvar)
        fy = [as_fraction(v) if v != 0 else Fraction(0) for v in y]
        return Feasibility(False, as_fraction(value), lam=tuple(fy[:k]), nu=tuple(fy[k:]))
    g = w[:nvar]
    _verify_solution(a, lo_q, hi_q, g)
    return Feasibility(True, as_fraction(value), solution=tuple(as_fraction(v) for v in g))


def _verify_farkas(a: list[dict[int, Any]], lo: list, hi: list, y: list, nvar: int) -> None:
    """Check ``λ, ν ≥ 0``, ``Σ(λ + ν) = 1``, ``Σ (ν_i − λ_i) a_i = 0`` and ``Σ ν u − Σ λ l ≤ 0``, over the nonzeros."""
    from flint import fmpq

    k = len(a)
    if any(v < 0 for v in y) or sum(y, fmpq(0)) != 1:
        raise LPError("Farkas multipliers are not a nonnegative combination summing to 1")
    acc: dict[int, Any] = {}
    rhs = fmpq(0)
    for i in range(k):
        lam, nu = y[i], y[k + i]
        if lam == 0 and nu == 0:
            continue
        rhs += nu * hi[i] - lam * lo[i]
        coef = nu - lam
        if coef != 0:
            for z, v in a[i].items():
                acc[z] = acc.get(z, fmpq(0)) + coef * v
    for z in sorted(acc):
        if acc[z] != 0:
            raise LPError(f"Farkas certificate does not cancel variable {z}")
    if rhs > 0:
        raise LPError("Farkas certificate has a positive right-hand side")


def _verify_solution(a: list[dict[int, Any]], lo: list, hi: list, g: list):
    """Check ``lo_i < a_i·g < hi_i`` for every row, by substitution over the nonzeros; return the smallest slack."""
    from flint import fmpq

    slack = None
    for i, r in enumerate(a):
        s = sum((v * g[z] for z, v in r.items()), fmpq(0))
        if not lo[i] < s < hi[i]:
            raise LPError(f"readout from the dual solution violates inequality {i}")
        least = min(s - lo[i], hi[i] - s)
        slack = least if slack is None or least < slack else slack
    return slack


# --------------------------------------------------------------------------- HiGHS (optional)


def highs_available() -> bool:
    """Whether the optional HiGHS solver (package ``highspy``, the extra ``highs``) can be used."""
    return _highs_core() is not None


def _highs_core():
    try:  # the bare solver class: unlike highspy.Highs it prints no banner on stdout
        from highspy import _core
    except ImportError:
        return None
    return _core if hasattr(_core, "_Highs") else None


def decide_feasibility(rows: Sequence[Sequence | Mapping], lo: Sequence, hi: Sequence, nvar: int | None = None,
                       solver: str = "auto") -> Feasibility:
    """Decide :func:`strict_feasibility`'s question fast, with a proof verified exactly.

    With ``solver="highs"`` (or ``"auto"`` when ``highspy`` is installed) a
    floating-point solve of the certificate LP (HiGHS, rows scaled by
    ``1/(hi − lo)``) proposes the answer, and it is made exact:

    * positive value: its dual is a candidate readout ``g``; its floats, read as the
      rationals they are, must pass the strict inequalities by exact substitution;
    * otherwise: the inequalities with a positive multiplier form a candidate
      infeasible sub-system; the exact simplex on that sub-system alone (a handful of
      rows) gives a Farkas certificate, checked again on the whole system.

    If neither checks out (a float answer too close to call), or HiGHS is not
    installed or fails, the exact simplex decides the whole system, with Dantzig's
    pivot rule (about half the pivots of Bland's on the readout problems). So the
    *decision* is always exact and proved; the proof returned may differ from
    :func:`strict_feasibility`'s (``method`` says which path produced it).

    >>> decide_feasibility([[1], [1]], [0, 3], [2, 5]).feasible
    False
    >>> decide_feasibility([[1]], [0], [1], solver="simplex").method
    'simplex'
    >>> decide_feasibility([[1]], [0], [1], solver="cplex")
    Traceback (most recent call last):
    ...
    ValueError: Argument 'solver' must be 'auto', 'highs' or 'simplex', not 'cplex'
    """
    if solver not in ("auto", "highs", "simplex"):
        raise ValueError(f"Argument 'solver' must be 'auto', 'highs' or 'simplex', not {solver!r}")
    data = _parse(rows, lo, hi, nvar)
    core = _highs_core() if solver != "simplex" else None
    if solver == "highs" and core is None:
        raise ImportError("solver='highs' needs the optional package highspy: pip install highspy (the extra highs: "
                          "pip install '.[highs]' in the checkout)")
    if core is not None and data[0]:
        try:
            found = _highs_decide(core, *data)
        except (AttributeError, TypeError, ValueError, RuntimeError, OverflowError):
            found = None  # an unexpected highspy (another version's API): the exact simplex decides
        if found is not None:
            return found
    return _exact_feasibility(*data, rule="dantzig")


def _highs_decide(core, a: list[dict[int, Any]], lo: list, hi: list, nvar: int) -> Feasibility | None:
    """The HiGHS path of :func:`decide_feasibility`; ``None`` when its answer does not verify."""
    import numpy as np

    k = len(a)
    try:  # floats for the solver only; a number beyond the float range sends the problem to the exact simplex
        scale = [1 / float(hi[i] - lo[i]) if hi[i] > lo[i] else 1.0 for i in range(k)]
        starts, index, value = [0], [], []
        for sign in (-1.0, 1.0):  # columns λ_i (−a_i), then ν_i (+a_i); each also has the 1 of Σ(λ + ν) = 1
            for i in range(k):
                for z, v in a[i].items():
                    index.append(z)
                    value.append(sign * float(v) * scale[i])
                index.append(nvar)
                value.append(1.0)
                starts.append(len(index))
        cost = [-float(lo[i]) * scale[i] for i in range(k)] + [float(hi[i]) * scale[i] for i in range(k)]
    except (OverflowError, ZeroDivisionError):
        return None
    if not all(np.isfinite(value)) or not all(np.isfinite(cost)) or not all(np.isfinite(scale)):
        return None
    lp = core.HighsLp()
    lp.num_col_, lp.num_row_ = 2 * k, nvar + 1
    lp.col_cost_ = np.array(cost)
    lp.col_lower_ = np.zeros(2 * k)
    lp.col_upper_ = np.full(2 * k, core.kHighsInf)
    lp.row_lower_ = np.array([0.0] * nvar + [1.0])
    lp.row_upper_ = lp.row_lower_.copy()
    lp.a_matrix_.format_ = core.MatrixFormat.kColwise
    lp.a_matrix_.start_ = np.array(starts, dtype=np.int32)
    lp.a_matrix_.index_ = np.array(index, dtype=np.int32)
    lp.a_matrix_.value_ = np.array(value)
    h = core._Highs()
    h.setOptionValue("output_flag", False)
    h.setOptionValue("threads", 1)
    if h.passModel(lp) != core.HighsStatus.kOk or h.run() != core.HighsStatus.kOk \
            or h.getModelStatus() != core.HighsModelStatus.kOptimal:
        return None
    sol = h.getSolution()
    y, duals = list(sol.col_value), list(sol.row_dual)
    attempts = (_highs_readout, _highs_certificate)
    if not h.getInfo().objective_function_value > 0:
        attempts = attempts[::-1]
    for attempt in attempts:
        try:
            found = attempt(a, lo, hi, nvar, y, duals)
        except (LPError, OverflowError, ValueError):
            found = None
        if found is not None:
            return found
    return None


def _exact_float(x: float):
    from flint import fmpq

    return fmpq(*float(x).as_integer_ratio())


def _highs_readout(a, lo, hi, nvar, y, duals) -> Feasibility | None:
    """The dual ``g = w[:nvar]`` (``Aᵀw ≤ c``: ``lo + w_last/s ≤ a·g ≤ hi − w_last/s``), checked exactly."""
    g = [_exact_float(x) for x in duals[:nvar]]
    slack = _verify_solution(a, lo, hi, g)
    return Feasibility(True, as_fraction(slack), solution=tuple(as_fraction(v) for v in g), method="highs")


def _highs_certificate(a, lo, hi, nvar, y, duals) -> Feasibility | None:
    """An exact certificate on the support of the float multipliers, checked on the whole system."""
    k = len(a)
    tol = 1e-9 * max(max(y, default=0.0), 1e-300)
    support = [i for i in range(k) if y[i] > tol or y[k + i] > tol]
    if not support:
        return None
    sub = _exact_feasibility([a[i] for i in support], [lo[i] for i in support], [hi[i] for i in support], nvar)
    if sub.feasible:
        return None
    lam, nu = [Fraction(0)] * k, [Fraction(0)] * k
    for j, i in enumerate(support):
        lam[i], nu[i] = sub.lam[j], sub.nu[j]
    _verify_farkas(a, lo, hi, [as_fmpq(v) for v in lam + nu], nvar)
    return Feasibility(False, sub.margin, lam=tuple(lam), nu=tuple(nu), method="highs")
