"""Distinct tokens with a unique queried minimizer: the four inputs of A.4 (docs/math.md §7).

Tokens have ``m = M + 2`` coordinates: two type bits, then a word of length ``M``
(coordinates 0 and 1 are the type bits, coordinate ``2 + k`` is the word's coordinate
``k``)::

    q(x)  = (1, 1, x)      the query
    k₀(w) = (0, 0, w)      a key of type 0:  ⟨q(x), k₀(w)⟩ = ⟨x,w⟩
    k₁(w) = (1, 0, w)      a key of type 1:  ⟨q(x), k₁(w)⟩ = ⟨x,w⟩ + 1

For a jump ``(x, y, z)`` on ``M`` bits, ``t = ⟨x,y⟩ < t + d = ⟨x,z⟩ ≤ ⟨x,x⟩``, the four
inputs (query at position 0) are

    Y  = (q, k₀(y), k₁(y))   target t
    Z  = (q, k₀(z), k₁(z))   target t + d
    M₀ = (q, k₀(y), k₁(z))   target t
    M₁ = (q, k₀(z), k₁(y))   target t + 1

Each has three distinct tokens, and for ``d ≥ 2`` its minimum overlap at the query is
attained at exactly one position (``⟨q,q⟩ = ‖x‖₁ + 2`` is never the minimum). What the
four inputs prove — ``K(x,y) > ((d−1)/2)·K(x,z)`` for the effective kernel
``K(x,w) = α(q(x),k₀(w)) + 2α(q(x),k₁(w))`` — is arithmetic and lives in
``certify.lemmas.unique_minimizer``.

>>> from codes import from_bits
>>> x, y, z = from_bits("1111"), from_bits("1000"), from_bits("1110")
>>> [(X.tokens, X.target) for X in jump_inputs(Jump(x, y, z, 4))][3]
((63, 28, 5), 2)
>>> all(has_unique_minimizer(X) for X in jump_inputs(Jump(x, y, z, 4)))
True
>>> jump_inputs(Jump(x, from_bits("1100"), z, 4))
Traceback (most recent call last):
...
witnesses.inputs.WitnessError: the unique-minimizer inputs need a gap d ≥ 2, not 1 (M₁ would tie at t + 1)
"""
from __future__ import annotations

from codes import ConstantWeightCode

from .chains import ChainPlan, Jump
from .family import WitnessFamily, build_family
from .inputs import Input, WitnessError

__all__ = [
    "query_token",
    "key0",
    "key1",
    "jump_inputs",
    "has_unique_minimizer",
    "unique_minimizer_family",
]


def query_token(x: int) -> int:
    """``q(x) = (1, 1, x)`` on ``M + 2`` bits (A.4)."""
    return 0b11 | (x << 2)


def key0(w: int) -> int:
    """``k₀(w) = (0, 0, w)``: overlap ``⟨x,w⟩`` with ``q(x)`` (A.4)."""
    return w << 2


def key1(w: int) -> int:
    """``k₁(w) = (1, 0, w)``: overlap ``⟨x,w⟩ + 1`` with ``q(x)`` (A.4)."""
    return 0b01 | (w << 2)


def jump_inputs(jump: Jump) -> tuple[Input, Input, Input, Input]:
    """The four inputs ``Y, Z, M₀, M₁`` of a jump on ``M``-bit words, as ``(M+2)``-bit inputs (A.4).

    Raises
    ------
    WitnessError
        If the gap is 1: then ``M₁`` has two minimizers (overlaps ``t+1`` and ``t+1``).
    """
    if jump.gap < 2:
        raise WitnessError(f"the unique-minimizer inputs need a gap d ≥ 2, not {jump.gap} (M₁ would tie at t + 1)")
    q, m = query_token(jump.x), jump.m + 2
    y0, y1, z0, z1 = key0(jump.y), key1(jump.y), key0(jump.z), key1(jump.z)
    return (
        Input((q, y0, y1), 0, m),
        Input((q, z0, z1), 0, m),
        Input((q, y0, z1), 0, m),
        Input((q, z0, y1), 0, m),
    )


def has_unique_minimizer(X: Input) -> bool:
    """Whether ``X`` has pairwise distinct tokens and ``min_j ⟨x_i, x_j⟩`` is attained at one ``j`` only."""
    if len(set(X.tokens)) != len(X.tokens):
        return False
    xi = X.tokens[X.query]
    overlaps = [(xi & xj).bit_count() for xj in X.tokens]
    return overlaps.count(min(overlaps)) == 1


def unique_minimizer_family(code: ConstantWeightCode, plan: str | ChainPlan = "direct",
                            plan_name: str | None = None) -> WitnessFamily:
    """The A.4 family of a code: one chain per ordered pair, four inputs per jump, length 3.

    The jumps and chains are those of :func:`witnesses.build_family` on the ``M``-bit
    code (preferred key of ``x_S`` is ``x_{S^c}``); each jump contributes the four
    ``(M+2)``-bit inputs of :func:`jump_inputs` instead of the three witnesses of
    weight domination. ``family.code`` keeps the ``M``-bit words.

    Raises
    ------
    WitnessError
        As :func:`witnesses.build_family`, or if a chain step has gap 1.
    """
    return build_family(code, plan, 3, plan_name, witnesses=jump_inputs)
