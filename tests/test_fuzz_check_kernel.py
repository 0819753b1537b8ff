"""Fuzzing ``check-kernel`` in-process: every table gets a verdict, quickly, and no false one (issue 7).

``COUNT`` (default 3,000; ``CERTIFY_FUZZ_N``; 10,000 in tests/benchmarks/bench_suite_full.py) tables per run,
fixed by ``CERTIFY_FUZZ_SEED``,
checked against three small families — a gap-1 jump that proves nothing (μ = 0), a
genuine gap-3 jump (μ = 2), and the 4-word certificate of the corpus (r ≥ 3): random
valid tables (kernel or factors, one-hot or general readouts, or none; JSON with
integers, decimals and ``"p/q"`` strings, or ``.npz`` of any numeric dtype), many of them
constructions that solve, then JSON edits (bytes and structure) and zip tricks (truncated
and flipped archives, forged headers and sizes, renamed and extra members, dtype and
layout swaps, NaN, other ``.npy`` versions). Asserted for every table: no exception
escapes, the verdict is 0, 1 or 2 (3 would say a table contradicts the theorem: a bug),
the report renders as text and JSON, no table takes over a second, and every verdict with
a readout is re-derived from numpy's own loader and plain ``Fraction`` loops
(``fuzzing.reference_predictions``); a readout found by the LP is re-checked by substitution.
"""
import io
import json
import time
import zipfile
from collections import Counter
from fractions import Fraction

import numpy as np
import pytest

from certify.kernels.audit import load_family, verdict

from conftest import CORPUS, cpu_unit
from fuzzing import (COUNT, SEED, SLOW_UNITS, mutate_bytes, mutate_structure, npy_bytes, npy_header, reference_predictions,
                     reference_table, rng_for, zip_members)

GAP_ONE = {"family": {"inputs": [{"tokens": t, "query": 0} for t in (["11", "00", "00"], ["11", "10", "10"], ["11", "00", "10"])]}}
GAP_THREE = {"family": {"inputs": [{"tokens": t, "query": 0} for t in (["111", "000", "000"], ["111", "111", "111"], ["111", "000", "111"])]}}


@pytest.fixture(scope="module")
def families(tmp_path_factory):
    d = tmp_path_factory.mktemp("families")
    out = []
    for name, doc in (("gap_one", GAP_ONE), ("gap_three", GAP_THREE)):
        (d / f"{name}.json").write_text(json.dumps(doc))
        out.append(load_family(str(d / f"{name}.json")))
    out.append(load_family(str(CORPUS / "valid" / "small_paper.json")))
    assert out[0].jumps == () and len(out[1].jumps) == 1 and out[2].certified_bound == 3
    return out


def bits(x, m):
    return format(x, f"0{m}b")[::-1]


def small_number(rng):
    return rng.choice([0, 1, 1, 2, 3, rng.randrange(0, 50), Fraction(1, rng.randrange(1, 9)), Fraction(rng.randrange(1, 30), 8)])


def random_table(rng, fam):
    """A valid table over the family's tokens (plus extras): random, or a construction that solves."""
    m = fam.m
    toks = sorted({z for X in fam.inputs for z in X.tokens})
    extra = [rng.randrange(2**m) for _ in range(rng.choice([0, 0, 1, 2]))]
    toks = list(dict.fromkeys(toks + extra))
    rng.shuffle(toks)
    N = len(toks)
    ov = lambda a, b: (a & b).bit_count()  # noqa: E731
    style = rng.choice(["softmax", "random", "random", "factors"])
    tab = {"tokens": [bits(x, m) for x in toks]}
    if style == "softmax":  # dense softmax, A.1: α = 6^{−⟨x,z⟩}, g_x(z) = ⟨x,z⟩ solves at length 3
        base = rng.choice([6, 7, 2])
        tab["kernel"] = [[Fraction(1, base ** ov(x, z)) for z in toks] for x in toks]
        readout = rng.choice(["one-hot", "one-hot", "none"])
        if readout == "one-hot":
            tab["beta"] = [0] * N
            tab["w"] = [[ov(x, z) for z in toks] for x in toks]
        return tab
    if style == "factors":
        r = rng.randrange(1, 4)
        tab["phi_q"] = [[small_number(rng) for _ in range(r)] for _ in toks]
        tab["phi_k"] = [[small_number(rng) for _ in range(r)] for _ in toks]
    else:
        tab["kernel"] = [[small_number(rng) for _ in toks] for _ in toks]
    readout = rng.choice(["none", "one-hot", "values"])
    if readout != "none":
        tab["beta"] = [rng.randrange(-2, 3) for _ in toks]
        if readout == "values":
            dv = rng.randrange(1, 4)
            tab["values"] = [[small_number(rng) for _ in range(dv)] for _ in toks]
            tab["w"] = [[rng.randrange(-3, 4) for _ in range(dv)] for _ in toks]
        else:
            tab["w"] = [[small_number(rng) - 1 for _ in toks] for _ in toks]
    if rng.random() < 0.25:  # a denominator constant (issue 17): a phantom key of weight δ, value β(x)
        tab["delta"] = rng.choice([0, Fraction(1, 8), Fraction(1, 1024), 1, 3])
    return tab


def as_json(tab, rng) -> bytes:
    def spell(v):
        if isinstance(v, Fraction) and v.denominator != 1:
            if rng.random() < 0.5 and v.denominator & (v.denominator - 1) == 0:
                return float(v)  # a dyadic decimal literal, exact
            return f"{v.numerator}/{v.denominator}"
        return int(v)
    out = {k: (v if k == "tokens" else spell(v) if k == "delta" else
               [[spell(x) for x in row] if isinstance(row, list) else spell(row) for row in v])
           for k, v in tab.items()}
    return json.dumps(out).encode()


def as_arrays(tab, rng):
    dtype = rng.choice([np.float64, np.float64, np.float32, np.float16, np.longdouble, ">f8"])
    arrays = {}
    for k, v in tab.items():
        if k == "tokens":  # strings, or 0/1 arrays of any integer dtype, bool or float (issue 17)
            dt = rng.choice([np.int8, np.uint8, np.int64, np.uint16, bool, np.float32, np.float64])
            arrays[k] = np.array(v) if rng.random() < 0.6 else np.array([[int(c) for c in s] for s in v], dtype=dt)
        elif k == "delta":
            arrays[k] = np.array(float(v), dtype=dtype)
        else:
            arrays[k] = np.array([[float(x) for x in row] if isinstance(row, list) else float(row) for row in v], dtype=dtype)
    return arrays


def npz(arrays, rng) -> bytes:
    buf = io.BytesIO()
    (np.savez_compressed if rng.random() < 0.5 else np.savez)(buf, **arrays)
    return buf.getvalue()


def zip_trick(arrays, rng) -> tuple[bytes, str]:
    members = {f"{k}.npy": npy_bytes(v) for k, v in arrays.items()}
    kind = rng.choice(["truncate", "flip", "forge_shape", "forge_size", "rename", "extra", "dtype", "fortran", "version",
                       "nan", "stored", "garbage_header", "empty", "many", "object", "negative"])
    name = rng.choice(sorted(members))
    field, data = name[:-4], members[name]
    if kind in ("truncate", "flip"):
        z = bytearray(zip_members(members))
        i = rng.randrange(len(z))
        if kind == "truncate":
            return bytes(z[:i]), kind
        z[i] ^= 1 << rng.randrange(8)
        return bytes(z), kind
    hdr_len = data.index(b"\n") + 1
    body = data[hdr_len:]
    arr = arrays[field]
    if kind == "forge_shape":
        shape = rng.choice([(10**9, 10**9), (arr.shape[0] + 1,) + arr.shape[1:] if arr.ndim else (2,), arr.shape[::-1],
                            (0,), (2**40,), (3, 3, 3)])
        members[name] = npy_header(shape, arr.dtype.str) + body
    elif kind == "forge_size":
        return zip_members(members, {name: rng.choice([0, 1, 2**31, len(data) + 8, len(data) - 1])}), kind
    elif kind == "rename":
        members[rng.choice(["kernel.txt", "../kernel.npy", "KERNEL.npy", "x.npy", field])] = members.pop(name)
    elif kind == "extra":
        members["note.npy" if rng.random() < 0.5 else "extra.npy"] = npy_bytes(np.zeros(3))
    elif kind == "dtype":
        descr = rng.choice(["<c16", "|O", "<U3", "|b1", "<i8", "<u2", "<f2", "|S2", "<M8[D]", "[('a', '<f8')]"])
        members[name] = npy_header(arr.shape, descr) + body
    elif kind == "fortran":
        members[name] = npy_header(arr.shape, arr.dtype.str, fortran=True) + body
    elif kind == "version":
        members[name] = npy_header(arr.shape, arr.dtype.str, version=rng.choice([(2, 0), (3, 0), (9, 9)])) + body
    elif kind == "nan" and arr.dtype.kind == "f" and arr.size:
        bad = arr.copy()
        bad.flat[rng.randrange(bad.size)] = rng.choice([np.nan, np.inf, -np.inf])
        members[name] = npy_bytes(bad)
    elif kind == "stored":
        return zip_members(members, method=zipfile.ZIP_STORED), kind
    elif kind == "garbage_header":
        members[name] = data[:10] + bytes(rng.randrange(256) for _ in range(hdr_len - 10)) + body
    elif kind == "empty":
        members = {}
    elif kind == "many":
        members.update({f"m{i}.npy": b"" for i in range(20)})
    elif kind == "object":
        members[name] = npy_header(arr.shape, "|O") + b"\x80\x04K\x01."
    elif kind == "negative" and arr.dtype.kind == "f" and arr.size:
        neg = arr.copy()
        neg.flat[rng.randrange(neg.size)] = -1.0
        members[name] = npy_bytes(neg)
    return zip_members(members), kind


def reference_verdict(path, fam, report, code):
    """Re-derive a verdict with a readout (or a found readout) independently; return what was re-derived."""
    ref = reference_table(path)
    eps = fam.error
    if report.solves is not None:
        preds = reference_predictions(ref, fam.inputs, fam.m)
        errors = [abs(p - X.target) for p, X in zip(preds, fam.inputs)]
        assert max(errors) == report.max_error
        assert (code == 0) == all(e < eps for e in errors) == report.solves
        return "predictions"
    if report.readout_exists:
        idx = {s: i for i, s in enumerate(ref["tokens"])}
        for X in fam.inputs:
            q = bits(X.tokens[X.query], fam.m)
            g = report.readout[q]
            alpha = (lambda a, b: ref["kernel"][idx[a]][idx[b]]) if "kernel" in ref else \
                (lambda a, b: sum(u * v for u, v in zip(ref["phi_q"][idx[a]], ref["phi_k"][idx[b]])))
            zs = [bits(z, fam.m) for z in X.tokens]
            delta = ref.get("delta", 0)
            pred = (sum(alpha(q, z) * Fraction(g[z]) for z in zs) + delta * Fraction(g.get("phantom", 0))) / \
                (sum(alpha(q, z) for z in zs) + delta)
            assert abs(pred - X.target) < eps
        return "readout"
    return "infeasible"


def test_check_kernel_fuzz(tmp_path, families):
    rng = rng_for("check-kernel")
    outcomes: Counter = Counter()
    slowest = (0.0, None)
    path = tmp_path / "table"
    for k in range(COUNT):
        fam = families[rng.choice([0, 0, 1, 1, 1, 2])] if rng.random() < 0.97 else families[2]
        tab = random_table(rng, fam)
        how = rng.random()
        if how < 0.4:
            data, kind = as_json(tab, rng), "json"
        elif how < 0.6:
            data, kind = npz(as_arrays(tab, rng), rng), "npz"
        elif how < 0.8:
            doc = json.loads(as_json(tab, rng))
            kind = "json-structure " + mutate_structure(doc, rng, semantic=rng.random() < 0.5)
            data = json.dumps(doc).encode()
        elif how < 0.9:
            data, kind = mutate_bytes(as_json(tab, rng), rng)
            kind = "json-bytes " + kind
        else:
            data, kind = zip_trick(as_arrays(tab, rng), rng)
            kind = "zip " + kind
        path.write_bytes(data)
        start = time.process_time()  # CPU seconds: a loaded machine does not make an input slow
        try:
            code, result = verdict(str(path), fam, search_readout=rng.random() < 0.3)
            if not isinstance(result, str):
                json.dumps(result.to_json())
                result.text()
        except Exception as exc:  # an escaped exception: keep the input for the corpus
            (tmp_path / f"escaped_{k}").write_bytes(data)
            raise AssertionError(f"table {k} (seed {SEED}, {kind}) raised {type(exc).__name__}: {exc}") from exc
        elapsed = time.process_time() - start
        slowest = max(slowest, (elapsed, k))
        assert code in (0, 1, 2), f"table {k} (seed {SEED}, {kind}): exit {code}: {result}"
        if code == 2:
            assert "\n" not in result and len(result) < 600, f"table {k}: message {result[:200]!r}…"
            outcomes["2"] += 1
        else:
            outcomes[f"{code} {reference_verdict(str(path), fam, result, code)}"] += 1
    print("outcomes", dict(outcomes), "slowest", slowest)
    assert slowest[0] < SLOW_UNITS * cpu_unit(), f"table {slowest[1]} took {slowest[0]:.2f} s (seed {SEED})"
    # Every kind of verdict is reached, or the fuzzer tests less than it claims.
    for key in ("0 predictions", "1 predictions", "0 readout", "1 infeasible", "2"):
        assert outcomes[key], (key, outcomes)
