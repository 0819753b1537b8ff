"""The report of ``check-kernel`` (last stage): :class:`KernelReport`, its text and its JSON (schema ``certify.check-kernel/1``).

Every earlier stage writes its findings into one :class:`KernelReport` (made by
:func:`_new_report` from the table and the family); ``text()`` is what ``certify
check-kernel`` prints and ``to_json()`` what ``--json`` prints (docs/kernel-table-format.md).
Numbers are exact (``p/q``) with a six-digit decimal for people (:func:`decimal_text`).
"""
from __future__ import annotations

import contextlib
import sys
from dataclasses import dataclass, field
from fractions import Fraction
from typing import TYPE_CHECKING, Any

from ..check import exact_text, format_rational

if TYPE_CHECKING:
    from .families import FamilySpec
    from .table import KernelTable

__all__ = ["KernelReport", "unlimited_digits"]


def token_bits(x: int, m: int) -> str:
    return format(x, f"0{m}b")[::-1]


def _short(text: str) -> str:
    """An exact ``p/q`` as it is when short, else its six-digit decimal and where the exact value is (``--json``)."""
    return text if len(text) <= 12 else f"{decimal_text(Fraction(text))} (exactly: --json)"


def decimal_text(q: Fraction) -> str:
    """Six significant digits, for people; exact integer arithmetic where a float would lose them.

    >>> decimal_text(Fraction(1, 3)), decimal_text(Fraction(10**400, 3)), decimal_text(Fraction(-123456789, 10**330))
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


#: Why a table of several heads gets no certified bound (docs/math.md §7, "H heads at exact length H + 2").
SEVERAL_HEADS_NO_BOUND = ("the bound for H heads (B.1–B.2) needs inputs of exact length H + 2 and padded keys, "
                          "which no certify family or certificate carries")


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
    kernel_rank_bounds: Any = None  # certify.linalg.rank.RankResult: where each bound came from
    stopped_early: dict[str, int] | None = None  # first_failure stopped here: the counts are lower bounds
    all_pairs: dict[str, Any] | None = None  # --all-pairs: α on every pair of the table's tokens (negatives counted)
    failing_count: int | None = None  # streamed families: how many inputs fail (only the first streamed.MAX_LISTED are listed)
    violation_count: int | None = None  # streamed families: how many jumps are violated (likewise)
    head_ranks: list[int] | None = None  # a table of several heads: each head's exact kernel rank (check_multihead)
    head_ranks_exact: bool = True
    one_head_bound: int | None = None  # several heads: the family's certified bound, which is about one head only

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
        """Exit 0 condition: the readout solves the family, or (kernel only) some readout exists; with
        ``--all-pairs`` also ``α ≥ 0`` on every pair of the table's tokens."""
        solved = bool(self.solves) if self.solves is not None else bool(self.readout_exists)
        return solved and (self.all_pairs is None or self.all_pairs["negative"] == 0)

    def to_json(self) -> dict[str, Any]:
        with unlimited_digits():
            return self._to_json()

    def _to_json(self) -> dict[str, Any]:
        out = self._json()
        if self.n_failing > len(self.failing_inputs):  # a streamed family lists only the first streamed.MAX_LISTED
            out["failing_inputs_count"] = self.n_failing
        if self.n_violated > len(self.jump_violations):
            out["jump_violations_count"] = self.n_violated
        if self.head_ranks is not None:
            out["several_heads"] = {"certified_bound": None, "one_head_bound": self.one_head_bound,
                                    "reason": SEVERAL_HEADS_NO_BOUND}
        if self.all_pairs is not None:
            out["all_pairs"] = self.all_pairs
        return out

    def _json(self) -> dict[str, Any]:
        return {
            "schema": "certify.check-kernel/1",
            "table": self.table,
            "family": self.family,
            "solves": self.solves,
            "max_error": None if self.max_error is None else
            {"exact": exact_text(self.max_error), "decimal": decimal_text(self.max_error)},
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
        lines = self._text_head()
        if self.solves is not None:
            lines += self._text_solves()
        if self.head_ranks is not None:
            return lines + self._text_heads()
        return lines + self._text_jumps_and_rank() + self._text_readout() + self._text_all_pairs()

    def _text_all_pairs(self) -> list[str]:
        ap = self.all_pairs
        if ap is None:
            return []
        if not ap["negative"]:
            return [f"all pairs    α ≥ 0 on all {ap['tokens']:,} × {ap['tokens']:,} pairs of the table's tokens "
                    "(a head of the model of docs/math.md §2 once every other token gets zero features)"]
        w = ap["first"]
        return [f"all pairs    α < 0 on {ap['negative']:,} of the {ap['tokens']:,} × {ap['tokens']:,} pairs of the "
                f"table's tokens, first α({w['x']}, {w['z']}) = {w['alpha']}: nonnegative only where the family looks"]

    def _text_head(self) -> list[str]:
        """The family and table lines, clipping and an early stop."""
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
                 + (f", denominator constant δ = {_short(t['delta'])}" if t.get("delta", "0") != "0" else "")]
        clip = t.get("clip_negative_alpha")
        if clip is not None:
            lines.append(f"clipped      {clip['entries_clipped']:,} entries of α in [−{clip['tolerance']}, 0) read as 0: "
                         "every verdict below is about the clipped kernel, not the table's")
        st = self.stopped_early
        if st:
            lines.append(f"stopped      at the first failure (--first-failure): {st['query_tokens_checked']:,} of "
                         f"{f['query_tokens']:,} query tokens, {st['inputs_checked']:,} inputs and {st['jumps_checked']:,} "
                         "jumps checked; the counts below are of those")
        return lines

    def _text_solves(self) -> list[str]:
        """Whether the readout solves the family; the first failing inputs."""
        f, st = self.family, self.stopped_early
        lines: list[str] = []
        if self.solves:
            lines.append(f"solves       yes: max error {_show(exact_text(self.max_error), decimal_text(self.max_error))} "
                         f"< {f['error_below']} on all {f['inputs']} inputs")
        else:
            worst = max(self.failing_inputs, key=lambda x: Fraction(x["error"]))
            of = f"the {st['inputs_checked']:,} inputs checked" if st else f"{f['inputs']} inputs"
            lines.append(f"solves       no: {self.n_failing} of {of} have error ≥ "
                         f"{f['error_below']}; max error {'≥ ' if self.stopped_early else ''}"
                         f"{_show(exact_text(self.max_error), decimal_text(self.max_error))}"
                         + (" (in the part checked)" if self.stopped_early else ""))
            for x in self.failing_inputs[:5]:
                lines.append(f"             family.inputs[{x['index']}] ({', '.join(x['tokens'])}; query {x['query']}): "
                             f"target {x['target']}, prediction {_show(x['prediction'], x['prediction_decimal'])}")
            if self.n_failing > 5:
                listed = "all" if self.n_failing == len(self.failing_inputs) else f"the first {len(self.failing_inputs):,}"
                lines.append(f"             … {self.n_failing - 5} more (--json lists {listed}); "
                             f"{'worst' if listed == 'all' else 'worst listed'}: family.inputs[{worst['index']}]")
        return lines

    def _text_heads(self) -> list[str]:
        """Several heads: each head's rank; no jumps, bound or readout search."""
        t, f = self.table, self.family
        lines: list[str] = []
        ranks = " + ".join(map(str, self.head_ranks))
        lines.append("jumps        not checked: weight domination, the certified bound and the readout LP are about "
                     "one head")
        one = f"the certificate's r ≥ {self.one_head_bound} is about one head; " if self.one_head_bound is not None else ""
        lines.append(f"bound        none carried for {len(self.head_ranks)} heads: {one}{SEVERAL_HEADS_NO_BOUND}")
        how = "per head, exact" if self.head_ranks_exact else "per head; ≥: some are proved lower bounds only"
        lines.append(f"kernel ranks {'' if self.head_ranks_exact else '≥ '}{ranks} = {self.kernel_rank} ({how}) "
                     f"on {f['query_tokens']} query tokens × {f['tokens']} tokens")
        if t.get("readout_search_skipped"):
            lines.append("readout      not searched (--search-readout): the readout LP is about one head")
        return lines

    def _text_jumps_and_rank(self) -> list[str]:
        """The jumps checked and violated; the kernel rank, its cap and how it was proved."""
        t, f = self.table, self.family
        lines: list[str] = []
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
        return lines

    def _text_readout(self) -> list[str]:
        """The readout search: a readout exists, or an infeasible sub-family."""
        lines: list[str] = []
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
