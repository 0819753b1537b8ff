"""Which product of symmetric groups to search: the partition chooser of ``certify minrank --search-invariant``.

A kernel invariant under ``S_{a_1} × … × S_{a_p}`` needs, in each part, blocks of degree
``k_l ≥ K1(⌊a_l/2⌋)`` (docs/math.md §11, Proposition 11.10), so a few coordinates split off
where ``K1(⌊m/2⌋)`` steps up let the large part keep the lower degree (``m = 12``: ``S_1 × S_11``
of degree 1 against ``S_12`` of degree 2). :func:`best` tries the candidates itself:

1. **candidates** (:func:`partitions`) — ``S_m``; ``S_b × S_{m−b}`` for ``b ≤`` :data:`SPLIT_MAX`;
   and two parts ``(m − a, a)`` with ``a`` in :data:`THRESHOLD_SIZES`, the largest part sizes of
   each value of ``K1`` and one below (``K1(N)`` steps up at ``N = 2, 6, 11, 16, 21``);
2. **plans** (:func:`plans`) — each candidate at its lowest block degrees ``D_l = K1(⌊a_l/2⌋)``
   and each one raised by one, ordered by their *all-rank-one count* ``Π_l C(a_l, D_l)`` (the rank
   of a kernel whose blocks up to ``D`` all have rank one: ``Σ_{κ ≤ D} mult(κ)``; docs/math.md §11,
   "Why degree one"), then by fewer parts;
3. **filters**, in that order — the *joint chain problem* on ``Π_l [0 … ⌊a_l/2⌋]`` at the
   degrees ``D`` (exact, :func:`certify.minrank.product_degree.solve`): necessary by
   docs/math.md Lemma 11.11, so a plan that fails it has no solution at all; then the *full LP*
   of the row condition with every block above ``D`` zero
   (:func:`certify.minrank.invariant.feasible`): a solution of it is what the search starts
   from (the LP is Lemma 11.8 itself, so it decides existence, up to floating point). A
   partition is kept at its first plan that passes both;
4. **certificates** — the search of :mod:`certify.minrank.invariant` on each kept plan in turn,
   each certificate checked by ``certify/check_symmetric.py``; the least rank wins (ties: fewer
   parts, then the earlier plan).

The work is a budget of LP solves (:class:`certify.minrank.invariant.Budget`), never seconds:
the full LPs and every search share it, and the chooser stops where it is spent. A search the
budget cuts short after its first central solution rounds the blocks it has reached (feasible
ones; the rounding's at most two LPs per query weight tuple are not counted) and that
certificate competes too; the best one is returned, and if there is none,
:class:`certify.minrank.invariant.BudgetSpent`. The order of the plans is a heuristic
(the count is not the rank the search reaches); the filters and the checker are what make the
result sound.
"""
from __future__ import annotations

import itertools
import math
from dataclasses import dataclass
from typing import Any, Callable, Iterator

from .degree import k1
from .invariant import DEFAULT_MARGIN, Budget, BudgetSpent, NoSolution, _highs, feasible, search
from .product_degree import solve as chain_solve
from .symmetric import describe_parts

__all__ = ["Plan", "partitions", "plans", "chain_feasible", "passing", "best", "SPLIT_MAX", "THRESHOLD_SIZES",
           "DEFAULT_BUDGET"]

#: ``S_b × S_{m−b}`` is a candidate for ``b`` up to this (a part of 4 or 5 beside ``N = 10`` or ``15`` is not
#: feasible in the full LP).
SPLIT_MAX = 3
#: Part sizes ``a`` of the two-part candidates ``(m − a, a)``: ``2N + 1`` for the largest ``N`` of each value of
#: ``K1(N)`` (``N = 5, 10, 15, 20``) and ``2N``.
THRESHOLD_SIZES = (10, 11, 20, 21, 30, 31, 40, 41)
#: The LP solves :func:`best` may spend by default (the full LPs and every search together): the search of ``S_20``
#: alone makes 3,025 (42 s of CPU), that of ``S_12`` 578.
DEFAULT_BUDGET = 20_000


@dataclass(frozen=True)
class Plan:
    """A partition at given block degrees: ``parts``, the highest block index ``degrees[l]`` of each part, and the
    all-rank-one count ``Π_l C(a_l, D_l)``."""

    parts: tuple[int, ...]
    degrees: tuple[int, ...]
    count: int

    def __str__(self) -> str:
        return f"{describe_parts(list(self.parts))} at degrees {', '.join(map(str, self.degrees))}"


def partitions(m: int) -> list[tuple[int, ...]]:
    """The candidate partitions of ``m`` (module docstring, step 1), each once."""
    out = [(m,)] + [(b, m - b) for b in range(1, SPLIT_MAX + 1) if m - b >= 1]
    out += [(m - a, a) for a in THRESHOLD_SIZES if m - a > SPLIT_MAX]
    seen, unique = set(), []
    for parts in out:
        if tuple(sorted(parts)) not in seen:
            seen.add(tuple(sorted(parts)))
            unique.append(parts)
    return unique


def plans(m: int) -> list[Plan]:
    """Every candidate at its lowest degrees ``K1(⌊a_l/2⌋)`` and each raised by one (capped at ``⌊a_l/2⌋``), by
    increasing count, then fewer parts, then the order of :func:`partitions` (module docstring, step 2)."""
    out = []
    for order, parts in enumerate(partitions(m)):
        base = [k1(a // 2) for a in parts]
        tuples = {tuple(min(b + x, a // 2) for b, x, a in zip(base, bump, parts))
                  for bump in itertools.product((0, 1), repeat=len(parts))}
        for degrees in tuples:
            count = math.prod(math.comb(a, d) for a, d in zip(parts, degrees))
            out.append((count, len(parts), order, degrees, Plan(parts, degrees, count)))
    return [plan for *_, plan in sorted(out)]


def chain_feasible(plan: Plan) -> bool:
    """Whether the joint chain problem on ``Π_l [0 … ⌊a_l/2⌋]`` (parts with ``⌊a_l/2⌋ ≥ 1``) has a solution
    of degree ``≤ D_l`` in each part (docs/math.md Lemma 11.11; exact). ``False`` rules the plan out."""
    grid = [(a // 2, min(d, a // 2)) for a, d in zip(plan.parts, plan.degrees) if a // 2 >= 1]
    return not grid or chain_solve([n for n, _ in grid], [d for _, d in grid])[0]


def passing(m: int, core=None, margin: float = DEFAULT_MARGIN, budget: Budget | None = None,
            say: Callable[[str], None] | None = None, tried: list[str] | None = None) -> Iterator[Plan]:
    """The plans of ``m`` that pass both filters, in the order of :func:`plans`, each partition at its first such
    plan (module docstring, step 3). ``tried`` gets one line per plan ruled out; ``say`` one line per filter run.
    Raises :class:`certify.minrank.invariant.BudgetSpent` when ``budget`` runs out in a full LP."""
    say = say or (lambda text: None)
    tried = [] if tried is None else tried
    core = core or _highs()
    kept: set[tuple[int, ...]] = set()
    for plan in plans(m):
        if plan.parts in kept:
            continue
        say(f"partition {plan}, count {plan.count:,}: the joint chain problem")
        if not chain_feasible(plan):
            tried.append(f"{plan}: fails the joint chain problem")
            continue
        say(f"partition {plan}, count {plan.count:,}: the full LP")
        if not feasible(plan.parts, plan.degrees, core, margin, budget):
            tried.append(f"{plan}: fails the full LP")
            continue
        kept.add(plan.parts)
        yield plan


def best(m: int, budget: int | None = DEFAULT_BUDGET, say: Callable[[str], None] | None = None,
         margin: float = DEFAULT_MARGIN, **options: Any) -> tuple[dict[str, Any], list[str]]:
    """The certificate of least rank over the plans that pass (module docstring), and one line per plan tried.

    ``options`` go to :func:`certify.minrank.invariant.search` (``passes``, ``squeeze``, …).
    Raises :class:`certify.minrank.invariant.HighsUnavailable` without HiGHS,
    :class:`certify.minrank.invariant.BudgetSpent` when the budget is spent before any
    certificate, and :class:`certify.minrank.invariant.NoSolution` when no plan gives one.
    """
    say = say or (lambda text: None)
    spent = Budget(budget)
    found: dict[str, Any] | None = None
    winner: Plan | None = None
    tried: list[str] = []

    def now() -> str:
        return f" (best so far {found['rank_at_most']:,}, {describe_parts(found['parts'])})" if found else ""

    plans_passing = passing(m, margin=margin, budget=spent, say=lambda text: say(text + now()), tried=tried)
    while True:
        try:
            plan = next(plans_passing, None)
            if plan is None:
                break
            say(f"partition {plan}, count {plan.count:,}: searching{now()}")
            doc = search(plan.parts, tops=plan.degrees, margin=margin, budget=spent,
                         say=lambda text, plan=plan: say(f"{describe_parts(list(plan.parts))}: {text}{now()}"),
                         **options)
        except BudgetSpent:
            tried.append(f"the budget of {spent.limit:,} LP solves spent")
            break
        except NoSolution as exc:
            tried.append(f"{plan}: no certificate ({exc})")
            continue
        cut = spent.limit is not None and spent.used >= spent.limit
        tried.append(f"{plan}: rank {doc['rank_at_most']:,}" + (" (the budget ran out in its search: the blocks "
                                                                  "reached so far, rounded)" if cut else ""))
        if found is None or doc["rank_at_most"] < found["rank_at_most"] or (
                doc["rank_at_most"] == found["rank_at_most"] and len(plan.parts) < len(winner.parts)):
            found, winner = doc, plan
    if found is None:
        if spent.limit is not None and spent.used >= spent.limit:
            raise BudgetSpent(f"m = {m}: the budget of {spent.limit:,} LP solves was spent before any certificate "
                              f"({'; '.join(tried)}): raise it")
        raise NoSolution(f"m = {m}: no partition gave a certificate ({'; '.join(tried)})")
    say(f"chose {winner}: rank {found['rank_at_most']:,} ({spent.used:,} LP solves)")
    return found, tried
