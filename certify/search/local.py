"""The local search of ``certify search`` over a pool of words (docs/results.md, "Search"): :class:`LocalSearch`.

Add the word whose pairs cost least, remove the one that costs most, or swap the two,
whenever the exact ``R`` increases (:mod:`certify.search.scores`); at a local optimum,
remove a few random words and go on. Floating-point costs only *rank* the candidate
moves; every move is accepted or refused on the exact value of ``R``.
"""
from __future__ import annotations

import random
import time
from collections import Counter
from fractions import Fraction
from typing import Callable, Sequence

import numpy as np

from codes.views import popcount

__all__ = ["LocalSearch"]

class LocalSearch:
    """Add / remove / swap search over a pool of words, maximizing the exact ``R`` (see the module docstring).

    Parameters
    ----------
    pool : sequence of int
        Candidate words (distinct, ``m ≤ 64`` bits).
    m : int
    F : list
        :func:`factor_table` ``(m, n, ε)``.
    cap : int
        Largest code size allowed.
    """

    def __init__(self, pool: Sequence[int], m: int, F: Sequence[Fraction | None], cap: int) -> None:
        self.pool = np.array(pool, dtype=np.uint64)
        self.m, self.F, self.cap = m, F, cap
        self.cost = np.array([0.0 if f is None else float(1 / (f * f)) for f in F])  # ranking only
        self.bad = np.array([f is None for f in F])
        # both directions of a pair at once, indexed by d(x, y)·(m + 1) + d(y, x): one gather per update
        self.pair_cost = (self.cost[:, None] + self.cost[None, :]).ravel()
        self.pair_bad = (self.bad[:, None] | self.bad[None, :]).ravel().astype(np.int64)
        self.exact_cost = [None if f is None else 1 / (f * f) for f in F]
        size = len(self.pool)
        self.member = np.zeros(size, dtype=bool)
        self.energy = np.zeros(size)
        self.conflicts = np.zeros(size, dtype=np.int64)
        self.tabu = np.zeros(size, dtype=bool)  # words a kick removed: not re-added until the next kick
        self.t, self.sigma = 0, Fraction(0)
        self.moves = Counter()
        self._row: tuple[int, np.ndarray] | None = None

    def _pair_index(self, i: int) -> np.ndarray:
        """``d(pool, w)·(m + 1) + d(w, pool)`` for word ``w = pool[i]`` (the last one is kept: delta, then toggle)."""
        if self._row is not None and self._row[0] == i:
            return self._row[1]
        w = self.pool[i]
        k = popcount(self.pool & ~w)
        k *= self.m + 1
        k += popcount(w & ~self.pool)
        self._row = (i, k)
        return k

    def delta(self, i: int) -> Fraction:
        """Exact ``Σ`` of the ``2t`` terms between word ``i`` and the code (``i`` not counted)."""
        k = self._pair_index(i)
        mask = self.member.copy()
        mask[i] = False
        pairs = np.bincount(k[mask], minlength=(self.m + 1) ** 2).reshape(self.m + 1, self.m + 1)
        counts = pairs.sum(axis=0) + pairs.sum(axis=1)
        return sum((int(c) * self.exact_cost[d] for d, c in enumerate(counts) if c), Fraction(0))

    def toggle(self, i: int, delta: Fraction) -> None:
        """Add word ``i`` to the code or remove it; ``delta`` is :meth:`delta` ``(i)``."""
        sign = -1 if self.member[i] else 1
        k = self._pair_index(i)
        e = self.pair_cost[k]
        c = self.pair_bad[k]
        e[i], c[i] = 0.0, 0
        if sign > 0:
            self.energy += e
            self.conflicts += c
        else:
            self.energy -= e
            self.conflicts -= c
        self.member[i] = sign > 0
        self.t += sign
        self.sigma += sign * delta

    def ratio(self, t: int | None = None, sigma: Fraction | None = None) -> Fraction:
        t = self.t if t is None else t
        sigma = self.sigma if sigma is None else sigma
        return Fraction(t * t) / (t + sigma) if t >= 1 else Fraction(0)

    def reset(self) -> None:
        """The empty code."""
        self.member[:] = False
        self.energy[:] = 0.0
        self.conflicts[:] = 0
        self.t, self.sigma = 0, Fraction(0)

    def start(self, indices: Sequence[int], deadline: float | None = None) -> bool:
        """Begin from the code of the given pool indices (they must have no chainless pair).

        With a ``deadline``, stops adding when it passes: the code is then the prefix
        added so far (a sub-code, still a valid state). Returns whether the deadline cut it.
        """
        for i in indices:
            if deadline is not None and time.monotonic() > deadline:
                return True
            self.toggle(int(i), self.delta(int(i)))
        return False

    def _best_add(self) -> int | None:
        free = np.flatnonzero(~self.member & (self.conflicts == 0) & ~self.tabu)
        return None if len(free) == 0 else int(free[np.argmin(self.energy[free])])

    def _worst_member(self) -> int:
        members = np.flatnonzero(self.member)
        return int(members[np.argmax(self.energy[members])])

    def run(self, deadline: float | None, rng: random.Random, progress: Callable[[str], None] | None = None,
            steps: int | None = None) -> tuple[Fraction, tuple[int, ...]]:
        """Improve for ``steps`` steps (moves tried, restarts, trimmed words) or until ``deadline``
        (``time.monotonic()``), whichever comes first; return the best exact ``R`` and its pool indices.

        ``self.steps`` counts the steps taken; ``self.time_capped`` says whether the deadline ended it.
        """
        self.steps, self.time_capped = 0, False
        limit = float("inf") if steps is None else steps

        def timed_out() -> bool:
            if deadline is not None and time.monotonic() > deadline:
                self.time_capped = True
                return True
            return False

        while self.t > self.cap:  # a seed above the cap: drop the costliest words first
            if self.steps >= limit or timed_out():  # out of work: keep the cap cheapest words at once
                members = np.flatnonzero(self.member)
                keep = members[np.argsort(self.energy[members], kind="stable")[:self.cap]]
                self.moves["trim"] += len(members) - len(keep)
                self.reset()
                self.start(keep)
                break
            i = self._worst_member()
            self.toggle(i, self.delta(i))
            self.moves["trim"] += 1
            self.steps += 1
        best = (self.ratio(), tuple(np.flatnonzero(self.member)))
        while self.steps < limit and not timed_out():
            self.steps += 1
            if progress and not self.steps & 63:  # a status line every few seconds (Progress looks at the clock)
                r = best[0]
                progress(f"step {self.steps:,}{'' if steps is None else f'/{steps:,}'}: {self.t:,} words, "
                         f"{sum(v for k, v in self.moves.items() if k != 'kick'):,} moves, {self.moves['kick']:,} "
                         f"restarts, best R = {r.numerator / r.denominator:.4f} (r ≥ {r.numerator // r.denominator + 1})")
            r0 = self.ratio()
            moved = False
            x = self._best_add() if self.t < self.cap else None
            if x is not None:
                dx = self.delta(x)
                if self.ratio(self.t + 1, self.sigma + dx) > r0:
                    self.toggle(x, dx)
                    self.moves["add"] += 1
                    moved = True
            if not moved and self.t > 2:
                y = self._worst_member()
                dy = self.delta(y)
                if self.ratio(self.t - 1, self.sigma - dy) > r0:
                    self.toggle(y, dy)
                    self.moves["remove"] += 1
                    moved = True
                else:  # swap: y out, the cheapest word in, if that raises R
                    self.toggle(y, dy)
                    x = self._best_add()
                    dx = self.delta(x) if x is not None and x != y else None
                    if dx is not None and self.ratio(self.t + 1, self.sigma + dx) > r0:
                        self.toggle(x, dx)
                        self.moves["swap"] += 1
                        moved = True
                    else:
                        self.toggle(y, self.delta(y))
            if self.ratio() > best[0]:
                best = (self.ratio(), tuple(np.flatnonzero(self.member)))
            if not moved:  # a local optimum: remove 5–30% of the words at random, keep them out for a while
                members = list(np.flatnonzero(self.member))
                self.tabu[:] = False
                if len(members) > 2:
                    for y in rng.sample(members, max(1, min(len(members) - 2, round(len(members) * rng.uniform(0.05, 0.3))))):
                        self.toggle(int(y), self.delta(int(y)))
                        self.tabu[y] = True
                self.moves["kick"] += 1
        return best
