"""The split checker: proves from a ``certify-split/1`` file that its test set is held out.

One of the trusted checkers (docs/architecture.md): standard library only, and
``certify/check.py``'s bounded JSON reader and process guard beside it; it runs as a script,
``python certify/check_split.py SPLIT.json``, or as ``certify experiment check-split``. It rebuilds every
token and every sequence from the words, patterns and permutations written in the file,
independently of the producer (``certify.experiments.tasks``), and checks, in order —
each a named step, the first failure named with the sequence it concerns:

1. ``format``    the document's shape, sizes and types (malformed: exit 2);
2. ``tokens``    distinct ``m``-bit tokens, each a query token ``(0, 1, x_{S^c}, 1)`` or a
                 database token ``(1, 0, x_S, k)`` (``m = M + 3``); in the paper's layout
                 (``m = M + 2``, no answer coordinate) ``(0, 1, x_{S^c})`` or ``(1, 0, x_T)`` with
                 ``T`` of weight ``h`` (a match) or ``h + 1`` holding coordinate 0 (exactly the
                 sets ``S ∪ {j}``, ``j`` the lowest coordinate outside ``S``: a padding);
3. ``origin``    each sequence is, as a multiset, exactly the sequence its origin makes
                 (``q`` distinct code words ``S_i``, a pattern ``p``, a permutation ``π``:
                 the tokens ``q_{π(S_i)}`` and ``d_{π(S_i), p_i}``; in the ``M + 2`` layout the
                 padding ``d_{S,1}`` is ``(1, 0, x_{S ∪ {j}})``, ``j`` the lowest coordinate outside ``S``);
4. ``held-out``  training and validation origins use no held-out word, pattern or
                 permutation; each test origin uses a held-out pattern, a held-out
                 permutation and at least one held-out word;
5. ``disjoint``  no test sequence occurs in training or validation *as a multiset*
                 (order ignored), no validation sequence in training, none twice in a part;
6. ``coverage``  every token of every test sequence occurs in some training sequence;
7. ``labels``    ``family.inputs`` lists the test sequences' query positions in order, each
                 with the Min-IP target recomputed by the integer oracle (``min_j ⟨x_i, x_j⟩``),
                 which equals the pattern's answer;
8. ``strict``    only when the file says ``"strict": true`` (docs/math.md §10, "Strictly held
                 out"): no test sequence has an all-training origin. Its query tokens fix the
                 permuted words ``T_i`` and its database tokens each one's answer bit, so every
                 origin of the same multiset is ``(σ⁻¹(T), p', σ)``; for every training
                 permutation ``σ`` the base words ``σ⁻¹(T_i)`` are looked up among the training
                 words and, when all are, the pattern ``p'`` (the bits in their order) among the
                 held-out patterns. Work: ``|test| · |training permutations| · q`` look-ups,
                 refused past :data:`MAX_ORIGIN_SEARCH` from the counts (exit 2), before any.

Exit codes as everywhere: 0 all hold, 1 one fails, 2 the file is malformed (or the output
cannot be written), 3 a bug in this checker; 130 Ctrl-C, 141 a closed pipe, 143 SIGTERM.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

if __package__:
    from .check import CertificateError, guard_process, load, script_args
else:  # run as a script (python certify/check_split.py FILE): certify/check.py is beside it
    import os as _os
    import sys as _sys

    _sys.path.insert(0, _os.path.dirname(_os.path.abspath(__file__)))
    from check import CertificateError, guard_process, load, script_args

__all__ = ["SPLIT_FORMAT", "MAX_WORD_ACTIONS", "MAX_ORIGIN_SEARCH", "SplitMalformed", "SplitReport", "check_split",
           "check_split_file", "main"]

SPLIT_FORMAT = "certify-split/1"
MAX_SEQUENCES = 200_000
MAX_M = 16
MAX_Q = 12
MAX_PERMUTATIONS = 10_000
#: Words × permutations: the ``format`` step computes and keeps every permutation's action on every
#: word (to refuse two permutations that act alike); refused past this product from the file's counts,
#: before any is computed (at the limit, 12,870 words × 77 permutations: 2.0 s of CPU, 61 MB peak for the
#: whole command, 2-core reference machine). The producer (``certify.experiments.tasks.build_split``)
#: refuses the same product before drawing.
MAX_WORD_ACTIONS = 1_000_000
#: Test sequences × training permutations × q: the word look-ups of the ``strict`` step, refused past this from the
#: file's counts (at the limit, the step alone: ≈ 3 s of CPU, 2-core reference machine, an in-process timing); the producer
#: (``certify.experiments.tasks.build_split``) refuses the same product before drawing.
MAX_ORIGIN_SEARCH = 10_000_000


class SplitMalformed(ValueError):
    """The file is not a readable split (exit 2); the message names the field."""


@dataclass
class SplitReport:
    """What :func:`check_split` found: counts, and the first failing step (``None``: every property holds)."""

    setting: dict[str, int]
    counts: dict[str, int] = field(default_factory=dict)
    failure: tuple[str, str] | None = None  # (step, message)
    steps: list[str] = field(default_factory=list)

    @property
    def ok(self) -> bool:
        return self.failure is None

    def text(self) -> list[str]:
        s, c = self.setting, self.counts
        lines = [f"split        (M, q, n) = ({s['M']}, {s['q']}, {s['n']}), m = {s['m']}: {c.get('train', 0):,} train, "
                 f"{c.get('val', 0):,} validation, {c.get('test', 0):,} test sequences, {c.get('tokens', 0):,} tokens"]
        for step in self.steps:
            lines.append(f"  {step:<10} holds")
        if self.failure:
            lines.append(f"  {self.failure[0]:<10} FAILS: {self.failure[1]}")
        else:
            lines.append(f"held out     yes: no test sequence occurs in training or validation, even as a multiset; "
                         f"every test token occurs in training ({c.get('test_words_held', 0):,} held-out words, "
                         f"{c.get('patterns_held', 0):,} patterns, {c.get('permutations_held', 0):,} permutations)")
            if "strict" in self.steps:
                lines.append(f"strictly     yes: no test sequence has an origin of training words, a training pattern "
                             f"and a training permutation ({c['origin_lookups']:,} word look-ups)")
        return lines

    def to_json(self) -> dict[str, Any]:
        return {"schema": "certify.check-split/1", "setting": self.setting, "counts": self.counts,
                "holds": self.ok, "steps_passed": self.steps,
                "failure": None if self.failure is None else {"step": self.failure[0], "reason": self.failure[1]}}


class _Fail(Exception):
    def __init__(self, step: str, msg: str) -> None:
        super().__init__(msg)
        self.step, self.msg = step, msg


def _bad(where: str, msg: str):
    raise SplitMalformed(f"{where}: {msg}")


def _show(v: Any) -> str:
    return f"{type(v).__name__} {repr(v)[:40]}"


def _int(v: Any, where: str, lo: int, hi: int) -> int:
    if type(v) is not int or not lo <= v <= hi:
        _bad(where, f"expected an integer from {lo} to {hi}, got {_show(v)}")
    return v


def _list(v: Any, where: str, hi: int) -> list:
    if not isinstance(v, list):
        _bad(where, f"expected an array, got {type(v).__name__}")
    if len(v) > hi:
        _bad(where, f"{len(v):,} entries; at most {hi:,}")
    return v


def _bitstring(v: Any, where: str, k: int) -> int:
    if not isinstance(v, str) or len(v) != k or v.strip("01"):
        _bad(where, f"expected a 0/1 string of length {k}, got {_show(v)}")
    return int(v[::-1], 2)


def _query(word: int, M: int, m: int) -> int:
    return 0b10 | ((~word & ((1 << M) - 1)) << 2) | ((1 << (2 + M)) if m == M + 3 else 0)


def _database(word: int, k: int, M: int, m: int) -> int:
    if m == M + 2:  # the padding: the lowest coordinate outside S added (overlap one with q_S)
        return 0b01 | ((word | (~word & (word + 1)) if k else word) << 2)
    return 0b01 | (word << 2) | (k << (2 + M))


def _permute(word: int, perm: list[int]) -> int:
    return sum(1 << j for i, j in enumerate(perm) if word >> i & 1)


def check_split_file(path: str) -> SplitReport:
    """:func:`check_split` on a file (read by ``certify.check.load``: 64 MiB, no floats, bounded parse)."""
    try:
        doc = load(path)
    except CertificateError as exc:
        raise SplitMalformed(f"{path}: {exc}") from None
    return check_split(doc)


def check_split(doc: Any) -> SplitReport:
    """Check a split document (module docstring); :class:`SplitMalformed` for step 1, else a report."""
    if not isinstance(doc, dict) or doc.get("format") != SPLIT_FORMAT:
        _bad("format", f"expected an object with \"format\": \"{SPLIT_FORMAT}\"")
    known = {"format", "setting", "draw", "config", "words", "permutations", "held_out", "tokens", "parts", "family",
             "strict"}
    extra = sorted(set(doc) - known)
    if extra:
        _bad("format", f"unknown key {extra[0][:40]!r}")
    strict = doc.get("strict", False)
    if type(strict) is not bool:
        _bad("strict", f"expected true or false, got {_show(strict)}")
    if type(doc.get("draw")) is not int or doc["draw"] < 0:
        _bad("draw", f"expected an integer ≥ 0, got {_show(doc.get('draw'))}")
    if not isinstance(doc.get("config"), dict):
        _bad("config", "expected an object")
    st = doc.get("setting")
    if not isinstance(st, dict):
        _bad("setting", "expected an object")
    M = _int(st.get("M"), "setting.M", 4, MAX_M)
    q = _int(st.get("q"), "setting.q", 1, MAX_Q)
    n = _int(st.get("n"), "setting.n", 2 * q, 2 * q)
    h = _int(st.get("h"), "setting.h", 1, M - 1)
    m = _int(st.get("m"), "setting.m", M + 2, M + 3)  # M + 3: ours; M + 2: the paper's layout
    _int(st.get("distance"), "setting.distance", 1, M)
    if set(st) != {"M", "q", "n", "h", "m", "distance"}:
        _bad("setting", "expected the keys M, q, n, h, m, distance")
    report = SplitReport({"M": M, "q": q, "n": n, "h": h, "m": m})
    words = [_bitstring(w, f"words[{i}]", M) for i, w in enumerate(_list(doc.get("words"), "words", 1 << MAX_M))]
    for i, w in enumerate(words):
        if w.bit_count() != h:
            _bad(f"words[{i}]", f"has weight {w.bit_count()}, the setting's h is {h}")
    if len(set(words)) != len(words):
        _bad("words", "a word is listed twice")
    perms, acted = [], []
    actions: dict[tuple[int, ...], int] = {}
    listed = _list(doc.get("permutations"), "permutations", MAX_PERMUTATIONS)
    if len(words) * len(listed) > MAX_WORD_ACTIONS:
        _bad("permutations", f"{len(words):,} words × {len(listed):,} permutations = {len(words) * len(listed):,} word "
                             f"actions to compute and keep; at most {MAX_WORD_ACTIONS:,}")
    for i, p in enumerate(listed):
        p = _list(p, f"permutations[{i}]", M)
        if sorted(x if type(x) is int else -1 for x in p) != list(range(M)):
            _bad(f"permutations[{i}]", f"is not a permutation of 0…{M - 1}")
        action = tuple(_permute(w, p) for w in words)  # what it does to the words: two alike would be one
        if action in actions:
            _bad(f"permutations[{i}]", f"maps every word as permutations[{actions[action]}] does (listed twice)")
        actions[action] = i
        perms.append(p)
        acted.append(action)
    if len(perms) < 2:
        _bad("permutations", f"{len(perms)} listed; a split needs a training and a held-out one")
    held = doc.get("held_out")
    if not isinstance(held, dict) or set(held) != {"words", "patterns", "permutations"}:
        _bad("held_out", "expected an object with words, patterns, permutations")
    held_list = [_int(v, f"held_out.words[{i}]", 0, len(words) - 1)
                 for i, v in enumerate(_list(held["words"], "held_out.words", len(words)))]
    held_words = set(held_list)
    if len(held_words) != len(held_list):
        _bad("held_out.words", "a word is listed twice")
    held_pats = set()
    for i, v in enumerate(_list(held["patterns"], "held_out.patterns", 1 << q)):
        _bitstring(v, f"held_out.patterns[{i}]", q)
        if tuple(int(c) for c in v) in held_pats:
            _bad(f"held_out.patterns[{i}]", "is listed twice")
        held_pats.add(tuple(int(c) for c in v))
    held_plist = [_int(v, f"held_out.permutations[{i}]", 0, len(perms) - 1)
                  for i, v in enumerate(_list(held["permutations"], "held_out.permutations", len(perms)))]
    held_perms = set(held_plist)
    if len(held_perms) != len(held_plist):
        _bad("held_out.permutations", "a permutation is listed twice")
    tokens = [_bitstring(z, f"tokens[{i}]", m) for i, z in enumerate(_list(doc.get("tokens"), "tokens", 3 << MAX_M))]
    parts = doc.get("parts")
    if not isinstance(parts, dict) or set(parts) != {"train", "val", "test"}:
        _bad("parts", "expected an object with train, val, test")
    seqs: dict[str, list] = {}
    for name in ("train", "val", "test"):
        rows = []
        for i, rec in enumerate(_list(parts[name], f"parts.{name}", MAX_SEQUENCES)):
            where = f"parts.{name}[{i}]"
            if not isinstance(rec, dict) or set(rec) != {"tokens", "words", "pattern", "permutation"}:
                _bad(where, "expected an object with tokens, words, pattern, permutation")
            toks = [_int(v, f"{where}.tokens[{k}]", 0, len(tokens) - 1)
                    for k, v in enumerate(_list(rec["tokens"], f"{where}.tokens", n))]
            if len(toks) != n:
                _bad(f"{where}.tokens", f"has {len(toks)} tokens; n = {n}")
            ws = [_int(v, f"{where}.words[{k}]", 0, len(words) - 1)
                  for k, v in enumerate(_list(rec["words"], f"{where}.words", q))]
            if len(ws) != q:
                _bad(f"{where}.words", f"has {len(ws)} words; q = {q}")
            if any(a >= b for a, b in zip(ws, ws[1:])):  # the pattern is read in this order
                _bad(f"{where}.words", "must list distinct words in increasing order (the pattern follows it)")
            _bitstring(rec["pattern"], f"{where}.pattern", q)
            pat = tuple(int(c) for c in rec["pattern"])
            k = _int(rec["permutation"], f"{where}.permutation", 0, len(perms) - 1)
            rows.append((toks, ws, pat, k))
        if not rows:
            _bad(f"parts.{name}", "no sequences")
        seqs[name] = rows
    fam = doc.get("family")
    if not isinstance(fam, dict) or not isinstance(fam.get("inputs"), list) or not set(fam) <= {"source", "inputs"}:
        _bad("family", "expected an object with an inputs array (the test inputs) and optionally a source")
    if len(fam["inputs"]) > MAX_SEQUENCES * q:
        _bad("family.inputs", f"{len(fam['inputs']):,} entries; at most {MAX_SEQUENCES * q:,}")
    report.counts = {"tokens": len(tokens), "words": len(words), "train": len(seqs["train"]), "val": len(seqs["val"]),
                     "test": len(seqs["test"]), "test_words_held": len(held_words), "patterns_held": len(held_pats),
                     "permutations_held": len(held_perms)}
    if strict:
        work = len(seqs["test"]) * (len(perms) - len(held_perms)) * q
        if work > MAX_ORIGIN_SEARCH:
            _bad("strict", f"{len(seqs['test']):,} test sequences × {len(perms) - len(held_perms):,} training "
                           f"permutations × q = {q} is {work:,} word look-ups; at most {MAX_ORIGIN_SEARCH:,}")
        report.counts["origin_lookups"] = work
    try:
        _steps(report, M, m, q, words, perms, held_words, held_pats, held_perms, tokens, seqs, fam["inputs"])
        if strict:
            _strict(report, acted, held_words, held_pats, held_perms, seqs["test"])
    except _Fail as f:
        report.failure = (f.step, f.msg)
    return report


def _strict(report, acted, held_words, held_pats, held_perms, test) -> None:
    """Step 8 (module docstring): the first test sequence with an all-training origin, named with that origin."""
    training = [i for i in range(len(acted[0])) if i not in held_words]
    found = None  # (sequence, permutation, words, pattern): the lowest sequence, then the lowest permutation
    for j in (j for j in range(len(acted)) if j not in held_perms):
        back = {acted[j][i]: i for i in training}  # σ(S) → S, over the training words
        for i, (toks, ws, pat, k) in enumerate(test[:None if found is None else found[0]]):
            base = [back.get(acted[k][w]) for w in ws]  # σ⁻¹(π(S_i)): a training word, or None
            if None not in base:
                order = sorted(range(len(ws)), key=base.__getitem__)
                other = tuple(pat[r] for r in order)
                if other not in held_pats:
                    found = (i, j, [base[r] for r in order], other)
                    break
    if found is not None:
        i, j, ws, pat = found
        raise _Fail("strict", f"parts.test[{i}] has an all-training origin: words {ws}, pattern "
                              f"{''.join(map(str, pat))}, permutation {j} make its tokens too")
    report.steps.append("strict")


def _steps(report, M, m, q, words, perms, held_words, held_pats, held_perms, tokens, seqs, inputs) -> None:
    h = report.setting["h"]
    # 2. tokens
    step = "tokens"
    if len(set(tokens)) != len(tokens):
        raise _Fail(step, "a token is listed twice")
    for i, z in enumerate(tokens):
        typ, word, ans = z & 3, z >> 2 & ((1 << M) - 1), z >> (2 + M)
        if typ == 0b10:
            ok = ans == (1 if m == M + 3 else 0) and (M - word.bit_count()) == h
        elif typ == 0b01:
            # M + 2: a padding S ∪ {j}, j the lowest coordinate outside S, always holds coordinate 0 (if 0 ∉ S then
            # j = 0; else 0 ∈ S), and every weight-(h + 1) set holding 0 is one (S = T ∖ {0}, j = 0)
            ok = word.bit_count() == h or (m == M + 2 and word.bit_count() == h + 1 and word & 1 == 1)
        else:
            ok = False
        if not ok:
            raise _Fail(step, (f"tokens[{i}] is neither a query token (0, 1, x_(S^c), 1) nor a database token "
                               f"(1, 0, x_S, k) of a weight-{h} word") if m == M + 3 else
                        (f"tokens[{i}] is neither a query token (0, 1, x_(S^c)) nor a database token (1, 0, x_T) "
                         f"with T of weight {h}, or of weight {h + 1} holding coordinate 0 (a padding S ∪ {{j}}, "
                         "the M + 2 layout)"))
    report.steps.append(step)
    # 3. origin
    step = "origin"
    for name, rows in seqs.items():
        for i, (toks, ws, pat, k) in enumerate(rows):
            if len(set(ws)) != q:
                raise _Fail(step, f"parts.{name}[{i}] repeats a word")
            pw = [_permute(words[w], perms[k]) for w in ws]
            made = sorted([_query(w, M, m) for w in pw] + [_database(w, b, M, m) for w, b in zip(pw, pat)])
            if made != sorted(tokens[t] for t in toks):
                raise _Fail(step, f"parts.{name}[{i}]: its tokens are not the sequence its words, pattern "
                                  f"{''.join(map(str, pat))} and permutation {k} make")
    report.steps.append(step)
    # 4. held-out
    step = "held-out"
    for name in ("train", "val"):
        for i, (toks, ws, pat, k) in enumerate(seqs[name]):
            used = [f"word {w}" for w in ws if w in held_words] + ([f"pattern {''.join(map(str, pat))}"]
                                                                   if pat in held_pats else []) + \
                   ([f"permutation {k}"] if k in held_perms else [])
            if used:
                raise _Fail(step, f"parts.{name}[{i}] uses a held-out {used[0]}")
    for i, (toks, ws, pat, k) in enumerate(seqs["test"]):
        if pat not in held_pats or k not in held_perms or not any(w in held_words for w in ws):
            what = ("pattern" if pat not in held_pats else "permutation" if k not in held_perms else "word")
            raise _Fail(step, f"parts.test[{i}] has no held-out {what}")
    report.steps.append(step)
    # 5. disjoint (multisets: sorted token lists)
    step = "disjoint"
    keys: dict[str, dict[tuple, int]] = {}
    for name, rows in seqs.items():
        keys[name] = {}
        for i, (toks, *_rest) in enumerate(rows):
            key = tuple(sorted(tokens[t] for t in toks))
            if key in keys[name]:
                raise _Fail(step, f"parts.{name}[{i}] repeats parts.{name}[{keys[name][key]}] as a multiset")
            keys[name][key] = i
    for name, others in (("val", ("train",)), ("test", ("train", "val"))):
        for key, i in keys[name].items():
            for other in others:
                if key in keys[other]:
                    raise _Fail(step, f"parts.{name}[{i}] occurs in {other} as parts.{other}[{keys[other][key]}] "
                                      "(as a multiset of tokens)")
    report.steps.append(step)
    # 6. coverage
    step = "coverage"
    seen = {tokens[t] for toks, *_r in seqs["train"] for t in toks}
    for i, (toks, *_r) in enumerate(seqs["test"]):
        for t in toks:
            if tokens[t] not in seen:
                raise _Fail(step, f"parts.test[{i}] has tokens[{t}], which occurs in no training sequence")
    report.steps.append(step)
    # 7. labels
    step = "labels"
    k_in = 0
    for i, (toks, ws, pat, k) in enumerate(seqs["test"]):
        seq = [tokens[t] for t in toks]
        by_query = {_query(_permute(words[w], perms[k]), M, m): b for w, b in zip(ws, pat)}
        for pos, x in enumerate(seq):
            if x & 3 != 0b10:
                continue
            if k_in >= len(inputs):
                raise _Fail(step, f"family.inputs ends at {len(inputs):,}; parts.test[{i}] needs more")
            obj = inputs[k_in]
            want = [format(z, f"0{m}b")[::-1] for z in seq]
            target = min((x & z).bit_count() for z in seq)
            if not isinstance(obj, dict) or set(obj) != {"tokens", "query", "target"} or obj["tokens"] != want \
                    or type(obj["query"]) is not int or obj["query"] != pos \
                    or type(obj["target"]) is not int or obj["target"] != target:
                raise _Fail(step, f"family.inputs[{k_in}] is not parts.test[{i}] queried at position {pos} with "
                                  f"target {target}")
            if target != by_query[x]:
                raise _Fail(step, f"parts.test[{i}] position {pos}: the oracle's target {target} is not the "
                                  f"pattern's answer {by_query[x]}")
            k_in += 1
    if k_in != len(inputs):
        raise _Fail(step, f"family.inputs has {len(inputs):,} entries; the test sequences have {k_in:,} queries")
    report.steps.append(step)


def main(argv: list[str] | None = None) -> int:
    """usage: python certify/check_split.py [--json] [--] SPLIT.json

    Prove from a certify-split/1 file that its test set is held out, with the standard
    library alone (docs/experiments.md, "check-split"): every token, sequence and label is
    rebuilt from the words, patterns and permutations in the file; a file that says
    "strict": true is also searched for a test sequence with an all-training origin
    (docs/math.md §10). Prints the steps that hold, or the first that fails with the
    sequence it concerns.

    --json          print one JSON object (schema certify.check-split/1)
    -h, --help      print this text and exit 0

    Exit codes: 0 every property holds, 1 one fails (named), 2 malformed or unreadable (or
    standard output cannot be written), 3 a bug in this checker; 130 Ctrl-C, 141 a closed
    pipe, 143 SIGTERM.
    """
    return guard_process(lambda: _main(argv), "check_split.py")


def _main(argv: list[str] | None) -> int:
    import json
    import sys

    code, path, given = script_args(argv, main.__doc__, "usage: check_split.py [--json] [--] SPLIT.json", ("--json",))
    if code is not None:
        return code
    as_json = "--json" in given
    try:
        report = check_split_file(path)
    except SplitMalformed as exc:
        print(f"MALFORMED: {exc}", file=sys.stderr)
        return 2
    except Exception as exc:  # a bug here, never the file's fault: one line, exit 3
        print(f"INTERNAL CONTRADICTION: unexpected {type(exc).__name__} in the split checker: {str(exc)[:200]}",
              file=sys.stderr)
        return 3
    if as_json:
        print(json.dumps(report.to_json()))
    else:
        print("\n".join(report.text()))
    return 0 if report.ok else 1


if __name__ == "__main__":
    import sys

    sys.exit(main())
