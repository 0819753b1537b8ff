"""The kernel check's golden outputs: ``python tests/tables/golden.py --write`` (issue 28).

Every case runs ``certify check-kernel``'s code (``certify.kernels.audit.verdict`` on a file,
or ``check_kernel`` on a table built here) and records its exit code, its text report (the
lines ``certify check-kernel`` prints) and its JSON (``--json``), or the one-line reason
of a refusal. ``GOLDEN.json`` was written by the code *before* the kernel check was split
into stages; ``tests/test_kernel_golden.py`` requires the code now to reproduce it byte
for byte. Regenerate only on a deliberate change of an output, and say so in the commit.

The cases: every table of the corpus (``valid/``, ``malformed/``) against its family,
with and without the readout search; the documented examples; the bracket tables of
docs/results against their certificates, listed and streamed; and small tables built
here (one-hot, a broken jump, random positive factors, two heads, a clipped kernel) on
the m = 12 family, listed and streamed, and on named codes.
"""
from __future__ import annotations

import hashlib
import json
import os
import random
import sys
from fractions import Fraction
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent.parent
TABLES = Path("tests/tables")  # paths relative to the repository root: they appear in the reports
sys.path.insert(0, str(ROOT))

from certify.cli.common import strict_json  # noqa: E402
from certify.kernels import audit  # noqa: E402

GOLDEN = HERE / "GOLDEN.json"
RESULTS = Path("docs/results")
EXAMPLES = Path("docs/examples")


def _digest(text: str) -> str:
    return hashlib.sha256(text.encode()).hexdigest()


def _render(code: int, result) -> dict:
    """The case's record: exit code and reason, or the SHA-256 of the text report and of the JSON (the first
    lines of the text kept readable)."""
    if isinstance(result, str):
        return {"exit": code, "reason": result}
    text = "\n".join(result.text())
    return {"exit": code, "head": result.text()[:4], "text_sha256": _digest(text),
            "json_sha256": _digest(strict_json(result.to_json()))}


def _file_case(table: str, family, search=False, clip=None, first_failure=False):
    def run():
        try:
            fam = family() if callable(family) else audit.load_family(family)
        except audit.FamilyFormatError as exc:
            return _render(2, str(exc))
        return _render(*audit.verdict(table, fam, search, clip, first_failure))
    return run


def _table_case(make, family, search=False, first_failure=False, clip=None):
    from certify.kernels.table import TableFormatError

    def run():
        try:
            table = make()
        except TableFormatError as exc:
            return _render(2, str(exc))
        return _render(*audit.table_verdict(table, family(), search, clip, first_failure))
    return run


def _rel(p: Path) -> str:
    return str(p.relative_to(ROOT))


_FAMILIES: dict = {}


def _family(key: str):
    """A family loaded once: ``m12`` (listed), ``m12/stream`` (streamed), ``code:SPEC`` (``--code SPEC``)."""
    def get():
        if key not in _FAMILIES:
            name, _, mode = key.partition("/")
            if name.startswith("code:"):
                fam = audit.family_of_code(name[5:])
            else:
                fam = audit.load_family(str(RESULTS / f"{name}.cert.json"), stream=(mode == "stream") or None)
            _FAMILIES[key] = fam
        return _FAMILIES[key]
    return get


def _one_hot_raw(family) -> dict:
    from certify.constructions.one_hot import one_hot_table

    t = one_hot_table(family)
    return {k: (t[k].tolist() if hasattr(t[k], "tolist") else t[k]) for k in ("tokens", "phi_q", "phi_k", "beta", "w", "values")}


def _tables(fam_key: str):
    """Small tables built on a family: one-hot, one broken jump, random positive factors, two heads, a kernel
    with a negative entry (refused, and clipped), denominators past the scaling limit."""
    from certify.kernels.table import KernelTable

    base = _family(fam_key.split("/")[0])

    def one_hot():
        return KernelTable.from_dict(_one_hot_raw(base()))

    def broken_jump():
        fam = base()
        raw = _one_hot_raw(fam)
        x, y, z, _ = fam.jumps[len(fam.jumps) // 3]
        col = {t: k for k, t in enumerate(int(s[::-1], 2) for s in raw["tokens"])}
        q = list(dict.fromkeys(X.tokens[X.query] for X in fam.inputs)).index(x)
        raw["phi_k"][col[z]][q] = raw["phi_k"][col[y]][q]
        return KernelTable.from_dict(raw)

    def random_positive(seed=1, width=4):
        def make():
            rnd = random.Random(seed)
            toks = _one_hot_raw(base())["tokens"]
            raw = {"tokens": toks, "phi_q": [[rnd.randint(1, 5) for _ in range(width)] for _ in toks],
                   "phi_k": [[rnd.randint(1, 5) for _ in range(width)] for _ in toks],
                   "beta": [0] * len(toks), "w": [[rnd.randint(-2, 2) for _ in toks] for _ in toks]}
            return KernelTable.from_dict(raw)
        return make

    def kernel_only_negative():
        toks = _one_hot_raw(base())["tokens"]
        k = [[1 + (i * 7 + j * 3) % 5 for j in range(len(toks))] for i in range(len(toks))]
        k[3][5] = Fraction(-1, 10**6)
        return KernelTable.from_dict({"tokens": toks, "kernel": [[str(v) for v in row] for row in k]})

    def two_heads():
        raw = _one_hot_raw(base())
        half = len(raw["phi_q"][0])
        rnd = random.Random(5)
        raw["phi_q"] = [row + [rnd.randint(1, 2) for _ in range(3)] for row in raw["phi_q"]]
        raw["phi_k"] = [row + [rnd.randint(1, 2) for _ in range(3)] for row in raw["phi_k"]]
        raw["heads"] = [half, 3]
        raw["values"] = [row + [rnd.randint(0, 1), 0] for row in raw["values"]]
        raw["value_heads"] = [len(raw["values"][0]) - 2, 2]
        raw["w"] = [row + [Fraction(rnd.randint(-1, 1), 7), 0] for row in raw["w"]]
        raw["w"] = [[str(v) for v in row] for row in raw["w"]]
        return KernelTable.from_dict(raw)

    def large_denominators():
        rnd = random.Random(0)
        raw = _one_hot_raw(base())
        primes = [1_000_003, 1_000_033, 1_000_037, 1_000_039, 1_000_081, 1_000_099, 1_000_117]
        raw["phi_k"] = [[str(Fraction(v * rnd.choice(primes) + 1, rnd.choice(primes))) for v in row]
                        for row in raw["phi_k"]]
        return KernelTable.from_dict(raw)

    return {"one_hot": one_hot, "broken_jump": broken_jump, "random_positive": random_positive(),
            "random_positive_wide": random_positive(seed=2, width=9), "kernel_only_negative": kernel_only_negative,
            "two_heads": two_heads, "large_denominators": large_denominators}


def cases() -> dict:
    """name → a function returning the case's record; names are stable keys of GOLDEN.json."""
    out = {}
    tables = TABLES
    manifest = json.loads((HERE / "MANIFEST.json").read_text())
    for rel in sorted(manifest):
        fam = str(tables / manifest[rel]["family"]) if manifest[rel]["family"] else None
        for search in (False, True):
            out[f"corpus:{rel}:search={search}"] = _file_case(str(tables / rel), fam, search)
    for p in sorted(EXAMPLES.glob("*.npz")) + [EXAMPLES / "uniform_kernel_only.json"]:
        for search in (False, True):
            out[f"example:{p.name}:search={search}"] = _file_case(str(p), None, search)
        out[f"example:{p.name}:first_failure"] = _file_case(str(p), None, first_failure=True)
        out[f"example:{p.name}:clip"] = _file_case(str(p), None, clip=Fraction(1, 1000))
    for name in ("m8", "m10", "m12", "m14", "m16"):
        for p in sorted((RESULTS / "bracket").glob(f"{name}.rank*.table.json")):
            for mode in ("", "/stream"):
                out[f"bracket:{p.name}{mode}"] = _file_case(str(p), _family(name + mode))
    for fam_key in ("m12", "m12/stream", "code:hadamard:8"):
        for tname, make in _tables(fam_key).items():
            for search in (False, True):
                out[f"built:{fam_key}:{tname}:search={search}"] = _table_case(make, _family(fam_key), search)
            out[f"built:{fam_key}:{tname}:first_failure"] = _table_case(make, _family(fam_key), first_failure=True)
        out[f"built:{fam_key}:kernel_only_negative:clip"] = _table_case(
            _tables(fam_key)["kernel_only_negative"], _family(fam_key), clip=Fraction(1, 1000))
    return out


def compute(names=None) -> dict:
    """The records of the cases named (default: all), run from the repository root."""
    here = os.getcwd()
    os.chdir(ROOT)
    try:
        with audit.unlimited_digits():
            return {name: run() for name, run in cases().items() if names is None or name in names}
    finally:
        os.chdir(here)


if __name__ == "__main__":
    if sys.argv[1:] != ["--write"]:
        sys.exit("usage: python tests/tables/golden.py --write")
    GOLDEN.write_text(json.dumps(compute(), indent=1, ensure_ascii=False, sort_keys=True) + "\n")
    print(f"wrote {GOLDEN}")
