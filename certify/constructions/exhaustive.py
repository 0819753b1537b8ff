"""Exhaustive exact checking of a construction over every input of the lengths it covers (docs/math.md §8).

A :class:`Construction` is one head (kernel, values, readout) given by formulas. This
module enumerates **every** sequence of every covered length over ``{0,1}^m``, at every
covered queried position, computes each prediction exactly and compares it with the
Min-IP target ``min_j ⟨x_i, x_j⟩`` (docs/math.md §1), which is computed here, not by
the construction.

Exactness. A construction's :meth:`Construction.batch` returns, for a block of inputs,
integer arrays ``num`` and ``den > 0`` with prediction ``= num/den`` exactly; the error is
``|num − t·den| / den`` and "error < 1/2" is the integer test ``2|num − t·den| < den``.
Every construction proves in its docstring that its integers stay below ``2^63``
(:meth:`Construction.int_bound`), and :func:`run` refuses parameters whose bound does not
fit, so numpy's ``int64`` arithmetic is exact. The maximum error is found exactly:
each block's ``(error numerator, denominator)`` pairs are reduced by their gcd, made
unique, and compared as ``Fraction``s. Each construction also has a slow literal
:meth:`Construction.predict` (``Fraction`` arithmetic on the head output vector, straight
from the definition); the worst input's prediction is recomputed with it, and the tests
compare the two on random inputs.

Sizes are refused up front: :func:`count_inputs` gives the number of inputs a run needs,
and :func:`run` raises :class:`ConstructionInputError` (exit 2) with that number when it
exceeds :data:`MAX_INPUTS`.

>>> count_inputs(2, (1, 2, 3), lambda n: range(n))
3·4³ + 2·4² + 4 = 228
>>> int(count_inputs(2, (3,), lambda n: (2,)))
64
"""
from __future__ import annotations

from dataclasses import dataclass, field
from fractions import Fraction
from typing import Any, Callable, Iterable, Sequence

from ..check import Progress, format_rational

__all__ = [
    "MAX_INPUTS",
    "MAX_M",
    "ConstructionInputError",
    "ConstructionError",
    "InputCount",
    "count_inputs",
    "Construction",
    "Result",
    "run",
    "popcount",
    "MAX_RANK_M",
    "domain_kernel_rank",
]

MAX_INPUTS = 250_000_000  # about two minutes on one core of the CI machine (docs/performance.md)
MAX_M = 30
_CHUNK = 1 << 17
_INT64 = 2**63


class ConstructionInputError(ValueError):
    """Bad parameters or a run that is too large (exit 2); the message says which and why."""


class ConstructionError(RuntimeError):
    """Two of our own computations disagree (exit 3): a bug, never the user's input."""


class InputCount(int):
    """The number of inputs of a run, printed as the sum it is (``3·4³ + 2·4² + 1·4 = 228``)."""

    terms: tuple[tuple[int, int, int], ...]

    def __new__(cls, terms: Sequence[tuple[int, int, int]]):
        obj = super().__new__(cls, sum(p * (b ** n) for p, b, n in terms))
        obj.terms = tuple(terms)
        return obj

    def __repr__(self) -> str:
        parts = [f"{p}·{b:,}{_sup(n)}" if p != 1 else f"{b:,}{_sup(n)}" for p, b, n in self.terms]
        return f"{' + '.join(parts)} = {int(self):,}"

    __str__ = __repr__


def _sup(n: int) -> str:
    return "" if n == 1 else str(n).translate(str.maketrans("0123456789", "⁰¹²³⁴⁵⁶⁷⁸⁹"))


def count_inputs(m: int, lengths: Iterable[int], positions: Callable[[int], Sequence[int]]) -> InputCount:
    """Inputs in a run: ``Σ_n |positions(n)| · (2^m)^n`` over the covered lengths (exact integer)."""
    return InputCount([(len(positions(n)), 1 << m, n) for n in sorted(lengths, reverse=True)])


def popcount(a):
    """Elementwise popcount of a non-negative integer numpy array (exact), as ``int64``."""
    import numpy as np

    if hasattr(np, "bitwise_count"):
        return np.bitwise_count(a).astype(np.int64)
    table = np.array([bin(k).count("1") for k in range(256)], dtype=np.int64)
    a = a.astype(np.uint64)
    out = np.zeros(a.shape, dtype=np.int64)
    for shift in range(0, 64, 8):
        out += table[(a >> np.uint64(shift)) & np.uint64(255)]
    return out


class Construction:
    """One head given by formulas; subclasses set the attributes and implement the methods.

    Attributes
    ----------
    name, title, reference : str
        Command name, one-line description, and where the paper states it.
    m : int
        Token length.
    lengths : tuple of int
        The exact lengths the run covers.
    feature_width : int
        The construction's feature rank ``r`` (``α = ⟨φ_Q, φ_K⟩`` with ``r`` features).
    """

    name = ""
    title = ""
    reference = ""

    def __init__(self, m: int, lengths: tuple[int, ...]) -> None:
        self.m = m
        self.lengths = lengths

    def positions(self, n: int) -> Sequence[int]:
        """Queried positions covered at length ``n`` (default: all)."""
        return range(n)

    @property
    def feature_width(self) -> int:
        raise NotImplementedError

    def int_bound(self) -> int:
        """An upper bound on every ``|num|``, ``den`` and ``m·den`` that :meth:`batch` forms."""
        raise NotImplementedError

    def batch(self, tokens, ov, query: int):
        """``(num, den)`` int64 arrays: prediction ``num/den`` on each row of ``tokens``.

        ``tokens`` is ``(k, n)`` int64 (bitmasks), ``ov[:, j] = ⟨x_query, x_j⟩``.
        """
        raise NotImplementedError

    def predict(self, tokens: tuple[int, ...], query: int) -> Fraction:
        """The prediction straight from the definition, with ``Fraction`` arithmetic (slow)."""
        raise NotImplementedError

    def features(self):
        """``(Φ_Q, Φ_K)`` over the whole domain ``{0,1}^m`` (row ``x`` = token with bitmask ``x``), exact ints.

        Positive per-query scalings of a row of ``α`` do not change predictions; the
        features may be such a scaling of the construction's kernel (each says so).
        """
        raise NotImplementedError

    def describe_enumeration(self, count: InputCount) -> str:
        lens = self.lengths
        span = f"length {lens[0]}" if len(lens) == 1 else f"every length {lens[0]}–{lens[-1]}"
        pos = {n: tuple(self.positions(n)) for n in lens}
        where = ("every queried position" if all(p == tuple(range(n)) for n, p in pos.items())
                 else "queried position " + ", ".join(f"{p[0] + 1} of {n}" for n, p in pos.items()))
        return (f"every sequence of {span} over {{0,1}}^{self.m} ({1 << self.m:,} tokens), {where}: "
                f"{count} inputs")


@dataclass
class Result:
    """The outcome of :func:`run`; ``to_json`` is the ``--json`` output."""

    construction: Construction
    parameters: dict[str, Any]
    enumerated: str
    inputs_checked: int
    solves: bool
    max_error: Fraction
    failing_inputs: int
    worst: dict[str, Any]
    error_below: Fraction = Fraction(1, 2)
    kernel_rank: int | None = None
    rank_notes: list[str] = field(default_factory=list)

    def to_json(self) -> dict[str, Any]:
        c = self.construction
        out = {
            "schema": "certify.construction/1",
            "construction": c.name,
            "title": c.title,
            "reference": c.reference,
            "parameters": self.parameters,
            "m": c.m,
            "lengths": list(c.lengths),
            "enumerated": self.enumerated,
            "inputs_checked": self.inputs_checked,
            "error_below": format_rational(self.error_below),
            "solves": self.solves,
            "max_error": format_rational(self.max_error),
            "max_error_decimal": float(self.max_error),
            "failing_inputs": self.failing_inputs,
            "worst_input": self.worst,
            "feature_width": c.feature_width,
        }
        if self.kernel_rank is not None:
            out["kernel_rank"] = self.kernel_rank
            out["kernel_rank_notes"] = self.rank_notes
        return out


def _bits(x: int, m: int) -> str:
    return format(x, f"0{m}b")[::-1] if m else ""


def _block_max(err, den):
    """Exact ``max err/den`` over a block and the first index attaining it (integers in, Fraction out)."""
    import numpy as np

    if not err.any():
        return Fraction(0), 0
    g = np.gcd(err, den)
    e, d = err // g, den // g
    top = int(d.max()) + 1
    if int(e.max()) * top + top < _INT64:  # one int64 key per reduced pair: a fast 1-D unique
        keys, first = np.unique(e * top + d, return_index=True)
        pairs = [(int(k) // top, int(k) % top) for k in keys]
    else:
        uniq, first = np.unique(np.stack([e, d], axis=1), axis=0, return_index=True)
        pairs = [(int(a), int(b)) for a, b in uniq]
    best = max(range(len(pairs)), key=lambda k: Fraction(*pairs[k]))
    return Fraction(*pairs[best]), int(first[best])


def run(c: Construction, parameters: dict[str, Any], progress: bool = True) -> Result:
    """Check ``c`` on every input of its lengths and positions; exact throughout.

    Raises
    ------
    ConstructionInputError
        If the run needs more than :data:`MAX_INPUTS` inputs, or the construction's
        integers could exceed ``int64`` at these parameters.
    ConstructionError
        If a denominator is not positive or the fast and literal predictions disagree.
    """
    import numpy as np

    count = count_inputs(c.m, c.lengths, c.positions)
    if count > MAX_INPUTS:
        raise ConstructionInputError(
            f"{c.name} at m = {c.m}, lengths {', '.join(map(str, c.lengths))}: the enumeration needs {count} inputs, "
            f"more than the limit of {MAX_INPUTS:,} (about two minutes); lower --m or the length")
    bound = c.int_bound()
    if bound >= _INT64:
        raise ConstructionInputError(
            f"{c.name} at m = {c.m}, lengths {', '.join(map(str, c.lengths))}: the exact integers could reach "
            f"{bound:.3e} ≥ 2^63 (int64); lower --m, the length or the degree")
    m, mask = c.m, (1 << c.m) - 1
    best: tuple[Fraction, tuple[int, ...], int] | None = None
    failing = done = 0
    bar = Progress(f"certify construction {c.name}", total=int(count), stream="stderr" if progress else None)
    for n in c.lengths:
        total = 1 << (m * n)
        for lo in range(0, total, _CHUNK):
            idx = np.arange(lo, min(lo + _CHUNK, total), dtype=np.int64)
            tokens = np.stack([(idx >> (m * j)) & mask for j in range(n)], axis=1)
            for i in c.positions(n):
                ov = popcount(tokens[:, i:i + 1] & tokens)
                target = ov.min(axis=1)
                num, den = c.batch(tokens, ov, i)
                if not (den > 0).all():
                    k = int(np.argmin(den > 0))
                    raise ConstructionError(f"{c.name}: denominator {int(den[k])} ≤ 0 on input "
                                            f"{tuple(int(v) for v in tokens[k])} at position {i}")
                err = np.abs(num - target * den)
                failing += int((2 * err >= den).sum())
                value, k = _block_max(err, den)
                if best is None or value > best[0]:
                    best = (value, tuple(int(v) for v in tokens[k]), i)
                done += len(idx)
                bar.update(done)
    bar.close()
    assert best is not None
    value, toks, i = best
    target = min((toks[i] & x).bit_count() for x in toks)
    prediction = c.predict(toks, i)
    if abs(prediction - target) != value:
        raise ConstructionError(f"{c.name}: fast path error {value}, literal prediction {prediction} "
                                f"(target {target}) on {toks} at position {i}")
    worst = {"tokens": [_bits(x, m) for x in toks], "query": i, "target": target,
             "prediction": format_rational(prediction), "error": format_rational(value)}
    return Result(c, parameters, c.describe_enumeration(count), int(count), failing == 0, value, failing, worst)


MAX_RANK_M = 10
_PRIME = 2**61 - 1  # nmod_mat modulus (a word-size prime)


def domain_kernel_rank(c: Construction) -> tuple[int, list[str]]:
    """Exact rank of ``c``'s kernel on all ``2^m × 2^m`` Boolean pairs, with how it was obtained.

    The kernel is formed from the features ``Φ_Q Φ_Kᵀ`` (exact integers). A rank equal
    to the full size ``2^m`` modulo a prime is the rank over ``Q`` (a nonzero minor mod
    ``p`` is nonzero); otherwise the rank over ``Q`` comes from python-flint's exact
    elimination (``factored_rank`` for a narrow factorization, ``fmpz_mat.rank``
    otherwise). Constructions with :meth:`kernel_matrix` (softmax) also have the kernel
    recomputed from its definition and compared with the features, and the Kronecker
    form checked.

    Raises
    ------
    ConstructionInputError
        If ``m > MAX_RANK_M`` or the integers could leave ``int64``.
    """
    import numpy as np
    from flint import fmpq_mat, fmpz_mat, nmod_mat

    from ..linalg.rank import factored_rank

    if c.m > MAX_RANK_M:
        raise ConstructionInputError(f"--rank needs m ≤ {MAX_RANK_M} (a 2^m × 2^m kernel), not m = {c.m}")
    PQ, PK = c.features()
    N, r = PQ.shape
    notes = []
    if r < N:
        rank = factored_rank(fmpq_mat(N, r, [int(v) for v in PQ.ravel()]), fmpq_mat(N, r, [int(v) for v in PK.ravel()]))
        notes.append(f"α = Φ_Q·Φ_Kᵀ with {r} feature(s); exact rank of the factorization (python-flint)")
        return rank, notes
    if int(np.abs(PQ).max()) * int(np.abs(PK).max()) * r >= _INT64:
        raise ConstructionInputError(f"--rank: the kernel's integers exceed int64 at m = {c.m}")
    K = PQ @ PK.T
    if hasattr(c, "kernel_matrix"):
        if not (K == c.kernel_matrix()).all():
            raise ConstructionError(f"{c.name}: Φ_Q·Φ_Kᵀ differs from the kernel's definition")
        notes.append(f"Φ_Q·Φ_Kᵀ equals the kernel at all {N * N:,} pairs (the factorization is exact)")
    if hasattr(c, "kronecker_check"):
        if not c.kronecker_check():
            raise ConstructionError(f"{c.name}: the kernel is not the stated Kronecker power")
        notes.append("the kernel is [[1, 1], [1, ρ]]^⊗m (scaled), ρ ≠ 1, so its rank is 2^m")
    rank = nmod_mat([[int(v) % _PRIME for v in row] for row in K.tolist()], _PRIME).rank()
    if rank == min(K.shape):
        notes.append(f"exact rank {rank}: full rank modulo the prime 2^61 − 1, hence over Q")
    else:
        rank = fmpz_mat(K.tolist()).rank()
        notes.append(f"exact rank {rank} over Q (python-flint fmpz_mat)")
    return rank, notes
