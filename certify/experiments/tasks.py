"""The held-out matching task of §6.2 and §6.3: tokens, sequences, exact labels and the three-way split.

docs/math.md §10 ("The held-out matching task") states the task; docs/experiments.md
lists every choice the paper leaves open. In short, for a setting ``(M, q)``:

* **Tokens** are the C.3 transcript tokens with ``s = 1`` (``witnesses.transcript``):
  ``m = M + 3`` coordinates, a query token ``q_S = (0, 1, x_{S^c}, 1)`` for a word
  ``S ⊆ [M]`` of weight ``h`` and database tokens ``d_{S,k} = (1, 0, x_S, k)``.
  ``⟨q_S, d_{S,0}⟩ = 0`` (the match) and ``⟨q_S, d_{S,1}⟩ = 1`` (padding with overlap one).
* **A sequence** has ``q`` query tokens of distinct words ``S_1 … S_q`` and one database
  slot per query, ``d_{S_i, p_i}`` for a *pattern* ``p ∈ {0,1}^q`` (``p_i = 0``: the
  match is present); its ``n = 2q`` tokens are shuffled. The label at ``q_{S_i}`` is the
  Min-IP target computed by the integer oracle (``witnesses.min_ip_target``), which is
  ``p_i`` here: every other overlap at ``q_{S_i}`` is ``≥ 1`` (distinct words of one
  weight, and the type and answer coordinates of two query tokens).
* **The paper's layout** (``--layout M+2``): ``m = M + 2``, no answer coordinate: ``q_S = (0,
  1, x_{S^c})``, ``d_{S,0} = (1, 0, x_S)`` and the padding ``d_{S,1} = (1, 0, x_{S ∪ {j}})``,
  ``j`` the lowest coordinate outside ``S``; the label is again ``p_i`` (docs/math.md §10).
* **The words** are the code ``greedy_code(M, h, Δ)`` (``Δ = 1``: all ``C(M, h)`` words),
  mapped by *coordinate permutations* ``π`` of ``[M]`` (applied to the word block).
* **The split** holds out base words, patterns and permutations: training and
  validation sequences use only training words, patterns and permutations; a joint
  out-of-distribution test sequence uses a held-out pattern, a held-out permutation and
  at least one held-out base word, every one of its tokens occurs in training, and its
  multiset of tokens occurs in neither training nor validation.
  :func:`certify.check_split.check_split` proves those properties from the file.
* **A strict split** (``--split strict``, docs/math.md §10, "Strictly held out") also refuses
  every test sequence that has a second origin made only of training words, a training
  pattern and a training permutation (:meth:`Split.training_origin`); its training and
  validation sequences are the listed split's of the same draw, and its test sequences are
  the listed split's draws with those refused. check-split proves it from the file too.

Everything here is plain Python and deterministic: the data draw ``d`` seeds one
``random.Random``, so the same draw gives the same split, sequence by sequence.

>>> s = Setting.parse("6:4")
>>> s.n, s.m, s.h
(8, 9, 3)
>>> split = build_split(s, SplitConfig(train=64, val=16, test=16), draw=0)
>>> len(split.train), len(split.val), len(split.test)
(64, 16, 16)
>>> [X.target for X in split.inputs(split.test[0])] == list(split.test_origin[0][1])
True
>>> strict = build_split(s, SplitConfig(train=64, val=16, test=16, strict=True), draw=0)
>>> strict.train == split.train, [strict.training_origin(o) for o in strict.test_origin] == [None] * 16
(True, True)
>>> sum(split.training_origin(o) is not None for o in split.test_origin)  # the listed split's test set: 11 of 16
11
>>> build_split(Setting.parse("4:2"), SplitConfig(train=24, val=6, test=6, strict=True), draw=0)
Traceback (most recent call last):
...
certify.experiments.tasks.SplitError: --split strict: only 2 test sequences with no all-training origin found in 300 draws, 6 asked for; this draw has exactly 2 (every held-out origin counted): lower --test, or hold out more words or patterns
"""
from __future__ import annotations

import itertools
import math
import random
from dataclasses import dataclass, field
from fractions import Fraction
from typing import Any

from codes import greedy_code
from witnesses import Input
from witnesses.transcript import database_token, query_token

from ..check_split import SPLIT_FORMAT

__all__ = ["SplitError", "Setting", "SplitConfig", "Split", "build_split", "permute_word", "is_query_token",
           "parse_fraction", "split_to_json"]


class SplitError(ValueError):
    """A setting or split that cannot be built (too few words, patterns or permutations to hold out); exit 2."""


MAX_M = 16
MAX_Q = 12
#: Token layouts (``--layout``): ours, ``m = M + 3`` (C.3 with ``s = 1``), and the paper's count, ``m = M + 2``.
LAYOUTS = ("M+3", "M+2")

#: Sequences per part at most (a split is built and listed in memory, and written to a file).
MAX_SEQUENCES = 200_000
#: Rejection sampling gives up after this many draws per sequence asked for.
ATTEMPTS_PER_SEQUENCE = 50
#: … or after this many draws in a row that gave nothing new (the part's sequences are all but exhausted).
MAX_MISSES = 20_000
#: A strict test set that cannot be filled is counted exactly when it has at most this many held-out origins
#: (q-sets of words holding a held-out one × held-out patterns × held-out permutations: (8, 3, 6) has 218,960, counted in
#: 1.7 s of CPU, 2-core reference machine).
MAX_COUNTED_ORIGINS = 500_000


def _pad(word: int, k: int) -> int:
    """``S`` for ``k = 0``; ``S ∪ {j}``, ``j`` the lowest coordinate outside ``S``, for ``k = 1`` (the ``M + 2`` layout)."""
    return word | (~word & (word + 1)) if k else word


@dataclass(frozen=True)
class Setting:
    """``(M, q)``, the word weight ``h`` (default ``⌊M/2⌋``) and the code's directed distance ``Δ``."""

    M: int
    q: int
    h: int
    distance: int = 1
    layout: str = "M+3"  # LAYOUTS: "M+3" (ours, C.3 with s = 1) or "M+2" (the paper's count, no answer coordinate)

    @property
    def n(self) -> int:
        """Sequence length ``2q``."""
        return 2 * self.q

    @property
    def m(self) -> int:
        """Token length: ``M + 3`` (two type coordinates, ``M`` word coordinates, one answer coordinate), or
        ``M + 2`` in the paper's layout (no answer coordinate; docs/math.md §10)."""
        return self.M + (2 if self.layout == "M+2" else 3)

    @property
    def label(self) -> str:
        return f"(M, q, n) = ({self.M}, {self.q}, {self.n})" + (", m = M + 2" if self.layout == "M+2" else "")

    @property
    def key(self) -> str:
        return f"M{self.M}_q{self.q}" + (f"_m{self.m}" if self.layout == "M+2" else "")

    def query_token(self, word: int) -> int:
        """``q_S = (0, 1, x_{S^c}, 1)``; in the ``M + 2`` layout ``(0, 1, x_{S^c})``."""
        if self.layout == "M+2":
            return 0b10 | ((~word & ((1 << self.M) - 1)) << 2)
        return query_token(word, self.M, 1)

    def database_token(self, word: int, k: int) -> int:
        """The match ``d_{S,0}`` or the padding ``d_{S,1}`` of word ``S``: ``(1, 0, x_S, k)``; in the ``M + 2``
        layout ``(1, 0, x_S)`` and ``(1, 0, x_{S ∪ {j}})``, ``j`` the lowest coordinate outside ``S`` (overlap one
        with ``q_S``, at least one with every other query token: docs/math.md §10)."""
        if self.layout == "M+2":
            return 0b01 | (_pad(word, k) << 2)
        return database_token(word, k, self.M, 1)

    @classmethod
    def parse(cls, text: str, distance: int = 1, layout: str = "M+3") -> "Setting":
        """``"M:q"`` or ``"M:q:h"`` (``4 ≤ M ≤ 16``, ``1 ≤ q ≤ 12``, ``1 ≤ h < M``); ``ValueError`` otherwise."""
        parts = text.strip().split(":")
        try:
            if len(parts) not in (2, 3):
                raise ValueError
            M, q = int(parts[0]), int(parts[1])
            h = int(parts[2]) if len(parts) == 3 else M // 2
        except ValueError:
            raise ValueError(f"setting {text.strip()[:40]!r}: expected M:q or M:q:h, e.g. 6:4") from None
        if not 4 <= M <= MAX_M or not 1 <= q <= MAX_Q or not 1 <= h < M:
            raise ValueError(f"setting {text.strip()[:40]!r}: need 4 ≤ M ≤ {MAX_M}, 1 ≤ q ≤ {MAX_Q} and 1 ≤ h < M")
        if layout not in LAYOUTS:
            raise ValueError(f"--layout {str(layout)[:10]!r}: expected one of {', '.join(LAYOUTS)}")
        return cls(M, q, h, distance, layout)

    def to_json(self) -> dict[str, int]:
        return {"M": self.M, "q": self.q, "n": self.n, "h": self.h, "m": self.m, "distance": self.distance}


def parse_fraction(text: str, name: str) -> Fraction:
    """A held-out share ``p/q`` or a short decimal in ``(0, 1)``, exactly (``ValueError`` otherwise).

    The spelling is checked before any number is built (``certify.kernels.audit.parse_tolerance``):
    ``1e999999999`` is refused at once, not expanded.

    >>> parse_fraction("1e999999999", "--held-out-words")
    Traceback (most recent call last):
    ...
    ValueError: --held-out-words: expected a fraction such as 1/4 or 0.25, not '1e999999999'
    """
    from ..kernels.audit import parse_tolerance

    t = str(text).strip()
    try:
        if len(t) > 20:
            raise ValueError
        v = parse_tolerance(t, name)
    except ValueError:
        raise ValueError(f"{name}: expected a fraction such as 1/4 or 0.25, not {t[:20]!r}") from None
    if not 0 < v < 1:
        raise ValueError(f"{name}: {t} is not strictly between 0 and 1")
    return v


@dataclass(frozen=True)
class SplitConfig:
    """Sizes of the three parts and the held-out shares (docs/experiments.md, "The split")."""

    train: int = 4096
    val: int = 512
    test: int = 1024
    held_out_words: Fraction = Fraction(1, 4)
    held_out_patterns: Fraction = Fraction(1, 4)
    permutations: int = 8
    held_out_permutations: Fraction = Fraction(1, 4)
    strict: bool = False  # --split strict: no test sequence has an all-training origin (docs/math.md §10)

    def to_json(self) -> dict[str, Any]:
        out = {"train": self.train, "val": self.val, "test": self.test,
               "held_out_words": str(self.held_out_words), "held_out_patterns": str(self.held_out_patterns),
               "permutations": self.permutations, "held_out_permutations": str(self.held_out_permutations)}
        if self.strict:  # only then: a listed split's documents stay what they were before the option
            out["strict"] = True
        return out


def permute_word(word: int, perm: tuple[int, ...]) -> int:
    """The word ``π(S) = {π(i) : i ∈ S}`` (bit ``i`` of ``word`` moves to bit ``perm[i]``)."""
    out = 0
    for i, j in enumerate(perm):
        if word >> i & 1:
            out |= 1 << j
    return out


def is_query_token(z: int) -> bool:
    """Type coordinates ``(0, 1)``: bit 0 clear, bit 1 set."""
    return z & 0b11 == 0b10


@dataclass
class Split:
    """A built split: the words, what is held out, and the three lists of shuffled sequences.

    Each sequence is a tuple of ``n`` tokens (bitmasks of ``m`` bits); ``*_origin[i]`` is
    ``(base words, pattern, permutation index)`` it was made from. A strict split
    (``strict``) keeps the listed split of the same draw in ``listed``: the same training and
    validation sequences, and the test set that the strict one refines.
    """

    setting: Setting
    config: SplitConfig
    draw: int
    words: tuple[int, ...]
    held_words: frozenset[int]
    patterns: tuple[tuple[int, ...], ...]
    held_patterns: frozenset[tuple[int, ...]]
    perms: tuple[tuple[int, ...], ...]
    held_perms: frozenset[int]
    train: list[tuple[int, ...]] = field(default_factory=list)
    val: list[tuple[int, ...]] = field(default_factory=list)
    test: list[tuple[int, ...]] = field(default_factory=list)
    train_origin: list[tuple] = field(default_factory=list)
    val_origin: list[tuple] = field(default_factory=list)
    test_origin: list[tuple] = field(default_factory=list)
    strict: bool = False
    listed: "Split | None" = None
    _inverses: list | None = field(default=None, repr=False, compare=False)

    def training_origin(self, origin: tuple) -> tuple | None:
        """An all-training origin of the sequence ``origin`` makes, or ``None`` (docs/math.md §10, "Strictly held out").

        The query tokens fix the permuted words ``T_i = π(S_i)`` and the database tokens fix
        each one's answer bit, so every origin of the same multiset is ``(σ⁻¹(T), p', σ)``:
        for each training permutation ``σ`` (in index order) the first one whose base words
        ``σ⁻¹(T_i)`` are all training words and whose pattern ``p'`` (the bits in the base
        words' order) is a training pattern is returned, as ``(words, pattern, index)``.
        Work: ``q`` look-ups per training permutation.
        """
        if self._inverses is None:
            train_words = [w for w in self.words if w not in self.held_words]
            self._inverses = [(j, {permute_word(w, p): w for w in train_words}) for j, p in enumerate(self.perms)
                              if j not in self.held_perms]
        ws, pat, k = origin
        images = [permute_word(w, self.perms[k]) for w in ws]
        for j, back in self._inverses:
            base = [back.get(t) for t in images]
            if None in base:
                continue
            order = sorted(range(len(base)), key=lambda i: base[i])  # the words' order (the code is sorted)
            other = tuple(pat[i] for i in order)
            if other not in self.held_patterns:
                return tuple(base[i] for i in order), other, j
        return None

    @property
    def tokens(self) -> list[int]:
        """Every token of the split, in order of first appearance (train, then validation, then test)."""
        return list(dict.fromkeys(z for part in (self.train, self.val, self.test) for seq in part for z in seq))

    def inputs(self, seq: tuple[int, ...]) -> list[Input]:
        """The ``q`` inputs of a sequence: queried at each query token's position, labels by the oracle."""
        return [Input(seq, i, self.setting.m) for i, z in enumerate(seq) if is_query_token(z)]


def _held(count: int, share: Fraction, what: str, keep: int = 1) -> int:
    """How many of ``count`` items to hold out: ``round(share·count)``, at least 1, leaving at least ``keep``."""
    k = max(1, round(share * count))
    if count - k < keep:
        raise SplitError(f"too few {what} to hold anything out: {count} in all, holding out {k} leaves "
                         f"{count - k}, and training needs {keep}")
    return k


def _sequence(setting: Setting, words: tuple[int, ...], pattern: tuple[int, ...], perm: tuple[int, ...],
              rng: random.Random) -> tuple[int, ...]:
    pw = [permute_word(w, perm) for w in words]
    toks = [setting.query_token(w) for w in pw] + [setting.database_token(w, k) for w, k in zip(pw, pattern)]
    rng.shuffle(toks)
    return tuple(toks)


def build_split(setting: Setting, config: SplitConfig, draw: int) -> Split:
    """The split of data draw ``draw`` (module docstring); :class:`SplitError` when it cannot be built.

    Checked before any sequence is drawn: enough words to hold out a share and still
    fill ``q`` training slots, at least one held-out and one training pattern and
    permutation. Then each part is drawn by rejection sampling (at most
    :data:`ATTEMPTS_PER_SEQUENCE` draws per sequence asked for, and at most :data:`MAX_MISSES`
    fruitless draws in a row); a part that cannot be
    filled (e.g. too few distinct test sequences exist) is a :class:`SplitError` too.

    ``config.strict`` (docs/math.md §10, "Strictly held out"; paper §6.2): the listed split is
    drawn first; then its test draw is repeated from the same generator state, refusing every
    sequence with an all-training origin (:meth:`Split.training_origin`). The strict split keeps
    the listed one in ``listed``. Refused before drawing: more than
    ``certify.check_split.MAX_ORIGIN_SEARCH`` look-ups for check-split's ``strict`` step; and when the
    strict test set cannot be filled, the error says how many were found and, with at most
    :data:`MAX_COUNTED_ORIGINS` held-out origins, exactly how many the draw has.
    """
    M, q = setting.M, setting.q
    for name, v in (("train", config.train), ("val", config.val), ("test", config.test)):
        if not 1 <= v <= MAX_SEQUENCES:
            raise SplitError(f"--{name} {v}: give 1 to {MAX_SEQUENCES:,} sequences")
    code = greedy_code(M, setting.h, setting.distance)
    words = tuple(code.words)
    rng = random.Random(f"certify-split:{M}:{q}:{setting.h}:{setting.distance}:{draw}")
    nheld = _held(len(words), config.held_out_words, f"code words (C({M}, {setting.h}) at directed distance ≥ "
                                                    f"{setting.distance}: {len(words)})", keep=q)
    if len(words) - nheld < q:
        raise SplitError(f"too few code words: {len(words)}")
    held_words = frozenset(rng.sample(words, nheld))
    patterns = tuple(itertools.product((0, 1), repeat=q))
    held_patterns = frozenset(rng.sample(patterns, _held(len(patterns), config.held_out_patterns, f"patterns (2^{q})")))
    if config.permutations < 2 or config.permutations > min(math.factorial(M), 10_000):
        raise SplitError(f"--permutations {config.permutations}: give 2 to {min(math.factorial(M), 10_000):,} "
                         "(a training and a held-out one at least)")
    from ..check_split import MAX_WORD_ACTIONS

    if len(words) * config.permutations > MAX_WORD_ACTIONS:  # what the split checker refuses: refused before drawing
        raise SplitError(f"--permutations {config.permutations}: {len(words):,} words × {config.permutations:,} "
                         f"permutations = {len(words) * config.permutations:,} word actions; the split checker "
                         f"computes at most {MAX_WORD_ACTIONS:,} (fewer permutations, or a smaller M)")
    perms: list[tuple[int, ...]] = []
    seen_p = set()  # by their action on the words: two permutations that move every word alike are one
    for _ in range(ATTEMPTS_PER_SEQUENCE * config.permutations):
        if len(perms) == config.permutations:
            break
        p = tuple(rng.sample(range(M), M))
        action = tuple(permute_word(w, p) for w in words)
        if action not in seen_p:
            seen_p.add(action)
            perms.append(p)
    if len(perms) < config.permutations:
        raise SplitError(f"--permutations {config.permutations}: only {len(perms)} permutations act differently on "
                         f"the {len(words)} code words")
    held_perms = frozenset(rng.sample(range(len(perms)), _held(len(perms), config.held_out_permutations, "permutations")))
    from ..check_split import MAX_ORIGIN_SEARCH

    work = config.test * (len(perms) - len(held_perms)) * q
    if config.strict and work > MAX_ORIGIN_SEARCH:  # what check-split's strict step refuses: refused before drawing
        raise SplitError(f"--split strict: {config.test:,} test sequences × {len(perms) - len(held_perms):,} training "
                         f"permutations × q = {q} is {work:,} word look-ups for check-split; at most "
                         f"{MAX_ORIGIN_SEARCH:,} (fewer test sequences or permutations)")
    split = Split(setting, config, draw, words, held_words, patterns, held_patterns, tuple(perms), held_perms)

    train_words = [w for w in words if w not in held_words]
    held_list = sorted(held_words)
    train_pats = [p for p in patterns if p not in held_patterns]
    held_pats = sorted(held_patterns)
    train_perms = [k for k in range(len(perms)) if k not in held_perms]
    held_perm_list = sorted(held_perms)
    seen: set[tuple[int, ...]] = set()

    def fill(part: list, origin: list, count: int, draw_one, name: str, accept=lambda seq, o: True,
             refuse: bool = True) -> int:
        misses = draws = 0
        while len(part) < count and draws < ATTEMPTS_PER_SEQUENCE * count and misses < MAX_MISSES:
            draws += 1
            ws, pat, k = draw_one()
            seq = _sequence(setting, ws, pat, perms[k], rng)
            key = tuple(sorted(seq))
            if key in seen or not accept(seq, (ws, pat, k)):
                misses += 1
                continue
            misses = 0
            seen.add(key)
            part.append(seq)
            origin.append((ws, pat, k))
        if len(part) < count and refuse:
            raise SplitError(f"only {len(part):,} distinct {name} sequences found in {draws:,} draws, {count:,} asked "
                             f"for (lower --{name}, or hold out more)")
        return draws

    def in_distribution():
        return tuple(sorted(rng.sample(train_words, q))), rng.choice(train_pats), rng.choice(train_perms)

    def joint_ood():
        first = rng.choice(held_list)
        rest = rng.sample([w for w in words if w != first], q - 1)
        return tuple(sorted([first] + rest)), rng.choice(held_pats), rng.choice(held_perm_list)

    fill(split.train, split.train_origin, config.train, in_distribution, "train")
    fill(split.val, split.val_origin, config.val, in_distribution, "val")
    train_tokens = {z for seq in split.train for z in seq}
    covered = lambda seq, o: all(z in train_tokens for z in seq)  # noqa: E731
    state, seen_before_test = rng.getstate(), set(seen)
    fill(split.test, split.test_origin, config.test, joint_ood, "test", covered)
    if config.strict:  # the listed test draw again, from the same state, refusing every all-training origin
        listed = split
        split = Split(setting, config, draw, words, held_words, patterns, held_patterns, tuple(perms), held_perms,
                      listed.train, listed.val, [], listed.train_origin, listed.val_origin, [], True, listed)
        rng.setstate(state)
        seen.clear()
        seen.update(seen_before_test)
        draws = fill(split.test, split.test_origin, config.test, joint_ood, "test",
                     lambda seq, o: covered(seq, o) and split.training_origin(o) is None, refuse=False)
        if len(split.test) < config.test:
            found = len(split.test)
            exact = _count_strict(split, seen_before_test, train_tokens)
            raise SplitError(f"--split strict: only {found:,} test sequence{'s' if found != 1 else ''} with no "
                             f"all-training origin found in {draws:,} draws, {config.test:,} asked for"
                             + (f"; this draw has exactly {exact:,} (every held-out origin counted)" if exact is not None
                                else "") + ": lower --test, or hold out more words or patterns")
    for part, origin in ((split.train, split.train_origin), (split.val, split.val_origin), (split.test, split.test_origin)):
        for seq, (ws, pat, k) in zip(part, origin):
            got = [X.target for X in split.inputs(seq)]
            want = [pat[sorted(ws).index(w)] for w in _query_words(seq, perms[k], ws, setting)]
            if got != want:  # the oracle is the label; the pattern must agree with it (a bug otherwise)
                raise AssertionError(f"labels {got} disagree with the pattern {want} of sequence {seq}")
    return split


def _count_strict(split: Split, seen: set, train_tokens: set[int]) -> int | None:
    """How many distinct strict test sequences the draw has (new, covered by training, no all-training origin), counted
    over every held-out origin; ``None`` past :data:`MAX_COUNTED_ORIGINS` origins."""
    q, words, held = split.setting.q, split.words, split.held_words
    pats, perms = sorted(split.held_patterns), sorted(split.held_perms)
    if math.comb(len(words), q) * len(pats) * len(perms) > MAX_COUNTED_ORIGINS:
        return None
    found = set()
    for ws in itertools.combinations(words, q):
        if held.isdisjoint(ws):
            continue
        for pat in pats:
            for k in perms:
                pw = [permute_word(w, split.perms[k]) for w in ws]
                seq = [split.setting.query_token(w) for w in pw] + [split.setting.database_token(w, b)
                                                                    for w, b in zip(pw, pat)]
                key = tuple(sorted(seq))
                if key not in seen and key not in found and all(z in train_tokens for z in seq) \
                        and split.training_origin((ws, pat, k)) is None:
                    found.add(key)
    return len(found)


def _query_words(seq: tuple[int, ...], perm: tuple[int, ...], words: tuple[int, ...], setting: Setting) -> list[int]:
    """The base word of each query token of ``seq``, in sequence order."""
    by_token = {setting.query_token(permute_word(w, perm)): w for w in words}
    return [by_token[z] for z in seq if is_query_token(z)]



def split_to_json(split: Split) -> dict[str, Any]:
    """The split as a ``certify-split/1`` document (docs/experiments.md, "The split file").

    It lists the words, permutations and what is held out, every sequence with its
    origin, and the test inputs as ``family.inputs`` — so ``certify check-kernel TABLE
    --family SPLIT`` evaluates a trained table on the held-out test set, and
    ``certify experiment check-split SPLIT`` proves the held-out properties.
    """
    s = split.setting
    m = s.m
    tokens = split.tokens
    pos = {z: i for i, z in enumerate(tokens)}
    widx = {w: i for i, w in enumerate(split.words)}
    bits = lambda x, k: format(x, f"0{k}b")[::-1]  # noqa: E731

    def part(seqs, origin):
        return [{"tokens": [pos[z] for z in seq], "words": [widx[w] for w in ws], "pattern": "".join(map(str, pat)),
                 "permutation": k} for seq, (ws, pat, k) in zip(seqs, origin)]

    doc = {
        "format": SPLIT_FORMAT,
        "setting": s.to_json(),
        "draw": split.draw,
        "config": split.config.to_json(),
        "words": [bits(w, s.M) for w in split.words],
        "permutations": [list(p) for p in split.perms],
        "held_out": {"words": sorted(widx[w] for w in split.held_words),
                     "patterns": sorted("".join(map(str, p)) for p in split.held_patterns),
                     "permutations": sorted(split.held_perms)},
        "tokens": [bits(z, m) for z in tokens],
        "parts": {"train": part(split.train, split.train_origin), "val": part(split.val, split.val_origin),
                  "test": part(split.test, split.test_origin)},
        "family": {"source": f"{'strict ' if split.strict else ''}joint out-of-distribution test set, {s.label}, "
                             f"data draw {split.draw}",
                   "inputs": [X.to_json() for seq in split.test for X in split.inputs(seq)]},
    }
    if split.strict:  # only then: a listed split's file is what it was before the option
        doc["strict"] = True
    return doc
