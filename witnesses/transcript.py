"""The transcript hard family: query and database tokens (C.3; docs/math.md §7).

For integers ``M, s ≥ 1`` tokens have ``m = 2 + M + s`` coordinates: two type bits,
a word block of length ``M`` and an answer block of length ``s``. Take a code ``C`` of
``h``-subsets of ``[M]`` with directed distance ``≥ s + 1`` and ``q`` of its words
``S_1, …, S_q``::

    q_S    = (0, 1, x_{S^c}, 1_s)        query token of word S
    d_{U,k} = (1, 0, x_U,    u_k)        database token of word U with answer k,
                                           u_k = (1^k, 0^{s−k}),  k ∈ {0, …, s}

For an assignment ``k = (k_1, …, k_q) ∈ {0,…,s}^q`` the input is
``(q_{S_1}, …, q_{S_q}, d_{S_1,k_1}, …, d_{S_q,k_q})`` (length ``2q``), queried at each of
the positions ``0, …, q−1`` in turn; the target at ``q_{S_i}`` is ``k_i``. Query tokens
and positions are the same for every assignment.

Why the target is ``k_i`` (C.3): ``⟨q_S, d_{S,k}⟩ = |S^c ∩ S| + k = k``, while every
*unintended* overlap exceeds ``s``: ``⟨q_S, d_{U,k}⟩ = |U \\ S| + k ≥ s + 1`` for
``U ≠ S`` (code distance), ``⟨q_S, q_T⟩ = 1 + |S^c ∩ T^c| + s`` (type bit and answer
block) and ``⟨q_S, q_S⟩ = 1 + (M − h) + s``. :func:`unintended_overlaps` recomputes
all of them; :func:`transcript_family` refuses a code for which one is ``≤ s``.

>>> from codes import greedy_code
>>> fam = transcript_family(greedy_code(6, 3, 2, cap=2), s=1)
>>> fam.m, len(fam.inputs), fam.min_unintended_overlap
(9, 8, 2)
>>> [X.target for X in fam.inputs[:4]]
[0, 0, 0, 1]
>>> transcript_family(greedy_code(6, 3, 1, cap=3), s=1)
Traceback (most recent call last):
...
witnesses.inputs.WitnessError: query token 0 has overlap 1 ≤ s = 1 with database token (word 1, answer 0): the code needs directed distance ≥ s + 1 = 2
"""
from __future__ import annotations

from dataclasses import dataclass
from itertools import product

from codes import ConstantWeightCode, complement

from .inputs import Input, WitnessError

__all__ = ["query_token", "database_token", "unintended_overlaps", "TranscriptFamily", "transcript_family"]


def query_token(word: int, M: int, s: int) -> int:
    """``q_S = (0, 1, x_{S^c}, 1_s)`` on ``2 + M + s`` bits (C.3)."""
    return 0b10 | (complement(word, M) << 2) | (((1 << s) - 1) << (2 + M))


def database_token(word: int, answer: int, M: int, s: int) -> int:
    """``d_{U,k} = (1, 0, x_U, u_k)``, ``u_k`` = ``k`` ones then ``s − k`` zeros (C.3)."""
    if not 0 <= answer <= s:
        raise WitnessError(f"answer {answer} is outside {{0, …, {s}}}")
    return 0b01 | (word << 2) | (((1 << answer) - 1) << (2 + M))


def unintended_overlaps(words: tuple[int, ...], M: int, s: int):
    """Every overlap at a query token except with its own database tokens, with what it is.

    Yields ``(i, what, overlap)`` for query word ``i``: ``what`` is
    ``("query", j)`` (including ``j = i``, the self-overlap) or ``("database", j, k)``
    for ``j ≠ i``.
    """
    for i, S in enumerate(words):
        qs = query_token(S, M, s)
        for j, T in enumerate(words):
            yield i, ("query", j), (qs & query_token(T, M, s)).bit_count()
            if j != i:
                for k in range(s + 1):
                    yield i, ("database", j, k), (qs & database_token(T, k, M, s)).bit_count()


@dataclass(frozen=True)
class TranscriptFamily:
    """The C.3 family: words, ``s``, the inputs, and the smallest unintended overlap."""

    words: tuple[int, ...]
    M: int
    s: int
    inputs: tuple[Input, ...]
    min_unintended_overlap: int

    @property
    def m(self) -> int:
        """Token length ``2 + M + s``."""
        return 2 + self.M + self.s

    @property
    def queries(self) -> int:
        """``q``, the number of query (and database) tokens per input."""
        return len(self.words)


def transcript_family(code: ConstantWeightCode, s: int, queries: int | None = None) -> TranscriptFamily:
    """Every assignment of answers ``{0,…,s}^q``, queried at each query token (C.3).

    Parameters
    ----------
    code : ConstantWeightCode
        Words ``S ⊆ [M]`` of one size ``h``; the first ``q`` are used.
    s : int
        Answers range over ``{0, …, s}``, ``s ≥ 1``.
    queries : int, optional
        ``q`` (default: every word of the code).

    Returns
    -------
    TranscriptFamily
        ``q·(s+1)^q`` inputs of length ``2q``: assignments in lexicographic order,
        and for each the ``q`` queried positions in order.

    Raises
    ------
    WitnessError
        If ``s < 1``, ``q`` is out of range, or some unintended overlap is ``≤ s``
        (the message names the query and the token).
    """
    if not isinstance(s, int) or s < 1:
        raise WitnessError(f"Argument 's' must be an int ≥ 1, not {s!r}")
    q = code.size if queries is None else queries
    if not isinstance(q, int) or not 1 <= q <= code.size:
        raise WitnessError(f"Argument 'queries' must be an int in [1, {code.size}] (the code's size), not {q!r}")
    words, M = code.words[:q], code.length
    low = None
    for i, what, ov in unintended_overlaps(words, M, s):
        if ov <= s:
            other = f"query token {what[1]}" if what[0] == "query" else f"database token (word {what[1]}, answer {what[2]})"
            raise WitnessError(f"query token {i} has overlap {ov} ≤ s = {s} with {other}: "
                               f"the code needs directed distance ≥ s + 1 = {s + 1}")
        low = ov if low is None else min(low, ov)
    m = 2 + M + s
    qtoks = tuple(query_token(S, M, s) for S in words)
    inputs = []
    for answers in product(range(s + 1), repeat=q):
        toks = qtoks + tuple(database_token(S, k, M, s) for S, k in zip(words, answers))
        for i in range(q):
            X = Input(toks, i, m)
            if X.target != answers[i]:  # guaranteed by the overlap check above; recomputed, not trusted
                raise WitnessError(f"input {answers} at query {i}: target {X.target}, expected answer {answers[i]}")
            inputs.append(X)
    return TranscriptFamily(words, M, s, tuple(inputs), low)
