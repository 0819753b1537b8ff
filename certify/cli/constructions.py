"""Commands that check constructions and identities: construction, identities."""
from __future__ import annotations

import click

from ..check import EXIT_VERIFIED
from .common import Contradiction, InputError, cli, exit_codes, strict_json


@exit_codes("it solves every input", "it does not (the worst input is printed)")
@cli.command("construction")
@click.argument("name", type=click.Choice(["rank-one", "softmax", "polynomial", "relu", "rank15"]))
@click.option("--m", "m", type=click.IntRange(1, 30), help="Token length m (default 4). Not for rank15.")
@click.option("--length", "length", type=click.IntRange(1, 64),
              help="rank-one, softmax: check every length 1…N (defaults 2 and 3); polynomial: exact length N (default D+1).")
@click.option("--degree", "degree", type=click.IntRange(1, 16), help="polynomial: readout degree D (default 2).")
@click.option("--rank", "rank", is_flag=True, help="Also the exact rank of the kernel on all 2^m × 2^m Boolean pairs (m ≤ 10).")
@click.option("--family", "family_path", type=click.Path(dir_okay=False),
              help="rank15: build the one-hot-query solution of this certificate's or family file's family.")
@click.option("--out", "out", type=click.Path(dir_okay=False), help="rank15: write the table (.npz or .json).")
@click.option("--json", "as_json", is_flag=True, help="Print one JSON object (schema certify.construction/1).")
def construction_cmd(name, m, length, degree, rank, family_path, out, as_json) -> int:
    """Check an upper-bound construction exhaustively and exactly (docs/math.md §8).

    NAME: rank-one (exact at lengths 1, 2), softmax (error < 1/2 at every length ≤ n),
    polynomial (degree-D readout, exact at length D+1), relu (length 3, one ReLU),
    rank15 (one-hot queries: the rank-15 solution of the rank-nine family, or of --family).
    """
    from ..constructions import EXHAUSTIVE
    from ..constructions.exhaustive import ConstructionError, ConstructionInputError, domain_kernel_rank, run
    from ..constructions.render import render_result

    def refuse(option: str, value) -> None:
        if value not in (None, False):
            raise InputError(f"{option} does not apply to {name}")

    try:
        if name == "rank15":
            for option, value in (("--m", m), ("--length", length), ("--degree", degree), ("--rank", rank)):
                refuse(option, value)
            return _construction_rank15(family_path, out, as_json)
        refuse("--family", family_path)
        refuse("--out", out)
        if name != "polynomial":
            refuse("--degree", degree)
        m = 4 if m is None else m
        if name == "rank-one":
            c = EXHAUSTIVE[name](m, 2 if length is None else length)
        elif name == "softmax":
            c = EXHAUSTIVE[name](m, 3 if length is None else length)
        elif name == "polynomial":
            c = EXHAUSTIVE[name](m, 2 if degree is None else degree, length)
        else:
            if length not in (None, 3):
                raise InputError(f"relu is the length-3 construction of C.2; --length must be 3, not {length}")
            c = EXHAUSTIVE[name](m)
        params = {"m": m, "length": max(c.lengths)} | ({"degree": c.D} if name == "polynomial" else {})
        result = run(c, params)
        if rank:
            result.kernel_rank, result.rank_notes = domain_kernel_rank(c)
    except ConstructionInputError as exc:
        raise InputError(str(exc)) from None
    except ConstructionError as exc:
        raise Contradiction(str(exc)) from None
    if as_json:
        click.echo(strict_json(result.to_json()))
    else:
        click.echo(f"certify construction {name}")
        for line in render_result(result):
            click.echo("  " + line)
    return EXIT_VERIFIED if result.solves else 1


def _construction_rank15(family_path: str | None, out: str | None, as_json: bool) -> int:
    import sys as _sys

    from ..check import format_rational
    from ..constructions.one_hot import check_one_hot
    from ..constructions.render import render_one_hot
    from ..kernels.audit import FamilyFormatError, KernelContradiction, load_family, require_explicit
    from ..kernels.table import TableFormatError

    if hasattr(_sys, "set_int_max_str_digits"):
        _sys.set_int_max_str_digits(0)
    try:
        family = load_family(family_path)
        require_explicit(family, "certify construction rank15")
        table, report = check_one_hot(family, out)
    except (FamilyFormatError, TableFormatError) as exc:
        raise InputError(str(exc)) from None
    except OSError as exc:
        raise InputError(f"cannot write {out}: {exc.strerror or exc}") from None
    except KernelContradiction as exc:
        raise Contradiction(str(exc)) from None
    if as_json:
        doc = {"schema": "certify.construction/1", "construction": "rank15", "solves": bool(report.solves),
               "max_error": format_rational(report.max_error), "inputs_checked": report.family["inputs"],
               "kernel_rank": report.kernel_rank, "feature_width": len(table["queries"]),
               "base": format_rational(table["base"]), "out": out, "check_kernel": report.to_json()}
        click.echo(strict_json(doc))
    else:
        click.echo("certify construction rank15")
        for line in render_one_hot(table, report, out):
            click.echo("  " + line)
    return EXIT_VERIFIED if report.solves else 1


@exit_codes("every identity holds", "one does not (named)")
@cli.command("identities")
@click.option("--json", "as_json", is_flag=True, help="Print one JSON object (schema certify.identities/1).")
def identities_cmd(as_json: bool) -> int:
    """Check the identities behind the lower bounds symbolically with sympy.

    Weight domination at general n (A.2), the four-input unique-minimizer identity
    (A.4), finite differences (B.1, B.4), the dense-softmax error formula (A.1) and the
    rank relations of the sharper arguments (docs/math.md §5).
    """
    import sympy

    from ..check import Progress
    from ..lemmas.identities import all_identities

    bar = Progress("certify identities", total=6)
    results = all_identities(progress=lambda done, group: bar.update(done, group))
    bar.close()
    ok = all(r.holds for r in results)
    if as_json:
        click.echo(strict_json({"schema": "certify.identities/1", "sympy": sympy.__version__, "all_hold": ok,
                               "identities": [r.to_json() for r in results]}))
        return EXIT_VERIFIED if ok else 1
    click.echo(f"certify identities  (sympy {sympy.__version__}: lhs − rhs simplified to 0)")
    group = None
    for r in results:
        if r.group != group:
            group = r.group
            click.echo(f"  {group} ({r.reference})")
        click.echo(f"    {'holds ' if r.holds else 'FAILS '} {r.statement}")
        click.echo(f"           {r.detail}")
    click.echo(f"  {sum(r.holds for r in results)} of {len(results)} identities hold")
    return EXIT_VERIFIED if ok else 1
