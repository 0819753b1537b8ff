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
>>> search(1, time_limit=1)
Traceback (most recent call last):
...
certify.search.codes.SearchError: --m must be in [4, 64], not 1
"""
from __future__ import annotations

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
    golay_code,
    hadamard_code,
    lexicode,
    load_code,
)
from codes.reed_muller import reed_muller

from ..check import MAX_COMPACT_QUERY, MAX_COMPACT_WORDS, MAX_COMPACT_WORK, compact_work
from ..exact import exact
from ..lemmas.amplification import best_split
from ..lemmas.domination import HALF

__all__ = [
    "SearchError",
    "SearchResult",
    "Seed",
    "factor_table",
    "exact_pairs",
    "exact_ratio",
    "adding_keeps_ratio",
    "seed_codes",
    "LocalSearch",
    "search",
    "result_certificate",
]

M_MIN, M_MAX = 4, 64  # words are numpy uint64 in the local search
POOL_LAYER_MAX = 200_000  # the whole middle layer joins the pool up to this size (m ≤ 20)
CLIQUE_LAYER_MAX = 300  # networkx maximum clique only on middle layers this small (m ≤ 10)
RANDOM_POOL_WORDS = 20_000  # per weight, when the layer is too large to take whole


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


def _popcount(a: np.ndarray) -> np.ndarray:
    """Bit counts of a ``uint64`` array (exact integer arithmetic)."""
    if hasattr(np, "bitwise_count"):
        return np.bitwise_count(a).astype(np.int64)
    a = a - ((a >> np.uint64(1)) & np.uint64(0x5555555555555555))
    a = (a & np.uint64(0x3333333333333333)) + ((a >> np.uint64(2)) & np.uint64(0x3333333333333333))
    a = (a + (a >> np.uint64(4))) & np.uint64(0x0F0F0F0F0F0F0F0F)
    return ((a * np.uint64(0x0101010101010101)) >> np.uint64(56)).astype(np.int64)


def exact_pairs(words: Sequence[int], m: int) -> Counter:
    """Directed-distance counts over ordered pairs of distinct words (numpy rows, exact integers)."""
    w = np.array(words, dtype=np.uint64)
    counts = np.zeros(m + 1, dtype=np.int64)
    for x in w:
        counts += np.bincount(_popcount(x & ~w), minlength=m + 1)
    counts[0] -= len(w)
    return Counter({d: int(c) for d, c in enumerate(counts) if c})


def _ratio(t: int, pairs: Counter, F: Sequence[Fraction | None]) -> Fraction | None:
    if t < 2 or any(F[d] is None for d in pairs):
        return None
    sigma = sum((Fraction(c) / (F[d] * F[d]) for d, c in pairs.items()), Fraction(0))
    return Fraction(t * t) / (t + sigma)


def exact_ratio(words: Sequence[int], m: int, F: Sequence[Fraction | None]) -> Fraction | None:
    """``R = t² / (t + Σ F⁻²)`` of distinct ``words``, exactly; ``None`` if some pair has no chain."""
    return _ratio(len(words), exact_pairs(words, m), F)


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
        self.exact_cost = [None if f is None else 1 / (f * f) for f in F]
        size = len(self.pool)
        self.member = np.zeros(size, dtype=bool)
        self.energy = np.zeros(size)
        self.conflicts = np.zeros(size, dtype=np.int64)
        self.tabu = np.zeros(size, dtype=bool)  # words a kick removed: not re-added until the next kick
        self.t, self.sigma = 0, Fraction(0)
        self.moves = Counter()

    def _rows(self, i: int) -> tuple[np.ndarray, np.ndarray]:
        w = self.pool[i]
        return _popcount(self.pool & ~w), _popcount(w & ~self.pool)

    def delta(self, i: int) -> Fraction:
        """Exact ``Σ`` of the ``2t`` terms between word ``i`` and the code (``i`` not counted)."""
        d1, d2 = self._rows(i)
        mask = self.member.copy()
        mask[i] = False
        counts = np.bincount(d1[mask], minlength=self.m + 1) + np.bincount(d2[mask], minlength=self.m + 1)
        return sum((int(c) * self.exact_cost[d] for d, c in enumerate(counts) if c), Fraction(0))

    def toggle(self, i: int, delta: Fraction) -> None:
        """Add word ``i`` to the code or remove it; ``delta`` is :meth:`delta` ``(i)``."""
        sign = -1 if self.member[i] else 1
        d1, d2 = self._rows(i)
        e = self.cost[d1] + self.cost[d2]
        c = (self.bad[d1] | self.bad[d2]).astype(np.int64)
        e[i], c[i] = 0.0, 0
        self.energy += sign * e
        self.conflicts += sign * c
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

    def start(self, indices: Sequence[int], deadline: float | None = None) -> None:
        """Begin from the code of the given pool indices (they must have no chainless pair).

        With a ``deadline``, stops adding when it passes: the code is then the prefix
        added so far (a sub-code, still a valid state).
        """
        for i in indices:
            if deadline is not None and time.monotonic() > deadline:
                break
            self.toggle(int(i), self.delta(int(i)))

    def _best_add(self) -> int | None:
        free = np.flatnonzero(~self.member & (self.conflicts == 0) & ~self.tabu)
        return None if len(free) == 0 else int(free[np.argmin(self.energy[free])])

    def _worst_member(self) -> int:
        members = np.flatnonzero(self.member)
        return int(members[np.argmax(self.energy[members])])

    def run(self, deadline: float, rng: random.Random, progress: Callable[[str], None] | None = None) -> tuple[Fraction, tuple[int, ...]]:
        """Improve until ``deadline`` (``time.monotonic()``); return the best exact ``R`` and its pool indices."""
        while self.t > self.cap:  # a seed above the cap: drop the costliest words first
            if time.monotonic() > deadline:  # out of time: keep the cap cheapest words at once
                members = np.flatnonzero(self.member)
                keep = members[np.argsort(self.energy[members], kind="stable")[:self.cap]]
                self.moves["trim"] += len(members) - len(keep)
                self.reset()
                self.start(keep)
                break
            i = self._worst_member()
            self.toggle(i, self.delta(i))
            self.moves["trim"] += 1
        best = (self.ratio(), tuple(np.flatnonzero(self.member)))
        while time.monotonic() < deadline:
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
                if progress:
                    progress(f"R = {float(best[0]):.4f} with {self.t} words")
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
            return f"seed {self.seed} ({self.seed_size:,} words); local search ({effort}) found nothing better"
        return (f"seed {self.seed} ({self.seed_size:,} words), then local search ({effort}): "
                f"{self.added:,} words added, {self.removed:,} removed")


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


def search(m: int, length: int = 3, error=HALF, time_limit: float = 60.0, seed: int = 0,
           progress: Callable[[str], None] | None = None) -> SearchResult:
    """Search codes of length ``m`` for the largest certified bound at exact length ``n`` and error ``ε``.

    Raises
    ------
    SearchError
        If ``m`` is outside ``[4, 64]``, ``length < 3``, ``time_limit ≤ 0``, or no seed
        admits a chain for every pair.
    """
    eps = exact(error, "error")
    if not isinstance(m, int) or not M_MIN <= m <= M_MAX:
        raise SearchError(f"--m must be in [{M_MIN}, {M_MAX}], not {m}")
    if not isinstance(length, int) or length < 3:
        raise SearchError(f"--length must be an int ≥ 3, not {length}")
    if not time_limit > 0:
        raise SearchError(f"--time-limit must be positive, not {time_limit}")
    start = time.monotonic()
    deadline = start + time_limit
    say = progress or (lambda text: None)
    F = factor_table(m, length, eps)
    say("building seed codes")
    seeds = seed_codes(m, deadline=start + 0.4 * time_limit)
    rng = random.Random(seed)
    pool_words = {w for s in seeds for w in s.code.words}
    half = m // 2
    if comb(m, half) <= POOL_LAYER_MAX:
        pool_words.update(colex_words(m, half))
    else:  # a large layer: random words of the weights the seeds use
        for w in sorted({x.bit_count() for x in pool_words}):
            for _ in range(RANDOM_POOL_WORDS):
                pool_words.add(sum(1 << k for k in rng.sample(range(m), w)))
    cap = _cap(F, length, eps, max(w.bit_count() for w in pool_words), m)
    scored = []
    for s in seeds:
        r = exact_ratio(s.code.words, m, F) if s.code.size <= cap else None
        scored.append((s.name, s.code.size, r))
        say(f"seed {s.name}: {s.code.size} words, R = {float(r):.4f}" if r else f"seed {s.name}: not usable as is")
    # Seeds above the cap are still starting points (the search trims them): rank those by a trimmed estimate later.
    usable = [(r, s) for (name, size, r), s in zip(scored, seeds) if r is not None]
    big = [s for s in seeds if s.code.size > cap and exact_ratio(s.code.words[:2], m, F) is not None]
    if not usable and not big:
        raise SearchError(f"no seed code of length {m} has a chain for every pair at n = {length}, ε = {eps}")
    best_r, best_seed = max(usable, key=lambda rs: rs[0]) if usable else (Fraction(0), big[0])
    start_words = best_seed.code.words
    pool = sorted(pool_words)
    index = {w: i for i, w in enumerate(pool)}
    runs = [best_seed] + [s for s in big if s is not best_seed]
    result_r, result_words, result_seed, result_moves = best_r, tuple(start_words), best_seed.name, Counter()
    origin = best_seed
    for k, s in enumerate(runs):
        now = time.monotonic()
        if now >= deadline:
            break
        share = (deadline - now) / (len(runs) - k)
        ls = LocalSearch(pool, m, F, cap)
        order = [index[w] for w in s.code.words]
        if s.code.size > cap:  # an oversized seed: a random sub-code if time runs out while building it
            rng.shuffle(order)
        ls.start(order, deadline=now + share / 2)
        say(f"local search from {s.name} ({s.code.size} words)")
        r, members = ls.run(now + share, rng, say)
        result_moves.update(ls.moves)
        if r > result_r:
            result_r, result_words, result_seed, origin = r, tuple(pool[i] for i in members), s.name, s
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
                        len(seed_words - kept), scored, dict(result_moves), time.monotonic() - start)


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
    note = f"certify search --m {result.m}: {result.how()}"
    cert = rank_bound_certificate(result.code, plan, result.length, result.error, form, note=note, bound=bound,
                                  argument=argument)
    return cert, plan, bound
