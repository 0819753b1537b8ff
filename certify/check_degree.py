"""Checker of invariant-degree certificates: K1(N), the least degree of the 1-D problem (docs/math.md §11). Stdlib only.

One of the trusted checkers (docs/architecture.md), with ``certify/check.py`` beside it (its
strict JSON reader and process guard): ``python certify/check_degree.py FILE``.

**The 1-D problem** (docs/math.md §11, "The 1-D problem and K1"). A function ``h`` on
``u = 0…N`` *meets the chain conditions* if ``h(u) > 0`` for every ``u`` and
``h(u+d) > (d−1)·h(u) + ((d−2)/2)·h(0)`` for all ``u ≥ 0``, ``d ≥ 2``, ``u + d ≤ N``;
``K1(N)`` is the least degree of a polynomial that does. A certificate ``{"schema":
"certify.invariant-degree/1", "m": M, "degree": K, "polynomial": [c_0, …, c_K],
"multipliers": [[u, d, y], …], "invariant_rank_at_least": X}`` claims ``K1(⌊M/2⌋) = K``:

* ``polynomial``: ``h(u) = Σ_e c_e·C(u, e)`` (binomial basis), ``c_K ≠ 0``, meets every
  condition strictly at ``u = 0…N`` (exactly, in integers), so ``K1(N) ≤ K``;
* ``multipliers`` (Gordan): rationals ``y > 0`` on conditions ``(u, d)`` (``d = 0``: ``h(u) > 0``)
  with ``Σ y·L_(u,d)(C(·, e)) = 0`` for every ``e < K``, ``L`` the condition's linear form. A
  polynomial of degree ``< K`` meeting them all would make ``Σ y·L(h)`` both ``0`` and ``> 0``,
  so ``K1(N) ≥ K`` (nothing to show for ``K = 0``: the list is empty);
* ``invariant_rank_at_least``: ``X = 1 + min_{K ≤ k ≤ N} (C(M, k) − C(M, k − 1))`` (``1`` for
  ``K = 0``): no S_M-invariant kernel solving every length-3 input has rank below ``X``
  (Proposition I3, Schrijver's block diagonalization). This is about invariant kernels only,
  not a bound on ``r*(M, 3)``.

Rationals are JSON integers or strings ``"p"``/``"p/q"`` in lowest terms (read by
``certify.check.parse_rational``). Limits, checked before any arithmetic (exit 2): ``M ≤ 200``, ``K ≤ N``, a file
of at most 2 MiB, rationals of at most 200 characters, the denominators' lcm of each list at most
:data:`MAX_DENOMINATOR_BITS` bits, at most ``(N+1) + (N−1)N/2`` multipliers (one per condition).

Exit codes (:func:`main`): 0 verified, 1 rejected (the line names the step: ``polynomial``,
``gordan``, ``claim``), 2 malformed or unreadable (the line names the field), 3 internal error;
130 Ctrl-C, 141 a closed pipe, 143 SIGTERM. The format: docs/certificate-format.md, "Invariant-degree certificates".
"""
from __future__ import annotations

import sys
from fractions import Fraction
from math import comb, lcm
from typing import Any

if __package__:
    from .check import (EXIT_INTERNAL, EXIT_VERIFIED, MAX_INT, CertificateError,
                        CertificateFormatError, CertificateLimitError, CertificateRejected, guard_process, loads,
                        parse_rational, read_bounded, safe_output_streams, script_args)
else:  # run as a script (python certify/check_degree.py FILE): certify/check.py is beside it
    import os as _os

    sys.path.insert(0, _os.path.dirname(_os.path.abspath(__file__)))
    from check import (EXIT_INTERNAL, EXIT_VERIFIED, MAX_INT, CertificateError,
                       CertificateFormatError, CertificateLimitError, CertificateRejected, guard_process, loads,
                       parse_rational, read_bounded, safe_output_streams, script_args)

SCHEMA = "certify.invariant-degree/1"
KEYS = ("schema", "m", "degree", "polynomial", "multipliers", "invariant_rank_at_least")
MAX_M = 200
MAX_FILE_BYTES = 2 << 20  # 5,051 multipliers of 200-character rationals fit; a produced certificate is under 4 KiB
MAX_DENOMINATOR_BITS = 4096  # the lcm of a list's denominators: the arithmetic is then in integers of bounded size


class DegreeError(CertificateFormatError, ValueError):
    """Malformed (exit 2): ``str`` is ``"field: reason"``."""


class DegreeRejected(CertificateRejected):
    """Well formed, the claim does not follow (exit 1): ``str`` is ``"step: reason"``."""


def _kind(v: Any) -> str:
    if isinstance(v, str):
        return f"str {v[:40]!r}{'…' if len(v) > 40 else ''}"
    if type(v) is int:  # in-process callers may pass any size; never str() of a 5,000-digit integer
        return f"int {v}" if v.bit_length() <= 64 else f"an integer of {v.bit_length():,} bits"
    if isinstance(v, list):
        return f"an array of {len(v)}"
    return {dict: "an object", bool: "a boolean", type(None): "null"}.get(type(v), type(v).__name__)


def _int(v: Any, where: str, lo: int, hi: int) -> int:
    if type(v) is not int or not lo <= v <= hi:
        raise DegreeError(where, f"expected an integer from {lo} to {hi}, got {_kind(v)}")
    return v


def _list(v: Any, where: str, lo: int, hi: int) -> list:
    if not isinstance(v, list) or not lo <= len(v) <= hi:
        raise DegreeError(where, f"expected an array of {lo if lo == hi else f'{lo} to {hi:,}'} entries, got {_kind(v)}")
    return v


def _rational(v: Any, where: str) -> Fraction:
    if type(v) is int and v <= MAX_INT:  # as loads reads them; larger integers are written as strings
        return Fraction(v)
    if not isinstance(v, str):
        raise DegreeError(where, f"expected an integer or a rational string \"p/q\", got {_kind(v)}")
    try:
        return parse_rational(v, where)
    except CertificateFormatError as exc:  # "format: where: reason" → "where: reason"
        raise DegreeError(where, str(exc).removeprefix(f"format: {where}: ")) from None


def _integers(values: list[Fraction], where: str) -> tuple[list[int], int]:
    """``(values·D, D)``, ``D`` the lcm of their denominators (a positive factor: every sign is kept)."""
    den = 1
    for v in values:
        den = lcm(den, v.denominator)
        if den.bit_length() > MAX_DENOMINATOR_BITS:
            raise CertificateLimitError(f"{where}: the lcm of the denominators exceeds 2^{MAX_DENOMINATOR_BITS}")
    return [int(v * den) for v in values], den


def conditions(n: int) -> list[tuple[int, int]]:
    """The conditions ``(u, d)`` of the 1-D problem on ``0…n``, sorted: ``d = 0`` is ``h(u) > 0``."""
    return sorted([(u, 0) for u in range(n + 1)] + [(u, d) for d in range(2, n + 1) for u in range(n - d + 1)])


def form(u: int, d: int, h) -> Any:
    """Twice the condition's linear form at ``h`` (a function of ``0…N``): ``2h(u)``, or
    ``2h(u+d) − 2(d−1)h(u) − (d−2)h(0)``; it must be ``> 0``."""
    return 2 * h(u) if d == 0 else 2 * h(u + d) - 2 * (d - 1) * h(u) - (d - 2) * h(0)


def invariant_rank(m: int, k1: int) -> int:
    """``1 + min_{K1 ≤ k ≤ ⌊m/2⌋} mult_k`` with ``mult_k = C(m, k) − C(m, k − 1)`` (``1`` for ``K1 = 0``)."""
    return 1 if k1 == 0 else 1 + min(comb(m, k) - comb(m, k - 1) for k in range(k1, m // 2 + 1))


def _parse(doc: Any) -> tuple[int, int, list[Fraction], list[tuple[int, int, Fraction]], int]:
    if not isinstance(doc, dict):
        raise DegreeError("document", f"expected a JSON object, got {_kind(doc)}")
    for key in doc:
        if key not in KEYS:
            raise DegreeError("document", f"unknown key {str(key)[:60]!r}; a {SCHEMA} certificate has only "
                              f"{', '.join(KEYS)}")
    for key in (key for key in KEYS if key not in doc):
        raise DegreeError(key, "missing required key")
    if doc["schema"] != SCHEMA:
        raise DegreeError("schema", f"expected {SCHEMA!r}, got {_kind(doc['schema'])}")
    m = _int(doc["m"], "m", 1, MAX_M)
    n = m // 2
    k = _int(doc["degree"], "degree", 0, n)
    poly = [_rational(c, f"polynomial[{e}]") for e, c in enumerate(_list(doc["polynomial"], "polynomial", k + 1, k + 1))]
    rows = _list(doc["multipliers"], "multipliers", 0, (n + 1) + (n - 1) * n // 2 if k else 0)
    mult = []
    for i, r in enumerate(rows):
        r = _list(r, f"multipliers[{i}]", 3, 3)
        u, d = _int(r[0], f"multipliers[{i}][0]", 0, MAX_INT), _int(r[1], f"multipliers[{i}][1]", 0, MAX_INT)
        if d == 1:
            raise DegreeError(f"multipliers[{i}][1]", "d = 1 is no condition (d = 0: h(u) > 0; d ≥ 2: a chain "
                              "condition)")
        if i and (u, d) <= mult[-1][:2]:
            raise DegreeError(f"multipliers[{i}]", f"(u, d) = ({u}, {d}) is repeated or out of order; sorted by (u, d), "
                              "once each")
        mult.append((u, d, _rational(r[2], f"multipliers[{i}][2]")))
    x = _rational(doc["invariant_rank_at_least"], "invariant_rank_at_least")
    if x.denominator != 1 or x < 1:
        raise DegreeError("invariant_rank_at_least", f"expected a positive integer, got {x}")
    return m, k, poly, mult, int(x)


def check(doc: Any) -> tuple[int, int, int, int]:
    """``(M, N, K, X)``: proved ``K1(N) = K`` and invariant rank ``≥ X``. :class:`DegreeError` (malformed),
    :class:`DegreeRejected` (naming the step) otherwise."""
    m, k, poly, mult, x = _parse(doc)
    n = m // 2
    table = [[comb(v, e) for e in range(k + 1)] for v in range(n + 1)]  # C(v, e)
    c, dc = _integers(poly, "polynomial")
    ys, dy = _integers([y for _, _, y in mult], "multipliers")
    # step polynomial: D·h on 0…N in integers (D > 0); degree exactly K; every condition strictly
    if poly[k] == 0:
        raise DegreeRejected("polynomial", f"the last coefficient c_{k} is 0: h has degree below {k}")
    h = [sum(ce * b for ce, b in zip(c, row)) for row in table]
    for u, d in conditions(n):
        value = form(u, d, h.__getitem__)
        if value <= 0:
            rule = f"h({u}) > 0" if d == 0 else f"h({u + d}) − {d - 1}·h({u}) − ({d - 2}/2)·h(0) > 0"
            raise DegreeRejected("polynomial", f"(u, d) = ({u}, {d}): {rule} fails, the left side is "
                                 f"{Fraction(value, 2 * dc)}")
    # step gordan: every y > 0 on a condition of N, and Σ y·L(C(·, e)) = 0 for every e < K
    if k and not mult:
        raise DegreeRejected("gordan", f"no multipliers: nothing shows that degree {k - 1} is impossible")
    for i, (u, d, y) in enumerate(mult):
        if y <= 0:
            raise DegreeRejected("gordan", f"multipliers[{i}]: y = {y} is not positive")
        if u + d > n:
            raise DegreeRejected("gordan", f"multipliers[{i}]: (u, d) = ({u}, {d}) is no condition of N = {n}: "
                                 "u + d ≤ N")
    for e in range(k):
        total = sum(y * form(u, d, lambda v: table[v][e]) for (u, d, _), y in zip(mult, ys))
        if total:
            raise DegreeRejected("gordan", f"Σ y·L(C(·, {e})) = {Fraction(total, 2 * dy)} ≠ 0, so the multipliers "
                                 f"do not exclude every polynomial of degree < {k}")
    # step claim: X recomputed
    if x != invariant_rank(m, k):
        raise DegreeRejected("claim", f"invariant_rank_at_least is {x}, but 1 + min_(K ≤ k ≤ N) mult_k = "
                             f"{invariant_rank(m, k)} for M = {m}, K = {k}")
    return m, n, k, x


def load(path: str) -> Any:
    """Read (at most :data:`MAX_FILE_BYTES`, checked before parsing) and parse with ``certify.check.loads``."""
    data = read_bounded(path, MAX_FILE_BYTES, f"the file is over {MAX_FILE_BYTES >> 20} MiB, this format's limit")
    return loads(data)


def verdict(m: int, n: int, k: int, x: int) -> str:
    """The two lines printed for a verified certificate."""
    return (f"VERIFIED: K1({n}) = {k}\n  so no S_{m}-invariant kernel solving every length-3 input over {m}-bit "
            f"tokens has rank below {x} (docs/math.md §11, Proposition I3)")


def run(path: str) -> int:
    """Verify ``path``, print the verdict (stdout) or one line on stderr; return the exit code (never a traceback)."""
    safe_output_streams()
    shown = path if path.isprintable() else ascii(path)  # a newline in a file name never makes two lines
    try:
        result = check(load(path))
    except CertificateError as exc:
        print(f"{'REJECTED' if exc.exit_code == 1 else 'MALFORMED'}: {shown}: {exc}", file=sys.stderr)
        return exc.exit_code
    except Exception as exc:  # MemoryError included: a bug here, never the file's fault; one line, exit 3
        print(f"INTERNAL CONTRADICTION: unexpected {type(exc).__name__} in the checker: "
              f"{' '.join(str(exc).split())[:200]} (a bug in this checker)", file=sys.stderr)
        return EXIT_INTERNAL
    print(verdict(*result))
    return EXIT_VERIFIED


PROG = "check_degree.py"


def main(argv: list[str] | None = None) -> int:
    """usage: python certify/check_degree.py [--] FILE

    Check a certify.invariant-degree/1 certificate with the standard library alone: the
    polynomial h (binomial basis) is evaluated exactly at u = 0..N = floor(M/2) and must meet
    every chain condition strictly (K1(N) <= K); the Gordan multipliers must be positive and
    cancel every binomial C(., e), e < K (K1(N) >= K); the invariant rank bound X is
    recomputed (docs/math.md section 11, Proposition I3: S_M-invariant kernels only).
    Files over 2 MiB, M > 200, unknown or repeated keys, floats are refused before any work.
    Prints "VERIFIED: K1(N) = K" and the rank line on stdout, or one line on stderr.

    --              the next argument is the path, even if it starts with '-'
    -h, --help      print this text and exit 0

    Exit codes: 0 verified, 1 rejected (the line names the step: polynomial, gordan,
    claim), 2 malformed or unreadable (or standard output cannot be written; the line
    names the field), 3 internal error (a bug in this checker); 130 Ctrl-C, 141 a closed
    pipe, 143 SIGTERM.
    """
    return guard_process(lambda: _main(argv), PROG)


def _main(argv: list[str] | None) -> int:
    code, path, _ = script_args(argv, main.__doc__, f"usage: python certify/{PROG} [--] FILE  (exit 0 proved, "
                                "1 rejected, 2 malformed; --help)")
    return code if code is not None else run(path)


if __name__ == "__main__":
    sys.exit(main())
