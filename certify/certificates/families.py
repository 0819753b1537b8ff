"""Witness-family files for ``certify family KIND`` (format ``certify.family``, version 1; docs/families.md).

A family file carries inputs in the certificate's ``family`` format —
``{"family": {"inputs": [{"tokens": [...], "query": i, "target": t}, …]}}`` — so that
``certify check-kernel --family FILE`` reads it and a training script can load it, plus
metadata: ``format``, ``version``, ``kind``, ``title``, ``reference``, ``parameters``,
``m``, ``counts`` and the kind's structure (jumps and chains, replacement groups, or
the transcript code). Targets are recomputed from the tokens when the inputs are built.

Kinds (``FAMILY_KINDS``):

* ``jumps`` — the weight-domination witnesses ``Y, Z, W`` of every jump of a code's
  chains at exact length ``n`` (A.2; docs/math.md §3–§4);
* ``unique-minimizer`` — the four typed inputs ``Y, Z, M₀, M₁`` of every jump, three
  distinct tokens each with a unique minimizer (A.4; docs/math.md §7);
* ``multihead`` — the replacement family ``X_A``, ``A ⊆ [H+1]``, at exact length
  ``H + 2`` for every ``H``-tuple of candidate keys (B.1; docs/math.md §9);
* ``transcript`` — query and database tokens, every answer assignment (C.3; docs/math.md §7).

>>> doc = family_document("multihead", heads=1)
>>> doc["m"], doc["counts"], doc["parameters"]["gap"]
(18, {'inputs': 7, 'groups': 2}, 8)
>>> family_document("transcript", word_length=4, s=1, queries=3)
Traceback (most recent call last):
...
certify.certificates.families.FamilyInputError: transcript: the greedy code of length 4, weight 2, directed distance ≥ 2 has 2 words, fewer than --queries 3
"""
from __future__ import annotations

from typing import Any

from codes import CodeError, ConstantWeightCode, greedy_code, load_code
from witnesses import (
    WitnessError,
    WitnessFamily,
    build_family,
    multihead_family,
    transcript_family,
    unique_minimizer_family,
)

from .. import __version__
from ..check import MAX_TOKEN_BITS

__all__ = ["FAMILY_FORMAT", "FAMILY_VERSION", "FAMILY_KINDS", "MAX_FAMILY_INPUTS", "MAX_FAMILY_BYTES",
           "FamilyInputError",
           "chain_plan", "family_document"]

FAMILY_FORMAT = "certify.family"
FAMILY_VERSION = 1
FAMILY_KINDS = ("jumps", "unique-minimizer", "multihead", "transcript")
MAX_FAMILY_INPUTS = 1_000_000
MAX_FAMILY_BYTES = 32 * 2**20



class FamilyInputError(ValueError):
    """Options that do not describe a family, or a family too large to write (exit 2)."""


def _bits(x: int, m: int) -> str:
    return format(x, f"0{m}b")[::-1]


def _refuse_large(kind: str, count: int, length: int, m: int) -> None:
    """Refuse before building: more than ``MAX_FAMILY_INPUTS`` inputs, or a file over ``MAX_FAMILY_BYTES``.

    The size estimate is ``count·(length·(m + 12) + 60)`` bytes (a token is ``m``
    characters plus quotes, separator and indentation; ``query``/``target`` about 60);
    families within it take seconds to write, and check-kernel reads them back. For
    jump families ``count`` is the number of witness slots (before shared inputs are
    merged), an upper bound.
    """
    size = count * (length * (m + 12) + 60)
    if count > MAX_FAMILY_INPUTS or size > MAX_FAMILY_BYTES:
        raise FamilyInputError(f"{kind}: the family would have up to {count:,} inputs (a file of about {size / 2**20:,.0f} MiB); "
                               f"the limits are {MAX_FAMILY_INPUTS:,} inputs and {MAX_FAMILY_BYTES // 2**20} MiB")


def refuse_large_certificate(kind: str, code, levels, per_jump: int, length: int, m: int) -> None:
    """Refuse before building a certificate whose family alone would exceed the checker's file limit.

    The same estimate as :func:`_refuse_large` (witness slots, an upper bound), against the
    checker's 64 MiB (``certify.check.MAX_FILE_BYTES``): such a file could never be verified.
    ``certify unique-minimizer --code golay24`` ran for minutes past 2 GB before this check.
    """
    from ..check import MAX_FILE_BYTES

    count = _witness_bound(code, levels, per_jump)
    size = count * (length * (m + 12) + 60)
    if size > MAX_FILE_BYTES:
        raise FamilyInputError(f"{kind}: the certificate's family would have up to {count:,} inputs (about "
                               f"{size / 2**20:,.0f} MiB written out); the checker reads at most "
                               f"{MAX_FILE_BYTES // 2**20} MiB")


def chain_plan(name: str, length: int, unique: bool):
    """A chain plan by name (docs/math.md §4): ``paper``, ``direct``, or ``best``.

    ``best`` maximizes the product of the per-gap factors: ``μ_g`` of weight domination
    at exact length ``length`` (error 1/2), or ``(g−1)/2`` of A.4 when ``unique``.
    """
    from ..lemmas.amplification import best_split, levels_from_gaps
    from ..lemmas.unique_minimizer import effective_factor

    if name != "best":
        return name
    if unique:
        return lambda d: levels_from_gaps(best_split(d, factor=effective_factor)[1])
    return lambda d: levels_from_gaps(best_split(d, length)[1])


def _witness_bound(code: ConstantWeightCode, levels, per_jump: int) -> int:
    """At most ``per_jump`` inputs per chain step, summed over the ordered pairs (cheap, before building)."""
    from witnesses import PLANS

    plan = PLANS.get(levels, levels) if isinstance(levels, str) else levels
    steps = 0
    for d, count in code.distance_counts.items():
        try:
            steps += count * (len(plan(d)) - 1)
        except (WitnessError, ValueError):
            pass  # the builder reports the pair it cannot bridge
    return per_jump * steps


def _chained(kind: str, fam: WitnessFamily, code_spec: str, chains: str) -> dict[str, Any]:
    m = fam.code.length
    return {
        "parameters": {"code": code_spec, "chains": chains, "length": fam.length},
        "code": {"description": fam.code.description, "length": m, "weight": fam.code.weight,
                 "min_directed_distance": fam.code.min_distance, "words": fam.code.to_bits()},
        "jumps": [{"x": _bits(j.x, m), "y": _bits(j.y, m), "z": _bits(j.z, m), "overlaps": [j.low, j.high],
                   "witnesses": list(w)} for j, w in zip(fam.jumps, fam.witnesses)],
        "chains": [{"pair": [c.source, c.target], "jumps": list(c.jumps)} for c in fam.chains],
        "counts": {"inputs": len(fam.inputs), "jumps": len(fam.jumps), "chains": len(fam.chains)},
    }


def _code(kind: str, spec: str) -> ConstantWeightCode:
    try:
        return load_code(spec)
    except CodeError as exc:
        raise FamilyInputError(f"{kind}: --code: {exc}") from None


def family_document(kind: str, *, code: str | None = None, chains: str | None = None, length: int | None = None,
                    heads: int | None = None, m: int | None = None, gap: int | None = None,
                    candidates: int | None = None, word_length: int | None = None, s: int | None = None,
                    queries: int | None = None, weight: int | None = None) -> dict[str, Any]:
    """Build the family ``kind`` with these options and return its file document.

    Options that do not apply to ``kind`` must be ``None`` (the command line says which
    option is out of place). Defaults: ``jumps`` — ``code="rank-nine"``, ``chains="paper"``
    at length 3 and ``"best"`` above, ``length=3``; ``unique-minimizer`` —
    ``code="greedy:24:7:6"``, ``chains="direct"``; ``multihead`` — ``heads=1``,
    ``gap = g_H``, ``m = 2·gap + 2``, ``candidates=2``; ``transcript`` — ``word_length=8``,
    ``s=1``, ``queries=3``, ``weight = word_length/2``.

    Raises
    ------
    FamilyInputError
        On an unknown kind, an option that does not apply, values out of range, or a
        family of more than ``MAX_FAMILY_INPUTS`` inputs.
    """
    given = {"code": code, "chains": chains, "length": length, "heads": heads, "m": m, "gap": gap,
             "candidates": candidates, "word_length": word_length, "s": s, "queries": queries, "weight": weight}
    allowed = {"jumps": {"code", "chains", "length"}, "unique-minimizer": {"code", "chains"},
               "multihead": {"heads", "m", "gap", "candidates"}, "transcript": {"word_length", "s", "queries", "weight"}}
    if kind not in allowed:
        raise FamilyInputError(f"unknown family kind {kind!r}; choose one of: {', '.join(FAMILY_KINDS)}")
    for name, value in given.items():
        if value is not None and name not in allowed[kind]:
            users = [k for k, opts in allowed.items() if name in opts]
            raise FamilyInputError(f"--{name.replace('_', '-')} does not apply to {kind} (it is an option of {', '.join(users)})")
    try:
        body = _BUILDERS[kind](**{k: v for k, v in given.items() if k in allowed[kind]})
    except (WitnessError, CodeError) as exc:
        raise FamilyInputError(f"{kind}: {exc}") from None
    doc = {"format": FAMILY_FORMAT, "version": FAMILY_VERSION, "kind": kind, "producer": f"certify {__version__}"}
    doc.update(body)
    return doc


def _jumps(code, chains, length) -> dict[str, Any]:
    from ..lemmas.domination import domination_factor

    n = 3 if length is None else length
    if not 3 <= n <= 64:
        raise FamilyInputError(f"jumps: --length must be between 3 and 64, not {n}")
    spec = code or "rank-nine"
    plan = chains or ("paper" if n == 3 else "best")
    if plan not in ("paper", "direct", "best"):
        raise FamilyInputError(f"jumps: --chains must be paper, direct or best, not {plan!r}")
    words = _code("jumps", spec)
    levels = chain_plan(plan, n, False)
    _refuse_large("jumps", _witness_bound(words, levels, 3), n, words.length)
    fam = build_family(words, levels, n, plan_name=plan)
    out = _chained("jumps", fam, spec, plan)
    out.update(title=f"weight-domination witnesses Y, Z, W of every jump, exact length {n}",
               reference="A.2; docs/math.md §3–§4", m=words.length,
               family={"inputs": [x.to_json() for x in fam.inputs]})
    out["jumps"] = [dict(j, factor=str(domination_factor(j["overlaps"][1] - j["overlaps"][0], n)))
                    for j in out["jumps"]]
    return out


def _unique(code, chains) -> dict[str, Any]:
    spec = code or "greedy:24:7:6"
    plan = chains or "direct"
    if plan not in ("direct", "best"):
        raise FamilyInputError(f"unique-minimizer: --chains must be direct or best, not {plan!r}")
    words = _code("unique-minimizer", spec)
    levels = chain_plan(plan, 3, True)
    _refuse_large("unique-minimizer", _witness_bound(words, levels, 4), 3, words.length + 2)
    fam = unique_minimizer_family(words, levels, plan_name=plan)
    out = _chained("unique-minimizer", fam, spec, plan)
    out.update(title="typed inputs Y, Z, M₀, M₁ of every jump: three distinct tokens, unique minimizer, length 3",
               reference="A.4; docs/math.md §7", m=words.length + 2,
               family={"inputs": [x.to_json() for x in fam.inputs]})
    return out


def _multihead(heads, m, gap, candidates) -> dict[str, Any]:
    from ..bounds.values import g_heads

    H = 1 if heads is None else heads
    if not 1 <= H <= 3:
        raise FamilyInputError(f"multihead: --heads must be 1, 2 or 3, not {H}")
    g = g_heads(H) if gap is None else gap
    M = 2 * g + 2 if m is None else m
    K = 2 if candidates is None else candidates
    if M > MAX_TOKEN_BITS:  # check-kernel --family reads tokens of at most MAX_TOKEN_BITS bits
        why = (f"; gap {g} needs m ≥ 2·gap + 2 = {2 * g + 2}" if m is None else "")
        raise FamilyInputError(f"multihead: tokens of {M:,} bits exceed the {MAX_TOKEN_BITS:,}-bit limit of family files{why} "
                               f"(H = 3 needs g_3 = 5,468; a smaller --gap gives a family below B.1's threshold)")
    if not 2 <= M or M % 2:
        raise FamilyInputError(f"multihead: --m must be an even number between 2 and {MAX_TOKEN_BITS}, not {M}")
    if not 1 <= g <= M // 2:
        raise FamilyInputError(f"multihead: --gap must be between 1 and m/2 = {M // 2}, not {g}")
    windows = 1 if g == M // 2 else M // 2
    if not 1 <= K <= windows:
        raise FamilyInputError(f"multihead: --candidates must be between 1 and {windows} at m = {M}, gap {g}, not {K}")
    _refuse_large("multihead", K ** H * 2 ** (H + 1), H + 2, M)
    h = M // 2
    x = (1 << h) - 1
    y = x << h
    base = y & ~(((1 << g) - 1) << h)  # y without its first g coordinates
    cands = []
    for k in range(K):
        window = sum(1 << ((k + i) % h) for i in range(g))
        cands.append(base | window)
    fam = multihead_family(x, y, tuple(cands), H, M, min_gap=1)
    return {
        "title": f"replacement family X_A, A ⊆ [{H + 1}], at exact length {H + 2}, for each of the {K ** H} choices "
                 f"of {H} worse key{'s' if H > 1 else ''} among {K} candidates",
        "reference": "B.1; docs/math.md §9",
        "parameters": {"heads": H, "m": M, "gap": g, "g_H": g_heads(H), "candidates": K},
        "m": M,
        "query": _bits(x, M), "better_key": _bits(y, M), "candidates": [_bits(z, M) for z in cands],
        "groups": [{"keys": [cands.index(z) for z in keys], "inputs": list(ids)} for keys, ids in fam.groups],
        "counts": {"inputs": len(fam.inputs), "groups": len(fam.groups)},
        "family": {"inputs": [x_.to_json() for x_ in fam.inputs]},
    }


def _transcript(word_length, s, queries, weight) -> dict[str, Any]:
    M = 8 if word_length is None else word_length
    s_ = 1 if s is None else s
    q = 3 if queries is None else queries
    h = M // 2 if weight is None else weight
    from codes.library import MAX_SPEC_LENGTH

    if not 2 <= M <= MAX_SPEC_LENGTH:
        raise FamilyInputError(f"transcript: --word-length must be between 2 and {MAX_SPEC_LENGTH}, not {M}")
    if not 1 <= h <= M:
        raise FamilyInputError(f"transcript: --weight must be between 1 and {M}, not {h}")
    if not 1 <= s_ <= 64 or not 1 <= q <= 64:
        raise FamilyInputError(f"transcript: --s and --queries must be between 1 and 64, not {s_} and {q}")
    _refuse_large("transcript", q * (s_ + 1) ** q, 2 * q, 2 + M + s_)
    code = greedy_code(M, h, s_ + 1, cap=q)
    if code.size < q:
        raise FamilyInputError(f"transcript: the greedy code of length {M}, weight {h}, directed distance ≥ {s_ + 1} "
                               f"has {code.size} words, fewer than --queries {q}")
    fam = transcript_family(code, s_, q)
    return {
        "title": f"{q} query and {q} database tokens, every answer assignment in {{0,…,{s_}}}^{q}, length {2 * q}",
        "reference": "§5.2, C.3; docs/math.md §7",
        "parameters": {"word_length": M, "s": s_, "queries": q, "weight": h},
        "m": fam.m,
        "code": {"description": code.description, "words": code.to_bits()},
        "min_unintended_overlap": fam.min_unintended_overlap,
        "counts": {"inputs": len(fam.inputs), "assignments": (s_ + 1) ** q},
        "family": {"inputs": [x.to_json() for x in fam.inputs]},
    }


_BUILDERS = {"jumps": _jumps, "unique-minimizer": _unique, "multihead": _multihead, "transcript": _transcript}
