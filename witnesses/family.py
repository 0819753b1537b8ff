"""Witness families: every chain of a code, its jumps and its inputs, deduplicated (A.2, §6.1).

>>> from codes import rank_nine_code
>>> fam = build_family(rank_nine_code(), "paper")
>>> len(fam.chains), len(fam.jumps), 3 * len(fam.jumps), len(fam.inputs)
(210, 420, 1260, 855)
>>> fam = build_family(rank_nine_code(), "direct")
>>> len(fam.jumps), len(fam.inputs)
(210, 435)
>>> build_family(rank_nine_code(), "best")
Traceback (most recent call last):
...
witnesses.inputs.WitnessError: unknown chain plan 'best'; choose one of: direct, paper
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Callable

from codes import ConstantWeightCode, rank_nine_code

from .chains import PLANS, ChainPlan, Jump, pair_chain
from .inputs import Input, WitnessError

__all__ = ["Chain", "WitnessFamily", "build_family", "rank_nine_family"]


@dataclass(frozen=True)
class Chain:
    """The chain of ordered pair ``(source, target)`` (word indices) as indices into the family's jumps."""

    source: int
    target: int
    jumps: tuple[int, ...]


@dataclass(frozen=True)
class WitnessFamily:
    """A code with one chain per ordered pair, the distinct jumps and the distinct inputs.

    Attributes
    ----------
    code : ConstantWeightCode
    length : int
        Exact input length ``n ≥ 3``.
    plan : str
        Name of the chain plan.
    jumps : tuple of Jump
        Distinct jumps, in order of first use.
    witnesses : tuple of tuple of int
        For each jump, the indices of its witness inputs in ``inputs``: ``Y, Z, W``
        (weight domination, A.2), or ``Y, Z, M₀, M₁`` for the unique-minimizer family
        (A.4, :mod:`witnesses.unique_minimizer`).
    chains : tuple of Chain
        One per ordered pair ``(S, U)``, ``S ≠ U``, in lexicographic order.
    inputs : tuple of Input
        Distinct witness inputs, in order of first use.
    """

    code: ConstantWeightCode
    length: int
    plan: str
    jumps: tuple[Jump, ...]
    witnesses: tuple[tuple[int, ...], ...]
    chains: tuple[Chain, ...]
    inputs: tuple[Input, ...]


def build_family(
    code: ConstantWeightCode, plan: str | ChainPlan = "paper", length: int = 3, plan_name: str | None = None,
    witnesses: Callable[[Jump], tuple[Input, ...]] | None = None,
) -> WitnessFamily:
    """Build the witness family of ``code`` under a chain plan (A.2; §6.1).

    Parameters
    ----------
    code : ConstantWeightCode
        Words ``x_S``; the preferred key of ``x_S`` is ``x_{S^c}``.
    plan : str or callable
        ``"paper"``, ``"direct"``, or a function from the overlap rise ``d`` to the
        chain's levels ``(0, …, d)``.
    length : int
        Exact input length ``n ≥ 3``.
    plan_name : str, optional
        The name recorded for a callable ``plan``.
    witnesses : callable, optional
        The inputs a jump needs; default ``jump.witnesses(length)`` (the three
        witnesses of weight domination). :func:`witnesses.unique_minimizer.jump_inputs`
        gives the four inputs of A.4 instead.

    Raises
    ------
    WitnessError
        On an unknown plan, a code with fewer than two words, or a plan that cannot
        bridge some pair.
    """
    if isinstance(plan, str):
        if plan not in PLANS:
            raise WitnessError(f"unknown chain plan {plan!r}; choose one of: {', '.join(sorted(PLANS))}")
        name, levels = plan, PLANS[plan]
    else:
        name, levels = plan_name or getattr(plan, "__name__", "custom"), plan
    if code.size < 2:
        raise WitnessError("a witness family needs a code of at least two words")
    m = code.length
    jump_index: dict[Jump, int] = {}
    input_index: dict[Input, int] = {}
    jumps: list[Jump] = []
    wit_index: list[tuple[int, ...]] = []
    make = witnesses if witnesses is not None else (lambda jump: jump.witnesses(length))
    inputs: list[Input] = []
    chains: list[Chain] = []

    def add_input(x: Input) -> int:
        if x not in input_index:
            input_index[x] = len(inputs)
            inputs.append(x)
        return input_index[x]

    for i, s in enumerate(code.words):
        for j, u in enumerate(code.words):
            if i == j:
                continue
            ids = []
            for jump in pair_chain(s, u, m, levels):
                if jump not in jump_index:
                    jump_index[jump] = len(jumps)
                    jumps.append(jump)
                    wit_index.append(tuple(add_input(w) for w in make(jump)))
                ids.append(jump_index[jump])
            chains.append(Chain(i, j, tuple(ids)))
    return WitnessFamily(code, length, name, tuple(jumps), tuple(wit_index), tuple(chains), tuple(inputs))


def rank_nine_family(plan: str = "paper") -> WitnessFamily:
    """The rank-nine witness family: the fixed 15-word code under ``plan`` at length 3 (§6.1)."""
    return build_family(rank_nine_code(), plan, 3)
