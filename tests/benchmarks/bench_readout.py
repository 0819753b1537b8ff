"""Benchmark: ``check-kernel --search-readout`` on the Hadamard-46 family, exact LP paths side by side (issue 11).

Run (after ``pip install '.[highs]'``, from a git checkout):
``python tests/benchmarks/bench_readout.py [--repeat N] [--no-baseline]``.

The case: the witness family of the 46 words of ``codes.hadamard_code(24)`` (rows of the
Paley Hadamard matrix of order 24 and their complements; paper chains): 2,158 tokens,
8,466 inputs, 46 query tokens; a random positive float64 table of width r = 64 with a
one-hot readout on those tokens (seed 0, as ``bench_check_kernel.py`` builds the
rank-nine case). No readout exists for any query token.

1. ``certify check-kernel TABLE --family FAMILY --search-readout`` as a fresh process
   (median wall and CPU time of N runs, peak RSS), today's and — unless
   ``--no-baseline`` — the command as it was at ``BASELINE_REV`` (the tree exported from
   git, run with ``python -m certify.cli``; one run, it takes about a minute).
2. In-process, the readout search alone, on the arguments ``check_kernel`` passes it:
   the old search (dense ``Fraction`` rows, dense simplex, dense certificate checks;
   ``certify/kernels/{audit,lp}.py`` at ``BASELINE_REV`` read from git, see
   ``baseline.py``), today's search without HiGHS (sparse exact simplex for every
   token) and with HiGHS; the three reports must be identical.
3. The 46 LPs decided one by one: (a) the exact sparse simplex with Bland's rule (the
   printed answers) and with Dantzig's rule (decisions only, without HiGHS), (b) HiGHS
   followed by exact verification (the exact simplex as fallback), and the old dense
   simplex.
4. The same family with a kernel that admits a readout for every token
   (``α(x, z) = 6^(−⟨x, z⟩)``, the rank-15 construction's kernel): every readout is
   printed, so every token goes through the exact simplex; old against new.
"""
from __future__ import annotations

import argparse
import ast
import json
import os
import shutil
import statistics
import sys
import tempfile
from fractions import Fraction
from typing import Any

import numpy as np

sys.path.insert(0, os.path.dirname(__file__))
from baseline import BASELINE_REV, cpu, export_tree, git_source, load_module, run_cpu  # noqa: E402


def build_case(tmp: str) -> tuple[str, str]:
    from codes import hadamard_code
    from witnesses import build_family

    fam = build_family(hadamard_code(24), "paper")
    family = os.path.join(tmp, "hadamard46.family.json")
    with open(family, "w") as fh:
        json.dump({"family": {"inputs": [X.to_json() for X in fam.inputs]}}, fh)
    toks = sorted({z for X in fam.inputs for z in X.tokens})
    rng = np.random.default_rng(0)
    N = len(toks)
    table = os.path.join(tmp, "hadamard46_r64.npz")
    np.savez(table, tokens=np.array([format(z, "024b")[::-1] for z in toks]),
             phi_q=rng.random((N, 64)), phi_k=rng.random((N, 64)),
             beta=rng.normal(size=N), w=rng.normal(size=(N, N)))
    return table, family


def old_readout_search(rev: str):
    """``_readout_search`` (in ``certify/kernels/audit.py``) as it was at ``rev``, wired to that commit's ``lp.strict_feasibility``."""
    old_lp = load_module(rev, "certify/kernels/lp.py", "certify_baseline_lp")
    src = git_source(rev, "certify/kernels/audit.py")
    node = next(n for n in ast.parse(src).body if isinstance(n, ast.FunctionDef) and n.name == "_readout_search")
    code = ast.get_source_segment(src, node).replace("from .lp import strict_feasibility", "pass")
    from certify.check import format_rational
    from certify.kernels.report import _bits

    ns: dict[str, Any] = {"strict_feasibility": old_lp.strict_feasibility, "Fraction": Fraction, "Any": Any,
                          "KernelReport": object, "_bits": _bits, "format_rational": format_rational,
                          "_frac": lambda v: Fraction(int(v.p), int(v.q))}
    exec(compile(code, f"{rev}:certify/kernels/audit.py", "exec"), ns)
    return ns["_readout_search"], old_lp


def capture_search_args(table_path: str, family_path: str) -> tuple:
    """Run ``check_kernel`` once and keep the arguments it passes to ``readout_search``."""
    from certify.kernels import audit
    from certify.kernels.table import load_table

    seen = []
    real = audit.readout_search
    audit.readout_search = lambda *args: seen.append(args[:9]) or real(*args)  # without by_query: the baseline takes 9
    try:
        audit.check_kernel(load_table(table_path), audit.load_family(family_path), search_readout=True)
    finally:
        audit.readout_search = real
    return seen[0]


def fields(report) -> tuple:
    return (report.readout_exists, report.infeasible_query_tokens, report.readout, report.infeasible_subfamily)


def without_highs(f):
    from certify.linalg import lp

    real = lp._highs_core
    lp._highs_core = lambda: None
    try:
        return f()
    finally:
        lp._highs_core = real


def search(fn, args) -> tuple:
    from certify.kernels.audit import KernelReport

    report = KernelReport({}, {})
    fn(report, *args[1:])
    return fields(report)


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--no-baseline", action="store_true")
    ap.add_argument("--no-cli", action="store_true", help="skip the fresh-process runs (part 1)")
    ap.add_argument("--rev", default=BASELINE_REV)
    args = ap.parse_args()
    certify = shutil.which("certify") or sys.exit("certify is not on PATH (pip install .)")
    from certify.kernels import audit, lp, readout

    print(f"python {sys.version.split()[0]}, {os.cpu_count()} cores; HiGHS installed: {lp.highs_available()}")
    with tempfile.TemporaryDirectory() as tmp:
        table, family = build_case(tmp)
        cmd = [certify, "check-kernel", table, "--family", family, "--search-readout"]
        runs = [run_cpu(cmd, tmp, ok=(1,)) for _ in range(0 if args.no_cli else args.repeat)]  # no readout: exit 1
        if runs:
                print(f"certify check-kernel hadamard46_r64.npz --family … --search-readout: wall median "
                  f"{statistics.median(r[0] for r in runs):.2f} s, CPU median {statistics.median(r[1] for r in runs):.2f} s "
                  f"(n={args.repeat}), peak RSS {max(r[2] for r in runs) / 1024:.0f} MiB")
        if not args.no_baseline and not args.no_cli:
            tree = export_tree(args.rev, os.path.join(tmp, "baseline"))
            env_cmd = ["env", f"PYTHONPATH={tree}", sys.executable, "-m", "certify.cli", *cmd[1:]]
            wall, cpu_s, rss = run_cpu(env_cmd, tmp, ok=(1,))
            print(f"the same command at {args.rev}: wall {wall:.2f} s, CPU {cpu_s:.2f} s (n=1), peak RSS {rss / 1024:.0f} MiB")
        captured = capture_search_args(table, family)

    # 2. the readout search alone
    new_exact, t_exact = cpu(lambda: without_highs(lambda: search(audit.readout_search, captured)))
    print(f"readout search, today, exact simplex only:    {t_exact:6.2f} s CPU")
    if lp.highs_available():
        new_highs, t_highs = cpu(lambda: search(audit.readout_search, captured))
        print(f"readout search, today, with HiGHS:            {t_highs:6.2f} s CPU; same report: {new_highs == new_exact}")
    old_lp = None
    if not args.no_baseline:
        old_fn, old_lp = old_readout_search(args.rev)
        old, t_old = cpu(lambda: search(old_fn, captured))
        print(f"readout search, baseline {args.rev}:            {t_old:6.2f} s CPU; same report: {old == new_exact}")

    # 3. the 46 LPs one by one
    _, inputs, q_tokens, alpha, dens, eps, m, _ = captured
    by_query: dict[int, list[int]] = {}
    for i, X in enumerate(inputs):
        by_query.setdefault(X.tokens[X.query], []).append(i)
    problems = [readout.readout_problem(inputs, xq, by_query[xq], alpha, dens, eps) for xq in q_tokens]
    res_a, t_a = cpu(lambda: [lp.strict_feasibility(r, lo, hi, len(k)) for k, r, lo, hi in problems])
    print(f"46 LPs, (a) exact sparse simplex, Bland:      {t_a:6.2f} s CPU  (feasible: {sum(x.feasible for x in res_a)})")
    res_d, t_d = cpu(lambda: [lp.decide_feasibility(r, lo, hi, len(k), solver="simplex") for k, r, lo, hi in problems])
    print(f"46 LPs, (a) exact sparse simplex, Dantzig:    {t_d:6.2f} s CPU  (feasible: {sum(x.feasible for x in res_d)})")
    if lp.highs_available():
        res_b, t_b = cpu(lambda: [lp.decide_feasibility(r, lo, hi, len(k), solver="highs") for k, r, lo, hi in problems])
        print(f"46 LPs, (b) HiGHS + exact verification:       {t_b:6.2f} s CPU  (feasible: {sum(x.feasible for x in res_b)}, "
              f"answered by HiGHS: {sum(x.method == 'highs' for x in res_b)}, exact fallback: "
              f"{sum(x.method == 'simplex' for x in res_b)})")
    if old_lp is not None:
        dense = [([[Fraction(int(r.get(j, 0).p), int(r.get(j, 0).q)) if j in r else Fraction(0) for j in range(len(k))]
                   for r in rows], [Fraction(int(v.p), int(v.q)) for v in lo], [Fraction(int(v.p), int(v.q)) for v in hi])
                 for k, rows, lo, hi in problems]
        _, t_o = cpu(lambda: [old_lp.strict_feasibility(*d) for d in dense])
        print(f"46 LPs, baseline dense simplex:               {t_o:6.2f} s CPU")

    # 4. a kernel that admits a readout for every query token
    from flint import fmpq

    def alpha6(x: int, z: int):
        return fmpq(1, 6 ** (x & z).bit_count())

    dens6 = [sum((alpha6(X.tokens[X.query], z) for z in X.tokens), fmpq(0)) for X in inputs]
    feasible_args = (None, inputs, q_tokens, alpha6, dens6, eps, m, captured[-1])
    new6, t6 = cpu(lambda: search(audit.readout_search, feasible_args))
    line = f"all-feasible kernel 6^(−⟨x,z⟩): today {t6:6.2f} s CPU (readout exists: {new6[0]})"
    if old_lp is not None:
        old6, t6o = cpu(lambda: search(old_fn, feasible_args))
        line += f", baseline {t6o:6.2f} s CPU; same report: {old6 == new6}"
    print(line)


if __name__ == "__main__":
    main()
