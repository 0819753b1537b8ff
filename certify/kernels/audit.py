"""Check a kernel table against a witness family, exactly (docs/math.md §2–§6; §6.1).

Given a table (``certify.kernels.table``) and a family (a certificate, any file with
``family.inputs``, or by default the rank-nine certificate), :func:`check_kernel`
answers, with exact rationals:

* with a readout: the prediction ``t̂ = Σ_j α(x_i,x_j) g_{x_i}(x_j) / Σ_j α(x_i,x_j)`` and
  the error on every input, ``max_error``, the failing inputs, and ``solves``;
* for every jump ``(x, y, z)`` of the family: whether ``α(x,y) > μ·α(x,z)`` holds
  (``μ = (n−2)(d−2ε)/(2ε)``; ``d − 1`` at length 3, error 1/2 — weight domination, A.2);
* ``kernel_rank``: the exact rank of ``α`` on the family's query tokens × all its tokens,
  and the rank of the certificate's ``t × t`` matrix ``B_{S,U} = α(x_S, x_{U^c})``;
* without a readout (or with ``search_readout``): whether *some* values and affine
  readout make the kernel solve the family — decided exactly by
  :func:`certify.kernels.lp.strict_feasibility` per query token, with a witness readout or an
  infeasible sub-family (a Farkas certificate).

Consistency with the theorem: a table that solves the family (or admits a readout)
must have ``kernel_rank ≥ certified_bound`` and must satisfy every jump. If not, the
check raises :class:`KernelContradiction` (exit 3): that would mean a bug here or a
false theorem, never a property of the table.
"""
from __future__ import annotations

import contextlib
import functools
import json
import math
import os
import re
import sys
from dataclasses import dataclass, field
from fractions import Fraction
from typing import Any

from codes import complement
from witnesses import Input, WitnessError

from ..check import FORMAT, MAX_TOKEN_BITS, UM_FORMAT, CertificateError, check, exact_text, format_rational, load
from .lp import as_fmpq
from .multihead import exact_predictions, token_positions
from . import table as _table
from .table import KernelTable, TableFormatError

__all__ = [
    "MAX_STREAM_INPUTS",
    "MAX_STREAM_READOUT_INPUTS",
    "MAX_LISTED",
    "CompactFamily",
    "require_explicit",
    "FamilyFormatError",
    "KernelContradiction",
    "FamilySpec",
    "load_family",
    "family_of_certificate",
    "assert_consistent",
    "KernelReport",
    "check_kernel",
    "run_check",
    "verdict",
]


#: A streamed (compact) family is checked only up to this many inputs: its cost is linear in
#: the inputs and jumps (≈ 27 µs of CPU per input on the 2-core reference machine, docs/performance.md,
#: "check-kernel through a compact family"); golay24's 13,268,976 inputs fit.
MAX_STREAM_INPUTS = 2**25
#: The readout search (kernel-only tables, ``--search-readout``) on a streamed family: one exact
#: LP per query token with as many rows as the query has inputs; refused above this many inputs in
#: all (docs/performance.md).
MAX_STREAM_READOUT_INPUTS = 200_000
#: A streamed family lists at most this many failing inputs and jump violations (their counts are exact).
MAX_LISTED = 1000
#: Pass 2 scales a query's α and α·g rows to integers (one common denominator each) while the two
#: common denominators together have at most this many bits; beyond it (many distinct large
#: denominators, e.g. a hostile table), it sums exact rationals per input instead, whose size does
#: not grow with the number of tokens a query uses.
MAX_SCALE_BITS = 512


#: The phantom key of a denominator constant ``δ > 0`` (weight ``δ`` in every input, readout value
#: ``β(x)``): not a token (tokens are ``≥ 0`` bitmasks); ``"phantom"`` in a printed readout.
PHANTOM = -1


class FamilyFormatError(ValueError):
    """The family file is unreadable, malformed, or a certificate that does not verify (exit 2)."""


class KernelContradiction(RuntimeError):
    """A result contradicts the certified theorem (exit 3): a bug, never the table's fault."""


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

    Its inputs and jumps are generated query by query (:func:`witnesses.plans._query_part`,
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
        from ..certificates.compact import _expand_limit, code_and_plan, explicit_view

        if stream is None:
            try:
                _expand_limit(doc["family"]["inputs"], doc)
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
            (found if _mu(n, hi - lo, eps) >= 1 else useless if useless is not None else []).append((x, y, z, n))
    return tuple(found)


def _mu(n: int, gap: int, eps: Fraction) -> Fraction:
    """Weight-domination factor ``μ = (n−2)(d−2ε)/(2ε)`` (A.2; docs/math.md §3)."""
    return Fraction(n - 2) * (gap - 2 * eps) / (2 * eps)


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
    return _family_of_code(spec)


@functools.lru_cache(maxsize=4)
def _family_of_code(spec: str) -> FamilySpec:
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


def parse_tolerance(text: str, name: str) -> Fraction:
    """A tolerance ``≥ 0`` from an option, exactly: ``p/q``, an integer or a decimal (``1e-9`` is ``1/10⁹``); at most 40 characters.

    >>> parse_tolerance("1e-9", "--tol"), parse_tolerance("3/4", "--tol")
    (Fraction(1, 1000000000), Fraction(3, 4))
    >>> parse_tolerance("1e-999999999", "--tol")
    Traceback (most recent call last):
    ...
    ValueError: --tol: 1e-999999999 would have 1,000,000,000 digits; at most 1,000 are allowed
    """
    from .table import _decimal_parts, _json_float

    text = str(text).strip()
    num, slash, den = text.partition("/")
    try:
        if len(text) > 40:
            raise TableFormatError("at most 40 characters")
        if slash:
            if not (re.fullmatch(r"[0-9]+", num) and re.fullmatch(r"[0-9]+", den)) or int(den) == 0:
                raise TableFormatError(f"{text!r} is not p/q with q ≥ 1")
            value = Fraction(int(num), int(den))
        else:
            value = Fraction(*_decimal_parts(_json_float(text)))
    except TableFormatError as exc:
        raise ValueError(f"{name}: {str(exc).removeprefix('number ')}") from None
    if value < 0:
        raise ValueError(f"{name}: must be ≥ 0, not {text}")
    return value


def assert_consistent(solved: bool, kernel_rank: int | None, certified_bound: int | None, violated_jumps: int) -> None:
    """Raise :class:`KernelContradiction` if a solving kernel breaks the certified bound or a jump.

    ``solved`` means: the table's readout solves the family, or some readout exists.
    ``kernel_rank`` is ``None`` when only a lower bound on it is known (no rank contradiction
    can then be shown).
    """
    if not solved:
        return
    if certified_bound is not None and kernel_rank is not None and kernel_rank < certified_bound:
        raise KernelContradiction(
            f"CONTRADICTION: the kernel solves the family with rank {kernel_rank}, "
            f"below the certified bound r ≥ {certified_bound}")
    if violated_jumps:
        raise KernelContradiction(
            f"CONTRADICTION: the kernel solves the family but violates {violated_jumps} "
            "weight-domination inequalities (A.2)")


def _bits(x: int, m: int) -> str:
    return format(x, f"0{m}b")[::-1]


def _decimal(q: Fraction) -> str:
    """Six significant digits, for people; exact integer arithmetic where a float would lose them.

    >>> _decimal(Fraction(1, 3)), _decimal(Fraction(10**400, 3)), _decimal(Fraction(-123456789, 10**330))
    ('0.333333', '3.33333e+399', '-1.23457e-322')
    """
    q = Fraction(q)
    if q == 0:
        return "0"
    try:
        f = float(q)
        if 1e-300 < abs(f) < 1e300:  # a normal float: its six digits are right
            return f"{f:.6g}"
    except OverflowError:
        pass
    n, d = abs(q.numerator), q.denominator
    e = int((n.bit_length() - d.bit_length()) * 0.30102999566398120)  # within one of ⌊log₁₀ |q|⌋
    while n * 10 ** max(-e, 0) < d * 10 ** max(e, 0):
        e -= 1
    while n * 10 ** max(-e - 1, 0) >= d * 10 ** max(e + 1, 0):
        e += 1
    scaled = (n * 10 ** max(5 - e, 0) * 2 + d * 10 ** max(e - 5, 0)) // (2 * d * 10 ** max(e - 5, 0))  # rounded
    if scaled >= 10**6:
        e, scaled = e + 1, (scaled + 5) // 10
    digits = str(scaled).rstrip("0") or "0"
    mant = digits[0] + ("." + digits[1:] if len(digits) > 1 else "")
    return f"{'-' if q < 0 else ''}{mant}e{'+' if e >= 0 else '-'}{abs(e):02d}"


def _frac(v) -> Fraction:
    return Fraction(int(v.p), int(v.q))


def _show(exact: str, decimal: str) -> str:
    """A rational for people: exact when short, else its decimal (the JSON keeps it exact)."""
    return f"{exact} ≈ {decimal}" if len(exact) <= 24 else f"≈ {decimal}"


@dataclass
class KernelReport:
    """Everything :func:`check_kernel` found; ``to_json`` is the ``--json`` output."""

    table: dict[str, Any]
    family: dict[str, Any]
    solves: bool | None = None
    max_error: Fraction | None = None
    failing_inputs: list[dict[str, Any]] = field(default_factory=list)
    jump_violations: list[dict[str, Any]] = field(default_factory=list)
    jumps_checked: int = 0
    kernel_rank: int = 0
    certificate_matrix_rank: int | None = None
    certified_bound: int | None = None
    readout_exists: bool | None = None
    readout: dict[str, dict[str, str]] | None = None
    infeasible_subfamily: list[dict[str, Any]] | None = None
    infeasible_query_tokens: int = 0
    kernel_rank_bounds: Any = None  # certify.lemmas.frobenius.RankResult: where each bound came from
    stopped_early: dict[str, int] | None = None  # first_failure stopped here: the counts are lower bounds
    failing_count: int | None = None  # streamed families: how many inputs fail (only the first MAX_LISTED are listed)
    violation_count: int | None = None  # streamed families: how many jumps are violated (likewise)
    head_ranks: list[int] | None = None  # a table of several heads: each head's exact kernel rank (check_multihead)
    head_ranks_exact: bool = True

    @property
    def n_failing(self) -> int:
        return len(self.failing_inputs) if self.failing_count is None else self.failing_count

    @property
    def n_violated(self) -> int:
        return len(self.jump_violations) if self.violation_count is None else self.violation_count

    @property
    def rank_capped(self) -> bool:
        """True when the rank found is the most this family can show (its query tokens, or tokens, are that few).

        Several heads: when some head's rank is.
        """
        cap = min(self.family["query_tokens"], self.family["tokens"])
        if self.head_ranks is not None:
            return self.head_ranks_exact and any(r >= cap for r in self.head_ranks)
        exact = self.kernel_rank_bounds is None or self.kernel_rank_bounds.exact
        return exact and self.kernel_rank >= cap

    @property
    def ok(self) -> bool:
        """Exit 0 condition: the readout solves the family, or (kernel only) some readout exists."""
        return bool(self.solves) if self.solves is not None else bool(self.readout_exists)

    def to_json(self) -> dict[str, Any]:
        with unlimited_digits():
            return self._to_json()

    def _to_json(self) -> dict[str, Any]:
        out = self._json()
        if self.n_failing > len(self.failing_inputs):  # a streamed family lists only the first MAX_LISTED
            out["failing_inputs_count"] = self.n_failing
        if self.n_violated > len(self.jump_violations):
            out["jump_violations_count"] = self.n_violated
        return out

    def _json(self) -> dict[str, Any]:
        return {
            "schema": "certify.check-kernel/1",
            "table": self.table,
            "family": self.family,
            "solves": self.solves,
            "max_error": None if self.max_error is None else
            {"exact": exact_text(self.max_error), "decimal": _decimal(self.max_error)},
            "failing_inputs": self.failing_inputs,
            "jumps_checked": self.jumps_checked,
            "jump_violations": self.jump_violations,
            "kernel_rank": self.kernel_rank,
            "kernel_rank_exact": (self.kernel_rank_bounds is None or self.kernel_rank_bounds.exact)
            if self.head_ranks is None else self.head_ranks_exact,
            "head_ranks": self.head_ranks,
            "certificate_matrix_rank": self.certificate_matrix_rank,
            "certified_bound": self.certified_bound,
            "kernel_rank_capped": self.rank_capped,
            "stopped_early": self.stopped_early,
            "readout_exists": self.readout_exists,
            "readout": self.readout,
            "infeasible_subfamily": self.infeasible_subfamily,
            "kernel_rank_bounds": None if self.kernel_rank_bounds is None else
            {"lower_from": self.kernel_rank_bounds.lower_from, "upper_from": self.kernel_rank_bounds.upper_from,
             "exact": self.kernel_rank_bounds.exact},
        }

    def text(self) -> list[str]:
        with unlimited_digits():
            return self._text()

    def _text(self) -> list[str]:
        t, f = self.table, self.family
        width = f"φ_Q/φ_K of width r = {t['feature_width']}" if t["feature_width"] else "kernel given directly"
        ro = {"one-hot": "readout: beta + w (one-hot values)", "values": f"readout: beta, w, values (d_v = {t.get('value_width')})",
              None: "no readout (kernel only)"}[t["readout"]]
        if self.head_ranks is not None:
            width = (f"{len(t['heads'])} heads, φ_Q/φ_K widths r_h = {' + '.join(map(str, t['heads']))} = {t['feature_width']}"
                     + (f", value widths d_h = {' + '.join(map(str, t['value_heads']))}" if t.get("value_heads") else ""))
        lines = [f"family       {f['source']}: {f['inputs']} inputs, error < {f['error_below']}"
                 + (" (compact: generated and checked query by query)" if f.get("streamed") else ""),
                 f"table        {t['tokens']} tokens of {t['m']} bits, {width}, {ro}"
                 + (f", denominator constant δ = {t['delta']}" if t.get("delta", "0") != "0" else "")]
        clip = t.get("clip_negative_alpha")
        if clip is not None:
            lines.append(f"clipped      {clip['entries_clipped']:,} entries of α in [−{clip['tolerance']}, 0) read as 0: "
                         "every verdict below is about the clipped kernel, not the table's")
        st = self.stopped_early
        if st:
            lines.append(f"stopped      at the first failure (--first-failure): {st['query_tokens_checked']:,} of "
                         f"{f['query_tokens']:,} query tokens, {st['inputs_checked']:,} inputs and {st['jumps_checked']:,} "
                         "jumps checked; the counts below are of those")
        if self.solves is not None:
            if self.solves:
                lines.append(f"solves       yes: max error {_show(exact_text(self.max_error), _decimal(self.max_error))} "
                             f"< {f['error_below']} on all {f['inputs']} inputs")
            else:
                worst = max(self.failing_inputs, key=lambda x: Fraction(x["error"]))
                of = f"the {st['inputs_checked']:,} inputs checked" if st else f"{f['inputs']} inputs"
                lines.append(f"solves       no: {self.n_failing} of {of} have error ≥ "
                             f"{f['error_below']}; max error {'≥ ' if self.stopped_early else ''}"
                             f"{_show(exact_text(self.max_error), _decimal(self.max_error))}"
                             + (" (in the part checked)" if self.stopped_early else ""))
                for x in self.failing_inputs[:5]:
                    lines.append(f"             family.inputs[{x['index']}] ({', '.join(x['tokens'])}; query {x['query']}): "
                                 f"target {x['target']}, prediction {_show(x['prediction'], x['prediction_decimal'])}")
                if self.n_failing > 5:
                    listed = "all" if self.n_failing == len(self.failing_inputs) else f"the first {len(self.failing_inputs):,}"
                    lines.append(f"             … {self.n_failing - 5} more (--json lists {listed}); "
                                 f"{'worst' if listed == 'all' else 'worst listed'}: family.inputs[{worst['index']}]")
        if self.head_ranks is not None:
            ranks = " + ".join(map(str, self.head_ranks))
            lines.append("jumps        not checked: weight domination, the certified bound and the readout LP are about "
                         "one head")
            how = "per head, exact" if self.head_ranks_exact else "per head; ≥: some are proved lower bounds only"
            lines.append(f"kernel ranks {'' if self.head_ranks_exact else '≥ '}{ranks} = {self.kernel_rank} ({how}) "
                         f"on {f['query_tokens']} query tokens × {f['tokens']} tokens")
            if t.get("readout_search_skipped"):
                lines.append("readout      not searched (--search-readout): the readout LP is about one head")
            return lines
        lines.append(f"jumps        {self.jumps_checked} checked, {self.n_violated} violated "
                     "(weight domination: α(x,y) > μ·α(x,z), μ = d − 1 at length 3)")
        if f.get("jumps_skipped"):
            lines.append(f"             {f['jumps_skipped']} more witnessed, not checked: μ < 1 proves nothing")
        for v in self.jump_violations[:3]:
            lines.append(f"             jumps[{v['index']}] gap {v['gap']}: α(x,y) = {v['alpha_xy_decimal']} ≤ "
                         f"{v['factor']} · α(x,z) = {v['factor']} · {v['alpha_xz_decimal']}")
        cert = (f", certificate matrix B_(S,U) = α(x_S, x_(U^c)): rank {self.certificate_matrix_rank}"
                if self.certificate_matrix_rank is not None else "")
        bound = f"; certified bound r ≥ {self.certified_bound}" if self.certified_bound is not None else ""
        b = self.kernel_rank_bounds
        at_least = "" if b is None or b.exact else "≥ "
        lines.append(f"kernel rank  {at_least}{self.kernel_rank} on {f['query_tokens']} query tokens × {f['tokens']} tokens{cert}{bound}")
        if self.rank_capped:
            cap = min(f["query_tokens"], f["tokens"])
            lines.append(f"             capped: with {cap} {'query tokens' if cap == f['query_tokens'] else 'tokens'} this "
                         f"family shows rank min(r, {cap}), so it cannot tell ranks above {cap} apart (a larger family "
                         "can: --family hadamard24, --family golay24, --code SPEC)")
        if self.certified_bound is None:
            lines.append(f"             no certified bound: {f['source'].split(' (')[0]} is a family without its "
                         "certificate (give the certificate, or a built-in name, to keep its bound r ≥ …)")
        if b is not None and not b.exact:
            lines.append(f"             only a lower bound: ≥ from {b.lower_from}; ≤ {b.upper_from}")
        elif t["feature_width"] is None and b is not None:  # kernel only: say how it was proved
            lines.append(f"             exact: ≥ from {b.lower_from}; ≤ from {b.upper_from}")
        if self.readout_exists is not None:
            if self.readout_exists:
                lines.append("readout      exists: an exact readout table g_x(z) solves the family (--json prints it; "
                             "verified by substitution)")
            else:
                sub = self.infeasible_subfamily or []
                lines.append(f"readout      none exists: {self.infeasible_query_tokens} query token(s) admit no readout; "
                             f"an infeasible sub-family of {len(sub)} inputs (Farkas certificate, verified):")
                for x in sub[:6]:
                    lines.append(f"             family.inputs[{x['index']}] ({', '.join(x['tokens'])}; query {x['query']}), "
                                 f"target {x['target']}, multiplier {x['multiplier']}")
        return lines


@contextlib.contextmanager
def unlimited_digits():
    """Lift Python's 4,300-digit guard on ``str(int)`` while exact numbers of a check are written.

    Their size is bounded by the table's limits (1,000 digits per JSON number; a long
    double is a rational of at most ≈ 4,950 digits), never by the guard.
    """
    old = sys.get_int_max_str_digits()
    sys.set_int_max_str_digits(0)
    try:
        yield
    finally:
        sys.set_int_max_str_digits(old)


def check_kernel(table: KernelTable, family: FamilySpec, search_readout: bool = False,
                 first_failure: bool = False) -> KernelReport:
    """Check ``table`` against ``family`` (see the module docstring and :func:`_check_kernel`).

    ``first_failure``: on a streamed (compact) family, stop at the first query token with a
    failing input or a violated jump (:func:`_check_kernel_streamed`); the report's counts are
    then lower bounds (``stopped_early``). Explicit families are always checked in full.

    Exact numbers here are bounded by the table's entry sizes (``certify.kernels.table``
    limits), so Python's 4,300-digit guard on ``str(int)`` is lifted while the report is
    written.
    """
    with unlimited_digits():
        return _check_kernel(table, family, search_readout, first_failure)


def _check_kernel(table: KernelTable, family: FamilySpec, search_readout: bool = False,
                  first_failure: bool = False) -> KernelReport:
    """Check ``table`` against ``family`` (see the module docstring).

    Raises
    ------
    TableFormatError
        A family token is missing from the table, ``α < 0`` on a pair the family uses,
        a denominator is not positive, or the token lengths differ.
    KernelContradiction
        A solving kernel below the certified bound or violating a jump (a bug).
    """
    if table.head_count > 1:
        report = check_multihead(table, family)
        report.table["readout_search_skipped"] = bool(search_readout)  # the LP is about one head
        return report
    if family.streamed:
        return _check_kernel_streamed(table, family, search_readout, first_failure)
    m = family.m
    if table.m != m:
        raise TableFormatError(f"table tokens have {table.m} bits, the family's have {m}")
    eps = family.error
    inputs = family.inputs
    # Table indices of the family's query tokens and of all its tokens.
    q_tokens, k_tokens, q_pos, k_pos = token_positions(table, inputs, m)
    rows, cols, A, G = _kernel_blocks(table, q_tokens, k_tokens)
    alpha = lambda x, z: A[q_pos[x], k_pos[z]]  # noqa: E731
    report = _new_report(table, family, eps, len(inputs), len(family.jumps), len(q_tokens), len(k_tokens))
    delta = as_fmpq(table.delta, "delta")
    # Validation: α ≥ 0 on every used pair (all negative pairs listed), positive denominators δ + Σ_j α.
    negatives = _Negatives(m)
    dens = _validate_inputs(inputs, alpha, 0, delta, negatives)[0]
    negatives.refuse()

    def describe(i: int) -> dict[str, Any]:
        X = inputs[i]
        return {"index": i, "tokens": [_bits(z, m) for z in X.tokens], "query": X.query, "target": X.target}

    if G is not None:
        worst = Fraction(0)
        phantom = _phantom_numerators(table, rows, delta)  # δ·β(x) per query row (the phantom key's term)
        for i, X in enumerate(inputs):
            xq = X.tokens[X.query]
            num = sum((alpha(xq, z) * G[q_pos[xq], k_pos[z]] for z in X.tokens), phantom[q_pos[xq]])
            pred = _frac(num / dens[i])
            err = abs(pred - X.target)
            worst = max(worst, err)
            if not err < eps:
                report.failing_inputs.append(dict(describe(i), prediction=format_rational(pred),
                                                  prediction_decimal=_decimal(pred), error=format_rational(err)))
        report.max_error = worst
        report.solves = not report.failing_inputs

    # Jumps (weight domination, A.2).
    for j, (x, y, z, n_len) in enumerate(family.jumps):
        d = (x & z).bit_count() - (x & y).bit_count()
        mu = _mu(n_len, d, eps)
        axy, axz = _frac(alpha(x, y)), _frac(alpha(x, z))
        if not axy > mu * axz:
            report.jump_violations.append({
                "index": j, "x": _bits(x, m), "y": _bits(y, m), "z": _bits(z, m), "gap": d,
                "factor": format_rational(mu), "alpha_xy": format_rational(axy), "alpha_xz": format_rational(axz),
                "alpha_xy_decimal": _decimal(axy), "alpha_xz_decimal": _decimal(axz)})
    report.jumps_checked = len(family.jumps)

    rank = table.alpha_rank(rows, cols)
    report.kernel_rank, report.kernel_rank_bounds = rank.rank, rank
    _certificate_matrix_rank(report, family, table, m)

    known = report.kernel_rank if rank.exact else None  # a lower bound alone shows no rank contradiction
    if report.solves is not None:
        assert_consistent(report.solves, known, family.certified_bound, len(report.jump_violations))
    if not table.has_readout or search_readout:
        _readout_search(report, inputs, q_tokens, alpha, dens, eps, m, describe, delta)
        assert_consistent(bool(report.readout_exists), known, family.certified_bound, len(report.jump_violations))
    return report


def check_multihead(table: KernelTable, family: FamilySpec) -> "KernelReport":
    """``check-kernel`` on a table of ``H ≥ 2`` heads: a :class:`KernelReport`.

    Exact predictions and maximum error on every input, the failing inputs, and each
    head's exact kernel rank on the family's query tokens × tokens (their sum bounds the
    rank of the heads' combined features). No jump, bound or readout-LP check: those are
    one-head statements (docs/kernel-table-format.md, "Several heads").
    """
    if family.streamed:
        raise TableFormatError("a table of several heads is checked against a listed family (inputs in the file), "
                               "not a compact certificate's streamed one")
    m, eps = family.m, family.error
    inputs = family.inputs
    preds = exact_predictions(table, inputs, m)
    q_tokens, k_tokens, _, _ = token_positions(table, inputs, m)
    report = _new_report(table, family, eps, len(inputs), 0, len(q_tokens), len(k_tokens))
    report.table["heads"] = list(table.heads)
    report.table["value_heads"] = list(table.value_heads) if table.value_heads else None
    worst = Fraction(0)
    for i, (X, pred) in enumerate(zip(inputs, preds)):
        err = abs(pred - X.target)
        worst = max(worst, err)
        if not err < eps:
            report.failing_inputs.append({"index": i, "tokens": [_bits(z, m) for z in X.tokens], "query": X.query,
                                          "target": X.target, "prediction": format_rational(pred),
                                          "prediction_decimal": _decimal(pred), "error": format_rational(err)})
    report.max_error, report.solves = worst, not report.failing_inputs
    rows = [table.index[x] for x in q_tokens]
    cols = [table.index[z] for z in k_tokens]
    budget = _table.MAX_RANK_SECONDS / table.head_count  # one budget for all heads' rank proofs, not one each
    ranks = [table.alpha_rank(rows, cols, h, max_seconds=budget) for h in range(table.head_count)]
    report.head_ranks = [r.rank for r in ranks]
    report.head_ranks_exact = all(r.exact for r in ranks)
    report.kernel_rank = sum(report.head_ranks)
    report.certified_bound = None  # a one-head bound says nothing about H heads' sum of ranks
    report.jumps_checked = 0
    return report


def _certificate_matrix_rank(report: KernelReport, family: FamilySpec, table: KernelTable, m: int) -> None:
    """``certificate_matrix_rank``: the rank of ``B_{S,U} = α(x_S, x_{U^c})`` (a certificate's family only)."""
    if family.code_words is not None:
        ws = family.code_words
        # Through the table: by the factors when it has them (an r × r Gram matrix, not t × t entries).
        b_rank = table.alpha_rank([table.index[s] for s in ws], [table.index[complement(u, m)] for u in ws])
        report.certificate_matrix_rank = b_rank.rank if b_rank.exact else None


def _kernel_blocks(table: KernelTable, q_tokens: list[int], k_tokens: list[int]):
    """``(rows, cols, α block, g block or None)`` of the query × key tokens; the work is checked before anything is converted."""
    rows = [table.index[x] for x in q_tokens]
    cols = [table.index[z] for z in k_tokens]
    table.check_work(len(rows), len(cols))  # before anything is converted
    table.prepare(sorted(set(rows) | set(cols)))  # one pass per field, only the rows the family uses
    A = table.alpha_block(rows, cols)
    G = table.g_block(rows, cols) if table.has_readout else None
    return rows, cols, A, G


def _validate_inputs(inputs, alpha, offset: int, delta, negatives: "_Negatives") -> tuple[list, bool]:
    """Denominators ``δ + Σ_j α`` of ``inputs`` (``family.inputs[offset + k]``), every negative used pair recorded.

    Refuses (``TableFormatError``) the first input without a negative pair whose denominator
    is not positive; returns ``(denominators, whether α < 0 was found)``. The caller refuses
    the negatives (:meth:`_Negatives.refuse`) once it has seen all it will.
    """
    dens, found = [], False
    for k, X in enumerate(inputs):
        xq = X.tokens[X.query]
        D = delta
        bad = False
        for z in X.tokens:
            a = alpha(xq, z)
            if a < 0:
                negatives.add(xq, z, a, offset + k)
                bad = found = True
            D += a
        if not bad and not D > 0:
            raise TableFormatError(f"family.inputs[{offset + k}] has denominator Σ_j α = 0; the model needs it positive"
                                   " (a library's denominator constant goes in the table's 'delta' field)")
        dens.append(D)
    return dens, found


class _Negatives:
    """Every pair ``(x, z)`` a family uses with ``α(x, z) < 0``: a count, the worst and the first few (for one line)."""

    SHOWN = 3

    def __init__(self, m: int) -> None:
        self.m = m
        self.pairs: dict[tuple[int, int], int] = {}  # (x, z) → first input using it, in input order
        self.count = 0
        self.worst = None  # (value, x, z)
        self.first: list[tuple[int, int, Any, int]] = []

    def add(self, x: int, z: int, a, i: int) -> None:
        if (x, z) in self.pairs:
            return
        self.pairs[(x, z)] = i
        self.count += 1
        if self.worst is None or a < self.worst[0]:
            self.worst = (a, x, z)
        if len(self.first) < self.SHOWN:
            self.first.append((x, z, a, i))

    def refuse(self) -> None:
        """Raise the one-line refusal naming the count, the worst pair and the first pairs (nothing if none)."""
        if not self.count:
            return
        m = self.m

        def value(v) -> str:  # exact when short, else its decimal
            exact = format_rational(_frac(v))
            return f"= {exact}" if len(exact) <= 24 else f"≈ {_decimal(_frac(v))}"

        x0, z0, a0, i0 = self.first[0]
        text = f"α({_bits(x0, m)}, {_bits(z0, m)}) {value(a0)} < 0 on a pair used by family.inputs[{i0}]"
        if self.count > 1:
            a, x, z = self.worst
            nxt = "; ".join(f"α({_bits(x, m)}, {_bits(z, m)}) {value(v)} (family.inputs[{i}])"
                            for x, z, v, i in self.first[1:])
            text += (f"; {self.count:,} pairs the family uses have α < 0, the worst α({_bits(x, m)}, {_bits(z, m)}) "
                     f"{value(a)}; next: {nxt}")
        raise TableFormatError(text + "; the model needs a nonnegative kernel (--clip-negative-alpha TOL reads entries "
                               "in [−TOL, 0) as 0)")


def _phantom_numerators(table: KernelTable, rows: list[int], delta) -> list:
    """``δ·β(x)`` for each query row: the phantom key (weight ``δ``, value 0) adds ``δ·g_x(phantom) = δ·β(x)`` to the numerator."""
    from flint import fmpq

    if table.delta == 0 or not table.has_readout:
        return [fmpq(0)] * len(rows)
    beta = table._rows("beta", rows)
    return [delta * beta[k, 0] for k in range(len(rows))]


def _new_report(table: KernelTable, family: FamilySpec, eps: Fraction, inputs: int, jumps: int, queries: int,
                tokens: int, streamed: bool = False) -> KernelReport:
    """The report's table and family descriptions (``streamed`` only for a family generated query by query)."""
    fam = {"source": family.source, "inputs": inputs, "error_below": format_rational(eps), "query_tokens": queries,
           "tokens": tokens, "jumps": jumps, "jumps_skipped": family.skipped_jumps}
    if streamed:
        fam["streamed"] = True
    return KernelReport(
        table={"tokens": table.size, "m": table.m, "feature_width": table.width, "readout": table.readout_kind,
               "value_width": table.value_width, "delta": format_rational(table.delta),
               "clip_negative_alpha": None if table.clip is None else
               {"tolerance": format_rational(table.clip), "entries_clipped": table.clipped}},
        family=fam, certified_bound=family.certified_bound)


def _check_kernel_streamed(table: KernelTable, family: FamilySpec, search_readout: bool = False,
                           first_failure: bool = False) -> KernelReport:
    """:func:`_check_kernel` on a compact certificate's family, generated one query at a time.

    The same checks, in the same order of failure, with the same report (inputs and jumps
    keep their indices in the explicit family; failing inputs and jump violations are listed
    up to :data:`MAX_LISTED`, with exact counts). Everything decomposes by query token: the
    inputs and jumps of query ``x_S`` are generated from ``S`` and the code alone, they use
    only ``α(x_S, ·)`` and ``g_{x_S}(·)`` on that query's tokens, and the readout LP is one
    system per query token (one-hot values: ``g_x(·)`` is a separate table per ``x``). Only the
    kernel rank and the certificate matrix couple the queries; both use the ``Q × T`` block of
    ``α`` that the explicit path forms, under the same limit (``KernelTable.check_work``).

    Pass 1 reads each query's token set (plain ints: :func:`witnesses.plans.planned_query_tokens`),
    checks them against the table and forms the block; pass 2 generates each query's inputs and
    jumps (:func:`witnesses.plans._query_part`, the generator of ``expand_family``) and checks
    them; pass 3, only for the readout search, generates them again and solves that query's LP.
    Memory: the block plus one query's inputs. Refused before any work (``FamilyFormatError``,
    exit 2) past :data:`MAX_STREAM_INPUTS` inputs, or :data:`MAX_STREAM_READOUT_INPUTS` when a
    readout is searched.
    """
    from flint import fmpq

    from witnesses.plans import _query_part, planned_query_tokens

    from ..check import Progress

    c = family.compact
    m = family.m
    if table.m != m:
        raise TableFormatError(f"table tokens have {table.m} bits, the family's have {m}")
    if c.inputs > MAX_STREAM_INPUTS:
        raise FamilyFormatError(
            f"{family.source}: the family has {c.inputs:,} inputs and {c.jumps:,} jumps; check-kernel streams a compact "
            f"family of at most {MAX_STREAM_INPUTS:,} inputs (docs/performance.md)")
    lp = not table.has_readout or search_readout
    if lp and c.inputs > MAX_STREAM_READOUT_INPUTS and not first_failure:
        raise FamilyFormatError(
            f"{family.source}: the readout search on this family means {len(c.code.words):,} exact LPs with "
            f"{c.inputs:,} rows in all; at most {MAX_STREAM_READOUT_INPUTS:,} (docs/performance.md); give a table "
            "with a readout, without --search-readout")
    eps = family.error
    code, plan, n = c.code, c.plan, c.length
    words = tuple(code.words)

    # Pass 1: each query's tokens (cheap; once per family), all in the table, before anything is converted.
    q_tokens = list(dict.fromkeys(words))
    q_pos = {x: i for i, x in enumerate(q_tokens)}
    k_list, counts = compact_tokens(c)  # counts per query: (inputs, jumps)
    k_pos = {z: i for i, z in enumerate(k_list)}
    missing_query = None
    if not k_pos.keys() <= table.index.keys():
        missing_query = next(i for i, (toks, _, _) in enumerate(planned_query_tokens(code, plan))
                             if not toks <= table.index.keys())
    if missing_query is not None:  # the first input that uses a missing token, as the explicit path names it
        offset = sum(ni for ni, _ in counts[:missing_query])
        for k, X in enumerate(_query_part(code, plan, n, missing_query)[3]):
            for pos, z in enumerate(X.tokens):
                if z not in table.index:
                    raise TableFormatError(f"family.inputs[{offset + k}] token {pos} ({_bits(z, m)}) is not in the table")
    k_tokens = list(k_pos)
    rows, cols, A, G = _kernel_blocks(table, q_tokens, k_tokens)
    alpha = lambda x, z: A[q_pos[x], k_pos[z]]  # noqa: E731
    report = _new_report(table, family, eps, c.inputs, c.jumps, len(q_tokens), len(k_tokens), streamed=True)
    delta = as_fmpq(table.delta, "delta")
    phantom = _phantom_numerators(table, rows, delta) if G is not None else None
    extra = (PHANTOM,) if table.delta else ()  # the phantom key, in every input
    negatives = _Negatives(m)
    ep, eq = eps.numerator, eps.denominator
    wd, wD = 0, 1  # the largest error so far, wd / wD
    mus: dict[int, Any] = {}
    seen: dict[int, None] = {}  # tokens in order of first use: the explicit path's columns, for the rank
    n_failing = n_violated = 0
    offset = j_offset = 0

    witness_of: dict[int, Any] = {}  # the last generated query's witness indices (first_failure)
    stopped = None  # (query, its first violated jump, offset of its inputs), when first_failure stops

    def generate(i: int):
        _, jumps, witnesses, inputs = _query_part(code, plan, n, i)
        if (len(inputs), len(jumps)) != counts[i]:
            raise KernelContradiction(f"query {i}: generated {len(inputs):,} inputs and {len(jumps):,} jumps, "
                                      f"counted {counts[i][0]:,} and {counts[i][1]:,}")
        witness_of[i] = witnesses
        return jumps, inputs

    def describe(i: int, X: Input) -> dict[str, Any]:
        return {"index": i, "tokens": [_bits(z, m) for z in X.tokens], "query": X.query, "target": X.target}

    def validate(inputs, arow, offset: int) -> bool:
        """:func:`_validate_inputs` on one query's inputs (its row of α); True if ``α < 0`` was found."""
        return _validate_inputs(inputs, lambda _x, z: arow[z], offset, delta, negatives)[1]

    # Pass 2: per query, its inputs (validation, predictions) and its jumps.
    progress = Progress("check-kernel: checking the compact family (queries)", total=len(words))
    try:
        for i, x in enumerate(words):
            jumps, inputs = generate(i)
            r = q_pos[x]
            toks = dict.fromkeys(z for X in inputs for z in X.tokens)
            seen.update(toks)
            arow = {z: A[r, k_pos[z]] for z in toks}
            if any(not a > 0 for a in arow.values()):  # a negative or zero entry: find the inputs it breaks
                if validate(inputs, arow, offset):  # refused after the scan (negatives.refuse); nothing more here
                    offset += len(inputs)
                    j_offset += len(jumps)
                    progress.update(i + 1)
                    continue
            if negatives.count:
                offset += len(inputs)
                j_offset += len(jumps)
                progress.update(i + 1)
                continue
            if G is not None:
                # Predictions in integers: row x of α and of α·g scaled by one positive constant each, so that
                # t̂ = Σ gi / Σ ai exactly (a per-query factor changes no prediction); error < ε ⟺ q|N − tD| < pD.
                grow = {z: arow[z] * G[r, k_pos[z]] for z in toks}
                if extra:
                    arow[PHANTOM], grow[PHANTOM] = delta, phantom[r]
                la = math.lcm(*(int(v.q) for v in arow.values()))
                lg = math.lcm(*(int(v.q) for v in grow.values()))
                if la.bit_length() + lg.bit_length() <= MAX_SCALE_BITS:
                    ai = {z: int(v.p) * (la // int(v.q)) * lg for z, v in arow.items()}
                    gi = {z: int(v.p) * (lg // int(v.q)) * la for z, v in grow.items()}
                else:  # many distinct large denominators: scaled integers would be huge; exact rationals per input
                    ai, gi = arow, grow
                for k, X in enumerate(inputs):
                    D = N = 0
                    for z in X.tokens + extra:
                        D += ai[z]
                        N += gi[z]
                    diff = abs(N - X.target * D)
                    if ai is arow:  # fmpq sums: the same comparisons with err = diff / D as a reduced fraction
                        t_hat, err = N / D, diff / D
                        N, D, diff = int(t_hat.p) * int(err.q), int(t_hat.q) * int(err.q), int(err.p) * int(t_hat.q)
                    if diff * wD > wd * D:
                        wd, wD = diff, D
                    if not diff * eq < ep * D:
                        n_failing += 1
                        if len(report.failing_inputs) < MAX_LISTED:
                            pf = Fraction(N, D)
                            report.failing_inputs.append(dict(describe(offset + k, X), prediction=format_rational(pf),
                                                              prediction_decimal=_decimal(pf),
                                                              error=format_rational(Fraction(diff, D))))
            for k, J in enumerate(jumps):
                d = (J.x & J.z).bit_count() - (J.x & J.y).bit_count()
                mu = mus.get(d)
                if mu is None:
                    f = _mu(n, d, eps)
                    mu = mus[d] = (f, fmpq(f.numerator, f.denominator))
                axy, axz = arow[J.y], arow[J.z]
                if not axy > mu[1] * axz:
                    n_violated += 1
                    if len(report.jump_violations) < MAX_LISTED:
                        fxy, fxz = _frac(axy), _frac(axz)
                        report.jump_violations.append({
                            "index": j_offset + k, "x": _bits(J.x, m), "y": _bits(J.y, m), "z": _bits(J.z, m), "gap": d,
                            "factor": format_rational(mu[0]), "alpha_xy": format_rational(fxy),
                            "alpha_xz": format_rational(fxz), "alpha_xy_decimal": _decimal(fxy),
                            "alpha_xz_decimal": _decimal(fxz)})
            if first_failure and (n_failing or n_violated):
                first_jump = next((k for k, J in enumerate(jumps) if not arow[J.y] > mus[
                    (J.x & J.z).bit_count() - (J.x & J.y).bit_count()][1] * arow[J.z]), None)
                stopped = (i, first_jump, offset, inputs)
                offset += len(inputs)
                j_offset += len(jumps)
                break
            offset += len(inputs)
            j_offset += len(jumps)
            progress.update(i + 1)
    finally:
        progress.close()
    if stopped is not None:  # the rest is still validated, so that a bad table is refused (exit 2) as without stopping
        zero = fmpq(0)
        # Nothing can fail when α ≥ 0 on the whole block (from nonnegative factors, else entry by entry) and every
        # denominator has a positive term: δ > 0, or α(x, x) > 0 (every input of a compact family starts with its query).
        if table.width is not None and table.clip is None:
            nonneg = all(a.p >= 0 for f in ("phi_q", "phi_k") for a in table._rows(f, rows if f == "phi_q" else cols).entries())
        else:
            nonneg = all(a.p >= 0 for a in A.entries())
        if not (nonneg and (table.delta > 0 or all(A[q_pos[x], k_pos[x]].p > 0 for x in words))):
            rest = offset
            for i, (toks, n_inputs, _) in enumerate(planned_query_tokens(code, plan)):
                if i <= stopped[0]:
                    continue
                r = q_pos[words[i]]
                if not all(A[r, k_pos[z]] > zero for z in toks):  # this query's own pairs: generate and look
                    _, inputs = generate(i)
                    validate(inputs, {z: A[r, k_pos[z]] for z in toks}, rest)
                rest += n_inputs
    negatives.refuse()
    if stopped is None and (offset != c.inputs or j_offset != c.jumps):
        raise KernelContradiction(f"generated {offset:,} inputs and {j_offset:,} jumps; the checker counted "
                                  f"{c.inputs:,} and {c.jumps:,}")
    if G is not None:
        report.max_error = Fraction(wd, wD)
        report.solves = n_failing == 0
        report.failing_count = n_failing
    report.violation_count = n_violated
    report.jumps_checked = c.jumps if stopped is None else j_offset
    if stopped is not None:
        report.stopped_early = {"query_tokens_checked": stopped[0] + 1, "inputs_checked": offset,
                                "jumps_checked": j_offset, "max_error_at_least": True}
        seen.update(dict.fromkeys(k_tokens))  # every column, for the rank: the order changes no rank

    rank = table.alpha_rank(rows, [table.index[z] for z in seen])  # columns in the explicit path's order
    report.kernel_rank, report.kernel_rank_bounds = rank.rank, rank
    _certificate_matrix_rank(report, family, table, m)
    known = report.kernel_rank if rank.exact else None
    if report.solves is not None:
        assert_consistent(report.solves, known, family.certified_bound, n_violated)
    if lp and stopped is not None and stopped[1] is not None:
        # A violated jump: its three witnesses admit no readout (weight domination, docs/math.md §3);
        # shown here by the exact LP on those inputs alone, with its verified Farkas certificate.
        i, k, base, inputs = stopped
        x = words[i]
        r = q_pos[x]
        ids = list(witness_of[i][k])
        arow = {z: A[r, k_pos[z]] for X in (inputs[j] for j in ids) for z in X.tokens}
        dens = {j: sum((arow[z] for z in inputs[j].tokens), delta) for j in ids}
        search = _ReadoutSearch(m)
        search.token(x, *_readout_problem(inputs, x, ids, lambda _x, z: arow[z], dens, eps, delta),
                     lambda t: describe(base + ids[t], inputs[ids[t]]))
        if not search.infeasible:
            raise KernelContradiction(f"jumps[{report.jump_violations[0]['index']}] is violated, yet its three "
                                      "witnesses admit a readout (weight domination, A.2)")
        search.finish(report)
        report.readout_exists = False
        lp = False
    elif lp and c.inputs > MAX_STREAM_READOUT_INPUTS:  # --first-failure found no violated jump: a full search is needed
        where = f"up to query token {stopped[0] + 1}" if stopped is not None else "in the whole family"
        raise FamilyFormatError(
            f"{family.source}: no jump is violated {where}, so deciding whether some readout exists needs the readout "
            f"search on {c.inputs:,} inputs; at most {MAX_STREAM_READOUT_INPUTS:,} (docs/performance.md)")
    if lp:  # Pass 3: one exact LP per query token, its inputs generated again
        search = _ReadoutSearch(m)
        offset = 0
        for i, x in enumerate(words):
            _, inputs = generate(i)
            r = q_pos[x]
            arow = {z: A[r, k_pos[z]] for z in dict.fromkeys(z for X in inputs for z in X.tokens)}
            dens = [sum((arow[z] for z in X.tokens), delta) for X in inputs]
            base = offset
            search.token(x, *_readout_problem(inputs, x, list(range(len(inputs))), lambda _x, z: arow[z], dens, eps,
                                              delta),
                         lambda k: describe(base + k, inputs[k]))
            offset += len(inputs)
        search.finish(report)
        assert_consistent(bool(report.readout_exists), known, family.certified_bound, n_violated)
    return report


def _readout_problem(inputs, xq: int, ids: list[int], alpha, dens, eps, delta=None):
    """The strict system of query token ``xq`` (docs/math.md §2): ``(t − ε)D < Σ_z a_X(z) g(z) < (t + ε)D``.

    One row per input ``ids[k]`` (the inputs that query ``xq``). Rows are sparse,
    ``{key index: a_X(z)}`` with ``a_X(z) = Σ_{j: x_j = z} α(x, z)``: at most one entry
    per distinct token of the input. With a denominator constant ``delta > 0`` the phantom
    key (:data:`PHANTOM`, last) has coefficient ``delta`` in every row: its value
    ``g_x(phantom) = β(x)`` is one more unknown. Returns ``(keys, rows, lo, hi)``.
    """
    keys = sorted({z for i in ids for z in inputs[i].tokens})
    if delta:
        keys.append(PHANTOM)
    col = {z: k for k, z in enumerate(keys)}
    e = as_fmpq(eps, "eps")
    rows, lo, hi = [], [], []
    for i in ids:
        r: dict[int, Any] = {col[PHANTOM]: delta} if delta else {}
        for z in inputs[i].tokens:
            r[col[z]] = r.get(col[z], 0) + as_fmpq(alpha(xq, z), "alpha")
        D = as_fmpq(dens[i], "denominator")
        rows.append(r)
        lo.append((inputs[i].target - e) * D)
        hi.append((inputs[i].target + e) * D)
    return keys, rows, lo, hi


def _readout_search(report: KernelReport, inputs, q_tokens, alpha, dens, eps, m, describe, delta=None) -> None:
    """Per query token: is there a readout table ``g_x(·)`` with error < ε on all its inputs? (exact LP)

    Tokens are taken in order with the exact simplex
    (:func:`certify.kernels.lp.strict_feasibility`) until the first one without a
    readout: everything printed — every token's readout when all have one, or that
    token's Farkas certificate — comes from it, so the output is a function of the data
    alone. After that only the *number* of tokens without a readout is reported, and
    the remaining tokens are decided by :func:`certify.kernels.lp.decide_feasibility`
    (HiGHS when installed, every answer verified exactly; else the exact simplex).
    """
    by_query: dict[int, list[int]] = {}
    for i, X in enumerate(inputs):
        by_query.setdefault(X.tokens[X.query], []).append(i)
    search = _ReadoutSearch(m)
    for xq in q_tokens:
        ids = by_query[xq]
        search.token(xq, *_readout_problem(inputs, xq, ids, alpha, dens, eps, delta), lambda k: describe(ids[k]))
    search.finish(report)


class _ReadoutSearch:
    """The per-token steps of :func:`_readout_search`, shared with the streamed path (tokens fed in order)."""

    def __init__(self, m: int) -> None:
        self.m = m
        self.readout: dict[str, dict[str, str]] = {}
        self.infeasible = 0
        self.sub: list[dict[str, Any]] | None = None

    def token(self, xq: int, keys, rows, lo, hi, describe) -> None:
        """Decide query token ``xq``'s system; ``describe(k)``: the report entry of its ``k``-th row's input."""
        from .lp import decide_feasibility, strict_feasibility

        m = self.m
        if self.sub is None:
            res = strict_feasibility(rows, lo, hi, len(keys))
            if res.feasible:
                self.readout[_bits(xq, m)] = {(_bits(z, m) if z != PHANTOM else "phantom"): format_rational(g)
                                              for z, g in zip(keys, res.solution)}
            else:
                self.sub = [dict(describe(k), multiplier=format_rational(res.lam[k] + res.nu[k])) for k in res.support]
        else:
            res = decide_feasibility(rows, lo, hi, len(keys))
        self.infeasible += not res.feasible

    def finish(self, report: KernelReport) -> None:
        report.readout_exists = self.infeasible == 0
        report.infeasible_query_tokens = self.infeasible
        report.readout = self.readout if self.infeasible == 0 else None
        report.infeasible_subfamily = self.sub


def run_check(table_path: str, family_path: str | None = None, search_readout: bool = False,
              clip: Fraction | None = None, first_failure: bool = False) -> tuple[int, KernelReport | str]:
    """``certify check-kernel`` without the printing: ``(exit code, report)`` or ``(exit code, one-line reason)``.

    Exit 0: the table's readout solves the family (kernel only: some readout exists);
    1: it does not; 2: the table or family file is unreadable or malformed (the reason
    names the field); 3: a result contradicts the certified theorem (a bug). Every
    input gets one of these: the caller never sees an exception for a bad file.
    """
    try:
        family = load_family(family_path)
    except FamilyFormatError as exc:
        return 2, str(exc)
    return verdict(table_path, family, search_readout, clip, first_failure)


def verdict(table_path: str, family: FamilySpec, search_readout: bool = False,
            clip: Fraction | None = None, first_failure: bool = False) -> tuple[int, KernelReport | str]:
    """:func:`run_check` with the family already loaded (for many tables against one family)."""
    from .lp import LPError
    from .table import load_table

    try:
        with unlimited_digits():  # a refusal may quote an exact number of the file
            table = load_table(table_path)
            if clip is not None:
                table.clip_negative_alpha(clip)
            report = check_kernel(table, family, search_readout=search_readout, first_failure=first_failure)
    except (TableFormatError, FamilyFormatError) as exc:
        return 2, str(exc)
    except (KernelContradiction, LPError) as exc:
        return 3, str(exc)
    return (0 if report.ok else 1), report
