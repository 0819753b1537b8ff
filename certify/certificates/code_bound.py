"""Chain plans and the bound they give a code, from its distance distribution (A.2; docs/math.md §3–§5).

For a code of ``t`` words and a gap plan (:class:`witnesses.plans.GapPlan`), every
ordered pair ``(S, U)`` at directed distance ``d`` gets a chain of factor
``F_d = Π μ_{g_i}`` over the plan's gaps for ``d``, so the trace–Frobenius bound is
``r ≥ ⌊t² / (t + Σ_d N_d · F_d⁻²)⌋ + 1`` with ``N_d`` the ordered pairs at distance ``d``.
The plan names are described in :mod:`certify.certificates.rank_bound`, which writes the
certificates; this module only computes (the compact and explicit producers both use it).

>>> from codes import load_code
>>> code = load_code("rank-nine")
>>> code_bound(code, make_plan(code, "paper")).rank_at_least
9
"""
from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction
from typing import Iterable, Mapping

from witnesses import WitnessError
from witnesses.plans import GapPlan, direct_gaps, paper_gaps

from ..exact import exact
from ..lemmas.amplification import best_split, chain_factor
from ..lemmas.domination import HALF, domination_factor
from .producer import CertificateBuildError

__all__ = ["PLAN_NAMES", "CodeBound", "make_plan", "plan_factors", "code_bound"]

PLAN_NAMES = ("best", "paper", "direct")


def make_plan(code, name: str = "best", length: int = 3, error=HALF, distances: Iterable[int] | None = None) -> GapPlan:
    """The gap plan ``name`` for the distances that occur in ``code`` (or the given ``distances``).

    Raises
    ------
    CertificateBuildError
        On an unknown plan name, a pair at directed distance 0 (one word inside another),
        or a distance the plan cannot bridge with factors ``μ ≥ 1``.
    """
    eps = exact(error, "error")
    if name not in PLAN_NAMES:
        raise CertificateBuildError(f"unknown chain plan {name!r}; choose one of: {', '.join(PLAN_NAMES)}")
    distances = set(code.distance_counts if distances is None else distances)
    if 0 in distances:
        raise CertificateBuildError("some word lies inside another (directed distance 0): no chain can bridge that pair")
    rules = {
        "paper": paper_gaps,
        "direct": direct_gaps,
        "best": lambda d: best_split(d, length, eps, prefer=distances)[1],
    }
    entries = []
    for d in sorted(distances):
        try:
            gaps = tuple(rules[name](d))
        except (ValueError, WitnessError) as exc:
            raise CertificateBuildError(f"plan {name!r} cannot bridge directed distance {d}: {exc}") from None
        entries.append((d, gaps))
    plan = GapPlan(name, tuple(entries))
    plan_factors(plan, length, eps)  # refuses gaps with μ < 1
    return plan


def plan_factors(plan: GapPlan, length: int = 3, error=HALF) -> dict[int, Fraction]:
    """``{d: F_d}``, ``F_d = Π μ_g`` over the gaps for ``d`` (A.2; docs/math.md §3–§4).

    Raises
    ------
    CertificateBuildError
        If some gap has ``μ_g < 1`` at this length and error.
    """
    eps = exact(error, "error")
    out = {}
    for d, gaps in plan.entries:
        mus = [domination_factor(g, length, eps) for g in gaps]
        weak = [g for g, mu in zip(gaps, mus) if mu < 1]
        if weak:
            raise CertificateBuildError(
                f"plan {plan.name!r}: distance {d} uses gap {weak[0]}, where μ = (n−2)(d−2ε)/(2ε) < 1 "
                f"at n = {length}, ε = {eps}"
            )
        out[d] = chain_factor(mus)
    return out


@dataclass(frozen=True)
class CodeBound:
    """``t``, the pairs per distance, the chain factors and the trace–Frobenius arithmetic (docs/math.md §5)."""

    t: int
    pairs: dict[int, int]
    factors: dict[int, Fraction]
    sum_inverse_squares: Fraction
    ratio: Fraction
    rank_at_least: int

    @property
    def frobenius_squared_below(self) -> Fraction:
        """``t + Σ F⁻²``."""
        return self.t + self.sum_inverse_squares

    @property
    def by_factor(self) -> dict[Fraction, int]:
        """Chain factor ``F`` → number of ordered pairs with it (what the sharper arguments read)."""
        out: dict[Fraction, int] = {}
        for d, count in self.pairs.items():
            out[self.factors[d]] = out.get(self.factors[d], 0) + count
        return out

    @property
    def classes(self) -> dict[tuple[Fraction, int], int]:
        """``(F, d)`` → ordered pairs at directed distance ``d`` (what ``square-kernel`` reads)."""
        return {(self.factors[d], d): count for d, count in self.pairs.items()}


def code_bound(code, plan: GapPlan, length: int = 3, error=HALF, pairs: Mapping[int, int] | None = None) -> CodeBound:
    """The certified bound of ``code`` under ``plan``, from its distance distribution (exact).

    ``pairs`` (distance → ordered pairs) defaults to ``code.distance_counts``.

    Raises
    ------
    CertificateBuildError
        If ``t < 2`` (the bound is strict only for two or more words), or a distance
        of the code has no plan entry.
    """
    t = code.size
    if t < 2:
        raise CertificateBuildError(f"the trace–Frobenius bound needs at least two words, not {t}")
    pairs = dict(code.distance_counts if pairs is None else pairs)
    factors = plan_factors(plan, length, error)
    missing = sorted(set(pairs) - set(factors))
    if missing:
        raise CertificateBuildError(f"plan {plan.name!r} has no entry for directed distance {missing[0]}")
    sigma = sum((Fraction(c) / (factors[d] * factors[d]) for d, c in pairs.items()), Fraction(0))
    ratio = Fraction(t * t) / (t + sigma)
    return CodeBound(t, pairs, {d: factors[d] for d in sorted(pairs)}, sigma, ratio, ratio.numerator // ratio.denominator + 1)
