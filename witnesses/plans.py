"""Chain plans by directed distance, with canonical keys; the families they generate (docs/math.md §4–§6).

A **gap plan** gives, for every directed distance ``d`` that occurs in a code, the
gaps ``(g_1, …, g_k)`` (positive, summing to ``d``) of the chain that bridges an ordered
pair ``(S, U)`` at that distance: the chain's keys have overlaps ``0, g_1, g_1 + g_2, …,
d`` with the query ``x_S``. The keys themselves are fixed by one canonical rule, so a
plan and a code determine the whole witness family — this is what lets a compact
certificate (format version 2, docs/certificate-format.md) carry only the code and the
plan.

**Key rule** ``codewords-first``: for the pair ``(S, U)`` the first key is ``x_{S^c}``
and the last is ``x_{U^c}``; the key at an intermediate level ``ℓ`` is

* ``x_{V^c}`` for the first codeword ``V`` (in code order) with ``|S \\ V| = ℓ``, when
  there is one — such keys are shared by every chain of the query, so jumps and
  inputs repeat and the family is smaller;
* otherwise the interpolated key :func:`witnesses.interpolating_key` ``(S, U, ℓ)``:
  ``x_{S^c}`` with the ``ℓ`` smallest coordinates of ``S \\ U`` switched on and the
  ``ℓ`` smallest of ``U \\ S`` (all of them, if fewer) switched off.

Either way the key has overlap exactly ``ℓ`` with ``x_S``, so every step is a jump
(weight domination, A.2; docs/math.md §3) and the factors depend only on the gaps.

Plans: ``paper`` (gaps of 3, the last one 3–5; §6.1), ``direct`` (one jump), and any
mapping ``d → gaps`` (``certify`` computes the best one, docs/math.md §4).

>>> from codes import rank_nine_code
>>> plan = GapPlan.from_rule("paper", {6}, paper_gaps)
>>> plan.to_json()
[{'distance': 6, 'gaps': [3, 3]}]
>>> fam = build_planned_family(rank_nine_code(), plan)
>>> len(fam.jumps), len(fam.inputs), planned_counts(rank_nine_code(), plan)
(420, 855, (420, 855))
>>> GapPlan("custom", ((6, (2, 3)),))
Traceback (most recent call last):
...
witnesses.inputs.WitnessError: plan 'custom': gaps (2, 3) for distance 6 must be positive and sum to 6
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Callable, Iterable, Iterator, Mapping

from .chains import Jump, interpolating_key, paper_levels
from .family import Chain, WitnessFamily
from .inputs import Input, WitnessError

__all__ = [
    "KEY_RULE",
    "GapPlan",
    "paper_gaps",
    "direct_gaps",
    "first_at_level",
    "planned_keys",
    "build_planned_family",
    "iter_planned_inputs",
    "planned_counts",
    "planned_query_tokens",
]

#: The only key rule: a codeword's complement where one sits at the level, else the interpolated key.
KEY_RULE = "codewords-first"


def paper_gaps(d: int) -> tuple[int, ...]:
    """Gaps of the paper plan: ``⌊d/3⌋`` jumps of gap 3, the last one 3–5 (§6.1)."""
    levels = paper_levels(d)
    return tuple(b - a for a, b in zip(levels, levels[1:]))


def direct_gaps(d: int) -> tuple[int, ...]:
    """One jump across the whole rise."""
    if d < 1:
        raise WitnessError(f"a direct jump needs an overlap rise of at least 1, not {d}")
    return (d,)


@dataclass(frozen=True)
class GapPlan:
    """Gaps per directed distance: ``entries = ((d, (g_1, …, g_k)), …)``, sorted by ``d``.

    Raises
    ------
    WitnessError
        If a distance repeats or is below 1, or its gaps are not positive integers
        summing to it.
    """

    name: str
    entries: tuple[tuple[int, tuple[int, ...]], ...]

    def __post_init__(self) -> None:
        entries = tuple(sorted((d, tuple(g)) for d, g in self.entries))
        object.__setattr__(self, "entries", entries)
        seen = set()
        for d, gaps in entries:
            if not isinstance(d, int) or d < 1 or d in seen:
                raise WitnessError(f"plan {self.name!r}: distance {d!r} is repeated or not a positive int")
            seen.add(d)
            if not gaps or any(not isinstance(g, int) or g < 1 for g in gaps) or sum(gaps) != d:
                raise WitnessError(f"plan {self.name!r}: gaps {gaps} for distance {d} must be positive and sum to {d}")

    @classmethod
    def from_rule(cls, name: str, distances: Iterable[int], rule: Callable[[int], tuple[int, ...]]) -> "GapPlan":
        """The plan that applies ``rule(d)`` to each distance (``WitnessError`` if the rule cannot bridge one)."""
        return cls(name, tuple((d, tuple(rule(d))) for d in sorted(set(distances))))

    @property
    def gaps(self) -> dict[int, tuple[int, ...]]:
        """``{d: gaps}``."""
        return dict(self.entries)

    def levels(self, d: int) -> tuple[int, ...]:
        """``(0, g_1, g_1 + g_2, …, d)`` for distance ``d``."""
        gaps = self.gaps.get(d)
        if gaps is None:
            raise WitnessError(f"plan {self.name!r} has no entry for directed distance {d}")
        out = [0]
        for g in gaps:
            out.append(out[-1] + g)
        return tuple(out)

    def to_json(self) -> list[dict[str, Any]]:
        """The plan as it appears in a compact certificate."""
        return [{"distance": d, "gaps": list(g)} for d, g in self.entries]


def first_at_level(i: int, words: tuple[int, ...]) -> dict[int, int]:
    """``{ℓ: j}``: the first word ``j ≠ i`` at directed distance ``ℓ`` from word ``i`` (``ℓ = 0``: word ``i`` lies inside ``j``)."""
    s = words[i]
    first: dict[int, int] = {}
    for j, u in enumerate(words):
        d = (s & ~u).bit_count()
        if j != i and d not in first:
            first[d] = j
    return first


def planned_keys(i: int, j: int, words: tuple[int, ...], m: int, levels: tuple[int, ...], first: Mapping[int, int]) -> tuple[int, ...]:
    """The keys ``x_{S^c} = y_0, y_1, …, y_k = x_{U^c}`` of pair ``(i, j)`` under the ``codewords-first`` rule."""
    full = (1 << m) - 1
    s, u = words[i], words[j]
    keys = [full ^ s]
    for level in levels[1:-1]:
        v = first.get(level)
        keys.append(full ^ words[v] if v is not None else interpolating_key(s, u, level, m))
    keys.append(full ^ u)
    return tuple(keys)


def query_part(code, plan: GapPlan, length: int, i: int):
    """Chains, distinct jumps (with witness indices) and distinct inputs of query ``i``, in order of first use."""
    words, m = code.words, code.length
    first = first_at_level(i, words)
    s = words[i]
    jump_index: dict[Jump, int] = {}
    input_index: dict[Input, int] = {}
    jumps: list[Jump] = []
    witnesses: list[tuple[int, int, int]] = []
    inputs: list[Input] = []
    chains: list[tuple[int, tuple[int, ...]]] = []
    for j, u in enumerate(words):
        if j == i:
            continue
        keys = planned_keys(i, j, words, m, plan.levels((s & ~u).bit_count()), first)
        ids = []
        for y, z in zip(keys, keys[1:]):
            jump = Jump(s, y, z, m)
            if jump not in jump_index:
                jump_index[jump] = len(jumps)
                jumps.append(jump)
                wit = []
                for x in jump.witnesses(length):
                    if x not in input_index:
                        input_index[x] = len(inputs)
                        inputs.append(x)
                    wit.append(input_index[x])
                witnesses.append(tuple(wit))
            ids.append(jump_index[jump])
        chains.append((j, tuple(ids)))
    return chains, jumps, witnesses, inputs


def build_planned_family(code, plan: GapPlan, length: int = 3) -> WitnessFamily:
    """The explicit witness family of ``code`` under ``plan`` (A.2, §6.1; for small codes).

    Jumps and inputs are listed in order of first use, query by query; inputs of
    different queries differ in their first token, so deduplicating per query is
    deduplicating globally.

    Raises
    ------
    WitnessError
        On a code of fewer than two words, a distance without a plan entry, or a step
        that is not a jump (a pair at directed distance 0: one word inside another).
    """
    if code.size < 2:
        raise WitnessError("a witness family needs a code of at least two words")
    all_jumps: list[Jump] = []
    all_wit: list[tuple[int, int, int]] = []
    all_inputs: list[Input] = []
    chains: list[Chain] = []
    for i in range(code.size):
        part_chains, jumps, witnesses, inputs = query_part(code, plan, length, i)
        j0, x0 = len(all_jumps), len(all_inputs)
        chains += [Chain(i, j, tuple(j0 + k for k in ids)) for j, ids in part_chains]
        all_wit += [tuple(x0 + k for k in w) for w in witnesses]
        all_jumps += jumps
        all_inputs += inputs
    return WitnessFamily(code, length, plan.name, tuple(all_jumps), tuple(all_wit), tuple(chains), tuple(all_inputs))


def iter_planned_inputs(code, plan: GapPlan, length: int = 3) -> Iterator[Input]:
    """The inputs of :func:`build_planned_family`, in the same order, one query at a time (bounded memory)."""
    for i in range(code.size):
        yield from query_part(code, plan, length, i)[3]


def planned_counts(code, plan: GapPlan, progress: Callable[[int], None] | None = None) -> tuple[int, int]:
    """``(jumps, inputs)`` of the planned family at any length ``n ≥ 3``, without building it.

    The inputs of a query are one ``(x, y, …, y)`` per key ``y`` on its chains and one
    ``(x, y, z, …, z)`` per jump (``y ≠ z``, so the two kinds never coincide); queries
    never share inputs. Plain-int keys and sets: the 2,576 Golay dodecads take seconds.
    ``progress(i)`` is called after each query, if given.

    Raises
    ------
    WitnessError
        On a distance without a plan entry or a pair at directed distance 0.
    """
    n_jumps = n_inputs = 0
    for i, (keys, jumps) in enumerate(iter_query_sets(code, plan)):
        n_jumps += len(jumps)
        n_inputs += len(jumps) + len(keys)
        if progress is not None:
            progress(i + 1)
    return n_jumps, n_inputs


def planned_query_tokens(code, plan: GapPlan) -> Iterator[tuple[set[int], int, int]]:
    """Per query ``i`` (in code order): ``(tokens, inputs, jumps)`` — the set of tokens its inputs use, and their counts.

    The tokens are the query ``x_S`` and every key on its chains; the query has one input
    per key and one per jump (:func:`planned_counts`). Plain ints and sets, one query at a
    time: what ``certify check-kernel`` reads before streaming a compact family.
    """
    for i, (keys, jumps) in enumerate(iter_query_sets(code, plan)):
        yield keys | {code.words[i]}, len(keys) + len(jumps), len(jumps)


def iter_query_sets(code, plan: GapPlan) -> Iterator[tuple[set[int], set[tuple[int, int]]]]:
    """Per query: the set of keys on its chains and the set of its jumps ``(y, z)`` (see :func:`planned_counts`)."""
    words, m = code.words, code.length
    full = (1 << m) - 1
    levels = {d: plan.levels(d) for d, _ in plan.entries}
    for i, s in enumerate(words):
        first = first_at_level(i, words)
        keys: set[int] = {full ^ s}
        jumps: set[tuple[int, int]] = set()
        last: dict[int, int | None] = {}  # d → the key before x_{U^c} when it is shared (codeword keys only)
        for d, j in first.items():
            if d == 0:
                raise WitnessError(f"words {i} and {j}: word {i} lies inside word {j} (directed distance 0); no chain")
            if d not in levels:
                raise WitnessError(f"plan {plan.name!r} has no entry for directed distance {d} (pair {i}→{j})")
            inner = levels[d][1:-1]
            if all(a in first for a in inner):
                head = (full ^ s,) + tuple(full ^ words[first[a]] for a in inner)
                keys.update(head)
                jumps.update(zip(head, head[1:]))
                last[d] = head[-1]
            else:
                last[d] = None
        for j, u in enumerate(words):
            if j == i:
                continue
            d = (s & ~u).bit_count()
            y = last[d]
            if y is not None:
                keys.add(full ^ u)
                jumps.add((y, full ^ u))
            else:
                chain = planned_keys(i, j, words, m, levels[d], first)
                keys.update(chain)
                jumps.update(zip(chain, chain[1:]))
        yield keys, jumps
