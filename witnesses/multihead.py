"""The multihead replacement family at exact length ``H + 2`` (B.1; docs/math.md §9).

Fix a query ``x``, a better key ``y`` with ``t = ⟨x,y⟩`` and, for ``H`` heads, worse
keys ``z_1, …, z_H`` with ``⟨x,z_h⟩ > t``. The ``L = H + 1`` source slots hold
``(z_1, …, z_H, z_1)``; for each subset ``A ⊆ [L]`` the input ``X_A`` is the query
followed by the sources with the slots in ``A`` replaced by ``y``:

    X_A = (x, s_1, …, s_L),   s_j = y if j ∈ A else (z_1, …, z_H, z_1)_j

so every input has exact length ``H + 2``. ``X_∅`` has target
``min(⟨x,x⟩, ⟨x,z_h⟩) > t``; every other ``X_A`` has target ``t``. Subsets are numbered
by bitmask (slot ``j`` replaced when bit ``j`` is set), so ``inputs[a]`` is ``X_A``.

In B.1 the keys ``z_h`` come from a contradiction hypothesis (one per head), so a
family that must work for every head takes *every* ``H``-tuple of candidate keys:
:func:`multihead_family`. The finite-difference identity that makes the family work
(``Σ_A (−1)^{|A|} P(1_A) = 0`` for ``deg P ≤ L − 1``) is checked by
``certify identities``.

>>> from codes import from_bits
>>> x, y, z = from_bits("1111"), from_bits("0000"), from_bits("1100")
>>> group = replacement_inputs(x, y, (z,), 4)
>>> len(group), [X.target for X in group]
(4, [2, 0, 0, 0])
>>> group[0b10].tokens == (x, z, y)
True
>>> replacement_inputs(x, z, (y,), 4)
Traceback (most recent call last):
...
witnesses.inputs.WitnessError: source key 0 has overlap 0 with the query, not above ⟨x,y⟩ = 2
"""
from __future__ import annotations

from dataclasses import dataclass
from itertools import product

from .inputs import Input, WitnessError

__all__ = ["replacement_inputs", "MultiheadFamily", "multihead_family"]


def replacement_inputs(x: int, y: int, keys: tuple[int, ...], m: int, min_gap: int = 1) -> tuple[Input, ...]:
    """The ``2^L`` inputs ``X_A`` for one tuple of worse keys ``(z_1, …, z_H)`` (B.1).

    Parameters
    ----------
    x, y : int
        Query and better key (bitmasks of length ``m``).
    keys : tuple of int
        ``(z_1, …, z_H)``, ``H ≥ 1``; the source slots are ``(z_1, …, z_H, z_1)``.
    m : int
        Token length.
    min_gap : int
        Required ``⟨x,z_h⟩ − ⟨x,y⟩`` (B.1 uses ``g_H``; default 1).

    Raises
    ------
    WitnessError
        If some ``z_h`` is not at least ``min_gap`` above ``y`` in overlap with ``x``.
    """
    if not keys:
        raise WitnessError("the replacement family needs H ≥ 1 worse keys")
    t = (x & y).bit_count()
    for h, z in enumerate(keys):
        u = (x & z).bit_count()
        if u < t + min_gap:
            raise WitnessError(f"source key {h} has overlap {u} with the query, not above ⟨x,y⟩ = {t}"
                               + (f" by ≥ {min_gap}" if min_gap > 1 else ""))
    sources = tuple(keys) + (keys[0],)
    L = len(sources)
    out = []
    for a in range(1 << L):
        toks = (x,) + tuple(y if a >> j & 1 else s for j, s in enumerate(sources))
        out.append(Input(toks, 0, m))
    return tuple(out)


@dataclass(frozen=True)
class MultiheadFamily:
    """Replacement families for every ``H``-tuple of candidate keys, deduplicated.

    Attributes
    ----------
    x, y : int
        Query and better key.
    heads : int
        ``H``; inputs have exact length ``H + 2``.
    candidates : tuple of int
        The candidate worse keys.
    groups : tuple of (tuple of int, tuple of int)
        For each tuple ``(z_1, …, z_H)`` of candidates, the indices in ``inputs`` of
        ``X_A`` in subset-bitmask order.
    inputs : tuple of Input
        Distinct inputs, in order of first use.
    m : int
    """

    x: int
    y: int
    heads: int
    candidates: tuple[int, ...]
    groups: tuple[tuple[tuple[int, ...], tuple[int, ...]], ...]
    inputs: tuple[Input, ...]
    m: int


def multihead_family(x: int, y: int, candidates: tuple[int, ...], heads: int, m: int,
                     min_gap: int = 1) -> MultiheadFamily:
    """All replacement families ``X_A`` over ``H``-tuples of candidate worse keys (B.1).

    A head configuration that violates the conclusion of B.1 picks one key per head;
    whatever it picks, its ``2^L`` inputs are in this family.

    Raises
    ------
    WitnessError
        If ``heads < 1``, there are no candidates, or a candidate is not above ``y``.
    """
    if not isinstance(heads, int) or heads < 1:
        raise WitnessError(f"Argument 'heads' must be an int ≥ 1, not {heads!r}")
    cands = tuple(dict.fromkeys(candidates))
    if not cands:
        raise WitnessError("the multihead family needs at least one candidate key")
    index: dict[Input, int] = {}
    inputs: list[Input] = []
    groups = []
    for keys in product(cands, repeat=heads):
        ids = []
        for X in replacement_inputs(x, y, keys, m, min_gap):
            if X not in index:
                index[X] = len(inputs)
                inputs.append(X)
            ids.append(index[X])
        groups.append((keys, tuple(ids)))
    return MultiheadFamily(x, y, heads, cands, tuple(groups), tuple(inputs), m)
