"""Golden outputs of the commands and public functions that issue 43's moves touch: ``python tests/golden/moves.py``.

Each case runs a ``certify`` command in this process (``certify.cli.main``) or a public
function, and records its exit code and the SHA-256 of what it printed (standard output;
standard error's first line for a refusal). ``MOVES.json`` was written by the code *before*
the moves (the PyTorch glue into ``certify/torch/``, training and the exact LP out of
``certify/kernels/``, the trusted checkers together, the split modules);
``tests/test_golden_moves.py`` requires the code now to reproduce every exact case byte for
byte. The ``torch`` cases train or evaluate floats, whose bits can differ between CPUs
(docs/experiments.md, "What is reproducible"): they are recorded in ``MOVES.torch.json``
on the machine that made the moves and compared there (``--torch``), not in the suite.

    python tests/golden/moves.py --write [--torch]    record (only for a deliberate change of an output)
    python tests/golden/moves.py [--torch]            compare, exit 1 on a difference
"""
from __future__ import annotations

import contextlib
import hashlib
import io
import json
import os
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent.parent
sys.path.insert(0, str(ROOT))

EXACT = HERE / "MOVES.json"
TORCH = HERE / "MOVES.torch.json"
C = "tests/certificates"


def _digest(text: str) -> str:
    return hashlib.sha256(text.encode()).hexdigest()


def _cli(*args: str) -> dict:
    """``certify ARGS`` in this process, from the repository root, progress off."""
    from certify.cli import main

    out, err = io.StringIO(), io.StringIO()
    cwd = os.getcwd()
    os.chdir(ROOT)
    try:
        with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
            try:
                main(list(args))
                code = 0
            except SystemExit as exc:
                code = exc.code if isinstance(exc.code, int) else 1
    finally:
        os.chdir(cwd)
    lines = err.getvalue().strip().splitlines()
    return {"exit": code, "stdout_sha256": _digest(_timeless(out.getvalue())), "stderr_last": lines[-1] if lines else ""}


def _timeless(text: str) -> str:
    """``text``, or if it is one JSON document, the document without its wall times (keys ending in ``seconds``)."""
    try:
        doc = json.loads(text)
    except ValueError:
        return text

    def strip(v):
        if isinstance(v, dict):
            return {k: strip(x) for k, x in v.items() if not k.endswith("seconds")}
        return [strip(x) for x in v] if isinstance(v, list) else v

    return json.dumps(strip(doc), sort_keys=True)


def _checker(module: str, *args: str) -> dict:
    """A stand-alone checker's ``main`` (``python -m MODULE ARGS``) in this process."""
    import importlib

    main = importlib.import_module(module).main
    out, err = io.StringIO(), io.StringIO()
    cwd = os.getcwd()
    os.chdir(ROOT)
    try:
        with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
            code = main(list(args))
    finally:
        os.chdir(cwd)
    return {"exit": code, "stdout_sha256": _digest(out.getvalue()), "stderr": err.getvalue().strip()}


def exact_cases() -> dict:
    """Name → zero-argument function returning the record; exact outputs only (any machine)."""
    cases = {}
    for kind in ("valid", "invalid", "malformed"):
        for p in sorted((ROOT / C / kind).glob("*.json"))[:6]:
            rel = f"{C}/{kind}/{p.name}"
            cases[f"verify --json {rel}"] = lambda rel=rel: _cli("verify", "--json", rel)
            cases[f"check.py {rel}"] = lambda rel=rel: _checker("certify.check", rel)
    for p in sorted((ROOT / "tests" / "minrank").glob("*/*.json"))[::4]:
        rel = str(p.relative_to(ROOT))
        cases[f"obstruction {rel}"] = lambda rel=rel: _checker("certify.check_obstruction", rel)
    for p in sorted((ROOT / "tests" / "splits").glob("*/*.json"))[::3]:
        rel = str(p.relative_to(ROOT))
        cases[f"check-split --json {rel}"] = lambda rel=rel: _cli("experiment", "check-split", "--json", rel)
    for ex in ("rank15_solves.npz", "rank15_kernel_only.npz", "rank15_fails.npz"):
        cases[f"check-kernel --search-readout {ex}"] = lambda ex=ex: _cli(
            "check-kernel", f"docs/examples/{ex}", "--search-readout", "--json")
    cases["rank-bound hadamard24 --json"] = lambda: _cli("rank-bound", "--code", "hadamard24", "--json",
                                                         "--out", _tmp("h24.json"))
    for arg in ("trace-frobenius", "shifted", "square", "null-shifted", "square-kernel"):
        cases[f"rank-bound rank-nine --argument {arg}"] = lambda arg=arg: _cli(
            "rank-bound", "--code", "rank-nine", "--argument", arg, "--json", "--out", _tmp(f"r9-{arg}.json"))
    cases["search --m 12 --budget 200 --json"] = lambda: _search_json("12", "200")
    for m in ("8", "100", "5000"):
        cases[f"bounds --m {m} --json"] = lambda m=m: _cli("bounds", "--m", m, "--json")
        cases[f"bounds --m {m}"] = lambda m=m: _cli("bounds", "--m", m)
    cases["bounds --m-range 2:400:7 --json"] = lambda: _cli("bounds", "--m-range", "2:400:7", "--json")
    cases["bounds --m 10 --length 40 --heads 2 --degree 2 --s 3 --json"] = lambda: _cli(
        "bounds", "--m", "10", "--length", "40", "--heads", "2", "--degree", "2", "--s", "3", "--json")
    cases["exact LP (certify.kernels.lp)"] = _lp_case  # moved to certify.linalg.lp; the case keeps its name
    cases["matrix_rank and factored_rank (certify.lemmas.frobenius)"] = _rank_case  # now certify.linalg.rank
    return cases


def _search_json(m: str, budget: str) -> dict:
    """``certify search`` without its timing fields (seconds), which depend on the machine."""
    from certify.cli import main

    out = io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(io.StringIO()):
        try:
            main(["search", "--m", m, "--budget", budget, "--json", "--out", _tmp(f"search-{m}.json")])
        except SystemExit as exc:
            code = exc.code
    return {"exit": code, "stdout_sha256": _digest(_timeless(out.getvalue()))}


def _lp_case() -> dict:
    """The exact LP on a few seeded problems: status, optimum and certificate, as text."""
    import random
    from fractions import Fraction

    from certify.linalg import lp

    rng = random.Random(43)
    lines = []
    for _ in range(12):
        n, k = rng.randint(2, 5), rng.randint(1, 5)
        A = [[Fraction(rng.randint(-4, 4)) for _ in range(n)] for _ in range(k)]
        b = [Fraction(rng.randint(-3, 6)) for _ in range(k)]
        c = [Fraction(rng.randint(-3, 3)) for _ in range(n)]
        try:
            lines.append(repr(lp.simplex(c, A, b)))
        except lp.LPError as exc:
            lines.append(f"LPError: {exc}")
    return {"stdout_sha256": _digest("\n".join(lines))}


def _rank_case() -> dict:
    import random

    from certify.linalg.rank import matrix_rank

    rng = random.Random(7)
    out = []
    for _ in range(20):
        n, m, r = rng.randint(1, 9), rng.randint(1, 9), rng.randint(0, 4)
        P = [[rng.randint(-5, 5) for _ in range(r)] for _ in range(n)]
        K = [[rng.randint(-5, 5) for _ in range(r)] for _ in range(m)]
        M = [[sum(a * b for a, b in zip(p, k)) for k in K] for p in P]
        res = matrix_rank(M) if M and M[0] else None
        out.append(repr(None if res is None else (res.rank, res.exact)))
    return {"stdout_sha256": _digest("\n".join(out))}


def torch_cases() -> dict:
    """Cases that train or evaluate floats (machine-specific bits): the moved glue, training and experiments."""
    small = f"{C}/valid/small_paper.json"
    cases = {
        "train --steps 30": lambda: _cli("train", "--family", small, "--ranks", "3,6", "--seeds", "0,1", "--steps", "30",
                                         "--out", _tmp("train"), "--json"),
        "train --feature-map elu1": lambda: _cli("train", "--family", small, "--ranks", "4", "--seeds", "0", "--steps",
                                                 "20", "--feature-map", "elu1", "--out", _tmp("train-elu"), "--json"),
        "experiment capacity (tiny)": lambda: _cli(
            "experiment", "capacity", "--settings", "4:2", "--ranks", "2,4", "--seeds", "0", "--steps", "20",
            "--train", "64", "--val", "16", "--test", "16", "--eval-every", "10", "--out", _tmp("cap"), "--json"),
        "experiment heads (tiny)": lambda: _cli(
            "experiment", "heads", "--setting", "4:2", "--budgets", "4", "--heads", "1,2", "--seeds", "0", "--steps",
            "20", "--draws", "0", "--train", "64", "--val", "16", "--test", "16", "--eval-every", "10",
            "--out", _tmp("heads"), "--json"),
        "certify.torch check/export/fit/predict/compare/verify_tokenwise": _torch_api_case,
    }
    return cases


_TMP: list = []


def _tmp(name: str) -> str:
    import shutil
    import tempfile

    if not _TMP:  # one fixed folder, emptied: the paths printed (an "out" field) are the same on every run
        folder = os.path.join(tempfile.gettempdir(), "certify-golden-moves")
        shutil.rmtree(folder, ignore_errors=True)
        os.makedirs(folder)
        _TMP.append(folder)
    return os.path.join(_TMP[0], name)


def _torch_api_case() -> dict:
    import torch

    from certify import torch as ct

    small = str(ROOT / C / "valid" / "small_paper.json")
    torch.manual_seed(0)
    m, r, dv = 12, 4, 3

    def lin(a, b):
        return torch.nn.Linear(a, b, dtype=torch.float64)

    phi_q, phi_k, values, readout = (torch.nn.Sequential(lin(m, r), torch.nn.Softplus()),
                                     torch.nn.Sequential(lin(m, r), torch.nn.Softplus()), lin(m, dv), lin(m, dv + 1))
    out = []
    rep = ct.check(phi_q, phi_k, values=values, readout=readout, family=small)
    out.append(json.dumps(rep.to_json(), sort_keys=True))
    out.append(json.dumps(ct.check(phi_q, phi_k, family=small, search_readout=True).to_json(), sort_keys=True))
    path = ct.export(_tmp("head.npz"), phi_q, phi_k, values=values, readout=readout, family=small)
    out.append(hashlib.sha256(Path(path).read_bytes()).hexdigest())
    out.append("\n".join(ct.verify_tokenwise(phi_q, small).text()))
    fitted = ct.fit(phi_q, phi_k, values, readout, family=small, steps=15)
    out.append(repr(fitted))
    out.append(json.dumps(ct.check(phi_q, phi_k, values=values, readout=readout, family=small).to_json(),
                          sort_keys=True))
    return {"stdout_sha256": _digest("\n".join(out))}


def compute(cases: dict, names=None) -> dict:
    os.environ["CERTIFY_PROGRESS"] = "0"
    return {name: fn() for name, fn in cases.items() if names is None or name in names}


def main(argv: list[str]) -> int:
    use_torch = "--torch" in argv
    path, cases = (TORCH, torch_cases()) if use_torch else (EXACT, exact_cases())
    now = compute(cases)
    if "--write" in argv:
        path.write_text(json.dumps(now, indent=1, sort_keys=True) + "\n")
        print(f"wrote {path.relative_to(ROOT)}: {len(now)} cases")
        return 0
    golden = json.loads(path.read_text())
    diff = sorted(k for k in set(golden) | set(now) if golden.get(k) != now.get(k))
    for k in diff:
        print(f"DIFFERS: {k}\n  golden {golden.get(k)}\n  now    {now.get(k)}")
    print(f"{len(now) - len(diff)} of {len(now)} cases as recorded" + ("" if not diff else f"; {len(diff)} differ"))
    return 1 if diff else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
