"""``certify bracket``: the certified lower bound next to the smallest verified solution found (issues 16, 32)."""
from __future__ import annotations

import click

from ..check import EXIT_VERIFIED
from ..kernels.table import MAX_WORK_OPTION
from .common import Contradiction, InputError, cli, exit_codes, strict_json, writes_into


@writes_into("bracket.json", "rank*.table.json", "rank*.table.npz")
@exit_codes("a verified table was found", "none was found", internal="a contradiction with the certificate (a bug)")
@cli.command("bracket")
@click.argument("family_path", metavar="[FAMILY]", required=False, type=click.Path(dir_okay=False))
@click.option("--code", "code_spec", metavar="SPEC",
              help="Instead of FAMILY: a code (rank-nine, hadamard24, golay24, hadamard:ORDER[:T], greedy:M:Δ[:T], "
                   "lexicode:M:W:D, a file); its best-chain certificate gives the family and the lower side.")
@click.option("--seed", type=click.IntRange(0, 2**32 - 1), default=0, show_default=True,
              help="First seed of the random starts.")
@click.option("--restarts", type=click.IntRange(0, 100), default=1, show_default=True,
              help="Random starts per rank after the warm start (the truncated SVD of the best solution so far).")
@click.option("--iterations", type=click.IntRange(1, 10**7), default=40_000, show_default=True,
              help="Optimizer iterations per start (Adam: the step falls from 0.01 to 0.0001 along a cosine over them; "
                   "boxes: projections, no step).")
@click.option("--budget", type=click.IntRange(1, 10**9), default=400_000, show_default=True,
              help="Optimizer iterations in all; the bisection stops when they are spent (work, never seconds). "
                   "Budget × the reduced matrix's entries is estimated up front; a search of more than a day on the "
                   "2-core machine is refused (exit 2; docs/performance.md).")
@click.option("--start-rank", "start", type=click.IntRange(1, 10**6),
              help="Upper end of the bisection (default: the exponential start's rank, min(queries, keys)).")
@click.option("--lowest-rank", "lowest", type=click.IntRange(1, 10**6),
              help="Lower end of the bisection (default: the certified bound; ranks below it are proved impossible).")
@click.option("--device", type=click.Choice(["numpy", "cpu", "cuda"]), default="numpy", show_default=True,
              help="Where the float search runs: numpy, or PyTorch on the CPU or a GPU (optional extra torch); the "
                   "exact check is the same.")
@click.option("--method", type=click.Choice(["auto", "adam", "boxes"]), default="auto", show_default=True,
              help="The float search: Adam on the conditions' violations, or alternating projections between a box "
                   "of sufficient values and the rank-r matrices (faster on large families, numpy only; "
                   "docs/math.md §12); boxes also takes a reduced matrix above the dense cap, by its roots (row m = 28: "
                   "Lemma 12.2). auto: boxes above 2^20 reduced-matrix entries (golay24: 6.6 M, where Adam did not "
                   "converge), Adam at or below (every documented family up to row m = 22, 379,456 entries, keeps "
                   "its result) and on --device cpu|cuda; Adam too when the family's box cannot be built.")
@click.option("--max-work", "max_work", type=click.IntRange(1, MAX_WORK_OPTION), metavar="N",
              help="Multiply-adds the exact check may spend, --all-pairs included (as check-kernel --max-work; "
                   "default 10⁹).")
@click.option("--out", "out_dir", type=click.Path(file_okay=False),
              help="Write the best verified table (rank<r>.table.json, or rank<r>.table.npz when its JSON would be too "
                   "large for check-kernel to parse) and bracket.json into this directory.")
@click.option("--json", "as_json", is_flag=True, help="Print one JSON object (schema certify.bracket/2).")
def bracket_cmd(family_path, code_spec, seed, restarts, iterations, budget, start, lowest, device, method, max_work,
                out_dir, as_json) -> int:
    """Both sides: the certified r ≥ L of a family and a verified solving table of rank U.

    FAMILY is a certificate (any kind, compact ones included: the family is never listed),
    a family file, or a built-in name: rank-nine, hadamard24, golay24 (default: the
    rank-nine certificate, paper chains). The search runs on
    the family's reduced matrix (docs/math.md §12) and bisects the rank between the
    certified bound and the exponential start. A rank is "found" when the search's floats
    meet every condition, "not found" otherwise — never "impossible". The found solutions
    go to the exact check of check-kernel, lowest rank first (every prediction exact,
    streamed for compact families); only a table it verifies is claimed, with its exact
    kernel rank.
    """
    from ..bracket import BracketRangeError, ReductionError, upper_side, write_solution
    from ..bracket.descent_torch import TorchUnavailable
    from ..kernels.audit import FamilyFormatError, KernelContradiction, load_family
    from ..linalg import LPError
    from ..check import Progress

    if family_path and code_spec:
        raise InputError("give FAMILY or --code SPEC, not both")
    if start is not None and lowest is not None and lowest > start:
        raise InputError(f"--lowest-rank {lowest} is above --start-rank {start}")
    if out_dir is not None:  # before the search: a run of minutes must not end in an unwritable folder
        import os

        if not out_dir.strip():
            raise InputError("--out needs a folder name")
        try:
            os.makedirs(out_dir, exist_ok=True)
        except OSError as exc:
            raise InputError(f"cannot write into {out_dir}: {exc.strerror or exc}") from None
        if not os.access(out_dir, os.W_OK | os.X_OK):
            raise InputError(f"cannot write into {out_dir}: permission denied")
    try:
        if code_spec:
            from ..kernels.families import best_chain_family

            family = best_chain_family(code_spec)
        else:
            family = load_family(family_path)
    except FamilyFormatError as exc:
        raise InputError(str(exc)) from None
    bar = Progress("certify bracket")
    try:
        result = upper_side(family, seed=seed, restarts=restarts, iterations=iterations, budget=budget, start=start,
                            lowest=lowest, device=device, method=method,
                            max_work=max_work, progress=lambda text: bar.update(None, text))
    except ReductionError as exc:
        raise InputError(f"{family.source}: {exc}") from None
    except BracketRangeError as exc:
        raise InputError(str(exc)) from None
    except TorchUnavailable as exc:  # --device cpu|cuda without torch, or cuda without a GPU
        raise InputError(str(exc)) from None
    except (KernelContradiction, LPError) as exc:
        raise Contradiction(str(exc)) from None
    finally:
        bar.close()
    best = result.best
    table_path = None
    if out_dir and best is not None:
        try:
            table_path = write_solution(best, out_dir)
        except OSError as exc:
            raise InputError(f"cannot write into {out_dir}: {exc.strerror or exc}") from None
    Qn, K = result.reduced.shape
    doc = {
        "schema": "certify.bracket/2", "family": family.source, "inputs": family.input_count,
        "reduced": {"queries": Qn, "keys": K, "jumps": result.reduced.jumps, "by_roots": result.by_roots},
        "lower": family.certified_bound,
        "upper": None if best is None else best.kernel_rank,
        "upper_table": table_path,
        "denominator": None if best is None else best.denominator,
        "key_denominator": None if best is None else best.key_denominator,
        "readout": None if best is None else ("fixed" if "w" in best.table else "exact LP"),
        "exponential_rank": result.exponential_rank, "start_rank": result.start_rank,
        "lowest_rank": result.lowest_rank,
        "device": device, "method": result.method, "method_option": method, "estimate": result.estimate,
        "max_work": max_work,
        "seed": seed, "restarts": restarts, "iterations_per_start": iterations, "budget": budget,
        "iterations": result.iterations, "budget_exhausted": result.budget_exhausted,
        "tried": result.tried,
        "check_kernel": None if best is None else best.report.to_json(),
        "environment": _environment(),
    }
    if out_dir and best is not None:
        from ..outputs import write_atomic

        try:
            write_atomic(f"{out_dir}/bracket.json", strict_json(doc) + "\n")
        except OSError as exc:
            raise InputError(f"cannot write into {out_dir}: {exc.strerror or exc}") from None
    if as_json:
        click.echo(strict_json(doc))
        return EXIT_VERIFIED if best is not None else 1
    low = "none (a family without a certificate)" if family.certified_bound is None else f"r ≥ {family.certified_bound}"
    click.echo(f"certify bracket ({family.source})")
    click.echo(f"  lower       {low}")
    click.echo(f"  reduced     {Qn:,} query tokens × {K:,} keys, {result.reduced.jumps:,} jumps "
               f"({family.input_count:,} inputs); exponential start rank {result.exponential_rank:,}; "
               f"bisection between {result.lowest_rank:,} and {result.start_rank:,}")
    if result.by_roots:
        b = result.by_roots
        click.echo(f"  by roots    the block of the {b['roots']:,} roots is searched; the other {b['other_keys']:,} keys "
                   f"({b['shared']:,} shared by several queries) are nonnegative combinations of roots "
                   "(docs/math.md §12, Lemma 12.2)")
    tried = ", ".join(f"{t['rank']} {'found' if t['found'] else 'not found'}" for t in result.tried) or "none"
    checks = [t for t in sorted(result.tried, key=lambda t: t["rank"]) if t["verified"] is not None]
    exact = "; ".join(f"rank {t['rank']}: " + ("verified" if t["verified"] is True else "the rounded table failed it"
                                              if t["verified"] is False else str(t["verified"])) for t in checks)
    spent = (f"{result.iterations:,} iterations of {budget:,}" + (", budget spent" if result.budget_exhausted else "")
             + f" ({'alternating projections, ' if result.method == 'boxes' else ''}seed {seed}, {restarts} restart{'s' if restarts != 1 else ''}, ≤ {iterations:,} per start)")
    if best is None:
        click.echo("  upper       no verified table found")
        click.echo(f"  search      ranks tried: {tried}; {spent}")
        click.echo(f"  exact check {exact or 'nothing found to check'}")
        return 1
    rep = best.report
    how = ("with the readout g_x(z) = ⟨x,z⟩ − 1/2 + 1/64 (every prediction exact)" if "w" in best.table
           else "admits a readout (exact LP)") + "; α ≥ 0 on every pair of tokens"
    click.echo(f"  upper       r ≤ {best.kernel_rank}: a table of exact kernel rank {best.kernel_rank} "
               f"(factors of width {best.width}, entries multiples of 1/{best.denominator:,}"
               + ("" if best.key_denominator in (None, best.denominator) else
                  f", key features of 1/{best.key_denominator:,}") + ") solves all "
               f"{rep.family['inputs']:,} inputs {how}")
    click.echo(f"  search      ranks tried: {tried}; {spent}")
    click.echo(f"  exact check {exact} (found ranks above it are not checked)")
    if family.certified_bound is not None:
        click.echo(f"  bracket     {family.certified_bound} ≤ minimal rank ≤ {best.kernel_rank}")
    if table_path:
        from ..kernels.families import NAMED_FAMILIES

        against = (f" --family {family_path}" if family_path else
                   f" --family {code_spec}" if code_spec in NAMED_FAMILIES and code_spec != "rank-nine" else
                   f" --family CERT, CERT written by certify rank-bound --code {code_spec} --chains best" if code_spec
                   else "")
        work = f" --max-work {max_work}" if max_work is not None else ""
        click.echo(f"  wrote       {table_path} (check it: certify check-kernel {table_path}{against} --all-pairs{work})")
    return EXIT_VERIFIED


def _environment() -> dict:
    """What the float search's bits depend on besides the seed and budget: numpy's build (its SIMD loops and
    LAPACK) and the machine (docs/results.md, "Upper side": what is reproducible)."""
    import platform

    import numpy as np

    return {"python": platform.python_version(), "numpy": np.__version__, "machine": platform.machine()}
