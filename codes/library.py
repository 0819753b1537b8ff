"""Named codes and code files: what every ``--code`` option accepts (``rank-bound``, ``search``, ``family``, ``unique-minimizer``).

A code is given by name or by a file (docs/math.md §5–§6):

``rank-nine``
    The fixed rank-nine code: rows 1–15 of the normalized Paley Hadamard matrix of
    order 24 (15 words, length 24, weight 12, every pair at directed distance 6).
``hadamard24``
    All 23 non-first rows of that matrix and their complements (46 words; directed
    distance 6 between words that are not complements, 12 between complements).
``golay24``
    The 2,576 dodecads of the extended binary Golay code (:mod:`codes.golay`).
``lexicode:M:W:D``
    The greedy (colex-order) constant-weight code of length ``M``, weight ``W`` and
    minimum directed distance ``D`` (:func:`codes.greedy_code`, uncapped, so maximal).
    The scan visits all ``C(M, W)`` words: refused above :data:`MAX_LEXICODE_SCAN`.
``hadamard:ORDER[:T]``
    Rows ``1 … ORDER−1`` of the normalized Paley Hadamard matrix (``ORDER − 1`` a prime
    ``≡ 3 mod 4``): weight ``ORDER/2``, directed distance ``ORDER/4``; the first ``T``
    words when ``T`` is given.
``greedy:M:Δ[:T]``
    The greedy colex code of length ``M``, weight ``M/2``, directed distance ``≥ Δ``
    (with ``T``, the scan stops after ``T`` words).
``random:M:W:D[:N][:SEED]``
    A seeded random code: uniformly random weight-``W`` words of length ``M``, each kept
    when at directed distance ``≥ D`` from all kept ones, until ``N`` words (default
    5,000; ``SEED`` default 0) or a counted budget (:mod:`codes.random_codes`; the same
    code on any machine).
a path
    A text file with one 0/1 word per line (character ``k`` = coordinate ``k``); blank
    lines and lines starting with ``#`` are ignored. All words have one length; their
    weights may differ. At most :data:`MAX_CODE_FILE_BYTES` bytes and
    :data:`MAX_CODE_WORDS` words, and ``t(t−1)⌈m/64⌉ ≤`` :data:`MAX_CODE_PAIR_WORK`.

Every built-in is checked where it is built (:data:`BUILTIN_FACTS` lists size, length,
weight and directed-distance distribution; ``tests/test_library.py`` recomputes them).

>>> code = load_code("hadamard24")
>>> code.size, code.weight, sorted(code.distance_counts.items())
(46, 12, [(6, 2024), (12, 46)])
>>> load_code("lexicode:8:4:2").size
14
>>> code = load_code("greedy:24:7:6")
>>> code.size, code.min_distance, dict(code.distance_counts)
(6, 7, {7: 30})
>>> load_code("lexicode:8:4")
Traceback (most recent call last):
...
codes.library.CodeSpecError: code 'lexicode:8:4': expected lexicode:M:W:D with three integers
"""
from __future__ import annotations

import functools
import os
from math import comb

from .binary import BinaryCode
from .constant_weight import CodeError, ConstantWeightCode, greedy_code
from .golay import golay_dodecads
from .hadamard import hadamard_code, rank_nine_code

__all__ = [
    "CodeSpecError",
    "BUILTIN_FACTS",
    "MAX_LEXICODE_SCAN",
    "MAX_CODE_FILE_BYTES",
    "MAX_CODE_WORDS",
    "MAX_CODE_LENGTH",
    "MAX_CODE_PAIR_WORK",
    "builtin_names",
    "lexicode",
    "read_code_file",
    "load_code",
    "code_name",
    "MAX_SPEC_LENGTH",
    "MAX_ORDER",
]

#: ``C(M, W)`` above this is refused for ``lexicode:M:W:D`` (the greedy scan visits every word;
#: ``C(24, 12) = 2,704,156`` takes seconds to half a minute, depending on ``D``).
MAX_LEXICODE_SCAN = 3_000_000
#: lexicode and greedy specs: at most this many distance checks by the scan's upper bound
#: (:func:`codes.constant_weight.greedy_scan_bound`): ``lexicode:24:12:1`` (7.3·10¹² checks, the
#: whole layer kept) ran for over 300 s with no output; docs/performance.md gives the figures.
MAX_GREEDY_SCAN_WORK = 10**10
#: Code files: at most this many bytes, words and coordinates.
MAX_CODE_FILE_BYTES = 16 * 2**20
MAX_CODE_WORDS = 20_000
MAX_CODE_LENGTH = 4096
#: ``t(t−1)⌈m/64⌉`` of a code file: the pair distances every use of a code starts with. Half the
#: checker's compact work limit (4·10⁸ with ``k + 1 ≥ 2`` per chain), so nothing refused here could
#: have been certified.
MAX_CODE_PAIR_WORK = 2 * 10**8

#: name → (size, length, weight, {directed distance: number of ordered pairs}).
BUILTIN_FACTS: dict[str, tuple[int, int, int, dict[int, int]]] = {
    "rank-nine": (15, 24, 12, {6: 210}),
    "hadamard24": (46, 24, 12, {6: 2024, 12: 46}),
    "golay24": (2576, 24, 12, {4: 2576 * 495, 6: 2576 * 1584, 8: 2576 * 495, 12: 2576}),
}

_BUILDERS = {"rank-nine": rank_nine_code, "hadamard24": lambda: hadamard_code(24), "golay24": golay_dodecads}


class CodeSpecError(CodeError):
    """A code name, lexicode parameter or code file is unknown, out of range or malformed."""


def builtin_names() -> tuple[str, ...]:
    """The built-in code names (``lexicode:M:W:D`` is a family, not listed)."""
    return tuple(_BUILDERS)


@functools.lru_cache(maxsize=64)
def lexicode(M: int, W: int, D: int) -> ConstantWeightCode:
    """The greedy colex constant-weight code ``lexicode:M:W:D`` (maximal; docs/math.md §7 "Packing").

    Kept once built (the code is immutable and a function of ``M, W, D`` alone): a greedy
    scan costs up to seconds (``lexicode:20:10:D``: ≈ 1.6 s each), and ``certify search``'s
    seeds ask for the same ones on every search at that ``m``.

    Raises
    ------
    CodeSpecError
        Unless ``2 ≤ M ≤ 64``, ``1 ≤ W < M``, ``1 ≤ D ≤ min(W, M − W)`` and
        ``C(M, W) ≤ MAX_LEXICODE_SCAN``.
    """
    spec = f"lexicode:{M}:{W}:{D}"
    if not 2 <= M <= 64:
        raise CodeSpecError(f"code {spec!r}: length M must be in [2, 64], not {M}")
    if not 1 <= W < M:
        raise CodeSpecError(f"code {spec!r}: weight W must be in [1, {M - 1}], not {W}")
    if not 1 <= D <= min(W, M - W):
        raise CodeSpecError(f"code {spec!r}: distance D must be in [1, {min(W, M - W)}], not {D}")
    if comb(M, W) > MAX_LEXICODE_SCAN:
        raise CodeSpecError(
            f"code {spec!r}: the greedy scan would visit C({M}, {W}) = {comb(M, W):,} words; "
            f"at most {MAX_LEXICODE_SCAN:,} (use a code file, or certify search)"
        )
    _refuse_long_scan(spec, M, W, D)
    code = greedy_code(M, W, D)
    return ConstantWeightCode(M, W, code.words, f"lexicode {M}:{W}:{D} (greedy colex code, maximal)")


def _refuse_long_scan(spec: str, M: int, W: int, D: int, cap: int | None = None) -> None:
    """Refuse, before scanning, a greedy scan whose bound exceeds ``MAX_GREEDY_SCAN_WORK`` checks."""
    from .constant_weight import greedy_scan_bound

    work = greedy_scan_bound(M, W, D, cap)
    if work > MAX_GREEDY_SCAN_WORK:
        raise CodeSpecError(
            f"code {spec!r}: the greedy scan could take up to {work:.2e} distance checks (C({M}, {W}) = "
            f"{comb(M, W):,} candidates, each against up to {work // comb(M, W):,} kept words); at most "
            f"{MAX_GREEDY_SCAN_WORK:.0e}: use a larger distance, a cap T, a code file, or certify search")


def read_code_file(path: str | os.PathLike) -> BinaryCode | ConstantWeightCode:
    """Read one 0/1 word per line (``#`` comments and blank lines skipped).

    Returns a :class:`ConstantWeightCode` when all words have one weight, else a
    :class:`BinaryCode`.

    Raises
    ------
    CodeSpecError
        Unreadable or oversized file, a bad character, words of different lengths,
        a repeated word, or fewer than two words — each naming the line.
    """
    path = os.fspath(path)
    try:
        with open(path, "rb") as fh:
            data = fh.read(MAX_CODE_FILE_BYTES + 1)
    except OSError as exc:
        raise CodeSpecError(f"code file {path}: cannot read ({exc.strerror or exc})") from None
    if len(data) > MAX_CODE_FILE_BYTES:
        raise CodeSpecError(f"code file {path}: larger than {MAX_CODE_FILE_BYTES:,} bytes")
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise CodeSpecError(f"code file {path}: not UTF-8 text (byte {exc.start})") from None
    words: list[int] = []
    first_line: dict[int, int] = {}
    m = None
    for lineno, line in enumerate(text.splitlines(), 1):
        line = line.strip()
        if not line or line.startswith("#"):
            continue
        where = f"code file {path}, line {lineno}"
        if m is None:
            m = len(line)
            if not 1 <= m <= MAX_CODE_LENGTH:
                raise CodeSpecError(f"{where}: word length {m}; allowed 1 to {MAX_CODE_LENGTH}")
        if len(line) != m:
            raise CodeSpecError(f"{where}: word has length {len(line)}, the first word has {m}")
        bad = line.strip("01")
        if bad:
            k = next(i for i, ch in enumerate(line) if ch not in "01")
            raise CodeSpecError(f"{where}: character {k + 1} is {line[k]!r}; words use only '0' and '1'")
        x = int(line[::-1], 2)
        if x in first_line:
            raise CodeSpecError(f"{where}: repeats the word on line {first_line[x]}")
        first_line[x] = lineno
        words.append(x)
        if len(words) > MAX_CODE_WORDS:
            raise CodeSpecError(f"{where}: more than {MAX_CODE_WORDS:,} words")
    if len(words) < 2:
        raise CodeSpecError(f"code file {path}: {len(words)} word(s); the rank bound needs at least two")
    t = len(words)
    work = t * (t - 1) * -(-m // 64)
    if work > MAX_CODE_PAIR_WORK:  # before the t(t−1) distances, which every use of a code starts with
        raise CodeSpecError(f"code file {path}: {t:,} words of {m:,} bits mean t(t−1)⌈m/64⌉ = {work:,} word "
                            f"operations for the pair distances alone; at most {MAX_CODE_PAIR_WORK:,} (a certificate "
                            "of it would exceed the checker's work limit)")
    desc = f"code file {os.path.basename(path)}"
    weights = {x.bit_count() for x in words}
    if len(weights) == 1:
        return ConstantWeightCode(m, weights.pop(), tuple(words), desc)
    return BinaryCode(m, tuple(words), desc)


MAX_SPEC_LENGTH = 24  # M of a greedy code: its scan visits up to C(M, M/2) words (2.7 million at 24, about a second)
MAX_ORDER = 128  # Paley construction checks H·Hᵀ exactly: order³ operations


def _ints(parts: list[str], spec: str) -> list[int]:
    try:
        return [int(p) for p in parts]
    except ValueError:
        raise CodeSpecError(f"code {spec!r}: expected integers after the name") from None


def _spec_code(spec: str) -> ConstantWeightCode:
    """The code ``rank-nine``, ``hadamard:ORDER[:T]`` or ``greedy:M:Δ[:T]`` names (see the module docstring).

    Raises
    ------
    CodeError
        On an unknown name, non-integer or out-of-range parameters, or ``T`` larger than
        the code.
    """
    name, *rest = spec.split(":")
    if name == "rank-nine" and not rest:
        return rank_nine_code()
    if name == "hadamard" and len(rest) in (1, 2):
        order, *cap = _ints(rest, spec)
        if not 4 <= order <= MAX_ORDER:
            raise CodeSpecError(f"code {spec!r}: ORDER must be between 4 and {MAX_ORDER}, not {order}")
        try:
            code = hadamard_code(order, with_complements=False)
        except ValueError as exc:
            raise CodeSpecError(f"code {spec!r}: {exc}") from None
    elif name == "greedy" and len(rest) in (2, 3):
        M, delta, *cap = _ints(rest, spec)
        if not 2 <= M <= MAX_SPEC_LENGTH or M % 2 or not 1 <= delta <= M // 2:
            raise CodeSpecError(f"code {spec!r}: need an even M in [2, {MAX_SPEC_LENGTH}] and 1 ≤ Δ ≤ M/2")
        if cap and cap[0] < 1:
            raise CodeSpecError(f"code {spec!r}: T must be ≥ 1, not {cap[0]}")
        _refuse_long_scan(spec, M, M // 2, delta, cap[0] if cap else None)
        return greedy_code(M, M // 2, delta, cap[0] if cap else None)
    else:
        raise CodeSpecError(f"unknown code {spec!r}")
    if cap:
        T = cap[0]
        if not 1 <= T <= code.size:
            raise CodeSpecError(f"code {spec!r}: T must be between 1 and {code.size}, not {T}")
        code = ConstantWeightCode(code.length, code.weight, code.words[:T], f"{code.description} (first {T})")
    return code


def load_code(spec: str) -> BinaryCode | ConstantWeightCode:
    """A built-in code by name, ``lexicode:M:W:D``, or a code file (see the module docstring).

    Raises
    ------
    CodeSpecError
        Naming the spec and what is wrong with it.
    """
    if not isinstance(spec, str) or not spec:
        raise CodeSpecError(f"code must be a name or a path, not {spec!r}")
    if spec in _BUILDERS:
        code = _BUILDERS[spec]()
        size, length, weight, dist = BUILTIN_FACTS[spec]
        if (code.size, code.length, code.weight) != (size, length, weight):
            raise AssertionError(f"built-in {spec} has parameters {(code.size, code.length, code.weight)}")
        return code
    if spec.startswith(("hadamard:", "greedy:")):
        return _spec_code(spec)
    if spec.startswith("random:"):
        from .random_codes import load_random

        return load_random(spec)
    if spec.startswith("lexicode:"):
        parts = spec.split(":")[1:]
        try:
            M, W, D = (int(p) for p in parts)
        except ValueError:
            raise CodeSpecError(f"code {spec!r}: expected lexicode:M:W:D with three integers") from None
        return lexicode(M, W, D)
    if not os.path.exists(spec):
        raise CodeSpecError(
            f"code {spec!r} is neither a built-in ({', '.join(_BUILDERS)}, lexicode:M:W:D, hadamard:ORDER[:T], "
            "greedy:M:Δ[:T], random:M:W:D[:N][:SEED]) nor an existing file"
        )
    return read_code_file(spec)


def code_name(spec: str) -> str:
    """A short name for output files: the built-in name, ``lexicode-M-W-D``, ``random-M-W-D…``, or the file's stem."""
    if spec in _BUILDERS:
        return spec
    if spec.startswith(("lexicode:", "random:")):
        return spec.replace(":", "-")
    stem = os.path.splitext(os.path.basename(spec))[0]
    return stem or "code"
