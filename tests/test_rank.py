"""Exact ranks of rational matrices with the source of each bound (certify/linalg/rank.py; docs/math.md §2)."""
from fractions import Fraction

import pytest
from flint import fmpq, fmpq_mat, fmpz_mat
from hypothesis import assume, event, given, settings
from hypothesis import strategies as st

from certify.linalg.rank import RANK_PRIMES, exact_rank, factored_matrix_rank, matrix_rank

small_ints = st.integers(-5, 5)


# --------------------------------------------------------------------------- fast


@st.composite
def low_rank_products(draw):
    """``P·Kᵀ`` with rational factors of width ``r``: rank ≤ r, usually rank-deficient."""
    n, m, r = draw(st.integers(1, 9)), draw(st.integers(1, 9)), draw(st.integers(1, 4))
    q = st.fractions(min_value=-4, max_value=4, max_denominator=7)
    P = [[draw(q) for _ in range(r)] for _ in range(n)]
    K = [[draw(q) for _ in range(r)] for _ in range(m)]
    return [[sum(a * b for a, b in zip(p, k)) for k in K] for p in P]


@given(low_rank_products())
def test_matrix_rank_equals_exact_elimination(rows):
    res = matrix_rank(rows)
    flat = [fmpq(v.numerator, v.denominator) for r in rows for v in r]
    assert res.rank == fmpq_mat(len(rows), len(rows[0]), flat).rank()
    event(res.upper_from.split(" (")[0].split(",")[0])


@settings(max_examples=60)
@given(low_rank_products(), st.sampled_from(["lattice", "modular"]))
def test_both_factorization_paths_equal_exact_elimination(rows, path):
    """Each upper-bound path alone (the other cannot rescue it) gives the exact rank."""
    res = matrix_rank(rows, factorization=path)
    flat = [fmpq(v.numerator, v.denominator) for r in rows for v in r]
    assert res.rank == fmpq_mat(len(rows), len(rows[0]), flat).rank()
    if res.upper_from.startswith("a rank factorization"):
        assert ("small entries" in res.upper_from) == (path == "lattice")


@settings(max_examples=40)
@given(st.integers(2, 7), st.integers(1, 5), st.integers(2, 70), st.data())
def test_a_false_rank_claim_is_never_certified(n, rho, bits, data):
    """Both factorization checks, handed ρ pivot columns and rows of a matrix of rank > ρ, refuse.

    The matrix is a rank-ρ product plus a rank-one term, so its rank is ρ + 1 (checked by
    exact elimination); the blocks are taken from its leading ρ × ρ minor when that is
    invertible. A check that trusted its own construction would accept.
    """
    from certify.linalg import rank as F

    rho = min(rho, n - 1)
    ints = st.integers(-2**bits, 2**bits)
    P = [[data.draw(ints) for _ in range(rho + 1)] for _ in range(n)]
    K = [[data.draw(ints) for _ in range(rho + 1)] for _ in range(n)]
    Z = fmpz_mat([[sum(a * b for a, b in zip(p, k)) for k in K] for p in P])
    assume(Z.rank() == rho + 1)
    J, I = list(range(rho)), list(range(rho))
    G = fmpz_mat([[Z[i, j] for j in J] for i in I])
    assume(G.det() != 0)
    ZJ = fmpz_mat([[Z[i, j] for j in J] for i in range(n)])
    assert F._small_factorization(Z, ZJ, I, rho, always=True) is None
    assert F._factorization_certificate(Z, J, ZJ, I, rho, 1048573) is None


def test_the_cost_model_and_the_rank_cap_choose_the_modular_path(monkeypatch):
    from certify.linalg import rank as F

    rows = [[1, 2, 3], [2, 4, 6], [1, 0, 1]]
    assert "small entries" in matrix_rank(rows).upper_from  # tiny: LLL is predicted cheaper
    monkeypatch.setattr(F, "LATTICE_MAX_RANK", 1)
    res = matrix_rank(rows)
    assert res.rank == 2 and "modulo primes" in res.upper_from
    monkeypatch.setattr(F, "LATTICE_MAX_RANK", 192)
    monkeypatch.setattr(F, "_LLL_COST", 1e9)  # LLL predicted dearer than the modular check
    assert "modulo primes" in matrix_rank(rows).upper_from
    assert "small entries" in matrix_rank(rows, factorization="lattice").upper_from


def test_a_kernel_of_wide_entries_gets_a_small_factorization():
    """A product of 40-bit factors, width 6, 30 × 30: the lattice factors stay near 40 bits,
    where the plain rank factorization ``G⁻¹Z[I,:]`` has entries of about 6 × 40 bits."""
    import random

    rnd = random.Random(5)
    P = fmpz_mat(30, 6, [rnd.getrandbits(40) for _ in range(180)])
    K = fmpz_mat(6, 30, [rnd.getrandbits(40) for _ in range(180)])
    res = matrix_rank(P * K, factorization="lattice")
    assert res.rank == 6
    bits = [int(w) for w in res.upper_from.split("at most ")[1].split(" bits")[0].split(" and ")]
    assert max(bits) <= 50, res.upper_from


def test_an_unknown_factorization_path_is_refused():
    with pytest.raises(ValueError, match="factorization must be"):
        matrix_rank([[1]], factorization="fast")


def test_rank_sources_are_named():
    full = matrix_rank([[1, 2], [3, 4]])
    assert full.rank == 2 and full.lower_from.startswith("its rank modulo") and full.upper_from.startswith("the matrix shape")
    deficient = matrix_rank([[1, 2, 3], [2, 4, 6], [1, 1, 1]])
    assert deficient.rank == 2 and deficient.upper_from.startswith("a rank factorization with 2 columns")
    assert matrix_rank([[0, 0]]).rank == 0 == matrix_rank([]).rank


def test_a_prime_dividing_every_minor_falls_back_to_exact_elimination():
    """rank 2, but 1 modulo both primes: the factorization check must fail and elimination decide."""
    p, q = RANK_PRIMES
    for path in ("auto", "lattice", "modular"):
        res = matrix_rank([[p * q, 0], [0, 1]], factorization=path)
        assert res.rank == 2 and "elimination" in res.upper_from and "elimination" in res.lower_from


def test_flint_matrices_are_taken_as_they_are():
    A = fmpq_mat(3, 3, [fmpq(1, 2), 1, 0, 1, 2, 0, 0, 0, fmpq(1, 3)])
    assert matrix_rank(A).rank == 2 == exact_rank(A) == exact_rank(fmpz_mat([[1, 2, 0], [2, 4, 0], [0, 0, 1]]))
    P = fmpq_mat(4, 2, [1, 0, 0, 1, 1, 1, 2, 3])
    assert factored_matrix_rank(P, P).rank == 2


def test_multi_limb_entries_are_verified():
    """Entries of several 56-bit limbs, negative too: the split must reproduce them exactly."""
    big = 2**130 + 12345
    rows = [[big, -3 * big, 5], [2 * big, -6 * big, 10], [-big, 3 * big, -5]]
    res = matrix_rank(rows)
    assert res.rank == 1 and res.upper_from.startswith("a rank factorization")
    rows[2][2] = -4  # now rank 2
    assert matrix_rank(rows).rank == 2


def test_factors_wider_than_their_product_take_the_product_not_the_gram_matrix():
    from flint import fmpq_mat

    from certify.linalg.rank import factored_matrix_rank, matrix_rank

    P = fmpq_mat(2, 6, [1, 2, 0, 0, 1, 3, 2, 4, 0, 0, 2, 6])  # rank 1, width 6 > 2 rows
    K = fmpq_mat(3, 6, list(range(1, 19)))
    res = factored_matrix_rank(P, K)
    assert res.rank == matrix_rank(P * K.transpose()).rank == 1
    assert res.lower_from.startswith("rank(Φ_QΦ_Kᵀ)")


@settings(max_examples=60)
@given(low_rank_products(), st.lists(st.integers(1, 10**6), min_size=9, max_size=9),
       st.lists(st.integers(1, 10**6), min_size=9, max_size=9))
def test_clearing_denominators_line_by_line_keeps_the_rank(rows, rs, cs):
    """Rows and columns scaled by arbitrary 1/r_i, 1/c_j, then cleared line by line: same rank."""
    from certify.linalg import rank as F

    scaled = [[Fraction(v) / (rs[i] * cs[j]) for j, v in enumerate(row)] for i, row in enumerate(rows)]
    flat = [fmpq(v.numerator, v.denominator) for r in scaled for v in r]
    A = fmpq_mat(len(scaled), len(scaled[0]), flat)
    Z = F._cleared_by_lines(A)
    assert Z.nrows() == A.nrows() and Z.ncols() == A.ncols()
    assert Z.rank() == A.rank() == matrix_rank(A).rank
    assert all(Z[i, j] == 0 for i in range(Z.nrows()) for j in range(Z.ncols()) if A[i, j] == 0)  # zeros stay


def test_a_different_large_denominator_in_each_column_is_cleared_column_by_column():
    """α(x, z) = 1/e_z with 100-digit e_z on 15 × 239: one common denominator has ≈ 79,000 bits; by columns, 1 bit."""
    import random

    from certify.linalg import rank as F

    rnd = random.Random(3)
    e = [rnd.randrange(10**99, 10**100) | 1 for _ in range(239)]
    A = fmpq_mat(15, 239, [fmpq(1, e[j]) for i in range(15) for j in range(239)])
    assert int(A.numer_denom()[1]).bit_length() > 50_000
    assert F._bits(F._integer_matrix(A)) == 1 and F._bits(F._integer_matrix(A.transpose())) == 1
    both = fmpq_mat(15, 239, [fmpq(1, e[j] * e[i]) for i in range(15) for j in range(239)])  # 1/(r_i c_j)
    assert F._bits(F._integer_matrix(both)) == 1
    res = matrix_rank(A)
    assert res.rank == 1 and "at most 1 and 1 bits" in res.upper_from


@settings(max_examples=60)
@given(low_rank_products(), st.lists(st.integers(1, 10**40), min_size=9, max_size=9))
def test_rank_of_pairs_equals_exact_elimination(rows, cs):
    """The table path (pairs, denominators cleared by lcm or line by line) gives the exact rank."""
    from certify.linalg.rank import matrix_rank_of_pairs

    scaled = [[Fraction(v) / cs[j] for j, v in enumerate(row)] for row in rows]
    pq = [(v.numerator, v.denominator) for r in scaled for v in r]
    res = matrix_rank_of_pairs(len(rows), len(rows[0]), pq)
    assert res.exact and res.rank == fmpq_mat(len(rows), len(rows[0]), [fmpq(p, q) for p, q in pq]).rank()


def test_a_proof_predicted_too_slow_is_not_attempted_and_says_so():
    rows = [[1, 2, 3], [2, 4, 6], [1, 0, 1]]
    res = matrix_rank(rows, max_seconds=1e-12)
    assert res.rank == 2 and not res.exact and res.upper_from.startswith("not attempted: proving rank ≤ 2")
    assert matrix_rank([[1, 2], [3, 4]], max_seconds=1e-12).exact  # full rank: the shape is the upper bound, free
    assert matrix_rank(rows, max_seconds=60).exact


def test_denominators_too_large_to_clear_give_the_lower_bound_modulo_a_prime(monkeypatch):
    from certify.linalg import rank as F

    monkeypatch.setattr(F, "MAX_CLEARED_BITS", 1)
    big = [10**50 + 3, 10**50 + 7, 10**50 + 9]  # three denominators: no common one under 256 bits
    deficient = [(1, big[j]) for i in range(3) for j in range(3)]  # rank 1
    res = F.matrix_rank_of_pairs(3, 3, deficient)
    assert res.rank == 1 and not res.exact and "not attempted: clearing" in res.upper_from
    full = [(1 if i == j else 0, big[j]) for i in range(3) for j in range(3)]  # diagonal: rank 3, proved by the shape
    res = F.matrix_rank_of_pairs(3, 3, full)
    assert res.rank == 3 and res.exact and res.upper_from.startswith("the matrix shape")


@pytest.mark.parametrize("path, label", [("lattice", "exact rank: lattice reduction"), ("modular", "exact rank: checking a rank-2")])
def test_the_rank_proof_reports_progress_when_asked(monkeypatch, capsys, path, label):
    monkeypatch.setenv("CERTIFY_PROGRESS", "1")  # forced on (otherwise silent for the first 2 s)
    assert matrix_rank([[1, 2, 3], [2, 4, 6], [1, 0, 1]], factorization=path).rank == 2
    assert label in capsys.readouterr().err
