"""Inputs of the Min-IP task and their targets (docs/math.md §1).

An input is a sequence of tokens with a 0-based queried position ``i``; its target is
``t_i(X) = min_j ⟨x_i, x_j⟩``, the minimum including ``j = i``.

>>> from codes import from_bits
>>> X = Input((from_bits("1110"), from_bits("1000"), from_bits("0110")), query=0, m=4)
>>> X.target
1
>>> X.to_json()
{'tokens': ['1110', '1000', '0110'], 'query': 0, 'target': 1}
>>> Input((1, 2), query=2, m=4)
Traceback (most recent call last):
...
witnesses.inputs.WitnessError: query position 2 is out of range for an input of length 2
"""
from __future__ import annotations

from dataclasses import dataclass
from functools import cached_property
from typing import Any, Mapping

from codes import TokenFormatError, from_bits, overlap, to_bits

__all__ = ["WitnessError", "Input", "min_ip_target"]


class WitnessError(ValueError):
    """An input, jump, chain or family violates its definition; the message says which."""


def min_ip_target(tokens: tuple[int, ...], query: int) -> int:
    """Min-IP target ``t_i(X) = min_j ⟨x_i, x_j⟩`` (docs/math.md §1; the minimum includes ``j = i``)."""
    xi = tokens[query]
    return min(overlap(xi, xj) for xj in tokens)


@dataclass(frozen=True)
class Input:
    """One input: tokens (bitmasks of length ``m``) and the 0-based queried position.

    Raises
    ------
    WitnessError
        If there are no tokens, a token does not fit in ``m`` bits, or the query
        position is out of range.
    """

    tokens: tuple[int, ...]
    query: int
    m: int

    def __post_init__(self) -> None:
        object.__setattr__(self, "tokens", tuple(self.tokens))
        if not self.tokens:
            raise WitnessError("an input needs at least one token")
        if not isinstance(self.query, int) or not 0 <= self.query < len(self.tokens):
            raise WitnessError(
                f"query position {self.query} is out of range for an input of length {len(self.tokens)}"
            )
        for k, x in enumerate(self.tokens):
            if not isinstance(x, int) or x < 0 or x >> self.m:
                raise WitnessError(f"token {k} ({x!r}) is not a token of length {self.m}")

    @property
    def length(self) -> int:
        """``N``, the number of tokens."""
        return len(self.tokens)

    @cached_property
    def target(self) -> int:
        """The Min-IP target at the queried position."""
        return min_ip_target(self.tokens, self.query)

    def to_json(self) -> dict[str, Any]:
        """The input as it appears in certificate and family files."""
        return {
            "tokens": [to_bits(x, self.m) for x in self.tokens],
            "query": self.query,
            "target": self.target,
        }

    @classmethod
    def from_json(cls, obj: Mapping[str, Any], m: int) -> "Input":
        """Read ``{"tokens": [...], "query": i}`` (a ``target``, if present, must be right)."""
        try:
            tokens = tuple(from_bits(s, m) for s in obj["tokens"])
        except (TokenFormatError, KeyError, TypeError) as exc:
            raise WitnessError(f"bad input {obj!r}: {exc}") from None
        x = cls(tokens, obj.get("query"), m)
        if "target" in obj and obj["target"] != x.target:
            raise WitnessError(f"input {obj!r}: stated target {obj['target']}, actual {x.target}")
        return x
