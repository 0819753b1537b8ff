"""The reduced search when interpolated keys are shared: the roots' block, every other key a combination of roots (docs/math.md §12, "Shared interpolated keys").

Row ``m = 28``'s reduced matrix is 1,876 × 46,575: every query's keys are the 1,876
complements (the *roots*, each some query's scale key) and 44,699 interpolated keys, each
used by 1 to 18 queries. A dense search of that block does not fit (87 M entries). But an
interpolated key ``k`` needs no features of its own (docs/math.md §12, Lemma 12.2): with
``φ_K(k) = Σ_j c_j φ_K(root_j)``, ``c ≥ 0``,

* the rank is the rank of the roots' block ``C`` (queries × roots), whatever ``c`` is;
* ``α(x, k) = Σ_j c_j α(x, root_j) ≥ 0`` on every pair once ``C ≥ 0``;
* the values ``A[S, k]`` its users need are ``(C c)[S]``: a small problem per key.

So the search is the box search of :mod:`certify.bracket.boxes` on ``C`` alone — its box
taken from the whole family's box (:func:`certify.bracket.boxes.pair_boxes`, which already
passes every chain through its interpolated key) — stopped when ``C`` meets its own
conditions (:func:`core_reduced`: the jumps between roots) and :func:`fill` gives every
interpolated key values at the middle of what ``C`` leaves them (between the bounds of its
jumps in each user's row), as a combination ``c ≥ 0`` (:func:`fill`; a rank where some key
gets none is *not found*). Nothing here is trusted: :mod:`certify.bracket.lift` rounds ``C``'s
factors and ``c`` and the exact check decides.

Covered: families whose rows have no own key (``a_S = 0``) and no jump between two
interpolated keys (row ``m = 28``); :func:`split` refuses others with the reason.
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from .boxes import inside, pair_boxes
from .descent import FLOOR, constraints
from .reduced import ETA, Reduced, ReductionError

__all__ = ["Split", "split", "core_box", "core_reduced", "fill", "combine", "sparse_violations", "MARGIN",
           "C_BITS", "CANDIDATES", "nnls", "RootedSearch"]

#: The margin :func:`fill` keeps on every condition of an interpolated key (its right-hand sides times this).
MARGIN = 1.002
#: A shared key's combination is fitted over its users' roots and this many other roots (the flattest relative profiles).
CANDIDATES = 32
#: The refits of a shared key's combination over every root when the flattest candidates miss (:func:`_fit`).
REWEIGHTS = 6
#: ``c`` is rounded to multiples of ``2^−C_BITS`` (the lifted table's key features are then exact integer combinations).
C_BITS = 20


@dataclass(frozen=True)
class Split:
    """The roots (``core``: columns of some query's scale key) and the other keys, each with its users' rows."""

    core: np.ndarray  # sorted columns of the roots
    other: np.ndarray  # sorted columns of the other keys
    where: np.ndarray  # (K,) position of a column in core, or −1
    users_ptr: np.ndarray  # CSR over `other`: users of other[i] are users_row[users_ptr[i]:users_ptr[i + 1]]
    users_row: np.ndarray


def split(red: Reduced) -> Split:
    """The roots and the other keys of ``red``; :class:`ReductionError` if the search of this module does not cover it."""
    Qn, K = red.shape
    if (red.own >= 0).any():
        raise ReductionError("the search by roots covers rows without an own key (α(x_S, x_S) not an entry of the "
                             "block); this family's query tokens are also keys")
    core = np.unique(red.root)
    where = np.full(K, -1, dtype=np.int64)
    where[core] = np.arange(len(core))
    if ((where[red.jy] < 0) & (where[red.jz] < 0)).any():
        raise ReductionError("the search by roots covers families whose jumps all touch a root (a query's scale key); "
                             "this one has a jump between two interpolated keys")
    other = np.flatnonzero(where < 0)
    mask = where[red.pk] < 0
    pk, pq = red.pk[mask], red.pq[mask]
    order = np.lexsort((pq, pk))
    pk, pq = pk[order], pq[order]
    pos = np.searchsorted(other, pk)
    ptr = np.zeros(len(other) + 1, dtype=np.int64)
    np.add.at(ptr, pos + 1, 1)
    return Split(core, other, where, np.cumsum(ptr), pq)


def core_box(red: Reduced, sp: Split, progress=None, **box) -> tuple[np.ndarray, np.ndarray, tuple]:
    """``(LO, HI)`` of the roots' block (dense ``queries × roots``), from the whole family's box; also that box."""
    Qn, K = red.shape
    flat, lo, hi = pair_boxes(red, progress=progress, **box)
    q, k = np.divmod(flat, K)
    c = sp.where[k] >= 0
    LO = np.full((Qn, len(sp.core)), 1.5 * box.get("floor", FLOOR))
    HI = np.full((Qn, len(sp.core)), np.inf)
    LO[q[c], sp.where[k[c]]] = lo[c]
    HI[q[c], sp.where[k[c]]] = hi[c]
    return LO, HI, (flat, lo, hi)


def _intervals(red: Reduced, sp: Split, C: np.ndarray, margin: float):
    """Per interpolated used pair (in CSR order of :class:`Split`): the interval its value may take given ``C``."""
    eta = float(ETA)
    Qn, K = red.shape
    # the interpolated used pairs, numbered as the CSR lists them (by key, then row)
    key_of = np.repeat(sp.other, np.diff(sp.users_ptr))
    flat = key_of * Qn + sp.users_row  # sorted: by key, then row
    lo = np.full(len(flat), 1.5 * FLOOR)
    hi = np.full(len(flat), np.inf)
    up = sp.where[red.jz] < 0  # jumps into an interpolated key: its upper end, from its better key (a root)
    e = np.searchsorted(flat, red.jz[up] * Qn + red.jq[up])
    np.minimum.at(hi, e, (1 - eta) * C[red.jq[up], sp.where[red.jy[up]]] / (margin * (red.jd[up] - 1 + eta)))
    down = sp.where[red.jy] < 0  # jumps out of an interpolated key: its lower end, from its worse key (a root)
    e = np.searchsorted(flat, red.jy[down] * Qn + red.jq[down])
    np.maximum.at(lo, e, margin * (red.jd[down] - 1 + eta) * C[red.jq[down], sp.where[red.jz[down]]] / (1 - eta))
    return lo, hi


def nnls(A: np.ndarray, b: np.ndarray) -> np.ndarray:
    """The nonnegative least-squares ``x ≥ 0`` minimizing ``|A x − b|`` (Lawson–Hanson; small systems)."""
    n = A.shape[1]
    x = np.zeros(n)
    P = np.zeros(n, dtype=bool)
    w = A.T @ b
    for _ in range(3 * n):
        free = np.where(P, -np.inf, w)
        j = int(np.argmax(free))
        if P.all() or free[j] <= 1e-12:
            break
        P[j] = True
        while True:
            z = np.zeros(n)
            z[P] = np.linalg.lstsq(A[:, P], b, rcond=None)[0]
            if (z[P] > 0).all():
                x = z
                break
            neg = P & (z <= 0)
            step = np.min(x[neg] / (x[neg] - z[neg]))
            x = x + step * (z - x)
            P &= x > 1e-15
            x[~P] = 0.0
            if not P.any():
                break
        w = A.T @ (b - A @ x)
    return x


def _fit(R: np.ndarray, lo: np.ndarray, hi: np.ndarray, rounds: int) -> tuple[np.ndarray, bool]:
    """``(c ≥ 0, whether lo ≤ R c ≤ hi)``: :func:`nnls` of ``R c ≈ 1``, then up to ``rounds − 1`` refits with the
    rows it misses weighted four times more."""
    weight = np.ones(len(R))
    for _ in range(rounds):
        x = nnls(R * weight[:, None], weight)
        v = R @ x
        miss = (v < lo) | (v > hi)
        if not miss.any():
            return x, True
        weight[miss] *= 4
    return x, False


def fill(red: Reduced, sp: Split, C: np.ndarray, margin: float = MARGIN, candidates: int = CANDIDATES):
    """``(ptr, cols, coef, bad)``: per interpolated key ``k`` (CSR over ``sp.other``) the roots' columns ``cols`` and
    coefficients ``coef ≥ 0`` of its combination, and the number of keys for which none was found with every value
    inside its interval.

    A key of one user takes its user's root, scaled to the geometric middle of its interval
    (:func:`_intervals`). A key of several users: the values relative to those middles,
    ``R = C[users, :] / target``, and the nonnegative least-squares fit of ``R c ≈ 1``
    (:func:`nnls`) over its users' roots and the ``candidates`` columns whose relative
    profile is flattest (``min R / max R`` over the users); if that misses an interval, over
    every root, reweighted (:func:`_fit`).
    """
    lo, hi = _intervals(red, sp, C, margin)
    target = np.sqrt(lo * np.where(np.isfinite(hi), hi, lo * 4))
    sizes = np.diff(sp.users_ptr)
    cols: list[np.ndarray] = [np.zeros(0, dtype=np.int64)] * len(sizes)
    coefs: list[np.ndarray] = [np.zeros(0)] * len(sizes)
    bad = 0
    one = np.flatnonzero(sizes == 1)  # vectorized: c = target / C[S, root_S]
    e = sp.users_ptr[one]
    rows = sp.users_row[e]
    roots = sp.where[red.root[rows]]
    c1 = target[e] / C[rows, roots]
    ok1 = (c1 > 0) & (c1 * C[rows, roots] >= lo[e]) & (c1 * C[rows, roots] <= hi[e])
    bad += int((~ok1).sum())
    for i, key in enumerate(one):
        cols[key], coefs[key] = roots[i:i + 1], c1[i:i + 1]
    for key in np.flatnonzero(sizes > 1):
        a, b = sp.users_ptr[key], sp.users_ptr[key + 1]
        rows = sp.users_row[a:b]
        R = C[rows] / target[a:b, None]
        flat = R.min(axis=0) / np.maximum(R.max(axis=0), 1e-300)
        take = np.argpartition(-flat, candidates)[:candidates] if R.shape[1] > candidates else np.arange(R.shape[1])
        take = np.unique(np.concatenate([take, sp.where[red.root[rows]]]))
        x, good = _fit(R[:, take], lo[a:b] / target[a:b], hi[a:b] / target[a:b], 1)
        if not good:  # every root, the rows it misses weighted up (REWEIGHTS rounds)
            take = np.arange(R.shape[1])
            x, good = _fit(R, lo[a:b] / target[a:b], hi[a:b] / target[a:b], REWEIGHTS)
        bad += not good
        keep = x > 0
        cols[key], coefs[key] = take[keep], x[keep]
    ptr = np.concatenate([[0], np.cumsum([len(c) for c in cols])])
    return ptr, np.concatenate(cols), np.concatenate(coefs), bad


def combine(red: Reduced, sp: Split, Qcore: np.ndarray, ptr: np.ndarray, cols: np.ndarray,
            coef: np.ndarray) -> np.ndarray:
    """The key factor of every column: the roots' rows of ``Qcore``, every other key ``Σ_j c_j`` times its roots' rows.

    Exact when ``Qcore`` and ``coef`` are integers whose products and sums stay below 2⁵³
    (:meth:`RootedSearch.roundings`): the table's key features are then exact combinations,
    and its rank is the roots' block's.
    """
    K = red.shape[1]
    Q = np.zeros((K, Qcore.shape[1]))
    Q[sp.core] = Qcore
    key = np.repeat(np.arange(len(sp.other)), np.diff(ptr))
    acc = np.zeros((len(sp.other), Qcore.shape[1]))
    np.add.at(acc, key, coef[:, None] * Qcore[cols])
    Q[sp.other] = acc
    return Q


def sparse_violations(red: Reduced, P: np.ndarray, Q: np.ndarray, chunk: int = 200_000) -> int:
    """Theorem 12.1 (b) without margin on every used pair and jump, in floats, from the factors (never the dense block).

    The number of violated conditions: a jump (``(1 − η)·A_y > (w − t − 1 + η)·a + (d − 1 +
    η)·A_z``), a key (``2(1 − η)·A_k > (w − o − 1 + η)·a``, ``A_k > 0``); ``a = A[S, own_S]``
    or 0. (The whole block's ``α ≥ 0`` is the exact check's: :func:`certify.kernels.audit.all_pairs_nonnegative`.)
    """
    eta = float(ETA)
    Qn, K = red.shape

    def values(q, k):
        return np.concatenate([np.einsum("ij,ij->i", P[q[i:i + chunk]], Q[k[i:i + chunk]])
                               for i in range(0, len(q), chunk)]) if len(q) else np.zeros(0)

    has_a = red.own >= 0
    a = np.zeros(Qn)
    rows = np.flatnonzero(has_a)
    a[rows] = values(rows, red.own[has_a])
    y, z = values(red.jq, red.jy), values(red.jq, red.jz)
    bad = int(((1 - eta) * y <= (red.weight[red.jq] - red.jt - 1 + eta) * a[red.jq] + (red.jd - 1 + eta) * z).sum())
    v = values(red.pq, red.pk)
    bad += int(((v <= 0) | (2 * (1 - eta) * v <= (red.weight[red.pq] - red.po - 1 + eta) * a[red.pq])).sum())
    return bad


def core_reduced(red: Reduced, sp: Split) -> Reduced:
    """``red`` on the roots' columns only: their used pairs and the jumps between two roots (the conditions of ``C``
    itself; a jump through an interpolated key is :func:`fill`'s)."""
    from dataclasses import replace

    p = sp.where[red.pk] >= 0
    j = (sp.where[red.jy] >= 0) & (sp.where[red.jz] >= 0)
    return replace(red, keys=tuple(red.keys[c] for c in sp.core), own=red.own.copy(), root=sp.where[red.root],
                   pq=red.pq[p], pk=sp.where[red.pk[p]], po=red.po[p], jq=red.jq[j], jy=sp.where[red.jy[j]],
                   jz=sp.where[red.jz[j]], jd=red.jd[j], jt=red.jt[j])


class RootedSearch:
    """What :func:`certify.bracket.upper.upper_side` needs to search a family by roots: the core's box, its stopping
    test (the box, then :func:`fill` with no key left out), its exponential start and the roundings to check."""

    def __init__(self, red: Reduced, progress=None) -> None:
        self.red = red
        self.split = split(red)
        self.LO, self.HI, self.box = core_box(red, self.split, progress)
        self.con = constraints(core_reduced(red, self.split))

    @property
    def shape(self) -> tuple[int, int]:
        return self.red.shape[0], len(self.split.core)

    def test(self, A: np.ndarray) -> bool:
        """Found: ``C`` meets its own conditions (:func:`certify.bracket.boxes.inside` on :func:`core_reduced`: the
        jumps between roots, the floor, ``≥ 0``) and :func:`fill` gives every other key its values."""
        return inside(self.con, A) and fill(self.red, self.split, A)[3] == 0

    def exponential_start(self) -> np.ndarray:
        """The exponential start (:func:`certify.bracket.descent.exponential_start`) on the roots' columns."""
        red, sp = self.red, self.split
        E = np.zeros(self.shape)
        low = np.array([(x & red.keys[c]).bit_count() for x, c in zip(red.queries, red.root)])
        m = sp.where[red.pk] >= 0
        E[red.pq[m], sp.where[red.pk[m]]] = 0.5 ** (red.po[m] - low[red.pq[m]]).astype(float)
        return E

    def roundings(self, P: np.ndarray, Qcore: np.ndarray):
        """``(denominator, key denominator, P, Q)`` per denominator of :data:`certify.bracket.lift.DENOMINATORS`:
        ``P`` and the roots' factor rounded, ``c`` recomputed on the rounded block (:func:`fill`) and rounded to
        ``2^−C_BITS``, every other key's features their exact combination (skipped when a key keeps no ``c ≥ 0``,
        or when the integers would pass 2⁵² and the floats stop being exact)."""
        from .lift import DENOMINATORS, rounded

        red, sp = self.red, self.split
        for den in DENOMINATORS:
            Pr, Qr = rounded(P, den), rounded(Qcore, den)
            ptr, cols, coef, bad = fill(red, sp, Pr @ Qr.T)
            if bad:
                continue
            cr = np.rint(coef * 2**C_BITS)
            Qint = np.rint(Qr * den)
            terms = int(np.diff(ptr).max(initial=1))
            if float(np.abs(Qint).max()) * float(cr.max(initial=1.0)) * terms >= 2.0**52:
                continue
            kden = den * 2**C_BITS
            Q = combine(red, sp, Qint, ptr, cols, cr)  # the other keys: integers over kden
            Q[sp.core] *= 2**C_BITS  # the roots' rows over kden too
            yield den, kden, Pr, Q / kden

    def holds(self, P: np.ndarray, Q: np.ndarray) -> bool:
        """:func:`sparse_violations` finds nothing (the rounding's test in floats before the exact check)."""
        return sparse_violations(self.red, P, Q) == 0
