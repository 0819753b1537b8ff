"""Seeded fuzzers for the checker and ``check-kernel`` (issue 7), and independent re-derivations.

The mutators take a ``random.Random`` and never read the global RNG, so a run is fixed by
its seed (``CERTIFY_FUZZ_SEED``, default below) and its size (``CERTIFY_FUZZ_N``). The
re-derivations recompute what an accepted input claims with code that shares nothing
with the code under test: the producer-side lemmas (``codes``, ``witnesses``,
``certify.lemmas``) for certificates, numpy's own loader and plain ``Fraction`` loops for
kernel tables.
"""
from __future__ import annotations

import copy
import io
import json
import os
import re
import struct
import zipfile
from decimal import Decimal
from fractions import Fraction
from random import Random
from typing import Any

SEED = int(os.environ.get("CERTIFY_FUZZ_SEED", "20261130"))
# 3,000 in the suite (issue 42: its CPU time; every verdict kind is still reached hundreds of times); the same seed's
# 10,000 in ``python tests/benchmarks/bench_suite_full.py`` (or set CERTIFY_FUZZ_N).
COUNT = int(os.environ.get("CERTIFY_FUZZ_N", "3000"))
SLOW_UNITS = 60  # no single input may take longer (issue 7): in conftest.cpu_unit()s, ≈ 1 s of CPU on the CI machine

# Spellings and fragments an attacker tries: huge, non-canonical, expanding, escaping, nesting.
NASTY_NUMBERS = [b"-0", b"0.0", b"1e999999999", b"1e-999999999", b"1E2", b"00", b"-1", b"1.5", b"NaN", b"Infinity",
                 b"-Infinity", b"9007199254740992", b"99999999999999999999999999", b"9" * 5000, b"0x10", b"+1",
                 b"1e10000000", b'"0e999999999"', b'"1/0"', b'"-0"', b'"4/2"', b'"1' + b"0" * 300 + b'"', b"true", b"null"]
NASTY_FRAGMENTS = [b"[", b"]", b"{", b"}", b",", b":", b'"', b"\\", b"\\u0031", b"\\/", b"\xff", b"\x00", b"\xc3\xa9",
                   b"\xf0\x9f\x98\x80", b"[" * 3000 + b"]" * 3000, b"{\"a\":" * 500 + b"1" + b"}" * 500, b"//", b"\n"]
NASTY_VALUES: list[Any] = [None, True, False, 0, -1, 2**53, 2**53 - 1, 2**64, 10**30, "", "x", "1/0", "-0", "0/1", "4/2",
                           "1" * 199 + "/7", "1" * 201, [], {}, [[]], {"a": 1}, 0.5, "0" * 4097, "01" * 6, "é"]


def rng_for(test: str, seed: int = SEED) -> Random:
    """One RNG per test, fixed by the global seed and the test's name (runs are reproducible)."""
    return Random(f"{seed}:{test}")


# --------------------------------------------------------------------------- byte-level mutations


def mutate_bytes(data: bytes, rng: Random) -> tuple[bytes, str]:
    """One random byte-level edit: flips, insertions, deletions, truncation, numbers respelled, nesting."""
    kind = rng.choice(["flip", "byte", "insert", "delete", "truncate", "duplicate", "number", "nest", "escape"])
    n = len(data)
    i = rng.randrange(n + 1) if n else 0
    if kind == "flip" and n:
        j = rng.randrange(n)
        return data[:j] + bytes([data[j] ^ (1 << rng.randrange(8))]) + data[j + 1:], kind
    if kind == "byte" and n:
        j = rng.randrange(n)
        return data[:j] + bytes([rng.randrange(256)]) + data[j + 1:], kind
    if kind == "insert":
        return data[:i] + rng.choice(NASTY_FRAGMENTS + NASTY_NUMBERS) + data[i:], kind
    if kind == "delete" and n:
        j = min(n, i + rng.randrange(1, 64))
        return data[:i] + data[j:], kind
    if kind == "truncate":
        return data[:i], kind
    if kind == "duplicate" and n:
        j = min(n, i + rng.randrange(1, 256))
        return data[:j] + data[i:j] + data[j:], kind
    if kind == "number":
        spots = [m.span() for m in re.finditer(rb"-?[0-9]+(?:\.[0-9]+)?(?:[eE][-+]?[0-9]+)?", data)]
        if spots:
            a, b = rng.choice(spots)
            return data[:a] + rng.choice(NASTY_NUMBERS) + data[b:], kind
    if kind == "nest":
        depth = rng.choice([10, 1000, 100000])
        return data[:i] + b"[" * depth + b"1" + b"]" * depth + data[i:], kind
    if kind == "escape":
        spots = [m.start() for m in re.finditer(rb'"[01]', data)]
        if spots:
            a = rng.choice(spots) + 1
            return data[:a] + b"\\u003" + data[a:a + 1] + data[a + 1:], kind
    return data[: max(0, n - 1)], "truncate"


# --------------------------------------------------------------------------- structural mutations


def _paths(node, path=()):
    yield path, node
    if isinstance(node, dict):
        for k, v in node.items():
            yield from _paths(v, path + (k,))
    elif isinstance(node, list):
        for k, v in enumerate(node):
            yield from _paths(v, path + (k,))


def _get(doc, path):
    for k in path:
        doc = doc[k]
    return doc


def mutate_structure(doc: Any, rng: Random, semantic: bool = False) -> str:
    """One random edit of a parsed JSON document, in place: values, types, keys, list items.

    ``semantic`` keeps every type and key (numbers nudged, token bits flipped, list items
    swapped, repeated or dropped): the file stays well formed, so only the mathematics can
    tell whether it still proves its claim.
    """
    paths = [p for p, _ in _paths(doc) if p and p != ("sha256",)]
    if not paths:
        return "none"
    path = rng.choice(paths)
    parent, key, value = _get(doc, path[:-1]), path[-1], _get(doc, path)
    kinds = ["tweak"] * 4 + ["swap", "swap", "dup", "shuffle"]
    kind = rng.choice(kinds if semantic else kinds + ["value", "value", "drop", "add"])
    if kind == "tweak":
        if isinstance(value, bool) or value is None:
            parent[key] = not value
        elif isinstance(value, int):
            parent[key] = value + rng.choice([-3, -1, 1, 2, 5, 2**20])
        elif isinstance(value, float):
            parent[key] = value * rng.choice([-1, 0.5, 2, 1e300])
        elif isinstance(value, str) and value and set(value) <= set("01"):
            k = rng.randrange(len(value))
            parent[key] = value[:k] + ("1" if value[k] == "0" else "0") + value[k + 1:]
        elif isinstance(value, str) and re.fullmatch(r"-?[0-9]+(/[0-9]+)?", value):
            num, _, den = value.partition("/")
            parent[key] = f"{int(num) + rng.choice([-1, 1, 7])}" + (f"/{den}" if den else "")
        elif isinstance(value, list) and value:
            del value[rng.randrange(len(value))]
        elif not semantic:
            parent[key] = rng.choice(NASTY_VALUES)
        return f"tweak {path[-2:]}"
    if kind == "drop" and isinstance(parent, dict):
        del parent[key]
        return f"drop {key}"
    if kind == "add":
        target = value if isinstance(value, (dict, list)) else parent
        if isinstance(target, dict):
            target[rng.choice(["extra", "x", "note", "tokens", "kernel", "version"])] = copy.deepcopy(rng.choice(NASTY_VALUES))
        else:
            target.insert(rng.randrange(len(target) + 1), copy.deepcopy(rng.choice(NASTY_VALUES)))
        return "add"
    if kind == "dup" and isinstance(parent, list):
        parent.insert(rng.randrange(len(parent) + 1), copy.deepcopy(value))
        return "dup"
    if kind == "swap" and isinstance(parent, list) and len(parent) > 1:
        j = rng.randrange(len(parent))
        parent[key], parent[j] = parent[j], parent[key]
        return "swap"
    if kind == "shuffle" and isinstance(value, list):
        rng.shuffle(value)
        return "shuffle"
    if semantic:
        return "none"
    parent[key] = copy.deepcopy(rng.choice(NASTY_VALUES))
    return f"value {path[-2:]}"


# --------------------------------------------------------------------------- certificates: independent bound


def rederive_certificate_bound(doc: dict) -> int:
    """What the data of an accepted certificate prove, recomputed with the producer-side lemmas.

    Raises AssertionError if the data do not form a valid argument (docs/math.md §3–§5).
    """
    from codes import complement, from_bits
    from certify.lemmas.amplification import chain_factor
    from certify.lemmas.domination import domination_factor
    from certify.lemmas.frobenius import certified_rank
    from witnesses import Input, Jump

    claim = doc["claim"]
    m, n, eps = claim["m"], claim["length"], Fraction(claim["error_below"])
    words = [from_bits(w, m) for w in doc["code"]["words"]]
    assert len(set(words)) == len(words) >= 2
    family = set()
    for x in doc["family"]["inputs"]:
        X = Input(tuple(from_bits(s, m) for s in x["tokens"]), x["query"], m)
        assert X.target == x["target"] and X.length == n
        family.add(X)
    factors = []
    for j in doc["jumps"]:
        J = Jump(from_bits(j["x"], m), from_bits(j["y"], m), from_bits(j["z"], m), m)
        assert all(w in family for w in J.witnesses(n))
        f = domination_factor(J.gap, n, eps)
        assert f >= 1
        factors.append((J, f))
    chain_factors = {}
    for ch in doc["chains"]:
        s, u = ch["pair"]
        key, fs = complement(words[s], m), []
        for j in ch["jumps"]:
            J, f = factors[j]
            assert J.x == words[s] and J.y == key
            key = J.z
            fs.append(f)
        assert key == complement(words[u], m) and s != u
        chain_factors[(s, u)] = chain_factor(fs)
    t = len(words)
    assert set(chain_factors) == {(s, u) for s in range(t) for u in range(t) if s != u}
    bound = certified_rank(t, list(chain_factors.values()))
    arg = doc.get("argument")
    if arg is not None and arg["name"] != "trace-frobenius":  # docs/math.md §5, recomputed by certify.lemmas.sharper
        classes = pair_classes(words, m, chain_factors) if arg["name"] == "square-kernel" else None
        bound = max(bound, rederive_argument(arg, t, chain_factors.values(), classes, m))
    return bound


def pair_classes(words: list[int], m: int, chain_factors: dict) -> dict | None:
    """``{(F, d): pairs}`` for square-kernel, from the words themselves: the ±1 Gram entry of a pair is
    ``y = m − 2|S Δ U|`` (counted here from the symmetric difference), and ``d = (m − y)/4`` is its class;
    ``None`` if ``y ≠ m − 4|S ∖ U|`` for some pair (words of several weights)."""
    from collections import Counter

    classes: Counter = Counter()
    for (s, u), f in chain_factors.items():
        y = m - 2 * bin(words[s] ^ words[u]).count("1")
        if (m - y) % 4 or (m - y) // 4 != bin(words[s] & ~words[u]).count("1"):
            return None
        classes[(f, (m - y) // 4)] += 1
    return dict(classes)


def rederive_argument(arg: dict, t: int, factors, classes: dict | None, length: int) -> int:
    """The bound an accepted ``argument`` proves, recomputed with ``certify.lemmas.sharper`` (producer side).

    ``factors``: the chain factor of every ordered pair; ``classes``: ``{(F, d): pairs}`` (square-kernel; ``None``
    when the words have several weights, where the argument does not apply). Raises AssertionError if a
    hypothesis fails (``0 ≤ s < 1``; ``μ_j ≥ 0``, at most 8 of them, ``m₀ < 1 + b + g``; one weight) or a
    stated number is not the recomputed one.
    """
    from collections import Counter

    from certify.lemmas import sharper

    by_factor = Counter(factors)
    name = arg["name"]
    try:
        if name in ("shifted", "null-shifted"):
            s = Fraction(arg["s"])
            assert 0 <= s < 1, f"{name}: s = {s} outside [0, 1)"
            a = (sharper.shifted if name == "shifted" else sharper.null_shifted)(t, by_factor, s)
        elif name == "square":
            a = sharper.square(t, by_factor, Fraction(arg["b"]), Fraction(arg["g"]))
        else:
            assert name == "square-kernel", name
            assert classes is not None, "square-kernel accepted on words of several weights"
            mu = [Fraction(v) for v in arg["mu"]]
            assert len(mu) <= 8 and all(v >= 0 for v in mu), f"square-kernel accepted with μ = {mu}"
            a = sharper.square_kernel(t, classes, length, Fraction(arg["b"]), Fraction(arg["g"]), mu)
    except ValueError as exc:  # a hypothesis of the lemma fails: the checker must not have accepted
        raise AssertionError(f"{name} accepted, but {exc}") from None
    stated = (Fraction(arg["frobenius_squared_at_most"]), Fraction(arg["ratio"]), arg["rank_at_least"])
    assert (a.frobenius_squared, a.ratio, a.rank_at_least) == stated, (a, stated)
    return a.rank_at_least


def compact_pair_classes(doc: dict) -> tuple[int, list, dict | None]:
    """``(t, chain factor of every ordered pair, {(F, d): pairs} or None)`` of a compact certificate, trusting
    its plan counts (which the checker verifies at step ``plan``); ``None`` if the words have several weights."""
    words = doc["code"]["words"]
    one_weight = len({w.count("1") for w in words}) == 1
    factors, classes = [], {}
    for e in doc["plan"]["entries"]:
        f = Fraction(e["factor"])
        factors += [f] * e["pairs"]
        classes[(f, e["distance"])] = classes.get((f, e["distance"]), 0) + e["pairs"]
    return len(words), factors, classes if one_weight else None


def restate_argument(arg: dict, t: int, classes: dict, length: int) -> dict:
    """``arg`` with its three stated numbers recomputed by hand from its parameters, **no hypothesis
    checked** (``s`` outside ``[0, 1)``, ``μ_j < 0``, ``m₀ ≥ 1 + b + g`` are all computed through): what an
    attacker who edits a parameter writes so that only the hypotheses can catch the edit.

    ``classes``: ``{(F, d): pairs}``; the Gram entry is taken as ``y = length − 4d``. Returns ``arg``
    unchanged if the numbers cannot be formed (a zero denominator).
    """
    name, out = arg["name"], dict(arg)
    if name in ("shifted", "null-shifted"):
        s = Fraction(arg["s"])
        diag = 1 - s
        frob = t * diag ** 2 + sum(c * max(s, 1 / f - s) ** 2 for (f, _), c in classes.items())
    else:
        b, g = Fraction(arg["b"]), Fraction(arg["g"])
        mu = [Fraction(v) for v in arg.get("mu", [])]
        diag = 1 + b + g - sum(v * length ** j for j, v in enumerate(mu, 1))
        frob = t * diag ** 2
        for (f, d), c in classes.items():
            y = length - 4 * d if name == "square-kernel" else 0
            k = sum(v * y ** j for j, v in enumerate(mu, 1))
            x = 1 / f
            e = max(abs(g - k), abs(x * x + b * x + g - k))
            if 0 <= -b / 2 <= x:
                e = max(e, abs(g - b * b / 4 - k))
            frob += c * e * e
    if frob == 0:
        return out
    ratio = t * t * diag ** 2 / frob
    ceil = -(-ratio.numerator // ratio.denominator)
    if name == "shifted":
        rank = ceil - 1
    elif name == "null-shifted":
        rank = min(t, ratio.numerator // ratio.denominator + 1)
    else:
        rank = 0
        while (rank + 1) * (rank + 2) // 2 < ceil:
            rank += 1
    out.update(frobenius_squared_at_most=rational_text(frob), ratio=rational_text(ratio), rank_at_least=rank)
    return out


def rational_text(q: Fraction) -> str:
    """The canonical spelling of a rational (``"p"`` or ``"p/q"``)."""
    q = Fraction(q)
    return str(q.numerator) if q.denominator == 1 else f"{q.numerator}/{q.denominator}"


def nudge_rational(text: str, rng: Random) -> str:
    """A canonical rational near ``text`` (sometimes negative, zero or far): edits of ``s``, ``b``, ``g``, ``μ_j``
    that stay well formed, so only the mathematics can catch them."""
    q = Fraction(text)
    step = rng.choice([Fraction(1, 10**k) for k in range(1, 8)] + [q / 2, q, Fraction(1, 3), Fraction(7, 11)])
    new = rng.choice([q + step, q - step, -q, Fraction(0), q * rng.choice([2, 3, Fraction(1, 2), Fraction(99, 100)]),
                      Fraction(rng.randrange(-5, 6), rng.randrange(1, 200))])
    return rational_text(new)


def stated_pairs(doc: dict) -> tuple[int, list, dict | None, int]:
    """``(t, chain factors, {(F, d): pairs} or None, word length)`` of a certificate of any kind, read
    from its stated chains (listed, unique-minimizer) or plan (compact). For edits that leave the
    code, family, chains and plan of an accepted base alone, so these are known to be true."""
    if "plan" in doc:
        t, factors, classes = compact_pair_classes(doc)
        return t, factors, classes, doc["code"]["length"]
    from codes import from_bits

    length = doc["code"]["length"]
    words = [from_bits(w, length) for w in doc["code"]["words"]]
    cf = {tuple(ch["pair"]): Fraction(ch["factor"]) for ch in doc["chains"]}
    return len(words), list(cf.values()), pair_classes(words, length, cf), length


def mutate_argument(doc: dict, rng: Random) -> str:
    """One edit of a certificate's ``argument`` (and often its claim), in place, keeping it well formed:
    a parameter (``s``, ``b``, ``g``, a ``μ_j``) nudged, a ``μ`` term added or dropped, the name changed
    to another kind with the same parameters, a stated number or the claim moved. Often the stated
    numbers are then recomputed by :func:`restate_argument` (hypotheses unchecked) and the claim raised
    to them, as an attacker would: then only the hypotheses and the rank rules can catch the edit.
    """
    arg = doc["argument"]
    t, _, classes, length = stated_pairs(doc)
    params = [k for k in ("s", "b", "g") if k in arg] + [("mu", j) for j in range(len(arg.get("mu", [])))]
    kind = rng.choice(["param"] * 4 + ["mu", "rename", "stated", "rank", "claim"])
    if kind == "param" and params:
        key = rng.choice(params)
        if isinstance(key, tuple):
            arg["mu"][key[1]] = nudge_rational(arg["mu"][key[1]], rng)
        else:
            arg[key] = nudge_rational(arg[key], rng)
    elif kind == "mu" and "mu" in arg:
        if arg["mu"] and rng.random() < 0.5:
            del arg["mu"][rng.randrange(len(arg["mu"]))]
        elif len(arg["mu"]) < 8:
            arg["mu"].insert(rng.randrange(len(arg["mu"]) + 1), rational_text(Fraction(rng.randrange(-2, 6), 10 ** rng.randrange(3, 9))))
    elif kind == "rename":
        same = {"shifted": "null-shifted", "null-shifted": "shifted", "square": None, "square-kernel": None}[arg["name"]]
        if same:
            arg["name"] = same
        elif arg["name"] == "square":
            arg.update(name="square-kernel", mu=[rational_text(Fraction(1, 10 ** rng.randrange(3, 9)))])
        else:
            arg["name"] = "square"
            del arg["mu"]
    elif kind == "stated":
        key = rng.choice(["frobenius_squared_at_most", "ratio"])
        arg[key] = nudge_rational(arg[key], rng)
    elif kind == "rank":
        arg["rank_at_least"] = max(0, arg["rank_at_least"] + rng.choice([-2, -1, 1, 2]))
    else:
        doc["claim"]["rank_at_least"] = max(1, doc["claim"]["rank_at_least"] + rng.choice([-1, 1, 2]))
        return kind
    if classes is not None and rng.random() < 0.7 and kind != "stated" and kind != "rank":
        doc["argument"] = arg = restate_argument(arg, t, classes, length)
    if rng.random() < 0.5:
        doc["claim"]["rank_at_least"] = max(doc["claim"]["rank_at_least"], arg["rank_at_least"])
    return kind


def rederive_argument_bound(doc: dict, trace_frobenius: int) -> int:
    """What an accepted certificate proves, when only its ``argument`` and claim were edited from an accepted
    base whose trace–Frobenius bound is ``trace_frobenius``: recomputed by ``certify.lemmas.sharper``
    (AssertionError if the argument does not hold; the claim must be within the result)."""
    arg = doc.get("argument")
    t, factors, classes, length = stated_pairs(doc)
    bound = trace_frobenius
    if arg is not None and arg["name"] != "trace-frobenius":
        bound = max(bound, rederive_argument(arg, t, factors, classes, length))
    assert doc["claim"]["rank_at_least"] <= bound, (doc["claim"], bound)
    return bound


# --------------------------------------------------------------------------- kernel tables


def npy_header(shape, descr: str = "<f8", fortran: bool = False, version: tuple[int, int] = (1, 0)) -> bytes:
    """A ``.npy`` header as numpy writes it (magic, length, dict padded to a multiple of 64 bytes)."""
    text = repr({"descr": descr, "fortran_order": fortran, "shape": tuple(shape)}).encode("latin1")
    size_fmt, prefix = ("<H", 10) if version == (1, 0) else ("<I", 12)
    pad = 64 - (prefix + len(text) + 1) % 64
    text += b" " * pad + b"\n"
    return b"\x93NUMPY" + bytes(version) + struct.pack(size_fmt, len(text)) + text


def zip_members(members: dict[str, bytes], file_sizes: dict[str, int] | None = None,
                method: int = zipfile.ZIP_DEFLATED) -> bytes:
    """A zip archive of raw members; ``file_sizes`` forges the declared uncompressed sizes."""
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w", method) as zf:
        for name, data in members.items():
            zf.writestr(name, data)
    data = bytearray(buf.getvalue())
    for name, size in (file_sizes or {}).items():
        for sig, name_len_at, name_at, size_at in ((b"PK\x03\x04", 26, 30, 22), (b"PK\x01\x02", 28, 46, 24)):
            start = 0
            while (i := data.find(sig, start)) >= 0:
                name_len = struct.unpack_from("<H", data, i + name_len_at)[0]
                if data[i + name_at:i + name_at + name_len] == name.encode():
                    struct.pack_into("<I", data, i + size_at, size)
                start = i + 4
    return bytes(data)


def npy_bytes(arr) -> bytes:
    import numpy as np

    buf = io.BytesIO()
    np.save(buf, arr, allow_pickle=False)
    return buf.getvalue()


def reference_table(path: str) -> dict[str, Any] | None:
    """An independent reading of a table file: numpy's loader or ``json`` + ``Decimal``; exact values.

    Returns ``None`` if the independent reader cannot read it at all.
    """
    import numpy as np

    data = open(path, "rb").read()
    if data[:2] == b"PK":
        with np.load(path, allow_pickle=False) as z:
            raw = {k: z[k] for k in z.files}
        out = {}
        for k, a in raw.items():
            if k == "tokens":
                out[k] = [("".join(str(int(b)) for b in row) if a.ndim == 2 else str(row)) for row in a.tolist()] \
                    if a.dtype.kind != "S" else [t.decode() for t in a.tolist()]
            elif k != "note":
                # floats of every width, ints, bools; None for NaN/inf (the checks must never use such an entry)
                exact = lambda x: Fraction(*x.as_integer_ratio()) if x == x and abs(x) != float("inf") else None  # noqa: E731
                out[k] = exact(a.tolist()) if a.ndim == 0 else \
                    [[exact(x) for x in row] for row in a.tolist()] if a.ndim == 2 else [exact(x) for x in a.tolist()]
        return out
    raw = json.loads(data.decode("utf-8-sig"), parse_float=Decimal)
    exact = lambda v: Fraction(v) if not isinstance(v, str) else Fraction(v.strip())  # noqa: E731
    out = {}
    for k, v in raw.items():
        if k == "tokens":
            out[k] = [t if isinstance(t, str) else "".join(map(str, t)) for t in v]
        elif k == "delta":
            out[k] = exact(v)
        elif k != "note":
            out[k] = [[exact(x) for x in row] for row in v] if v and isinstance(v[0], list) else [exact(x) for x in v]
    return out


def reference_predictions(tab: dict[str, Any], inputs, m: int) -> list[Fraction]:
    """Predictions ``(Σ_j α g + δβ) / (Σ_j α + δ)`` of a table with a readout, by plain loops (docs/math.md §2)."""
    idx = {int(s[::-1], 2): i for i, s in enumerate(tab["tokens"])}

    def alpha(a, b):
        if "kernel" in tab:
            return tab["kernel"][a][b]
        return sum(p * q for p, q in zip(tab["phi_q"][a], tab["phi_k"][b]))

    def g(a, b):
        if "values" in tab:
            return tab["beta"][a] + sum(w * v for w, v in zip(tab["w"][a], tab["values"][b]))
        return tab["beta"][a] + tab["w"][a][b]

    delta = tab.get("delta", 0)  # the phantom key: weight δ, readout value β(x)
    out = []
    for X in inputs:
        q = idx[X.tokens[X.query]]
        ks = [idx[z] for z in X.tokens]
        den = sum(alpha(q, k) for k in ks) + delta
        out.append((sum(alpha(q, k) * g(q, k) for k in ks) + delta * tab["beta"][q]) / den)
    return out
