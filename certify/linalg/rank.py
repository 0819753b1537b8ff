"""Exact ranks of rational matrices, each bound with its proof (docs/math.md §2).

:func:`matrix_rank` clears denominators, takes the rank modulo a prime as a **certified
lower bound** (a nonzero minor modulo p is a nonzero integer), and proves the matching
**upper bound** by a rank factorization verified exactly (one with small entries found by
lattice reduction, or ``Z = Z[:,J]·X`` checked modulo many primes), falling back to exact
elimination only when a prime divides a minor. :class:`RankResult` says where each bound
came from. :func:`factored_rank` is the rank of ``P Kᵀ`` from its factors, without forming
the product. ``check-kernel`` proves kernel ranks with it (docs/kernel-table-format.md), the
producers and tests use it for the trace–Frobenius law (:mod:`certify.lemmas.frobenius`).

>>> matrix_rank([[1, 2, 3], [2, 4, 6], [1, 0, 1]]).rank
2
>>> exact_rank([[1, 0], [0, 0]]), factored_rank.__name__
(1, 'factored_rank')
"""
from __future__ import annotations

import contextlib
import functools
import os
from dataclasses import dataclass
from fractions import Fraction  # noqa: F401 - the doctests use it
from typing import Any

from ..exact import exact

__all__ = ["RankResult", "matrix_rank", "exact_rank", "factored_matrix_rank", "factored_rank",
           "predicted_upper_seconds", "matrix_rank_of_pairs", "RANK_PRIMES", "MAX_CLEARED_BITS", "LATTICE_MAX_RANK"]


#: The primes of the lower bound: the first is small because flint's elimination modulo a
#: prime below 2^20 is the fastest; the second, 2^61 − 1, is tried only if the first one's
#: rank factorization fails to verify (that prime divided a minor).
RANK_PRIMES = (1048573, 2**61 - 1)
#: Verification primes lie just below 2^50 (the cheapest bits per second of nmod_mat products).
_VERIFY_TOP = 2**50
_LIMB = 56  # entries are split into 56-bit limbs so that reducing them mod a prime stays in C


def _modulo(p: int) -> str:
    """How a lower bound from prime ``p`` is named in :class:`RankResult`."""
    return f"its rank modulo the prime {'2^61 − 1' if p == 2**61 - 1 else p}"


def _int_bits(ints: list[int]) -> int:
    """``max |v|`` over ``ints`` in bits (0 when empty)."""
    return max(abs(max(ints)), abs(min(ints))).bit_length() if ints else 0


@contextlib.contextmanager
def _flint_threads():
    """Up to 2 flint threads for the large products of a verification, restored afterwards."""
    from flint import ctx

    threads = ctx.threads
    ctx.threads = max(1, min(2, os.cpu_count() or 1))
    try:
        yield
    finally:
        ctx.threads = threads


@dataclass(frozen=True)
class RankResult:
    """An exact rank together with where its two matching bounds came from.

    ``rank`` is proved: ``lower_from`` names a certified lower bound (a rank modulo a
    prime never exceeds the rank over ℚ) and ``upper_from`` a certified upper bound (the
    matrix shape, a verified rank factorization, or exact elimination). If ``exact`` is
    false, only the lower bound was proved (the upper one was not attempted within the
    time allowed, :func:`matrix_rank`'s ``max_seconds``) and ``upper_from`` says why.
    """

    rank: int
    lower_from: str
    upper_from: str
    exact: bool = True

    def to_json(self) -> dict[str, Any]:
        return {"rank": self.rank, "lower_from": self.lower_from, "upper_from": self.upper_from, "exact": self.exact}


#: A common denominator of at most this many bits clears a rational matrix as a whole;
#: beyond it, rows or columns are cleared one by one (:func:`_cleared_by_lines`).
_COMMON_DENOMINATOR_BITS = 256


def _integer_matrix(matrix):
    """An ``fmpz_mat`` with the same rank: flint matrices as they are, rows of exact numbers converted.

    Denominators are cleared by one common multiple when it is small, else row by row or
    column by column (whichever needs fewer bits): scaling rows or columns by nonzero
    numbers keeps the rank, and entries ``1/e_j`` with a different large ``e_j`` in each
    column would otherwise all be multiplied by the product of every ``e_j``.
    """
    from flint import fmpq_mat, fmpz_mat

    if isinstance(matrix, fmpz_mat):
        return matrix
    if not isinstance(matrix, fmpq_mat):
        rows = [[exact(v, "matrix entry") for v in row] for row in matrix]
        if not rows:
            return fmpz_mat(0, 0)
        n_cols = len(rows[0])
        if any(len(r) != n_cols for r in rows):
            raise ValueError("matrix rows have different lengths")
        return _cleared_pairs(len(rows), n_cols, [(v.numerator, v.denominator) for r in rows for v in r], None)
    Z, d = matrix.numer_denom()  # a nonzero scalar multiple: same rank
    if int(d).bit_length() <= _COMMON_DENOMINATOR_BITS:
        return Z
    return _cleared_by_lines(matrix)


def _cleared_by_lines(A):
    """``A`` (an ``fmpq_mat``) with its denominators cleared line by line (:func:`_cleared_from_pairs`)."""
    n, m = A.nrows(), A.ncols()
    return _cleared_from_pairs(n, m, [(int(v.p), int(v.q)) for v in A.entries()], None)


#: At most this many bits in all for an integer matrix cleared line by line from a table
#: (``matrix_rank_of_pairs``); beyond it only the rank's lower bound is computed.
MAX_CLEARED_BITS = 2**30


def _line_lcms(lines, width: int, max_bits: int | None) -> list[int] | None:
    """The lcm of each line's denominators, or ``None`` once ``Σ bits(lcm)·width`` would pass ``max_bits``."""
    import math

    out, total = [], 0
    for qs in lines:
        L = 1
        for q in qs:
            if L % q:
                L = L // math.gcd(L, q) * q
                if max_bits is not None and total + L.bit_length() * width > max_bits:
                    return None
        out.append(L)
        total += L.bit_length() * width
    return out


def _cleared_from_pairs(n: int, m: int, pq: list[tuple[int, int]], max_bits: int | None):
    """An ``fmpz_mat`` of the same rank as the rational ``n × m`` matrix of ``(p, q)`` pairs (row-major), or ``None``.

    Each row, or each column, is multiplied by the lcm of its denominators (whichever
    needs fewer bits in all); then each line of the other kind is divided by the gcd of its
    entries, so that ``1/(r_i·c_j)`` becomes the all-ones matrix rather than ``lcm(c)/c_j``.
    Scaling lines by nonzero numbers keeps the rank. ``None`` if both ways need more than
    ``max_bits`` bits in all (checked while the lcms grow, before any entry is scaled).
    """
    import math

    from flint import fmpz_mat

    rows = _line_lcms([[q for _, q in pq[i * m:(i + 1) * m]] for i in range(n)], m, max_bits)
    cols = _line_lcms([[pq[i * m + j][1] for i in range(n)] for j in range(m)], n, max_bits)
    if rows is None and cols is None:
        return None
    by_rows = cols is None or (rows is not None and sum(v.bit_length() for v in rows) * m
                               <= sum(v.bit_length() for v in cols) * n)
    scale = (lambda k: rows[k // m]) if by_rows else (lambda k: cols[k % m])
    ints = [p * (scale(k) // q) for k, (p, q) in enumerate(pq)]
    if by_rows:  # then divide each column by its content
        g = [math.gcd(*ints[j::m]) or 1 for j in range(m)]
        ints = [v // g[k % m] for k, v in enumerate(ints)]
    else:
        g = [math.gcd(*ints[i * m:(i + 1) * m]) or 1 for i in range(n)]
        ints = [v // g[k // m] for k, v in enumerate(ints)]
    return fmpz_mat(n, m, ints)


def _cleared_pairs(n: int, m: int, pq: list[tuple[int, int]], max_bits: int | None):
    """``(p, q)`` pairs (row-major) as an ``fmpz_mat`` of the same rank, or ``None`` (see :func:`_cleared_from_pairs`).

    One common denominator when it has at most :data:`_COMMON_DENOMINATOR_BITS` bits (found
    from the pairs, stopping as soon as it grows past that: no blow-up before the test);
    else line by line, up to ``max_bits`` bits in all.
    """
    from flint import fmpz_mat

    common = _line_lcms([[q for _, q in pq]], 1, _COMMON_DENOMINATOR_BITS)
    if common is not None:
        d = common[0]
        return fmpz_mat(n, m, [p * (d // q) for p, q in pq])
    return _cleared_from_pairs(n, m, pq, max_bits)


def matrix_rank_of_pairs(n: int, m: int, pq: list[tuple[int, int]], *, max_seconds: float | None = None) -> RankResult:
    """:func:`matrix_rank` of the ``n × m`` rational matrix given as ``(numerator, denominator)`` pairs, row-major.

    For untrusted tables (``certify check-kernel``): denominators are cleared from the
    pairs — by their lcm when it has at most 256 bits, else line by line — and if even
    that would take more than :data:`MAX_CLEARED_BITS`, only the lower bound is computed
    (the rank of the entries modulo a prime that divides no denominator), so a table of
    many distinct large denominators costs time and memory linear in its entries.
    """
    from flint import nmod_mat

    if n == 0 or m == 0:
        return RankResult(0, "an empty matrix", "an empty matrix")
    Z = _cleared_pairs(n, m, pq, MAX_CLEARED_BITS)
    if Z is not None:
        return matrix_rank(Z, max_seconds=max_seconds)
    for P in RANK_PRIMES:
        if all(q % P for _, q in pq):
            rho = nmod_mat(n, m, [p * pow(q, -1, P) % P for p, q in pq], P).rank()
            lower = _modulo(P)
            if rho == min(n, m):
                return RankResult(rho, lower, f"the matrix shape ({n:,} × {m:,})")
            return RankResult(rho, lower, f"not attempted: clearing the denominators of this {n:,} × {m:,} matrix would "
                              f"take more than {MAX_CLEARED_BITS:,} bits", exact=False)
    return RankResult(0, "not computed: every prime tried divides a denominator",
                      f"not attempted: clearing the denominators would take more than {MAX_CLEARED_BITS:,} bits", exact=False)


def _pivots(R, rank: int) -> list[int]:
    """Pivot columns of a reduced row echelon form (the first nonzero of each of its ``rank`` rows)."""
    piv, j = [], 0
    for i in range(rank):
        while R[i, j] == 0:
            j += 1
        piv.append(j)
        j += 1
    return piv


def _verify_primes(bits: int) -> list[int]:
    """Distinct primes below 2^50 whose product exceeds ``2^bits``."""
    from flint import fmpz

    out, q, have = [], _VERIFY_TOP, 0
    while have <= bits:
        q -= 1
        while not fmpz(q).is_prime():  # flint's test is a proof below 2^64
            q -= 1
        out.append(q)
        have += q.bit_length() - 1
    return out


def _limbs(Z) -> tuple[list, int]:
    """``Z = Σ_l Z_l·2^{56 l}`` with small ``fmpz_mat`` limbs, and ``max |Z|`` in bits.

    Reducing an ``fmpz_mat`` of word-size entries modulo a prime is several times faster
    than one of multi-word entries, and the verification reduces ``Z`` once per prime.
    """
    from flint import fmpz_mat

    ints = [int(v) for v in Z.entries()]
    bits = _int_bits(ints)
    if bits <= 62:
        return [Z], bits
    limbs = []
    mask = (1 << _LIMB) - 1
    while not -(1 << 62) < min(ints) <= max(ints) < (1 << 62):
        limbs.append(fmpz_mat(Z.nrows(), Z.ncols(), [v & mask for v in ints]))
        ints = [v >> _LIMB for v in ints]  # floor shift: the last limb carries the sign
    limbs.append(fmpz_mat(Z.nrows(), Z.ncols(), ints))
    return limbs, bits


def _pivot_blocks(Z, R, rho: int, p: int):
    """``(J, Z[:,J], I)``: the pivot columns of the rref ``R`` of ``Z mod p`` and ρ rows ``I`` independent
    modulo ``p`` in them (so ``G = Z[I,J]`` is invertible mod p, hence over ℚ), or ``None``."""
    from flint import fmpz_mat, nmod_mat

    n = Z.nrows()
    J = _pivots(R, rho)
    ZJ = fmpz_mat(n, rho, [Z[i, j] for i in range(n) for j in J])
    Rt, rho_t = nmod_mat(ZJ.transpose(), p).rref()
    if rho_t != rho:
        return None
    return J, ZJ, _pivots(Rt, rho)


def _factorization_certificate(Z, J: list[int], ZJ, I: list[int], rho: int, p: int) -> str | None:
    """Try to prove ``rank(Z) ≤ ρ``: an exact factorization ``dₓ·Z = Z[:,J]·Xₙ`` (ρ columns), or ``None``.

    ``J``, ``Z[:,J]`` and ``I`` are from :func:`_pivot_blocks`. ``X = G⁻¹·Z[I,:]``
    is computed exactly and written ``Xₙ/dₓ`` with the common factor of ``adj(G)·Z[I,:]``
    and ``det G`` removed (for a kernel formed from factors this halves the bit size). The
    identity ``dₓ·Z = Z[:,J]·Xₙ`` is then checked modulo distinct primes whose product
    exceeds twice a bound on ``|dₓ·Z − Z[:,J]·Xₙ|``: an integer matrix that small and ≡ 0
    modulo all of them is 0. Equivalently, the ``m − ρ`` columns ``(X_{J^c}; −I)`` span a
    verified nullspace of ``Z``.
    """
    from flint import fmpq_mat, fmpz, fmpz_mat, nmod_mat

    from ..check import Progress

    n, m = Z.nrows(), Z.ncols()
    G = fmpz_mat(rho, rho, [Z[i, j] for i in I for j in J])
    ZI = fmpz_mat(rho, m, [Z[i, j] for i in I for j in range(m)])
    try:
        adj, det = fmpq_mat(G).inv().numer_denom()  # G⁻¹ = adj/det
    except ZeroDivisionError:
        return None
    Y = (adj * ZI).entries()
    g = fmpz(det)
    for v in Y:  # the common factor of det and every entry of adj·Z[I,:]: mostly one remainder each
        if v % g:
            g = g.gcd(v)
            if g == 1:
                break
    dx = int(det // g)
    Xs = [v // g for v in Y]
    Xn = fmpz_mat(rho, m, Xs)
    xb = _int_bits(Xs)
    limbs, zbits = _limbs(Z)
    zj = zbits  # Z[:,J] is part of Z
    bound = max(dx.bit_length() + zbits, zj + xb + rho.bit_length()) + 2  # |dₓZ − Z_J Xₙ| < 2^bound
    primes = _verify_primes(bound)
    progress = Progress(f"exact rank: checking a rank-{rho} factorization modulo primes", total=len(primes))
    with contextlib.closing(progress), _flint_threads():  # the products are the bulk of the work
        for done, q in enumerate(primes):
            progress.update(done)
            Zq = nmod_mat(limbs[0], q)
            for k, L in enumerate(limbs[1:], 1):
                Zq += nmod_mat(L, q) * pow(2, _LIMB * k, q)
            d = dx % q
            if d:  # Z ≡ Z_J·(Xₙ·dₓ⁻¹): the scalar goes on the small factor
                bad = Zq - nmod_mat(ZJ, q) * (nmod_mat(Xn, q) * pow(d, -1, q))
            else:
                bad = Zq * d - nmod_mat(ZJ, q) * nmod_mat(Xn, q)
            if bad:  # truthy: a nonzero residue
                return None
    return (f"a rank factorization with {rho} column{'s' if rho != 1 else ''} (a nullspace of dimension {m - rho} found "
            f"modulo {p} and solved exactly), verified exactly modulo primes whose product exceeds 2^{bound}")


#: The lattice path (:func:`_small_factorization`) is tried only up to this rank: the Hermite
#: form of an ``n × ρ`` matrix and LLL in dimension ``ρ`` grow quickly with ``ρ``.
LATTICE_MAX_RANK = 192
#: Most bits in all of the product ``C·B``, formed exactly in one piece (256 MiB); larger
#: factorizations are left to the modular check.
_LATTICE_MAX_PRODUCT_BITS = 2**31
#: Cost model (seconds, measured on 2 cores; only chooses a path, never affects a result):
#: LLL of a ρ-dimensional lattice of determinant 2^L ≈ 5·10⁻¹³·ρ³·L²; one modular
#: verification pass of an n × m matrix ≈ n·m·(ρ/2.4·10⁹ + 4·10⁻⁸).
_LLL_COST, _PASS_COST_RHO, _PASS_COST_ENTRY = 5e-13, 1 / 2.4e9, 4e-8


def _bits(M) -> int:
    """``max |entry|`` of an ``fmpz_mat`` in bits (0 for the zero matrix)."""
    return _int_bits([int(v) for v in M.entries()])


def _small_factorization(Z, ZJ, I: list[int], rho: int, *, always: bool = False,
                         max_seconds: float | None = None) -> str | None:
    """Try to prove ``rank(Z) ≤ ρ`` by a factorization ``b·Z = C·B`` with *small* entries, or ``None``.

    The rank factorization ``Z = Z[:,J]·G⁻¹·Z[I,:]`` has entries as large as the minors of
    ``G = Z[I,J]`` (about ρ times the bits of ``Z``), and verifying it is ρ times dearer
    than verifying a factorization with entries the size of ``Z``'s. Such a small one
    exists whenever ``Z`` is a product of small factors (a kernel ``Φ_QΦ_Kᵀ``), and lattice
    reduction finds it: the rows of ``Z[:,J]`` span a lattice ``Λ ⊂ ℤ^ρ`` of rank ρ; its
    Hermite form gives a basis, LLL a reduced basis ``B_J`` (entries near the factors'); the
    coordinates ``C = Z[:,J]·B_J⁻¹`` of the rows are then small integers, and
    ``B = C[I,:]⁻¹·Z[I,:]`` (so ``Z = C·B`` if the rank is ρ). How ``C`` and ``B`` were found
    does not matter: the proof is the identity ``b·Z = C·Bₙ`` (``B = Bₙ/b``), checked in
    exact integer arithmetic, which gives ``rank(Z) ≤ rank(C) ≤ ρ``.

    Tried only when a cost model predicts LLL to be cheaper than the modular check of the
    plain factorization (``always=True`` skips that prediction, for tests and benchmarks).
    """
    from flint import fmpq_mat, fmpz_mat

    from ..check import Progress

    if rho > LATTICE_MAX_RANK:
        return None
    n, m = Z.nrows(), Z.ncols()
    with contextlib.closing(Progress("exact rank: lattice reduction (Hermite form, LLL, solves, exact product)",
                                     total=4)) as progress:
        H = ZJ.hnf()  # nonzero rows first: an upper-triangular basis of Λ
        progress.update(1)
        diag = [int(H[i, i]) for i in range(rho)]
        if any(d == 0 for d in diag):
            return None
        logdet = sum(d.bit_length() for d in diag)
        if not always and _lattice_seconds(rho, logdet) > _modular_seconds(n, m, rho, logdet, _bits(ZJ)):
            return None  # the modular check of the plain rank factorization is predicted cheaper
        if max_seconds is not None and _lattice_seconds(rho, logdet) > max_seconds:
            return None
        BJ = fmpz_mat(rho, rho, [H[i, j] for i in range(rho) for j in range(rho)]).lll(delta=0.75)
        progress.update(2)
        try:
            Cn = fmpq_mat(BJ.transpose()).solve(fmpq_mat(ZJ.transpose())).transpose().numer_denom()[0]
            CI = fmpz_mat(rho, rho, [Cn[i, j] for i in I for j in range(rho)])
            ZI = fmpz_mat(rho, m, [Z[i, j] for i in I for j in range(m)])
            Bn, b = fmpq_mat(CI).solve(fmpq_mat(ZI)).numer_denom()
        except ZeroDivisionError:
            return None
        progress.update(3)
        cbits, bbits = _bits(Cn), _bits(Bn)
        if n * m * (cbits + bbits + rho.bit_length()) > _LATTICE_MAX_PRODUCT_BITS:
            return None
        with _flint_threads():
            holds = Cn * Bn == (Z if b == 1 else Z * b)  # exact: flint's integer product and comparison
    if not holds:
        return None
    scale = "Z" if b == 1 else f"{int(b)}·Z"
    return (f"a rank factorization with {rho} column{'s' if rho != 1 else ''} and small entries ({scale} = C·B, "
            f"C of {n} × {rho} and B of {rho} × {m} integers of at most {cbits} and {bbits} bits, found by lattice "
            f"reduction: Hermite form and LLL of the lattice spanned by the rows of {rho} pivot columns), "
            f"verified exactly in integer arithmetic")


def predicted_upper_seconds(n: int, m: int, rho: int, zbits: int) -> float:
    """Predicted seconds to prove ``rank ≤ ρ`` for an ``n × m`` integer matrix of ``zbits``-bit entries.

    The cheaper of the two paths' cost models, with ``L = ρ·(zbits + log₂ρ)`` — about
    the Hadamard bound on the ρ × ρ minors, which bounds the lattice's determinant and
    the size of ``X`` (for a product of small factors the truth is about half). Only
    decides whether to try (``max_seconds``); never affects a result.
    """
    L = rho * (zbits + max(1, rho).bit_length())
    modular = _modular_seconds(n, m, rho, L, zbits)
    return min(modular, _lattice_seconds(rho, L)) if rho <= LATTICE_MAX_RANK else modular


def _modular_seconds(n: int, m: int, rho: int, L: int, zbits: int) -> float:
    """Cost model of :func:`_factorization_certificate`: the exact ``G⁻¹`` and ``adj(G)·Z[I,:]``, then
    ``≈ L/49`` passes over ``n × m`` entries of ``zbits`` bits.

    The exact part, ``≈ 1.45·10⁻⁹·ρ^3.25·zbits^1.5·(1 + m/15ρ)`` s, is fitted to two
    measurements (ρ = 64 with 112-bit entries: 1.25 s for the inverse; ρ = 32 with
    3,300-bit entries: 21 s) and is rough.
    """
    solve = 1.45e-9 * rho**3.25 * max(zbits, 1) ** 1.5 * (1 + m / (15 * rho))
    return solve + ((L + 2 * zbits + 8) / 49 + 1) * n * m * (rho * _PASS_COST_RHO + (zbits // 56 + 1) * _PASS_COST_ENTRY)


def _lattice_seconds(rho: int, L: int) -> float:
    """Cost model of LLL in :func:`_small_factorization`: dimension ρ, determinant ``2^L``."""
    return _LLL_COST * rho**3 * L**2


def matrix_rank(matrix, *, factorization: str = "auto", max_seconds: float | None = None) -> RankResult:
    """The exact rank of a rational matrix, with the source of each bound (docs/math.md §2).

    ``matrix`` is an ``fmpq_mat``, an ``fmpz_mat`` (used as they are, no conversion) or a
    sequence of rows of exact numbers (``TypeError`` on floats). Steps:

    1. clear denominators (``fmpz_mat``, same rank); the rank modulo a prime is a
       **certified lower bound** (a nonzero minor mod p is a nonzero integer);
    2. if it equals ``min(rows, columns)`` the shape is the upper bound: done;
    3. otherwise an **upper bound** from a rank factorization with ρ columns, verified
       exactly: one with small entries found by lattice reduction when that is predicted
       cheaper (:func:`_small_factorization`), else (or if it fails) ``Z = Z[:,J]·X``
       with ``X`` solved exactly and checked modulo many primes
       (:func:`_factorization_certificate`). ``factorization="lattice"`` or ``"modular"``
       forces one of the two (tests, benchmarks). With ``max_seconds``, a proof
       predicted (:func:`predicted_upper_seconds`) to take longer is not attempted:
       the result then has ``exact=False`` and ``rank`` is only the lower bound;
    4. only if the two disagree (a prime dividing some minor, rare): exact elimination
       (python-flint ``fmpz_mat.rank``).

    >>> r = matrix_rank([[1, 2, 3], [2, 4, 6], [1, 0, 1]])
    >>> r.rank, r.upper_from.split(" (")[0]
    (2, 'a rank factorization with 2 columns and small entries')
    >>> matrix_rank([[1, 2, 3], [2, 4, 6], [1, 0, 1]], factorization="modular").upper_from.split(" (")[0]
    'a rank factorization with 2 columns'
    >>> matrix_rank([[Fraction(1, 3), 1], [0, 2]]).upper_from
    'the matrix shape (2 × 2)'
    >>> matrix_rank([[0.5]])
    Traceback (most recent call last):
    ...
    TypeError: Argument 'matrix entry' must be exact (int, Fraction or fmpq), not float 0.5
    """
    from flint import nmod_mat

    if factorization not in ("auto", "lattice", "modular"):
        raise ValueError(f"factorization must be 'auto', 'lattice' or 'modular', not {factorization!r}")
    Z = _integer_matrix(matrix)
    n, m = Z.nrows(), Z.ncols()
    if n == 0 or m == 0:
        return RankResult(0, "an empty matrix", "an empty matrix")
    shape, transposed = f"{n:,} × {m:,}", n > m
    if transposed:  # same rank; the pivot block Z[:,J] (n × ρ) is then the short one, and its Hermite form cheap
        Z, n, m = Z.transpose(), m, n
    zbits = functools.cache(lambda: _bits(Z))  # for the time limit only; computed at most once
    full = min(n, m)
    best, lower = -1, ""
    for p in RANK_PRIMES:  # the second prime only if the first one's factorization fails
        R, rho = nmod_mat(Z, p).rref()
        if rho > best:
            best, lower = rho, _modulo(p)
        if best == full:
            return RankResult(best, lower, f"the matrix shape ({shape})")
        if best == 0 and Z.is_zero():
            return RankResult(0, "the zero matrix", "the zero matrix")
        if rho == best and rho > 0 and max_seconds is not None:
            predicted = predicted_upper_seconds(n, m, rho, zbits())
            if predicted > max_seconds:
                return RankResult(rho, lower, f"not attempted: proving rank ≤ {rho} of this {shape} matrix of "
                                  f"{zbits():,}-bit integers is predicted to take about {predicted:,.0f} s, more than "
                                  f"the {max_seconds:,.0f} s allowed", exact=False)
        if rho == best and rho > 0:
            blocks = _pivot_blocks(Z, R, rho, p)
            cert = None
            if blocks is not None and factorization in ("auto", "lattice"):
                cert = _small_factorization(Z, blocks[1], blocks[2], rho, always=factorization == "lattice",
                                            max_seconds=max_seconds)
            if cert is None and blocks is not None and factorization in ("auto", "modular"):
                if max_seconds is not None:
                    predicted = _modular_seconds(n, m, rho, rho * (zbits() + rho.bit_length()), zbits())
                    if predicted > max_seconds:
                        return RankResult(rho, lower, f"not attempted: no small factorization was found, and checking the "
                                          f"plain one for this {shape} matrix of {zbits():,}-bit integers is "
                                          f"predicted to take about {predicted:,.0f} s, more than the {max_seconds:,.0f} s "
                                          "allowed", exact=False)
                cert = _factorization_certificate(Z, *blocks, rho, p)
            if cert is not None:
                return RankResult(rho, lower, cert + (" (for the transpose, which has the same rank)" if transposed else ""))
    if max_seconds is not None and predicted_upper_seconds(n, m, full, zbits()) > max_seconds:
        return RankResult(best, lower, "not attempted: the factorization checks failed (a prime divided a minor) and "
                          f"exact elimination is not bounded by the {max_seconds:,.0f} s allowed", exact=False)
    exact_r = Z.rank()  # every prime divided a minor: fall back to exact elimination
    how = "exact elimination (python-flint fmpz_mat.rank)"
    return RankResult(exact_r, how, how)


def exact_rank(matrix) -> int:
    """The exact rank of a rational matrix (``fmpq_mat``, ``fmpz_mat`` or rows); see :func:`matrix_rank`."""
    return matrix_rank(matrix).rank


def factored_matrix_rank(P, K, *, max_seconds: float | None = None) -> RankResult:
    """:func:`factored_rank` with the sources of its bounds (:class:`RankResult`; ``max_seconds`` as in :func:`matrix_rank`)."""
    if P.ncols() != K.ncols():
        raise ValueError(f"factors have {P.ncols()} and {K.ncols()} columns")
    if P.ncols() > min(P.nrows(), K.nrows()):  # wider than the product: the r × r Gram matrix would be the larger
        res = matrix_rank(P * K.transpose(), max_seconds=max_seconds)
        return RankResult(res.rank, f"rank(Φ_QΦ_Kᵀ): {res.lower_from}", res.upper_from, res.exact)
    res = matrix_rank(P * (K.transpose() * K), max_seconds=max_seconds)
    return RankResult(res.rank, f"rank(Φ_Q·Φ_KᵀΦ_K) = rank(Φ_QΦ_Kᵀ): {res.lower_from}", res.upper_from, res.exact)


def factored_rank(P, K) -> int:
    """``rank(P Kᵀ)`` for ``fmpq_mat`` factors ``P`` (``n₁ × r``) and ``K`` (``n₂ × r``), without forming ``P Kᵀ``.

    Over ``Q`` the column space of ``Kᵀ`` equals that of the ``r × r`` Gram matrix
    ``KᵀK`` (``KᵀKx = 0`` gives ``|Kx|² = 0``), so ``rank(P Kᵀ) = rank(P·KᵀK)``, an
    ``n₁ × r`` matrix: for a kernel of feature width ``r`` this costs ``O(n r²)``
    instead of an ``n × n`` elimination (a 2,000 × 2,000 kernel of width 64 in well
    under a second rather than minutes).
    """
    return factored_matrix_rank(P, K).rank
