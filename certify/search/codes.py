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
   graph, networkx), seeded random codes ``random:m:⌊m/2⌋:D:N:SEED`` when the middle layer is
   too large to take whole (``N = random_words``, default 5,000; ``SEED`` the search's
   ``seed``; :mod:`codes.random_codes`),
   and every shorter seed padded with zero coordinates (so the best bound never drops as
   ``m`` grows). Each is evaluated exactly.
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

from codes import BinaryCode, ConstantWeightCode, colex_words

from ..check import MAX_COMPACT_QUERY, MAX_COMPACT_WORDS, MAX_COMPACT_WORK, compact_work
from ..exact import exact
from ..lemmas.amplification import best_split
from ..lemmas.domination import HALF
from . import DEFAULT_BUDGET
from .local import LocalSearch
from .scores import adding_keeps_ratio, exact_pairs, exact_ratio, factor_table, ratio_of_pairs, sharp_bound
from .seeds import POOL_LAYER_MAX, RANDOM_SEED_WORDS, Seed, seed_codes

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
    "fit_to_time",
    "result_certificate",
    "DEFAULT_BUDGET",
]

M_MIN, M_MAX = 4, 64  # words are numpy uint64 in the local search
RANDOM_POOL_WORDS = 20_000  # per weight, when the layer is too large to take whole
MAX_BUDGET = 10**9


class SearchError(ValueError):
    """Search parameters out of range (exit 2)."""


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
    random_words: int = RANDOM_SEED_WORDS  # the size of the random seeds
    max_work: int | None = None  # the checker's work limit the size was capped by (None: its default)

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


def size_cap(F: Sequence[Fraction | None], length: int, error, dmax: int, m: int = 64, max_work: int | None = None) -> int:
    """Largest ``t`` whose compact certificate stays within the checker's limits.

    Pairs of words of weight ``≤ dmax`` are at distance ``≤ dmax``, so chains are at
    most as long as the longest best split of a rise ``≤ dmax``. ``max_work``: the checker's
    work limit (``--max-work``; default its own, ``MAX_COMPACT_WORK``).
    """
    longest = max((len(best_split(d, length, error)[1]) for d, f in enumerate(F[:dmax + 1]) if f is not None), default=1)
    limit = MAX_COMPACT_WORK if max_work is None else max_work
    t = MAX_COMPACT_WORDS
    while t > 2 and (compact_work(t, longest, m) > limit or (t - 1) * (longest + 1) > MAX_COMPACT_QUERY):
        t -= 1 + t // 100
    return t


def search(m: int, length: int = 3, error=HALF, time_limit: float | None = None, seed: int = 0,
           progress: Callable[[str], None] | None = None, budget: int = DEFAULT_BUDGET,
           random_words: int = RANDOM_SEED_WORDS, max_work: int | None = None) -> SearchResult:
    """Search codes of length ``m`` for the largest certified bound at exact length ``n`` and error ``ε``.

    ``budget`` steps in all (module docstring, "Budget"); ``time_limit`` seconds, if given,
    is an extra cap on the seeds and the local search. ``random_words``: the size of the
    random seeds (:func:`certify.search.seeds.add_random_seeds`, large middle layers only);
    ``max_work``: the checker's work limit the code size is capped by (default its own).

    Raises
    ------
    SearchError
        If ``m`` is outside ``[4, 64]``, ``length < 3``, ``time_limit ≤ 0``, ``budget`` is
        not in ``[1, 10⁹]``, ``random_words`` not in ``[2, 16,384]``, or no seed admits a chain for
        every pair.
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
    if not isinstance(random_words, int) or isinstance(random_words, bool) or not 2 <= random_words <= MAX_COMPACT_WORDS:
        raise SearchError(f"--random-words must be an int in [2, {MAX_COMPACT_WORDS:,}], not {random_words}")
    if max_work is not None and (not isinstance(max_work, int) or max_work < 1):
        raise SearchError(f"--max-work must be a positive int, not {max_work}")
    start = time.monotonic()
    deadline = None if time_limit is None else start + time_limit
    say = progress or (lambda text: None)
    F = factor_table(m, length, eps)
    say("building seed codes")
    # With a time limit, the search keeps SEARCH_SHARE of it: the rest is for the certificate of the code
    # found, which fit_to_time sizes to what is left (building it and the checker's verification).
    deadline = None if time_limit is None else start + SEARCH_SHARE * time_limit
    seed_deadline = None if time_limit is None else start + 0.4 * SEARCH_SHARE * time_limit
    seeds = seed_codes(m, deadline=seed_deadline, random_words=random_words, seed=seed)
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
    cap = size_cap(F, length, eps, max(w.bit_count() for w in pool_words), m, max_work)
    scored = []
    sharp: dict[str, int] = {}  # seed name → its sharpest certified bound (the score; ties: R)
    by_sharp = True  # False once the seed deadline passes: then every code is scored by R alone, the same way
    for s in seeds:
        pairs = exact_pairs(s.code.words, m) if s.code.size <= cap else None  # once: for R and for the score
        r = None if pairs is None else ratio_of_pairs(s.code.size, pairs, F)
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
                        seed, budget, steps, time_capped, seed_bounds=sharp, random_words=random_words,
                        max_work=max_work)


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
    options += f" --random-words {result.random_words}" if result.random_words != RANDOM_SEED_WORDS else ""
    options += f" --max-work {result.max_work}" if result.max_work is not None else ""
    note = (f"certify search --m {result.m}{options} --seed {result.seed_number} --budget {result.budget}: "
            f"{result.how()}" + ("" if result.reproducible else " (cut short by the time limit: not reproducible)"))
    cert = rank_bound_certificate(result.code, plan, result.length, result.error, form, note=note, bound=bound,
                                  argument=argument, max_work=result.max_work)
    return cert, plan, bound
