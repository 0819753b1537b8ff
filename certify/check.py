"""Independent checker for rank certificates (versions 1 and 2) and unique-minimizer certificates.

This module is the trusted core of ``certify`` (docs/architecture.md, "What you trust"). It
imports only the Python standard library, never ``codes``, ``witnesses``, numpy, sympy or
flint, and it can run as a script on its own, copied anywhere::

    python certify/check.py rank-nine.cert.json

It reads a certificate (``docs/certificate-format.md``), recomputes every overlap,
target, factor, product and sum from the tokens in the file, compares each stated
number with its recomputation, and accepts only if the claim follows. What it
checks, in order (each step's name appears in its rejection messages):

``limits``
    Before the work each bounds (docs/certificate-format.md, "Limits"): file size,
    the memory the JSON parse would need (estimated from byte counts before parsing),
    the size of derived numbers. Exceeding one is exit 2, not a verdict.
``format``
    The JSON shape: known keys only, every required key present, integers where
    integers belong (no floats, no sign, no huge numbers), rationals as canonical
    ``"p/q"`` strings, tokens as 0/1 strings of length ``m``, queries in range, no
    escape of a printable ASCII character (one spelling per number, token and key).
``integrity``
    ``sha256`` equals the SHA-256 of the canonical JSON of everything else.
``code``
    ``t ≥ 2`` distinct words, each of the stated weight; the stated minimum directed
    distance is the true one.
``family``
    Every input has exact length ``n``; its stated target is ``min_j ⟨x_i, x_j⟩``
    (docs/math.md §1); no input is repeated; every input is a witness of some jump.
``jumps``
    Each jump ``(x, y, z)`` has ``t = ⟨x,y⟩ < u = ⟨x,z⟩ ≤ ⟨x,x⟩``; its witnesses are
    exactly ``(x, y^{n−1})``, ``(x, z^{n−1})``, ``(x, y, z^{n−2})`` at query position 0
    with targets ``t, u, t``; its factor is ``μ = (n−2)(u−t−2ε)/(2ε) ≥ 1`` (weight
    domination, A.2; docs/math.md §3). No jump is repeated; every jump is used by a chain.
``chains``
    Exactly one chain per ordered word pair ``(S, U)``, ``S ≠ U``, running from key
    ``x_{S^c}`` to key ``x_{U^c}`` under query ``x_S``, each jump starting where the
    previous one ended; its factor is the product of its jump factors (A.2; docs/math.md §4).
``arithmetic``
    ``Σ F⁻²``, ``t + Σ F⁻²``, ``t² / (t + Σ F⁻²)`` and the integer bound
    ``⌊t² / (t + Σ F⁻²)⌋ + 1`` (trace–Frobenius, A.2; docs/math.md §5). With the optional
    ``argument`` (``shifted``: ``C − sJ``; ``square``: ``C∘C + bC + gJ``; docs/math.md §5,
    "Sharper arguments"), its parameters were range-checked at ``format`` and its stated
    bound on ``‖M‖_F²``, ratio and rank bound are recomputed from the same chain factors.
``claim``
    The claimed rank is at most the bound the data prove: the larger of trace–Frobenius
    and the argument's; a rejection names the argument.

**Version 2 (compact)** files carry the code and a chain plan instead of the family
(section "compact certificates" below): ``format`` and ``limits`` (words, generation
work), ``integrity``, ``code`` (distinct words, any weights), ``chains``/``jumps`` per
plan entry (gaps sum to the distance, every ``μ ≥ 1``, stated factor = product), then,
query by query, the checker generates every key and jump (a word inside another:
``code``; a distance without a plan entry: ``chains``) and counts them; ``plan`` (true
pair counts, no unused entry), ``family`` (stated sizes = generated), ``arithmetic``,
``claim``.

A second kind, ``"format": "certify.unique-minimizer-certificate"`` (A.4; its own
section at the end of this file, reached by a dispatch on ``format`` in :func:`check`),
runs the same steps with four typed witnesses per jump and the effective kernel
``K = α(q,k₀) + 2α(q,k₁)``; see :func:`check_unique_minimizer`.

Exit codes: 0 verified, 1 rejected (the message names the failing step and item),
2 unreadable or malformed (one line), 3 internal contradiction (a bug in this
checker). Certificates are arbitrary input: nothing in them is trusted.
"""
from __future__ import annotations

if __name__ == "__main__":  # the lone script: a signal while it starts is 130 / 143 with one line too
    import os as _os
    import signal as _signal

    def _starting(signum, frame):  # nothing is written yet: leave at once (guard_process takes over later)
        _os.write(2, b"check.py: interrupted (SIGINT)\n" if signum == _signal.SIGINT else b"check.py: terminated (SIGTERM)\n")
        _os._exit(130 if signum == _signal.SIGINT else 143)

    _starting.certify_starting = True
    _signal.signal(_signal.SIGINT, _starting)
    _signal.signal(_signal.SIGTERM, _starting)

import hashlib
import json
import math
import os
import re
import sys
import time
from collections import Counter
from fractions import Fraction
from typing import Any, NoReturn

__all__ = ["FORMAT", "VERSION", "COMPACT_VERSION", "KEY_RULE", "compact_work", "EXIT_VERIFIED", "EXIT_REJECTED",
           "EXIT_MALFORMED", "EXIT_INTERNAL", "EXIT_SIGINT", "EXIT_SIGPIPE", "EXIT_SIGTERM", "guard_process",
           "CertificateError", "CertificateFormatError", "CertificateLimitError", "CertificateRejected",
           "InternalContradiction", "Verified", "canonical_bytes", "content_hash", "format_rational", "show_number",
           "parse_rational", "load", "loads", "check", "check_file", "UM_FORMAT", "UM_VERSION", "UM_INPUTS",
           "check_unique_minimizer", "UniqueMinimizerVerified", "exact_text", "safe_output_streams", "script_args", "run",
           "main", "Progress"]

FORMAT = "certify.rank-certificate"
VERSION = 1
COMPACT_VERSION = 2  # code + chain plan; the checker generates the family (section "compact certificates")

EXIT_VERIFIED, EXIT_REJECTED, EXIT_MALFORMED, EXIT_INTERNAL = 0, 1, 2, 3
#: Process faults, as Unix shells report signals (128 + signal number): Ctrl-C, a closed pipe, kill.
EXIT_SIGINT, EXIT_SIGPIPE, EXIT_SIGTERM = 130, 141, 143

# Limits (docs/certificate-format.md, "Limits"): every one is checked before the work it bounds.
MAX_FILE_BYTES = 64 * 2**20  # larger families belong in a compact (plan-based) certificate
MAX_PARSE_MEMORY = 512 * 2**20  # upper estimate of the parsed JSON tree, checked before parsing
MAX_INT = 2**53 - 1  # every JSON reader holds these exactly
MAX_RATIONAL_CHARS = 200
MAX_TOKEN_BITS = 4096
MAX_LIST = 10**7
MAX_NUMBER_BITS = 2**15  # numerator/denominator of any derived number (chain products, Σ F⁻²)
MAX_COMPACT_WORDS = 16_384  # compact certificates: t ≤ this, and the generation work below
MAX_COMPACT_WORK = 4 * 10**8  # compact_work(t, k, m): keys the compact checker generates, in 64-bit words
MAX_COMPACT_QUERY = 2**20  # (t−1)·(longest chain + 1): keys and jumps held at once for one query
MAX_ARGUMENT_FACTORS = MAX_TOKEN_BITS  # distinct chain factors an "argument" sums over (a plan: one per distance ≤ m)
MODEL = "one-head-normalized-nonnegative-kernel-attention"

Token = int  # bit k = coordinate k (docs/math.md §1)

_RATIONAL = re.compile(r"-?(0|[1-9][0-9]*)(/[1-9][0-9]*)?\Z")


class CertificateError(Exception):
    """Base class: a certificate could not be verified. ``step`` names the failing step."""

    exit_code = EXIT_REJECTED

    def __init__(self, step: str, message: str) -> None:
        super().__init__(f"{step}: {message}")
        self.step = step


class CertificateFormatError(CertificateError):
    """The file is unreadable or not a well-formed version-1 certificate (exit 2)."""

    exit_code = EXIT_MALFORMED


class CertificateLimitError(CertificateFormatError):
    """The file exceeds a documented resource limit of this checker (exit 2, step ``limits``)."""

    def __init__(self, message: str) -> None:
        super().__init__("limits", message)


class CertificateRejected(CertificateError):
    """The file is well formed but its data do not prove its claim (exit 1)."""

    exit_code = EXIT_REJECTED


class InternalContradiction(CertificateError):
    """Two things this checker derived disagree: a bug here, never the file's fault (exit 3)."""

    exit_code = EXIT_INTERNAL


class Verified:
    """The result of a successful check: the claim as parsed and what the data prove."""

    def __init__(self, claim: dict[str, Any], proved: int, ratio: Fraction, counts: dict[str, int],
                 argument: dict[str, Any] | None = None):
        self.claim = claim
        self.rank_at_least = claim["rank_at_least"]
        self.proved = proved  # the larger of the trace–Frobenius bound and the argument's
        self.ratio = ratio  # t² / (t + Σ F⁻²)
        self.counts = counts
        self.trace_frobenius = ratio.numerator // ratio.denominator + 1
        self.argument = argument  # None, or the sharper argument with its recomputed numbers

    def _data_line(self, kernel: bool = False) -> str:
        def implies(r: int) -> str:
            return f"⇒ rank K ≥ {r} ⇒ r ≥ {r}" if kernel else f"⇒ r ≥ {r}"

        text = f"t² / (t + Σ F⁻²) = {show_number(self.ratio)} {implies(self.trace_frobenius)}"
        if self.argument is not None:
            a = self.argument
            text += f"; {argument_label(a)}: ratio {show_number(a['ratio'])} {implies(a['rank_at_least'])}"
        return text

    def argument_json(self) -> dict[str, Any] | None:
        """The argument as JSON (rationals as strings), or ``None`` for trace–Frobenius alone."""
        if self.argument is None:
            return None
        return {k: (v if isinstance(v, (int, str)) else [exact_text(x) for x in v] if isinstance(v, tuple)
                    else exact_text(v)) for k, v in self.argument.items()}

    def summary(self) -> str:
        """One paragraph a person can read."""
        c = self.claim
        text = (
            f"VERIFIED: r ≥ {c['rank_at_least']}. Every normalized nonnegative kernel-attention "
            f"head (one head, tokenwise values, query-dependent affine readout) on {c['m']}-bit "
            f"tokens with error < {c['error_below']} on all {self.counts['inputs']:,} inputs of "
            f"exact length {c['length']} in this family has feature rank r ≥ {c['rank_at_least']}."
        )
        text += (
            f"\n  data: {self.counts['words']:,} codewords, {self.counts['chains']:,} chains, "
            f"{self.counts['jumps']:,} jumps; {self._data_line()}"
        )
        if self.proved > c["rank_at_least"]:
            text += " (the claim is weaker than what the data prove)"
        return text


# --------------------------------------------------------------------------- progress


class Progress:
    """Progress of long work, on stderr: silent for ``delay`` seconds, then one line per ``interval``.

    Quick runs print nothing, so short commands and tests keep clean output; a run that
    takes longer says what it is doing and how far it got. On a terminal the line is
    redrawn in place; otherwise (a log, a pipe) a new line is written at most every
    ``interval`` seconds. ``CERTIFY_PROGRESS=0`` silences it, ``=1`` shows it at once.
    The rest of ``certify`` uses this class too (it needs only the standard library).

    >>> p = Progress("checking jumps", total=10, stream=None)
    >>> p.update(5); p.close()
    """

    def __init__(self, label: str, total: int | None = None, stream: Any = "stderr",
                 delay: float = 2.0, interval: float = 1.0, eta: bool = False) -> None:
        mode = os.environ.get("CERTIFY_PROGRESS", "")
        self.eta = eta  # append the time left, at the rate so far (units of equal cost: fit's steps)
        self.stream = sys.stderr if stream == "stderr" else stream
        if mode == "0":
            self.stream = None
        self.label, self.total = label, total
        self.start = time.monotonic()
        self.next = self.start + (0.0 if mode == "1" else delay)
        self.interval = interval
        self.tty = bool(self.stream is not None and getattr(self.stream, "isatty", lambda: False)())
        self.shown = False

    def update(self, done: int | None, note: str = "") -> None:
        """Report ``done`` units of work, or only ``note`` if ``done`` is ``None`` (cheap to call often: it only looks at the clock)."""
        if self.stream is None:
            return
        now = time.monotonic()
        if now < self.next:
            return
        self.next = now + (self.interval if self.tty else max(self.interval, 5.0))
        of = f"/{self.total:,}" if self.total else ""
        pct = f" ({100 * done // self.total}%)" if self.total and done is not None else ""
        count = "" if done is None else f"{done:,}{of}{pct}"
        left = ""
        if self.eta and self.total and done:
            rest = (now - self.start) * (self.total - done) / done
            left = f", about {rest:.0f} s left" if rest < 120 else f", about {rest / 60:.0f} min left"
        text = f"{self.label}: {count}{' ' if count and note else ''}{note}  [{now - self.start:.0f} s{left}]"
        self._write(("\r" + text + "\x1b[K") if self.tty else text + "\n")
        self.shown = True

    def close(self) -> None:
        """End the progress line (a newline on a terminal, if anything was shown)."""
        if self.stream is not None and self.shown and self.tty:
            self._write("\n")
        self.shown = False

    def _write(self, text: str) -> None:
        try:
            self.stream.write(text)
            self.stream.flush()
        except (OSError, ValueError, UnicodeError):  # a closed or odd stream never stops the work
            self.stream = None


# --------------------------------------------------------------------------- numbers


def format_rational(q: Fraction | int) -> str:
    """Canonical text of a rational: ``"p/q"`` in lowest terms, ``"p"`` when ``q = 1``."""
    q = Fraction(q)
    return str(q.numerator) if q.denominator == 1 else f"{q.numerator}/{q.denominator}"


def show_number(q: Fraction | int, limit: int = 60) -> str:
    """A number for a message: exact when short, else its size (never a 4,300-digit string).

    >>> show_number(Fraction(7, 2)), show_number(3**200)
    ('7/2', 'an integer of 96 digits')
    """
    q = Fraction(q)
    bits = max(q.numerator.bit_length(), q.denominator.bit_length())
    if bits <= 3.32 * limit:
        text = format_rational(q)
        if len(text) <= limit:
            return text
    num, den = _digits(q.numerator), _digits(q.denominator)
    return f"an integer of {num:,} digits" if q.denominator == 1 else f"a rational of {num:,}/{den:,} digits"


def _digits(n: int) -> int:
    """Decimal digits of ``|n|`` from its bit length (exact, without converting it to text)."""
    n = abs(n)
    d = max(1, int(n.bit_length() * 0.30102999566398120))
    while n >= 10**d:
        d += 1
    while d > 1 and n < 10 ** (d - 1):
        d -= 1
    return d


def parse_rational(text: Any, where: str) -> Fraction:
    """Parse a canonical rational string; anything else is a format error naming ``where``."""
    if not isinstance(text, str):
        _malformed(where, f"expected a rational as a string \"p/q\", got {_kind(text)}")
    if len(text) > MAX_RATIONAL_CHARS:
        _malformed(where, f"rational has {len(text)} characters; at most {MAX_RATIONAL_CHARS} allowed")
    if not _RATIONAL.match(text):
        _malformed(where, f"{text!r} is not a rational \"p\" or \"p/q\" with q ≥ 1")
    value = Fraction(text)
    if format_rational(value) != text:
        _malformed(where, f"{text!r} is not in lowest terms (write {format_rational(value)!r})")
    return value


# --------------------------------------------------------------------------- reading


def _malformed(where: str, message: str) -> NoReturn:
    raise CertificateFormatError("format", f"{where}: {message}")


def _kind(v: Any) -> str:
    if isinstance(v, bool):
        return f"a boolean ({json.dumps(v)})"
    if isinstance(v, (int, str)):
        return f"{type(v).__name__} {v!r}"[:80]
    return {dict: "an object", list: "an array", type(None): "null"}.get(type(v), type(v).__name__)


def _reject_float(text: str) -> NoReturn:
    raise CertificateFormatError(
        "format", f"number {text[:40]} is not an integer; write rationals as strings \"p/q\""
    )


def _reject_constant(text: str) -> NoReturn:
    raise CertificateFormatError("format", f"{text} is not a JSON number")


def _parse_int(text: str) -> int:
    # The JSON grammar already forbids "+1", "01" and "1e3" as integers; "-0" and other
    # negative spellings are refused here, so each integer has exactly one spelling.
    if text.startswith("-"):
        raise CertificateFormatError(
            "format", f"integer {text[:40]} is negative; every integer in a certificate is ≥ 0, written without a sign"
        )
    v = int(text) if len(text) <= 16 else MAX_INT + 1
    if v > MAX_INT:
        raise CertificateFormatError(
            "format", f"integer {text[:40]}{'…' if len(text) > 40 else ''} exceeds 2^53 − 1"
        )
    return v


def _no_duplicate_keys(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for k, v in pairs:
        if k in out:
            raise CertificateFormatError("format", f"key {k[:80]!r} appears twice in one object")
        out[k] = v
    return out


def parse_memory_estimate(data: bytes) -> int:
    """An upper estimate, in bytes, of the memory Python's ``json`` needs to parse ``data``.

    Linear and cheap (four byte counts): at most 200 bytes per object, 100 per array and
    64 per value separator, plus twice the text (the decoded string and the strings'
    contents), four times when non-ASCII characters widen Python's string storage. It
    bounds the memory measured for every kind of JSON element (docs/certificate-format.md,
    "Limits"), so a file of a few megabytes of ``[]`` cannot make the parser use gigabytes.
    """
    width = 2 if data.isascii() else 5
    return (200 * data.count(b"{") + 100 * data.count(b"[")
            + 64 * (data.count(b",") + data.count(b":")) + width * len(data))


_ESCAPE = re.compile(rb'\\(?:u([0-9a-fA-F]{4})|(.))', re.S)


def _needless_escape(raw: bytes) -> str | None:
    """The first escape that spells a printable ASCII character (``\\u0031``, ``\\/``), if any.

    JSON needs escapes only for ``"``, ``\\`` and control characters; a non-ASCII
    character may be written literally or as ``\\uXXXX`` (both standard outputs of JSON
    writers, and only free text such as ``producer.note`` has any). Every other escape
    is a second spelling of a token, number or key, and is refused.
    """
    for mo in _ESCAPE.finditer(raw):
        if mo.group(1) is not None:
            code = int(mo.group(1), 16)
            if 0x20 <= code < 0x7F:
                return mo.group(0).decode("ascii")
        elif mo.group(2) == b"/":
            return "\\/"
    return None


def loads(data: bytes | str) -> dict[str, Any]:
    """Parse certificate JSON strictly, with the memory bound checked first.

    Refused: floats, exponents, NaN/Infinity, negative or huge integers, repeated keys,
    escapes of printable ASCII characters (``"\\u0031"`` for ``"1"``), and text
    whose parse would need more than ``MAX_PARSE_MEMORY`` bytes.
    """
    raw = data.encode("utf-8") if isinstance(data, str) else data
    estimate = parse_memory_estimate(raw)
    if estimate > MAX_PARSE_MEMORY:
        raise CertificateLimitError(
            f"parsing this JSON would need about {estimate / 2**20:,.0f} MiB "
            f"(more than {MAX_PARSE_MEMORY // 2**20} MiB); larger families belong in a compact certificate")
    if isinstance(data, bytes):
        try:
            data = data.decode("utf-8")
        except UnicodeDecodeError as exc:
            raise CertificateFormatError("format", f"not UTF-8 text (byte {exc.start})") from None
    try:
        doc = json.loads(
            data,
            parse_float=_reject_float,
            parse_int=_parse_int,
            parse_constant=_reject_constant,
            object_pairs_hook=_no_duplicate_keys,
        )
    except json.JSONDecodeError as exc:
        what = "truncated JSON" if exc.pos >= len(data.rstrip()) else "invalid or truncated JSON"
        raise CertificateFormatError("format", f"{what}: {exc.msg} (line {exc.lineno}, column {exc.colno})") from None
    except RecursionError:
        raise CertificateFormatError("format", "JSON nested too deeply") from None
    if not isinstance(doc, dict):
        _malformed("document", f"expected a JSON object, got {_kind(doc)}")
    if b"\\" in raw:
        needless = _needless_escape(raw)
        if needless is not None:
            _malformed("document", f"escape sequence {needless} spells a printable ASCII character; tokens, "
                       "numbers and keys are written literally (one spelling per value)")
    return doc


def read_bounded(path: str, limit: int, too_large: str) -> bytes:
    """The bytes of ``path``, at most ``limit`` read (``too_large``, a ``limits`` error, if there are more): the
    sibling checkers' reading, step ``file`` for a missing, unreadable or empty file (exit 2)."""
    try:
        with open(path, "rb") as fh:
            data = fh.read(limit + 1)
    except FileNotFoundError:
        raise CertificateFormatError("file", "no such file") from None
    except IsADirectoryError:
        raise CertificateFormatError("file", "is a directory") from None
    except OSError as exc:
        raise CertificateFormatError("file", f"cannot read ({exc.strerror or type(exc).__name__})") from None
    if len(data) > limit:
        raise CertificateLimitError(too_large)
    if not data.strip():
        raise CertificateFormatError("file", "empty (no JSON in it)")
    return data


def load(path: str) -> dict[str, Any]:
    """Read and parse a certificate file (format errors for unreadable or oversized files)."""
    try:
        with open(path, "rb") as fh:
            data = fh.read(MAX_FILE_BYTES + 1)
    except FileNotFoundError:
        raise CertificateFormatError("format", f"{path}: no such file") from None
    except IsADirectoryError:
        raise CertificateFormatError("format", f"{path}: is a directory") from None
    except OSError as exc:
        raise CertificateFormatError("format", f"{path}: cannot read ({exc.strerror})") from None
    if len(data) > MAX_FILE_BYTES:
        raise CertificateLimitError(f"{path}: file larger than {MAX_FILE_BYTES // 2**20} MiB; "
                                    "larger families belong in a compact certificate")
    if not data.strip():
        _malformed(path, "file is empty")
    return loads(data)


# --------------------------------------------------------------------------- shape


def _obj(v: Any, where: str, required: tuple[str, ...], optional: tuple[str, ...] = ()) -> dict:
    if not isinstance(v, dict):
        _malformed(where, f"expected an object, got {_kind(v)}")
    for key in v:
        if key not in required and key not in optional:
            _malformed(where, f"unknown key {key[:40]!r}{'…' if len(key) > 40 else ''}")
    for key in required:
        if key not in v:
            _malformed(where, f"missing required key {key!r}")
    return v


def _int(v: Any, where: str, lo: int = 0, hi: int = MAX_INT) -> int:
    if isinstance(v, bool) or not isinstance(v, int):
        _malformed(where, f"expected an integer, got {_kind(v)}")
    if not lo <= v <= hi:
        _malformed(where, f"{v} is out of range [{lo}, {hi}]")
    return v


def _str(v: Any, where: str, max_len: int = 1000) -> str:
    if not isinstance(v, str):
        _malformed(where, f"expected a string, got {_kind(v)}")
    if len(v) > max_len:
        _malformed(where, f"string longer than {max_len} characters")
    return v


def _list(v: Any, where: str, min_len: int = 0, max_len: int = MAX_LIST) -> list:
    if not isinstance(v, list):
        _malformed(where, f"expected an array, got {_kind(v)}")
    if not min_len <= len(v) <= max_len:
        _malformed(where, f"array of {len(v)} items; expected between {min_len} and {max_len}")
    return v


def _token(v: Any, where: str, m: int) -> Token:
    if not isinstance(v, str):
        _malformed(where, f"expected a 0/1 string of length {m}, got {_kind(v)}")
    if len(v) != m:
        _malformed(where, f"token has length {len(v)}, expected m = {m}")
    bad = v.strip("01")
    if bad:
        k = next(i for i, ch in enumerate(v) if ch not in "01")
        _malformed(where, f"character {k} is {v[k]!r}; tokens use only '0' and '1'")
    return int(v[::-1], 2) if m else 0


def _index(v: Any, where: str, size: int, what: str) -> int:
    i = _int(v, where)
    if i >= size:
        _malformed(where, f"index {i} is out of range: there are {size} {what}")
    return i


def _parse_head(doc: dict[str, Any], keys: tuple[str, ...], fmt: str, versions: tuple[int, ...], read: str,
                claim_keys: tuple[str, ...] = ()) -> tuple[dict, int, int, Fraction]:
    """The parts every kind shares (step ``format``): document keys, format, version, hash, producer, claim.

    Returns ``(claim, m, n, ε)``; kind-specific claim keys (``claim_keys``) are left to the caller.
    """
    _obj(doc, "document", keys + ("format", "version", "claim", "arithmetic", "sha256"), ("producer", "argument"))
    if doc["format"] != fmt:
        _malformed("format", f"expected {fmt!r}, got {_kind(doc['format'])}")
    if doc["version"] not in versions or isinstance(doc["version"], bool):
        _malformed("version", f"this checker reads {read}, got {_kind(doc['version'])}")
    _str(doc["sha256"], "sha256", 64)
    if not re.fullmatch(r"[0-9a-f]{64}", doc["sha256"]):
        _malformed("sha256", "expected 64 lowercase hexadecimal digits")
    if "producer" in doc:
        for key, value in _obj(doc["producer"], "producer", (), ("tool", "code", "chains", "note")).items():
            _str(value, f"producer.{key}")
    claim = _obj(doc["claim"], "claim", ("model", "m", "length", "error_below", "rank_at_least") + claim_keys)
    if claim["model"] != MODEL:
        _malformed("claim.model", f"expected {MODEL!r}, got {_kind(claim['model'])}")
    m = _int(claim["m"], "claim.m", 1, MAX_TOKEN_BITS)
    n = _int(claim["length"], "claim.length", 3, 10**6)
    eps = parse_rational(claim["error_below"], "claim.error_below")
    if eps <= 0:
        _malformed("claim.error_below", f"must be positive, got {claim['error_below']}")
    _int(claim["rank_at_least"], "claim.rank_at_least", 1)
    return claim, m, n, eps


def _parse_arithmetic(doc: dict[str, Any]) -> dict[str, Any]:
    ar = _obj(doc["arithmetic"], "arithmetic", ("t", "sum_inverse_squares", "frobenius_squared_below", "ratio", "rank_at_least"))
    out = {name: (_int(ar[name], f"arithmetic.{name}") if name in ("t", "rank_at_least")
                  else parse_rational(ar[name], f"arithmetic.{name}")) for name in ar}
    out["argument"] = _parse_argument(doc)
    return out


ARGUMENTS = ("trace-frobenius", "shifted", "square", "null-shifted", "square-kernel")  # docs/math.md §5
_ARGUMENT_PARAMETERS = {"trace-frobenius": (), "shifted": ("s",), "square": ("b", "g"), "null-shifted": ("s",),
                        "square-kernel": ("b", "g", "mu")}
_ARGUMENT_STATED = ("frobenius_squared_at_most", "ratio", "rank_at_least")
MAX_KERNEL_TERMS = 8  # square-kernel: μ_1 … μ_8 (the kernel Σ μ_j Y^{∘j} has degree at most 8)


def _parse_argument(doc: dict[str, Any]) -> dict[str, Any] | None:
    """Step ``format`` for the optional ``argument``: its name, parameters in range, the stated numbers.

    ``trace-frobenius`` (the default, also when absent) has no other key; ``shifted`` has
    ``s`` with ``0 ≤ s < 1`` (the diagonal ``1 − s`` of ``C − sJ`` is then positive);
    ``square`` has ``b``, ``g`` with ``1 + b + g ≠ 0`` (the diagonal of ``C∘C + bC + gJ``).
    ``null-shifted`` has ``s``; ``square-kernel`` has ``b``, ``g`` and the list ``mu`` of at most
    ``MAX_KERNEL_TERMS`` rationals. Their hypotheses (``0 ≤ s < 1``; every ``μ_j ≥ 0`` and
    ``1 + b + g > m₀``) are the theorems' and are checked at step ``arithmetic``.
    Returns ``None`` for trace–Frobenius.
    """
    if "argument" not in doc:
        return None
    a = doc["argument"]
    if not isinstance(a, dict):
        _malformed("argument", f"expected an object, got {_kind(a)}")
    if "name" not in a:
        _malformed("argument", "missing required key 'name'")
    name = a["name"]
    if name not in ARGUMENTS:
        _malformed("argument.name", f"expected one of {', '.join(map(repr, ARGUMENTS))}, got {_kind(name)}")
    params = _ARGUMENT_PARAMETERS[name]
    if name == "trace-frobenius":
        _obj(a, "argument", ("name",))
        return None
    _obj(a, "argument", ("name",) + params + _ARGUMENT_STATED)
    out: dict[str, Any] = {"name": name}
    for key in params:
        if key == "mu":
            out[key] = tuple(parse_rational(v, f"argument.mu[{j}]")
                             for j, v in enumerate(_list(a["mu"], "argument.mu", 0, MAX_KERNEL_TERMS)))
            if out[key] and out[key][-1] == 0:  # one spelling per kernel: [μ₁] and [μ₁, 0] are the same
                _malformed(f"argument.mu[{len(out[key]) - 1}]", "the last coefficient is 0; leave it out")
        else:
            out[key] = parse_rational(a[key], f"argument.{key}")
    if name == "shifted" and not 0 <= out["s"] < 1:
        _malformed("argument.s", f"must satisfy 0 ≤ s < 1, got {a['s']}")
    if name == "square" and 1 + out["b"] + out["g"] == 0:
        _malformed("argument.g", f"1 + b + g = 0 (b = {a['b']}, g = {a['g']}): the diagonal of C∘C + bC + gJ would be 0 "
                   "(the argument needs 1 + b + g ≠ 0)")
    out["frobenius_squared_at_most"] = parse_rational(a["frobenius_squared_at_most"], "argument.frobenius_squared_at_most")
    out["ratio"] = parse_rational(a["ratio"], "argument.ratio")
    out["rank_at_least"] = _int(a["rank_at_least"], "argument.rank_at_least")
    return out


def argument_label(arg: dict[str, Any] | None) -> str:
    """``"shifted (s = 1/8)"``, ``"square (b = −1/3, g = 1/80)"``, ``"trace–Frobenius"`` (for messages)."""
    if arg is None:
        return "trace–Frobenius"
    params = ", ".join(f"{k} = {show_number(arg[k])}" if k != "mu" else
                       f"μ = [{', '.join(show_number(v) for v in arg[k])}]" for k in _ARGUMENT_PARAMETERS[arg["name"]])
    return f"{arg['name']} ({params})"


def _parse_listed(doc: dict[str, Any], m: int, M: int, n_witnesses: int, length_note: str = "") -> dict[str, Any]:
    """Code, family, jumps and chains as the file lists them (versions 1 and the unique-minimizer kind).

    Family tokens have ``m`` bits; code words and jump tokens ``M`` (``M = m`` for rank
    certificates); each jump names ``n_witnesses`` inputs.
    """
    code = _obj(doc["code"], "code", ("length", "weight", "min_directed_distance", "words"))
    if _int(code["length"], "code.length", 1, MAX_TOKEN_BITS) != M:
        _malformed("code.length", f"{code['length']} differs from claim.m{length_note} = {M}"
                   + (" (two type bits precede each word)" if length_note else ""))
    _int(code["weight"], "code.weight", 0, M)
    _int(code["min_directed_distance"], "code.min_directed_distance", 0, M)
    words = [_token(w, f"code.words[{i}]", M) for i, w in enumerate(_list(code["words"], "code.words", 1))]

    inputs = []
    for i, x in enumerate(_list(_obj(doc["family"], "family", ("inputs",))["inputs"], "family.inputs", 1)):
        where = f"family.inputs[{i}]"
        _obj(x, where, ("tokens", "query", "target"))
        toks = tuple(_token(s, f"{where}.tokens[{k}]", m) for k, s in enumerate(_list(x["tokens"], f"{where}.tokens", 1, 10**6)))
        q = _int(x["query"], f"{where}.query")
        if q >= len(toks):
            _malformed(f"{where}.query", f"position {q} is out of range for {len(toks)} tokens (positions are 0-based)")
        inputs.append((toks, q, _int(x["target"], f"{where}.target", 0, m)))

    jumps = []
    for j, jp in enumerate(_list(doc["jumps"], "jumps", 1)):
        where = f"jumps[{j}]"
        _obj(jp, where, ("x", "y", "z", "overlaps", "factor", "witnesses"))
        x, y, z = (_token(jp[k], f"{where}.{k}", M) for k in "xyz")
        ov = tuple(_int(v, f"{where}.overlaps[{k}]", 0, M) for k, v in enumerate(_list(jp["overlaps"], f"{where}.overlaps", 2, 2)))
        wit = tuple(_index(v, f"{where}.witnesses[{k}]", len(inputs), "inputs")
                    for k, v in enumerate(_list(jp["witnesses"], f"{where}.witnesses", n_witnesses, n_witnesses)))
        jumps.append((x, y, z, ov, parse_rational(jp["factor"], f"{where}.factor"), wit))

    chains = []
    for c, ch in enumerate(_list(doc["chains"], "chains", 1)):
        where = f"chains[{c}]"
        _obj(ch, where, ("pair", "jumps", "factor"))
        pair = tuple(_index(v, f"{where}.pair[{k}]", len(words), "codewords") for k, v in enumerate(_list(ch["pair"], f"{where}.pair", 2, 2)))
        ids = tuple(_index(v, f"{where}.jumps[{k}]", len(jumps), "jumps") for k, v in enumerate(_list(ch["jumps"], f"{where}.jumps", 1)))
        chains.append((pair, ids, parse_rational(ch["factor"], f"{where}.factor")))
    return {"M": M, "code": code, "words": words, "inputs": inputs, "jumps": jumps, "chains": chains,
            "arithmetic": _parse_arithmetic(doc)}


# --------------------------------------------------------------------------- integrity


def canonical_bytes(doc: dict[str, Any]) -> bytes:
    """Canonical JSON of ``doc`` without its ``sha256`` key: sorted keys, no spaces, ASCII."""
    body = {k: v for k, v in doc.items() if k != "sha256"}
    return json.dumps(body, sort_keys=True, separators=(",", ":"), ensure_ascii=True).encode("ascii")


def content_hash(doc: dict[str, Any]) -> str:
    """SHA-256 (hex) of ``canonical_bytes(doc)``."""
    return hashlib.sha256(canonical_bytes(doc)).hexdigest()


# --------------------------------------------------------------------------- mathematics


def _reject(step: str, message: str) -> NoReturn:
    raise CertificateRejected(step, message)


def _bits(x: Token, m: int) -> str:
    return format(x, f"0{m}b")[::-1]


def _ov(x: Token, z: Token) -> int:
    """Overlap ``⟨x,z⟩ = popcount(x & z)`` (docs/math.md §1)."""
    return (x & z).bit_count()


def _mu(n: int, gap: int, eps: Fraction) -> Fraction:
    """Weight-domination factor ``μ_d = (n−2)(d−2ε)/(2ε)`` (A.2; docs/math.md §3)."""
    return Fraction(n - 2) * (gap - 2 * eps) / (2 * eps)


def _chain_product(factors: list[tuple[int, int]], where: str) -> tuple[int, int]:
    """``Π factors`` (``(numerator, denominator)`` pairs of ints), unreduced, refusing sizes over ``MAX_NUMBER_BITS``.

    No gcd per step: multiplying by the small jump factors stays linear in the product's
    size, and the comparison with the stated factor is one cross-multiplication. A factor
    1 (μ = 1, gap 2 at n = 3) changes nothing and costs a comparison: a plan may list
    millions of them.
    """
    num, den = 1, 1
    nb = db = 1
    for a, b in factors:
        if a == 1 and b == 1 and nb < MAX_NUMBER_BITS and db < MAX_NUMBER_BITS:
            continue  # the size test below would pass and the product is unchanged
        if nb + a.bit_length() > MAX_NUMBER_BITS or db + b.bit_length() > MAX_NUMBER_BITS:
            raise CertificateLimitError(f"{where}: the product of its jump factors exceeds {MAX_NUMBER_BITS:,} bits")
        num *= a
        den *= b
        nb, db = num.bit_length(), den.bit_length()
    return num, den


def _sum_inverse_squares(factors: dict[Fraction, int]) -> Fraction:
    """``Σ F⁻²`` over chain factors given with multiplicities, refusing sizes over ``MAX_NUMBER_BITS``."""
    total = Fraction(0)
    for f, count in factors.items():
        total += Fraction(count * f.denominator**2, f.numerator**2)
        if max(total.numerator.bit_length(), total.denominator.bit_length()) > MAX_NUMBER_BITS:
            raise CertificateLimitError(f"Σ F⁻² exceeds {MAX_NUMBER_BITS:,} bits (numerator or denominator)")
    return total


def _check_integrity(doc: dict[str, Any]) -> None:
    if doc["sha256"] != content_hash(doc):
        _reject("integrity", f"sha256 {doc['sha256'][:16]}… does not match the content ({content_hash(doc)[:16]}…)")


def _check_words(words: list[Token]) -> int:
    """Step ``code``: ``t ≥ 2`` distinct words; return ``t``."""
    t = len(words)
    if t < 2:
        _reject("code", "the trace–Frobenius bound needs at least two codewords")
    first: dict[Token, int] = {}
    for i, x in enumerate(words):
        if x in first:
            _reject("code", f"words[{i}] repeats words[{first[x]}]")
        first[x] = i
    return t


def _check_code(p: dict[str, Any]) -> int:
    """Step ``code`` for listed certificates: the chain count before any work quadratic in ``t``, weights, distance."""
    words, M = p["words"], p["M"]
    if len(words) >= 2 and len(p["chains"]) != len(words) * (len(words) - 1):
        t = len(words)
        _reject("chains", f"{len(p['chains']):,} chains for {t:,} codewords; one per ordered pair needs "
                f"t(t−1) = {t * (t - 1):,}")
    w = p["code"]["weight"]
    for i, x in enumerate(words):
        if x.bit_count() != w:
            _reject("code", f"words[{i}] has weight {x.bit_count()}, stated weight {w}")
    t = _check_words(words)
    full = (1 << M) - 1
    dmin = min(_ov(a, full ^ b) for i, a in enumerate(words) for j, b in enumerate(words) if i != j)
    if dmin != p["code"]["min_directed_distance"]:
        _reject("code", f"stated min_directed_distance {p['code']['min_directed_distance']}, actual {dmin}")
    return t


def _check_family(p: dict[str, Any], n: int, progress: Progress, extra=None) -> None:
    """Step ``family`` (docs/math.md §1): exact length ``n``, true targets, no repeats (``extra``: kind-specific)."""
    seen: dict[tuple, int] = {}
    for i, (toks, q, target) in enumerate(p["inputs"]):
        if len(toks) != n:
            _reject("family", f"inputs[{i}] has {len(toks)} tokens; the claim is about exact length {n}")
        overlaps = [_ov(toks[q], xj) for xj in toks]
        if target != min(overlaps):
            _reject("family", f"inputs[{i}] states target {target}; min_j ⟨x_{q}, x_j⟩ = {min(overlaps)}")
        if extra is not None:
            extra(i, toks, target, overlaps)
        if (toks, q) in seen:
            _reject("family", f"inputs[{i}] repeats inputs[{seen[(toks, q)]}]")
        seen[(toks, q)] = i
        progress.update(i + 1)


def _check_jumps(p: dict[str, Any], witnesses, factor_of, progress: Progress) -> None:
    """Step ``jumps``: overlaps, jump-ness, no repeats, the witnesses the lemma names, the factor it gives.

    ``witnesses(x, y, z, lo, hi)`` lists ``(name, tokens, target)`` of the kind's lemma;
    ``factor_of(j, gap)`` returns the factor (rejecting gaps that prove nothing).
    """
    used_inputs = [False] * len(p["inputs"])
    jump_seen: dict[tuple, int] = {}
    done = len(p["inputs"])
    for j, (x, y, z, ov, factor, wit) in enumerate(p["jumps"]):
        where = f"jumps[{j}]"
        lo, hi, self_ov = _ov(x, y), _ov(x, z), _ov(x, x)
        if ov != (lo, hi):
            _reject("jumps", f"{where} states overlaps {list(ov)}; actual [⟨x,y⟩, ⟨x,z⟩] = [{lo}, {hi}]")
        if not lo < hi <= self_ov:
            _reject("jumps", f"{where} is not a jump: need ⟨x,y⟩ = {lo} < ⟨x,z⟩ = {hi} ≤ ⟨x,x⟩ = {self_ov}")
        mu = factor_of(where, hi - lo)
        if (x, y, z) in jump_seen:
            _reject("jumps", f"{where} repeats jumps[{jump_seen[(x, y, z)]}]")
        jump_seen[(x, y, z)] = j
        for (name, toks, target), i in zip(witnesses(x, y, z, lo, hi), wit):
            got_toks, got_q, got_target = p["inputs"][i]
            if got_toks != toks or got_q != 0:
                shown = ", ".join(_bits(v, p["m"]) for v in got_toks[:4]) + (", …" if len(got_toks) > 4 else "")
                want = ", ".join(_bits(v, p["m"]) for v in toks[:4]) + (", …" if len(toks) > 4 else "")
                _reject("jumps", f"{where} witness {name} is family.inputs[{i}] = ({shown}; query {got_q}), "
                        f"expected ({want}; query 0)")
            if got_target != target:  # targets were recomputed in step family; the lemma needs these
                raise InternalContradiction("jumps", f"{where} witness {name} has target {got_target}, lemma says {target}")
            used_inputs[i] = True
        if factor != mu:
            _reject("jumps", f"{where} states factor {show_number(factor)}; {p['lemma']} {show_number(mu)}")
        progress.update(done + j + 1)
    for i, used in enumerate(used_inputs):
        if not used:
            _reject("family", f"inputs[{i}] is not a witness of any jump")


def _check_chains(p: dict[str, Any], progress: Progress) -> dict[tuple[Fraction, int], int]:
    """Step ``chains`` (A.2; docs/math.md §4): one per ordered pair, connected from ``x_{S^c}`` to
    ``x_{U^c}``, factor = product. Returns ``(chain factor, directed distance |S∖U|)`` → how many chains have it."""
    words, M, jumps = p["words"], p["M"], p["jumps"]
    t, full = len(words), (1 << M) - 1
    used_jumps = [False] * len(jumps)
    pairs: set[tuple[int, int]] = set()
    classes: dict[tuple[Fraction, int], int] = {}
    done = len(p["inputs"]) + len(jumps)
    for c, ((s, u), ids, factor) in enumerate(p["chains"]):
        where = f"chains[{c}] (pair {s}→{u})"
        if s == u:
            _reject("chains", f"{where}: a chain joins two different codewords")
        if (s, u) in pairs:
            _reject("chains", f"{where}: a second chain for the same ordered pair")
        key = full ^ words[s]
        for k, j in enumerate(ids):
            x, y, z = jumps[j][:3]
            if x != words[s]:
                _reject("chains", f"{where}: jumps[{j}] has query {_bits(x, M)}, not codeword {s}")
            if y != key:
                _reject("chains", f"{where}: jumps[{j}] starts at key {_bits(y, M)}, expected {_bits(key, M)}"
                        + (" (the complement of the codeword)" if k == 0 else " (where the previous jump ended)"))
            key = z
            used_jumps[j] = True
        if key != full ^ words[u]:
            _reject("chains", f"{where}: ends at key {_bits(key, M)}, expected the complement of codeword {u}")
        num, den = _chain_product([(jumps[j][4].numerator, jumps[j][4].denominator) for j in ids], where)
        if factor.numerator * den != factor.denominator * num:
            _reject("chains", f"{where}: states factor {show_number(factor)}; product of jump factors is "
                    f"{show_number(Fraction(num, den))}")
        pairs.add((s, u))
        cls = (factor, _ov(words[s], full ^ words[u]))
        classes[cls] = classes.get(cls, 0) + 1
        progress.update(done + c + 1)
    progress.close()
    # t(t−1) distinct ordered pairs s ≠ u among t words: every pair has its chain.
    if len(pairs) != t * (t - 1):
        raise InternalContradiction("chains", f"{len(pairs)} distinct pairs after the count check")
    for j, used in enumerate(used_jumps):
        if not used:
            _reject("jumps", f"jumps[{j}] is not used by any chain")
    return classes


def _bounded(total: Fraction, what: str) -> Fraction:
    if max(total.numerator.bit_length(), total.denominator.bit_length()) > MAX_NUMBER_BITS:
        raise CertificateLimitError(f"{what} exceeds {MAX_NUMBER_BITS:,} bits (numerator or denominator)")
    return total


def _argument_bound(t: int, classes: dict[tuple[Fraction, int], int], arg: dict[str, Any],
                    length: int | None) -> tuple[Fraction, Fraction, int]:
    """``(bound on ‖M‖_F², ratio, rank bound)`` of the sharper arguments (docs/math.md §5, "Sharper arguments").

    ``classes`` maps ``(F, d)`` — chain factor and directed distance of an ordered pair —
    to how many pairs have it. Every entry ``C_SU`` of ``C = diag(B)⁻¹B`` lies in
    ``[0, 1/F_SU)`` (the kernel is nonnegative), and ``C_SS = 1``. ``shifted``: ``M = C − sJ``
    has rank ``≤ rank C + 1``, ``M_SS = 1 − s`` and ``|M_SU| ≤ max(s, 1/F − s)``, so
    ``rank C ≥ ⌈ratio⌉ − 1`` with ``ratio = t²(1−s)² / (t(1−s)² + Σ max(s, 1/F − s)²)``.
    ``null-shifted``: the same ratio, and ``rank C ≥ min(t, ⌊ratio⌋ + 1)`` (Theorem A: the
    projector ``Π`` on ``ker C`` has ``tr(CΠ) = 0`` and ``s⟨J, Π⟩ ≥ 0``; needs ``0 ≤ s < 1``).
    ``square``: ``M = C∘C + bC + gJ`` has rank ``≤ binom(r+2, 2)`` when ``rank C = r``,
    ``M_SS = 1 + b + g`` and ``|M_SU| ≤ max |x² + bx + g|`` over ``x ∈ [0, 1/F]`` (at ``x = 0``,
    ``x = 1/F``, or the vertex ``x = −b/2`` if it lies between), so ``binom(r+2, 2) ≥ ⌈ratio⌉``;
    the bound is the least such ``r``. ``square-kernel``: the same ``M`` less the kernel
    ``K = Σ_j μ_j Y^{∘j}`` (Lemma N; ``Y`` the Gram matrix of the ±1 code words, so
    ``K_SU = Σ μ_j y^j`` with ``y = length − 4d`` for one weight, ``K_SS = m₀ = Σ μ_j length^j``):
    needs every ``μ_j ≥ 0`` (``K`` positive semidefinite) and ``1 + b + g > m₀``; diagonal
    ``1 + b + g − m₀``, entries ``|x² + bx + g − K_SU|`` at the same three points. ``length`` is
    ``None`` when the code has several weights (then ``y`` is not a function of ``d``).
    """
    label, name = argument_label(arg), arg["name"]
    if name == "square-kernel":
        if length is None:
            _reject("arithmetic", f"argument {label}: the code has words of several weights, so the Gram entry y of a "
                    "pair is not L − 4d (L the code's length) and the certificate does not count the pairs by y; "
                    "square-kernel needs one weight")
        groups: dict = dict(classes)
    else:
        groups = {}
        for (f, _), count in classes.items():
            groups[f] = groups.get(f, 0) + count
    if len(groups) > MAX_ARGUMENT_FACTORS:
        what = "(chain factor, distance) classes" if name == "square-kernel" else "distinct chain factors"
        raise CertificateLimitError(f"argument {label}: {len(groups):,} {what}; the sharper arguments take at most "
                                    f"{MAX_ARGUMENT_FACTORS:,} (a plan has one per distance)")
    if name in ("shifted", "null-shifted"):
        s = arg["s"]
        if not 0 <= s < 1:
            _reject("arithmetic", f"argument {label}: Theorem A needs 0 ≤ s < 1 (" + (
                "s⟨J, Π⟩ ≥ 0 only for s ≥ 0: sJ with s < 0 is not positive semidefinite)" if s < 0 else
                "the diagonal 1 − s must be positive)"))
        diag = 1 - s
        total = Fraction(t) * diag * diag
        for f, count in groups.items():
            e = max(s, 1 / f - s)
            total = _bounded(total + count * e * e, f"the {name} Frobenius bound")
    else:
        b, g, mu = arg["b"], arg["g"], arg.get("mu", ())
        for j, v in enumerate(mu, 1):
            if v < 0:
                _reject("arithmetic", f"argument {label}: μ_{j} = {show_number(v)} < 0, so Σ μ_j Y^{{∘j}} need not be "
                        "positive semidefinite (Lemma N subtracts only a positive semidefinite kernel)")
        m0 = sum((v * length ** j for j, v in enumerate(mu, 1)), Fraction(0))
        diag = 1 + b + g - m0
        if name == "square-kernel" and diag <= 0:
            _reject("arithmetic", f"argument {label}: 1 + b + g = {show_number(1 + b + g)} is not above the kernel's "
                    f"diagonal m₀ = Σ μ_j L^j = {show_number(m0)} (L = {length}, the code's length; Lemma N needs "
                    "m₀ < 1 + b + g)")
        total = Fraction(t) * diag * diag
        for key, count in groups.items():
            f, y = (key, 0) if name == "square" else (key[0], length - 4 * key[1])
            k = sum((v * y ** j for j, v in enumerate(mu, 1)), Fraction(0))
            x = 1 / f
            e = max(abs(g - k), abs(x * x + b * x + g - k))
            if 0 <= -b / 2 <= x:
                e = max(e, abs(g - b * b / 4 - k))
            total = _bounded(total + count * e * e, f"the {name} Frobenius bound")
    ratio = _bounded(Fraction(t * t) * diag * diag / total, "the argument's ratio")
    at_least = -(-ratio.numerator // ratio.denominator)  # rank M ≥ ⌈ratio⌉
    if name == "shifted":
        return total, ratio, at_least - 1
    if name == "null-shifted":
        return total, ratio, min(t, ratio.numerator // ratio.denominator + 1)
    r = max(0, math.isqrt(2 * at_least) - 2)
    while (r + 1) * (r + 2) // 2 < at_least:  # the least r with binom(r+2, 2) ≥ ⌈ratio⌉
        r += 1
    return total, ratio, r


_RULES = {"shifted": "⌈ratio⌉ − 1", "null-shifted": "min(t, ⌊ratio⌋ + 1)"}


def _conclude(t: int, classes: dict[tuple[Fraction, int], int], stated: dict[str, Any], claim: dict[str, Any],
              length: int | None = None) -> tuple[int, Fraction, dict | None]:
    """Steps ``arithmetic`` (trace–Frobenius, A.2; docs/math.md §5, and the stated ``argument``) and
    ``claim``: return ``(bound, ratio, argument)``; ``bound`` is the larger of the two proved bounds.

    ``classes``: ``(chain factor, directed distance)`` → ordered pairs; ``length``: the code's
    length when all its words have one weight, else ``None`` (see :func:`_argument_bound`).
    """
    factors: dict[Fraction, int] = {}
    for (f, _), count in classes.items():
        factors[f] = factors.get(f, 0) + count
    sigma = _sum_inverse_squares(factors)
    frob = t + sigma
    ratio = Fraction(t * t) / frob
    bound = ratio.numerator // ratio.denominator + 1
    for name, actual in (("t", t), ("sum_inverse_squares", sigma), ("frobenius_squared_below", frob), ("ratio", ratio), ("rank_at_least", bound)):
        if stated[name] != actual:
            _reject("arithmetic", f"states {name} = {show_number(stated[name])}; recomputed {show_number(actual)}")
    arg = stated["argument"]
    why = f"t² / (t + Σ F⁻²) = {show_number(ratio)}"
    if arg is None:
        if claim["rank_at_least"] > bound:
            _reject("claim", f"rank_at_least {claim['rank_at_least']} is not proved: the data give r ≥ {bound} ({why})")
        return bound, ratio, None
    label = argument_label(arg)
    total, arg_ratio, arg_bound = _argument_bound(t, classes, arg, length)
    for name, actual in zip(_ARGUMENT_STATED, (total, arg_ratio, arg_bound)):
        if arg[name] != actual:
            _reject("arithmetic", f"argument {label} states {name} = {show_number(arg[name])}; recomputed {show_number(actual)}")
    if claim["rank_at_least"] > max(bound, arg_bound):
        rule = _RULES.get(arg["name"], "the least r with binom(r+2, 2) ≥ ⌈ratio⌉")
        _reject("claim", f"rank_at_least {claim['rank_at_least']} is not proved: the {label} argument gives "
                f"r ≥ {arg_bound} (ratio {show_number(arg_ratio)}, {rule}); trace–Frobenius alone r ≥ {bound} ({why})")
    proved = dict(arg, frobenius_squared_at_most=total, ratio=arg_ratio, rank_at_least=arg_bound)
    return max(bound, arg_bound), ratio, proved


def _check_listed(doc: dict[str, Any], p: dict[str, Any], witnesses, factor_of, family_extra=None,
                  verified=None) -> Verified:
    """Steps ``integrity`` to ``claim`` for a certificate that lists its family, jumps and chains."""
    progress = Progress("checking certificate", total=len(p["inputs"]) + len(p["jumps"]) + len(p["chains"]))
    _check_integrity(doc)
    t = _check_code(p)
    _check_family(p, p["n"], progress, family_extra)
    _check_jumps(p, witnesses, factor_of, progress)
    classes = _check_chains(p, progress)  # one weight (step code): the Gram entry of a pair is M − 4d
    bound, ratio, argument = _conclude(t, classes, p["arithmetic"], p["claim"], p["M"])
    counts = {"words": t, "inputs": len(p["inputs"]), "jumps": len(p["jumps"]), "chains": len(p["chains"])}
    return (verified or Verified)(dict(p["claim"]), bound, ratio, counts, argument)


#: Seconds per unit of ``compact_work`` on one core of the CI machine kind in the costliest case
#: measured (305 s at 3.98·10⁸: interpolated keys at almost every level; docs/certificate-format.md,
#: "Worst-case cost"): :func:`describe_cost` announces an upper estimate before the work.
SECONDS_PER_WORK_UNIT = 305 / 3.98e8


def describe_cost(work: int) -> str:
    """The line announced before a compact check, e.g. ``work: ≈ 4e+08 word operations …, at most about 5 min …``."""
    sec = work * SECONDS_PER_WORK_UNIT
    when = f"{sec:.0f} s" if sec < 90 else f"{sec / 60:.0f} min"
    return (f"work: ≈ {work:.2g} word operations of key generation, at most about {when} on one core of the CI "
            "machine kind (--max-work N caps it; certify verify --jobs N shares it)")


def check(doc: dict[str, Any], max_work: int | None = None, announce=None, run_shards=None) -> Verified:
    """Verify a parsed certificate; raise a ``CertificateError`` subclass on failure.

    Work is linear in the size of the file, except the code's minimum distance, which
    is quadratic in the number of words ``t`` — and runs only after the count of chains
    (which the file lists, one per ordered pair) has been checked to be ``t(t−1)``.
    """
    if isinstance(doc, dict) and doc.get("format") == UM_FORMAT:  # the second kind (A.4), its own section below
        return check_unique_minimizer(doc)
    if isinstance(doc, dict) and doc.get("version") == COMPACT_VERSION and not isinstance(doc.get("version"), bool):
        return _check_compact(doc, max_work, announce, run_shards)
    claim, m, n, eps = _parse_head(doc, ("code", "family", "jumps", "chains"), FORMAT, (VERSION,),
                                   f"versions {VERSION} and {COMPACT_VERSION}")
    p = dict(_parse_listed(doc, m, m, 3), claim=claim, m=m, n=n, lemma="weight domination gives μ =")

    def witnesses(x, y, z, lo, hi):  # weight domination (A.2; docs/math.md §3): Y, Z, W at query 0
        return (("Y", (x,) + (y,) * (n - 1), lo), ("Z", (x,) + (z,) * (n - 1), hi), ("W", (x, y) + (z,) * (n - 2), lo))

    def factor_of(where, gap):
        mu = _mu(n, gap, eps)
        if mu < 1:
            _reject("jumps", f"{where} has gap {gap}: μ = (n−2)(d−2ε)/(2ε) = {show_number(mu)} < 1 proves nothing")
        return mu

    return _check_listed(doc, p, witnesses, factor_of)


# =========================================================================== compact certificates (version 2)
#
# A version-2 certificate carries the code and a chain plan instead of the family.
# This section generates every key, jump and witness from them and checks the facts
# that version 1 checks on listed data (docs/certificate-format.md, "Version 2").
# Head, hash, distinct words, chain products, arithmetic and claim are the shared
# steps above; what is new is the generation.

KEY_RULE = "codewords-first"  # the one key rule of version 2 (docs/certificate-format.md)


def _parse_compact(doc: dict[str, Any]) -> dict[str, Any]:
    """Check a version-2 document's shape (step ``format``); return it decoded."""
    claim, m, n, eps = _parse_head(doc, ("code", "plan", "family"), FORMAT, (COMPACT_VERSION,),
                                   f"versions {VERSION} and {COMPACT_VERSION}")
    code = _obj(doc["code"], "code", ("length", "words"))
    if _int(code["length"], "code.length", 1, MAX_TOKEN_BITS) != m:
        _malformed("code.length", f"{code['length']} differs from claim.m = {m}")
    raw = _list(code["words"], "code.words", 1)
    if len(raw) > MAX_COMPACT_WORDS:  # before decoding: the checks below are quadratic in t
        raise CertificateLimitError(f"code.words: {len(raw):,} words; a compact certificate has at most {MAX_COMPACT_WORDS:,}")
    words = [_token(w, f"code.words[{i}]", m) for i, w in enumerate(raw)]

    plan = _obj(doc["plan"], "plan", ("keys", "entries"))
    if plan["keys"] != KEY_RULE:
        _malformed("plan.keys", f"expected {KEY_RULE!r}, got {_kind(plan['keys'])}")
    entries = []
    for k, e in enumerate(_list(plan["entries"], "plan.entries", 1, m)):
        where = f"plan.entries[{k}]"
        _obj(e, where, ("distance", "gaps", "pairs", "factor"))
        d = _int(e["distance"], f"{where}.distance", 1, m)
        if entries and d <= entries[-1][0]:
            _malformed(f"{where}.distance", f"{d} follows {entries[-1][0]}; distances are listed in increasing order")
        raw_gaps = _list(e["gaps"], f"{where}.gaps", 1, m)
        if all(type(g) is int and 1 <= g <= m for g in raw_gaps):  # the common case, in one pass
            gaps = tuple(raw_gaps)
        else:  # name the first bad one
            gaps = tuple(_int(g, f"{where}.gaps[{i}]", 1, m) for i, g in enumerate(raw_gaps))
        entries.append((d, gaps, _int(e["pairs"], f"{where}.pairs"), parse_rational(e["factor"], f"{where}.factor")))

    fam = _obj(doc["family"], "family", ("jumps", "inputs"))
    return {"claim": claim, "m": m, "n": n, "eps": eps, "words": words, "entries": entries,
            "family": {"jumps": _int(fam["jumps"], "family.jumps"), "inputs": _int(fam["inputs"], "family.inputs")},
            "arithmetic": _parse_arithmetic(doc)}


def compact_work(t: int, k: int, m: int) -> int:
    """The work bound of a compact certificate: ``t(t−1)·(k+1)·⌈m/64⌉``.

    ``t(t−1)`` ordered pairs, at most ``k + 1`` keys per chain (``k``: the longest gap
    list), each an ``m``-bit integer handled in ``⌈m/64⌉`` machine words.
    """
    return t * (t - 1) * (k + 1) * -(-m // 64)


def _lowest_bits(a: int, count: int) -> int:
    """The ``count`` lowest set bits of ``a`` (all of them if ``a`` has fewer), in ``O(log m)`` popcounts.

    Binary search for the shortest prefix ``a mod 2^p`` holding ``count`` set bits.
    """
    if a.bit_count() <= count:
        return a
    lo, hi = 0, a.bit_length()
    while lo < hi:
        mid = (lo + hi) // 2
        if (a & ((1 << mid) - 1)).bit_count() >= count:
            hi = mid
        else:
            lo = mid + 1
    return a & ((1 << lo) - 1)


def distance_classes(s: Token, comps: list[Token], columns: list[int], every: int,
                     sliced: bool | None = None) -> tuple[dict[int, int], dict[int, int]]:
    """How many words lie at each directed distance ``d = |S \\ U_j|`` from ``S``, and the first ``j`` at each.

    ``comps[j]`` is ``U_j``'s complement; ``columns[b]`` has bit ``j`` set iff word ``j``
    lacks coordinate ``b``; ``every`` is ``2^t − 1``. The columns of ``S``'s coordinates are
    added in binary planes (``planes[k]``: bit ``j`` is bit ``k`` of ``|S \\ U_j|``), which
    then split the words by distance: ``O(|S|·log m + m)`` operations on ``t``-bit integers.
    When ``S`` is heavy for so few words (``16·|S| > t``), ``t`` popcounts are cheaper and
    are used instead (``sliced`` forces one way); both give the same result, in order of first word.

    >>> S, comps, columns = 0b011, [0b110, 0b011, 0b111], [0b110, 0b111, 0b101]  # U = {0}, {2}, {}
    >>> distance_classes(S, comps, columns, 0b111), distance_classes(S, comps, columns, 0b111, sliced=True)
    (({1: 1, 2: 2}, {1: 0, 2: 1}), ({1: 1, 2: 2}, {1: 0, 2: 1}))
    """
    t = len(comps)
    if not (16 * s.bit_count() <= t and columns if sliced is None else sliced):
        row = list(map(int.bit_count, map(s.__and__, comps)))
        first = dict(zip(reversed(row), range(t - 1, -1, -1)))  # the last write wins: the first word
        return dict(Counter(row)), dict(sorted(first.items(), key=lambda dj: dj[1]))
    planes: list[int] = []
    bits = s
    while bits:
        low = bits & -bits
        bits ^= low
        carry = columns[low.bit_length() - 1]
        for k, plane in enumerate(planes):
            planes[k], carry = plane ^ carry, plane & carry
            if not carry:
                break
        else:
            planes.append(carry)
    groups = [(0, every)]  # (distance, its words as bits j), split plane by plane
    for k, plane in enumerate(planes):
        groups = [(d + (b << k), g) for d, mask in groups for b, g in ((0, mask & ~plane), (1, mask & plane)) if g]
    groups.sort(key=lambda dg: dg[1] & -dg[1])  # by first word
    return {d: g.bit_count() for d, g in groups}, {d: (g & -g).bit_length() - 1 for d, g in groups}


def compact_shard(words: list[Token], m: int, levels: dict[int, tuple[int, ...]], lo: int, hi: int,
                  show: bool = True, general: bool = False) -> tuple[dict[int, int], int, int]:
    """The compact check's generation for the queries ``words[lo:hi]``: ``(pairs per distance, jumps, inputs)``.

    Queries never share inputs or jumps (their first tokens differ), so the counts of a
    range of queries are exact partial sums: ``certify.shards.merge_shards`` adds those of
    disjoint ranges, and a worker of ``certify verify --jobs`` (``certify.shards``) or of a
    Dask cluster (``certify.distributed``) runs exactly this function. A failing query raises the same ``CertificateError`` as the
    serial check, at the same query.

    Per query ``S``: the number of words at each distance ``|S \\ U|`` and the first word at
    each (:func:`distance_classes`), then the keys and jumps. Codeword keys and the jumps
    between them are counted without sets (see the comment in the loop); only the pairs at
    a distance whose chain has an interpolated level are generated, and only their jumps
    that touch an interpolated key go into sets. ``general=True`` generates every pair's
    chain into sets instead, as the format describes; the tests compare the two.
    """
    # Generation, query by query (docs/certificate-format.md, "Version 2: the family"):
    # for pair (S, U) at distance d the keys are x_{S^c}, one key per inner level ℓ of
    # the plan — x_{V^c} for the first codeword V with |S \ V| = ℓ, else the interpolated
    # key — and x_{U^c}. Inputs of a query: (x, y^{n−1}) per key y, (x, y, z^{n−2}) per
    # jump; queries never share inputs (their first tokens differ).
    full = (1 << m) - 1
    comps = [full ^ u for u in words]  # x_{U^c}, U's key; ⟨x_S, x_{U^c}⟩ = |S \ U|
    t = len(words)
    # Bit-sliced distances: column b has bit j set iff U_j lacks coordinate b, so |S \ U_j| is
    # the number of columns b ∈ S with bit j set, summed for all j at once in binary planes.
    columns = ([int("".join(c), 2) for c in zip(*(format(z, f"0{m}b") for z in reversed(comps)))][::-1]
               if any(16 * s.bit_count() <= t for s in words[lo:hi]) else [])
    every = (1 << t) - 1
    pairs = dict.fromkeys(levels, 0)
    n_jumps = n_inputs = 0
    progress = Progress("checking compact certificate (queries)", total=hi - lo, stream="stderr" if show else None)
    for i in range(lo, hi):
        s = words[i]
        at, first = distance_classes(s, comps, columns, every)  # distance → number of words, first word
        if at[0] > 1:
            j0 = next(j for j, z in enumerate(comps) if j != i and not s & z)
            _reject("code", f"words[{i}] lies inside words[{j0}] (directed distance 0): no chain can rise from "
                    f"overlap 0 to overlap 0")
        del at[0], first[0]  # that is S itself
        comp = comps[i]
        chains: dict[int, list[Token | None]] = {}  # d → the key at each inner level: x_{V^c}, or None (interpolated)
        for d, j in first.items():  # in order of first word (distance_classes), as a scan of the row meets them
            if d not in levels:
                _reject("chains", f"pair {i}→{j} is at directed distance {d}, for which the plan has no entry")
            pairs[d] += at[d]
            chains[d] = [comps[first[lv]] if lv in first else None for lv in levels[d][1:-1]]
        # The keys: x_{S^c} and every x_{U^c} (t codeword keys), plus the interpolated ones, which
        # are never codeword keys (an interpolated key at level ℓ has overlap ℓ with S, and no
        # codeword is at distance ℓ). The jumps between codeword keys are the chains' codeword
        # steps, the same for every pair at d, plus one final (last key, x_{U^c}) per word whose
        # chain ends on a codeword key: that final is already among the steps only if x_{U^c} is
        # some chain's inner key, so only those few words are looked at. Jumps that touch an
        # interpolated key are generated pair by pair into sets, as the format describes.
        # (general=True generates every pair's chain into sets instead; the tests compare.)
        steps: set[tuple[Token, Token]] = set()
        ends: dict[int, Token] = {}  # d → the last inner key, where it is a codeword key
        finals = 0
        for d, chain in chains.items():
            path = [comp, *chain]
            steps.update((a, b) for a, b in zip(path, path[1:]) if a is not None and b is not None)
            if path[-1] is not None:
                ends[d] = path[-1]
                finals += at[d]
        interpolated = {d for d, chain in chains.items() if None in chain}
        keys: set[Token] = set()  # interpolated keys (all keys if general)
        jumps: set[tuple[Token, Token]] = set()  # jumps touching them (all jumps if general)
        if general or interpolated:
            for j, d in enumerate(map(int.bit_count, map(s.__and__, comps))):
                if j == i or not (general or d in interpolated):
                    continue
                u, z = words[j], comps[j]
                gain0, lose0 = s & ~u, u & ~s
                gain, lose = gain0, lose0  # the bits not yet taken
                on = off = taken = 0  # the `taken` lowest bits of S \ U and of U \ S (all of U \ S if it has fewer)
                prev, inside = comp, general
                for lv, key in zip(levels[d][1:-1], chains[d]):
                    if key is None:  # x_{S^c} with ℓ bits of S \ U switched on and ℓ of U \ S switched off
                        if lv - taken <= 8:  # a few more bits, one at a time
                            for _ in range(lv - taken):
                                on |= gain & -gain
                                gain &= gain - 1
                                off |= lose & -lose
                                lose &= lose - 1
                        else:  # many: O(log m) popcounts, whatever ℓ is (a plan's levels may be far apart)
                            on, off = _lowest_bits(gain0, lv), _lowest_bits(lose0, lv)
                            gain, lose = gain0 ^ on, lose0 ^ off
                        taken = lv
                        key = (comp | on) & ~off
                        if (s & key).bit_count() != lv:
                            raise InternalContradiction("jumps", f"interpolated key of pair {i}→{j} at level {lv} "
                                                        f"has overlap {(s & key).bit_count()}")
                        keys.add(key)
                        jumps.add((prev, key))
                        inside = True
                    elif inside:
                        jumps.add((prev, key))
                        inside = general
                    prev = key
                if inside:
                    jumps.add((prev, z))
        if general:
            keys.update(comps)
            n_jumps += len(jumps)
            n_inputs += len(jumps) + len(keys)
        else:
            special = {first[lv] for d in chains for lv in levels[d][1:-1] if lv in first}  # words keyed inside a chain
            repeated = sum(1 for j in special if (ends.get((s & comps[j]).bit_count()), comps[j]) in steps)
            count = len(steps) + finals - repeated + len(jumps)
            n_jumps += count
            n_inputs += count + t + len(keys)
        progress.update(i + 1 - lo)
    progress.close()
    return pairs, n_jumps, n_inputs


def _check_compact(doc: dict[str, Any], max_work: int | None = None, announce=None, run_shards=None) -> Verified:
    """Verify a version-2 certificate: generate the family from the code and plan, check it, count it.

    Time ``O(t²·(k + 1))`` big-integer operations on ``m``-bit words (``k``: the longest
    chain of the plan), memory ``O(t·(k + 1))``: both bounded before the work by
    ``MAX_COMPACT_WORDS``, ``max_work`` (default ``MAX_COMPACT_WORK``) and ``MAX_COMPACT_QUERY``.
    ``announce(work)`` is called once the work is known and allowed, before it starts (``run``
    prints :func:`describe_cost`). ``run_shards(words, m, levels)``, if given, replaces the
    generation in this process: it returns the counts of :func:`compact_shard` over all queries,
    computed in shards (``certify.shards``: ``--jobs``; ``certify.distributed``: Dask).
    """
    limit = MAX_COMPACT_WORK if max_work is None else max_work
    p = _parse_compact(doc)
    m, n, eps, words, entries = p["m"], p["n"], p["eps"], p["words"], p["entries"]
    _check_integrity(doc)
    t = _check_words(words)  # code: t ≥ 2 distinct words (any weights; docs/math.md §5)
    longest = max(len(gaps) for _, gaps, _, _ in entries)
    work = compact_work(t, longest, m)
    if work > limit or (t - 1) * (longest + 1) > MAX_COMPACT_QUERY:
        raise CertificateLimitError(
            f"{t:,} codewords of {m:,} bits with chains of up to {longest:,} jumps: {work:,} units of key generation "
            f"(at most {limit:,}{'' if max_work is None else ' by --max-work'}; and (t−1)(k+1) ≤ "
            f"{MAX_COMPACT_QUERY:,} per query)")
    if announce is not None:
        announce(work)

    # The plan, per distance d: gaps sum to d (the chain ends at x_{U^c}), every gap's
    # μ ≥ 1 (weight domination, A.2; docs/math.md §3), stated factor = Π μ (§4).
    # Linear in the number of gaps with small constants (a plan may list millions of gaps):
    # μ is computed once per distinct gap, never once per gap.
    levels: dict[int, tuple[int, ...]] = {}
    factor_of: dict[int, Fraction] = {}
    mu_of: dict[int, tuple[Fraction, tuple[int, int]]] = {}
    for k, (d, gaps, _, factor) in enumerate(entries):
        where = f"plan.entries[{k}] (distance {d})"
        if sum(gaps) != d:
            _reject("chains", f"{where}: gaps sum to {sum(gaps)}, not {d}: the chain would not end at x_{{U^c}}")
        for g in dict.fromkeys(gaps):  # in order of first appearance, so the first bad gap is named
            if g not in mu_of:
                mu = _mu(n, g, eps)
                mu_of[g] = (mu, (mu.numerator, mu.denominator))
            if mu_of[g][0] < 1:
                _reject("jumps", f"{where}: gap {g} gives μ = (n−2)(d−2ε)/(2ε) = {show_number(mu_of[g][0])} < 1, "
                        "which proves nothing")
        num, den = _chain_product([mu_of[g][1] for g in gaps], where)
        if factor.numerator * den != factor.denominator * num:
            _reject("chains", f"{where}: states factor {show_number(factor)}; product of its jump factors is "
                    f"{show_number(Fraction(num, den))}")
        lv = [0]
        for g in gaps:
            lv.append(lv[-1] + g)
        levels[d], factor_of[d] = tuple(lv), factor

    # Generation, query by query: compact_shard, here or in shards (certify.shards, certify.distributed).
    pairs, n_jumps, n_inputs = (compact_shard(words, m, levels, 0, t) if run_shards is None
                                else run_shards(words, m, levels))

    # plan: every entry is used, with the true number of ordered pairs at its distance.
    for k, (d, _, stated, _) in enumerate(entries):
        if pairs[d] == 0:
            _reject("plan", f"plan.entries[{k}]: no ordered pair is at directed distance {d}; every entry must be used")
        if stated != pairs[d]:
            _reject("plan", f"plan.entries[{k}] states {stated:,} ordered pairs at directed distance {d}; "
                    f"the code has {pairs[d]:,}")
    if sum(pairs.values()) != t * (t - 1):
        raise InternalContradiction("plan", f"{sum(pairs.values()):,} pairs counted for {t:,} words")

    # family: the stated size is the generated one.
    for name, actual in (("jumps", n_jumps), ("inputs", n_inputs)):
        if p["family"][name] != actual:
            _reject("family", f"states {p['family'][name]:,} {name}; the code and plan generate {actual:,}")

    # arithmetic (trace–Frobenius, A.2; docs/math.md §5) and claim.
    classes = {(factor_of[d], d): count for d, count in pairs.items()}
    one_weight = len({w.bit_count() for w in words}) == 1  # then y = m − 4d (square-kernel)
    bound, ratio, argument = _conclude(t, classes, p["arithmetic"], p["claim"], m if one_weight else None)
    counts = {"words": t, "inputs": n_inputs, "jumps": n_jumps, "chains": t * (t - 1)}
    return Verified(dict(p["claim"]), bound, ratio, counts, argument)


# =========================================================================== end of compact certificates


def check_file(path: str) -> Verified:
    """Load and verify the certificate at ``path``."""
    return check(load(path))



# =========================================================================== unique-minimizer certificates
#
# Format "certify.unique-minimizer-certificate", version 1 (A.4; docs/math.md §7;
# docs/certificate-format.md, "Unique-minimizer certificates"). It runs the steps of
# a listed rank certificate (_check_listed); what differs is given to them:
#
# * claim: "inputs" names the input class, "length" is 3 and "error_below" is "1/2"
#   (the weights 1 and 2 of the effective kernel are those of error < 1/2);
# * code words and jump tokens have M = m − 2 bits; family tokens have m bits: two
#   type bits (coordinates 0, 1), then the word: q(x) = (1,1,x), k₀(w) = (0,0,w),
#   k₁(w) = (1,0,w);
# * family: every input has three pairwise distinct tokens and a unique minimizer;
# * jumps: four witnesses Y, Z, M₀, M₁ and factor (d−1)/2 with gap d ≥ 3.

UM_FORMAT = "certify.unique-minimizer-certificate"
UM_VERSION = 1
UM_INPUTS = "three-distinct-tokens-unique-minimizer"


class UniqueMinimizerVerified(Verified):
    """A verified unique-minimizer certificate (the claim restricts the inputs, the bound is on ``K``)."""

    def summary(self) -> str:
        c = self.claim
        text = (
            f"VERIFIED: r ≥ {c['rank_at_least']}. Every normalized nonnegative kernel-attention head (one head, "
            f"tokenwise values, query-dependent affine readout) on {c['m']}-bit tokens with error < "
            f"{c['error_below']} on all {self.counts['inputs']:,} inputs of this family — each of exactly three "
            f"distinct tokens with a unique minimizer at the queried position — has feature rank r ≥ {c['rank_at_least']}."
            f"\n  data: {self.counts['words']:,} codewords, {self.counts['chains']:,} chains, {self.counts['jumps']:,} jumps "
            f"on the effective kernel K = α(q,k₀) + 2α(q,k₁); {self._data_line(kernel=True)}"
        )
        if self.proved > c["rank_at_least"]:
            text += " (the claim is weaker than what the data prove)"
        return text


def _um_typed(x: Token, kind: str) -> Token:
    """``q(x) = (1,1,x)``, ``k₀(w) = (0,0,w)``, ``k₁(w) = (1,0,w)``: type bits are coordinates 0 and 1."""
    return {"q": 0b11, "k0": 0b00, "k1": 0b01}[kind] | (x << 2)


def check_unique_minimizer(doc: dict[str, Any]) -> Verified:
    """Verify a unique-minimizer certificate (A.4); same steps and exit codes as :func:`check`.

    ``format``: the claim names the input class, length 3 and error ``< 1/2``; code words
    and jump tokens have ``M = m − 2`` bits. ``family``: exact length 3, true targets,
    three pairwise distinct tokens, the minimum overlap at the query attained once, no
    repeats, every input used. ``jumps``: ``t = ⟨x,y⟩ < u = ⟨x,z⟩ ≤ ⟨x,x⟩`` on ``M``-bit
    words, gap ``d = u − t ≥ 3``, witnesses exactly ``Y = (q(x), k₀(y), k₁(y))``,
    ``Z = (q(x), k₀(z), k₁(z))``, ``M₀ = (q(x), k₀(y), k₁(z))``, ``M₁ = (q(x), k₀(z), k₁(y))``
    at query 0 with targets ``t, t+d, t, t+1``, factor ``(d−1)/2``. ``code``, ``chains``,
    ``arithmetic``, ``claim``: as for rank certificates, with the chains on ``M``-bit keys.
    """
    claim, m, n, eps = _parse_head(doc, ("code", "family", "jumps", "chains"), UM_FORMAT, (UM_VERSION,),
                                   f"{UM_FORMAT} version {UM_VERSION}", ("inputs",))
    if claim["inputs"] != UM_INPUTS:
        _malformed("claim.inputs", f"expected {UM_INPUTS!r}, got {_kind(claim['inputs'])}")
    if m < 3:
        _malformed("claim.m", f"{m} is out of range [3, {MAX_TOKEN_BITS}]")
    if n != 3:
        _malformed("claim.length", f"this kind covers exact length 3 (A.4), got {n}")
    if eps != Fraction(1, 2):
        _malformed("claim.error_below", f"this kind is for error < 1/2 (the weights 1, 2 of K), got {claim['error_below']!r}")
    p = dict(_parse_listed(doc, m, m - 2, 4, " − 2"), claim=claim, m=m, n=3, lemma="the four inputs give (d−1)/2 =")

    def witnesses(x, y, z, lo, hi):  # A.4 (docs/math.md §7): typed tokens, targets t, t+d, t, t+1
        q, y0, y1, z0, z1 = _um_typed(x, "q"), _um_typed(y, "k0"), _um_typed(y, "k1"), _um_typed(z, "k0"), _um_typed(z, "k1")
        return (("Y", (q, y0, y1), lo), ("Z", (q, z0, z1), hi), ("M₀", (q, y0, z1), lo), ("M₁", (q, z0, y1), lo + 1))

    def factor_of(where, gap):
        if gap < 3:
            _reject("jumps", f"{where} has gap {gap}: (d−1)/2 = {show_number(Fraction(gap - 1, 2))} < 1 proves nothing")
        return Fraction(gap - 1, 2)

    def distinct_and_unique(i, toks, target, overlaps):
        if len(set(toks)) != 3:
            _reject("family", f"inputs[{i}] repeats a token; the claim is about three distinct tokens")
        if overlaps.count(target) != 1:
            _reject("family", f"inputs[{i}] attains its minimum overlap {target} at {overlaps.count(target)} positions; "
                    "the claim is about a unique minimizer")

    return _check_listed(doc, p, witnesses, factor_of, distinct_and_unique, UniqueMinimizerVerified)

# =========================================================================== end of unique-minimizer certificates


def exact_text(q: Fraction | int) -> str:
    """:func:`format_rational` for JSON output, whatever the size (derived numbers are bounded
    by ``MAX_NUMBER_BITS``, so lifting Python's 4,300-digit guard here costs milliseconds)."""
    old = sys.get_int_max_str_digits()
    sys.set_int_max_str_digits(0)
    try:
        return format_rational(q)
    finally:
        sys.set_int_max_str_digits(old)


_ASCII = str.maketrans({
    "≥": ">=", "≤": "<=", "≠": "!=", "⇒": "=>", "→": "->", "←": "<-", "…": "...", "—": "--", "–": "-",
    "×": "x", "·": "*", "−": "-", "⟨": "<", "⟩": ">", "Σ": "sum", "‖": "||", "²": "^2", "⁻": "^-", "⌊": "floor(",
    "⌋": ")", "⌈": "ceil(", "⌉": ")", "√": "sqrt", "≈": "~", "α": "alpha", "β": "beta", "ε": "eps",
    "μ": "mu", "φ": "phi", "Φ": "Phi", "Λ": "Lambda", "λ": "lambda", "δ": "delta", "Δ": "Delta",
    "∈": " in ", "∞": "inf", "ᵀ": "^T", "₀": "0", "₁": "1", "₂": "2", "₃": "3", "ℓ": "l",
})


class _Transliterating:
    """A text stream for terminals whose encoding lacks ≥, Σ, ⟨⟩…: writes ASCII spellings instead."""

    def __init__(self, stream: Any) -> None:
        self._stream = stream
        try:
            stream.reconfigure(errors="replace")  # anything not in the table still never crashes
        except (AttributeError, ValueError, OSError):
            pass

    def write(self, text: str) -> int:
        return self._stream.write(text.replace("⁻²", "^-2").translate(_ASCII))

    def __getattr__(self, name: str) -> Any:  # flush, isatty, fileno, encoding, …
        if name == "buffer":  # keep click from bypassing the transliteration
            raise AttributeError(name)
        return getattr(self._stream, name)


def safe_output_streams() -> None:
    """Make ``sys.stdout``/``sys.stderr`` safe under any locale: output never fails to encode.

    A stream whose encoding cannot spell the characters our messages use (``≥``, ``Σ``,
    ``⟨x,z⟩``…; e.g. ``PYTHONIOENCODING=ascii`` or ``latin-1``) is wrapped so that they are
    written in ASCII (``>=``, ``sum``, ``<x,z>``); UTF-8 streams are left alone.
    """
    for name in ("stdout", "stderr"):
        stream = getattr(sys, name)
        if stream is None or isinstance(stream, _Transliterating):
            continue
        try:
            "≥Σ⟨⟩‖⁻²⇒…—–×·αμεφ".encode(getattr(stream, "encoding", None) or "ascii")
        except (UnicodeEncodeError, LookupError):
            setattr(sys, name, _Transliterating(stream))


def _announce(work: int) -> None:
    """The cost line on stderr for a check of about 2 s or more (``CERTIFY_PROGRESS=0``: never, ``=1``: always)."""
    mode = os.environ.get("CERTIFY_PROGRESS", "")
    if mode != "0" and (mode == "1" or work * SECONDS_PER_WORK_UNIT >= 2):
        _say_stderr(describe_cost(work))


def run(path: str, quiet: bool = False, as_json: bool = False, keep: list | None = None,
        max_work: int | None = None, run_shards=None) -> int:
    """Verify ``path``, print the outcome (stdout on success, one line on stderr otherwise); return the exit code.

    Every outcome is one of the four exit codes: an unexpected exception inside this
    checker is reported in one line as an internal error (exit 3), never as a traceback.
    ``keep``: a list that receives ``(document, Verified)`` once the file is verified.
    """
    safe_output_streams()
    try:
        doc = load(path)
        result = check(doc, max_work, _announce, run_shards)
    except CertificateError as exc:
        label = {EXIT_MALFORMED: "MALFORMED", EXIT_REJECTED: "REJECTED", EXIT_INTERNAL: "INTERNAL CONTRADICTION"}[exc.exit_code]
        if as_json:
            print(json.dumps({"status": label.lower(), "step": exc.step, "reason": str(exc), "exit": exc.exit_code},
                             allow_nan=False))
        print(f"{label}: {exc}", file=sys.stderr)
        return exc.exit_code
    except MemoryError:
        print("INTERNAL CONTRADICTION: out of memory within the documented limits (a bug in this checker)", file=sys.stderr)
        return EXIT_INTERNAL
    except Exception as exc:  # a bug here, never the file's fault: one line, exit 3
        if os.environ.get("CERTIFY_DEBUG"):
            raise
        print(f"INTERNAL CONTRADICTION: unexpected {type(exc).__name__} in the checker: {str(exc)[:200]} "
              "(a bug; set CERTIFY_DEBUG=1 for a traceback)", file=sys.stderr)
        return EXIT_INTERNAL
    if as_json:
        out = {"status": "verified", "claim": result.claim, "proved_rank_at_least": result.proved,
               "proved_by": "trace-frobenius" if result.argument is None or result.trace_frobenius >= result.proved
               else result.argument["name"],
               "ratio": exact_text(result.ratio), "trace_frobenius_rank_at_least": result.trace_frobenius,
               "counts": result.counts, "exit": EXIT_VERIFIED}
        if result.argument is not None:
            out["argument"] = result.argument_json()
        print(json.dumps(out, allow_nan=False))
    elif not quiet:
        print(result.summary())
    if keep is not None:
        keep.append((doc, result))
    return EXIT_VERIFIED


class _Terminated(BaseException):
    """SIGTERM, raised where the process is, so that ``finally`` blocks run (temporary files removed)."""


def _discard_stdout() -> None:
    """Point file descriptor 1 at the null device: what is still buffered cannot fail again at exit."""
    try:
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
    except (OSError, ValueError, AttributeError):
        pass


def guard_process(work, prog: str, stdout_needed: bool = True) -> int:
    """Run ``work()`` (which returns an exit code) and turn process faults into exit codes and one line.

    * Ctrl-C (SIGINT) → ``EXIT_SIGINT`` (130); SIGTERM → ``EXIT_SIGTERM`` (143); ``finally``
      blocks run first, so atomic writes leave no temporary file;
    * standard output closed by its reader (``| head``, ``| grep -q``) → ``EXIT_SIGPIPE``
      (141), silently, as Unix tools do;
    * a write error on standard output (a full disk, ``> /dev/full``) → ``EXIT_MALFORMED``
      (2) with the reason;
    * standard output closed before the start (``>&-``: ``sys.stdout`` is ``None``) →
      ``EXIT_MALFORMED`` (2) with the reason, before ``work()`` runs: no work is wasted and
      no verdict is ever lost to a write that cannot happen (with standard error closed
      too, silently); unless ``stdout_needed`` is false (``check.py --quiet``, whose exit
      code is the whole verdict): then it runs, and nothing is written.

    Standard output is flushed inside, so a buffered write that fails is caught here, not
    at interpreter exit.
    """
    import signal

    def terminated(signum, frame):
        raise _Terminated()

    try:
        previous = signal.signal(signal.SIGTERM, terminated)
        if getattr(signal.getsignal(signal.SIGINT), "certify_starting", False):  # the start-up handler: Ctrl-C
            signal.signal(signal.SIGINT, signal.default_int_handler)  # is KeyboardInterrupt again, finally blocks run
        if getattr(previous, "certify_starting", False):
            previous = signal.SIG_DFL
    except (ValueError, OSError):  # not the main thread: leave the embedding program's handlers alone
        previous = None
    try:
        if sys.stdout is None and stdout_needed:  # file descriptor 1 closed (``>&-``): nothing could say the verdict
            _say_stderr(f"{prog}: cannot write the output: standard output is closed")
            return EXIT_MALFORMED
        code = work()
        sys.stdout and sys.stdout.flush()  # None: closed, and nothing was printed (--quiet)
        return code
    except KeyboardInterrupt:
        _say_stderr(f"{prog}: interrupted (SIGINT)")
        return EXIT_SIGINT
    except _Terminated:
        _say_stderr(f"{prog}: terminated (SIGTERM)")
        return EXIT_SIGTERM
    except BrokenPipeError:
        _discard_stdout()
        return EXIT_SIGPIPE
    except OSError as exc:  # work() reports its own input and --out errors; what is left is writing stdout
        _discard_stdout()
        _say_stderr(f"{prog}: cannot write the output: {exc.strerror or exc}")
        return EXIT_MALFORMED
    finally:
        if previous is not None:
            signal.signal(signal.SIGTERM, previous)


def _say_stderr(line: str) -> None:
    if sys.stderr is None:  # file descriptor 2 closed: nowhere to say it (print would fall back to stdout)
        return
    try:
        print(line, file=sys.stderr, flush=True)
    except (OSError, ValueError):
        pass


def main(argv: list[str] | None = None) -> int:
    """usage: check.py [--quiet] [--json] [--max-work N] [--] CERTIFICATE.json

    Verify one certificate (certify.rank-certificate, version 1 or compact 2, or
    certify.unique-minimizer-certificate) with the standard library alone: every overlap,
    target, factor, product and sum is recomputed from the tokens in the file, and
    the claim r >= k is accepted only if it follows (docs/certificate-format.md).
    Prints the verdict with the proved bound, or the failing step and input.

    --quiet         print nothing; the exit code is the verdict
    --json          print one JSON object: status, claim, proved bound, counts
    --max-work N    refuse a compact (version 2) certificate whose work exceeds N
    --              the next argument is the path, even if it starts with '-'
    -h, --help      print this text and exit 0

    Exit codes: 0 verified, 1 rejected, 2 malformed or unreadable (or standard output cannot
    be written), 3 internal contradiction; 130 Ctrl-C, 141 a closed pipe, 143 SIGTERM.
    """
    opts = set((lambda a: a[:a.index("--")])((sys.argv[1:] if argv is None else list(argv)) + ["--"]))
    return guard_process(lambda: _main(argv), "check.py", "--quiet" not in opts or bool({"--json", "-h", "--help"} & opts))


def script_args(argv: list[str] | None, doc: str | None, usage: str, flags=(), value: str | None = None):
    """A checker script's arguments (``check.py`` and the checkers beside it): ``(exit code, None, {})`` once
    ``--help`` is printed or a usage error said in one line; else ``(None, path, given)``, ``given`` the flags present
    and ``value``'s text (``--max-work N``). After ``--`` comes the path, even one starting with ``-``."""
    args = list(sys.argv[1:] if argv is None else argv)
    rest = args[args.index("--") + 1:] if "--" in args else []
    args = args[:args.index("--")] if "--" in args else args
    safe_output_streams()
    if "-h" in args or "--help" in args:  # what it does, its options and exit codes (its main's docstring): exit 0
        print("\n".join(line.strip() for line in (doc or "").splitlines()).strip())
        return EXIT_VERIFIED, None, {}
    given: dict[str, Any] = {}
    if value is not None and value in args:
        k = args.index(value)
        given[value], args = (args[k + 1] if k + 1 < len(args) else ""), args[:k] + args[k + 2:]
    given.update((a, True) for a in args if a in flags)
    paths = [a for a in args if a not in flags] + rest
    if len(paths) != 1 or any(a.startswith("-") and a not in flags for a in args):
        print(usage, file=sys.stderr)
        return EXIT_MALFORMED, None, given
    return None, paths[0], given


def _main(argv: list[str] | None = None) -> int:
    code, path, given = script_args(argv, main.__doc__, "usage: check.py [--quiet] [--json] [--max-work N] [--] "
                                    "CERTIFICATE.json", ("--quiet", "--json"), "--max-work")
    if code is not None:
        return code
    text, max_work = given.get("--max-work"), None
    if text is not None:  # ``--max-work N``: the compact work cap (a count of digits only)
        if not (text.isascii() and text.isdigit() and len(text) <= 18 and int(text) >= 1):
            print(f"MALFORMED: --max-work: expected an integer from 1 to 10^18 - 1, not {text[:30]!r}", file=sys.stderr)
            return EXIT_MALFORMED
        max_work = int(text)
    return run(path, quiet="--quiet" in given, as_json="--json" in given, max_work=max_work)


if __name__ == "__main__":
    sys.exit(main())
