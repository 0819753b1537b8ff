"""Jumps, their three witnesses, and overlap chains between codeword keys (docs/math.md §3–§6).

A **jump** is a triple of tokens ``(x, y, z)`` with ``⟨x,y⟩ < ⟨x,z⟩ ≤ ⟨x,x⟩``; its gap
is ``d = ⟨x,z⟩ − ⟨x,y⟩``. At exact length ``n`` its witnesses are

    Y = (x, y, …, y),  Z = (x, z, …, z),  W = (x, y, z, …, z)      (query at position 0)

with targets ``t, u, t`` (weight domination, A.2; at ``n = 3`` these are the §6.1
triples ``(x,y,y)``, ``(x,z,z)``, ``(x,y,z)``). What the jump *proves* — the factor
``μ_d`` — is arithmetic and lives in ``certify.lemmas.domination``.

A **chain** for an ordered codeword pair ``(S, U)`` runs from ``x_{S^c}`` (overlap 0
with ``x_S``) to ``x_{U^c}`` (overlap ``d = |S \\ U|``) through keys of increasing
overlap. Our intermediate keys stay in the middle layer: the key at level ``ℓ`` is
``(S^c \\ Q_ℓ) ∪ P_ℓ`` where ``P_ℓ`` holds the ``ℓ`` smallest coordinates of
``S \\ U`` and ``Q_ℓ`` the ``ℓ`` smallest of ``U \\ S``; it has weight ``|S^c|`` and
overlap ``ℓ`` with ``x_S``, and at ``ℓ = d`` it is exactly ``x_{U^c}``.

Chain plans choose the levels for an overlap rise ``d``:

* ``paper`` (§6.1): levels ``0, 3, 6, …, 3(k−1), d`` with ``k = ⌊d/3⌋`` — jumps of gap
  3 (the last one 3–5), each worth at least the paper's factor 2 at length 3;
* ``direct``: one jump ``0 → d``.

>>> paper_levels(6), paper_levels(8), direct_levels(6)
((0, 3, 6), (0, 3, 8), (0, 6))
>>> Jump(0b0011, 0b0110, 0b0100, 4)
Traceback (most recent call last):
...
witnesses.inputs.WitnessError: not a jump: ⟨x,y⟩ = 1 must be < ⟨x,z⟩ = 0 ≤ ⟨x,x⟩ = 2
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Callable

from codes import complement, overlap

from .inputs import Input, WitnessError

__all__ = [
    "Jump",
    "ChainPlan",
    "paper_levels",
    "direct_levels",
    "PLANS",
    "interpolating_key",
    "pair_chain",
]

ChainPlan = Callable[[int], tuple[int, ...]]


@dataclass(frozen=True)
class Jump:
    """A validated jump ``(x, y, z)`` on ``m``-bit tokens: ``⟨x,y⟩ < ⟨x,z⟩ ≤ ⟨x,x⟩`` (A.2)."""

    x: int
    y: int
    z: int
    m: int

    def __post_init__(self) -> None:
        t, u, s = overlap(self.x, self.y), overlap(self.x, self.z), overlap(self.x, self.x)
        if not t < u <= s:
            raise WitnessError(
                f"not a jump: ⟨x,y⟩ = {t} must be < ⟨x,z⟩ = {u} ≤ ⟨x,x⟩ = {s}"
            )

    @property
    def low(self) -> int:
        """``t = ⟨x,y⟩``, the overlap of the better (preferred) key."""
        return overlap(self.x, self.y)

    @property
    def high(self) -> int:
        """``u = ⟨x,z⟩``, the overlap of the worse key."""
        return overlap(self.x, self.z)

    @property
    def gap(self) -> int:
        """``d = u − t ≥ 1``."""
        return self.high - self.low

    def witnesses(self, length: int = 3) -> tuple[Input, Input, Input]:
        """The three witness inputs ``(Y, Z, W)`` at exact length ``n = length ≥ 3`` (A.2)."""
        if not isinstance(length, int) or length < 3:
            raise WitnessError(f"witnesses need an exact length n ≥ 3, not {length!r}")
        x, y, z, m = self.x, self.y, self.z, self.m
        return (
            Input((x,) + (y,) * (length - 1), 0, m),
            Input((x,) + (z,) * (length - 1), 0, m),
            Input((x, y) + (z,) * (length - 2), 0, m),
        )


def paper_levels(d: int) -> tuple[int, ...]:
    """Levels ``0, 3, …, 3(k−1), d`` with ``k = ⌊d/3⌋`` jumps (§6.1: overlap jumps of at least three)."""
    if d < 3:
        raise WitnessError(f"the paper plan needs an overlap rise of at least 3, not {d}")
    k = d // 3
    return tuple(3 * i for i in range(k)) + (d,)


def direct_levels(d: int) -> tuple[int, ...]:
    """One jump ``0 → d`` (docs/math.md §6, "direct jumps")."""
    if d < 1:
        raise WitnessError(f"a direct jump needs an overlap rise of at least 1, not {d}")
    return (0, d)


PLANS: dict[str, ChainPlan] = {"paper": paper_levels, "direct": direct_levels}


def interpolating_key(s: int, u: int, level: int, m: int) -> int:
    """The middle-layer key at overlap ``level`` with ``x_S`` on the way from ``x_{S^c}`` to ``x_{U^c}``.

    ``(S^c \\ Q) ∪ P`` with ``P`` the ``level`` smallest coordinates of ``S \\ U`` and
    ``Q`` the ``level`` smallest of ``U \\ S``. For ``|S| = |U|`` the key has weight
    ``|S^c|`` and at ``level = |S \\ U|`` it is ``x_{U^c}``. For words of unequal weight
    ``Q`` is all of ``U \\ S`` when that has fewer than ``level`` coordinates; the
    overlap with ``x_S`` is ``level`` either way (``Q`` lies outside ``S``).
    """
    if (s & ~u).bit_count() < level:
        raise WitnessError(f"no key at level {level}: |S \\ U| = {(s & ~u).bit_count()}")
    return (complement(s, m) | _lowest(s & ~u, level)) & ~_lowest(u & ~s, level)


def _lowest(a: int, count: int) -> int:
    """The ``count`` lowest set bits of ``a`` (all of them if it has fewer)."""
    rest = a
    for _ in range(count):
        rest &= rest - 1  # drop the lowest set bit (0 stays 0)
    return a ^ rest


def pair_chain(s: int, u: int, m: int, plan: ChainPlan) -> tuple[Jump, ...]:
    """The chain of jumps from ``x_{S^c}`` to ``x_{U^c}`` for query ``x_S`` (A.2, §6.1).

    Raises
    ------
    WitnessError
        If ``|S| ≠ |U|``, the plan's levels are not ``0 = ℓ_0 < … < ℓ_k = |S \\ U|``,
        or a step is not a jump.
    """
    if s.bit_count() != u.bit_count():
        raise WitnessError("chain endpoints need codewords of equal weight")
    d = (s & ~u).bit_count()
    levels = tuple(plan(d))
    if levels[0] != 0 or levels[-1] != d or any(a >= b for a, b in zip(levels, levels[1:])):
        raise WitnessError(f"plan levels {levels} do not rise strictly from 0 to {d}")
    keys = [interpolating_key(s, u, level, m) for level in levels]
    return tuple(Jump(s, a, b, m) for a, b in zip(keys, keys[1:]))
