"""``certify minrank``: both sides of r*(m, 3), the least rank solving every length-3 input (issue 31)."""
from __future__ import annotations

import click

from ..check import EXIT_VERIFIED
from ..minrank.descent import DESCENT_STEPS
from .common import InputError, cli, exit_codes, strict_json, writes_into


@writes_into("m*.rank*.table.json", "m*.minrank.json", "m*.lower.*.json", "m*.all-inputs.family.json",
             "m*.upper.symmetric.json", "m*.invariant-degree.json")
@exit_codes("both sides verified")
@cli.command("minrank")
@click.option("--m", "m", type=click.IntRange(1, 48), required=True,
              help="Token length m (1–48; the generic search runs for m ≤ 8, the invariant kernels for every m).")
@click.option("--seed", type=click.IntRange(0, 2**32 - 1), default=0, show_default=True, help="First seed of the search.")
@click.option("--restarts", type=click.IntRange(1, 100), default=4, show_default=True,
              help="Seeded random starts per rank tried.")
@click.option("--steps", type=click.IntRange(1, 10**6), default=4000, show_default=True,
              help="Optimizer steps per start (the budget is counted in these, never in seconds). A step costs 4^m "
                   "entry-steps; a search of more than a day on the 2-core machine (steps × restarts × ranks × 4^m "
                   "entry-steps, at 10⁻⁷ s each) is refused up front (exit 2): m = 8 with the defaults counts about 12 "
                   "minutes and runs, with --steps 1000000 about 2 days and is refused. Above m = 8 there is no "
                   "generic search, and --seed, --restarts, --steps, --max-rank or --budget given there are refused "
                   "(exit 2).")
@click.option("--max-rank", "max_rank", type=click.IntRange(1, 1024),
              help="Highest rank the search tries (default m + 1); above it the upper side is the dense-softmax "
                   "kernel of rank 2^m.")
@click.option("--budget", type=click.IntRange(1, 10**6), default=2000, show_default=True,
              help="Steps of the best-chain search whose certificate gives the tool's certified bound (m ≥ 4).")
@click.option("--out", "out_dir", type=click.Path(file_okay=False),
              help="Write the verified table, the lower-side certificates, m<M>.minrank.json and, for m ≤ 4, the family "
                   "of all length-3 inputs (for certify check-kernel) into this directory.")
@click.option("--rows", "rows", type=click.Path(file_okay=False),
              help="The folder of the committed results rows (m<M>.cert.json, docs/results.md) whose best row at m or "
                   "m − 1 is re-checked as a lower bound (default: docs/results under the current directory, or beside "
                   "an editable install; skipped, with a line saying so, when none is found).")
@click.option("--search-invariant", "search_invariant", is_flag=True,
              help="Make the symmetric-kernel certificate now by the LP search (needs HiGHS: pip install "
                   "highspy, the extra highs) instead of checking the one shipped with certify.")
@click.option("--parts", "parts", type=str,
              help="With --search-invariant: the sizes of the coordinate parts, e.g. 1,11, searched alone (default: "
                   "the tool tries S_M, S_b × S_(M-b) for b ≤ 3 and two parts near the K1 thresholds, keeps those "
                   "that pass the joint chain problem and the full LP, and certifies the best; docs/math.md §11).")
@click.option("--lp-budget", "lp_budget", type=click.IntRange(1, 10**9),
              help="With --search-invariant and no --parts: the LP solves the partition chooser may spend, its full "
                   "LPs and searches together (default 20,000; counted in solves, never seconds). A search it cuts "
                   "short rounds the blocks it has reached; the best certificate is kept; spent before any, exit 2.")
@click.option("--tops", "tops", type=str,
              help="With --search-invariant --parts: the highest block index of each part, e.g. 2,1 with "
                   "--parts 19,5 (default: the least one that works for all parts alike).")
@click.option("--ranks", "ranks", type=str,
              help="With --search-invariant: every block's rank, one dotted index per block, e.g. 0.0=3,0.1=3,1.0=1,"
                   "1.1=1 with --parts 3,11 (blocks not listed are zero); the search then only repairs that choice.")
@click.option("--start", "start", type=click.Path(dir_okay=False),
              help="With --search-invariant: start from this symmetric-kernel certificate (checked first; its m must "
                   "be --m, its parts are used) instead of stages 1 and 2: with --ranks the blocks listed are cut to "
                   "those ranks (at most the file's; the others keep theirs), else every block is squeezed.")
@click.option("--repair", "repair", type=click.Choice(["joint", "descent", "both"]), default="joint",
              show_default=True,
              help="With --search-invariant: how a block cut to a lower rank is repaired: the joint SLP in both "
                   "factors, a descent on the rows' margins as functions of the right factors (cheaper steps, more "
                   "of them), or the descent and then the joint SLP.")
@click.option("--descent-steps", "descent_steps", type=click.IntRange(1, 100_000),
              help=f"With --repair descent or both: the descent's steps per rank lowered (default {DESCENT_STEPS}; each "
                   "step one LP per query row and one small LP, counted, never timed).")
@click.option("--cut-at-once", "cut_at_once", type=click.IntRange(1, 1_000),
              help="With --repair descent or both: the ranks of one block that one gradual cut of the descent lowers "
                   "together (default 1; a cut of several that fails is tried again with half as many).")
@click.option("--json", "as_json", is_flag=True, help="Print one JSON object (schema certify.minrank/1).")
@click.option("--plot", "plot", type=click.Path(dir_okay=False),
              help="With --out DIR: draw every bracket written there so far (m<M>.minrank.json) against m, with 2^m "
                   "and the paper's Theorem 1, into this PNG (needs matplotlib, the extra plot).")
def minrank_cmd(m, seed, restarts, steps, max_rank, budget, out_dir, rows, search_invariant, parts, lp_budget, tops,
                ranks, start, repair, descent_steps, cut_at_once, as_json, plot) -> int:
    """Both sides of r*(m, 3), each a certificate re-checked exactly: L ≤ r* ≤ U (docs/math.md §11).

    r*(m, 3) is the least feature rank of one normalized nonnegative kernel-attention head
    that solves Min-IP on every length-3 input over m-bit tokens (error < 1/2, one-hot values,
    query-dependent readout). Lower side, the best of: order obstructions and region counting
    (m ≤ 8) and the ⌊m/2⌋ pair queries, re-checked by python certify/check_obstruction.py; for
    4 ≤ m ≤ 8 the bound of a best-chain search certificate (certify search) and, for every m,
    the committed results row at m or m − 1 (docs/results.md), re-checked by certify/check.py.
    Upper side, the better of: for m ≤ 8, a kernel of integer factors found by a seeded search
    and verified on every input; for every m, a kernel invariant under a product of symmetric
    groups, given by its blocks in a shipped certificate (or one made now with
    --search-invariant), re-checked by python certify/check_symmetric.py. The 'invariant' line
    says what fully invariant kernels cannot do (certify/check_degree.py): a statement about
    that class only. docs/commands.md, "certify minrank", explains every line of the output.
    """
    from ..check import Progress
    from ..minrank.bracket import minrank, write

    if plot:  # refused before the search, not after
        from ..bounds.plot import PlotUnavailable, check_plot_path

        if not out_dir:
            raise InputError("--plot needs --out DIR (it draws the brackets written there)")
        try:
            check_plot_path(plot, creates=out_dir)
        except PlotUnavailable as exc:
            raise InputError(str(exc)) from None
    from ..minrank.lower import exact_lower_bound
    from ..minrank.upper import too_long

    from ..minrank.bracket import GENERIC_MAX_M
    from ..minrank.results_rows import find_rows_dir

    if m > GENERIC_MAX_M:  # the options of the generic search would change nothing: say so rather than ignore them
        ctx = click.get_current_context()
        given = [f"--{name.replace('_', '-')}" for name in ("seed", "restarts", "steps", "max_rank", "budget")
                 if ctx.get_parameter_source(name) is click.core.ParameterSource.COMMANDLINE]
        if given:
            raise InputError(f"{', '.join(given)}: the generic search runs for m ≤ {GENERIC_MAX_M} only, and m = {m} "
                             "(above it the upper side is an invariant kernel and the lower side needs no search): "
                             "drop them")
    else:
        refused = too_long(m, exact_lower_bound(m), max_rank if max_rank is not None else m + 1, restarts, steps)
        if refused:  # from the count of entry-steps, before any work (issue 42)
            raise InputError(refused)
    repair_given = click.get_current_context().get_parameter_source("repair") is click.core.ParameterSource.COMMANDLINE
    if (start or repair_given) and not search_invariant:
        raise InputError(f"{'--start' if start else '--repair'} goes with --search-invariant")
    for given, name in ((descent_steps, "--descent-steps"), (cut_at_once, "--cut-at-once")):
        if given is not None and repair == "joint":
            raise InputError(f"{name} goes with --repair descent or --repair both")
    if start is not None:
        if parts or tops is not None:
            raise InputError(f"{'--parts' if parts else '--tops'} goes without --start (the certificate declares its "
                             "parts and blocks)")
        start_doc = _start(start, m)
        parts = ",".join(map(str, start_doc["parts"]))
    split = _parts(parts, m) if parts else (m,)
    if parts and not search_invariant:
        raise InputError("--parts goes with --search-invariant")
    if lp_budget is not None and (parts or ranks is not None or not search_invariant):
        raise InputError("--lp-budget goes with --search-invariant without --parts, --ranks or --start (the partition "
                         "chooser)")
    if tops is not None:
        if not (search_invariant and parts):
            raise InputError("--tops goes with --search-invariant --parts")
        if ranks is not None:
            raise InputError("--tops goes without --ranks (the listed blocks give the highest index of each part)")
        tops = _tops(tops, split)
    if ranks is not None:
        from ..minrank.invariant import parse_ranks

        if not search_invariant:
            raise InputError("--ranks goes with --search-invariant")
        try:
            ranks = parse_ranks(ranks, split)
        except ValueError as exc:
            raise InputError(f"--{exc}") from None
    try:
        rows_dir = find_rows_dir(rows)
    except ValueError as exc:
        raise InputError(f"--rows: {exc}") from None
    progress = Progress(f"certify minrank --m {m}")
    say = lambda text: progress.update(None, text)  # noqa: E731
    try:
        invariant = None
        if search_invariant:
            from ..minrank.invariant import HighsUnavailable, NoSolution, search
            from ..minrank.partitions import DEFAULT_BUDGET, best

            try:
                if parts or ranks is not None:  # one partition (--ranks alone: S_M's blocks)
                    invariant = search(split, say=say, max_work=10**12, ranks=ranks, tops=tops,
                                       start=start_doc if start is not None else None, repair=repair,
                                       descent_steps=descent_steps, cut_at_once=cut_at_once)
                else:
                    invariant, _ = best(m, DEFAULT_BUDGET if lp_budget is None else lp_budget, say=say,
                                        max_work=10**12, repair=repair, descent_steps=descent_steps,
                                        cut_at_once=cut_at_once)
            except HighsUnavailable as exc:
                raise InputError(str(exc)) from None
            except NoSolution as exc:
                raise InputError(f"--search-invariant: {exc}") from None
            except ValueError as exc:  # --ranks above the --start certificate's
                raise InputError(f"--{exc}" if str(exc).startswith("ranks") else str(exc)) from None
        try:
            result = minrank(m, restarts, steps, max_rank if max_rank is not None else m + 1, seed, budget, say=say,
                             rows_dir=rows_dir, invariant=invariant)
        except ValueError as exc:  # a results row that no longer verifies, no certificate for m (RowNotVerified…)
            raise InputError(str(exc)) from None
    finally:
        progress.close()
    written = []
    if out_dir:
        try:
            written = write(result, out_dir)
        except OSError as exc:
            raise InputError(f"cannot write into {out_dir}: {exc.strerror or exc}") from None
    if plot:
        from ..bounds.plot import PlotUnavailable
        from ..minrank.plot import plot_brackets, read_brackets

        try:
            plot_brackets(read_brackets(out_dir), plot)
        except (PlotUnavailable, ValueError) as exc:
            raise InputError(str(exc)) from None
        except OSError as exc:
            raise InputError(f"cannot write {plot}: {exc.strerror or exc}") from None
        written.append(plot)
    if as_json:
        doc = result.to_json()
        doc["written"] = written
        click.echo(strict_json(doc))
        return EXIT_VERIFIED
    u = result.upper
    click.echo(f"certify minrank --m {m}: {result.lower:,} ≤ r*({m}, 3) ≤ {u.rank:,}"
               + ("  (closed)" if result.closed else f"  (open; 2^{m} = {1 << m:,})"))
    click.echo(f"  lower        {result.lower:,}: {result.lower_how}")
    if result.certified is not None:
        click.echo(f"               best-chain search certificate: r ≥ {result.certified} "
                   "(certify search, re-checked by certify/check.py)")
    if result.regions is not None:
        click.echo(f"               region counting: r ≥ {result.regions['rank_at_least']} "
                   f"({len(result.regions['pairs'])} pairs of keys; re-checked by certify/check_obstruction.py)")
    if result.queries is not None and m > GENERIC_MAX_M:
        click.echo(f"               pair queries: r ≥ {result.queries['rank_at_least']} "
                   "(⌊m/2⌋; re-checked by certify/check_obstruction.py)")
    if result.row is not None:
        click.echo(f"               results row m = {result.row.M}: r ≥ {result.row_bound:,} "
                   f"({_short(result.row.path)}, re-checked by certify/check.py)")
    elif m >= 8 and rows_dir is None:
        click.echo("               results rows: not found (give --rows DIR, the docs/results folder of a checkout)")
    if u.table is not None:
        checks = "A ≥ 0, every row condition, exact rank"
        if u.inputs_checked:
            checks += f", all {u.inputs_checked:,} length-3 inputs evaluated exactly"
        click.echo(f"  upper        {u.rank:,}: {u.how}; verified: {checks}")
    else:
        sym = result.symmetric
        where = sym.path if sym.path else "made by --search-invariant"
        click.echo(f"  upper        {u.rank:,}: {u.how}")
        click.echo(f"               certificate {_short(where)}, re-checked by certify/check_symmetric.py "
                   "(blocks round-trip, f ≥ 0, every row condition on cells, exact block ranks)")
    if result.degree is not None and m > GENERIC_MAX_M:
        click.echo(f"  invariant    no S_{m}-invariant kernel has rank below {result.invariant_floor:,} "
                   f"(K1({m // 2}) = {result.degree['degree']}; re-checked by certify/check_degree.py; "
                   "a statement about that class only)")
    for path in written:
        click.echo(f"  wrote        {path}")
    return EXIT_VERIFIED


def _start(path: str, m: int) -> dict:
    """``--start FILE``: a symmetric-kernel certificate for ``m`` that ``check_symmetric.py`` accepts."""
    from ..check import CertificateError
    from ..check_symmetric import check, load

    try:
        doc = load(path)
        result = check(doc)  # the checker's own limits on size and work: the file is untrusted
    except CertificateError as exc:
        raise InputError(f"--start {click.format_filename(path)}: {exc}") from None
    if result.m != m:
        raise InputError(f"--start {click.format_filename(path)}: the certificate is for m = {result.m}, and --m is "
                         f"{m}")
    return doc


def _tops(text: str, parts: tuple[int, ...]) -> tuple[int, ...]:
    """``--tops 2,1``: one block index per part, each from 0 to half the part's size."""
    if len(text) > 100:
        raise InputError("--tops: longer than 100 characters")
    tops = _integers(text, "--tops", "block indices separated by commas, e.g. 2,1")
    if len(tops) != len(parts) or any(not 0 <= t <= a // 2 for t, a in zip(tops, parts)):
        raise InputError(f"--tops {text!r}: one index per part of --parts {','.join(map(str, parts))}, "
                         f"each from 0 to half the part's size")
    return tops


def _parts(text: str, m: int) -> tuple[int, ...]:
    """``--parts 1,11``: positive sizes summing to M."""
    parts = _integers(text, "--parts", "sizes separated by commas, e.g. 1,11")
    if not parts or min(parts) < 1 or sum(parts) != m or len(parts) > 4:
        raise InputError(f"--parts {text!r}: one to four positive sizes summing to --m {m}")
    return parts


def _integers(text: str, option: str, what: str) -> tuple[int, ...]:
    """``text`` as integers separated by commas, or the one-line refusal ``OPTION 'TEXT': WHAT``."""
    try:
        return tuple(int(x) for x in text.split(","))
    except ValueError:
        raise InputError(f"{option} {text!r}: {what}") from None


def _short(path) -> str:
    """A shipped certificate's path from the package (certify/minrank/certificates/…), a path under the current
    directory relative to it, else as given."""
    import os

    text = str(path)
    marker = "certify/minrank/certificates/"
    if marker in text:
        return text[text.index(marker):]
    relative = os.path.relpath(text)
    return text if relative.startswith("..") else relative
