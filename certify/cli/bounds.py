"""``certify bounds``: the paper's bounds at a given m (values in :mod:`certify.bounds.values`)."""
from __future__ import annotations

import click

from ..check import EXIT_VERIFIED
from .common import InputError, cli, exit_codes, strict_json


def _parse_range(text: str) -> range:
    parts = text.split(":")
    try:
        nums = [int(p) for p in parts]
    except ValueError:
        raise InputError(f"--m-range must be A:B or A:B:STEP with integers, not {text!r}") from None
    if len(nums) not in (2, 3):
        raise InputError(f"--m-range must be A:B or A:B:STEP, not {text!r}")
    a, b, step = nums[0], nums[1], nums[2] if len(nums) == 3 else 1
    from ..bounds.values import M_MAX

    if not 1 <= a <= b <= M_MAX or step < 1:
        raise InputError(f"--m-range needs 1 ≤ A ≤ B ≤ {M_MAX} and STEP ≥ 1, not {text!r}")
    ms = range(a, b + 1, step)
    if len(ms) > 2000:
        raise InputError(f"--m-range {text} has {len(ms)} points; at most 2000 (use a larger STEP)")
    return ms


@exit_codes("the bounds were computed")
@cli.command("bounds")
@click.option("--m", "m", type=click.IntRange(1, 10**6), help="Token length m (1 ≤ m ≤ 10^6).")
@click.option("--m-range", "m_range", metavar="A:B[:STEP]", help="Evaluate log₂ of each bound for m = A, A+STEP, …, B.")
@click.option("--length", "length", type=click.IntRange(3, 10**18), help="Exact length n for the growing-context bound (A.2) and the transcript bound (2q ≤ n).")
@click.option("--heads", "H", type=click.IntRange(1, 32), help="Number of heads H for B.1–B.2 (exact length H+2).")
@click.option("--degree", "D", type=click.IntRange(1, 32), help="Readout degree D for B.4 (exact length D+2).")
@click.option("--s", "s", type=click.IntRange(1, 10**6), help="Answer range {0,…,s} for the transcript bound (C.3); default ⌈log₂ m⌉.")
@click.option("--json", "as_json", is_flag=True, help="Print one JSON object (schema certify.bounds/1, docs/bounds.md).")
@click.option("--plot", "plot", type=click.Path(dir_okay=False), help="With --m-range: draw log₂(bound) against m into this PNG (needs matplotlib, the extra plot).")
def bounds(m, m_range, length, H, D, s, as_json, plot) -> int:
    """The paper's bounds at a given m: closed forms and the same arguments evaluated exactly (docs/math.md §7).

    Exact integers up to M = 20,000; certified intervals (python-flint arb) above.
    """
    import sys as _sys

    from ..bounds import values as B
    from ..bounds.render import render_range, render_text

    if hasattr(_sys, "set_int_max_str_digits"):
        _sys.set_int_max_str_digits(0)  # exact bounds at M ≤ 20,000 can have thousands of digits
    if (m is None) == (m_range is None):
        raise InputError("give exactly one of --m M and --m-range A:B[:STEP]")
    if plot and m_range is None:
        raise InputError("--plot needs --m-range A:B[:STEP]")
    if plot:
        from ..bounds.plot import PlotUnavailable, check_plot_path

        try:
            check_plot_path(plot)
        except PlotUnavailable as exc:
            raise InputError(str(exc)) from None
    if m is not None and s is not None and s > m - 3:
        raise InputError(f"--s {s} leaves no room: the transcript bound needs m ≥ s + 3")
    try:
        if m_range is not None:
            ms = _parse_range(m_range)
            from ..check import Progress

            progress = Progress("certify bounds --m-range", total=len(ms))  # interval-mode ranges can take minutes
            try:
                rows = B.range_rows(ms, length, H, D, progress=progress.update)
            finally:
                progress.close()
            if plot:
                from ..bounds.plot import PlotUnavailable, plot_rows

                try:
                    labels = {"growing_context.exact": f"n = {length}", "heads.exact": f"H = {H}",
                              "degree.exact": f"D = {D}"}
                    plot_rows(rows, plot, f"Rank lower bounds, m = {ms.start}…{ms[-1]}", labels)
                except PlotUnavailable as exc:
                    raise InputError(str(exc)) from None
                except OSError as exc:
                    raise InputError(f"cannot write {plot}: {exc.strerror or exc}") from None
            if as_json:
                click.echo(strict_json({"schema": "certify.bounds-range/1", "columns": ["m", *B.RANGE_COLUMNS], "rows": rows}))
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
        click.echo(strict_json(B.to_json(result)))
    else:
        for line in render_text(result):
            click.echo(line)
    return EXIT_VERIFIED
