"""Commands on kernel tables: check-kernel and train."""
from __future__ import annotations

import os

import click

from ..check import EXIT_MALFORMED, EXIT_VERIFIED
from ..kernels.table import MAX_WORK_OPTION
from .common import Contradiction, InputError, cli, exit_codes, strict_json, writes_into


@exit_codes("the table's readout solves the family (kernel only: some readout exists)", "it does not, or --all-pairs finds some α < 0", internal="a result contradicts the certified theorem (a bug)")
@cli.command("check-kernel")
@click.argument("table", type=click.Path(dir_okay=False))
@click.option("--family", "family_path", type=click.Path(dir_okay=False),
              help="A certificate, any JSON file with family.inputs, or a built-in name: rank-nine, hadamard24, golay24 "
                   "(default: the rank-nine certificate, paper chains).")
@click.option("--code", "code_spec", metavar="SPEC",
              help="Instead of --family: the certificate of this code (best chains and argument), e.g. hadamard:32.")
@click.option("--search-readout", is_flag=True,
              help="Also decide (exact LP) whether some readout solves the family; always done for kernel-only tables.")
@click.option("--clip-negative-alpha", "clip", metavar="TOL",
              help="Read entries of α in [−TOL, 0) as 0 (roundoff of a kernel ≥ 0 in the reals); the verdict is then "
                   "about the clipped kernel. TOL: p/q or a decimal such as 1e-9.")
@click.option("--first-failure", is_flag=True,
              help="On a large (compact, streamed) family: stop at the first query token with a failing input or a "
                   "violated jump; the counts are then of the part checked.")
@click.option("--all-pairs", is_flag=True,
              help="Also compute α on every pair of the table's tokens, exactly: exit 1 if any is negative (the model "
                   "of docs/math.md §2 asks α ≥ 0 on all pairs; the family's checks look only at the pairs it uses).")
@click.option("--max-work", "max_work", type=click.IntRange(1, MAX_WORK_OPTION), metavar="N",
              help="Multiply-adds the check may spend forming α and g from the table's factors, --all-pairs included "
                   "(default 10⁹, at most 10¹¹; docs/kernel-table-format.md, limits, has what a golay24 check above "
                   "the default costs).")
@click.option("--json", "as_json", is_flag=True, help="Print one JSON object (schema certify.check-kernel/1).")
def check_kernel_cmd(table: str, family_path: str | None, code_spec: str | None, search_readout: bool, clip: str | None,
                     first_failure: bool, all_pairs: bool, max_work: int | None, as_json: bool) -> int:
    """Check a kernel table (.npz or .json) against a witness family, exactly."""
    from ..kernels.audit import FamilyFormatError, family_of_code, parse_tolerance, run_check, verdict

    if family_path is not None and code_spec is not None:
        raise InputError("give --family or --code, not both")
    if code_spec is not None and not code_spec.strip():
        raise InputError("--code: empty code spec")
    try:
        tol = None if clip is None else parse_tolerance(clip, "--clip-negative-alpha")
    except ValueError as exc:
        raise InputError(str(exc)) from None
    if code_spec is not None:
        try:
            fam = family_of_code(code_spec)
        except FamilyFormatError as exc:
            raise InputError(str(exc)) from None
        code, result = verdict(table, fam, search_readout, tol, first_failure, all_pairs, max_work)
    else:
        code, result = run_check(table, family_path, search_readout, tol, first_failure, all_pairs, max_work)
    if isinstance(result, str):
        raise (InputError if code == EXIT_MALFORMED else Contradiction)(result)
    if as_json:
        click.echo(strict_json(result.to_json()))
    else:
        click.echo(f"certify check-kernel {table}")
        for line in result.text():
            click.echo("  " + line)
    return code


@exit_codes("every run was trained, its table exported and checked, or it diverged (reported per run, no table)", bad="bad input, no torch, or output that cannot be written", internal="a result contradicts the certificate (a bug)")
@writes_into("rank*_seed*.npz")
@cli.command("train")
@click.option("--family", "family_path", type=click.Path(dir_okay=False),
              help="A certificate, or any JSON file with family.inputs (default: the rank-nine certificate, paper chains).")
@click.option("--ranks", "ranks", default="4,8,9,12,15,32", show_default=True, help="Feature ranks r, comma-separated (1–1024).")
@click.option("--seeds", "seeds", default="0-4", show_default=True, help="Seeds: a list and/or ranges, e.g. 0-4 or 0,3,7.")
@click.option("--steps", "steps", type=click.IntRange(1, 1_000_000), default=2000, show_default=True,
              help="Full-batch Adam steps per run (1–1,000,000).")
@click.option("--out", "out_dir", type=click.Path(file_okay=False), default="trained", show_default=True,
              help="Directory for the exported tables rank<r>_seed<s>.npz.")
@click.option("--feature-map", "feature_map", default="softplus", show_default=True, metavar="NAME|module:attr",
              help="φ_Q, φ_K: softplus (a free table per token), elu1, exp, relu (+2⁻¹⁰) or favor (FAVOR+ positive "
                   "random features) of a learned linear map on the bits; or a factory module:attr called as "
                   "factory(m, r, seed) → (phi_q, phi_k) modules.")
@click.option("--delta", "delta", default="0", show_default=True, metavar="EPS",
              help="The denominator constant δ a library adds (Σ_j α v / (Σ_j α + δ)), as p/q or a decimal ≥ 0; "
                   "training uses it as a float64 and the exported table holds exactly that number. A feature map "
                   "that can vanish (ReLU-type) needs δ > 0.")
@click.option("--dtype", "dtype", default="auto", show_default=True, metavar="auto|float64|float32|bfloat16|float16",
              help="The feature maps' dtype: auto gives each module the tokens in its own dtype (a factory's float32 "
                   "modules run in float32; a plain callable gets float64); a dtype casts the maps' modules to it and "
                   "gives plain callables the tokens in it. Their outputs are read as float64, exactly.")
@click.option("--json", "as_json", is_flag=True, help="Print one JSON object (schema certify.train/1).")
@click.option("--plot", "plot", type=click.Path(dir_okay=False), help="Draw max error against rank into this PNG (needs matplotlib, the extra plot).")
def train_cmd(family_path, ranks, seeds, steps, feature_map, delta, dtype, out_dir, as_json, plot) -> int:
    """Train one-head positive-feature models on a family (§6.1) and check every trained table exactly.

    Needs PyTorch (pip install '.[train]' from the checkout). A run diverges when its loss or a trained
    entry is not finite: it is reported, has no table, and the command goes on.
    """
    from .. import training as T
    from ..kernels.audit import FamilyFormatError, KernelContradiction, load_family, require_explicit
    from ..linalg import LPError
    from ..kernels.table import TableFormatError
    from ..training.report import plot_results, render_text, to_json
    from ..bounds.plot import PlotUnavailable
    from ..check import Progress

    try:
        config = T.TrainConfig(ranks=T.parse_ranks(ranks), seeds=T.parse_seeds(seeds), steps=steps,
                               feature_map=T.parse_feature_map(feature_map), delta=T.parse_delta(delta),
                               dtype=T.parse_dtype(dtype, feature_map))
    except ValueError as exc:
        raise InputError(str(exc)) from None
    if plot:  # refused before minutes of training, not after
        from ..bounds.plot import check_plot_path

        try:
            check_plot_path(plot, creates=out_dir)
        except PlotUnavailable as exc:
            raise InputError(str(exc)) from None
    try:
        os.makedirs(out_dir, exist_ok=True)
    except OSError as exc:
        raise InputError(f"cannot write into {out_dir}: {exc.strerror or exc}") from None
    try:
        T.require_torch()  # found, not imported: a bad family or size is refused before PyTorch's import
        fam = load_family(family_path)
        require_explicit(fam, "certify train")
        T.check_training_size(fam, config)  # before the construction's exact check and any training
        construction = T.construction_report(fam)
        total = len(config.ranks) * len(config.seeds)
        progress = Progress(f"certify train: {total} runs", total=total, delay=0.0, interval=0.0)

        def on_run(res, done, total):
            what = (f"diverged ({res.diverged})" if res.report is None else
                    f"exact max error {float(res.report.max_error):.4g}, solves: {'yes' if res.solves else 'no'}")
            progress.update(done, f"rank {res.rank} seed {res.seed}: {what}")

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
        click.echo(strict_json(to_json(fam, config, results, construction, out_dir, env)))
    else:
        for line in render_text(fam, config, results, construction, out_dir):
            click.echo(line)
        if plot:
            click.echo(f"  wrote        {plot}")
    return EXIT_VERIFIED
