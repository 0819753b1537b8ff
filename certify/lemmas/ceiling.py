"""The ceiling of the family method (docs/math.md §5, "The ceiling of the family method").

A family of the *designated-diagonal* kind — queries ``x_1 … x_t``, keys ``k_1 … k_t``
(tokens of ``m`` bits), every off-diagonal gap ``g_ij = ⟨x_i, k_j⟩ − ⟨x_i, k_i⟩ ≥ 2`` bridged
by chains at length 3 and error ``ε ≥ 1/2`` — gives ``0 ≤ C_ij < 1/F_ij`` with chain factors
``F_ij ≤ F(g_ij)``, ``F`` the best split at ``ε = 1/2``. Trace–Frobenius, the shift by ``s`` and
the null-space step (Theorem A) then certify at most ``⌊R_s⌋ + 1`` for some ``0 ≤ s < 1``, where
``R_s`` is at most the shift's ratio formed with ``ε_ij = 1/F(g_ij)``, and

    R_s < X(t, m) = 4 · t/(t−1) · 2^{0.2·m·t/(t−1)}

(Lemma G: ``Σ_{i≠j} g_ij ≤ m t²/4``; Lemma F: ``F(g) ≤ 2^{0.4 g}``; Jensen). So none of
those three last steps proves more than ``⌈X⌉`` from such a family, whatever its tokens.
:func:`ceiling` is that integer, exactly: ``2^{0.2·m·t/(t−1)}`` is irrational in general,
and the least integer ``N ≥ X`` is found by comparing integer powers, no floating point.
The square and square-kernel steps are **not** covered (docs/math.md, same subsection).

>>> ceiling(15, 24)
152
>>> ceiling(8164, 48), ceiling(5000, 48)
(3108, 3109)
>>> coordinate_excess(4, 2, 1, 1), lemma_f_holds(5)
(1, True)
"""
from __future__ import annotations

from math import gcd

from .amplification import best_split

__all__ = ["CEILING_STEPS", "coordinate_excess", "lemma_f_holds", "ceiling", "ceiling_line", "covers"]

#: The last steps the ceiling covers (``argument.name`` of a certificate; ``None``: plain trace–Frobenius).
CEILING_STEPS = (None, "trace-frobenius", "shifted", "null-shifted")


def coordinate_excess(t: int, a: int, p: int, q: int) -> int:
    """``|u|·|v| − t·|u∧v|`` for one coordinate (Lemma G): ``a`` rows with ``x_i(c) = k_i(c) = 1``,
    ``p`` more with ``x_i(c) = 1``, ``q`` more with ``k_i(c) = 1``; ``a + p + q ≤ t``.

    Lemma G's step is ``4·coordinate_excess ≤ (t − a)² ≤ t²``.
    """
    if min(t, a, p, q) < 0 or a + p + q > t:
        raise ValueError(f"need 0 ≤ a, p, q and a + p + q ≤ t, not t={t}, a={a}, p={p}, q={q}")
    return (a + p) * (a + q) - t * a


def lemma_f_holds(g: int) -> bool:
    """Lemma F at gap ``g ≥ 2``, in integers: ``F(g)⁵ ≤ 4^g`` (``F`` the best split at ``n = 3, ε = 1/2``)."""
    F = best_split(g)[0]
    return F.denominator == 1 and F.numerator ** 5 <= 4 ** g


def covers(argument: dict | None) -> bool:
    """Whether a certificate's last step (its ``argument`` field, ``None`` for plain trace–Frobenius) is covered."""
    return (argument or {}).get("name") in CEILING_STEPS


def ceiling(t: int, m: int) -> int:
    """The least integer ``N ≥ 4·t/(t−1)·2^{m·t/(5(t−1))}`` (``t ≥ 2`` words, ``m ≥ 1`` bits), exactly.

    ``N ≥ X`` iff ``(N(t−1))^q ≥ (4t)^q · 2^p`` with ``p/q = m t / (5(t−1))`` in lowest
    terms; ``N`` is found by that integer comparison alone, stepping from a floating-point guess
    (or by bisection where the guess could be far off), so the guess only saves time. A certificate of the
    covered last steps on ``t`` words of ``m`` bits proves at most ``r ≥ N``.
    """
    if not isinstance(t, int) or not isinstance(m, int) or t < 2 or m < 1:
        raise ValueError(f"the ceiling needs t ≥ 2 words and m ≥ 1 bits, not t={t!r}, m={m!r}")
    p, q = m * t, 5 * (t - 1)
    g = gcd(p, q)
    p, q = p // g, q // g
    target = (4 * t) ** q << p

    def enough(n: int) -> bool:
        return (n * (t - 1)) ** q >= target

    guess = 4 * t / (t - 1) * 2.0 ** (p / q) if p // q < 48 else None  # floats only guess where to start
    if guess is not None:
        n = max(1, int(guess))
        while not enough(n):
            n += 1
        while n > 1 and enough(n - 1):
            n -= 1
        return n
    hi = 1 << (p // q + 4)  # 2^{p/q} < 2^{⌊p/q⌋+1} and 4t/(t−1) ≤ 8
    lo = 0  # not enough: X > 0
    while hi - lo > 1:
        mid = (lo + hi) // 2
        if enough(mid):
            hi = mid
        else:
            lo = mid
    return hi


def ceiling_line(t: int, m: int, argument: dict | None = None, length: int = 3, error=None) -> str | None:
    """The ``ceiling`` line of ``certify rank-bound`` / ``certify search`` (without its label), or ``None``.

    ``None`` where the theorem does not apply: a length ``n > 3`` or an error ``ε < 1/2``
    (larger jump factors, docs/math.md §3), or fewer than two words. At ``n = 3`` and
    ``ε ≥ 1/2`` every jump of gap ``g`` has factor ``μ_g = g/(2ε) − 1 ≤ g − 1``, so the chains'
    factors are at most ``F(g)`` and the theorem applies. When the certificate's own last
    step is square or square-kernel, the line says that step is not covered.
    """
    from fractions import Fraction

    if length != 3 or (error is not None and Fraction(error) < Fraction(1, 2)) or t < 2:
        return None
    pad = "\n" + " " * 14  # continuation lines line up under the labelled column of the command's output
    text = (f"r ≥ {ceiling(t, m):,} at most from any family of this kind with t = {t:,}, m = {m} by trace–Frobenius,"
            f"{pad}shift or null-space step: ⌈4·t/(t−1)·2^(0.2·m·t/(t−1))⌉, exactly (docs/math.md §5, "
            f"\"The ceiling of the family method\")")
    if not covers(argument):
        text += f"{pad}this certificate's last step, {argument['name']}, is not covered by it"
    return text
