"""The codes ``certify search`` starts from (docs/results.md, "Search"): :func:`seed_codes`.

The built-in codes, Paley Hadamard codes, the words of one weight of ``RM(1, k)``,
``RM(2, k)`` and the Golay code shortened to length ``m``, greedy lexicodes for small ``m``,
the largest code of minimum distance ``D`` in a small middle layer (a maximum clique,
networkx: :func:`add_clique_seeds`), seeded random codes of weight ``⌊m/2⌋`` when the
middle layer is too large to take whole (:func:`add_random_seeds`), and every shorter seed
padded with zero coordinates.
"""
from __future__ import annotations

import time
from dataclasses import dataclass
from math import comb
from typing import Callable

from codes import BinaryCode, CodeError, ConstantWeightCode, builtin_names, colex_words, golay_code, hadamard_code, lexicode, load_code
from codes.random_codes import random_code
from codes.reed_muller import reed_muller

from . import RANDOM_SEED_WORDS

__all__ = ["POOL_LAYER_MAX", "CLIQUE_LAYER_MAX", "RANDOM_SEED_WORDS", "RANDOM_TIMED_WORDS", "Seed", "padded", "shortened", "seed_codes",
           "add_clique_seeds", "add_random_seeds"]

POOL_LAYER_MAX = 200_000  # the whole middle layer joins the pool up to this size (m ≤ 20)


CLIQUE_LAYER_MAX = 300  # networkx maximum clique only on middle layers this small (m ≤ 10)

RANDOM_TIMED_WORDS = 1_000  # the random seeds' size at most under --time-limit (add_random_seeds)



@dataclass(frozen=True)
class Seed:
    """A starting code and how it was made."""

    name: str
    code: BinaryCode | ConstantWeightCode


def padded(code, m: int) -> BinaryCode | ConstantWeightCode:
    if code.length == m:
        return code
    desc = f"{code.description}, padded with {m - code.length} zero coordinates"
    if code.weight is not None:
        return ConstantWeightCode(m, code.weight, code.words, desc)
    return BinaryCode(m, code.words, desc)


def shortened(words, n: int, weight: int, m: int, desc: str) -> ConstantWeightCode | None:
    """Words of ``weight`` vanishing on the first ``n − m`` coordinates, those deleted (None if < 2)."""
    s = n - m
    kept = tuple(w >> s for w in words if w.bit_count() == weight and not w & ((1 << s) - 1))
    if len(kept) < 2:
        return None
    return ConstantWeightCode(m, weight, kept, desc + (f", shortened at {s} coordinates" if s else ""))


def seed_codes(m: int, max_words: int = 40_000, deadline: float | None = None,
               random_words: int = RANDOM_SEED_WORDS, seed: int = 0) -> list[Seed]:
    """Starting codes of length ``m`` (see the module docstring), each with at most ``max_words`` words.

    ``random_words``, ``seed``: the size ``N`` and the ``SEED`` of the random seeds (:func:`add_random_seeds`).
    """
    seeds: list[Seed] = []

    def add(name: str, code) -> None:
        if code is not None and 2 <= code.size <= max_words and code.length <= m:
            seeds.append(Seed(name, padded(code, m)))

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
                shortened(words, n, w, length, f"the weight-{w} words of RM({r}, {k})"))
    golay = golay_code()
    for w in (8, 12, 16):
        add(f"Golay weight {w}" + (f" shortened to {m}" if m < 24 else ""),
            shortened(golay, 24, w, min(24, m), f"the weight-{w} words of the extended Golay code"))
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
    else:
        add_random_seeds(m, add, random_words, deadline, seed)
    return seeds


def add_random_seeds(m: int, add: Callable[[str, object], None], words: int = RANDOM_SEED_WORDS,
                     deadline: float | None = None, seed: int = 0) -> None:
    """Seeded random codes ``random:m:⌊m/2⌋:D:N:SEED`` for ``D = max(2, ⌊m/10⌋)`` and one more (:mod:`codes.random_codes`).

    A random weight-``⌊m/2⌋`` code has its directed distances near ``m/4``, where the
    trace–Frobenius sum gets its mass (docs/math.md §5, "The ceiling of the family method");
    the minimum distance ``D`` moves the bound little, and the best ``D`` grows like ``m/10``
    (2–3 at m = 27–33, 4 at 38–43, 5 at 44–48 in the runs of docs/results.md). ``SEED`` is the
    search's ``--seed``, and the seed's name is the spec that rebuilds it. With a ``deadline`` (``--time-limit``) each
    has at most :data:`RANDOM_TIMED_WORDS` words: building one cannot be cut short, and 5,000
    words of 64 bits take about a second; the size then depends on whether a limit was given,
    not on the clock.
    """
    if deadline is not None:
        words = min(words, RANDOM_TIMED_WORDS)
    low = max(2, m // 10)
    for D in (low, low + 1):
        if D > m // 2 or (deadline is not None and time.monotonic() > deadline):
            break
        spec = f"random:{m}:{m // 2}:{D}:{words}:{seed}"
        add(spec, random_code(m, m // 2, D, words, seed))


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
