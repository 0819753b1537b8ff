"""Commands that build or read certificates: rank-nine, verify, rank-bound, search, unique-minimizer, family."""
from __future__ import annotations

import time

import click

from ..check import EXIT_MALFORMED, EXIT_VERIFIED, CertificateError, check, exact_text, run
from ..lemmas.ceiling import ceiling_line
from ..search import DEFAULT_BUDGET, RANDOM_SEED_WORDS
from .common import InputError, Rejected, _echo_written, _write_and_reverify, cli, exit_codes, refuse_same_file, strict_json


#: ``--form`` of rank-bound and search: which certificate version is written.
_FORM_OPTION = click.option(
    "--form", type=click.Choice(["auto", "explicit", "compact"]), default="auto", show_default=True,
    help="explicit: version 1, every input listed; compact: version 2, code and plan; auto: explicit up to 50,000 "
         "inputs and the checker's 64 MiB file limit, else compact.")

_ARGUMENT_OPTION = click.option(
    "--argument", "argument",
    type=click.Choice(["best", "trace-frobenius", "shifted", "square", "null-shifted", "square-kernel"]), default="best",
    show_default=True,
    help="The last step (docs/math.md §5): trace-frobenius on C (the paper's), shifted (C − sJ), square "
         "(C∘C + bC + gJ), null-shifted (Theorem A: the null space of C), square-kernel (the square less a "
         "positive semidefinite kernel; codes of one weight), or best: whichever proves most, parameters chosen exactly.")


def _sharper_path(out: str) -> str:
    """``X.cert.json`` → ``X.sharper.cert.json``; any other name gets ``.sharper.json`` appended."""
    return out[: -len(".cert.json")] + ".sharper.cert.json" if out.endswith(".cert.json") else out + ".sharper.json"


@exit_codes("written, and re-verified by the independent checker", internal="the checker rejects our own certificate (a bug)")
@cli.command("rank-nine")
@click.option("--chains", "plan", type=click.Choice(["paper", "direct"]), default="paper", show_default=True,
              help="paper: jumps of gap ≥ 3 (factor 2 each, §6.1); direct: one jump per pair (factor d−1).")
@click.option("--out", "out", type=click.Path(dir_okay=False), default="rank-nine.cert.json", show_default=True,
              help="Where to write the certificate (the paper's argument: trace–Frobenius).")
@click.option("--sharper-out", "sharper_out", type=click.Path(dir_okay=False),
              help="Where to write the certificate of the sharpest argument on the same family "
                   "(default: X.sharper.cert.json for --out X.cert.json, else OUT.sharper.json).")
@click.option("--no-sharper", "no_sharper", is_flag=True, help="Write only the paper's certificate.")
@click.option("--json", "as_json", is_flag=True, help="Print a JSON summary instead of text.")
def rank_nine(plan: str, out: str, sharper_out: str | None, no_sharper: bool, as_json: bool) -> int:
    """Build, check, write and re-verify the rank-nine certificate (docs/math.md §6).

    The fixed 15-word code (length 24, weight 12, directed distance 6) with one chain
    per ordered pair; `paper` certifies r ≥ 9, `direct` r ≥ 10, by the paper's
    trace–Frobenius step. Beside it goes a second certificate of the same family whose
    last step is sharper (docs/math.md §5, Theorem A): r ≥ 12 (paper chains), r ≥ 13 (direct).
    """
    from witnesses import rank_nine_family

    from ..certificates.producer import argument_lines, build_certificate, proved_bound

    sharper_out = None if no_sharper else (sharper_out or _sharper_path(out))
    if sharper_out == out:  # refused before anything is written
        raise InputError(f"--sharper-out {sharper_out} is --out: the two certificates need two files")
    family = rank_nine_family(plan)  # one family, two last steps
    cert = build_certificate(family)
    verified, _ = _write_and_reverify(cert, out, cert["arithmetic"]["rank_at_least"])
    sharp = None if no_sharper else build_certificate(family, argument="best")
    if sharp is not None and "argument" not in sharp:
        sharp = None  # nothing sharper than the paper's step (never for the rank-nine family)
    if sharp is not None:
        sharp_verified, _ = _write_and_reverify(sharp, sharper_out, proved_bound(sharp))
    if as_json:
        click.echo(strict_json({
            "claim": cert["claim"], "chains": plan, "out": out, "sha256": cert["sha256"],
            "counts": verified.counts, "arithmetic": cert["arithmetic"], "verified": True,
            "sharper": None if sharp is None else {
                "claim": sharp["claim"], "argument": sharp["argument"], "out": sharper_out, "sha256": sharp["sha256"],
                "verified": True},
        }))
        return EXIT_VERIFIED
    _echo_written(f"certify rank-nine (chains: {plan})", cert, out, verified)
    if sharp is not None:
        click.echo(f"  sharper     the same {verified.counts['inputs']:,} inputs and chains, a sharper last step "
                   "(docs/math.md §5):")
        for line in argument_lines(sharp):
            click.echo("  " + line)
        click.echo(f"  wrote       {sharper_out}  (sha256 {sharp['sha256'][:16]}…)")
        click.echo(f"  verified    independent checker (certify/check.py) re-read the file: r ≥ {sharp_verified.proved}")
    return EXIT_VERIFIED


@exit_codes("verified", "rejected (the message names the failing step and item)", bad="unreadable or malformed, over a limit, or output that cannot be written")
@cli.command("verify")
@click.argument("path", type=click.Path(dir_okay=True))
@click.option("--quiet", "-q", is_flag=True, help="Print nothing on success.")
@click.option("--json", "as_json", is_flag=True, help="Print the outcome as one JSON object on stdout.")
@click.option("--expand", "expand", type=click.Path(dir_okay=False), metavar="OUT",
              help="Once verified, write the family the certificate is about to OUT, explicitly (for compact certificates: generated).")
@click.option("--jobs", "jobs", type=click.IntRange(1, 256), default=1, show_default=True,
              help="Check a compact certificate's queries in N processes (standard library; same verdict and messages).")
@click.option("--max-work", "max_work", type=click.IntRange(1, 10**18 - 1), metavar="N",
              help="Cap (or raise) the compact check's work, t(t−1)(k+1)⌈m/64⌉ units (default 4·10⁸: about 5 minutes "
                   "on one core); over it: exit 2 with the number.")
@click.option("--dask", "dask_address", metavar="ADDRESS",
              help="Check a compact certificate's queries on a Dask scheduler (tcp://host:8786), or 'local' for a "
                   "LocalCluster of --jobs processes (extra dask).")
def verify(path: str, quiet: bool, as_json: bool, expand: str | None, jobs: int, max_work: int | None,
           dask_address: str | None) -> int:
    """Re-check a certificate with the independent stdlib-only checker.

    Prints the claim as parsed when the data prove it; otherwise the failing step and item.
    """
    if expand:
        refuse_same_file(path, expand, "--expand")
    kept: list = []
    run_shards = client = None
    if jobs > 1 and not dask_address:
        from ..shards import local

        run_shards = local(jobs)
    if dask_address:
        from ..distributed import DaskUnavailable, client_for, dask_shards

        try:
            client = client_for(dask_address, max(jobs, 2) if dask_address == "local" else jobs)
        except DaskUnavailable as exc:
            raise InputError(str(exc)) from None
        except (OSError, TimeoutError, ValueError) as exc:
            raise InputError(f"--dask {dask_address}: cannot connect ({type(exc).__name__}: {str(exc)[:120]})") from None
        run_shards = dask_shards(client)
    try:
        code = run(path, quiet=quiet, as_json=as_json, keep=kept, max_work=max_work, run_shards=run_shards)
    finally:
        if client is not None:
            cluster = getattr(client, "cluster", None)
            client.close()
            if cluster is not None:
                cluster.close()
    if code == EXIT_VERIFIED and expand:
        from ..certificates.compact import write_family

        doc, verified = kept[0]
        try:
            count = write_family(doc, expand, verified)  # the document just verified: neither re-read nor re-checked
        except OSError as exc:
            raise InputError(f"cannot write {expand}: {exc.strerror or exc}") from None
        if not quiet and not as_json:
            click.echo(f"  family: {count:,} inputs written to {expand}")
    return code


@exit_codes("written", "--from CERT: the certificate is rejected")
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
    from ..certificates.families import FamilyInputError, family_document
    from ..certificates.producer import write_certificate

    from ..check import Progress

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
        click.echo(strict_json({"kind": kind, "out": out, "m": doc["m"], "parameters": doc["parameters"],
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
    from ..certificates.compact import write_family
    from ..check import load

    refuse_same_file(path, out, "--out")
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
        click.echo(strict_json({"from": path, "sha256": doc["sha256"], "out": out, "inputs": count,
                               "rank_at_least": verified.rank_at_least}))
        return EXIT_VERIFIED
    click.echo(f"certify family --from {path}")
    click.echo(f"  certificate verified: r ≥ {verified.proved} on {count:,} inputs of exact length {doc['claim']['length']}")
    click.echo(f"  wrote       {out}  ({count:,} inputs, explicitly)")
    return EXIT_VERIFIED


@exit_codes("written, and re-verified by the independent checker", internal="the checker rejects our own certificate (a bug)")
@cli.command("unique-minimizer")
@click.option("--code", "code", metavar="SPEC", default="greedy:24:7:6", show_default=True,
              help="A code name or file (e.g. rank-nine, hadamard24, hadamard:ORDER[:T], greedy:M:Δ[:T]); directed distance ≥ 3.")
@click.option("--chains", "chains", type=click.Choice(["direct", "best"]), default="direct", show_default=True,
              help="direct: one jump per pair, factor (d−1)/2; best: the split maximizing the product.")
@click.option("--out", "out", type=click.Path(dir_okay=False), default="unique-minimizer.cert.json", show_default=True,
              help="Where to write the certificate.")
@_ARGUMENT_OPTION
@click.option("--json", "as_json", is_flag=True, help="Print a JSON summary instead of text.")
def unique_minimizer_cmd(code: str, chains: str, out: str, argument: str, as_json: bool) -> int:
    """Build, write and re-verify a unique-minimizer certificate (A.4; docs/math.md §7).

    Every input has three distinct tokens and a unique minimizer at the query; the
    effective kernel K = α(q,k₀) + 2α(q,k₁) gains a factor (d−1)/2 per jump (3 at gap 7).
    """
    from codes import CodeError, load_code
    from witnesses import WitnessError, unique_minimizer_family

    from ..certificates.families import FamilyInputError, chain_plan, refuse_large_certificate
    from ..certificates.producer import CertificateBuildError, proved_bound, tried_lines
    from ..certificates.unique_minimizer import build_unique_minimizer_certificate

    try:
        words = load_code(code)
        levels = chain_plan(chains, 3, True)
        refuse_large_certificate("unique-minimizer", words, levels, 4, 3, words.length + 2)
        fam = unique_minimizer_family(words, levels, plan_name=chains)
        cert = build_unique_minimizer_certificate(fam, argument=argument)
    except (CodeError, WitnessError, CertificateBuildError, FamilyInputError) as exc:
        raise InputError(f"--code {code}: {exc}") from None
    verified, _ = _write_and_reverify(cert, out, proved_bound(cert))
    if as_json:
        click.echo(strict_json({"claim": cert["claim"], "code": code, "chains": chains, "out": out,
                               "sha256": cert["sha256"], "counts": verified.counts, "arithmetic": cert["arithmetic"],
                               "argument": cert.get("argument"), "verified": True}))
    else:
        _echo_written(f"certify unique-minimizer (code: {code}, chains: {chains})", cert, out, verified,
                      tried_lines(cert) if argument == "best" else [])
    return EXIT_VERIFIED


# --------------------------------------------------------------------------- rank-bound (issue 10)


def _ceiling_json(t: int, m: int, cert: dict, length: int, error) -> dict | None:
    """The ``ceiling`` of a ``--json`` summary: the bound no covered last step exceeds, or ``None`` where it does not apply."""
    from ..lemmas.ceiling import CEILING_STEPS, ceiling, covers

    if ceiling_line(t, m, cert.get("argument"), length, error) is None:
        return None
    return {"rank_at_most_certifiable": ceiling(t, m), "t": t, "m": m,
            "steps": [s or "trace-frobenius" for s in CEILING_STEPS[1:]],
            "covers_this_certificate": covers(cert.get("argument"))}


@exit_codes("written, and re-verified by the independent checker", internal="the checker rejects our own certificate (a bug)")
@cli.command("rank-bound")
@click.option("--code", "code_spec", required=True, metavar="NAME|PATH",
              help="rank-nine, hadamard24, golay24, hadamard:ORDER[:T], greedy:M:Δ[:T], lexicode:M:W:D, random:M:W:D[:N][:SEED], "
                   "or a file of 0/1 words (one per line).")
@click.option("--chains", "plan_name", type=click.Choice(["best", "paper", "direct"]), default="best", show_default=True,
              help="best: the largest chain factor per directed distance; paper: gaps of 3 (§6.1); direct: one jump.")
@click.option("--length", "length", type=click.IntRange(3, 1000), default=3, show_default=True,
              help="Exact input length n (3 ≤ n ≤ 1000).")
@click.option("--error-below", "error_text", default="1/2", show_default=True, metavar="ε",
              help="Error threshold ε > 0, exact: p/q or a decimal.")
@_FORM_OPTION
@click.option("--out", "out", type=click.Path(dir_okay=False), help="Where to write the certificate (default NAME.cert.json).")
@_ARGUMENT_OPTION
@click.option("--max-work", "max_work", type=click.IntRange(1, 10**18 - 1), metavar="N",
              help="The checker's compact work limit t(t−1)(k+1)⌈m/64⌉ to build within and verify with (default the "
                   "checker's, 4·10⁸); a reader verifies with python certify/check.py --max-work N.")
@click.option("--json", "as_json", is_flag=True, help="Print a JSON summary instead of text.")
def rank_bound_cmd(code_spec: str, plan_name: str, length: int, error_text: str, form: str, out: str | None,
                   argument: str, max_work: int | None, as_json: bool) -> int:
    """Certify a rank lower bound from any code: build, write, re-verify (docs/math.md §3–§5).

    Every ordered pair of codewords gets a chain of jumps chosen by the plan; the
    last step that proves most from the chain factors (--argument best: trace–Frobenius,
    shifted, square, null-shifted or square-kernel, docs/math.md §5) is written as a certificate (explicit for small
    families, compact for large ones) and re-checked by the independent checker; both
    the trace–Frobenius bound and the sharper one are printed, and the ceiling: what
    trace–Frobenius, shift and null-space step can prove at most from any family of that many
    words (docs/math.md §5, "The ceiling of the family method").
    """
    from codes import CodeError, code_name, load_code

    from ..certificates.producer import CertificateBuildError
    from ..certificates.producer import proved_bound, tried_lines
    from ..certificates.rank_bound import code_bound, describe, make_plan, parse_error, rank_bound_certificate

    from ..certificates.compact import check_compact_limits

    try:
        error = parse_error(error_text)
        code = load_code(code_spec)
        check_compact_limits(code.size)  # before the quadratic distance count
        plan = make_plan(code, plan_name, length, error)
        bound = code_bound(code, plan, length, error)
        cert = rank_bound_certificate(code, plan, length, error, form, bound=bound, argument=argument, max_work=max_work)
    except (ValueError, CodeError, CertificateBuildError) as exc:
        raise InputError(str(exc)) from None
    out = out or f"{code_name(code_spec)}.cert.json"
    verified, size = _write_and_reverify(cert, out, proved_bound(cert), max_work)
    ceiling = ceiling_line(code.size, code.length, cert.get("argument"), length, error)
    if as_json:
        click.echo(strict_json({
            "claim": cert["claim"], "code": code_spec, "chains": plan_name, "plan": plan.to_json(),
            "version": cert["version"], "out": out, "bytes": size, "sha256": cert["sha256"],
            "counts": verified.counts, "ratio": exact_text(bound.ratio), "trace_frobenius": bound.rank_at_least,
            "argument": cert.get("argument"), "ceiling": _ceiling_json(code.size, code.length, cert, length, error),
            "verified": True,
        }))
        return EXIT_VERIFIED
    click.echo(f"certify rank-bound (code: {code_spec}, chains: {plan_name})")
    for line in describe(cert, code, plan, bound) + (tried_lines(cert) if argument == "best" else []):
        click.echo("  " + line)
    if ceiling:
        click.echo(f"  ceiling     {ceiling}")
    click.echo(f"  wrote       {out}  (version {cert['version']}, {size:,} bytes, sha256 {cert['sha256'][:16]}…)")
    click.echo(f"  verified    independent checker (certify/check.py) re-read the file: r ≥ {verified.proved}")
    return EXIT_VERIFIED


# --------------------------------------------------------------------------- search (issue 10)


@exit_codes("written, and re-verified by the independent checker", internal="the checker rejects our own certificate (a bug)")
@cli.command("search")
@click.option("--m", "m", type=click.IntRange(4, 64), required=True, help="Token length m (4 ≤ m ≤ 64).")
@click.option("--length", "length", type=click.IntRange(3, 1000), default=3, show_default=True, help="Exact input length n.")
@click.option("--error-below", "error_text", default="1/2", show_default=True, metavar="ε", help="Error threshold ε > 0: p/q or a decimal.")
@click.option("--budget", "budget", type=click.IntRange(1, 10**9), default=DEFAULT_BUDGET, show_default=True,
              help="Work of the search in steps (moves tried, restarts, words trimmed from a seed): the same seed and "
                   "budget give the same code, byte for byte, on any machine.")
@click.option("--time-limit", "time_limit", type=click.FloatRange(1, 86400),
              help="Extra cap in seconds on the whole command: the search, the certificate and its verification (the "
                   "code is trimmed to what can be certified in the time left). If it ends the search before the budget "
                   "does, the output says so and the result is not reproducible. Default: none.")
@click.option("--seed", "seed", type=click.IntRange(0, 2**32 - 1), default=0, show_default=True,
              help="Random seed of the local search and of the random seed codes.")
@click.option("--random-words", "random_words", type=click.IntRange(2, 16_384), default=RANDOM_SEED_WORDS, show_default=True,
              metavar="N", help="Words of each random seed (random:M:⌊M/2⌋:D:N:SEED with SEED = --seed, used where the middle layer is too large "
                                "to take whole, m ≥ 21); the code size stays capped by the checker's work limit.")
@_FORM_OPTION
@click.option("--out", "out", type=click.Path(dir_okay=False), help="Where to write the certificate (default search-mM.cert.json).")
@_ARGUMENT_OPTION
@click.option("--max-work", "max_work", type=click.IntRange(1, 10**18 - 1), metavar="N",
              help="The checker's compact work limit t(t−1)(k+1)⌈m/64⌉ to build within and verify with (default the "
                   "checker's, 4·10⁸); a reader verifies with python certify/check.py --max-work N.")
@click.option("--json", "as_json", is_flag=True, help="Print a JSON summary instead of text.")
def search_cmd(m: int, length: int, error_text: str, budget: int, time_limit: float | None, seed: int,
               random_words: int, form: str, out: str | None, argument: str, max_work: int | None, as_json: bool) -> int:
    """Search for a code and chain plan with a higher certified bound; write and re-verify its certificate.

    Seeds (built-in, Hadamard, shortened Reed–Muller and Golay codes, lexicodes, small
    maximum cliques, seeded random codes for m ≥ 21, padded shorter codes) are evaluated exactly and scored by the sharpest
    last step (docs/math.md §5), then a local search over words adds, removes and swaps
    words while the exact trace–Frobenius ratio rises; of the codes it ends with, the one
    of the sharpest bound is kept (docs/results.md).
    The work is counted in steps (--budget), so a seed and budget reproduce the code. The
    output's ceiling line is what trace–Frobenius, shift and null-space step can prove at most
    from any family of that many words (docs/math.md §5, "The ceiling of the family method").
    """
    from ..certificates.producer import CertificateBuildError, proved_bound, tried_lines
    from ..certificates.rank_bound import describe, parse_error
    from ..check import Progress
    from ..search.codes import SearchError, fit_to_time, result_certificate, search

    progress = Progress(f"certify search --m {m}")
    started = time.monotonic()
    try:
        error = parse_error(error_text)
        result = search(m, length, error, time_limit, seed, progress=lambda note: progress.update(None, note),
                        budget=budget, random_words=random_words, max_work=max_work)
        if time_limit is not None:  # the certificate, written and verified, within the limit too
            result = fit_to_time(result, started + time_limit, lambda note: progress.update(None, note))
        cert, plan, bound = result_certificate(result, form=form, argument=argument)
    except (ValueError, SearchError, CertificateBuildError) as exc:
        raise InputError(str(exc)) from None
    finally:
        progress.close()
    out = out or f"search-m{m}.cert.json"
    verified, size = _write_and_reverify(cert, out, proved_bound(cert), max_work)
    ceiling = ceiling_line(result.code.size, m, cert.get("argument"), length, error)
    scores = result.seed_bounds  # the search starts from the seed of the sharpest bound (ties: the larger R)
    best_seed = max((s for s in result.seeds if s[2] is not None), key=lambda s: (scores.get(s[0], 0), s[2]), default=None)
    if as_json:
        click.echo(strict_json({
            "m": m, "claim": cert["claim"], "how": result.how(), "seconds": round(result.seconds, 3),
            "seed": seed, "budget": budget, "steps": result.steps, "time_capped": result.time_capped,
            "trimmed_from": result.trimmed_from, "total_seconds": round(time.monotonic() - started, 3),
            "reproducible": result.reproducible,
            "seeds": [{"name": n, "words": t, "ratio": None if r is None else exact_text(r),
                       "rank_at_least": scores.get(n) if r is not None else None} for n, t, r in result.seeds],
            "plan": plan.to_json(), "ratio": exact_text(bound.ratio), "trace_frobenius": bound.rank_at_least,
            "argument": cert.get("argument"), "ceiling": _ceiling_json(result.code.size, m, cert, length, error),
            "version": cert["version"], "out": out,
            "bytes": size, "sha256": cert["sha256"], "counts": verified.counts, "verified": True,
        }))
        return EXIT_VERIFIED
    click.echo(f"certify search --m {m} (length {length}, error < {cert['claim']['error_below']}, seed {seed}, "
               f"budget {budget:,} steps" + ("" if time_limit is None else f", at most {time_limit:g} s") + ")")
    if best_seed is not None:
        r = best_seed[2]
        click.echo(f"  seeds       {len(result.seeds)} codes evaluated; best: {best_seed[0]} ({best_seed[1]:,} words, "
                   f"R ≈ {r.numerator / r.denominator:.4f} ⇒ r ≥ {r.numerator // r.denominator + 1}; sharpest last step "
                   f"r ≥ {scores.get(best_seed[0], '?')})")
    click.echo(f"  how         {result.how()}")
    if result.time_capped:
        click.echo(f"  budget      cut short by --time-limit {time_limit:g} after {result.steps:,} of {budget:,} steps: "
                   "another machine or run may find a different code")
    else:
        click.echo(f"  budget      {result.steps:,} of {budget:,} steps: reproducible (same --seed {seed} --budget "
                   f"{budget} ⇒ the same code and certificate)")
    for line in describe(cert, result.code, plan, bound) + (tried_lines(cert) if argument == "best" else []):
        click.echo("  " + line)
    if ceiling:
        click.echo(f"  ceiling     {ceiling}")
    click.echo(f"  wrote       {out}  (version {cert['version']}, {size:,} bytes, sha256 {cert['sha256'][:16]}…)")
    click.echo(f"  verified    independent checker (certify/check.py) re-read the file: r ≥ {verified.proved}")
    return EXIT_VERIFIED
