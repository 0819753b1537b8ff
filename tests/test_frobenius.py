"""Trace–Frobenius bounds (A.2; docs/math.md §5), checked against exact ranks from python-flint."""
from fractions import Fraction

import pytest
from hypothesis import assume, event, given, settings, target
from hypothesis import strategies as st

from certify.lemmas.frobenius import (
    certified_rank,
    exact_rank,
    matrix_trace_frobenius,
    trace_frobenius_ratio,
    uniform_bound,
)

small_ints = st.integers(-5, 5)


@given(st.integers(1, 7).flatmap(lambda n: st.lists(st.lists(small_ints, min_size=n, max_size=n), min_size=n, max_size=n)))
def test_trace_frobenius_never_exceeds_exact_rank(rows):
    assume(any(v for r in rows for v in r))
    assert matrix_trace_frobenius(rows) <= exact_rank(rows)


@st.composite
def factored_kernels(draw):
    """Nonnegative B = Φ_Q Φ_Kᵀ of width r: query/key i gets a large entry on feature f_i plus noise.

    Distinct f_i (possible only when r ≥ t) make B dominated; shared ones make it fail.
    """
    t = draw(st.integers(2, 5))
    r = draw(st.integers(1, t))
    big = draw(st.integers(1, 12))
    feat = draw(st.lists(st.integers(0, r - 1), min_size=t, max_size=t))
    noise = st.lists(st.lists(st.integers(0, 2), min_size=r, max_size=r), min_size=t, max_size=t)
    nq, nk = draw(noise), draw(noise)
    phi_q = [[big * (k == feat[i]) + nq[i][k] for k in range(r)] for i in range(t)]
    phi_k = [[big * (k == feat[i]) + nk[i][k] for k in range(r)] for i in range(t)]
    return t, r, phi_q, phi_k


@given(factored_kernels(), st.sampled_from([1, 2, 3, 4]))
def test_certified_bound_never_exceeds_rank_of_a_dominated_kernel(kernel, F):
    """Any nonnegative B = Φ_Q Φ_Kᵀ with B_SS > F·B_SU for all S ≠ U has rank ≥ the certified bound.

    F = 1, t = 2 is tight (bound 2 = full rank): an implementation that lost the strict
    inequality would certify only 1.
    """
    t, r, phi_q, phi_k = kernel
    B = [[sum(a * b for a, b in zip(phi_q[i], phi_k[j])) for j in range(t)] for i in range(t)]
    margin = min(B[i][i] - F * B[i][j] for i in range(t) for j in range(t) if i != j)
    target(float(margin), label="domination margin")  # steer the search towards dominated kernels
    event(f"dominated={margin > 0}")
    if margin > 0:
        bound = certified_rank(t, [F] * (t * (t - 1)))
        assert exact_rank(B) >= bound
        assert r >= bound  # the feature width can never be below the bound


def test_two_by_two_domination_is_tight():
    assert certified_rank(2, [1, 1]) == 2 == exact_rank([[2, 1], [1, 2]])


def test_unit_diagonal_with_small_entries_has_large_rank():
    # C = I + ε(J − I): nearly identity, rank t; the bound must not exceed it.
    t, F = 15, 4
    C = [[Fraction(1) if i == j else Fraction(1, 5) for j in range(t)] for i in range(t)]
    assert exact_rank(C) == 15 >= certified_rank(t, [F] * 210) == 9


def test_rank_nine_numbers():
    assert trace_frobenius_ratio(15, [4] * 210) == 8
    assert certified_rank(15, [4] * 210) == 9
    assert trace_frobenius_ratio(15, [5] * 210) == Fraction(125, 13)
    assert certified_rank(15, [5] * 210) == 10


def test_uniform_form_is_at_least_half_the_minimum():
    for t in (2, 10, 100):
        for lam in (1, 2, 7, 30):
            assert uniform_bound(t, lam) >= Fraction(min(t, lam * lam), 2)


def test_refusals():
    with pytest.raises(ValueError, match="t ≥ 2"):
        certified_rank(1, [])
    with pytest.raises(ValueError, match="t\\(t−1\\)"):
        trace_frobenius_ratio(3, [2] * 5)
    with pytest.raises(TypeError):
        certified_rank(2, [2.0, 2])
    with pytest.raises(ValueError):
        matrix_trace_frobenius([[0, 0], [0, 0]])


# --------------------------------------------------------------------------- exact ranks, fast

from flint import fmpq, fmpq_mat, fmpz_mat  # noqa: E402

from certify.lemmas.frobenius import RANK_PRIMES, factored_matrix_rank, matrix_rank  # noqa: E402


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
    from certify.lemmas import frobenius as F

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
    from certify.lemmas import frobenius as F

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

    from certify.lemmas.frobenius import factored_matrix_rank, matrix_rank

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
    from certify.lemmas import frobenius as F

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

    from certify.lemmas import frobenius as F

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
    from certify.lemmas.frobenius import matrix_rank_of_pairs

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
    from certify.lemmas import frobenius as F

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
