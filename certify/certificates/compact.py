"""Compact rank certificates (format version 2): the code and the chain plan, not the family.

A version-1 certificate lists every input, jump and chain; for the 2,576 Golay
dodecads that would be 13,268,976 inputs (about 1.5 GB). A version-2 certificate
carries only what determines them — the words, the exact length ``n``, ``ε``, and a
gap plan per directed distance with the ``codewords-first`` key rule
(:mod:`witnesses.plans`) — plus the counts and the arithmetic, and the checker
(``certify/check.py``) regenerates every key, jump and witness itself.
docs/certificate-format.md specifies the format.

The family a compact certificate is about is written out explicitly by
:func:`expand_family` (a ``{"family": {"inputs": [...]}}`` object, the format
``certify check-kernel --family`` reads) or, for large families, streamed to a file by
:func:`write_family`.

>>> from codes import load_code
>>> from certify.certificates.code_bound import make_plan
>>> code = load_code("rank-nine")
>>> cert = build_compact_certificate(code, make_plan(code, "best"))
>>> cert["version"], cert["plan"]["entries"], cert["family"]
(2, [{'distance': 6, 'gaps': [6], 'pairs': 210, 'factor': '5'}], {'jumps': 210, 'inputs': 435})
>>> len(expand_family(cert)["family"]["inputs"])
435
>>> build_compact_certificate(code, make_plan(code, "best"), rank_at_least=11)
Traceback (most recent call last):
...
certify.certificates.producer.CertificateBuildError: the code and plan prove r ≥ 10, not r ≥ 11
>>> build_compact_certificate(code, make_plan(code, "best"), argument="best")["argument"]["rank_at_least"]
13
"""
from __future__ import annotations

import json
import os
from typing import Any

from codes import BinaryCode, ConstantWeightCode, to_bits
from witnesses import WitnessError
from witnesses.plans import KEY_RULE, GapPlan, build_planned_family, iter_planned_inputs, planned_counts

from .. import __version__
from ..check import (
    FORMAT,
    MAX_COMPACT_QUERY,
    MAX_COMPACT_WORDS,
    MAX_COMPACT_WORK,
    MODEL,
    CertificateFormatError,
    Progress,
    check,
    compact_work,
    content_hash,
    format_rational,
)
from ..exact import exact
from ..lemmas.domination import HALF
from .code_bound import code_bound
from .producer import CertificateBuildError, settle_claim

__all__ = [
    "VERSION",
    "MAX_EXPAND_INPUTS",
    "MAX_EXPAND_BYTES",
    "MAX_WRITE_BYTES",
    "family_bytes",
    "build_compact_certificate",
    "check_compact_limits",
    "code_and_plan",
    "expand_family",
    "explicit_view",
    "write_family",
]

VERSION = 2

#: :func:`expand_family` and :func:`explicit_view` build the explicit family in memory up to
#: this many inputs, and up to :data:`MAX_EXPAND_BYTES` of it as JSON text;
#: :func:`write_family` streams up to :data:`MAX_WRITE_BYTES`. All three are decided from the
#: verified counts, ``n`` and ``m``, before any input is generated.
MAX_EXPAND_INPUTS = 2_000_000
MAX_EXPAND_BYTES = 64 * 2**20  # the size of a version-1 file the checker reads (certify.check.MAX_FILE_BYTES)
MAX_WRITE_BYTES = 2 * 2**30  # golay24's family, ≈ 1.6 GB, fits


def family_bytes(inputs: int, n: int, m: int) -> int:
    """The size of a family written explicitly: ``inputs · (n·(m + 4) + 40)`` bytes (tokens, separators, keys)."""
    return inputs * (n * (m + 4) + 40)


def build_compact_certificate(
    code, plan: GapPlan, length: int = 3, error=HALF, rank_at_least: int | None = None,
    note: str | None = None, bound=None, argument=None, max_work: int | None = None,
) -> dict[str, Any]:
    """The version-2 certificate of ``code`` under ``plan`` (A.2; docs/math.md §3–§5).

    ``max_work``: the checker's work limit to stay within (``--max-work``; default ``MAX_COMPACT_WORK``).

    Parameters
    ----------
    code
        A :class:`codes.BinaryCode` or :class:`codes.ConstantWeightCode` (any weights).
    plan : GapPlan
        Gaps per directed distance (:func:`certify.certificates.code_bound.make_plan`).
    length, error
        ``n ≥ 3`` and ``ε``.
    rank_at_least : int, optional
        The claim; default what the data prove.
    bound : CodeBound, optional
        Precomputed :func:`~certify.certificates.code_bound.code_bound` (saves a pass).
    argument : optional
        The final step, as for :func:`certify.certificates.producer.build_certificate`.

    Raises
    ------
    CertificateBuildError
        If the plan cannot bridge some pair or the claim exceeds the bound.
    """
    eps = exact(error, "error")
    check_compact_limits(code.size, plan, code.length, max_work)
    b = bound if bound is not None else code_bound(code, plan, length, eps)
    claimed, arg = settle_claim(b.t, b.by_factor, b.rank_at_least, rank_at_least, argument, "the code and plan prove",
                                classes=b.classes, length=code.length if code.weight is not None else None)
    progress = Progress("counting the generated family (queries)", total=code.size)
    try:
        n_jumps, n_inputs = planned_counts(code, plan, progress.update)
    except WitnessError as exc:
        raise CertificateBuildError(str(exc)) from None
    finally:
        progress.close()
    producer = {"tool": f"certify {__version__}", "code": code.description or "unspecified", "chains": plan.name}
    if note:
        producer["note"] = note
    cert: dict[str, Any] = {
        "format": FORMAT,
        "version": VERSION,
        "claim": {
            "model": MODEL,
            "m": code.length,
            "length": length,
            "error_below": format_rational(eps),
            "rank_at_least": claimed,
        },
        "producer": producer,
        "code": {"length": code.length, "words": code.to_bits()},
        "plan": {
            "keys": KEY_RULE,
            "entries": [
                {"distance": d, "gaps": list(gaps), "pairs": b.pairs[d], "factor": format_rational(b.factors[d])}
                for d, gaps in plan.entries
            ],
        },
        "family": {"jumps": n_jumps, "inputs": n_inputs},
        "arithmetic": {
            "t": b.t,
            "sum_inverse_squares": format_rational(b.sum_inverse_squares),
            "frobenius_squared_below": format_rational(b.frobenius_squared_below),
            "ratio": format_rational(b.ratio),
            "rank_at_least": b.rank_at_least,
        },
    }
    if arg is not None:
        cert["argument"] = arg.to_json()
    cert["sha256"] = content_hash(cert)
    return cert


def check_compact_limits(t: int, plan: GapPlan | None = None, m: int = 64, max_work: int | None = None) -> None:
    """Refuse, before any quadratic work, a code the checker would refuse (docs/certificate-format.md, "Limits").

    Raises
    ------
    CertificateBuildError
        If ``t`` exceeds ``MAX_COMPACT_WORDS`` or, given a plan, the generation work
        :func:`certify.check.compact_work` ``(t, k, m)`` or the per-query size
        ``(t−1)(k+1)`` exceeds its limit (the work limit: ``max_work``, as the checker's
        ``--max-work``, or by default ``MAX_COMPACT_WORK``).
    """
    if t > MAX_COMPACT_WORDS:
        raise CertificateBuildError(f"{t:,} words; a certificate (compact, version 2) has at most {MAX_COMPACT_WORDS:,}")
    if plan is not None:
        k = max(len(g) for _, g in plan.entries)
        limit = MAX_COMPACT_WORK if max_work is None else max_work
        if compact_work(t, k, m) > limit or (t - 1) * (k + 1) > MAX_COMPACT_QUERY:
            raise CertificateBuildError(
                f"{t:,} words of {m} bits with chains of up to {k} jumps exceed the checker's work limit "
                f"(t(t−1)(k+1)⌈m/64⌉ = {compact_work(t, k, m):,}, at most {limit:,}"
                f"{'' if max_work is None else ' by --max-work'}; (t−1)(k+1) ≤ {MAX_COMPACT_QUERY:,})"
                + ("" if max_work is not None else ": a larger --max-work raises the first"))


def code_and_plan(doc: dict[str, Any]) -> tuple[BinaryCode | ConstantWeightCode, GapPlan, int]:
    """The code, plan and length ``n`` of a version-2 certificate that :func:`certify.check.check` accepted."""
    m = doc["claim"]["m"]
    words = tuple(int(w[::-1], 2) for w in doc["code"]["words"])
    desc = doc.get("producer", {}).get("code", "")
    weights = {w.bit_count() for w in words}
    code = ConstantWeightCode(m, weights.pop(), words, desc) if len(weights) == 1 else BinaryCode(m, words, desc)
    plan = GapPlan(doc.get("producer", {}).get("chains", "plan"),
                   tuple((e["distance"], tuple(e["gaps"])) for e in doc["plan"]["entries"]))
    return code, plan, doc["claim"]["length"]


def _verified_compact(doc: dict[str, Any], verified=None):
    if doc.get("version") != VERSION:
        raise CertificateFormatError("format", f"expected a compact (version {VERSION}) certificate, got version {doc.get('version')!r}")
    verified = check(doc) if verified is None else verified
    code, plan, n = code_and_plan(doc)
    return verified, code, plan, n


def _family_inputs(doc: dict[str, Any], verified=None):
    """Verify ``doc`` (either version; ``verified``: already done); return ``(count, iterator of input objects)``."""
    if doc.get("version") != VERSION:  # version 1 lists its family: verify, then read it back
        verified = check(doc) if verified is None else verified
        return verified.counts["inputs"], iter(doc["family"]["inputs"])
    verified, code, plan, n = _verified_compact(doc, verified)
    return verified.counts["inputs"], (x.to_json() for x in iter_planned_inputs(code, plan, n))


def expand_limit(total: int, doc: dict[str, Any], limit: int = MAX_EXPAND_BYTES, streamed: bool = False) -> None:
    """Refuse an expansion beyond the limits, from the counts alone (before any input is generated)."""
    claim = doc.get("claim") if isinstance(doc, dict) else None
    n = claim.get("length") if isinstance(claim, dict) else None
    m = claim.get("m") if isinstance(claim, dict) else None
    size = family_bytes(total, n, m) if isinstance(n, int) and isinstance(m, int) else 0
    if (total > MAX_EXPAND_INPUTS and not streamed) or size > limit:
        raise CertificateFormatError(
            "limits", f"the family has {total:,} inputs of length {n}, about {size / 2**20:,.0f} MiB written out; "
            + (f"at most {MAX_WRITE_BYTES // 2**20:,} MiB are written" if streamed else
               f"at most {MAX_EXPAND_INPUTS:,} inputs and {MAX_EXPAND_BYTES // 2**20} MiB are built in memory "
               f"(write_family streams up to {MAX_WRITE_BYTES // 2**20:,} MiB)"))


def expand_family(doc: dict[str, Any]) -> dict[str, Any]:
    """The family a certificate is about, explicitly: ``{"family": {"inputs": [...]}, "from_certificate": sha256}``.

    The certificate is verified first (``certify.check.check``). For a compact
    certificate the inputs are then generated by
    :func:`witnesses.plans.iter_planned_inputs` — code independent of the checker — and
    their number compared with the count the checker derived; a version-1 certificate
    lists them already. Each input is ``{"tokens": [...], "query": 0, "target": t}``, in
    the order of first use. This is the object ``certify check-kernel --family`` reads.

    Raises
    ------
    certify.check.CertificateError
        If the certificate does not verify, or its family is beyond :data:`MAX_EXPAND_INPUTS`
        inputs or :data:`MAX_EXPAND_BYTES` (use :func:`write_family`, which streams).
    AssertionError
        If the generated family has a different size from the checked one (a bug).
    """
    fam = doc.get("family") if isinstance(doc, dict) else None
    stated = fam.get("inputs") if isinstance(fam, dict) else None
    stated = len(stated) if isinstance(stated, list) else stated
    if isinstance(stated, int):
        expand_limit(stated, doc)  # the stated size first: refused before any work
    total, inputs = _family_inputs(doc)
    expand_limit(total, doc)  # then the verified size
    listed = list(inputs)
    if len(listed) != total:
        raise AssertionError(f"generated {len(listed)} inputs, the checker counted {total}")
    return {"family": {"inputs": listed}, "from_certificate": doc["sha256"]}


def explicit_view(doc: dict[str, Any]) -> dict[str, Any]:
    """The parts of a compact certificate that a version-1 file lists, generated (no re-check).

    For callers that have just verified ``doc`` with :func:`certify.check.check` and
    need its family as data (``certify check-kernel --family``): returns ``{"claim",
    "code": {"words"}, "family": {"inputs"}, "jumps": [{"x", "y", "z"}, …]}`` with the
    same spellings as version 1.

    Raises
    ------
    certify.check.CertificateError
        If the family is beyond :data:`MAX_EXPAND_INPUTS` inputs or :data:`MAX_EXPAND_BYTES`.
    """
    code, plan, n = code_and_plan(doc)
    expand_limit(doc["family"]["inputs"], doc)
    fam = build_planned_family(code, plan, n)
    m = code.length
    return {
        "claim": doc["claim"],
        "code": {"words": code.to_bits()},
        "family": {"inputs": [x.to_json() for x in fam.inputs]},
        "jumps": [{"x": to_bits(j.x, m), "y": to_bits(j.y, m), "z": to_bits(j.z, m)} for j in fam.jumps],
    }


def write_family(doc: dict[str, Any], path: str | os.PathLike, verified=None) -> int:
    """Verify ``doc`` (either version) and stream its explicit family to ``path`` (one input per line); return the count.

    ``verified``: what :func:`certify.check.check` returned for this very ``doc`` object,
    when the caller has just checked it (the check is then not repeated).

    Refused (``CertificateFormatError``, step ``limits``) before anything is generated when
    the family would take more than :data:`MAX_WRITE_BYTES` written out.

    Same content as :func:`expand_family` (``{"family": {"inputs": [...]}, "from_certificate": …}``),
    written query by query in bounded memory, with progress on stderr; the file is
    written to a temporary name and renamed into place.
    """
    from ..outputs import atomic_writer
    from .producer import dumps

    total, inputs = _family_inputs(doc, verified)
    expand_limit(total, doc, MAX_WRITE_BYTES, streamed=True)
    count = 0
    progress = Progress("writing family inputs", total=total)
    try:
        with atomic_writer(path, "w") as fh:
            fh.write('{"family": {"inputs": [\n')
            for x in inputs:
                fh.write(("" if count == 0 else ",\n") + "  " + dumps(x))
                count += 1
                if count % 4096 == 0:
                    progress.update(count)
            fh.write(f'\n]}}, "from_certificate": {json.dumps(doc["sha256"])}}}\n')
            if count != total:
                raise AssertionError(f"generated {count} inputs, the checker counted {total}")
    finally:
        progress.close()
    return count
