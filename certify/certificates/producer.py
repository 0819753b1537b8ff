"""Build, serialize and write rank certificates (format version 1; docs/certificate-format.md).

The producer side: it may use every layer (``codes``, ``witnesses``, the lemmas in
``certify``), and everything it writes is re-checked by the independent
``certify.check``. A certificate records the claim, the code, the witness family,
the jumps (each pointing to its three witnesses), the chains and the trace–Frobenius
arithmetic, plus a SHA-256 over the canonical content.

>>> cert = rank_nine_certificate("paper")
>>> cert["claim"]["rank_at_least"], cert["arithmetic"]["ratio"], len(cert["family"]["inputs"])
(9, '8', 855)
>>> from certify.check import check
>>> check(cert).proved
9
>>> rank_nine_certificate("paper", rank_at_least=10)
Traceback (most recent call last):
...
certify.certificates.producer.CertificateBuildError: the family proves r ≥ 9, not r ≥ 10
"""
from __future__ import annotations

import json
import os
from collections import Counter
from fractions import Fraction
from typing import Any

from witnesses import WitnessFamily, rank_nine_family

from .. import __version__
from ..lemmas.amplification import chain_factor
from ..check import FORMAT, MODEL, VERSION, content_hash, format_rational
from ..lemmas.domination import HALF, domination_factor
from ..exact import exact
from ..lemmas.frobenius import certified_rank, sum_inverse_squares, trace_frobenius_ratio
from ..lemmas.choice import choose
from ..outputs import write_atomic

__all__ = [
    "CertificateBuildError",
    "build_certificate",
    "assemble",
    "settle_claim",
    "argument_lines",
    "certificate_factors",
    "certificate_classes",
    "tried_lines",
    "proved_bound",
    "rank_nine_certificate",
    "dumps",
    "write_certificate",
    "describe",
]


class CertificateBuildError(ValueError):
    """The family does not support the requested certificate (e.g. a jump proves nothing)."""


def build_certificate(
    family: WitnessFamily, error: Fraction = HALF, rank_at_least: int | None = None, argument=None,
) -> dict[str, Any]:
    """The version-1 certificate of a witness family (A.2; docs/math.md §3–§6).

    Parameters
    ----------
    family : WitnessFamily
        Code, chains, jumps and inputs (``witnesses.build_family``).
    error : Fraction
        ``ε``: the claim is about heads with error ``< ε`` on every input of the family.
    rank_at_least : int, optional
        The claimed bound; default: the bound the family proves.
    argument : {None, "best", "trace-frobenius", "shifted", "square", "null-shifted", "square-kernel"} or Argument
        The final step (docs/math.md §5; :func:`certify.lemmas.choice.choose`): ``None``
        writes plain trace–Frobenius (no ``argument`` field), ``"best"`` the sharpest.

    Raises
    ------
    CertificateBuildError
        If some jump's factor ``μ`` is below 1, or the requested claim exceeds what
        the family proves.
    """
    eps = exact(error, "error")
    n, m = family.length, family.code.length
    jump_factor = []
    for j, jump in enumerate(family.jumps):
        mu = domination_factor(jump.gap, n, eps)
        if mu < 1:
            raise CertificateBuildError(
                f"jump {j} has gap {jump.gap}: μ = {format_rational(mu)} < 1 at n = {n}, ε = {format_rational(eps)}"
            )
        jump_factor.append(mu)
    claim = {"model": MODEL, "m": m, "length": n, "error_below": format_rational(eps)}
    return assemble(FORMAT, VERSION, claim, family, jump_factor, rank_at_least, argument)


def settle_claim(t: int, factors: dict[Fraction, int], tf_bound: int, rank_at_least: int | None, argument,
                 what: str = "the family proves", classes: dict | None = None, length: int | None = None):
    """``(claim, Argument or None)``: the argument chosen for these factors and the claim it allows.

    ``classes`` (``{(F, d): pairs}``) and ``length`` (for a code of one weight) make
    ``square-kernel`` available (:func:`certify.lemmas.choice.choose`).

    Raises
    ------
    CertificateBuildError
        If ``rank_at_least`` exceeds the larger of the trace–Frobenius and the argument's bound.
    """
    try:
        arg = choose(t, factors, argument, classes, length)
    except ValueError as exc:
        raise CertificateBuildError(str(exc)) from None
    proved = tf_bound if arg is None else max(tf_bound, arg.rank_at_least)
    claimed = proved if rank_at_least is None else rank_at_least
    if claimed > proved:
        how = "" if arg is None else f" (trace–Frobenius {tf_bound}, {arg.label()} {arg.rank_at_least})"
        raise CertificateBuildError(f"{what} r ≥ {proved}{how}, not r ≥ {claimed}")
    return claimed, arg


def assemble(fmt: str, version: int, claim: dict[str, Any], family: WitnessFamily, jump_factor: list[Fraction],
             rank_at_least: int | None = None, argument=None) -> dict[str, Any]:
    """A certificate document from a family and its exact jump factors (shared by every kind).

    Chains multiply their jump factors (docs/math.md §4), trace–Frobenius gives the bound
    (docs/math.md §5) or, with ``argument``, a sharper argument on the same factors
    (:func:`settle_claim`); ``claim`` gets ``rank_at_least`` (default: the bound proved), and
    the document its ``sha256``. Jump tokens are written with the code's length.

    Raises
    ------
    CertificateBuildError
        If the requested claim exceeds what the family proves.
    """
    code, m = family.code, family.code.length
    chain_factors = [chain_factor(jump_factor[j] for j in ch.jumps) for ch in family.chains]
    t = code.size
    proved = certified_rank(t, chain_factors)
    words = code.words
    full = (1 << m) - 1
    classes = dict(Counter((f, (words[ch.source] & (full ^ words[ch.target])).bit_count())
                           for ch, f in zip(family.chains, chain_factors)))
    claimed, arg = settle_claim(t, dict(Counter(chain_factors)), proved, rank_at_least, argument,
                                classes=classes, length=m if code.weight is not None else None)
    sigma = sum_inverse_squares(chain_factors)
    bits = lambda x: format(x, f"0{m}b")[::-1]  # noqa: E731 - local shorthand
    cert: dict[str, Any] = {
        "format": fmt,
        "version": version,
        "claim": dict(claim, rank_at_least=claimed),
        "producer": {
            "tool": f"certify {__version__}",
            "code": code.description or "unspecified",
            "chains": family.plan,
        },
        "code": {
            "length": m,
            "weight": code.weight,
            "min_directed_distance": code.min_distance,
            "words": code.to_bits(),
        },
        "family": {"inputs": [x.to_json() for x in family.inputs]},
        "jumps": [
            {
                "x": bits(jump.x),
                "y": bits(jump.y),
                "z": bits(jump.z),
                "overlaps": [jump.low, jump.high],
                "factor": format_rational(f),
                "witnesses": list(w),
            }
            for jump, f, w in zip(family.jumps, jump_factor, family.witnesses)
        ],
        "chains": [
            {"pair": [ch.source, ch.target], "jumps": list(ch.jumps), "factor": format_rational(f)}
            for ch, f in zip(family.chains, chain_factors)
        ],
        "arithmetic": {
            "t": t,
            "sum_inverse_squares": format_rational(sigma),
            "frobenius_squared_below": format_rational(t + sigma),
            "ratio": format_rational(trace_frobenius_ratio(t, chain_factors)),
            "rank_at_least": proved,
        },
    }
    if arg is not None:
        cert["argument"] = arg.to_json()
    cert["sha256"] = content_hash(cert)
    return cert


def rank_nine_certificate(plan: str = "paper", rank_at_least: int | None = None, argument=None) -> dict[str, Any]:
    """The rank-nine certificate: the fixed 15-word code, chains by ``plan``, length 3, ε = 1/2 (§6.1).

    ``argument=None`` is the paper's own plan (trace–Frobenius, r ≥ 9 with paper chains);
    ``"best"`` the sharpest argument on the same family (null-shifted, r ≥ 12; docs/math.md §5).
    """
    return build_certificate(rank_nine_family(plan), HALF, rank_at_least, argument)


def dumps(value: Any, column: int = 0, width: int = 200) -> str:
    """JSON text that keeps short arrays and objects on one line (one input, jump or chain per line)."""
    compact = json.dumps(value, ensure_ascii=False, separators=(", ", ": "))
    if not isinstance(value, (list, dict)) or not value or column + len(compact) <= width:
        return compact
    pad = " " * (column + 2)
    if isinstance(value, dict):
        items = [f"{pad}{json.dumps(k)}: {dumps(v, column + 2, width)}" for k, v in value.items()]
        return "{\n" + ",\n".join(items) + "\n" + " " * column + "}"
    items = [pad + dumps(v, column + 2, width) for v in value]
    return "[\n" + ",\n".join(items) + "\n" + " " * column + "]"


def write_certificate(cert: dict[str, Any], path: str | os.PathLike) -> bytes:
    """Write ``cert`` as UTF-8 JSON (atomically, never over a non-regular file: :func:`write_atomic`); return the bytes."""
    data = (dumps(cert) + "\n").encode("utf-8")
    write_atomic(path, data)
    return data


def describe(cert: dict[str, Any]) -> list[str]:
    """Lines a person can read: claim, code, chains, family and the final arithmetic.

    Reads the producer's own numbers (the independent checker recomputes them).
    """
    from collections import Counter

    claim, code, ar = cert["claim"], cert["code"], cert["arithmetic"]
    n_jumps, n_inputs = len(cert["jumps"]), len(cert["family"]["inputs"])
    t = ar["t"]
    gaps = Counter((j["overlaps"][1] - j["overlaps"][0], j["factor"]) for j in cert["jumps"])
    chain_f = Counter(c["factor"] for c in cert["chains"])
    dists = Counter(
        (int(a, 2) & ~int(b, 2)).bit_count()
        for a in code["words"] for b in code["words"] if a != b
    )
    ratio = Fraction(ar["ratio"])
    per = len(cert["jumps"][0]["witnesses"])  # 3 (Y, Z, W; A.2) or 4 (Y, Z, M₀, M₁; A.4)
    return [
        f"claim       r ≥ {claim['rank_at_least']} for one normalized nonnegative kernel-attention head on "
        f"{claim['m']}-bit tokens,",
        f"            error < {claim['error_below']} on every input of the family, exact length {claim['length']}"
        + (" (three distinct tokens, a unique minimizer)" if "inputs" in claim else ""),
        f"code        {t} words, length {code['length']}, weight {code['weight']}, directed distances "
        + ", ".join(f"{d}×{c}" for d, c in sorted(dists.items())),
        f"            made from: {cert.get('producer', {}).get('code', 'unspecified')}",
        f"chains      {len(cert['chains'])} ordered pairs, plan '{cert.get('producer', {}).get('chains', '?')}', "
        f"{n_jumps} jumps: " + ", ".join(f"gap {g} → factor {f} ×{c}" for (g, f), c in sorted(gaps.items())),
        "            chain factors F: " + ", ".join(f"{f} ×{c}" for f, c in sorted(chain_f.items(), key=lambda kv: Fraction(kv[0]))),
        f"family      {n_inputs} inputs of length {claim['length']} "
        f"({per} witnesses × {n_jumps} jumps = {per * n_jumps}, {per * n_jumps - n_inputs} shared)",
        f"arithmetic  ‖C‖_F² < {t} + Σ F⁻² = {t} + {ar['sum_inverse_squares']} = {ar['frobenius_squared_below']}",
        f"            {t}² / ‖C‖_F² > {t * t} / ({ar['frobenius_squared_below']}) = {ar['ratio']}"
        + (f" ≈ {float(ratio):.4f}" if ratio.denominator != 1 else "")
        + f"  ⇒  rank(C) > {ratio.numerator // ratio.denominator}  ⇒  r ≥ {ar['rank_at_least']}",
    ] + argument_lines(cert)


def certificate_factors(cert: dict[str, Any]) -> tuple[int, dict[Fraction, int]]:
    """``(t, {F: pairs})`` of a certificate of any kind, from its chains (listed) or plan entries (compact)."""
    from ..lemmas.sharper import factors_of

    t, classes, _ = certificate_classes(cert)
    return t, factors_of(classes)


def certificate_classes(cert: dict[str, Any]) -> tuple[int, dict[tuple[Fraction, int], int], int | None]:
    """``(t, {(F, d): pairs}, length)`` of a certificate: chain factor and directed distance of every
    ordered pair, and the code's length when its words have one weight (else ``None``)."""
    words = [int(w[::-1], 2) for w in cert["code"]["words"]]
    length = cert["code"]["length"]
    one_weight = len({w.bit_count() for w in words}) == 1
    if "plan" in cert:
        out: dict[tuple[Fraction, int], int] = {}
        for e in cert["plan"]["entries"]:
            out[(Fraction(e["factor"]), e["distance"])] = e["pairs"]
        return cert["arithmetic"]["t"], out, length if one_weight else None
    full = (1 << length) - 1
    classes = Counter((Fraction(c["factor"]), (words[c["pair"][0]] & (full ^ words[c["pair"][1]])).bit_count())
                      for c in cert["chains"])
    return cert["arithmetic"]["t"], dict(classes), length if one_weight else None


def tried_lines(cert: dict[str, Any]) -> list[str]:
    """For a certificate written with ``argument="best"`` that kept trace–Frobenius: what the others gave.

    Nothing if the certificate has an ``argument`` (:func:`argument_lines` shows it).
    """
    from ..lemmas.choice import best_null_shift, best_shift, best_square, best_square_kernel

    if cert.get("argument"):
        return []
    t, classes, length = certificate_classes(cert)
    fs = certificate_factors(cert)[1]
    tried = []
    for best in (best_shift, best_square, best_null_shift, best_square_kernel):
        try:
            a = best_square_kernel(t, classes, length) if best is best_square_kernel else best(t, fs)
        except ValueError:
            continue
        tried.append(f"{a.label()}: r ≥ {a.rank_at_least}")
    return [f"{'bounds':<12}trace–Frobenius: r ≥ {cert['arithmetic']['rank_at_least']}, the most here"
            + "".join(f"; {x}" for x in tried)]


def proved_bound(cert: dict[str, Any]) -> int:
    """What the producer's numbers say ``cert`` proves: the larger of trace–Frobenius and its ``argument``."""
    return max(cert["arithmetic"]["rank_at_least"], (cert.get("argument") or {}).get("rank_at_least", 0))


def argument_lines(cert: dict[str, Any]) -> list[str]:
    """The sharper argument of ``cert`` for people (nothing if it has none), and both bounds side by side.

    Reads the producer's numbers (the independent checker recomputes them).
    """
    from ..check import show_number
    from ..lemmas.sharper import Argument

    a = cert.get("argument")
    if a is None or a["name"] == "trace-frobenius":
        return []
    t = cert["arithmetic"]["t"]
    ratio = Fraction(a["ratio"])
    approx = f" ≈ {float(ratio):.4f}" if ratio.denominator != 1 else ""
    k = -(-ratio.numerator // ratio.denominator)
    pad = " " * 12
    frob = show_number(Fraction(a["frobenius_squared_at_most"]))
    if a["name"] == "shifted":
        s = Fraction(a["s"])
        lines = [f"{'argument':<12}shifted, s = {a['s']}: M = C − sJ has rank M ≤ rank C + 1, M_SS = 1 − s = {1 - s},",
                 f"{pad}|M_SU| ≤ max(s, 1/F − s)  (0 ≤ C_SU < 1/F: the kernel is nonnegative)",
                 f"{pad}‖M‖_F² ≤ {t}·(1 − s)² + Σ max(s, 1/F − s)² = {frob}",
                 f"{pad}(tr M)² / ‖M‖_F² ≥ {show_number(ratio)}{approx}  ⇒  rank(C) ≥ ⌈{show_number(ratio)}⌉ − 1 = {k - 1}"
                 f"  ⇒  r ≥ {a['rank_at_least']}"]
    elif a["name"] == "null-shifted":
        lines = [f"{'argument':<12}null-shifted, s = {a['s']} (Theorem A): Π the projector on ker C, k = t − rank C;",
                 f"{pad}tr(CΠ) = 0, 0 ≤ C_SU < 1/F and s⟨J, Π⟩ ≥ 0 give (1 − s)k < Σ max(s, 1/F − s)·|Π_SU| if k ≥ 1",
                 f"{pad}t·(1 − s)² + Σ max(s, 1/F − s)² = {frob};  R = {show_number(ratio)}{approx}",
                 f"{pad}Cauchy–Schwarz  ⇒  rank(C) > R or C invertible  ⇒  rank(C) ≥ min(t, ⌊R⌋ + 1) = "
                 f"{a['rank_at_least']}  ⇒  r ≥ {a['rank_at_least']}"]
    elif a["name"] == "square":
        b, g = Fraction(a["b"]), Fraction(a["g"])
        lines = [f"{'argument':<12}square, b = {a['b']}, g = {a['g']}: M = C∘C + bC + gJ has rank M ≤ binom(rank C + 2, 2),",
                 f"{pad}M_SS = 1 + b + g = {show_number(1 + b + g)}, |M_SU| ≤ max |x² + bx + g| over x ∈ [0, 1/F]",
                 f"{pad}‖M‖_F² ≤ {t}·(1 + b + g)² + Σ max |x² + bx + g|² = {frob}",
                 f"{pad}(tr M)² / ‖M‖_F² ≥ {show_number(ratio)}{approx}  ⇒  binom(r+2, 2) ≥ {k:,}  ⇒  r ≥ {a['rank_at_least']}"]
    else:
        b, g = Fraction(a["b"]), Fraction(a["g"])
        mu = [Fraction(v) for v in a["mu"]]
        m = cert["code"]["length"]
        m0 = sum((v * m ** j for j, v in enumerate(mu, 1)), Fraction(0))
        lines = [f"{'argument':<12}square-kernel, b = {a['b']}, g = {a['g']}, μ = [{', '.join(a['mu'])}] (Lemma N):",
                 f"{pad}A = C∘C + bC + gJ has rank A ≤ binom(rank C + 2, 2); K = Σ_j μ_j Y^(∘j) (Y: Gram matrix of the",
                 f"{pad}±1 code words, y = {m} − 4d at distance d) is positive semidefinite with diagonal m₀ = {show_number(m0)}",
                 f"{pad}(A − K)_SS = 1 + b + g − m₀ = {show_number(1 + b + g - m0)}, |(A − K)_SU| ≤ max |x² + bx + g − K_y| "
                 "over x ∈ [0, 1/F]",
                 f"{pad}t·(1 + b + g − m₀)² + Σ max² = {frob};  ratio ≥ {show_number(ratio)}{approx}  ⇒  "
                 f"binom(r+2, 2) ≥ {k:,}  ⇒  r ≥ {a['rank_at_least']}"]
    lines.append(f"{'bounds':<12}trace–Frobenius: r ≥ {cert['arithmetic']['rank_at_least']}; "
                 f"{Argument.from_json(a).label()}: r ≥ {a['rank_at_least']}")
    return lines
