"""Search for a code with a higher certified rank bound (docs/math.md §4–§5; docs/results.md).

With the best chain per pair (factor ``F(d)`` for directed distance ``d``,
:func:`certify.lemmas.amplification.best_split`) a code ``C`` of ``t`` words certifies

    R(C) = t² / (t + Σ_{S≠U} F(|S \\ U|)⁻²),        r ≥ ⌊R(C)⌋ + 1,

and a pair with no chain (``d = 0``, or a ``d`` whose every split has a factor below 1,
such as ``d = 1`` at ``n = 3, ε = 1/2``) is not allowed. ``R`` depends only on the
distance distribution, so the search works on words and their distances:

1. **Seeds** (:func:`seed_codes`): the built-in codes, Paley Hadamard codes, the
   words of one weight of ``RM(1, k)``, ``RM(2, k)`` and the Golay code shortened to
   length ``m``, greedy lexicodes for small ``m``, the largest code of minimum
   distance ``D`` in a small middle layer (a maximum clique of the compatibility
   graph, networkx), and every shorter seed padded with zero coordinates (so the best
   bound never drops as ``m`` grows). Each is evaluated exactly.
2. **Local search** (:class:`LocalSearch`) from the best seed over a pool of words
   (all seed words; the whole middle layer when it is small, else 20,000 random words
   of each weight the seeds use): add the word whose
   pairs cost least, remove the one that costs most, or swap the two, whenever the
   exact ``R`` increases; when no move helps, remove a few random words and go on.
   Floating-point costs only *rank* the candidate moves; every move is accepted or
   refused on the exact value of ``R``, and the best code is evaluated again exactly
   at the end. The code size is capped so that the compact certificate stays within
   the checker's limits.

**Score.** ``R`` is what the local search climbs (one exact update per move); the codes it
*chooses between* — the seeds, for the one to start from, and the code each local search
ends with, for the result — are ranked by :func:`sharp_bound`: the largest bound of the last
steps of docs/math.md §5 (trace–Frobenius, null-shifted, square, and square-kernel for a code
of one weight), which costs at most a fraction of a second per code; ties go to the larger
``R``. So a seed such as the Golay dodecads, whose square-kernel bound beats codes of larger
``R``, is kept, and a local search that raises ``R`` but lowers the sharpest bound does not
replace its start.

**Budget.** The search is budgeted by work: ``budget`` steps in all, where a step is one
word loaded from a seed, one move tried (add, remove or swap), one restart (the random
removal at a local optimum) or one word trimmed from a seed above the size cap; each step
costs ``O(pool)``. The budget is shared equally among the local searches: the best seed
(loaded whole, even beyond its share), then each seed above the size cap, which starts
from a random half-share of its words. With the same ``m``, length,
error, ``seed`` and ``budget`` the search makes the same moves on any machine and returns
the same code, so the certificate is byte-identical. ``time_limit`` is only an extra cap:
if it ends the search first, the result says so (``SearchResult.time_capped``) and is
not reproducible.

Adding a word to a code does **not** always raise ``R``: with ``σ = Σ F⁻²`` and ``δ``
the sum of the ``2t`` new terms, ``R`` does not drop exactly when
``δ ≤ 1 + 1/t + σ(2t + 1)/t²`` (:func:`adding_keeps_ratio`). The search only makes
moves that raise ``R`` and keeps the best code seen, so what it reports never drops.

>>> F = factor_table(10)
>>> words = [0b0000011111, 0b0011100011, 0b1100101100]  # pairwise |S ∩ U| ≤ 2 in [10]
>>> exact_ratio(words, 10, F)
Fraction(81, 38)
>>> exact_ratio([0b0011, 0b0111], 4, factor_table(4)) is None  # word 0 lies inside word 1
True
>>> search(1, budget=1)
Traceback (most recent call last):
...
certify.search.codes.SearchError: --m must be in [4, 64], not 1
"""
from __future__ import annotations

import dataclasses
import math
import random
import time
from collections import Counter
from dataclasses import dataclass, field
from fractions import Fraction
from math import comb
from typing import Callable, Sequence

import numpy as np

from codes import (
    BinaryCode,
    CodeError,
    ConstantWeightCode,
    builtin_names,
    colex_words,
    distance_counts,
    golay_code,
    hadamard_code,
    lexicode,
    load_code,
)
from codes.reed_muller import reed_muller
from codes.views import popcount

from ..check import MAX_COMPACT_QUERY, MAX_COMPACT_WORDS, MAX_COMPACT_WORK, compact_work
from ..exact import exact
from ..lemmas.amplification import best_split
from ..lemmas.domination import HALF
from . import DEFAULT_BUDGET

__all__ = [
    "SearchError",
    "SearchResult",
    "Seed",
    "factor_table",
    "exact_pairs",
    "exact_ratio",
    "sharp_bound",
    "adding_keeps_ratio",
    "seed_codes",
    "LocalSearch",
    "search",
    "result_certificate",
    "DEFAULT_BUDGET",
]

M_MIN, M_MAX = 4, 64  # words are numpy uint64 in the local search
POOL_LAYER_MAX = 200_000  # the whole middle layer joins the pool up to this size (m ≤ 20)
CLIQUE_LAYER_MAX = 300  # networkx maximum clique only on middle layers this small (m ≤ 10)
RANDOM_POOL_WORDS = 20_000  # per weight, when the layer is too large to take whole
MAX_BUDGET = 10**9


class SearchError(ValueError):
    """Search parameters out of range (exit 2)."""


def factor_table(m: int, length: int = 3, error=HALF) -> list[Fraction | None]:
    """``F(d)`` for ``d = 0 … m``: the best chain factor of a rise ``d``, or ``None`` where no chain exists."""
    eps = exact(error, "error")
    table: list[Fraction | None] = [None]
    for d in range(1, m + 1):
        try:
            table.append(best_split(d, length, eps)[0])
        except ValueError:
            table.append(None)
    return table


def exact_pairs(words: Sequence[int], m: int) -> Counter:
    """Directed-distance counts over ordered pairs of distinct words (``codes.distance_counts``: numpy rows, exact)."""
    return distance_counts(words)


def _ratio(t: int, pairs: Counter, F: Sequence[Fraction | None]) -> Fraction | None:
    if t < 2 or any(F[d] is None for d in pairs):
        return None
    sigma = sum((Fraction(c) / (F[d] * F[d]) for d, c in pairs.items()), Fraction(0))
    return Fraction(t * t) / (t + sigma)


def exact_ratio(words: Sequence[int], m: int, F: Sequence[Fraction | None]) -> Fraction | None:
    """``R = t² / (t + Σ F⁻²)`` of distinct ``words``, exactly; ``None`` if some pair has no chain."""
    return _ratio(len(words), exact_pairs(words, m), F)


def sharp_bound(words: Sequence[int], m: int, F: Sequence[Fraction | None], pairs: Counter | None = None) -> int | None:
    """The largest bound the last steps of docs/math.md §5 prove for ``words`` under the best chains, exactly.

    Trace–Frobenius, null-shifted (Theorem A, exact best ``s``), square and, for a code of one
    weight, square-kernel (Lemma N; float search, exact value): the score by which the search
    ranks its seeds and the codes its local searches end with. ``None`` if some pair has no chain.
    Each costs milliseconds to a quarter of a second (it depends on the distinct distances only).
    """
    from ..lemmas.sharper import best_argument, factors_of

    pairs = exact_pairs(words, m) if pairs is None else pairs
    t = len(words)
    if t < 2 or any(F[d] is None for d in pairs):
        return None
    classes = {(F[d], d): c for d, c in pairs.items()}
    factors = factors_of(classes)
    one_weight = len({w.bit_count() for w in words}) == 1
    allowed = ("trace-frobenius", "null-shifted", "square", "square-kernel")
    return best_argument(t, factors, allowed, classes if one_weight else None, m if one_weight else None).rank_at_least


def adding_keeps_ratio(t: int, sigma, delta) -> bool:
    """Whether adding a word with new terms ``δ`` keeps ``t²/(t + σ)`` from dropping.

    ``(t+1)²/(t+1+σ+δ) ≥ t²/(t+σ)  ⇔  δ ≤ 1 + 1/t + σ(2t+1)/t²`` (exact; ``t ≥ 1``).
    """
    sigma, delta = exact(sigma, "sigma"), exact(delta, "delta")
    return delta <= 1 + Fraction(1, t) + sigma * (2 * t + 1) / (t * t)


@dataclass(frozen=True)
class Seed:
    """A starting code and how it was made."""

    name: str
    code: BinaryCode | ConstantWeightCode


def _padded(code, m: int) -> BinaryCode | ConstantWeightCode:
    if code.length == m:
        return code
    desc = f"{code.description}, padded with {m - code.length} zero coordinates"
    if code.weight is not None:
        return ConstantWeightCode(m, code.weight, code.words, desc)
    return BinaryCode(m, code.words, desc)


def _shortened(words, n: int, weight: int, m: int, desc: str) -> ConstantWeightCode | None:
    """Words of ``weight`` vanishing on the first ``n − m`` coordinates, those deleted (None if < 2)."""
    s = n - m
    kept = tuple(w >> s for w in words if w.bit_count() == weight and not w & ((1 << s) - 1))
    if len(kept) < 2:
        return None
    return ConstantWeightCode(m, weight, kept, desc + (f", shortened at {s} coordinates" if s else ""))


def seed_codes(m: int, max_words: int = 40_000, deadline: float | None = None) -> list[Seed]:
    """Starting codes of length ``m`` (see the module docstring), each with at most ``max_words`` words."""
    seeds: list[Seed] = []

    def add(name: str, code) -> None:
        if code is not None and 2 <= code.size <= max_words and code.length <= m:
            seeds.append(Seed(name, _padded(code, m)))

    for name in builtin_names():
        code = load_code(name)
        add(name, code)
    for q in range(3, m):
        if q % 4 == 3 and all(q % p for p in range(2, int(q**0.5) + 1)) and q + 1 >= max(4, m - 8):
            add(f"hadamard{q + 1}", hadamard_code(q + 1))
    for r, k in ((1, 3), (1, 4), (2, 4), (1, 5), (2, 5)):
        n = 1 << k
        words = reed_muller(r, k)
        for w in sorted({x.bit_count() for x in words} - {0, n}):
            length = min(n, m)
            add(f"RM({r},{k}) weight {w}" + (f" shortened to {m}" if length < n else ""),
                _shortened(words, n, w, length, f"the weight-{w} words of RM({r}, {k})"))
    golay = golay_code()
    for w in (8, 12, 16):
        add(f"Golay weight {w}" + (f" shortened to {m}" if m < 24 else ""),
            _shortened(golay, 24, w, min(24, m), f"the weight-{w} words of the extended Golay code"))
    half = m // 2
    if comb(m, half) <= CLIQUE_LAYER_MAX:
        add_clique_seeds(m, add)
    if comb(m, half) <= POOL_LAYER_MAX:
        for D in range(2, half // 2 + 2):
            if deadline is not None and time.monotonic() > deadline:
                break
            try:
                add(f"lexicode:{m}:{half}:{D}", lexicode(m, half, D))
            except CodeError:
                break
    return seeds


def add_clique_seeds(m: int, add: Callable[[str, object], None]) -> None:
    """For each ``D``, a largest weight-``m/2`` code of minimum directed distance ``D`` (networkx maximum clique)."""
    import networkx as nx

    half = m // 2
    layer = list(colex_words(m, half))
    for D in range(2 if len(layer) <= 100 else 3, half + 1):  # D = 2 on 252 words: a dense graph, hours of branch and bound
        graph = nx.Graph()
        graph.add_nodes_from(range(len(layer)))
        graph.add_edges_from((i, j) for i, a in enumerate(layer) for j in range(i + 1, len(layer))
                             if (a & ~layer[j]).bit_count() >= D)
        clique, _ = nx.max_weight_clique(graph, weight=None)
        words = tuple(sorted(layer[i] for i in clique))
        add(f"max clique D={D}", ConstantWeightCode(
            m, half, words, f"a largest weight-{half} code of length {m} with directed distance ≥ {D} (networkx max_weight_clique)"))


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


@dataclass
class SearchResult:
    """The best code found, with its exact ratio and the story of how it was found."""

    m: int
    length: int
    error: Fraction
    code: BinaryCode | ConstantWeightCode
    ratio: Fraction
    seed: str
    seed_size: int = 0
    added: int = 0
    removed: int = 0
    seeds: list[tuple[str, int, Fraction | None]] = field(default_factory=list)
    moves: dict[str, int] = field(default_factory=dict)
    seconds: float = 0.0
    seed_number: int = 0
    budget: int = DEFAULT_BUDGET
    steps: int = 0
    time_capped: bool = False
    trimmed_from: int | None = None  # fit_to_time kept a sub-code of this many words' code
    seed_bounds: dict[str, int] = field(default_factory=dict)  # seed name → its sharpest bound (the search's score)

    @property
    def reproducible(self) -> bool:
        """Whether the same seed and budget give the same code (``False`` when the time limit cut the search)."""
        return not self.time_capped

    @property
    def rank_at_least(self) -> int:
        """``⌊R⌋ + 1``."""
        return self.ratio.numerator // self.ratio.denominator + 1

    def how(self) -> str:
        """One sentence: the seed, and what the local search changed in it."""
        tried = sum(v for k, v in self.moves.items() if k != "kick")
        kicks = self.moves.get("kick", 0)
        effort = f"{tried:,} moves, {kicks:,} restart{'' if kicks == 1 else 's'}"
        if not self.added and not self.removed:
            text = f"seed {self.seed} ({self.seed_size:,} words); local search ({effort}) found nothing better"
        else:
            text = (f"seed {self.seed} ({self.seed_size:,} words), then local search ({effort}): "
                    f"{self.added:,} words added, {self.removed:,} removed")
        if self.trimmed_from is not None:
            text += f"; the first {self.code.size:,} of its {self.trimmed_from:,} words kept to meet the time limit"
        return text


def _cap(F: Sequence[Fraction | None], length: int, error, dmax: int, m: int = 64) -> int:
    """Largest ``t`` whose compact certificate stays within the checker's limits.

    Pairs of words of weight ``≤ dmax`` are at distance ``≤ dmax``, so chains are at
    most as long as the longest best split of a rise ``≤ dmax``.
    """
    longest = max((len(best_split(d, length, error)[1]) for d, f in enumerate(F[:dmax + 1]) if f is not None), default=1)
    t = MAX_COMPACT_WORDS
    while t > 2 and (compact_work(t, longest, m) > MAX_COMPACT_WORK or (t - 1) * (longest + 1) > MAX_COMPACT_QUERY):
        t -= 1 + t // 100
    return t


def search(m: int, length: int = 3, error=HALF, time_limit: float | None = None, seed: int = 0,
           progress: Callable[[str], None] | None = None, budget: int = DEFAULT_BUDGET) -> SearchResult:
    """Search codes of length ``m`` for the largest certified bound at exact length ``n`` and error ``ε``.

    ``budget`` steps in all (module docstring, "Budget"); ``time_limit`` seconds, if given,
    is an extra cap on the seeds and the local search.

    Raises
    ------
    SearchError
        If ``m`` is outside ``[4, 64]``, ``length < 3``, ``time_limit ≤ 0``, ``budget`` is
        not in ``[1, 10⁹]``, or no seed admits a chain for every pair.
    """
    eps = exact(error, "error")
    if not isinstance(m, int) or not M_MIN <= m <= M_MAX:
        raise SearchError(f"--m must be in [{M_MIN}, {M_MAX}], not {m}")
    if not isinstance(length, int) or length < 3:
        raise SearchError(f"--length must be an int ≥ 3, not {length}")
    if time_limit is not None and not time_limit > 0:
        raise SearchError(f"--time-limit must be positive, not {time_limit}")
    if not isinstance(budget, int) or isinstance(budget, bool) or not 1 <= budget <= MAX_BUDGET:
        raise SearchError(f"--budget must be an int in [1, {MAX_BUDGET:,}], not {budget}")
    start = time.monotonic()
    deadline = None if time_limit is None else start + time_limit
    say = progress or (lambda text: None)
    F = factor_table(m, length, eps)
    say("building seed codes")
    # With a time limit, the search keeps SEARCH_SHARE of it: the rest is for the certificate of the code
    # found, which fit_to_time sizes to what is left (building it and the checker's verification).
    deadline = None if time_limit is None else start + SEARCH_SHARE * time_limit
    seed_deadline = None if time_limit is None else start + 0.4 * SEARCH_SHARE * time_limit
    seeds = seed_codes(m, deadline=seed_deadline)
    time_capped = seed_deadline is not None and time.monotonic() > seed_deadline
    rng = random.Random(seed)
    pool_words = {w for s in seeds for w in s.code.words}
    half = m // 2
    if comb(m, half) <= POOL_LAYER_MAX:
        pool_words.update(colex_words(m, half))
    else:  # a large layer: random words of the weights the seeds use (cut short, and said so, past the seed deadline)
        for w in sorted({x.bit_count() for x in pool_words}):
            for i in range(RANDOM_POOL_WORDS):
                if seed_deadline is not None and i % 1024 == 0 and time.monotonic() > seed_deadline:
                    time_capped = True
                    break
                pool_words.add(sum(1 << k for k in rng.sample(range(m), w)))
    cap = _cap(F, length, eps, max(w.bit_count() for w in pool_words), m)
    scored = []
    sharp: dict[str, int] = {}  # seed name → its sharpest certified bound (the score; ties: R)
    by_sharp = True  # False once the seed deadline passes: then every code is scored by R alone, the same way
    for s in seeds:
        pairs = exact_pairs(s.code.words, m) if s.code.size <= cap else None  # once: for R and for the score
        r = None if pairs is None else _ratio(s.code.size, pairs, F)
        scored.append((s.name, s.code.size, r))
        if r is not None and by_sharp and seed_deadline is not None and time.monotonic() > seed_deadline:
            by_sharp, time_capped = False, True  # sharp_bound costs up to 0.25 s a code: 2 s for m = 64's 19 seeds
        if r is not None and by_sharp:
            sharp[s.name] = sharp_bound(s.code.words, m, F, pairs)
        say(f"seed {s.name}: {s.code.size} words, R = {float(r):.4f}" + (f", r ≥ {sharp[s.name]}" if s.name in sharp else "")
            if r else f"seed {s.name}: not usable as is")
    if not by_sharp:
        sharp = {}
    # Seeds above the cap are still starting points (the search trims them): rank those by a trimmed estimate later.
    usable = [(r, s) for (name, size, r), s in zip(scored, seeds) if r is not None]
    big = [s for s in seeds if s.code.size > cap and exact_ratio(s.code.words[:2], m, F) is not None]
    if not usable and not big:
        raise SearchError(f"no seed code of length {m} has a chain for every pair at n = {length}, ε = {eps}")
    best_r, best_seed = (max(usable, key=lambda rs: (sharp.get(rs[1].name, 0), rs[0])) if usable  # first of equal scores
                         else (Fraction(0), big[0]))
    start_words = best_seed.code.words
    pool = sorted(pool_words)
    index = {w: i for i, w in enumerate(pool)}
    runs = [best_seed] + [s for s in big if s is not best_seed]
    result_r, result_words, result_seed, result_moves = best_r, tuple(start_words), best_seed.name, Counter()
    result_key = (sharp.get(best_seed.name, 0), best_r)
    origin = best_seed
    steps = 0
    for k, s in enumerate(runs):
        now = time.monotonic()
        if deadline is not None and now >= deadline:
            time_capped = True
            break
        share = (budget - steps) // (len(runs) - k)  # this run's steps
        until = None if deadline is None else now + (deadline - now) / (len(runs) - k)
        ls = LocalSearch(pool, m, F, cap)
        order = [index[w] for w in s.code.words]
        if s.code.size > cap:  # an oversized seed: a random sub-code of half this run's steps, then the search
            rng.shuffle(order)
            order = order[:max(2, share // 2)]
        time_capped |= ls.start(order, deadline=None if until is None else now + (until - now) / 2)
        loaded = ls.t  # each word loaded is a step (the best seed is loaded whole)
        say(f"local search from {s.name} ({s.code.size} words)")
        r, members = ls.run(until, rng, say, steps=max(0, share - loaded))
        steps += loaded + ls.steps
        time_capped |= ls.time_capped
        result_moves.update(ls.moves)
        words = tuple(pool[i] for i in members)
        key = (sharp_bound(words, m, F) or 0, r) if r > 0 and by_sharp else (0, r)
        if key > result_key:
            result_r, result_words, result_seed, origin, result_key = r, words, s.name, s, key
    # Keep the seed's own word order when nothing changed; otherwise increasing order.
    if set(result_words) == set(origin.code.words):
        code = origin.code
    else:
        words = tuple(sorted(result_words))
        weights = {w.bit_count() for w in words}
        desc = f"certify search (m = {m}, seed {seed}): from {result_seed}"
        code = (ConstantWeightCode(m, weights.pop(), words, desc) if len(weights) == 1 else BinaryCode(m, words, desc))
    final = exact_ratio(code.words, m, F)
    if final is None or final != result_r:
        raise AssertionError(f"the search's ratio {result_r} differs from the final exact evaluation {final}")
    kept = set(code.words)
    seed_words = set(origin.code.words)
    return SearchResult(m, length, eps, code, final, result_seed, len(seed_words), len(kept - seed_words),
                        len(seed_words - kept), scored, dict(result_moves), time.monotonic() - start,
                        seed, budget, steps, time_capped, seed_bounds=sharp)


#: The share of ``--time-limit`` that the search itself may use (seeds and local search); the rest is
#: for writing and verifying the certificate of the code found (:func:`fit_to_time`).
SEARCH_SHARE = 0.6
#: Passes over the family that writing and verifying a certificate take, each about as long as one pass
#: of the producer's per-query generator: the counts, the checker's generation and its re-read (measured on
#: golay24 and on the m = 64, length 1,000 worst case of issue 18: 2.2–2.8 passes).
POST_PASSES = 3.0


def fit_to_time(result: SearchResult, deadline: float, say: Callable[[str], None] | None = None) -> SearchResult:
    """The result, or a sub-code of it, whose certificate can be written and verified before ``deadline``.

    The cost of the certificate is measured, not guessed: one query of the producer's generator
    (:func:`witnesses.plans.iter_query_sets`, which the counts, the family and the checker's
    generation all resemble) is timed on the code's own plan, at least one query and for at most
    0.1 s; the whole certificate costs about :data:`POST_PASSES` × (time per query) × ``t``, and a
    query's time grows like ``t``. If that exceeds the time left, the first ``t'`` words are kept,
    ``t'² ≈ t · (time left) / (POST_PASSES · time per query)`` (a sub-code keeps a chain for every
    pair), the ratio is recomputed exactly and the result is marked ``time_capped``.
    """
    from witnesses.plans import iter_query_sets

    from ..certificates.rank_bound import make_plan

    t = result.code.size
    plan = make_plan(result.code, "best", result.length, result.error, distances=exact_pairs(result.code.words, result.m))
    t0 = time.monotonic()
    sampled = 0
    for _ in iter_query_sets(result.code, plan):
        sampled += 1
        if time.monotonic() - t0 > 0.1 or sampled >= 8:
            break
    per_query = (time.monotonic() - t0) / max(sampled, 1)
    left = deadline - time.monotonic()
    need = POST_PASSES * per_query * t
    if need <= left or t <= 2:
        return result
    keep = max(2, min(t - 1, int(math.sqrt(max(left, 0.0) * t / (POST_PASSES * per_query)))))
    words = result.code.words[:keep]
    F = factor_table(result.m, result.length, result.error)
    ratio = exact_ratio(words, result.m, F)
    if ratio is None:  # cannot happen: a sub-code keeps every pair's chain
        raise AssertionError("a sub-code lost a chain")
    desc = f"{result.code.description}; its first {keep:,} words (--time-limit)"
    code = (ConstantWeightCode(result.m, result.code.weight, tuple(words), desc) if result.code.weight is not None
            else BinaryCode(result.m, tuple(words), desc))
    if say is not None:
        say(f"time limit: the certificate of {t:,} words would take ≈ {need:.0f} s, {max(left, 0):.1f} s are left: "
            f"keeping the first {keep:,} words")
    return dataclasses.replace(result, code=code, ratio=ratio, time_capped=True, trimmed_from=t)


def result_certificate(result: SearchResult, form: str = "auto", argument="best"):
    """``(certificate, plan, bound)`` for the code a search found (best chains; explicit or compact form).

    The search maximizes the trace–Frobenius ratio; ``argument`` (default ``"best"``) is the last
    step written (docs/math.md §5), chosen for the code found. ``bound`` is trace–Frobenius.
    """
    from ..certificates.rank_bound import code_bound, make_plan, rank_bound_certificate

    pairs = exact_pairs(result.code.words, result.m)
    plan = make_plan(result.code, "best", result.length, result.error, distances=pairs)
    bound = code_bound(result.code, plan, result.length, result.error, pairs=pairs)
    if bound.ratio != result.ratio:
        raise AssertionError(f"search ratio {result.ratio} differs from the plan's {bound.ratio}")
    options = f" --length {result.length}" if result.length != 3 else ""
    options += f" --error-below {result.error}" if result.error != HALF else ""
    note = (f"certify search --m {result.m}{options} --seed {result.seed_number} --budget {result.budget}: "
            f"{result.how()}" + ("" if result.reproducible else " (cut short by the time limit: not reproducible)"))
    cert = rank_bound_certificate(result.code, plan, result.length, result.error, form, note=note, bound=bound,
                                  argument=argument)
    return cert, plan, bound
