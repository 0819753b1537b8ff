"""Unique-minimizer certificates (format ``certify.unique-minimizer-certificate``, version 1; A.4).

The argument of A.4 as a checkable file: a code of ``M``-bit words, one chain of jumps
per ordered pair, and for every jump ``(x, y, z)`` its four ``(M+2)``-bit inputs
``Y, Z, M₀, M₁`` (``witnesses.unique_minimizer``) — each of three distinct tokens with a
unique minimizer at the query. Correctness with error ``< 1/2`` on them gives
``K(x,y) > ((d−1)/2)·K(x,z)`` for the effective kernel ``K(x,w) = α(q(x),k₀(w)) + 2α(q(x),k₁(w))``
(``certify.lemmas.unique_minimizer``); chains multiply the factors and trace–Frobenius
turns them into ``rank K ≥ …``, and ``rank K ≤ r`` because
``K(x,w) = ⟨φ_Q(q(x)), φ_K(k₀(w)) + 2φ_K(k₁(w))⟩``. Format: docs/certificate-format.md,
"Unique-minimizer certificates".

The default code is the greedy code of length 24, weight 12, directed distance 7,
capped at 6 words: all 30 ordered pairs are at distance exactly 7, so every chain is
one gap-7 jump of factor 3 (the paper's choice of gap), and
``36 / (6 + 30/9) = 27/7 ≈ 3.86`` gives ``r ≥ 4``.

>>> cert = unique_minimizer_certificate()
>>> cert["claim"]["m"], cert["claim"]["rank_at_least"], cert["arithmetic"]["ratio"], len(cert["family"]["inputs"])
(26, 4, '27/7', 96)
>>> unique_minimizer_certificate(rank_at_least=5)
Traceback (most recent call last):
...
certify.certificates.producer.CertificateBuildError: the family proves r ≥ 4, not r ≥ 5
"""
from __future__ import annotations

from typing import Any

from codes import ConstantWeightCode, load_code
from witnesses import WitnessFamily, unique_minimizer_family

from ..check import MODEL, UM_FORMAT, UM_INPUTS, UM_VERSION, format_rational
from ..lemmas.unique_minimizer import effective_factor
from .producer import CertificateBuildError, assemble

__all__ = ["UM_FORMAT", "UM_VERSION", "UM_INPUTS", "DEFAULT_CODE", "build_unique_minimizer_certificate",
           "unique_minimizer_certificate"]

DEFAULT_CODE = "greedy:24:7:6"


def build_unique_minimizer_certificate(family: WitnessFamily, rank_at_least: int | None = None,
                                       argument=None) -> dict[str, Any]:
    """The certificate of a unique-minimizer family (``witnesses.unique_minimizer_family``; A.4).

    ``argument``: as for :func:`certify.certificates.producer.build_certificate` (the effective
    kernel ``K`` is nonnegative, so the sharper arguments of docs/math.md §5 apply to it).

    Raises
    ------
    CertificateBuildError
        If some jump has gap below 3 (factor ``(d−1)/2 < 1``), or the claim exceeds
        what the family proves.
    """
    factors = []
    for j, jump in enumerate(family.jumps):
        f = effective_factor(jump.gap)
        if f < 1:
            raise CertificateBuildError(f"jump {j} has gap {jump.gap}: (d−1)/2 = {format_rational(f)} < 1 proves nothing")
        factors.append(f)
    claim = {"model": MODEL, "inputs": UM_INPUTS, "m": family.code.length + 2, "length": 3, "error_below": "1/2"}
    return assemble(UM_FORMAT, UM_VERSION, claim, family, factors, rank_at_least, argument)


def unique_minimizer_certificate(code: ConstantWeightCode | str = DEFAULT_CODE, plan: str = "direct",
                                 rank_at_least: int | None = None, argument=None) -> dict[str, Any]:
    """Build the certificate for ``code`` (a code or a ``codes.load_code`` name) under ``plan``."""
    if isinstance(code, str):
        code = load_code(code)
    return build_unique_minimizer_certificate(unique_minimizer_family(code, plan), rank_at_least, argument)
