"""Seeded random constant-weight codes: ``random:M:W:D[:N][:SEED]`` (docs/math.md §5, "The ceiling of the family method").

A random code of weight ``W = ⌊M/2⌋`` has its directed distances concentrated near
``M/4``, where the trace–Frobenius sum of docs/math.md §5 gets most of its mass; its
minimum distance ``D`` matters little. :func:`random_code` builds one, reproducibly:

1. ``rng = random.Random(SEED)`` (an ``int`` seed: Python seeds the Mersenne Twister from
   the integer's 32-bit digits, the same on every machine and Python 3 version), and only
   ``rng.getrandbits`` is called, which is specified to be reproducible from the seed;
2. a uniformly random ``W``-subset of ``[M]``: a partial Fisher–Yates shuffle of
   ``0 … M−1``, whose ``j``-th swap position is uniform on ``j … M−1`` by rejection
   sampling (draw ``k = (M−j).bit_length()`` bits, retry while the value is ``≥ M − j``);
   the first ``W`` entries are the word's coordinates;
3. the word is kept when its directed distance ``|x \\ u|`` to every kept word ``u`` is
   ``≥ D`` and it is not a repeat (with ``D = 1``: distinct words of one weight are at
   directed distance ``≥ 1``);
4. stop at ``N`` words, or after :data:`MAX_REJECTED_RUN` draws in a row were all
   rejected (the code is then close to maximal for this sampling), or when the work —
   distance checks (one ``popcount`` each) plus ``W`` per draw — reaches
   :data:`MAX_RANDOM_WORK`: the budget is counted, never timed, so the code is a function of
   ``M, W, D, N, SEED`` alone.

Everything is integer arithmetic on Python ints in a fixed order (a list of kept words,
no sets or dicts are iterated), so no hash seed or platform enters.

>>> code = random_code(12, 6, 2, 10, seed=1)
>>> code.size, code.weight, code.min_distance >= 2
(10, 6, True)
>>> random_code(12, 6, 2, 10, seed=1).words == code.words
True
>>> load_random("random:12:6:2:10:1").words == code.words
True
>>> load_random("random:12:6")
Traceback (most recent call last):
...
codes.library.CodeSpecError: code 'random:12:6': expected random:M:W:D[:N][:SEED] with three to five integers
"""
from __future__ import annotations

import random

from .constant_weight import CodeError, ConstantWeightCode

__all__ = ["RANDOM_DEFAULT_WORDS", "MAX_RANDOM_WORDS", "MAX_REJECTED_RUN", "MAX_RANDOM_WORK", "MAX_RANDOM_LENGTH",
           "random_word", "random_code", "load_random"]

#: ``N`` when the spec leaves it out.
RANDOM_DEFAULT_WORDS = 5_000
#: ``N`` at most: the stand-alone checker's limit on the words of a compact certificate.
MAX_RANDOM_WORDS = 16_384
#: ``M`` at most (the words are Python ints; ``certify search`` works up to 64 bits).
MAX_RANDOM_LENGTH = 64
#: Stop after this many draws in a row were rejected (a large ``D`` rejects almost every word).
MAX_REJECTED_RUN = 10_000
#: At most this much work in all: distance checks plus ``W`` per draw (``N = 16,384`` words at a
#: small ``D`` need about ``N²/2 ≈ 1.3·10⁸`` checks: tens of seconds).
MAX_RANDOM_WORK = 3 * 10**8


def _below(rng: random.Random, n: int) -> int:
    """A uniform integer in ``[0, n)`` from ``rng.getrandbits`` alone (rejection sampling)."""
    k = n.bit_length()
    while True:
        r = rng.getrandbits(k)
        if r < n:
            return r


def random_word(rng: random.Random, length: int, weight: int) -> int:
    """A uniformly random ``weight``-subset of ``[length]`` as a bitmask (partial Fisher–Yates, module docstring)."""
    coords = list(range(length))
    word = 0
    for j in range(weight):
        k = j + _below(rng, length - j)
        coords[j], coords[k] = coords[k], coords[j]
        word |= 1 << coords[j]
    return word


def random_code(length: int, weight: int, min_distance: int, words: int = RANDOM_DEFAULT_WORDS,
                seed: int = 0) -> ConstantWeightCode:
    """The seeded random code ``random:M:W:D:N:SEED`` (see the module docstring for the algorithm).

    Parameters
    ----------
    length, weight, min_distance : int
        ``M ∈ [2, 64]``, ``W ∈ [1, M − 1]``, ``D ∈ [1, min(W, M − W)]``.
    words : int
        ``N ∈ [2, 16,384]``: the size aimed at; fewer when the draw or work budget ends first.
    seed : int
        ``≥ 0``.

    Raises
    ------
    CodeError
        On parameters out of range (naming the parameter and its range), or when fewer than
        two words were kept.
    """
    spec = f"random:{length}:{weight}:{min_distance}:{words}:{seed}"
    for name, value in (("M", length), ("W", weight), ("D", min_distance), ("N", words), ("SEED", seed)):
        if not isinstance(value, int) or isinstance(value, bool):
            raise CodeError(f"code {spec!r}: {name} must be an int, not {value!r}")
    if not 2 <= length <= MAX_RANDOM_LENGTH:
        raise CodeError(f"code {spec!r}: length M must be in [2, {MAX_RANDOM_LENGTH}], not {length}")
    if not 1 <= weight < length:
        raise CodeError(f"code {spec!r}: weight W must be in [1, {length - 1}], not {weight}")
    if not 1 <= min_distance <= min(weight, length - weight):
        raise CodeError(f"code {spec!r}: distance D must be in [1, {min(weight, length - weight)}], not {min_distance}")
    if not 2 <= words <= MAX_RANDOM_WORDS:
        raise CodeError(f"code {spec!r}: size N must be in [2, {MAX_RANDOM_WORDS:,}], not {words}")
    if seed < 0:
        raise CodeError(f"code {spec!r}: SEED must be ≥ 0, not {seed}")
    rng = random.Random(seed)
    kept: list[int] = []
    overlap = weight - min_distance  # |x \ u| ≥ D  ⇔  |x ∧ u| ≤ W − D (equal weights)
    work = draws = rejected = 0
    while len(kept) < words and rejected < MAX_REJECTED_RUN and work < MAX_RANDOM_WORK:
        draws += 1
        work += weight
        x = random_word(rng, length, weight)
        for u in reversed(kept):  # a conflict is likeliest with a recent word (same result in any order)
            work += 1
            if (x & u).bit_count() > overlap or x == u:
                rejected += 1
                break
        else:
            kept.append(x)
            rejected = 0
    if len(kept) < 2:
        raise CodeError(f"code {spec!r}: only {len(kept)} word(s) kept in {draws:,} draws; a code needs two")
    ended = ("" if len(kept) == words else
             f"; stopped at {len(kept):,} words after {draws:,} draws ({rejected:,} rejected in a row, work {work:,})")
    desc = (f"a seeded random code (random:{length}:{weight}:{min_distance}:{words}:{seed}): "
            f"length {length}, weight {weight}, directed distance ≥ {min_distance}{ended}")
    return ConstantWeightCode(length, weight, tuple(kept), desc)


def load_random(spec: str) -> ConstantWeightCode:
    """The code a ``random:M:W:D[:N][:SEED]`` spec names (``N`` defaults to 5,000, ``SEED`` to 0).

    Raises
    ------
    CodeSpecError
        On a malformed spec or parameters out of range.
    """
    from .library import CodeSpecError

    parts = spec.split(":")[1:]
    try:
        if not 3 <= len(parts) <= 5:
            raise ValueError
        M, W, D, *rest = (int(p) for p in parts)
    except ValueError:
        raise CodeSpecError(f"code {spec!r}: expected random:M:W:D[:N][:SEED] with three to five integers") from None
    N = rest[0] if rest else RANDOM_DEFAULT_WORDS
    seed = rest[1] if len(rest) > 1 else 0
    try:
        return random_code(M, W, D, N, seed)
    except CodeError as exc:
        raise CodeSpecError(str(exc).replace(f"random:{M}:{W}:{D}:{N}:{seed}", spec)) from None
