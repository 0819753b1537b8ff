"""Checker of the lower side of r*(m, 3): order obstructions, regions, disjoint queries (docs/math.md §11). Stdlib only.

One of the trusted checkers (docs/architecture.md), with ``certify/check.py`` beside it (its
strict JSON reader and process guard): ``python certify/check_obstruction.py FILE``.

A certificate ``{"schema": "certify.minrank-lower/1", "m": M, "rank_at_least": R,
"argument": "orders" | "regions", "pairs": [[y, z], …]}`` (``y``, ``z`` key tokens as 0/1 strings of length ``M``, character
``i`` is coordinate ``i``) claims ``r*(M, 3) ≥ R`` for ``R ∈ {2, 3}``. For a pair of keys
``(y, z)`` let ``P`` be the queries ``x`` (weight ≥ 2) with ``⟨x, z⟩ − ⟨x, y⟩ ≥ 2`` and ``Q``
those with ``⟨x, y⟩ − ⟨x, z⟩ ≥ 2``: every solving kernel has ``A[x, y] > A[x, z]`` on ``P``
and ``A[x, z] > A[x, y]`` on ``Q`` (the row condition with ``d ≥ 2``).

* ``R = 2``: some listed pair has ``P`` and ``Q`` both nonempty. A kernel of rank 1 has
  rows ``u_x vᵀ`` with ``u_x > 0``, so ``A[x, y] − A[x, z]`` has one sign on every row.
* ``R = 3``: for **every** orientation of the listed pairs (``P`` before ``Q`` or ``Q``
  before ``P``) the precedence relation ``p → q`` (``p`` in the earlier set, ``q`` in the
  later) has a cycle. A kernel of rank 2 has a nonnegative factorization of width 2, its
  rows are directions ``θ_x ∈ [0, π/2]``, and for each pair the rows preferring ``y`` and
  those preferring ``z`` lie on two disjoint arcs: sorting the rows by ``θ`` would orient
  every pair without a cycle.

* ``"argument": "regions"`` (any ``R ≥ 2``): the queries in ``P`` or ``Q`` of every listed
  pair have more distinct sign patterns than ``k`` hyperplanes through the origin of
  ``ℝ^{R−1}`` have open cells, ``2·Σ_{i<R−1} C(k − 1, i)``. In a kernel of rank ``R − 1``
  the rows are points ``u_x`` and pair ``i`` a hyperplane ``⟨u, c_y − c_z⟩ = 0``; a query's
  strict signs put it in one cell, distinct patterns in distinct cells.

* ``"argument": "disjoint-queries"`` (any ``R ≥ 1``; docs/math.md §11, the pair queries)
  lists ``"queries": [x, …]`` instead of pairs: query tokens of weight ``≥ 2`` with pairwise
  disjoint supports (e.g. ``{2i, 2i + 1}``), at least ``R`` of them. Their rows are linearly
  independent in every solving ``A``: from ``Σ λ_i A[x_i, :] = 0``, ``λ ≠ 0``, take the keys
  ``1_P``, ``1_N`` (the unions of the supports with ``λ_i > 0``, ``< 0``); the row condition
  (``d = |x_i| ≥ 2``) gives ``A[x_i, 1_N] > A[x_i, 1_P]`` for ``i ∈ P`` and the reverse for
  ``i ∈ N``, so ``Σ λ_i (A[x_i, 1_N] − A[x_i, 1_P])`` is a sum of positive terms, not 0.

The checker recomputes ``P`` and ``Q`` (or the weights and overlaps) from the tokens and
trusts nothing else in the file. Work: ``2^{k−1}`` orientations of ``k`` pairs, each a cycle
search on the rows involved; ``k ≤ 16``, ``M ≤ 12`` and ``2^{k−1} · Σ |P|·|Q| ≤`` :data:`MAX_WORK`
are enforced before any orientation is tried (the sets themselves cost ``k · 2^M``). The
queries cost one pass over the tokens: ``M ≤`` :data:`MAX_M_QUERIES`, the file's size bounds
their number.

Reading (:func:`load`) fails closed as ``certify/check.py`` does, with its ``loads``: a file
over :data:`MAX_FILE_BYTES` (1 MiB) is refused before parsing; floats, exponents, NaN, signed
or huge integers, repeated keys, escapes of printable ASCII characters, text that is not
UTF-8 and too-deep nesting are refused with one line. The keys are exactly ``schema``, ``m``,
``rank_at_least``, ``pairs`` and the optional ``argument`` (default ``"orders"``), or with
``"argument": "disjoint-queries"`` (then required) ``schema``, ``m``, ``rank_at_least``,
``argument`` and ``queries``: any other key is refused (one spelling per document;
:data:`KEYS`). The format: docs/certificate-format.md, "Lower-side obstruction certificates";
the mathematics: docs/math.md §11.

Exit codes (:func:`main`): 0 proved (``VERIFIED: r*(M, 3) ≥ R`` on stdout), 1 rejected, 2
malformed or unreadable (or standard output cannot be written), 3 internal error (a bug
here); 130 Ctrl-C, 141 a closed pipe, 143 SIGTERM. Every message other than the verdict is
one line on stderr naming the failing field or step.
"""
from __future__ import annotations

import json
import sys
from typing import Any

if __package__:
    from .check import (EXIT_INTERNAL, EXIT_MALFORMED, EXIT_REJECTED, EXIT_VERIFIED, MAX_INT, CertificateError,
                        CertificateFormatError, guard_process, loads, read_bounded, safe_output_streams,
                        script_args)
else:  # run as a script (python certify/check_obstruction.py FILE): certify/check.py is beside it
    import os as _os

    sys.path.insert(0, _os.path.dirname(_os.path.abspath(__file__)))
    from check import (EXIT_INTERNAL, EXIT_MALFORMED, EXIT_REJECTED, EXIT_VERIFIED, MAX_INT, CertificateError,
                       CertificateFormatError, guard_process, loads, read_bounded, safe_output_streams,
                       script_args)

SCHEMA = "certify.minrank-lower/1"
MAX_M = 12
MAX_PAIRS = 16
#: Orientations × precedence edges the rank-3 check may build (the edges dominate): about 10 s of CPU here.
MAX_WORK = 5 * 10**7
#: The longest token of ``"disjoint-queries"`` (one pass over the tokens): its ⌊m/2⌋ queries stay under 0.6 MiB.
MAX_M_QUERIES = 1024
#: The largest file read (checked before parsing); a certificate (≤ 16 pairs of ≤ 12-bit tokens) is under 1 KiB.
MAX_FILE_BYTES = 1 << 20
#: The keys of a certificate: the required ones, then the optional ``argument``.
REQUIRED = ("schema", "m", "rank_at_least", "pairs")
OPTIONAL = ("argument",)
#: The keys by argument (required, optional): ``"disjoint-queries"`` lists queries, not pairs, and must be named.
KEYS = {"orders": (REQUIRED, OPTIONAL), "regions": (REQUIRED, OPTIONAL),
        "disjoint-queries": (("schema", "m", "rank_at_least", "argument", "queries"), ())}


class ObstructionError(CertificateFormatError, ValueError):
    """The certificate is malformed (exit 2): ``step`` is the failing field, ``str`` is ``"field: reason"``."""

    def __init__(self, field: str, message: str) -> None:
        super().__init__(field, message)


def _kind(v: Any) -> str:
    """A value for a message, short whatever its size (never ``str`` of a 5,000-digit integer)."""
    if isinstance(v, bool):
        return f"a boolean ({json.dumps(v)})"
    if isinstance(v, int):
        return f"int {v}" if v.bit_length() <= 64 else f"an integer of {v.bit_length():,} bits"
    if isinstance(v, str):
        return f"str {v[:40]!r}{'…' if len(v) > 40 else ''}"
    return {dict: "an object", list: "an array", type(None): "null", float: "a float"}.get(type(v), type(v).__name__)


def _token(text: Any, m: int, where: str) -> int:
    if not isinstance(text, str):
        raise ObstructionError(where, f"expected a 0/1 string of length m = {m}, got {_kind(text)}")
    if len(text) != m:
        raise ObstructionError(where, f"token has length {len(text)}, expected m = {m}")
    bad = next((i for i, c in enumerate(text) if c not in "01"), None)
    if bad is not None:
        raise ObstructionError(where, f"character {bad} is {text[bad]!r}; tokens are 0/1 strings")
    return sum(1 << i for i, c in enumerate(text) if c == "1")


def sides(y: int, z: int, m: int) -> tuple[frozenset, frozenset]:
    """``(P, Q)``: the queries of weight ≥ 2 that must prefer ``y`` over ``z``, and those that must prefer ``z``."""
    P, Q = set(), set()
    for x in range(1 << m):
        if x.bit_count() < 2:
            continue
        gap = (x & z).bit_count() - (x & y).bit_count()
        if gap >= 2:
            P.add(x)
        elif gap <= -2:
            Q.add(x)
    return frozenset(P), frozenset(Q)


def _has_cycle(edges: dict[int, set[int]]) -> bool:
    """Whether the directed graph has a cycle (iterative depth-first search, colours)."""
    colour: dict[int, int] = {}
    for root in edges:
        if colour.get(root):
            continue
        stack = [(root, iter(edges.get(root, ())))]
        colour[root] = 1
        while stack:
            node, it = stack[-1]
            nxt = next(it, None)
            if nxt is None:
                colour[node] = 2
                stack.pop()
            elif colour.get(nxt) == 1:
                return True
            elif not colour.get(nxt):
                colour[nxt] = 1
                stack.append((nxt, iter(edges.get(nxt, ()))))
    return False


def orientation_cycle_free(pairs: list[tuple[frozenset, frozenset]], orientation: int) -> bool:
    """Whether orienting pair ``i`` as ``P → Q`` (bit ``i`` of ``orientation`` 0) or ``Q → P`` leaves no cycle."""
    edges: dict[int, set[int]] = {}
    for i, (P, Q) in enumerate(pairs):
        first, then = (P, Q) if not orientation >> i & 1 else (Q, P)
        for p in first:
            edges.setdefault(p, set()).update(then)
    return not _has_cycle(edges)


def cells(k: int, r: int) -> int:
    """The most open cells ``k`` hyperplanes through the origin of ``ℝ^r`` make: ``2·Σ_{i<r} C(k − 1, i)`` (Cover)."""
    from math import comb

    return 2 * sum(comb(k - 1, i) for i in range(r)) if k else 1


def patterns(pairs: list[tuple[frozenset, frozenset]], m: int) -> set[tuple[bool, ...]]:
    """The distinct sign patterns of the queries that lie in ``P`` or ``Q`` of **every** pair (``True``: in ``P``)."""
    out = set()
    for x in range(1 << m):
        row = []
        for P, Q in pairs:
            if x in P:
                row.append(True)
            elif x in Q:
                row.append(False)
            else:
                break
        else:
            out.add(tuple(row))
    return out


def _parse(doc: Any) -> tuple[int, int, str, list]:
    """``(m, rank_at_least, argument, [(P, Q), …])`` of a well-formed certificate (``[x, …]``, the query tokens as
    integers, for ``"disjoint-queries"``).

    :class:`ObstructionError` naming the field otherwise.
    """
    if not isinstance(doc, dict):
        raise ObstructionError("document", f"expected a JSON object, got {_kind(doc)}")
    if "schema" not in doc:
        raise ObstructionError("schema", f"missing; expected {SCHEMA!r}")
    if doc["schema"] != SCHEMA:
        raise ObstructionError("schema", f"expected {SCHEMA!r}, got {_kind(doc['schema'])}")
    argument = doc.get("argument", "orders")
    if not isinstance(argument, str) or argument not in KEYS:
        raise ObstructionError("argument", "expected 'orders' or 'regions' (pairs of keys) or 'disjoint-queries' "
                               f"(queries), got {_kind(argument)}")
    required, optional = KEYS[argument]
    for key in doc:
        if key not in required + optional:
            shown = repr(key)[:60] + ("…" if len(repr(key)) > 60 else "")
            if key in ("pairs", "queries"):  # the other arguments' list: one spelling per document
                raise ObstructionError("document", f"key {shown} does not go with the argument {argument!r}"
                                       f"{'' if 'argument' in doc else ' (the default)'}, which lists {required[-1]}")
            where, tail = (("", f" and the optional {', '.join(optional)}") if optional
                           else (f" with the argument {argument!r}", ""))
            raise ObstructionError("document", f"unknown key {shown}; a {SCHEMA} certificate{where} has only the keys "
                                   f"{', '.join(required)}{tail}")
    for key in required:
        if key not in doc:
            raise ObstructionError(key, "missing required key")
    m, claim, top = doc["m"], doc["rank_at_least"], MAX_M_QUERIES if argument == "disjoint-queries" else MAX_M
    if type(m) is not int or not 2 <= m <= top:
        raise ObstructionError("m", f"expected an integer from 2 to {top}, got {_kind(m)}")
    if argument == "disjoint-queries":
        if type(claim) is not int or not 1 <= claim <= MAX_INT:
            raise ObstructionError("rank_at_least", f"expected an integer from 1 to 2^53 - 1, got {_kind(claim)}")
        raw = doc["queries"]
        if not isinstance(raw, list) or not raw:
            got = "an empty array" if raw == [] else _kind(raw)
            raise ObstructionError("queries", f"expected a nonempty array of 0/1 tokens of length m = {m}, got {got}")
        return m, claim, argument, [_token(x, m, f"queries[{i}]") for i, x in enumerate(raw)]
    raw = doc["pairs"]
    if argument == "regions":
        if type(claim) is not int or not 2 <= claim <= MAX_PAIRS + 1:
            raise ObstructionError("rank_at_least", f"expected an integer from 2 to {MAX_PAIRS + 1} for 'regions', "
                                   f"got {_kind(claim)}")
    elif type(claim) is not int or claim not in (2, 3):
        raise ObstructionError("rank_at_least",
                               f"expected 2 or 3 (order obstructions prove no more), got {_kind(claim)}")
    if not isinstance(raw, list) or not 1 <= len(raw) <= MAX_PAIRS:
        got = f"an array of {len(raw)}" if isinstance(raw, list) else _kind(raw)
        raise ObstructionError("pairs", f"expected an array of 1 to {MAX_PAIRS} pairs, got {got}")
    pairs = []
    for i, p in enumerate(raw):
        if not isinstance(p, list) or len(p) != 2:
            got = f"an array of {len(p)}" if isinstance(p, list) else _kind(p)
            raise ObstructionError(f"pairs[{i}]", f"expected [y, z], two tokens, got {got}")
        pairs.append(sides(_token(p[0], m, f"pairs[{i}][0]"), _token(p[1], m, f"pairs[{i}][1]"), m))
    return m, claim, argument, pairs


def _pairs(k: int) -> str:
    return "1 pair" if k == 1 else f"{k} pairs"


def explain(doc: Any) -> tuple[int, str, str]:
    """``(proved, field, reason)``: the bound the certificate proves (0: rejected, with the failing field and why).

    :class:`ObstructionError` (exit 2, naming the field) if the certificate is malformed.
    """
    m, claim, argument, pairs = _parse(doc)
    k = len(pairs)
    if argument == "disjoint-queries":  # one pass: weights, then overlaps with the union of the earlier supports
        seen = 0
        for i, x in enumerate(pairs):
            if x.bit_count() < 2:
                return 0, f"queries[{i}]", (f"weight {x.bit_count()}; the row condition orders the keys 1_P, 1_N only "
                                            "for queries of weight ≥ 2 (docs/math.md section 11, the pair queries)")
            if x & seen:
                c = ((x & seen) & -(x & seen)).bit_length() - 1
                j = next(j for j in range(i) if pairs[j] >> c & 1)
                return 0, f"queries[{i}]", (f"shares coordinate {c} with queries[{j}]; the supports must be pairwise "
                                            "disjoint (docs/math.md section 11, the pair queries)")
            seen |= x
        if claim > k:
            return 0, "rank_at_least", (f"{claim} does not follow: {k} disjoint queries of weight ≥ 2 have {k} "
                                        f"independent rows, so they prove r*({m}, 3) ≥ {k} (docs/math.md "
                                        "section 11, the pair queries)")
        return claim, "", ""
    if argument == "regions":  # k · 2^M work: bounded by MAX_PAIRS and MAX_M
        n, room = len(patterns(pairs, m)), cells(k, claim - 1)
        if n > room:
            return claim, "", ""
        r = 1
        while cells(k, r) < n:
            r += 1
        proves = f"they prove rank ≥ {r}" if r >= 2 else "they prove nothing"
        planes = "1 hyperplane" if k == 1 else f"{k} hyperplanes"
        give = "gives" if k == 1 else "give"
        return 0, "rank_at_least", (f"{claim} does not follow: the {_pairs(k)} {give} {n} distinct full sign patterns, "
                                    f"not more than cells({k}, {claim - 1}) = {room}, the open cells of {planes} "
                                    f"through the origin in dimension {claim - 1} (Lemma 11.5); {proves}")
    edges = sum(len(P) * len(Q) for P, Q in pairs)
    work = (1 << (k - 1)) * edges
    if claim == 3 and work > MAX_WORK:
        raise ObstructionError("pairs", f"{_pairs(k)} with {edges:,} precedence edges, "
                               f"tried in 2^{k - 1} orientations, is {work:,} edge steps; at most {MAX_WORK:,} "
                               "(a certificate needs only a few pairs)")
    if claim == 2:
        if any(P and Q for P, Q in pairs):
            return 2, "", ""
        return 0, "pairs", ("no listed pair has queries on both sides (P and Q both nonempty), so a kernel of rank 1 "
                            "is not excluded (Lemma 11.4)")
    for i, (P, Q) in enumerate(pairs):
        if not (P and Q):
            gap = "⟨x, z⟩ - ⟨x, y⟩" if not P else "⟨x, y⟩ - ⟨x, z⟩"
            return 0, f"pairs[{i}]", (f"{'P' if not P else 'Q'} is empty (no query x of weight ≥ 2 has {gap} ≥ 2), "
                                      "so the pair orders nothing; the rank-3 obstruction needs both sides of every "
                                      "pair (Lemma 11.4)")
    for orientation in range(1 << (k - 1)):  # the last pair's orientation: by symmetry (reversing every edge)
        if orientation_cycle_free(pairs, orientation):
            shown = ", ".join(f"[{i}] {'Q → P' if orientation >> i & 1 else 'P → Q'}" for i in range(k))
            return 0, "rank_at_least", (f"3 does not follow: orienting the pairs {shown} leaves the precedence "
                                        "relation without a cycle, so the rows can be ordered and a kernel of rank 2 "
                                        "is not excluded (Lemma 11.4 needs a cycle in every orientation)")
    return 3, "", ""


def check(doc: Any) -> int:
    """The bound the certificate proves; :class:`ObstructionError` if malformed.

    ``argument`` ``"orders"`` (the default; ``rank_at_least`` 2 or 3) or ``"regions"``
    (any ``rank_at_least`` ``R ≥ 2``: the queries with a full pattern have more distinct
    patterns than ``cells(k, R − 1)``, so a kernel of rank ``R − 1`` cannot give each its
    signs; docs/math.md §11, Lemma 11.5) or ``"disjoint-queries"`` (``rank_at_least`` at most
    the number of queries, each of weight ≥ 2, their supports pairwise disjoint; §11, the pair
    queries). Returns 0 when the certificate is well formed but its claim does not follow
    (rejected; :func:`explain` says why).
    """
    return explain(doc)[0]


class _Refused:
    """A number the strict parse refused, kept by the lenient one that finds where it is."""

    def __init__(self, text: str) -> None:
        self.text = text


def _refused_int(text: str) -> Any:
    return _Refused(text) if text.startswith("-") or len(text) > 16 or int(text) > MAX_INT else int(text)


def _locate_number(data: bytes) -> str | None:
    """The field (``m``, ``pairs[0][1]``…) of the first number ``loads`` refused, or ``None`` (for the message)."""
    try:
        doc = json.loads(data.decode("utf-8"), parse_float=_Refused, parse_int=_refused_int, parse_constant=_Refused)
    except (ValueError, RecursionError):
        return None
    stack: list[tuple[Any, str]] = [(doc, "")]
    while stack:  # depth first in document order, without recursion
        value, where = stack.pop()
        if isinstance(value, _Refused):
            return where or "document"
        if isinstance(value, dict):
            stack.extend((v, f"{where}.{k}" if where else str(k)) for k, v in reversed(list(value.items())))
        elif isinstance(value, list):
            stack.extend((v, f"{where}[{i}]") for i, v in reversed(list(enumerate(value))))
    return None


#: How ``certify.check.loads`` begins the messages of the numbers it refuses (float, sign, size, NaN).
_NUMBER_MESSAGES = ("format: number ", "format: integer ", "is not a JSON number")


def load(path: str) -> Any:
    """Read and parse ``path`` as ``certify.check.load`` does, with :data:`MAX_FILE_BYTES` checked before parsing.

    Errors are :class:`certify.check.CertificateFormatError` (exit 2): step ``file`` (no such
    file, a directory, unreadable, empty), ``limits`` (too large), ``format`` (``loads``:
    not UTF-8, not JSON, nested too deeply, a repeated key, a needless escape), or the field of
    a refused number (``m: number 5.0 is not an integer; …``).
    """
    data = read_bounded(path, MAX_FILE_BYTES, f"the file is over {MAX_FILE_BYTES // 2**20} MiB "
                        f"({MAX_FILE_BYTES:,} bytes), this format's limit; a certificate needs under 1 KiB")
    try:
        return loads(data)
    except CertificateFormatError as exc:
        text = str(exc)
        if not any(s in text for s in _NUMBER_MESSAGES):
            raise
        where = _locate_number(data)
        if where is None:
            raise
        raise CertificateFormatError(where, text.removeprefix("format: ")) from None


def _shown(path: str) -> str:
    return path if path.isprintable() else ascii(path)  # a newline in a file name never makes two lines


def run(path: str) -> int:
    """Verify ``path`` and print the verdict (stdout on success, one line on stderr otherwise); return the exit code.

    Every outcome is one of 0, 1, 2, 3: an unexpected exception inside this checker is reported in
    one line (exit 3), never as a traceback.
    """
    safe_output_streams()
    try:
        doc = load(path)
        proved, field, reason = explain(doc)
    except CertificateError as exc:  # ObstructionError included
        print(f"MALFORMED: {_shown(path)}: {exc}", file=sys.stderr)
        return EXIT_MALFORMED
    except MemoryError:
        print("INTERNAL CONTRADICTION: out of memory within the documented limits (a bug in this checker)",
              file=sys.stderr)
        return EXIT_INTERNAL
    except Exception as exc:  # a bug here, never the file's fault: one line, exit 3
        print(f"INTERNAL CONTRADICTION: unexpected {type(exc).__name__} in the checker: "
              f"{' '.join(str(exc).split())[:200]} (a bug in this checker)", file=sys.stderr)
        return EXIT_INTERNAL
    if proved:
        print(f"VERIFIED: r*({doc['m']}, 3) ≥ {proved}")
        return EXIT_VERIFIED
    print(f"REJECTED: {_shown(path)}: {field}: {reason}", file=sys.stderr)
    return EXIT_REJECTED


PROG = "check_obstruction.py"


def main(argv: list[str] | None = None) -> int:
    """usage: python certify/check_obstruction.py [--] FILE

    Check a certify.minrank-lower/1 certificate (written by `certify minrank`) with the
    standard library alone: P and Q of every listed pair of keys are recomputed from the
    tokens, then every orientation of the pairs is tried (argument "orders", r*(M, 3) >= 2
    or 3, docs/math.md Lemma 11.4) or the full sign patterns are counted against the cells
    of the hyperplanes (argument "regions", Lemma 11.5); or the listed queries are checked
    to have weight >= 2 and pairwise disjoint supports (argument "disjoint-queries", their
    rows are independent: r*(M, 3) >= their number). Files over 1 MiB, unknown or
    repeated keys, floats, signed or huge integers are refused before any work.
    Prints "VERIFIED: r*(M, 3) >= R" on stdout, or one line on stderr.

    --              the next argument is the path, even if it starts with '-'
    -h, --help      print this text and exit 0

    Exit codes: 0 verified, 1 rejected (the claim does not follow; the line names the
    field), 2 malformed or unreadable (or standard output cannot be written), 3 internal
    error (a bug in this checker); 130 Ctrl-C, 141 a closed pipe, 143 SIGTERM.
    """
    return guard_process(lambda: _main(argv), PROG)


def _main(argv: list[str] | None) -> int:
    code, path, _ = script_args(argv, main.__doc__, f"usage: python certify/{PROG} [--] FILE  (exit 0 proved, 1 rejected, "
                                "2 malformed; --help)")
    return code if code is not None else run(path)


if __name__ == "__main__":
    sys.exit(main())
