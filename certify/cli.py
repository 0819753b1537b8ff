"""The ``certify`` command: a thin click layer over the library.

Exit codes (every command): 0 verified/solved, 1 rejected/not solved, 2 bad or
unreadable input (one line on stderr), 3 internal contradiction.
"""
from __future__ import annotations

import json
import os
import signal
import sys

import click

from . import __version__
from .check import (EXIT_INTERNAL, EXIT_MALFORMED, EXIT_VERIFIED, CertificateError, check, check_file, exact_text, run,
                    safe_output_streams)

__all__ = ["cli", "main"]


class InputError(click.ClickException):
    """Bad input: exit 2 with a one-line reason."""

    exit_code = EXIT_MALFORMED


class Rejected(click.ClickException):
    """An input that is well formed but does not prove what it says: exit 1 with a one-line reason."""

    exit_code = 1


class Contradiction(click.ClickException):
    """Two of our own computations disagree: exit 3."""

    exit_code = EXIT_INTERNAL


@click.group(context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(__version__, prog_name="certify")
def cli() -> None:
    """Exact proof certificates for "Three Tokens Force Exponential Feature Rank in
    Nonnegative Kernel Attention".

    Exit codes: 0 verified, 1 rejected, 2 bad input, 3 internal contradiction.
    """


def _write_and_reverify(cert: dict, out: str, proved: int):
    """Write ``cert`` to ``out``, re-read it with the independent checker; return (Verified, bytes).

    Exit 2 if the file cannot be written; exit 3 if the checker rejects our own
    certificate or proves a different bound (either would be a bug).
    """
    from .certificates.producer import write_certificate

    try:
        write_certificate(cert, out)
    except OSError as exc:
        raise InputError(f"cannot write {out}: {exc.strerror or exc}") from None
    try:
        verified = check_file(out)
    except CertificateError as exc:
        raise Contradiction(f"the independent checker rejects our own certificate {out}: {exc}") from None
    if verified.proved != proved:
        raise Contradiction(f"the producer says r ≥ {proved}, the checker says r ≥ {verified.proved}")
    return verified, os.path.getsize(out)


def _echo_written(title: str, cert: dict, out: str, verified) -> None:
    """The text summary of a produced certificate: what it claims, how it was made, where it went."""
    from .certificates.producer import describe

    click.echo(title)
    for line in describe(cert):
        click.echo("  " + line)
    click.echo(f"  wrote       {out}  (sha256 {cert['sha256'][:16]}…)")
    click.echo(f"  verified    independent checker (certify/check.py) re-read the file: r ≥ {verified.proved}")


@cli.command("rank-nine")
@click.option("--chains", "plan", type=click.Choice(["paper", "direct"]), default="paper", show_default=True,
              help="paper: jumps of gap ≥ 3 (factor 2 each, §6.1); direct: one jump per pair (factor d−1).")
@click.option("--out", "out", type=click.Path(dir_okay=False), default="rank-nine.cert.json", show_default=True,
              help="Where to write the certificate.")
@click.option("--json", "as_json", is_flag=True, help="Print a JSON summary instead of text.")
def rank_nine(plan: str, out: str, as_json: bool) -> int:
    """Build, check, write and re-verify the rank-nine certificate (docs/math.md §6).

    The fixed 15-word code (length 24, weight 12, directed distance 6) with one chain
    per ordered pair; `paper` certifies r ≥ 9, `direct` r ≥ 10.
    """
    from .certificates.producer import rank_nine_certificate

    cert = rank_nine_certificate(plan)
    verified, _ = _write_and_reverify(cert, out, cert["arithmetic"]["rank_at_least"])
    if as_json:
        click.echo(json.dumps({
            "claim": cert["claim"], "chains": plan, "out": out, "sha256": cert["sha256"],
            "counts": verified.counts, "arithmetic": cert["arithmetic"], "verified": True,
        }))
    else:
        _echo_written(f"certify rank-nine (chains: {plan})", cert, out, verified)
    return EXIT_VERIFIED


@cli.command("verify")
@click.argument("path", type=click.Path(dir_okay=True))
@click.option("--quiet", "-q", is_flag=True, help="Print nothing on success.")
@click.option("--json", "as_json", is_flag=True, help="Print the outcome as one JSON object on stdout.")
@click.option("--expand", "expand", type=click.Path(dir_okay=False), metavar="OUT",
              help="Once verified, write the family the certificate is about to OUT, explicitly (for compact certificates: generated).")
def verify(path: str, quiet: bool, as_json: bool, expand: str | None) -> int:
    """Re-check a certificate with the independent stdlib-only checker.

    Prints the claim as parsed and exits 0 if the data prove it; otherwise exits 1
    (rejected, naming the failing step) or 2 (unreadable or malformed).
    """
    kept: list = []
    code = run(path, quiet=quiet, as_json=as_json, keep=kept)
    if code == EXIT_VERIFIED and expand:
        from .certificates.compact import write_family

        doc, verified = kept[0]
        try:
            count = write_family(doc, expand, verified)  # the document just verified: neither re-read nor re-checked
        except OSError as exc:
            raise InputError(f"cannot write {expand}: {exc.strerror or exc}") from None
        if not quiet and not as_json:
            click.echo(f"  family: {count:,} inputs written to {expand}")
    return code


def _parse_range(text: str) -> range:
    parts = text.split(":")
    try:
        nums = [int(p) for p in parts]
    except ValueError:
        raise InputError(f"--m-range must be A:B or A:B:STEP with integers, not {text!r}") from None
    if len(nums) not in (2, 3):
        raise InputError(f"--m-range must be A:B or A:B:STEP, not {text!r}")
    a, b, step = nums[0], nums[1], nums[2] if len(nums) == 3 else 1
    from .bounds.values import M_MAX

    if not 1 <= a <= b <= M_MAX or step < 1:
        raise InputError(f"--m-range needs 1 ≤ A ≤ B ≤ {M_MAX} and STEP ≥ 1, not {text!r}")
    ms = range(a, b + 1, step)
    if len(ms) > 2000:
        raise InputError(f"--m-range {text} has {len(ms)} points; at most 2000 (use a larger STEP)")
    return ms


@cli.command("bounds")
@click.option("--m", "m", type=click.IntRange(1, 10**6), help="Token length m (1 ≤ m ≤ 10^6).")
@click.option("--m-range", "m_range", metavar="A:B[:STEP]", help="Evaluate log₂ of each bound for m = A, A+STEP, …, B.")
@click.option("--length", "length", type=click.IntRange(3, 10**18), help="Exact length n for the growing-context bound (A.2) and the transcript bound (2q ≤ n).")
@click.option("--heads", "H", type=click.IntRange(1, 32), help="Number of heads H for B.1–B.2 (exact length H+2).")
@click.option("--degree", "D", type=click.IntRange(1, 32), help="Readout degree D for B.4 (exact length D+2).")
@click.option("--s", "s", type=click.IntRange(1, 10**6), help="Answer range {0,…,s} for the transcript bound (C.3); default ⌈log₂ m⌉.")
@click.option("--json", "as_json", is_flag=True, help="Print one JSON object (schema certify.bounds/1, docs/bounds.md).")
@click.option("--plot", "plot", type=click.Path(dir_okay=False), help="With --m-range: draw log₂(bound) against m into this PNG (needs certify[plot]).")
def bounds(m, m_range, length, H, D, s, as_json, plot) -> int:
    """The paper's bounds at a given m: closed forms and the same arguments evaluated exactly (docs/math.md §7).

    Exact integers up to M = 20,000; certified intervals (python-flint arb) above.
    """
    import sys as _sys

    from .bounds import values as B
    from .bounds.render import render_range, render_text

    if hasattr(_sys, "set_int_max_str_digits"):
        _sys.set_int_max_str_digits(0)  # exact bounds at M ≤ 20,000 can have thousands of digits
    if (m is None) == (m_range is None):
        raise InputError("give exactly one of --m M and --m-range A:B[:STEP]")
    if plot and m_range is None:
        raise InputError("--plot needs --m-range A:B[:STEP]")
    if plot:
        from .bounds.plot import PlotUnavailable, check_plot_path

        try:
            check_plot_path(plot)
        except PlotUnavailable as exc:
            raise InputError(str(exc)) from None
    if m is not None and s is not None and s > m - 3:
        raise InputError(f"--s {s} leaves no room: the transcript bound needs m ≥ s + 3")
    try:
        if m_range is not None:
            ms = _parse_range(m_range)
            from .check import Progress

            progress = Progress("certify bounds --m-range", total=len(ms))  # interval-mode ranges can take minutes
            try:
                rows = B.range_rows(ms, length, H, D, progress=progress.update)
            finally:
                progress.close()
            if plot:
                from .bounds.plot import PlotUnavailable, plot_rows

                try:
                    labels = {"growing_context.exact": f"n = {length}", "heads.exact": f"H = {H}",
                              "degree.exact": f"D = {D}"}
                    plot_rows(rows, plot, f"Rank lower bounds, m = {ms.start}…{ms[-1]}", labels)
                except PlotUnavailable as exc:
                    raise InputError(str(exc)) from None
                except OSError as exc:
                    raise InputError(f"cannot write {plot}: {exc.strerror or exc}") from None
            if as_json:
                click.echo(json.dumps({"schema": "certify.bounds-range/1", "columns": ["m", *B.RANGE_COLUMNS], "rows": rows}))
            else:
                for line in render_range(rows):
                    click.echo(line)
                if plot:
                    click.echo(f"wrote {plot}")
            return EXIT_VERIFIED
        result = B.all_bounds(m, length, H, D, s)
    except B.BoundsInputError as exc:
        raise InputError(str(exc)) from None
    if as_json:
        click.echo(json.dumps(B.to_json(result)))
    else:
        for line in render_text(result):
            click.echo(line)
    return EXIT_VERIFIED


@cli.command("check-kernel")
@click.argument("table", type=click.Path(dir_okay=False))
@click.option("--family", "family_path", type=click.Path(dir_okay=False),
              help="A certificate, or any JSON file with family.inputs (default: the rank-nine certificate, paper chains).")
@click.option("--search-readout", is_flag=True,
              help="Also decide (exact LP) whether some readout solves the family; always done for kernel-only tables.")
@click.option("--json", "as_json", is_flag=True, help="Print one JSON object (schema certify.check-kernel/1).")
def check_kernel_cmd(table: str, family_path: str | None, search_readout: bool, as_json: bool) -> int:
    """Check a kernel table (.npz or .json) against a witness family, exactly.

    Exit 0: the table's readout solves the family (kernel only: some readout exists);
    1: it does not; 2: bad input; 3: a result contradicts the certified theorem.
    """
    from .kernels.audit import run_check

    code, result = run_check(table, family_path, search_readout)
    if isinstance(result, str):
        raise (InputError if code == EXIT_MALFORMED else Contradiction)(result)
    if as_json:
        click.echo(json.dumps(result.to_json()))
    else:
        click.echo(f"certify check-kernel {table}")
        for line in result.text():
            click.echo("  " + line)
    return code

# --------------------------------------------------------------------------- constructions, identities, families (issue 9)


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
    Exit 0 solves, 1 not (the worst input is printed), 2 bad input.
    """
    from .constructions import EXHAUSTIVE
    from .constructions.exhaustive import ConstructionError, ConstructionInputError, domain_kernel_rank, run
    from .constructions.render import render_result

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
        click.echo(json.dumps(result.to_json()))
    else:
        click.echo(f"certify construction {name}")
        for line in render_result(result):
            click.echo("  " + line)
    return EXIT_VERIFIED if result.solves else 1


def _construction_rank15(family_path: str | None, out: str | None, as_json: bool) -> int:
    import sys as _sys

    from .check import format_rational
    from .constructions.one_hot import check_one_hot
    from .constructions.render import render_one_hot
    from .kernels.audit import FamilyFormatError, KernelContradiction, load_family
    from .kernels.table import TableFormatError

    if hasattr(_sys, "set_int_max_str_digits"):
        _sys.set_int_max_str_digits(0)
    try:
        family = load_family(family_path)
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
        click.echo(json.dumps(doc))
    else:
        click.echo("certify construction rank15")
        for line in render_one_hot(table, report, out):
            click.echo("  " + line)
    return EXIT_VERIFIED if report.solves else 1


@cli.command("identities")
@click.option("--json", "as_json", is_flag=True, help="Print one JSON object (schema certify.identities/1).")
def identities_cmd(as_json: bool) -> int:
    """Check the identities behind the lower bounds symbolically with sympy.

    Weight domination at general n (A.2), the four-input unique-minimizer identity
    (A.4), finite differences (B.1, B.4) and the dense-softmax error formula (A.1).
    Exit 0 if every one holds, 1 otherwise.
    """
    import sympy

    from .check import Progress
    from .lemmas.identities import all_identities

    bar = Progress("certify identities", total=5)
    results = all_identities(progress=lambda done, group: bar.update(done, group))
    bar.close()
    ok = all(r.holds for r in results)
    if as_json:
        click.echo(json.dumps({"schema": "certify.identities/1", "sympy": sympy.__version__, "all_hold": ok,
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


@cli.command("family")
@click.argument("kind", type=click.Choice(["jumps", "unique-minimizer", "multihead", "transcript"]), required=False)
@click.option("--from", "from_cert", type=click.Path(dir_okay=False), metavar="CERT",
              help="Instead of KIND: the family a certificate is about (verified first; generated for a compact one).")
@click.option("--out", "out", type=click.Path(dir_okay=False), required=True, help="Where to write the family (JSON).")
@click.option("--code", "code", metavar="SPEC",
              help="jumps, unique-minimizer: a code name or file, e.g. rank-nine, hadamard24, hadamard:ORDER[:T], greedy:M:Δ[:T].")
@click.option("--chains", "chains", type=click.Choice(["paper", "direct", "best"]),
              help="jumps: paper, direct or best; unique-minimizer: direct or best.")
@click.option("--length", "length", type=click.IntRange(3, 64), help="jumps: exact input length n (default 3).")
@click.option("--heads", "heads", type=click.IntRange(1, 3), help="multihead: H (inputs of length H+2).")
@click.option("--m", "m", type=click.IntRange(2, 4096), help="multihead: token length (default 2·gap + 2).")
@click.option("--gap", "gap", type=click.IntRange(1, 2047), help="multihead: overlap gap of the worse keys (default g_H).")
@click.option("--candidates", "candidates", type=click.IntRange(1, 2048), help="multihead: number of candidate worse keys (default 2).")
@click.option("--word-length", "word_length", type=click.IntRange(2, 24), help="transcript: M (default 8).")
@click.option("--s", "s", type=click.IntRange(1, 64), help="transcript: answers 0…s (default 1).")
@click.option("--queries", "queries", type=click.IntRange(1, 64), help="transcript: q query tokens (default 3).")
@click.option("--weight", "weight", type=click.IntRange(1, 24), help="transcript: codeword weight h (default M/2).")
@click.option("--json", "as_json", is_flag=True, help="Print a JSON summary instead of text.")
def family_cmd(kind, from_cert, out, as_json, **options) -> int:
    """Write a witness family (certificate `family` format plus metadata) to --out.

    KIND: jumps (Y, Z, W of every jump, length n; A.2), unique-minimizer (four typed
    inputs per jump; A.4), multihead (replacement family at length H+2; B.1),
    transcript (query and database tokens; C.3). Or --from CERT: the family of a
    certificate of either version, written explicitly (docs/certificate-format.md).
    Read it back with `certify check-kernel TABLE --family PATH`. Format: docs/families.md.
    """
    from .certificates.families import FamilyInputError, family_document
    from .certificates.producer import write_certificate

    from .check import Progress

    if (kind is None) == (from_cert is None):
        raise InputError("give a KIND or --from CERT (one of them)")
    if from_cert is not None:
        if any(v is not None for v in options.values()):
            raise InputError("--from CERT takes no family options: the certificate says what its family is")
        return _family_from_certificate(from_cert, out, as_json)

    bar = Progress(f"certify family {kind}")  # building and writing the largest families takes seconds
    try:
        doc = family_document(kind, **options)
        bar.update(len(doc["family"]["inputs"]), f"inputs built, writing {out}")
        write_certificate(doc, out)
    except FamilyInputError as exc:
        raise InputError(str(exc)) from None
    except OSError as exc:
        raise InputError(f"cannot write {out}: {exc.strerror or exc}") from None
    bar.close()
    inputs = doc["family"]["inputs"]
    lengths = sorted({len(x["tokens"]) for x in inputs})
    if as_json:
        click.echo(json.dumps({"kind": kind, "out": out, "m": doc["m"], "parameters": doc["parameters"],
                               "counts": doc["counts"], "lengths": lengths}))
        return EXIT_VERIFIED
    click.echo(f"certify family {kind}")
    click.echo(f"  family      {doc['title']} ({doc['reference']})")
    click.echo("  parameters  " + ", ".join(f"{k} = {v}" for k, v in doc["parameters"].items()))
    click.echo(f"  inputs      {len(inputs):,} of length {', '.join(map(str, lengths))} on {doc['m']}-bit tokens"
               + "".join(f", {v:,} {k}" for k, v in doc["counts"].items() if k != "inputs"))
    if "min_unintended_overlap" in doc:
        click.echo(f"  overlaps    every unintended overlap at a query token ≥ {doc['min_unintended_overlap']} > s = {doc['parameters']['s']}")
    click.echo(f"  wrote       {out}")
    return EXIT_VERIFIED


def _family_from_certificate(path: str, out: str, as_json: bool) -> int:
    """``certify family --from CERT``: verify the certificate, then stream its family to ``out``."""
    from .certificates.compact import write_family
    from .check import load

    try:
        doc = load(path)
        verified = check(doc)
    except CertificateError as exc:
        raise (InputError if exc.exit_code == EXIT_MALFORMED else Rejected)(f"{path}: {exc}") from None
    try:
        count = write_family(doc, out, verified)  # checked just above: not again
    except OSError as exc:
        raise InputError(f"cannot write {out}: {exc.strerror or exc}") from None
    if as_json:
        click.echo(json.dumps({"from": path, "sha256": doc["sha256"], "out": out, "inputs": count,
                               "rank_at_least": verified.rank_at_least}))
        return EXIT_VERIFIED
    click.echo(f"certify family --from {path}")
    click.echo(f"  certificate verified: r ≥ {verified.proved} on {count:,} inputs of exact length {doc['claim']['length']}")
    click.echo(f"  wrote       {out}  ({count:,} inputs, explicitly)")
    return EXIT_VERIFIED


@cli.command("unique-minimizer")
@click.option("--code", "code", metavar="SPEC", default="greedy:24:7:6", show_default=True,
              help="A code name or file (e.g. rank-nine, hadamard24, hadamard:ORDER[:T], greedy:M:Δ[:T]); directed distance ≥ 3.")
@click.option("--chains", "chains", type=click.Choice(["direct", "best"]), default="direct", show_default=True,
              help="direct: one jump per pair, factor (d−1)/2; best: the split maximizing the product.")
@click.option("--out", "out", type=click.Path(dir_okay=False), default="unique-minimizer.cert.json", show_default=True,
              help="Where to write the certificate.")
@click.option("--json", "as_json", is_flag=True, help="Print a JSON summary instead of text.")
def unique_minimizer_cmd(code: str, chains: str, out: str, as_json: bool) -> int:
    """Build, write and re-verify a unique-minimizer certificate (A.4; docs/math.md §7).

    Every input has three distinct tokens and a unique minimizer at the query; the
    effective kernel K = α(q,k₀) + 2α(q,k₁) gains a factor (d−1)/2 per jump (3 at gap 7).
    """
    from codes import CodeError, load_code
    from witnesses import WitnessError, unique_minimizer_family

    from .certificates.families import chain_plan
    from .certificates.producer import CertificateBuildError
    from .certificates.unique_minimizer import build_unique_minimizer_certificate

    try:
        fam = unique_minimizer_family(load_code(code), chain_plan(chains, 3, True), plan_name=chains)
        cert = build_unique_minimizer_certificate(fam)
    except (CodeError, WitnessError, CertificateBuildError) as exc:
        raise InputError(f"--code {code}: {exc}") from None
    verified, _ = _write_and_reverify(cert, out, cert["arithmetic"]["rank_at_least"])
    if as_json:
        click.echo(json.dumps({"claim": cert["claim"], "code": code, "chains": chains, "out": out,
                               "sha256": cert["sha256"], "counts": verified.counts, "arithmetic": cert["arithmetic"],
                               "verified": True}))
    else:
        _echo_written(f"certify unique-minimizer (code: {code}, chains: {chains})", cert, out, verified)
    return EXIT_VERIFIED


@cli.command("train")
@click.option("--family", "family_path", type=click.Path(dir_okay=False),
              help="A certificate, or any JSON file with family.inputs (default: the rank-nine certificate, paper chains).")
@click.option("--ranks", "ranks", default="4,8,9,12,15,32", show_default=True, help="Feature ranks r, comma-separated (1–1024).")
@click.option("--seeds", "seeds", default="0-4", show_default=True, help="Seeds: a list and/or ranges, e.g. 0-4 or 0,3,7.")
@click.option("--steps", "steps", type=click.IntRange(1, 1_000_000), default=2000, show_default=True,
              help="Full-batch Adam steps per run (1–1,000,000).")
@click.option("--out", "out_dir", type=click.Path(file_okay=False), default="trained", show_default=True,
              help="Directory for the exported tables rank<r>_seed<s>.npz.")
@click.option("--json", "as_json", is_flag=True, help="Print one JSON object (schema certify.train/1).")
@click.option("--plot", "plot", type=click.Path(dir_okay=False), help="Draw max error against rank into this PNG (needs certify[plot]).")
def train_cmd(family_path, ranks, seeds, steps, out_dir, as_json, plot) -> int:
    """Train one-head positive-feature models on a family (§6.1) and check every trained table exactly.

    Needs PyTorch (pip install '.[train]' from the checkout). Exit 0 when every run was trained,
    exported and checked; 2 bad input or no torch; 3 a result contradicts the certificate.
    """
    from .kernels import training as T
    from .kernels.audit import FamilyFormatError, KernelContradiction, load_family
    from .kernels.lp import LPError
    from .kernels.table import TableFormatError
    from .kernels.training_report import plot_results, render_text, to_json
    from .bounds.plot import PlotUnavailable
    from .check import Progress

    try:
        config = T.TrainConfig(ranks=T.parse_ranks(ranks), seeds=T.parse_seeds(seeds), steps=steps)
    except ValueError as exc:
        raise InputError(str(exc)) from None
    if plot:  # refused before minutes of training, not after
        from .bounds.plot import check_plot_path

        try:
            check_plot_path(plot)
        except PlotUnavailable as exc:
            raise InputError(str(exc)) from None
    try:
        os.makedirs(out_dir, exist_ok=True)
    except OSError as exc:
        raise InputError(f"cannot write into {out_dir}: {exc.strerror or exc}") from None
    try:
        T._torch()
        fam = load_family(family_path)
        construction = T.construction_report(fam)
        total = len(config.ranks) * len(config.seeds)
        progress = Progress(f"certify train: {total} runs", total=total, delay=0.0, interval=0.0)

        def on_run(res, done, total):
            progress.update(done, f"rank {res.rank} seed {res.seed}: exact max error "
                                  f"{float(res.report.max_error):.4g}, solves: {'yes' if res.solves else 'no'}")

        results = T.run_experiment(fam, config, out_dir, on_run)
        progress.close()
        env = T.environment()
    except (T.TrainingUnavailable, T.TrainingInputError) as exc:
        raise InputError(str(exc)) from None
    except OSError as exc:
        raise InputError(f"cannot write into {out_dir}: {exc.strerror or exc}") from None
    except (TableFormatError, FamilyFormatError) as exc:
        raise InputError(str(exc)) from None
    except (KernelContradiction, LPError) as exc:
        raise Contradiction(str(exc)) from None
    if plot:
        try:
            plot_results(results, construction, fam.certified_bound, plot)
        except PlotUnavailable as exc:
            raise InputError(str(exc)) from None
        except OSError as exc:
            raise InputError(f"cannot write {plot}: {exc.strerror or exc}") from None
    if as_json:
        click.echo(json.dumps(to_json(fam, config, results, construction, out_dir, env)))
    else:
        for line in render_text(fam, config, results, construction, out_dir):
            click.echo(line)
        if plot:
            click.echo(f"  wrote        {plot}")
    return EXIT_VERIFIED


# --------------------------------------------------------------------------- rank-bound (issue 10)


@cli.command("rank-bound")
@click.option("--code", "code_spec", required=True, metavar="NAME|PATH",
              help="rank-nine, hadamard24, golay24, lexicode:M:W:D, or a file of 0/1 words (one per line).")
@click.option("--chains", "plan_name", type=click.Choice(["best", "paper", "direct"]), default="best", show_default=True,
              help="best: the largest chain factor per directed distance; paper: gaps of 3 (§6.1); direct: one jump.")
@click.option("--length", "length", type=click.IntRange(3, 1000), default=3, show_default=True,
              help="Exact input length n (3 ≤ n ≤ 1000).")
@click.option("--error-below", "error_text", default="1/2", show_default=True, metavar="ε",
              help="Error threshold ε > 0, exact: p/q or a decimal.")
@click.option("--form", type=click.Choice(["auto", "explicit", "compact"]), default="auto", show_default=True,
              help="explicit: version 1, every input listed; compact: version 2, code and plan; auto: explicit up to 50,000 inputs.")
@click.option("--out", "out", type=click.Path(dir_okay=False), help="Where to write the certificate (default NAME.cert.json).")
@click.option("--json", "as_json", is_flag=True, help="Print a JSON summary instead of text.")
def rank_bound_cmd(code_spec: str, plan_name: str, length: int, error_text: str, form: str, out: str | None, as_json: bool) -> int:
    """Certify a rank lower bound from any code: build, write, re-verify (docs/math.md §3–§5).

    Every ordered pair of codewords gets a chain of jumps chosen by the plan; the
    trace–Frobenius bound of the chain factors is written as a certificate (explicit
    for small families, compact for large ones) and re-checked by the independent checker.
    """
    from codes import CodeError, code_name, load_code

    from .certificates.producer import CertificateBuildError
    from .certificates.rank_bound import code_bound, describe, make_plan, parse_error, rank_bound_certificate

    from .certificates.compact import check_compact_limits

    try:
        error = parse_error(error_text)
        code = load_code(code_spec)
        check_compact_limits(code.size)  # before the quadratic distance count
        plan = make_plan(code, plan_name, length, error)
        bound = code_bound(code, plan, length, error)
        cert = rank_bound_certificate(code, plan, length, error, form)
    except (ValueError, CodeError, CertificateBuildError) as exc:
        raise InputError(str(exc)) from None
    out = out or f"{code_name(code_spec)}.cert.json"
    verified, size = _write_and_reverify(cert, out, bound.rank_at_least)
    if as_json:
        click.echo(json.dumps({
            "claim": cert["claim"], "code": code_spec, "chains": plan_name, "plan": plan.to_json(),
            "version": cert["version"], "out": out, "bytes": size, "sha256": cert["sha256"],
            "counts": verified.counts, "ratio": exact_text(bound.ratio), "verified": True,
        }))
        return EXIT_VERIFIED
    click.echo(f"certify rank-bound (code: {code_spec}, chains: {plan_name})")
    for line in describe(cert, code, plan, bound):
        click.echo("  " + line)
    click.echo(f"  wrote       {out}  (version {cert['version']}, {size:,} bytes, sha256 {cert['sha256'][:16]}…)")
    click.echo(f"  verified    independent checker (certify/check.py) re-read the file: r ≥ {verified.proved}")
    return EXIT_VERIFIED


# --------------------------------------------------------------------------- search (issue 10)


@cli.command("search")
@click.option("--m", "m", type=click.IntRange(4, 64), required=True, help="Token length m (4 ≤ m ≤ 64).")
@click.option("--length", "length", type=click.IntRange(3, 1000), default=3, show_default=True, help="Exact input length n.")
@click.option("--error-below", "error_text", default="1/2", show_default=True, metavar="ε", help="Error threshold ε > 0: p/q or a decimal.")
@click.option("--time-limit", "time_limit", type=click.FloatRange(1, 86400), default=60, show_default=True,
              help="Seconds for the search (seeds and local search); building and verifying the certificate come on top.")
@click.option("--seed", "seed", type=click.IntRange(0, 2**32 - 1), default=0, show_default=True, help="Random seed of the local search.")
@click.option("--out", "out", type=click.Path(dir_okay=False), help="Where to write the certificate (default search-mM.cert.json).")
@click.option("--json", "as_json", is_flag=True, help="Print a JSON summary instead of text.")
def search_cmd(m: int, length: int, error_text: str, time_limit: float, seed: int, out: str | None, as_json: bool) -> int:
    """Search for a code and chain plan with a higher certified bound; write and re-verify its certificate.

    Seeds (built-in, Hadamard, shortened Reed–Muller and Golay codes, lexicodes, small
    maximum cliques, padded shorter codes) are evaluated exactly, then a local search
    over words adds, removes and swaps words while the exact bound rises (docs/results.md).
    """
    from .certificates.producer import CertificateBuildError
    from .certificates.rank_bound import describe, parse_error
    from .check import Progress
    from .search.codes import SearchError, result_certificate, search

    progress = Progress(f"certify search --m {m}")
    try:
        error = parse_error(error_text)
        result = search(m, length, error, time_limit, seed, progress=lambda note: progress.update(0, note))
        cert, plan, bound = result_certificate(result)
    except (ValueError, SearchError, CertificateBuildError) as exc:
        raise InputError(str(exc)) from None
    finally:
        progress.close()
    out = out or f"search-m{m}.cert.json"
    verified, size = _write_and_reverify(cert, out, bound.rank_at_least)
    best_seed = max((s for s in result.seeds if s[2] is not None), key=lambda s: s[2], default=None)
    if as_json:
        click.echo(json.dumps({
            "m": m, "claim": cert["claim"], "how": result.how(), "seconds": round(result.seconds, 3),
            "seeds": [{"name": n, "words": t, "ratio": None if r is None else exact_text(r)} for n, t, r in result.seeds],
            "plan": plan.to_json(), "ratio": exact_text(bound.ratio), "version": cert["version"], "out": out,
            "bytes": size, "sha256": cert["sha256"], "counts": verified.counts, "verified": True,
        }))
        return EXIT_VERIFIED
    click.echo(f"certify search --m {m} (length {length}, error < {cert['claim']['error_below']}, {time_limit:g} s)")
    if best_seed is not None:
        r = best_seed[2]
        click.echo(f"  seeds       {len(result.seeds)} codes evaluated; best: {best_seed[0]} ({best_seed[1]:,} words, "
                   f"R ≈ {r.numerator / r.denominator:.4f} ⇒ r ≥ {r.numerator // r.denominator + 1})")
    click.echo(f"  how         {result.how()}")
    for line in describe(cert, result.code, plan, bound):
        click.echo("  " + line)
    click.echo(f"  wrote       {out}  (version {cert['version']}, {size:,} bytes, sha256 {cert['sha256'][:16]}…)")
    click.echo(f"  verified    independent checker (certify/check.py) re-read the file: r ≥ {verified.proved}")
    return EXIT_VERIFIED


def _terminated(signum, frame) -> None:
    """SIGTERM: unwind like an exception, so that atomic writes remove their temporary files."""
    click.echo("certify: terminated (SIGTERM)", err=True)
    raise SystemExit(128 + signum)


def main(argv: list[str] | None = None) -> None:
    """Console entry point: run the CLI, turn every failure into one line and an exit code.

    SIGTERM (``kill``, a CI timeout) exits 143 after unwinding: ``finally`` blocks run, so no
    ``OUT.tmp<pid>`` is left behind (SIGKILL cannot be caught; Ctrl-C is "aborted", exit 1).
    """
    safe_output_streams()
    try:
        previous = signal.signal(signal.SIGTERM, _terminated)
    except ValueError:  # not the main thread (an embedding program): leave its handlers alone
        previous = None
    try:
        code = cli.main(args=argv, prog_name="certify", standalone_mode=False)
    except click.exceptions.UsageError as exc:
        hint = f" (try 'certify {exc.ctx.info_name if exc.ctx and exc.ctx.parent else ''} --help')".replace("  ", " ")
        click.echo(f"certify: error: {exc.format_message()}{hint}", err=True)
        code = EXIT_MALFORMED
    except click.ClickException as exc:
        click.echo(f"certify: error: {exc.format_message()}", err=True)
        code = exc.exit_code
    except click.exceptions.Abort:
        click.echo("certify: aborted", err=True)
        code = 1
    except BrokenPipeError:
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
        code = 1
    except Exception as exc:  # a bug: say so in one line, never a traceback
        if os.environ.get("CERTIFY_DEBUG"):
            raise
        click.echo(f"certify: internal error: {type(exc).__name__}: {exc} (set CERTIFY_DEBUG=1 for a traceback)", err=True)
        code = EXIT_INTERNAL
    finally:
        if previous is not None:
            signal.signal(signal.SIGTERM, previous)
    sys.exit(code if isinstance(code, int) else 0)


if __name__ == "__main__":
    main()
