"""Checker of the upper side of r*(m, 3) by symmetric kernels (docs/math.md §11). Standard library only.

One of the trusted checkers (docs/architecture.md), with ``certify/check.py`` beside it (its
strict JSON reader, rational parser and process guard): ``python certify/check_symmetric.py FILE``.

A certificate ``{"schema": "certify.symmetric-kernel/1", "m": M, "parts": [a_1, …, a_p],
"blocks": [{"index": [k_1, …, k_p], "rank": r, "entries": [[q, …], …]} | {…, "left": L,
"right": R}, …], "rank_at_most": R}`` claims ``r*(M, 3) ≤ R``. The ``M`` coordinates are split
into consecutive parts of sizes ``a_l``; the kernel is ``A[x, z] = f(c_1, …, c_p)``, ``c_l =
(|x_l|, |z_l|, |x_l ∧ z_l|)`` the Terwilliger cell of part ``l``. The file lists the nonzero
blocks ``B_κ`` of ``f`` (Schrijver's block diagonalization, a tensor product over the parts;
``rank A = Σ_κ mult(κ)·rank B_κ``, docs/math.md §11), each as its ``n_κ × n_κ`` entries or as
``left · rightᵀ``, two ``n_κ × r`` factors of width ``r`` its rank. Steps, each named in its
rejection:

1. ``shape``: keys, types, sizes and limits, before any superlinear work (malformed: exit 2);
2. ``kernel``: ``f`` on every cell, rebuilt from the listed blocks by the inverse map;
3. ``blocks``: every block ``B_κ`` (listed or not) recomputed from ``f`` by the β transform
   must be the listed one, or zero if unlisted — so the inverse map is not trusted;
4. ``nonnegative``: ``f ≥ 0`` on every cell;
5. ``row``: the row condition (docs/math.md Lemma 11.2; on cells, Lemma 11.8 and its product
   form) for every tuple of part weights of the query: ``a₀ > 0``, ``f > 0`` below the top level, and
   ``lo_T > ((d − 2)/2)·a₀ + (d − 1)·hi_s`` for levels ``T < s ≤ W``, ``d = s − T ≥ 2``;
6. ``rank``: each listed block's exact rank is its listed ``rank`` (for factors: both have rank
   ``r``, so their product has), and ``Σ_κ mult(κ)·rank B_κ`` is ``rank_at_most``.

The β transform is a tensor product: for each pair of part-weight tuples ``(I, J)`` the values of
``f`` over the ``t``-tuples form a tensor, and part ``l``'s square matrix ``β = G·H`` (tabulated
once per part size and ``(i, j)``) is applied along its axis, in integers over a common
denominator; the inverse map applies the transposes.

Limits (exit 2, each before the work it bounds): the file at most :data:`MAX_FILE_BYTES`
(16 MiB); ``1 ≤ M ≤`` :data:`MAX_M` (64); ``1 ≤ p ≤`` :data:`MAX_PARTS` (8); a listed block of
dimension ``n_κ ≤`` :data:`MAX_BLOCK` (256); every rational at most 200 characters
(``check.parse_rational``), and the least common denominator of all of them at most
``2^``:data:`MAX_DENOMINATOR_BITS` (checked as they are read); and :func:`work` at most
:data:`MAX_WORK` (``--max-work N`` sets another cap): ``cells·(2 + 4·Σ_l (⌊a_l/2⌋ + 1))·(1 +
⌊c/100⌋) + 40·p·W²`` for the transforms (``cells = Π_l C(a_l + 3, 3)``, ``c`` the longest
rational's characters, ``W = Π_l (a_l + 1)`` the weight tuples) plus, per listed block, the
fraction-free elimination ``n³·max(1, ⌊(n·b)^{3/2}/31623⌋)`` (``b`` the bits of its entries once
each row is cleared of denominators; factors: twice ``n·r²·…`` and ``n²·r`` for the product),
checked once from the sizes before any entry is read and again with ``b`` and ``c``.
Numbers: JSON integers or canonical rational strings ``"p/q"`` (``"-3/2"``); floats refused.

Exit codes (:func:`main`): 0 verified (``VERIFIED: r*(M, 3) ≤ R`` and one line on the kernel),
1 rejected, 2 malformed or unreadable (or standard output cannot be written), 3 internal
error (a bug here); 130 Ctrl-C, 141 a closed pipe, 143 SIGTERM. Every other message is one
line on stderr naming the failing field or step. Format: docs/certificate-format.md,
"Symmetric-kernel certificates".
"""
from __future__ import annotations

import json
import sys
from fractions import Fraction
from functools import lru_cache
from itertools import product
from math import comb, isqrt, lcm, prod
from typing import Any

if __package__:
    from .check import (EXIT_INTERNAL, EXIT_MALFORMED, EXIT_REJECTED, EXIT_VERIFIED, MAX_INT, CertificateError,
                        CertificateFormatError, CertificateLimitError, CertificateRejected, guard_process, loads,
                        parse_rational, read_bounded, safe_output_streams, script_args, show_number)
else:  # run as a script (python certify/check_symmetric.py FILE): certify/check.py is beside it
    import os as _os

    sys.path.insert(0, _os.path.dirname(_os.path.abspath(__file__)))
    from check import (EXIT_INTERNAL, EXIT_MALFORMED, EXIT_REJECTED, EXIT_VERIFIED, MAX_INT, CertificateError,
                       CertificateFormatError, CertificateLimitError, CertificateRejected, guard_process, loads,
                       parse_rational, read_bounded, safe_output_streams, script_args, show_number)

SCHEMA = "certify.symmetric-kernel/1"
MAX_M = 64
MAX_PARTS = 8
#: The largest dimension ``n_κ`` of a listed block (its rank is computed by exact elimination).
MAX_BLOCK = 256
#: The cap on :func:`work`: about 10 s of CPU here (m = 48, p = 1, all 25 blocks listed: 1.1·10⁷, 1.2 s).
MAX_WORK = 3 * 10**7
#: The least common denominator of every rational in the file, in bits (checked as they are read, before any
#: product): it bounds the integers of the transforms (the producer's dyadic factors need a few hundred).
MAX_DENOMINATOR_BITS = 4096
MAX_FILE_BYTES = 16 << 20
MAX_NOTE = 2000
REQUIRED = ("schema", "m", "parts", "blocks", "rank_at_most")
OPTIONAL = ("note",)


class SymmetricError(CertificateFormatError, ValueError):
    """The certificate is malformed (exit 2): ``step`` is the failing field, ``str`` is ``"field: reason"``."""


class SymmetricRejected(CertificateRejected):
    """Well formed, but the claim does not follow (exit 1): ``step`` is the failing step."""


def _show(tup: tuple) -> str:
    return f"({', '.join(map(_show, tup)) if isinstance(tup[0], tuple) else ', '.join(map(str, tup))})"


def _C(n: int, k: int) -> int:
    return comb(n, k) if 0 <= k <= n else 0


def beta(a: int, i: int, j: int, k: int, t: int) -> int:
    """Schrijver's ``β_a(i, j, k, t)`` (docs/math.md §11), an integer.

    ``Σ_u (−1)^(u−t) C(u,t) C(a−2k, u−k) C(a−k−u, i−u) C(a−k−u, j−u)``, ``u`` over ``max(k, t) … min(i, j)``
    (elsewhere the terms are zero; ``C(n, k) = 0`` outside ``0 ≤ k ≤ n``).
    """
    return sum((-1) ** (u - t) * _C(u, t) * _C(a - 2 * k, u - k) * _C(a - k - u, i - u) * _C(a - k - u, j - u)
               for u in range(max(k, t), min(i, j) + 1))


def mult(a: int, k: int) -> int:
    """The multiplicity ``C(a, k) − C(a, k − 1)`` of block ``k`` of a part of size ``a`` (``0 ≤ k ≤ a/2``)."""
    return _C(a, k) - _C(a, k - 1)


def part_cells(a: int) -> list[tuple[int, int, int]]:
    """The Terwilliger cells ``(i, j, t)`` of a part of size ``a``, in lexicographic order."""
    return [(i, j, t) for i in range(a + 1) for j in range(a + 1) for t in range(max(0, i + j - a), min(i, j) + 1)]


def block_rows(parts: list[int], index: tuple[int, ...]) -> list[tuple[int, ...]]:
    """The rows (and columns) of block ``index``: tuples ``(i_l)``, ``k_l ≤ i_l ≤ a_l − k_l``, lexicographic."""
    return list(product(*(range(k, a - k + 1) for a, k in zip(parts, index))))


@lru_cache(maxsize=None)
def _table(a: int, i: int, j: int) -> tuple:
    """Part ``a``, weights ``i ≤ j``: ``(n, tlo, G, H, Gᵀ, Hᵀ, scale, N)``, ``β[k][t] = Σ_u G[k][u]·H[u][t]``.

    ``n = min(i, a − j) + 1`` is the number of cells (``t = tlo … tlo + n − 1``) and of blocks
    (``k < n``); ``u`` runs over the same range as ``t`` (the terms of β outside it are zero).
    ``scale[k] = mult(k)/(C(a−2k, i−k) C(a−2k, j−k))`` and ``N[t]`` serve the inverse map.
    """
    tlo, n = max(0, i + j - a), min(i, a - j) + 1
    us = range(tlo, tlo + n)
    G = [[_C(a - 2 * k, u - k) * _C(a - k - u, i - u) * _C(a - k - u, j - u) for u in us] for k in range(n)]
    H = [[(1 - 2 * ((u - t) & 1)) * _C(u, t) for t in us] for u in us]
    scale = [Fraction(mult(a, k), _C(a - 2 * k, i - k) * _C(a - 2 * k, j - k)) for k in range(n)]
    return n, tlo, G, H, list(zip(*G)), list(zip(*H)), scale, [_C(a, i) * _C(i, t) * _C(a - i, j - t) for t in us]


def _outer(vectors, op=lambda x, y: x * y) -> list:
    """``[op(…op(v_1, v_2)…, v_p)]`` over all tuples, lexicographic (part 1 most significant)."""
    out = [None]
    for v in vectors:
        out = [y if x is None else op(x, y) for x in out for y in v]
    return out


def _along(vec: list, shape: list[int], axis: int, mat) -> list:
    """The tensor ``vec`` (``shape``, flat, lexicographic) with the square ``mat`` applied along ``axis``."""
    n, inner = shape[axis], prod(shape[axis + 1:])
    out = [0] * len(vec)
    for o in range(0, len(vec), n * inner):
        for s in range(o, o + inner):
            fiber = vec[s:s + n * inner:inner]
            out[s:s + n * inner:inner] = [sum(map(int.__mul__, row, fiber)) for row in mat]
    return out


def _fibers(parts: list[int]):
    """``(I, J, tables)`` for every pair of part-weight tuples: query weights ``I``, key weights ``J``."""
    weights = list(product(*(range(a + 1) for a in parts)))
    for I in weights:
        for J in weights:
            yield I, J, [_table(a, min(i, j), max(i, j)) for a, i, j in zip(parts, I, J)]


def _common(values: list) -> tuple[list[int], int]:
    """Integers ``v·D`` and ``D``, the least common denominator of ``values``."""
    D = lcm(*(v.denominator for v in values))
    return [v.numerator * (D // v.denominator) for v in values], D


def _pos(parts, index, I) -> int:
    """Row ``I``'s position in block ``index`` (mixed radix, part 1 most significant)."""
    p = 0
    for a, k, i in zip(parts, index, I):
        p = p * (a - 2 * k + 1) + i - k
    return p


def _kernel(parts: list[int], blocks: dict) -> dict:
    """``f`` by the inverse map, as ``{(I, J): [f over the t-tuples, lexicographic]}``."""
    f = {}
    for I, J, tabs in _fibers(parts):
        shape = [t[0] for t in tabs]
        w = [0] * prod(shape)
        for index, B in blocks.items():
            if all(k < n for k, n in zip(index, shape)):
                pos = sum(k * prod(shape[l + 1:]) for l, k in enumerate(index))
                w[pos] = B[_pos(parts, index, I)][_pos(parts, index, J)]
        scaled = [(x.numerator * s.numerator, x.denominator * s.denominator)
                  for x, s in zip(w, _outer([t[6] for t in tabs]))]
        D = lcm(*(d for _, d in scaled))
        vec = [x * (D // d) for x, d in scaled]
        for l, t in enumerate(tabs):
            vec = _along(_along(vec, shape, l, t[4]), shape, l, t[5])
        f[I, J] = [Fraction(v, D * N) for v, N in zip(vec, _outer([t[7] for t in tabs]))]
    return f


def _blocks(parts: list[int], f: dict):
    """``(I, J, shape, values, D)`` per fiber: ``B_κ[I, J] = values[κ]/D`` for every block ``κ`` (β transform)."""
    for I, J, tabs in _fibers(parts):
        shape = [t[0] for t in tabs]
        vec, D = _common(f[I, J])
        for l, t in enumerate(tabs):
            vec = _along(_along(vec, shape, l, t[3]), shape, l, t[2])
        yield I, J, shape, vec, D


def _cells(I, J, tabs) -> list:
    return list(product(*([(i, j, t) for t in range(tab[1], tab[1] + tab[0])] for i, j, tab in zip(I, J, tabs))))


def kernel_from_blocks(parts: list[int], blocks: dict) -> dict:
    """``f`` on every cell (``{((i_1, j_1, t_1), …): Fraction}``) from ``{index: matrix}`` by the inverse map.

    Unlisted blocks are zero. The map is untrusted in the checker: step ``blocks`` recomputes them.
    """
    f = _kernel(list(parts), {tuple(k): v for k, v in blocks.items()})
    return {c: v for I, J, tabs in _fibers(list(parts)) for c, v in zip(_cells(I, J, tabs), f[I, J])}


def _fibered(parts: list[int], f: dict) -> dict:
    return {(I, J): [f[c] for c in _cells(I, J, tabs)] for I, J, tabs in _fibers(parts)}


def blocks_of_kernel(parts: list[int], f: dict) -> dict:
    """Every block ``B_κ`` of the kernel ``f`` (``{cell: number}``), by the β transform: ``{index: matrix}``."""
    parts = list(parts)
    out = {kap: [[Fraction(0)] * len(block_rows(parts, kap)) for _ in block_rows(parts, kap)]
           for kap in product(*(range(a // 2 + 1) for a in parts))}
    for I, J, shape, vec, D in _blocks(parts, _fibered(parts, f)):
        for kap, v in zip(product(*map(range, shape)), vec):
            out[kap][_pos(parts, kap, I)][_pos(parts, kap, J)] = Fraction(v, D)
    return out


def _negative(parts: list[int], f: dict) -> str | None:
    for I, J, tabs in _fibers(parts):
        for cell, v in zip(_cells(I, J, tabs), f[I, J]):
            if v < 0:
                return f"f = {show_number(v)} < 0 at the cell {_show(cell)} (the kernel must be nonnegative)"
    return None


def _row(parts: list[int], f: dict) -> str | None:
    weights = list(product(*(range(a + 1) for a in parts)))
    for W in weights:
        w, lo, hi, where = sum(W), {}, {}, {}
        for J in weights:
            tabs = [_table(a, min(i, j), max(i, j)) for a, i, j in zip(parts, W, J)]
            levels = _outer([range(t[1], t[1] + t[0]) for t in tabs], int.__add__)
            for q, (T, v) in enumerate(zip(levels, f[W, J])):
                if T not in lo or v < lo[T]:
                    lo[T], where[T] = v, (J, tabs, q)
                hi[T] = v if T not in hi else max(hi[T], v)
        a0, at = f[W, W][-1], f"queries of part weights {_show(W)}"
        if not a0 > 0:
            return f"{at}: a₀ = f{_show(tuple((i, i, i) for i in W))} = {show_number(a0)}, not positive"
        for T in range(w + 1):
            if T < w and not lo[T] > 0:
                J, tabs, q = where[T]
                return (f"{at}: f = {show_number(lo[T])} at the key cell {_show(_cells(W, J, tabs)[q])} "
                        f"of level T = {T} < W = {w}")
            for s in range(T + 2, w + 1):
                if not 2 * lo[T] > (s - T - 2) * a0 + 2 * (s - T - 1) * hi[s]:
                    return (f"{at}, levels T = {T}, s = {s}: min over level T = {show_number(lo[T])} is not "
                            "above ((d − 2)/2)·a₀ + (d − 1)·max over level s = "
                            f"{show_number(Fraction(s - T - 2, 2) * a0)} + {s - T - 1}·{show_number(hi[s])} "
                            f"(d = {s - T}; Lemma 11.2)")
    return None


def _failure(parts: list[int], f: dict) -> tuple[str, str] | None:
    """Steps ``nonnegative`` and ``row``: ``(step, reason)`` of the first failure, or ``None``."""
    for step, failure in (("nonnegative", _negative), ("row", _row)):
        bad = failure(parts, f)
        if bad:
            return step, bad
    return None


def row_condition_failure(parts: list[int], f: dict) -> str | None:
    """Why the kernel ``f`` (``{cell: number}``) fails: ``"nonnegative: …"`` or ``"row: …"``; else ``None``.

    Nonnegativity on every cell, then the row condition for every tuple of query part weights
    (docs/math.md §11, Lemma 11.2 in its cell form).
    """
    bad = _failure(list(parts), _fibered(list(parts), f))
    return None if bad is None else ": ".join(bad)


def exact_rank(matrix: list[list]) -> int:
    """The rank over ℚ: each row cleared of denominators, then fraction-free (Bareiss) elimination."""
    rows = [_common(r)[0] for r in matrix if any(r)]
    rank, prev = 0, 1
    for c in range(len(rows[0]) if rows else 0):
        piv = next((r for r in range(rank, len(rows)) if rows[r][c]), None)
        if piv is None:
            continue
        rows[rank], rows[piv] = rows[piv], rows[rank]
        p = rows[rank]
        for r in range(rank + 1, len(rows)):
            x, row = rows[r][c], rows[r]
            rows[r] = [0] * (c + 1) + [(p[c] * row[q] - x * p[q]) // prev for q in range(c + 1, len(p))]
        prev, rank = p[c], rank + 1
    return rank


class Result:
    """A verified certificate: ``m``, ``parts``, ``rank`` (the claim) and ``blocks``, ``[(index, rank, mult)]``."""

    def __init__(self, m: int, parts: list[int], rank: int, blocks: list) -> None:
        self.m, self.parts, self.rank, self.blocks = m, parts, rank, blocks

    def lines(self) -> list[str]:
        shown = [f"{_show(k)} rank {r} ×{mu}" for k, r, mu in self.blocks[:6]]
        more = f", … {len(self.blocks) - 6} more" if len(self.blocks) > 6 else ""
        group = " × ".join(f"S_{a}" for a in self.parts)
        return [f"VERIFIED: r*({self.m}, 3) ≤ {self.rank}",
                f"  a kernel invariant under {group}, blocks {', '.join(shown)}{more}"]


def _kind(v: Any) -> str:
    """A value for a message, short whatever its size (never ``str`` of a 5,000-digit integer)."""
    if type(v) is int:
        return f"int {v}" if v.bit_length() <= 64 else f"an integer of {v.bit_length():,} bits"
    if isinstance(v, (str, list)):
        return f"str {v[:40]!r}{'…' if len(v) > 40 else ''}" if isinstance(v, str) else f"an array of {len(v)}"
    return {bool: f"a boolean ({json.dumps(v)})", dict: "an object", type(None): "null"}.get(type(v), type(v).__name__)


def _int(v: Any, where: str, lo: int, hi: int) -> int:
    if type(v) is not int or not lo <= v <= hi:
        raise SymmetricError(where, f"expected an integer from {lo} to {hi}, got {_kind(v)}")
    return v


def _number(v: Any, where: str) -> Fraction:
    if type(v) is int and 0 <= v <= MAX_INT:
        return Fraction(v)
    if not isinstance(v, str):
        raise SymmetricError(where, f"expected an integer or a rational string \"p/q\", got {_kind(v)}")
    try:
        return parse_rational(v, where)
    except CertificateFormatError as exc:
        raise SymmetricError(where, str(exc).removeprefix(f"format: {where}: ")) from None


def _matrix(v: Any, rows: int, cols: int, where: str, den: list[int]) -> list[list[Fraction]]:
    """The ``rows × cols`` rationals at ``where``; ``den[0]``, the file's running common denominator, is kept
    under :data:`MAX_DENOMINATOR_BITS` as each is read."""
    if not isinstance(v, list) or len(v) != rows:
        raise SymmetricError(where, f"expected {rows} rows of {cols} numbers, got {_kind(v)}")
    for r, row in enumerate(v):
        if not isinstance(row, list) or len(row) != cols:
            raise SymmetricError(f"{where}[{r}]", f"expected an array of {cols} numbers, got {_kind(row)}")
    out = []
    for r, row in enumerate(v):
        out.append([_number(x, f"{where}[{r}][{c}]") for c, x in enumerate(row)])
        for q in out[-1]:
            if den[0] % q.denominator:
                den[0] = lcm(den[0], q.denominator)
                if den[0].bit_length() > MAX_DENOMINATOR_BITS:
                    raise CertificateLimitError(f"{where}[{r}]: the common denominator of the file's numbers so far "
                                                f"exceeds 2^{MAX_DENOMINATOR_BITS}")
    return out


def _elim(rows: int, cols: int, bits: int) -> int:
    """The cost of fraction-free elimination of ``rows × cols`` integers of ``bits`` bits (minors: ``c·bits``)."""
    c = min(rows, cols)
    return rows * cols * c * max(1, isqrt((c * bits) ** 3) // 31623)


def work(parts: list[int], listed: list[tuple], chars: int = 0) -> int:
    """The work estimate of a check (module docstring) from sizes alone.

    ``listed``: ``[(n_κ, width, bits)]`` per listed block, ``width`` ``None`` for entries, ``bits`` the
    longest entry once each row is cleared of denominators; ``chars``: the longest rational's text.
    """
    cells = prod(comb(a + 3, 3) for a in parts)
    pairs = prod(a + 1 for a in parts) ** 2  # each pair of weight tuples: 2p transforms' calls, whatever their size
    total = cells * (2 + 4 * sum(a // 2 + 1 for a in parts)) * (1 + chars // 100) + 40 * pairs * len(parts)
    for n, r, bits in listed:
        total += _elim(n, n, bits) if r is None else 2 * _elim(n, r, bits) + n * n * r * (1 + bits // 64)
    return total


def _limit(cost: int, max_work: int | None) -> None:
    limit = MAX_WORK if max_work is None else max_work
    if cost > limit:
        raise CertificateLimitError(f"the check's work estimate is {cost:,} steps; at most {limit:,}"
                                    f"{' by --max-work' if max_work is not None else ' (--max-work N raises it)'}")


def _parse(doc: Any, max_work: int | None) -> tuple[int, list[int], dict, list, int]:
    """Step ``shape``: ``(m, parts, {index: matrix}, [(index, rank, factors)], rank_at_most)``, or exit 2."""
    if not isinstance(doc, dict):
        raise SymmetricError("document", f"expected a JSON object, got {_kind(doc)}")
    if doc.get("schema") != SCHEMA:
        raise SymmetricError("schema", f"expected {SCHEMA!r}, got {_kind(doc['schema'])}" if "schema" in doc
                             else f"missing; expected {SCHEMA!r}")
    for key in doc:
        if key not in REQUIRED + OPTIONAL:
            raise SymmetricError("document", f"unknown key {repr(key)[:60]}; a {SCHEMA} certificate has only the keys "
                                 f"{', '.join(REQUIRED)} and the optional {', '.join(OPTIONAL)}")
    for key in REQUIRED:
        if key not in doc:
            raise SymmetricError(key, "missing required key")
    m = _int(doc["m"], "m", 1, MAX_M)
    raw = doc["parts"]
    if not isinstance(raw, list) or not 1 <= len(raw) <= MAX_PARTS:
        raise SymmetricError("parts", f"expected an array of 1 to {MAX_PARTS} part sizes, got {_kind(raw)}")
    parts = [_int(a, f"parts[{l}]", 1, MAX_M) for l, a in enumerate(raw)]
    if sum(parts) != m:
        raise SymmetricError("parts", f"the part sizes sum to {sum(parts)}, not m = {m}")
    claim = _int(doc["rank_at_most"], "rank_at_most", 0, MAX_INT)
    if "note" in doc and not (isinstance(doc["note"], str) and len(doc["note"]) <= MAX_NOTE):
        raise SymmetricError("note", f"expected a string of at most {MAX_NOTE} characters, got {_kind(doc['note'])}")
    raw = doc["blocks"]
    if not isinstance(raw, list) or not raw:
        raise SymmetricError("blocks", f"expected a nonempty array of blocks, got {_kind(raw)}")
    shapes, previous = [], None
    for b, block in enumerate(raw):
        at = f"blocks[{b}]"
        if not isinstance(block, dict):
            raise SymmetricError(at, f"expected an object, got {_kind(block)}")
        form = {"index", "rank", "entries"} if "entries" in block else {"index", "rank", "left", "right"}
        if set(block) != form:
            keys = ", ".join(sorted(repr(k)[:40] for k in block)) or "none"
            raise SymmetricError(at, f"has the keys {keys}; a block has exactly index, rank and either entries or "
                                 "left and right")
        index = block["index"]
        if not isinstance(index, list) or len(index) != len(parts):
            raise SymmetricError(f"{at}.index", f"expected an array of {len(parts)} integers, got {_kind(index)}")
        index = tuple(_int(k, f"{at}.index[{l}]", 0, a // 2) for l, (k, a) in enumerate(zip(index, parts)))
        if previous is not None and not index > previous:
            raise SymmetricError(f"{at}.index", f"{list(index)} does not come after {list(previous)}; blocks are "
                                 "listed once each, in increasing (lexicographic) order of index")
        n = prod(a - 2 * k + 1 for a, k in zip(parts, index))
        if n > MAX_BLOCK:
            raise CertificateLimitError(f"{at} has dimension {n:,}; at most {MAX_BLOCK}")
        shapes.append((block, index, _int(block["rank"], f"{at}.rank", 1, n), n, at))
        previous = index
    _limit(work(parts, [(n, None if "entries" in bl else r, 0) for bl, _, r, n, _ in shapes]), max_work)
    blocks, listed, sizes, chars, den = {}, [], [], 0, [1]
    for block, index, rank, n, at in shapes:
        if "entries" in block:
            mats = [_matrix(block["entries"], n, n, f"{at}.entries", den)]
        else:
            mats = [_matrix(block[side], n, rank, f"{at}.{side}", den) for side in ("left", "right")]
        cleared = [_common(row) for mat in mats for row in mat]
        sizes.append((n, None if len(mats) == 1 else rank, max(x.bit_length() for row, _ in cleared for x in row)))
        chars = max([chars] + [len(x) for k in ("entries", "left", "right") for row in block.get(k, ())
                               for x in row if isinstance(x, str)])
        blocks[index] = mats[0] if len(mats) == 1 else (cleared[:n], cleared[n:])
        listed.append((index, rank, None if len(mats) == 1 else mats))
    _limit(work(parts, sizes, chars), max_work)
    for index, _, factors in listed:
        if factors:
            left, right = blocks[index]
            blocks[index] = [[Fraction(sum(map(int.__mul__, x, y)), dx * dy) for y, dy in right] for x, dx in left]
    return m, parts, blocks, listed, claim


def check(doc: Any, max_work: int | None = None) -> Result:
    """Verify a parsed certificate (module docstring, steps 1 to 6); the :class:`Result`, or a ``CertificateError``.

    :class:`SymmetricError` / ``CertificateLimitError`` (exit 2) if malformed, :class:`SymmetricRejected`
    (exit 1) naming the step if the claim does not follow.
    """
    m, parts, blocks, listed, claim = _parse(doc, max_work)
    f = _kernel(parts, blocks)
    for I, J, shape, vec, D in _blocks(parts, f):
        for kap, v in zip(product(*map(range, shape)), vec):
            want = blocks[kap][_pos(parts, kap, I)][_pos(parts, kap, J)] if kap in blocks else Fraction(0)
            if v * want.denominator != want.numerator * D:
                raise SymmetricRejected("blocks", f"block {_show(kap)} entry ({_show(I)}, {_show(J)}) is "
                                        f"{show_number(want)} in the file but {show_number(Fraction(v, D))} in the "
                                        "kernel the blocks define")
    bad = _failure(parts, f)
    if bad:
        raise SymmetricRejected(*bad)
    summary, total = [], 0
    for index, rank, factors in listed:
        for name, mat in zip(("left", "right"), factors) if factors else [("the block", blocks[index])]:
            r = exact_rank(mat)
            if r != rank:
                raise SymmetricRejected("rank", f"block {_show(index)}: {name} has rank {r}, not the listed {rank}" +
                                        (" (a factor of width r gives rank r only when both factors have it)"
                                         if factors else ""))
        mu = prod(mult(a, k) for a, k in zip(parts, index))
        summary.append((index, rank, mu))
        total += mu * rank
    if total != claim:
        raise SymmetricRejected("rank", f"Σ_k mult(k)·rank B_k = {total:,}, not rank_at_most = {claim:,}")
    return Result(m, parts, claim, summary)


def load(path: str) -> Any:
    """Read and parse ``path`` with ``check.loads``, :data:`MAX_FILE_BYTES` checked before parsing (errors: exit 2)."""
    data = read_bounded(path, MAX_FILE_BYTES, f"the file is over {MAX_FILE_BYTES >> 20} MiB, this format's limit")
    return loads(data)


def run(path: str, max_work: int | None = None) -> int:
    """Verify ``path`` and print the verdict (stdout) or one line (stderr); return the exit code (0, 1, 2 or 3)."""
    safe_output_streams()
    shown = path if path.isprintable() else ascii(path)
    try:
        result = check(load(path), max_work)
    except CertificateError as exc:
        label = {EXIT_MALFORMED: "MALFORMED", EXIT_REJECTED: "REJECTED"}.get(exc.exit_code, "INTERNAL CONTRADICTION")
        print(f"{label}: {shown}: {exc}", file=sys.stderr)
        return exc.exit_code
    except Exception as exc:  # a bug here (memory included: the limits bound it), never the file's fault: exit 3
        why = "out of memory within the documented limits" if isinstance(exc, MemoryError) else \
            f"unexpected {type(exc).__name__} in the checker: {' '.join(str(exc).split())[:200]}"
        print(f"INTERNAL CONTRADICTION: {why} (a bug in this checker)", file=sys.stderr)
        return EXIT_INTERNAL
    print("\n".join(result.lines()))
    return EXIT_VERIFIED


PROG = "check_symmetric.py"


def main(argv: list[str] | None = None) -> int:
    """usage: python certify/check_symmetric.py [--max-work N] [--] FILE

    Check a certify.symmetric-kernel/1 certificate with the standard library alone: the
    kernel f on every Terwilliger cell is rebuilt from the listed blocks, every block is
    recomputed from f (the listed ones back, the others zero), f >= 0 and the row
    condition are checked for every tuple of query part weights (docs/math.md §11), and
    each listed block's exact rank and the total sum mult * rank are compared with the file.
    Prints "VERIFIED: r*(M, 3) <= R" and a line on the kernel, or one line on stderr.

    --max-work N    the cap on the work estimate (default 3*10^7, about 10 s)
    --              the next argument is the path, even if it starts with '-'
    -h, --help      print this text and exit 0

    Exit codes: 0 verified, 1 rejected (the line names the step), 2 malformed or
    unreadable (or standard output cannot be written), 3 internal error (a bug in this
    checker); 130 Ctrl-C, 141 a closed pipe, 143 SIGTERM.
    """
    return guard_process(lambda: _main(argv), PROG)


def _main(argv: list[str] | None) -> int:
    code, path, given = script_args(argv, main.__doc__, f"usage: python certify/{PROG} [--max-work N] [--] FILE  "
                                    "(exit 0 verified, 1 rejected, 2 malformed; --help)", (), "--max-work")
    if code is not None:
        return code
    text = given.get("--max-work")
    if text is not None and not (text.isascii() and text.isdigit() and len(text) <= 18 and int(text) >= 1):
        print(f"MALFORMED: --max-work: expected an integer from 1 to 10^18 - 1, not {text[:30]!r}", file=sys.stderr)
        return EXIT_MALFORMED
    return run(path, None if text is None else int(text))


if __name__ == "__main__":
    sys.exit(main())
