"""Witness families for ``check-kernel``: loading, verifying and streaming them (stage 1; docs/math.md §2–§4).

A family is what a kernel table is checked against (:class:`FamilySpec`): its inputs with
targets, its jumps ``(x, y, z, n)``, the error bound ``ε`` and, from a certificate, the
proved bound ``r ≥ …``. It comes from a certificate (verified by ``certify.check`` first;
a compact one is kept as its code and plan, :class:`CompactFamily`, and generated query by
query when it is too large to list), from any JSON file with ``family.inputs`` (its jumps
detected, :func:`_detect_jumps`), or from a built-in name (:data:`NAMED_FAMILIES`).
Every later stage takes a :class:`FamilySpec` and nothing else of the file.
"""
from __future__ import annotations

import functools
import os
from dataclasses import dataclass
from fractions import Fraction
from typing import Any

from witnesses import Input, WitnessError

from ..check import FORMAT, MAX_TOKEN_BITS, UM_FORMAT, CertificateError, check, load
from ..lemmas.domination import domination_factor

__all__ = ["FamilyFormatError", "FamilySpec", "CompactFamily", "compact_tokens", "require_explicit", "NAMED_FAMILIES",
           "family_of_certificate", "family_of_code", "load_family"]


class FamilyFormatError(ValueError):
    """The family file is unreadable, malformed, or a certificate that does not verify (exit 2)."""


@dataclass(frozen=True)
class FamilySpec:
    """A family of inputs, its jumps ``(x, y, z, n)`` (``n``: witness length) and, from a certificate, its proved bound."""

    inputs: tuple[Input, ...]
    m: int
    error: Fraction
    jumps: tuple[tuple[int, int, int, int], ...]
    certified_bound: int | None
    code_words: tuple[int, ...] | None
    source: str
    skipped_jumps: int = 0  # witnessed jumps with μ < 1, which prove nothing and are not checked
    compact: "CompactFamily | None" = None  # a compact certificate's family, streamed query by query (inputs, jumps empty)

    @property
    def streamed(self) -> bool:
        """True when the family is not listed but generated query by query from a compact certificate."""
        return self.compact is not None

    @property
    def input_count(self) -> int:
        return self.compact.inputs if self.compact is not None else len(self.inputs)

    @property
    def jump_count(self) -> int:
        return self.compact.jumps if self.compact is not None else len(self.jumps)


@dataclass(frozen=True)
class CompactFamily:
    """The family of a verified compact (version 2) certificate, as its code, plan and length ``n``.

    Its inputs and jumps are generated query by query (:func:`witnesses.plans.query_part`,
    the generator of :func:`certify.certificates.compact.expand_family`), never all at
    once; ``inputs`` and ``jumps`` are the counts the checker derived.
    """

    code: Any
    plan: Any
    length: int
    inputs: int
    jumps: int


def compact_tokens(c: CompactFamily) -> tuple[list[int], list[tuple[int, int]]]:
    """The tokens of a compact family in order of first use (each query's, sorted) and per query ``(inputs, jumps)``.

    One pass over the plan's token sets (:func:`witnesses.plans.planned_query_tokens`, with
    progress), kept on the family object: later checks against the same family reuse it.
    """
    cached = getattr(c, "_tokens", None)
    if cached is not None:
        return cached
    from witnesses.plans import planned_query_tokens

    from ..check import Progress

    k_pos: dict[int, None] = {}
    counts: list[tuple[int, int]] = []
    progress = Progress("check-kernel: reading the compact family's tokens (queries)", total=len(c.code.words))
    try:
        for i, (toks, n_inputs, n_jumps) in enumerate(planned_query_tokens(c.code, c.plan)):
            counts.append((n_inputs, n_jumps))
            k_pos.update(dict.fromkeys(sorted(toks)))
            progress.update(i + 1)
    finally:
        progress.close()
    object.__setattr__(c, "_tokens", (list(k_pos), counts))  # a cache on a frozen dataclass: derived data only
    return c._tokens


def require_explicit(family: FamilySpec, command: str) -> None:
    """Refuse (:class:`FamilyFormatError`, exit 2) a streamed family in a command that needs its inputs in memory."""
    if family.streamed:
        from ..certificates.compact import MAX_EXPAND_BYTES, MAX_EXPAND_INPUTS

        raise FamilyFormatError(
            f"{family.source}: the family has {family.input_count:,} inputs; {command} builds the family in memory, "
            f"at most {MAX_EXPAND_INPUTS:,} inputs and {MAX_EXPAND_BYTES // 2**20} MiB written out (certify "
            "check-kernel streams larger compact families)")


@functools.lru_cache(maxsize=1)
def _rank_nine_default() -> FamilySpec:
    from ..certificates.producer import rank_nine_certificate

    return _from_certificate(rank_nine_certificate("paper"), "the rank-nine certificate (paper chains)")


def _from_certificate(doc: dict[str, Any], source: str, stream: bool | None = None) -> FamilySpec:
    """A certificate as a family: verified first, its proved bound kept as ``certified_bound``.

    A compact (version 2) certificate's family is generated (``certify.certificates.compact``).
    A unique-minimizer certificate (A.4) proves its bound for the effective kernel
    ``K = α(q,k₀) + 2α(q,k₁)``, whose columns are combinations of ``α``'s, so a solving
    table's kernel rank must reach it too; its jumps are of the four-witness kind, which
    the three-witness check does not cover, so none are listed.

    ``stream``: for a compact certificate, keep the family as its code and plan
    (:class:`CompactFamily`; ``check-kernel`` then streams it query by query) instead of
    listing it. Default (``None``): streamed exactly when the explicit family is beyond
    what :func:`certify.certificates.compact.explicit_view` builds in memory
    (``MAX_EXPAND_INPUTS`` inputs, ``MAX_EXPAND_BYTES``) — e.g. golay24's 13,268,976 inputs.
    """
    try:
        verified = check(doc)
    except CertificateError as exc:
        raise FamilyFormatError(f"{source}: the certificate does not verify ({exc})") from None
    unique = doc.get("format") == UM_FORMAT
    if doc.get("version") == 2 and not unique:  # compact: generate the family it is about
        from ..certificates.compact import expand_limit, code_and_plan, explicit_view

        if stream is None:
            try:
                expand_limit(doc["family"]["inputs"], doc)
                stream = False
            except CertificateError:
                stream = True
        if stream:
            code, plan, n = code_and_plan(doc)
            fam = CompactFamily(code, plan, n, verified.counts["inputs"], verified.counts["jumps"])
            return FamilySpec((), doc["claim"]["m"], Fraction(doc["claim"]["error_below"]), (), verified.proved,
                              tuple(code.words), f"{source}, r ≥ {verified.proved}", 0, fam)

        try:
            doc = explicit_view(doc)
        except CertificateError as exc:
            raise FamilyFormatError(f"{source}: verified, but {str(exc).split(': ', 1)[-1]}") from None
    m = doc["claim"]["m"]
    inputs = tuple(Input.from_json(x, m) for x in doc["family"]["inputs"])
    if unique:
        return FamilySpec(inputs, m, Fraction(doc["claim"]["error_below"]), (), verified.proved, None,
                          f"{source} (unique-minimizer certificate; its four-witness jumps are not checked here), "
                          f"r ≥ {verified.proved}")
    bits = lambda s: int(s[::-1], 2)  # noqa: E731
    n = doc["claim"]["length"]
    jumps = tuple((bits(j["x"]), bits(j["y"]), bits(j["z"]), n) for j in doc["jumps"])
    words = tuple(bits(w) for w in doc["code"]["words"])
    return FamilySpec(inputs, m, Fraction(doc["claim"]["error_below"]), jumps, verified.proved, words,
                      f"{source}, r ≥ {verified.proved}")


def family_of_certificate(doc: dict[str, Any], source: str, stream: bool | None = None) -> FamilySpec:
    """A certificate document (any kind and version) as a family, verified first (its bound kept; ``stream``: see :func:`_from_certificate`)."""
    return _from_certificate(doc, source, stream)


def _detect_jumps(inputs: tuple[Input, ...], eps: Fraction = Fraction(1, 2),
                  useless: list | None = None) -> tuple[tuple[int, int, int, int], ...]:
    """Jumps whose three witnesses ``(x,y^{n−1})``, ``(x,z^{n−1})``, ``(x,y,z^{n−2})`` are all in the family.

    Only jumps that prove something are returned: weight domination gives
    ``α(x,y) > μ·α(x,z)`` with ``μ = (n−2)(d−2ε)/(2ε)``, and says nothing when ``μ < 1``
    (e.g. a gap-1 jump at length 3, ε = 1/2: a solving table may well have
    ``α(x,y) ≤ α(x,z)`` there). Certificates refuse such jumps; here they are skipped,
    and appended to ``useless`` when a list is given.
    """
    present = {(x.tokens, x.query) for x in inputs}
    found = []
    for X in inputs:
        t = X.tokens
        n = len(t)
        if X.query != 0 or n < 3 or t[1] == t[2] or any(v != t[2] for v in t[2:]):
            continue
        x, y, z = t[0], t[1], t[2]
        lo, hi, s = (x & y).bit_count(), (x & z).bit_count(), x.bit_count()
        if not lo < hi <= s:
            continue
        if ((x,) + (y,) * (n - 1), 0) in present and ((x,) + (z,) * (n - 1), 0) in present:
            useful = domination_factor(hi - lo, n, eps) >= 1
            (found if useful else useless if useless is not None else []).append((x, y, z, n))
    return tuple(found)


#: Families by name (``--family NAME`` when no file of that name exists): the certificate of each
#: built-in code, made by the producer and verified by the checker before use.
NAMED_FAMILIES = ("rank-nine", "hadamard24", "golay24")


def family_of_code(spec: str) -> FamilySpec:
    """The family of ``certify rank-bound --code SPEC --chains best --argument best``, verified (its bound kept).

    ``rank-nine`` is the default family (paper chains, r ≥ 9). Bad specs raise
    :class:`FamilyFormatError` (exit 2).
    """
    if spec == "rank-nine":
        return _rank_nine_default()
    return best_chain_family(spec)


@functools.lru_cache(maxsize=4)
def best_chain_family(spec: str) -> FamilySpec:
    from codes import CodeError, load_code

    from ..certificates.compact import check_compact_limits
    from ..certificates.producer import CertificateBuildError
    from ..certificates.rank_bound import make_plan, rank_bound_certificate

    try:
        code = load_code(spec)
        check_compact_limits(code.size)
        doc = rank_bound_certificate(code, make_plan(code, "best"), argument="best")
    except (CodeError, CertificateBuildError, ValueError) as exc:
        raise FamilyFormatError(f"--code {spec}: {exc}") from None
    return _from_certificate(doc, f"{spec} (certificate of the code, best chains)")


def load_family(path: str | None, stream: bool | None = None) -> FamilySpec:
    """The family to check against: ``None`` → the rank-nine certificate; else a certificate or a family file.

    Both are read by the checker's strict, bounded reader (``certify.check.load``: size
    cap, memory estimate before parsing, no floats); a certificate must verify. A name in
    :data:`NAMED_FAMILIES` that is not a file is the family of that code (:func:`family_of_code`).
    """
    if path is None:
        return _rank_nine_default()
    if path in NAMED_FAMILIES and not os.path.exists(path):
        return family_of_code(path)
    try:
        doc = load(path)
    except CertificateError as exc:
        raise FamilyFormatError(f"{path}: {exc}") from None
    if doc.get("format") in (FORMAT, UM_FORMAT):
        return _from_certificate(doc, path, stream)
    fam = doc.get("family")
    items = fam.get("inputs") if isinstance(fam, dict) else None
    if not isinstance(items, list) or not items:
        raise FamilyFormatError(f"{path}: expected a certificate or an object with a nonempty family.inputs array")
    first = items[0].get("tokens") if isinstance(items[0], dict) else None
    if not isinstance(first, list) or not first or not isinstance(first[0], str):
        raise FamilyFormatError(f"{path}: family.inputs[0].tokens must be an array of 0/1 strings")
    m = len(first[0])
    if not 1 <= m <= MAX_TOKEN_BITS:
        raise FamilyFormatError(f"{path}: family.inputs[0].tokens[0] has length {m:,}; tokens have 1 to {MAX_TOKEN_BITS} bits")
    inputs = []
    for i, obj in enumerate(items):
        where = f"{path}: family.inputs[{i}]"
        if not isinstance(obj, dict) or not isinstance(obj.get("tokens"), list):
            raise FamilyFormatError(f"{where} is not an object with a tokens array")
        if isinstance(obj.get("query"), bool) or not isinstance(obj.get("query"), int):
            raise FamilyFormatError(f"{where}.query must be an integer position")
        try:
            inputs.append(Input.from_json(obj, m))
        except WitnessError as exc:
            raise FamilyFormatError(f"{where}: {str(exc)[:200]}") from None
    inputs_t = tuple(inputs)
    useless: list = []
    jumps = _detect_jumps(inputs_t, Fraction(1, 2), useless)
    return FamilySpec(inputs_t, m, Fraction(1, 2), jumps, None, None, f"{path} (a family without a certificate)",
                      len(useless))
