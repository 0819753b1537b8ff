"""The paper's bounds at one ``m``, one :class:`~certify.bounds.quantities.Section` each (docs/math.md §7).

* :func:`theorem1` — one head, length 3, error < 1/2 (A.2): the closed form
  ``2^{4⌊M/40⌋−1}`` (even ``M ≥ 168``) and the argument evaluated exactly — the
  Gilbert–Varshamov code size ``T_Δ``, the best chain split of the overlap rise ``Δ``
  (factor ``Λ_Δ``), and the trace–Frobenius bound, maximized over ``Δ``;
* :func:`shell` (A.3) and :func:`unique_minimizer` (A.4): ``2^{cM}/(μ²(M+1)V_g(M))``;
* :func:`growing_context` (A.2), :func:`heads` (B.1–B.2), :func:`degree` (B.4),
  :func:`transcripts` (C.3–C.4); :func:`constants` (the constants of A.3, A.4).
"""
from __future__ import annotations

import math
from typing import Any

from codes import middle_ball

from .chains import chain_table, pattern_log2_squared, pattern_split, split_log2
from .code_sizes import T_interval, layer_sizes, log2_T_float
from .quantities import (EXACT_LIMIT, PREC, BoundsInputError, Quantity, Section, arb_log2, check_m, even,
                         interval_quantity, outward, precision)
from .trace_frobenius import (balance_search, float_tf, half_min, null_shifted_tf_bound, optimize_exact,
                              shifted_tf_bound, tf_interval)

__all__ = ["constants", "theorem1", "shell", "unique_minimizer", "g_heads", "heads", "degree", "growing_context", "transcripts"]


def c_constant(mu: int, g: int):
    """``c = 1 − log₂(1 + μ^{−1/g})`` as an arb ball (A.3)."""
    from flint import arb

    lam_inv = arb(mu) ** (arb(-1) / g)
    return 1 - (1 + lam_inv).log() / arb(2).log()


def constants() -> dict[str, Any]:
    """``c₃ = 1 − log₂(1 + 4^{−1/5})`` (A.3) and ``c_uniq = 1 − log₂(1 + 3^{−1/7})`` (A.4)."""
    with precision():
        out = {}
        for name, mu, g in (("c3", 4, 5), ("c_uniq", 3, 7)):
            c = c_constant(mu, g)
            lo, hi = outward(c.lower(), c.upper())
            out[name] = float(c.mid())
            out[f"{name}_interval"] = [lo, hi]
        return out


def theorem1(m: int) -> Section:
    """Theorem 1: one head, exact length 3, error < 1/2 (A.2; docs/math.md §7)."""
    m = check_m(m)
    M = even(m)
    notes = []
    closed_applies = M >= 168
    values: dict[str, Quantity] = {}
    if closed_applies:
        k = 4 * (M // 40) - 1
        values["closed_form"] = Quantity("closed_form", 2**k, (float(k), float(k)))
    else:
        notes.append("closed form 2^(4⌊M/40⌋−1) does not apply: it needs even M ≥ 168 (F(M) ≥ 0)")
    params: dict[str, Any] = {"M": M, "length": 3, "error_below": "1/2"}
    if M < 4:
        values["exact"] = Quantity.of_int(1)
        notes.append("M < 4: no two middle-layer words at directed distance ≥ 2; only r ≥ 1")
        return Section("theorem1", "Theorem 1, A.2", True, values, params, tuple(notes))
    if M <= EXACT_LIMIT:
        layer = layer_sizes(M)
        chains = chain_table(1)
        b, delta, T, L2 = optimize_exact(layer, range(2, layer.h + 1), chains.squared,
                                          balance=lambda d: log2_T_float(M, d) - pattern_log2_squared(d, 1))
        values["exact"] = Quantity.of_int(b)
        params.update(distance=delta, code_size=T, gaps=chains.gaps(delta), chain_factor=chains.factor(delta))
        b2, delta2, _, _ = optimize_exact(layer, range(2, layer.h + 1), chains.squared, value=shifted_tf_bound,
                                           balance=lambda d: log2_T_float(M, d) - pattern_log2_squared(d, 1) - 2)
        values["shifted"] = Quantity.of_int(b2)
        params.update(shifted_distance=delta2)
        notes.append("shifted: the same argument with trace–Frobenius on C − sJ, s = 1/(2Λ) (docs/math.md §5): "
                     "Λ² becomes (2Λ−1)² < 4Λ², at most a factor 4 on Λ² (≤ 2 more bits); the growth rate in m is unchanged")
        # optimize_exact's pruning holds for null_shifted_tf_bound: every Λ² that chains.squared gives is
        # the square of an integer Λ ≥ 1, where the value is min(T, ⌊R⌋ + 1) with R = T(2Λ−1)²/((2Λ−1)² + T − 1)
        # (1 for T < 2). R does not decrease in T (∂R/∂T = k(k−1)/(k + T − 1)² ≥ 0, k = (2Λ−1)²) nor in Λ (R
        # increases with k), so neither does the value — downward pruning; and the cap min(T, ·) keeps it
        # ≤ max(T, 1) — upward pruning.
        b3, delta3, _, _ = optimize_exact(layer, range(2, layer.h + 1), chains.squared, value=null_shifted_tf_bound,
                                           balance=lambda d: log2_T_float(M, d) - pattern_log2_squared(d, 1) - 2)
        values["null_shifted"] = Quantity.of_int(b3)
        params.update(null_shifted_distance=delta3)
        notes.append("null-shifted: the same ratio R with Theorem A (docs/math.md §5, \"The null-space step\": the projector "
                     "on ker C), r ≥ min(T, ⌊R⌋ + 1) instead of ⌈R⌉ − 1: at each Δ one more than shifted, two when R is "
                     "an integer ≥ 2, so one or two more than shifted; the growth rate in m is unchanged")
    else:
        h = M // 2
        cands = list(range(2, h + 1))

        delta = balance_search(cands, lambda d: float_tf(log2_T_float(M, d), pattern_log2_squared(d, 1)))
        with precision():
            gaps = pattern_split(delta, 1)
            T_lo, T_hi = T_interval(M, delta)
            from flint import arb

            L2 = arb(2) ** (2 * split_log2(gaps, 1))
            values["exact"] = tf_interval(T_lo, T_hi, L2, L2)
            params.update(distance=delta, code_size=None, code_size_log2=list(arb_log2(T_lo)), gaps=gaps,
                          chain_factor_log2=round(float(split_log2(gaps, 1).mid()), 6))
        notes.append(f"M > {EXACT_LIMIT}: certified interval; Δ chosen by floating-point search, the value at Δ is certified")
        notes.append(f"shifted and null-shifted values: exact mode only (M ≤ {EXACT_LIMIT})")
    return Section("theorem1", "Theorem 1, A.2", True, values, params, tuple(notes))


def shell_like(M: int, mu: int, g: int, kind_note: str, ref: str, name: str, min_M: int, prefactor: int) -> Section:
    from flint import arb, fmpz

    params = {"M": M, "gap": g, "factor": mu}
    if M < min_M:
        return Section(name, ref, False, {}, params, (f"needs M ≥ {min_M}; here M = {M}",))
    # Enough bits to pin the integer ⌈X⌉ down when M is in the exact range (log₂ X < c·M ≤ M/5).
    with precision(PREC + (M // 4 if M <= EXACT_LIMIT else 0)):
        c = c_constant(mu, g)
        V = middle_ball(M, g)
        X = (arb(2) ** (c * M)) / (arb(fmpz(prefactor * (M + 1) * V)))
        q = interval_quantity(X.ceil().lower(), X.ceil().upper(), "closed_form") if X > 0 else Quantity.of_int(1)
        # r ≥ X and r is an integer: r ≥ ⌈X⌉, never below 1.
        if q.value is not None and q.value < 1:
            q = Quantity("closed_form", 1, (0.0, 0.0))
        params.update(c=float(c.mid()), V_g=V, prefactor=f"{prefactor}(M+1)V_{g}(M)")
        notes = [kind_note]
        if not q.nontrivial:
            notes.append(f"trivial at this m: 2^(cM)/({prefactor}(M+1)V) = 2^{float((X.log() / arb(2).log()).mid()):.2f} < 2")
        return Section(name, ref, True, {"closed_form": q}, params, tuple(notes))


def shell(m: int) -> Section:
    """Distance-sensitive shell counting at length 3 (A.3): ``r ≥ 2^{c₃M}/(16(M+1)V₅(M))``."""
    M = even(check_m(m))
    return shell_like(M, 4, 5, "gap 5, factor 4: c₃ = 1 − log₂(1 + 4^(−1/5))", "A.3", "shell", 2, 16)


def unique_minimizer(m: int) -> Section:
    """Distinct tokens, unique minimizer (A.4): tokens of ``M + 2`` bits, ``r ≥ 2^{c_uniq M}/(9(M+1)V₇(M))``."""
    m = check_m(m)
    M = even(m - 2) if m >= 2 else 0
    return shell_like(M, 3, 7, "effective kernel K = α(q,k₀) + 2α(q,k₁); gap 7, factor 3; tokens (1,1,x), (0,0,w), (1,0,w) of M + 2 bits",
                       "A.4", "unique_minimizer", 14, 9)


def g_heads(H: int) -> int:
    """``g_H = ⌈(1 + (2^L − 1)(1 + 2L)^H)/2⌉`` with ``L = H + 1`` (B.1; also ``g_D`` of B.4 with ``H = D``)."""
    if not isinstance(H, int) or H < 1:
        raise BoundsInputError(f"the number of heads (or the degree) must be a positive integer, not {H!r}")
    L = H + 1
    return -(-(1 + (2**L - 1) * (1 + 2 * L) ** H) // 2)


def stepwise(M: int, g: int, per_head: int, name: str, ref: str, params: dict, notes: list[str]) -> Section:
    """Factor 2 per ``g`` of overlap; ``K = ⌊Δ/g⌋`` steps, ``q = ⌈K/per_head⌉`` for one head (B.2, B.4)."""
    h = M // 2
    params = dict(params, M=M)
    if M < 2 or g > h:
        notes.append(f"needs a chain step of {g} inside overlap M/2 = {h}: no bound at this m")
        return Section(name, ref, False, {}, params, tuple(notes))
    q_of = lambda K: -(-K // per_head)  # noqa: E731
    values: dict[str, Quantity] = {}
    if M <= EXACT_LIMIT:
        layer = layer_sizes(M)
        cands = range(g, h + 1, g)  # Δ = K·g, K = 1, 2, …
        lam2 = lambda d: 4 ** q_of(d // g)  # noqa: E731
        balance = lambda d: log2_T_float(M, d) - 2 * q_of(d // g)  # noqa: E731
        hb, hd, hT, hL = optimize_exact(layer, cands, lam2, half_min, balance)
        b, d, T, L2 = optimize_exact(layer, cands, lam2, balance=balance)
        values["closed_form"] = Quantity.of_int(hb, "closed_form")
        if hd is not None:
            params["closed_form_at"] = {"distance": hd, "K": hd // g, "q": q_of(hd // g), "code_size": hT}
        values["exact"] = Quantity.of_int(b)
        if d is not None:
            params.update(distance=d, K=d // g, q=q_of(d // g), code_size=T)
    else:
        from flint import arb

        cands = [K * g for K in range(1, h // g + 1)]
        d = balance_search(cands, lambda d: float_tf(log2_T_float(M, d), 2 * q_of(d // g)), width=50)
        with precision():
            T_lo, T_hi = T_interval(M, d)
            L2 = arb(4) ** q_of(d // g)
            # ⌈½ min{T, Λ²}⌉ with T ∈ [T_lo, T_hi]: arb's min keeps the enclosure valid when T and Λ² overlap.
            half_lo, half_hi = T_lo.min(L2) / 2, T_hi.min(L2) / 2
            values["closed_form"] = interval_quantity(half_lo.lower(), half_hi.upper() + 1, "closed_form")
            values["exact"] = tf_interval(T_lo, T_hi, L2, L2)
        params.update(distance=d, K=d // g, q=q_of(d // g), code_size=None)
        notes.append(f"M > {EXACT_LIMIT}: certified interval at the distance chosen by floating-point search")
    return Section(name, ref, True, values, params, tuple(notes))


def heads(m: int, H: int) -> Section:
    """``H`` heads at exact length ``H + 2`` (B.1–B.2): total rank ``R ≥ ½ min{T, 4^q}``.

    The matrix behind it has rows ``x_S`` read by their chosen head ``h_S`` and columns the
    padded keys ``κ_U`` (``x_{U^c}`` plus ``k_U`` coordinates of ``U``), so the diagonal key
    sits where ``h_S``'s run of ``q`` preferences starts (docs/math.md §7). The value
    depends only on ``T``, ``g_H``, ``K = ⌊Δ/g_H⌋`` and ``q = ⌈K/H⌉``.
    """
    M = even(check_m(m))
    g = g_heads(H)
    notes = [f"some head prefers the better key by factor 2 against every key worse by ≥ g_H = {g}; "
             "K = ⌊Δ/g_H⌋ steps, some head gets q = ⌈K/H⌉ of them; the bound is on R = Σ r_h"]
    return stepwise(M, g, H, "heads", "B.1–B.2", {"H": H, "length": H + 2, "g_H": g}, notes)


def degree(m: int, D: int) -> Section:
    """One head, polynomial readout of degree ``D`` (B.4): rank one at length ``D+1``; bound at ``D+2``."""
    M = even(check_m(m))
    g = g_heads(D)
    notes = [f"rank one suffices at exact length {D + 1} (uniform kernel, one-hot values, readout Σ_k J(s_k), docs/math.md §8)",
             f"at exact length {D + 2}: factor 2 per overlap gap g_D = {g}, K = ⌊Δ/g_D⌋ steps, all in one head"]
    return stepwise(M, g, 1, "degree", "B.4", {"D": D, "length": D + 2, "g_D": g, "rank_one_length": D + 1}, notes)


def growing_context(m: int, n: int) -> Section:
    """Exact length ``n`` (A.2, "Growing context"): gap-2 factor ``n − 2``; paper recipe and exact optimum."""
    M = even(check_m(m))
    if isinstance(n, bool) or not isinstance(n, int) or not 3 <= n <= 10**18:
        raise BoundsInputError(f"length must be an integer between 3 and 10^18, not {n!r}")
    A = n - 2
    params: dict[str, Any] = {"M": M, "length": n, "gap_factor": f"μ_g = (n−2)(g−1) = {A}(g−1)"}
    notes: list[str] = []
    if M < 4:
        return Section("growing_context", "A.2", False, {}, params, ("needs M ≥ 4",))
    h = M // 2
    values: dict[str, Quantity] = {}
    # Paper recipe: s = log₂(n−2), Δ = 2⌈M/(2s)⌉, Λ = (n−2)^{Δ/2}, r ≥ ½ min{T, Λ²}.
    paper_delta = None
    if A >= 2:
        k = 1
        while A ** (2 * k) < 2**M:  # smallest k with 2k·log₂(n−2) ≥ M, in integers
            k = max(k + 1, int(M / (2 * math.log2(A))) - 1)
        paper_delta = 2 * k
        params["paper_distance"] = paper_delta
    else:
        notes.append("n = 3: gap 2 gives factor 1, so the paper's recipe (s = log₂(n−2) = 0) does not apply; see Theorem 1")
    if M <= EXACT_LIMIT:
        layer = layer_sizes(M)
        if paper_delta is not None and paper_delta <= h:
            T = int(layer.code_size(paper_delta))
            values["closed_form"] = Quantity.of_int(half_min(T, A**paper_delta), "closed_form")
            params["paper_code_size"] = T
        elif paper_delta is not None:
            notes.append(f"paper recipe: Δ = {paper_delta} > M/2 = {h}, so T = 1 and the recipe gives nothing at this m")
        chains = chain_table(A)
        b, d, T, _ = optimize_exact(layer, range(2, h + 1), chains.squared,
                                     balance=lambda d: log2_T_float(M, d) - pattern_log2_squared(d, A))
        values["exact"] = Quantity.of_int(b)
        if d is not None:
            params.update(distance=d, code_size=T, gaps=chains.gaps(d))
    else:
        from flint import arb

        cands = list(range(2, h + 1))

        d = balance_search(cands, lambda d: float_tf(log2_T_float(M, d), pattern_log2_squared(d, A)))
        with precision():
            gaps = pattern_split(d, A)
            T_lo, T_hi = T_interval(M, d)
            L2 = arb(2) ** (2 * split_log2(gaps, A))
            if paper_delta is not None and paper_delta <= h:
                P_lo, P_hi = T_interval(M, paper_delta)
                PL = arb(A) ** paper_delta
                lo, hi = P_lo.min(PL) / 2, P_hi.min(PL) / 2
                values["closed_form"] = interval_quantity(lo.lower(), hi.upper() + 1, "closed_form")
            values["exact"] = tf_interval(T_lo, T_hi, L2, L2)
        params.update(distance=d, code_size=None, gaps=gaps)
        notes.append(f"M > {EXACT_LIMIT}: certified interval at the distance chosen by floating-point search")
    notes.append("as n → ∞ the exponent is m − o(m) (A.2)")
    return Section("growing_context", "A.2", True, values, params, tuple(notes))


def transcripts(m: int, s: int | None = None, n: int | None = None) -> Section:
    """Finite-precision transcripts (§5.2, C.3–C.4): code size and ``q·log₂(s+1)`` bits.

    ``m = 2 + M + s``; a code ``C ⊆ ([M] choose h)`` with directed distance ``≥ s+1`` and
    ``|C| ≥ 2^M / ((M+1)(s+1)(eM/s)^{2s})``; with ``q ≤ |C|`` queries and ``2q ≤ n``,
    ``Σ_ℓ log₂|Σ_ℓ| ≥ q·log₂(s+1)``. Default ``s = ⌈log₂ m⌉``.
    """
    from flint import arb

    m = check_m(m)
    if s is None:
        s = max(1, math.ceil(math.log2(m)))
    if isinstance(s, bool) or not isinstance(s, int) or s < 1:
        raise BoundsInputError(f"s must be a positive integer, not {s!r}")
    if n is not None and (isinstance(n, bool) or not isinstance(n, int) or n < 2):
        raise BoundsInputError(f"length must be an integer ≥ 2 for the transcript bound, not {n!r}")
    M = m - 2 - s
    params: dict[str, Any] = {"s": s, "M": M, "answers": f"{{0, …, {s}}}"}
    if M < 1:
        return Section("transcripts", "C.3–C.4", False, {}, params, (f"needs m ≥ s + 3 = {s + 3}",))
    # Enough bits to pin ⌈X⌉ down (log₂ X < M) in the exact range.
    with precision(PREC + (M if M <= EXACT_LIMIT else 0)):
        X = arb(2) ** M / (arb(M + 1) * (s + 1) * (arb(1).exp() * M / s) ** (2 * s))
        per_query = arb(s + 1).log() / arb(2).log()
        params["bits_per_query"] = list(outward(per_query.lower(), per_query.upper()))
        notes = ["bounds the total transcript Σ_ℓ log₂|Σ_ℓ| of deterministic models with finite-alphabet cross-token "
                 "channels, any number of heads and layers; for head sketches L·H·r·(d_v+1)·p ≥ q·log₂(s+1)"]
        if not X >= 1:
            notes.append("code size bound below 1 at this (m, s): no queries, no bound")
            return Section("transcripts", "C.3–C.4", False, {}, params, tuple(notes))
        size = interval_quantity(X.ceil(), X.ceil(), "closed_form")  # |C| ≥ ⌈X⌉
        values = {"code_size": size}
        q = None
        if n is not None:
            params["length"] = n
            if size.value is not None or size.log2[0] > math.log2(n):
                q = n // 2 if size.value is None else min(size.value, n // 2)
        elif size.value is not None:
            q = size.value
            params["max_length"] = 2 * size.value
        if q is not None:
            params["q"] = q
            bits = q * per_query
            lo, hi = outward(bits.lower(), bits.upper())
            if math.isfinite(lo) and math.isfinite(hi):
                params["bits"] = [lo, hi]
            else:  # beyond the float range (m ≳ 1,231): its base-2 logarithm instead, so --json stays JSON
                params["bits"] = None
                params["bits_log2"] = list(arb_log2(bits))
                notes.append("bits = q·log₂(s+1) exceeds the float range; bits_log2 encloses its base-2 logarithm")
        else:
            notes.append("q = |C| is known only through log₂; bits = q·log₂(s+1) has "
                         f"log₂ in [{size.log2[0] + math.log2(params['bits_per_query'][0]):.2f}, "
                         f"{size.log2[1] + math.log2(params['bits_per_query'][1]):.2f}]")
        return Section("transcripts", "C.3–C.4", True, values, params, tuple(notes))
