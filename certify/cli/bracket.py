"""``certify bracket``: the certified lower bound next to the smallest verified solution found (issue 16)."""
from __future__ import annotations

import click

from ..check import EXIT_VERIFIED
from .common import Contradiction, InputError, cli, strict_json


@cli.command("bracket")
@click.argument("family_path", metavar="[FAMILY]", required=False, type=click.Path(dir_okay=False))
@click.option("--code", "code_spec", metavar="SPEC",
              help="Instead of FAMILY: a code (rank-nine, hadamard24, hadamard:ORDER[:T], greedy:M:Δ[:T], lexicode:M:W:D, "
                   "a file); its best-chain certificate (explicit form) gives the family and the lower side.")
@click.option("--seed", type=click.IntRange(0, 2**32 - 1), default=0, show_default=True,
              help="First seed of the random starts.")
@click.option("--restarts", type=click.IntRange(1, 100), default=3, show_default=True,
              help="Random starts per rank (after the warm start from the rank above).")
@click.option("--iterations", type=click.IntRange(1, 10**7), default=20_000, show_default=True,
              help="Optimizer iterations per start and margin (the budget is counted in these, never in seconds).")
@click.option("--start-rank", "start", type=click.IntRange(1, 10**6),
              help="Highest rank tried (default: the number of query tokens, the one-hot construction's rank).")
@click.option("--lowest-rank", "lowest", type=click.IntRange(1, 10**6), default=1, show_default=True,
              help="Stop once a table of this rank verifies (the search goes no lower).")
@click.option("--out", "out_dir", type=click.Path(file_okay=False),
              help="Write the best verified table (rank<r>.table.json) and bracket.json into this directory.")
@click.option("--json", "as_json", is_flag=True, help="Print one JSON object (schema certify.bracket/1).")
def bracket_cmd(family_path, code_spec, seed, restarts, iterations, start, lowest, out_dir, as_json) -> int:
    """Both sides: the certified r ≥ L of a family and a verified solving table of rank U.

    FAMILY is a certificate (any kind) or a family file (default: the rank-nine
    certificate, paper chains). The upper side is searched numerically at decreasing
    rank and claimed only for a table that the exact check of check-kernel verifies
    (a readout exists, exact LP; exact kernel rank). Exit 0 when a verified table was
    found, 1 when none was, 2 bad input, 3 a contradiction with the certificate.
    """
    from ..bracket import upper_side, write_solution
    from ..kernels.audit import FamilyFormatError, KernelContradiction, family_of_certificate, load_family, require_explicit
    from ..kernels.lp import LPError
    from ..check import Progress

    if family_path and code_spec:
        raise InputError("give FAMILY or --code SPEC, not both")
    try:
        if code_spec:
            from codes import CodeError, load_code

            from ..certificates.producer import CertificateBuildError
            from ..certificates.rank_bound import make_plan, rank_bound_certificate

            try:
                code = load_code(code_spec)
                doc = rank_bound_certificate(code, make_plan(code, "best"), form="explicit", argument="best")
            except (CodeError, CertificateBuildError, ValueError) as exc:
                raise InputError(f"--code {code_spec}: {exc}") from None
            family = family_of_certificate(doc, f"--code {code_spec} (best chains)")
        else:
            family = load_family(family_path)
        require_explicit(family, "certify bracket")
    except FamilyFormatError as exc:
        raise InputError(str(exc)) from None
    if not family.jumps:
        raise InputError(f"{family.source}: no three-witness jumps to search with (unique-minimizer families and "
                         "families without weight-domination witnesses are not supported by bracket yet)")
    bar = Progress("certify bracket")
    try:
        result = upper_side(family, seed=seed, restarts=restarts, iterations=iterations, start=start, lowest=lowest,
                            progress=lambda text: bar.update(None, text))
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
    doc = {
        "schema": "certify.bracket/1", "family": family.source, "inputs": len(family.inputs),
        "lower": family.certified_bound,
        "upper": None if best is None else best.kernel_rank,
        "upper_table": table_path,
        "denominator": None if best is None else best.denominator,
        "seed": seed, "restarts": restarts, "iterations_per_start": iterations, "iterations": result.iterations,
        "tried": result.tried,
        "check_kernel": None if best is None else best.report.to_json(),
        "environment": _environment(),
    }
    if out_dir and best is not None:
        from ..certificates.producer import write_atomic

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
    if best is None:
        click.echo(f"  upper       no verified solution found at rank ≤ {result.tried[0]['rank'] if result.tried else '?'} "
                   f"({result.iterations:,} iterations)")
        return 1
    rep = best.report
    click.echo(f"  upper       r ≤ {best.kernel_rank}: a table of exact kernel rank {best.kernel_rank} "
               f"(factors of width {best.width}, entries multiples of 1/{best.denominator:,}) admits a readout that "
               f"solves all {rep.family['inputs']:,} inputs (exact LP)")
    tried = ", ".join(f"{t['rank']} {'yes' if t['verified'] else 'no'}" for t in result.tried)
    click.echo(f"  search      ranks tried: {tried}; {result.iterations:,} iterations (seed {seed}, "
               f"{restarts} restarts × {iterations:,} per rank)")
    if family.certified_bound is not None:
        click.echo(f"  bracket     {family.certified_bound} ≤ minimal rank ≤ {best.kernel_rank}")
    if table_path:
        against = (f" --family {family_path}" if family_path else
                   f" --family CERT, CERT written by certify rank-bound --code {code_spec} --form explicit" if code_spec else "")
        click.echo(f"  wrote       {table_path} (check it: certify check-kernel {table_path}{against})")
    return EXIT_VERIFIED


def _environment() -> dict:
    """What the float search's bits depend on besides the seed and budget: numpy's build (its SIMD loops and
    LAPACK) and the machine (docs/results.md, "Upper side": what is reproducible)."""
    import platform

    import numpy as np

    return {"python": platform.python_version(), "numpy": np.__version__, "machine": platform.machine()}
