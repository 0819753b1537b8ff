"""Worst cases of hostile input: time and peak memory of the checker and of check-kernel (issue 7).

Run after ``pip install .`` from the repository root::

    python tests/benchmarks/bench_hostile.py

Each case is a file made to cost as much as the limits allow (docs/certificate-format.md
and docs/kernel-table-format.md, "Limits"); each runs in a fresh process, and the peak
memory is that process's own high-water mark (``VmHWM``, Linux). Prints one row per case
as a Markdown table for docs/performance.md.
"""
from __future__ import annotations

import io
import json
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "tests"))

from fuzzing import npy_header, zip_members  # noqa: E402

WRAP = ("import runpy, sys\nsys.argv = sys.argv[1:]\ncode = 0\n"
        "try:\n    runpy.run_path(sys.argv[0], run_name='__main__') if sys.argv[0].endswith('.py') else "
        "runpy.run_module(sys.argv[0], run_name='__main__')\nexcept SystemExit as e:\n    code = e.code\n"
        "hwm = [ln for ln in open('/proc/self/status') if ln.startswith('VmHWM')][0].split()[1]\n"
        "print('@@', hwm, code, file=sys.stderr)\n")


def measure(args: list[str], env: dict | None = None, cwd: str | None = None) -> tuple[float, float, int, str]:
    """(seconds, peak MiB, exit code, the verdict line of stderr) of one fresh run of a script or module.

    The peak is the process's own high-water mark (``VmHWM``), which starts afresh at
    ``exec``: ``wait4``'s ``ru_maxrss`` would also count the benchmark's own memory.
    ``cwd`` matters for which code runs: ``python -c`` puts the working directory first
    on ``sys.path``.
    """
    start = time.monotonic()
    proc = subprocess.run([sys.executable, "-c", WRAP, *args], capture_output=True, text=True, env=env, cwd=cwd)
    elapsed = time.monotonic() - start
    lines = proc.stderr.strip().splitlines()
    hwm, code = next(ln for ln in reversed(lines) if ln.startswith("@@")).split()[1:]
    said = [ln for ln in lines if not ln.startswith("@@") and ": " in ln and "%)" not in ln]  # not progress lines
    return elapsed, int(hwm) / 1024, int(code), said[-1] if said else ""


def certificate_cases(d: Path) -> dict[str, Path]:
    cases = {}
    cases["29 MiB of empty arrays"] = d / "empty_arrays.json"
    cases["29 MiB of empty arrays"].write_bytes(b'{"x": [' + b",".join([b"[]"] * 10_000_000) + b"]}")
    ent = b'{"tokens":["0","0","0"],"query":0,"target":0}'
    k = int(512 * 2**20 / (200 + 100 + 64 * 6 + 2 * len(ent) + 2) * 0.95)
    cases["inputs just under the parse limit"] = d / "inputs.json"
    cases["inputs just under the parse limit"].write_bytes(
        b'{"format":"certify.rank-certificate","version":1,"family":{"inputs":[' + b",".join([ent] * k) + b"]}}")
    k = int(512 * 2**20 / (64 + 2 * 4) * 0.95)
    cases["small integers just under the parse limit"] = d / "ints.json"
    cases["small integers just under the parse limit"].write_bytes(b'{"x":[' + b",".join([b"999"] * k) + b"]}")
    for name, path in plan_cases(d).items():
        cases[name] = path
    cases["compact, one interpolated level at 900 of 4,096 bits (work 4.0·10⁸)"] = far_level_case(d)
    for rel in ("invalid/many_codewords_few_chains.json", "invalid/huge_chain_product_in_message.json",
                "malformed/chain_product_over_limit.json", "valid/rank_nine_paper.json"):
        cases[rel] = ROOT / "tests" / "certificates" / rel
    return cases


def hostile_plan(m: int, distances, gap: int, error: str) -> dict:
    """A compact certificate (valid hash) whose plan lists ``d/gap`` gaps for each distance: rejected at ``plan``."""
    from certify.check import content_hash

    entries = [{"distance": dd, "gaps": [gap] * (dd // gap), "pairs": 1, "factor": "1"} for dd in distances]
    doc = {"format": "certify.rank-certificate", "version": 2,
           "claim": {"model": "one-head-normalized-nonnegative-kernel-attention", "m": m, "length": 3,
                     "error_below": error, "rank_at_least": 2},
           "producer": {"tool": "bench_hostile.py"},
           "code": {"length": m, "words": ["1" * (m // 2) + "0" * (m // 2), "0" * (m // 2) + "1" * (m // 2)]},
           "plan": {"keys": "codewords-first", "entries": entries},
           "family": {"jumps": 0, "inputs": 0},
           "arithmetic": {"t": 2, "sum_inverse_squares": "2", "frobenius_squared_below": "4", "ratio": "2",
                          "rank_at_least": 2}}
    doc["sha256"] = content_hash(doc)
    return doc


def far_level_case(d: Path) -> Path:
    """1,443 random words of 4,096 bits (weight 2,048), chains ``[900, d − 900]`` whose level 900 no word reaches.

    Every pair needs an interpolated key 900 bits up: the case an adversarial review found
    (the lowest bits taken one at a time cost 46× more there; now ``O(log m)`` popcounts).
    Work 3.995·10⁸, just under the default limit; rejected at ``family`` after the generation.
    """
    import random
    from collections import Counter

    from certify.check import content_hash

    m, t, level = 4096, 1443, 900
    rng = random.Random(1)
    words = list(dict.fromkeys(sum(1 << b for b in rng.sample(range(m), m // 2)) for _ in range(t)))
    full = (1 << m) - 1
    count = Counter((s & (full ^ u)).bit_count() for s in words for u in words if s != u)
    entries = [{"distance": dd, "gaps": [level, dd - level], "pairs": count[dd],
                "factor": str((2 * level - 1) * (2 * (dd - level) - 1))} for dd in sorted(count)]
    doc = hostile_plan(m, [], 1, "1/4")
    doc["code"]["words"] = [format(w, f"0{m}b")[::-1] for w in words]
    doc["plan"]["entries"] = entries
    doc["sha256"] = content_hash({k: v for k, v in doc.items() if k != "sha256"})
    path = d / "far_level.json"
    path.write_text(json.dumps(doc, separators=(",", ":")))
    return path


def plan_cases(d: Path) -> dict[str, Path]:
    """Issue 20's two hostile plans: millions of gaps of 1 (μ = 1 at ε = 1/4), or entries of gap 2 (μ = 1 at ε = 1/2)."""
    cases = {}
    many_gaps = hostile_plan(4096, range(1, 3131), 1, "1/4")  # Σ d = 4.9 M gaps of 1, ≈ 10 MB
    cases["compact, 4.9 M plan gaps of 1 (ε = 1/4)"] = d / "plan_gaps.json"
    cases["compact, 4.9 M plan gaps of 1 (ε = 1/4)"].write_text(json.dumps(many_gaps, separators=(",", ":")))
    many_entries = hostile_plan(4096, range(2, 4097, 2), 2, "1/2")  # 2,048 entries, 2.1 M gaps of 2
    cases["compact, 2,048 plan entries of gap 2 (ε = 1/2)"] = d / "plan_entries.json"
    cases["compact, 2,048 plan entries of gap 2 (ε = 1/2)"].write_text(json.dumps(many_entries, separators=(",", ":")))
    return cases


def table_cases(d: Path) -> dict[str, Path]:
    cases = {}
    buf = io.BytesIO()
    np.savez_compressed(buf, tokens=np.array(["11", "00", "10"]), kernel=np.zeros((2236, 2236)))
    cases["5 M zeros, shape refused from the header"] = d / "bomb5m.npz"
    cases["5 M zeros, shape refused from the header"].write_bytes(buf.getvalue())
    n = 11_000  # a consistent 11,000-token kernel: 968 MB of zeros, ≈ 1 MB compressed
    toks = np.array([format(i, "014b") for i in range(1, n - 1)] + ["1" * 14, "0" * 14])  # family tokens last
    kernel = npy_header((n, n)) + b"\0" * (8 * n * n)
    buf = io.BytesIO()
    np.save(buf, toks)
    archive = zip_members({"tokens.npy": buf.getvalue(), "kernel.npy": kernel})
    name = "a consistent 968 MB kernel of zeros (≈ 1 MB file), family rows last"
    cases[name] = (d / "bomb_consistent.npz", d / "family14.json")
    cases[name][0].write_bytes(archive)
    x, y = "1" * 14, "0" * 14
    cases[name][1].write_text(json.dumps({"family": {"inputs": [
        {"tokens": t, "query": 0} for t in ([x, y, y], [x, x, x], [x, y, x])]}}))
    cases["forged header (10⁹ × 10⁹)"] = ROOT / "tests" / "tables" / "malformed" / "forged_header_huge_shape.npz"
    cases["1e999999999 in JSON"] = ROOT / "tests" / "tables" / "malformed" / "exponent_999999999.json"
    return cases


def main() -> None:
    rows = []
    with tempfile.TemporaryDirectory() as tmp:
        d = Path(tmp)
        for name, path in certificate_cases(d).items():
            size = path.stat().st_size / 2**20
            t, mib, code, msg = measure([str(ROOT / "certify" / "check.py"), str(path)])
            rows.append(("checker", name, size, t, mib, code, msg))
        fam = ROOT / "tests" / "tables" / "families" / "gap_one.json"
        for name, path in table_cases(d).items():
            path, family = path if isinstance(path, tuple) else (path, fam)
            size = path.stat().st_size / 2**20
            t, mib, code, msg = measure(["certify.cli", "check-kernel", str(path), "--family", str(family)])
            rows.append(("check-kernel", name, size, t, mib, code, msg))
    print("| command | input | file | time | peak memory | exit | message |")
    print("| --- | --- | --- | --- | --- | --- | --- |")
    for cmd, name, size, t, mib, code, msg in rows:
        print(f"| {cmd} | {name} | {size:.1f} MiB | {t:.2f} s | {mib:.0f} MiB | {code} | {msg[:90]} |")


if __name__ == "__main__":
    main()
