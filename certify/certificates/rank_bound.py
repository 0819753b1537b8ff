"""The rank bound of any code under a chain plan, and its certificate (A.2; docs/math.md §3–§5).

For a code of ``t`` words and a gap plan (:class:`witnesses.plans.GapPlan`), every
ordered pair ``(S, U)`` at directed distance ``d`` gets a chain of factor
``F_d = Π μ_{g_i}`` over the plan's gaps for ``d`` (weight domination and
amplification, docs/math.md §3–§4), so the trace–Frobenius bound (docs/math.md §5) is

    r ≥ ⌊t² / (t + Σ_d N_d · F_d⁻²)⌋ + 1,      N_d = number of ordered pairs at distance d.

It depends on the code only through ``t`` and the distance distribution ``N_d``.

Plans (``--chains``):

``paper``
    gaps of 3, the last one 3–5 (§6.1); needs every distance ≥ 3.
``direct``
    one jump per pair (factor ``μ_d``).
``best``
    for each distance the split that maximizes ``F_d`` (:func:`certify.lemmas.amplification.best_split`,
    an exact longest-path DP over overlap levels), ties broken towards fewer jumps and
    then towards intermediate levels where a codeword's complement can be the key
    (shared jumps, smaller family). Since keys exist at every level (interpolated keys),
    this is the largest factor *any* chain of the pair can have: per pair it is optimal.

:func:`rank_bound_certificate` writes the explicit form (version 1, every input listed)
for small families and the compact form (version 2, code and plan only;
:mod:`certify.certificates.compact`) for large ones.

>>> from codes import load_code
>>> code = load_code("hadamard24")
>>> plan = make_plan(code, "best")
>>> plan.to_json()
[{'distance': 6, 'gaps': [6]}, {'distance': 12, 'gaps': [4, 4, 4]}]
>>> b = code_bound(code, plan)
>>> b.sum_inverse_squares, b.ratio, b.rank_at_least
(Fraction(1476646, 18225), Fraction(419175, 25163), 17)
>>> make_plan(load_code("lexicode:8:4:2"), "paper")
Traceback (most recent call last):
...
certify.certificates.producer.CertificateBuildError: plan 'paper' cannot bridge directed distance 2: the paper plan needs an overlap rise of at least 3, not 2
"""
from __future__ import annotations

from fractions import Fraction
from typing import Any

from witnesses import WitnessError
from witnesses.plans import GapPlan, build_planned_family, planned_counts

from ..exact import exact
from ..lemmas.domination import HALF
from ..lemmas.sharper import Argument
from .code_bound import PLAN_NAMES, CodeBound, code_bound, make_plan, plan_factors
from .compact import _verified_compact, build_compact_certificate
from .producer import CertificateBuildError, argument_lines, build_certificate

__all__ = [
    "PLAN_NAMES",
    "EXPLICIT_MAX_INPUTS",
    "CodeBound",
    "make_plan",
    "plan_factors",
    "code_bound",
    "rank_bound_certificate",
    "parse_error",
    "describe",
    "expand_certificate",
]

#: ``form="auto"`` writes the explicit version-1 form up to this many inputs (≈ 10 MB at m = 24).
EXPLICIT_MAX_INPUTS = 50_000


def rank_bound_certificate(
    code, plan: GapPlan, length: int = 3, error=HALF, form: str = "auto",
    rank_at_least: int | None = None, note: str | None = None, bound: CodeBound | None = None, argument=None,
    max_work: int | None = None,
) -> dict[str, Any]:
    """The certificate of ``code`` under ``plan``: explicit (version 1) or compact (version 2).

    Parameters
    ----------
    form : {"auto", "explicit", "compact"}
        ``auto``: explicit when the code has one weight, the family has at most
        :data:`EXPLICIT_MAX_INPUTS` inputs and the file would be within the checker's
        ``MAX_FILE_BYTES`` (:func:`explicit_bytes_at_least`), else compact: auto never
        picks a form that is then refused. Version 1 requires one weight.
    bound : CodeBound, optional
        :func:`code_bound` of the same code, plan, length and error, if already computed.
    argument : {None, "best", "trace-frobenius", "shifted", "square", "null-shifted", "square-kernel"} or Argument
        The final step (docs/math.md §5): ``None`` is plain trace–Frobenius, ``"best"`` the
        sharpest (:func:`certify.lemmas.choice.choose`).
    max_work : int, optional
        The checker's compact work limit to build within (``--max-work``; default its own).

    Raises
    ------
    CertificateBuildError
        On an unknown form, an explicit form for words of different weights, a plan
        that cannot bridge some pair, or a claim above what the data prove.
    """
    if form not in ("auto", "explicit", "compact"):
        raise CertificateBuildError(f"unknown certificate form {form!r}; choose auto, explicit or compact")
    if bound is None:
        bound = code_bound(code, plan, length, error)  # validates the plan against the code first
    inputs = None
    if form == "auto":
        # each query has a chain to t − 1 distinct complement keys, each in an input: inputs ≥ t(t − 1)
        if code.weight is not None and code.size * (code.size - 1) <= EXPLICIT_MAX_INPUTS:
            inputs = planned_counts(code, plan)[1]
        # explicit only when it is small and the checker would read the file (never a form that refuses itself)
        form = ("explicit" if inputs is not None and inputs <= EXPLICIT_MAX_INPUTS
                and explicit_bytes_at_least(code, length, inputs) <= _max_file_bytes() else "compact")
    if form == "compact":
        return _spellable(build_compact_certificate(code, plan, length, error, rank_at_least, note=note, bound=bound,
                                                    argument=argument, max_work=max_work))
    if code.weight is None:
        raise CertificateBuildError("the explicit form (version 1) needs words of one weight; use the compact form")
    explicit_size_or_refuse(code, plan, length, inputs)
    try:
        family = build_planned_family(code, plan, length)
    except WitnessError as exc:
        raise CertificateBuildError(str(exc)) from None
    cert = build_certificate(family, exact(error, "error"), rank_at_least, argument)
    if note:  # how the code was made (e.g. certify search's seed and budget): part of the hashed document
        from ..check import content_hash

        del cert["sha256"]
        cert["producer"]["note"] = note
        cert["sha256"] = content_hash(cert)
    if cert["arithmetic"]["rank_at_least"] != bound.rank_at_least:
        raise AssertionError(f"explicit family proves r ≥ {cert['arithmetic']['rank_at_least']}, distance count says {bound.rank_at_least}")
    return _spellable(cert)


def explicit_size_or_refuse(code, plan: GapPlan, length: int, inputs: int | None = None) -> int:
    """A lower bound on the explicit certificate's size in bytes, from the family's counts alone; refuse past the checker's limit.

    ``inputs``: the family's input count if already known (else counted here).
    Each input lists ``length`` tokens of ``m`` characters plus quotes and a comma, so the
    file has at least ``inputs · length · (m + 3)`` bytes. Over ``MAX_FILE_BYTES`` (64 MiB)
    the checker would refuse the file, so it is not built (issue 18: golay24's explicit
    family passed 6.6 GB of memory before).

    Raises
    ------
    CertificateBuildError
        Naming the estimate and suggesting the compact form.
    """
    if inputs is None:
        inputs = planned_counts(code, plan)[1]
    at_least = explicit_bytes_at_least(code, length, inputs)
    if at_least > _max_file_bytes():
        raise CertificateBuildError(
            f"the explicit certificate would have {inputs:,} inputs of length {length}, at least {at_least / 2**20:,.0f} MiB; "
            f"the checker reads at most {_max_file_bytes() // 2**20} MiB: use --form compact (or --form auto)")
    return at_least


def explicit_bytes_at_least(code, length: int, inputs: int) -> int:
    """A lower bound on an explicit certificate's size: each of ``inputs`` inputs lists ``length`` tokens of
    ``m`` characters plus quotes and a comma."""
    return inputs * length * (code.length + 3)


def _max_file_bytes() -> int:
    from ..check import MAX_FILE_BYTES

    return MAX_FILE_BYTES


def _spellable(cert: dict[str, Any]) -> dict[str, Any]:
    """Refuse a certificate whose rationals the format cannot spell (at most ``MAX_RATIONAL_CHARS``).

    Σ F⁻² over many distinct factors has a denominator like the lcm of their squares:
    a code with hundreds of distances can need more digits than the format allows.
    """
    from ..check import MAX_RATIONAL_CHARS

    values = list(cert["arithmetic"].values()) + list(cert.get("argument", {}).values())
    values += [e["factor"] for e in cert.get("plan", {}).get("entries", [])]
    values += [c["factor"] for c in cert.get("chains", [])] + [j["factor"] for j in cert.get("jumps", [])]
    long = [v for v in values if isinstance(v, str) and len(v) > MAX_RATIONAL_CHARS]
    if long:
        raise CertificateBuildError(
            f"a rational of the certificate needs {max(map(len, long)):,} characters; the format allows "
            f"{MAX_RATIONAL_CHARS} (too many distinct chain factors: try --chains direct or fewer distances)")
    return cert


def parse_error(text: str) -> Fraction:
    """``ε`` from an option: ``"p/q"``, an integer or a finite decimal, exactly; at most 40 characters.

    >>> parse_error("1/2"), parse_error("0.25")
    (Fraction(1, 2), Fraction(1, 4))
    >>> parse_error("1e-3")
    Traceback (most recent call last):
    ...
    ValueError: --error-below must be a positive rational p/q or decimal (at most 40 characters), not '1e-3'
    """
    import re

    if not isinstance(text, str) or len(text) > 40 or not re.fullmatch(r"[0-9]+(\.[0-9]+)?(/[0-9]+)?", text):
        raise ValueError(f"--error-below must be a positive rational p/q or decimal (at most 40 characters), not {text!r}")
    num, _, den = text.partition("/")
    if den and int(den) == 0:
        raise ValueError(f"--error-below {text}: zero denominator")
    value = Fraction(num) / (Fraction(den) if den else 1)
    if value <= 0:
        raise ValueError(f"--error-below must be positive, not {text}")
    return value


def describe(cert: dict[str, Any], code, plan: GapPlan, bound: CodeBound) -> list[str]:
    """Lines a person can read: claim, code, plan (gaps and factor per distance), family, arithmetic.

    Reads the producer's numbers (``bound``); the independent checker recomputes them.
    """
    from ..check import show_number

    claim = cert["claim"]
    if cert["version"] == 1:
        n_jumps, n_inputs, form = len(cert["jumps"]), len(cert["family"]["inputs"]), "explicit, format version 1"
    else:
        n_jumps, n_inputs, form = cert["family"]["jumps"], cert["family"]["inputs"], "compact, format version 2: generated by the checker"
    weights = code.weights if hasattr(code, "weights") else {code.weight: code.size}
    wtext = (f"weight {code.weight}" if code.weight is not None
             else "weights " + ", ".join(f"{w}×{c:,}" for w, c in sorted(weights.items())))
    t, ratio = bound.t, bound.ratio
    approx = f" ≈ {ratio.numerator / ratio.denominator:.4f}" if ratio.denominator != 1 else ""
    lines = [
        f"claim       r ≥ {claim['rank_at_least']} for one normalized nonnegative kernel-attention head on "
        f"{claim['m']}-bit tokens,",
        f"            error < {claim['error_below']} on every input of the family, exact length {claim['length']}",
        f"code        {t:,} words, length {code.length}, {wtext}, directed distances "
        + ", ".join(f"{d}×{c:,}" for d, c in sorted(bound.pairs.items())),
        f"            made from: {code.description or 'unspecified'}",
        f"plan        '{plan.name}', intermediate keys codewords-first:",
    ]
    for d, gaps in plan.entries:
        lines.append(f"            distance {d}: gaps {'+'.join(map(str, gaps))} → F = {show_number(bound.factors[d])}"
                     f"  ({bound.pairs[d]:,} ordered pairs)")
    lines += [
        f"family      {n_inputs:,} inputs of length {claim['length']}, {n_jumps:,} jumps ({form})",
        f"arithmetic  ‖C‖_F² < t + Σ F⁻² = {t:,} + {show_number(bound.sum_inverse_squares)} = "
        f"{show_number(bound.frobenius_squared_below)}",
        f"            t² / ‖C‖_F² > {t * t:,} / ({show_number(bound.frobenius_squared_below)}) = {show_number(ratio)}{approx}"
        f"  ⇒  rank(C) > {ratio.numerator // ratio.denominator}  ⇒  r ≥ {bound.rank_at_least}",
    ]
    return lines + argument_lines(cert)


def expand_certificate(doc: dict[str, Any]) -> dict[str, Any]:
    """The explicit (version-1) certificate of the same code, plan, ``n``, ``ε`` and claim.

    Raises
    ------
    CertificateBuildError
        If the words have different weights (version 1 needs one weight).
    """
    _, code, plan, n = _verified_compact(doc)  # verified here, then rebuilt explicitly
    eps = Fraction(doc["claim"]["error_below"])
    return rank_bound_certificate(code, plan, n, eps, "explicit", doc["claim"]["rank_at_least"],
                                  note=f"expanded from compact certificate {doc['sha256'][:16]}…",
                                  argument=Argument.from_json(doc.get("argument")))
