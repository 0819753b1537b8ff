"""Codes by name: ``rank-nine``, ``hadamard:ORDER[:T]``, ``greedy:M:Δ[:T]`` (docs/math.md §5–§7).

The command line names a code with one of these specifications; the first ``T`` words
are kept when ``T`` is given.

* ``rank-nine`` — rows 1–15 of the normalized Paley Hadamard matrix of order 24;
* ``hadamard:ORDER`` — rows ``1 … ORDER−1`` of the normalized Paley Hadamard matrix
  (``ORDER − 1`` a prime ``≡ 3 mod 4``): weight ``ORDER/2``, directed distance ``ORDER/4``;
* ``greedy:M:Δ`` — the greedy colex code of length ``M``, weight ``M/2``, directed
  distance ``≥ Δ`` (with ``T``, the scan stops after ``T`` words).

>>> code = code_from_spec("greedy:24:7:6")
>>> code.size, code.min_distance, dict(code.distance_counts)
(6, 7, {7: 30})
>>> code_from_spec("hadamard:20:4").words == code_from_spec("hadamard:20").words[:4]
True
>>> code_from_spec("golay")
Traceback (most recent call last):
...
codes.constant_weight.CodeError: unknown code 'golay'; use rank-nine, hadamard:ORDER[:T] or greedy:M:Δ[:T]
"""
from __future__ import annotations

from .constant_weight import CodeError, ConstantWeightCode, greedy_code
from .hadamard import hadamard_code, rank_nine_code

__all__ = ["code_from_spec", "MAX_SPEC_LENGTH", "MAX_ORDER"]

MAX_SPEC_LENGTH = 24  # M of a greedy code: its scan visits up to C(M, M/2) words (2.7 million at 24, about a second)
MAX_ORDER = 128  # Paley construction checks H·Hᵀ exactly: order³ operations


def _ints(parts: list[str], spec: str) -> list[int]:
    try:
        return [int(p) for p in parts]
    except ValueError:
        raise CodeError(f"code {spec!r}: expected integers after the name") from None


def code_from_spec(spec: str) -> ConstantWeightCode:
    """The code a specification names (see the module docstring).

    Raises
    ------
    CodeError
        On an unknown name, non-integer or out-of-range parameters, or ``T`` larger than
        the code.
    """
    name, *rest = spec.split(":")
    if name == "rank-nine" and not rest:
        return rank_nine_code()
    if name == "hadamard" and len(rest) in (1, 2):
        order, *cap = _ints(rest, spec)
        if not 4 <= order <= MAX_ORDER:
            raise CodeError(f"code {spec!r}: ORDER must be between 4 and {MAX_ORDER}, not {order}")
        try:
            code = hadamard_code(order, with_complements=False)
        except ValueError as exc:
            raise CodeError(f"code {spec!r}: {exc}") from None
    elif name == "greedy" and len(rest) in (2, 3):
        M, delta, *cap = _ints(rest, spec)
        if not 2 <= M <= MAX_SPEC_LENGTH or M % 2 or not 1 <= delta <= M // 2:
            raise CodeError(f"code {spec!r}: need an even M in [2, {MAX_SPEC_LENGTH}] and 1 ≤ Δ ≤ M/2")
        if cap and cap[0] < 1:
            raise CodeError(f"code {spec!r}: T must be ≥ 1, not {cap[0]}")
        return greedy_code(M, M // 2, delta, cap[0] if cap else None)
    else:
        raise CodeError(f"unknown code {spec!r}; use rank-nine, hadamard:ORDER[:T] or greedy:M:Δ[:T]")
    if cap:
        T = cap[0]
        if not 1 <= T <= code.size:
            raise CodeError(f"code {spec!r}: T must be between 1 and {code.size}, not {T}")
        code = ConstantWeightCode(code.length, code.weight, code.words[:T], f"{code.description} (first {T})")
    return code
