"""The symmetric-kernel certificates, checked the long way: the explicit ``2^m × 2^m`` matrix.

``certify/check_symmetric.py`` never builds the kernel matrix ``A``: it works on Terwilliger cells
and blocks (docs/math.md §11). Here every valid corpus file with ``m ≤ 10`` (tests/symmetric/valid,
whatever is added there later) and every certificate ``certify minrank`` ships with ``m ≤ 10``
(certify/minrank/certificates; ``m = 10`` costs about 8 s of rank, the issue's size) is expanded to
``A[x, z] = f(c_1, …, c_p)`` — ``f`` rebuilt from the listed blocks by the inverse map written
out again below, not the checker's — and checked with code that shares nothing with the checker:

* ``rank A`` by python-flint (``fmpz_mat.rank`` of ``A`` times its common denominator) equals
  ``rank_at_most``;
* every row passes the row condition of today's minrank verifier (``certify.minrank.rows``, row
  by row over all ``2^m`` keys, in integers), and ``A ≥ 0``;
* the checker's kernel (``kernel_from_blocks``) is this one.

And the other way: the invalid files the checker rejects at ``nonnegative`` or ``row`` have an
explicit row that fails too (the cell form of the row condition is the row condition).
"""
from __future__ import annotations

import json
from fractions import Fraction
from itertools import product
from math import comb, lcm, prod

import numpy as np
import pytest

from certify import check_symmetric as S
from certify.minrank.rows import matrix_failure

from conftest import ROOT

CORPUS = ROOT / "tests" / "symmetric"
MANIFEST = json.loads((CORPUS / "MANIFEST.json").read_text(encoding="utf-8"))
SHIPPED = ROOT / "certify" / "minrank" / "certificates"
SMALL = [p for p in [CORPUS / "valid" / name for name in sorted(MANIFEST["valid"])] + sorted(SHIPPED.glob("*.json"))
         if json.loads(p.read_text(encoding="utf-8"))["m"] <= 10]
REJECTED_ON_ROWS = sorted(name for name, e in MANIFEST["invalid"].items() if e["field"] in ("nonnegative", "row"))


def C(n: int, k: int) -> int:
    return comb(n, k) if 0 <= k <= n else 0


def beta(a, i, j, k, t) -> int:
    return sum((-1) ** (u - t) * C(u, t) * C(a - 2 * k, u - k) * C(a - k - u, i - u) * C(a - k - u, j - u)
               for u in range(k, min(i, j) + 1) if u >= t)


def blocks_of(doc: dict) -> dict:
    """``{index: matrix}`` of the listed blocks, factors multiplied out."""
    out = {}
    for b in doc["blocks"]:
        if "entries" in b:
            out[tuple(b["index"])] = [[Fraction(v) for v in row] for row in b["entries"]]
        else:
            L, R = ([[Fraction(v) for v in row] for row in b[k]] for k in ("left", "right"))
            out[tuple(b["index"])] = [[sum(x * y for x, y in zip(l, r)) for r in R] for l in L]
    return out


def kernel(parts: list[int], blocks: dict):
    """``f(cell)`` by the inverse map of docs/math.md §11, term by term (the product over the parts of each factor)."""
    def f(cell) -> Fraction:
        total = Fraction(0)
        for index, B in blocks.items():
            if any(k > min(i, j, a - i, a - j) for a, (i, j, _), k in zip(parts, cell, index)):
                continue
            rows = list(product(*(range(k, a - k + 1) for a, k in zip(parts, index))))
            term = B[rows.index(tuple(c[0] for c in cell))][rows.index(tuple(c[1] for c in cell))]
            for a, (i, j, t), k in zip(parts, cell, index):
                term *= Fraction((C(a, k) - C(a, k - 1)) * beta(a, i, j, k, t),
                                 C(a, i) * C(i, t) * C(a - i, j - t) * C(a - 2 * k, i - k) * C(a - 2 * k, j - k))
            total += term
        return total
    return f


def explicit(doc: dict) -> list[list[int]]:
    """``D·A[x, z]`` as integers (``D > 0`` the common denominator of ``f``; the row condition and the rank are the
    same for ``A`` and ``D·A``): ``x``, ``z`` tokens, bit ``c`` coordinate ``c``, part 1 the lowest ``a_1`` bits."""
    parts, m = doc["parts"], doc["m"]
    f = kernel(parts, blocks_of(doc))
    values = {c: f(c) for c in product(*(part_cells(a) for a in parts))}
    D = lcm(*(v.denominator for v in values.values()))
    table = np.zeros(prod((a + 1) ** 3 for a in parts), dtype=object)
    for c, v in values.items():
        k = 0
        for a, (i, j, t) in zip(parts, c):
            k = k * (a + 1) ** 3 + (i * (a + 1) + j) * (a + 1) + t
        table[k] = v.numerator * (D // v.denominator)
    weight = np.array([v.bit_count() for v in range(1 << m)])
    x, z = np.arange(1 << m)[:, None], np.arange(1 << m)[None, :]
    index, offset = np.zeros((1 << m, 1 << m), dtype=np.int64), 0
    for a in parts:
        mask = ((1 << a) - 1) << offset
        i, j, t = weight[x & mask], weight[z & mask], weight[x & z & mask]
        index, offset = index * (a + 1) ** 3 + (i * (a + 1) + j) * (a + 1) + t, offset + a
    return table[index].tolist()


def part_cells(a: int) -> list[tuple[int, int, int]]:
    return [(i, j, t) for i in range(a + 1) for j in range(a + 1) for t in range(max(0, i + j - a), min(i, j) + 1)]


def flint_rank(A: list[list[int]]) -> int:
    import flint

    return flint.fmpz_mat(A).rank()


@pytest.mark.parametrize("path", SMALL, ids=[f"{p.parent.name}/{p.name}" for p in SMALL])
def test_a_valid_certificate_is_an_explicit_solving_kernel_of_the_claimed_rank(path):
    doc = json.loads(path.read_text(encoding="utf-8"))
    A = explicit(doc)
    assert all(v >= 0 for row in A for v in row)
    assert matrix_failure(A, doc["m"]) is None
    assert flint_rank(A) == doc["rank_at_most"]
    ours = kernel(doc["parts"], blocks_of(doc))
    assert S.kernel_from_blocks(doc["parts"], blocks_of(doc)) == {c: ours(c) for c in product(
        *(S.part_cells(a) for a in doc["parts"]))}


@pytest.mark.parametrize("name", REJECTED_ON_ROWS)
def test_a_file_rejected_on_its_rows_has_an_explicit_row_that_fails(name):
    doc = json.loads((CORPUS / "invalid" / name).read_text(encoding="utf-8"))
    A = explicit(doc)
    assert matrix_failure(A, doc["m"]) is not None


def test_the_small_files_include_every_kind():
    """p = 1, 2 and 3 parts, entries and factors, and m = 8 (a 256 × 256 matrix)."""
    docs = [json.loads(p.read_text()) for p in SMALL if p.parent.name == "valid"]
    assert {len(d["parts"]) for d in docs} >= {1, 2, 3} and max(d["m"] for d in docs) >= 8
    assert any("left" in b for d in docs for b in d["blocks"])
