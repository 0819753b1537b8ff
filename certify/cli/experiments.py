"""The ``experiment`` group: capacity (§6.2), heads (§6.3), check-split — thin calls of ``certify.experiments``."""
from __future__ import annotations

import functools
import os

import click

from ..check import EXIT_REJECTED, EXIT_VERIFIED
from ..experiments.models import MAPS  # the names only: torch is imported when training starts
from .common import Contradiction, InputError, cli, exit_codes, strict_json, writes_into


#: ``capacity --preset NAME``: option values (click parameter names), used where the option is not given.
#: ``paper``: the one-factor change that brought the validation thresholds closest to the paper's §6.2 figures
#: and then reproduced them on test (docs/experiments.md, "A preset").
PRESETS = {"paper": {"steps": 2000}}
#: What capacity and heads write into --out: results.json, and per setting and draw the split and the runs' tables.
EXPERIMENT_OUTPUTS = ("results.json", "*/draw*/split.json", "*/draw*/*.npz")


def apply_preset(ctx: click.Context, preset: str, params: dict) -> dict:
    """``params`` with the preset's values for every option not given on the command line (explicit options win)."""
    out = dict(params)
    for name, value in PRESETS[preset].items():
        if ctx.get_parameter_source(name) == click.core.ParameterSource.DEFAULT:
            out[name] = value
    return out


@exit_codes("done (capacity, heads) or proved (check-split)", "check-split: a property fails")
@cli.group("experiment")
def experiment() -> None:
    """The paper's §6.2 and §6.3 experiments, scored exactly (docs/experiments.md); needs the train extra."""


def _shared(func):
    """The split, training and output options both protocols have (docs/experiments.md, "Options")."""
    opts = [
        click.option("--seeds", default="0-4", show_default=True, help="Model seeds: a list and/or ranges."),
        click.option("--train", "n_train", type=int, default=4096, show_default=True, help="Training sequences per split."),
        click.option("--val", "n_val", type=int, default=512, show_default=True, help="Validation sequences per split."),
        click.option("--test", "n_test", type=int, default=1024, show_default=True,
                     help="Joint out-of-distribution test sequences per split."),
        click.option("--held-out-words", default="1/4", show_default=True, help="Share of the code words held out."),
        click.option("--held-out-patterns", default="1/4", show_default=True,
                     help="Share of the 2^q match patterns held out."),
        click.option("--permutations", type=int, default=8, show_default=True,
                     help="Coordinate permutations drawn per split."),
        click.option("--held-out-permutations", default="1/4", show_default=True, help="Share of them held out."),
        click.option("--split", "split_mode", type=click.Choice(["listed", "strict"]), default="listed",
                     show_default=True,
                     help="listed: each test sequence's listed origin uses a held-out word, pattern and permutation; "
                          "strict: also no test sequence has any origin made only of training words, patterns and "
                          "permutations (docs/experiments.md, \"A strict split\")."),
        click.option("--distance", type=click.IntRange(1, 16), default=1, show_default=True,
                     help="Directed distance of the code (1: every word of weight h)."),
        click.option("--batch", type=click.IntRange(1, 100_000), default=64, show_default=True,
                     help="Sequences per minibatch."),
        click.option("--lr", default="0.01", show_default=True, help="Adam's learning rate."),
        click.option("--eval-every", type=click.IntRange(1, 1_000_000), default=50, show_default=True,
                     help="Score validation (checkpoint selection) every this many steps."),
        click.option("--feature-map", type=click.Choice(MAPS), default="softplus",
                     show_default=True, help="The positive feature map of W x̃ (docs/experiments.md, \"The models\")."),
        click.option("--layout", type=click.Choice(["M+3", "M+2"]), default="M+3", show_default=True,
                     help="Token layout: ours (M + 3 coordinates) or the paper's count (M + 2; docs/experiments.md, "
                          "\"The task\")."),
        click.option("--no-dense", is_flag=True, help="Leave out the dense softmax reference."),
        click.option("--out", "out_dir", type=click.Path(file_okay=False), help="Directory for splits and tables."),
        click.option("--json", "as_json", is_flag=True, help="Print one JSON object (no wall times: byte-identical reruns)."),
        click.option("--plot", type=click.Path(dir_okay=False), help="Draw the paper's figure into this PNG (needs matplotlib, the extra plot)."),
    ]
    for o in reversed(opts):
        func = o(func)
    return functools.wraps(func)(func)


def _split_config(o):
    from ..experiments.tasks import SplitConfig, parse_fraction

    return SplitConfig(train=o["n_train"], val=o["n_val"], test=o["n_test"],
                       held_out_words=parse_fraction(o["held_out_words"], "--held-out-words"),
                       held_out_patterns=parse_fraction(o["held_out_patterns"], "--held-out-patterns"),
                       permutations=o["permutations"],
                       held_out_permutations=parse_fraction(o["held_out_permutations"], "--held-out-permutations"),
                       strict=o["split_mode"] == "strict")


def _lr(text: str) -> str:
    """``--lr`` as given, once its exact value is known to be positive — from the spelling, never expanded
    (``1e999999999`` is refused at once: ``parse_tolerance``)."""
    from ..kernels.audit import parse_tolerance

    try:
        if len(text) > 20 or not parse_tolerance(text, "--lr") > 0:
            raise ValueError
    except ValueError:
        raise ValueError(f"--lr: expected a positive decimal such as 0.01, not {text[:20]!r}") from None
    return text


def _prepare(o, pairs, max_rank, value_dim):
    """Everything that can refuse the command, before any training: plot path, torch, splits, sizes, output."""
    from ..bounds.plot import PlotUnavailable, check_plot_path
    from ..experiments.protocol import build_splits, check_sizes, split_texts, write_splits
    from ..check_split import SplitMalformed, check_split_file
    from ..experiments.tasks import SplitError
    from ..training import TrainingUnavailable, require_torch

    if o["plot"]:
        try:
            check_plot_path(o["plot"], creates=o["out_dir"])
        except PlotUnavailable as exc:
            raise InputError(str(exc)) from None
    try:
        splits = build_splits(pairs, _split_config(o))
        check_sizes(splits, max_rank, value_dim)
        texts = split_texts(splits)
    except (SplitError, ValueError) as exc:
        raise InputError(str(exc)) from None
    try:
        require_torch()  # found, not imported (≈ 1.5 s): imported when training starts
    except TrainingUnavailable as exc:
        raise InputError(str(exc).replace("certify train", "certify experiment")) from None
    try:
        os.makedirs(o["out_dir"], exist_ok=True)
        paths = write_splits(splits, o["out_dir"], texts)
    except OSError as exc:
        raise InputError(f"cannot write into {o['out_dir']}: {exc.strerror or exc}") from None
    for k, path in paths.items():  # the producer's split, proved held out by the checker before training
        try:
            rep = check_split_file(path)
        except SplitMalformed as exc:
            raise Contradiction(f"the split written here is refused by check-split: {exc}") from None
        if not rep.ok:
            raise Contradiction(f"{path}: the split built here fails check-split at {rep.failure[0]}: {rep.failure[1]}")
    return splits, paths


def _progress(total: int, what: str):
    """One line per run on stderr (``CERTIFY_PROGRESS=0`` silences it)."""
    quiet = os.environ.get("CERTIFY_PROGRESS") == "0"

    def on_run(run, done, total):
        if quiet:
            return
        model = "dense" if run.dense else f"R {run.rank}" + (f" H {run.heads}" if run.heads > 1 else "")
        scores = (f"diverged ({run.diverged}), no table" if run.diverged is not None else
                  f"exact test accuracy {float(run.accuracy()):.4f}, train {float(run.accuracy('train')):.4f}")
        click.echo(f"certify experiment {what}: run {done}/{total}: {run.setting.key} draw {run.draw} {model} seed "
                   f"{run.seed}: {scores}, {run.seconds:.1f} s", err=True)

    return on_run


def _finish(o, text_lines, doc, plot_fn) -> int:
    from ..bounds.plot import PlotUnavailable

    if o["plot"]:
        try:
            plot_fn(o["plot"])
        except PlotUnavailable as exc:
            raise InputError(str(exc)) from None
        except OSError as exc:
            raise InputError(f"cannot write {o['plot']}: {exc.strerror or exc}") from None
    text = strict_json(doc())
    results = os.path.join(o["out_dir"], "results.json")
    try:
        from ..outputs import write_atomic

        write_atomic(results, text + "\n")
    except OSError as exc:
        raise InputError(f"cannot write {results}: {exc.strerror or exc}") from None
    if o["as_json"]:
        click.echo(text)
    else:
        for line in text_lines():
            click.echo(line)
        click.echo(f"  wrote        {results} (the --json document)" + (f", {o['plot']}" if o["plot"] else ""))
    return EXIT_VERIFIED


def _execute(o, what: str, cfg, plan, splits, paths, spec) -> int:
    """Train, export and score every run of ``plan``; then the plot, ``results.json`` and the output."""
    from ..experiments import protocol as P
    from ..experiments import report as Rp
    from ..training import environment

    on_run = _progress(len(plan), what)
    runs = _run_errors(lambda: P.execute(plan, splits, spec, o["out_dir"], on_run))
    env = environment()
    text, doc, plot = {"capacity": (Rp.capacity_text, Rp.capacity_json, Rp.plot_capacity),
                       "heads": (Rp.heads_text, Rp.heads_json, Rp.plot_heads)}[what]
    return _finish(o, lambda: text(cfg, splits, paths, runs), lambda: doc(cfg, splits, paths, runs, env),
                   lambda path: plot(cfg, runs, path))


def _train_spec(o, steps, value_dim):
    from ..experiments.models import TrainSpec

    lr = o["lr"]

    def spec(rank, heads, seed):
        return TrainSpec(rank=rank or 0, heads=heads, dense=rank is None, seed=seed, steps=steps, batch=o["batch"],
                         lr=lr, value_dim=value_dim, eval_every=o["eval_every"], feature_map=o["feature_map"])

    return spec


def _run_errors(fn):
    from ..kernels.table import TableFormatError
    from ..training import TrainingInputError, TrainingUnavailable

    try:
        return fn()
    except TrainingUnavailable as exc:  # found but not importable (a broken install)
        raise InputError(str(exc).replace("certify train", "certify experiment")) from None
    except TableFormatError as exc:  # our own table refused on reading back: a bug, not the user's input
        raise Contradiction(f"an exported table was refused: {exc}") from None
    except TrainingInputError as exc:
        raise InputError(str(exc)) from None
    except OSError as exc:
        raise InputError(f"cannot write the tables: {exc.strerror or exc}") from None


@exit_codes("every run was trained and scored from its exported table, or diverged (a trained entry not finite: "
            "reported, no table, 0 correct)", bad="bad input, an impossible split, no torch, or output that cannot be "
            "written", internal="a table written here was refused on reading it back (a bug)")
@writes_into(*EXPERIMENT_OUTPUTS)
@experiment.command("capacity")
@click.option("--settings", default="6:4,8:6,10:8", show_default=True, help="Settings M:q (or M:q:h), comma-separated.")
@click.option("--ranks", default="1,2,4,8,16,32,64,128,256", show_default=True, help="Feature ranks r.")
@click.option("--steps", type=click.IntRange(1, 1_000_000), default=600, show_default=True, help="Training steps per run.")
@click.option("--draw", type=click.IntRange(0, 2**32 - 1), default=0, show_default=True, help="The data draw (split seed).")
@click.option("--value-dim", type=click.IntRange(1, 1024), default=16, show_default=True, help="d_v.")
@click.option("--preset", type=click.Choice(sorted(PRESETS)),
              help="Named option values, below any option given explicitly (paper: --steps 2000; docs/experiments.md, "
                   "\"A preset\"). heads has none: its defaults are the paper's stated §6.3 setup, and no change the "
                   "sensitivity study tried brought §6.3's claims closer.")
@_shared
def capacity_cmd(settings, ranks, steps, draw, value_dim, preset, **o) -> int:
    """§6.2: feature capacity on held-out inputs, exact-sequence accuracy of every trained table."""
    from ..experiments import protocol as P
    from ..experiments.tasks import Setting
    from ..training import parse_ranks, parse_seeds

    if preset:
        steps = apply_preset(click.get_current_context(), preset, dict(o, steps=steps)).pop("steps")
    try:
        sets = tuple(dict.fromkeys(Setting.parse(t, o["distance"], o["layout"]) for t in settings.split(",")))
        cfg = P.CapacityConfig(settings=sets, ranks=parse_ranks(ranks), seeds=parse_seeds(o["seeds"]), steps=steps,
                               draw=draw, split=_split_config(o), batch=o["batch"], lr=_lr(o["lr"]),
                               value_dim=value_dim, eval_every=o["eval_every"], dense=not o["no_dense"],
                               feature_map=o["feature_map"], layout=o["layout"])
    except ValueError as exc:
        raise InputError(str(exc)) from None
    o["out_dir"] = o["out_dir"] or "experiment-capacity"
    splits, paths = _prepare(o, [(s, draw) for s in cfg.settings], max(cfg.ranks), value_dim)
    plan = P.plan_capacity(cfg)
    return _execute(o, "capacity", cfg, plan, splits, paths, _train_spec(o, steps, value_dim))


def _no_heads_preset(ctx, param, value):
    """``heads --preset``: one line saying why there is none, not click's guess at another option."""
    if value is not None:
        raise InputError("experiment heads has no --preset: its defaults are the paper's stated §6.3 setup (1,200 "
                         "steps, H = 1, 2, 4, value width 64), and no change the sensitivity study tried brought "
                         "§6.3's claims closer (docs/experiments.md, \"a sensitivity study\"); give options instead")
    return value


@exit_codes("every run was trained and scored from its exported table, or diverged (a trained entry not finite: "
            "reported, no table, 0 correct)", bad="bad input, an impossible split, no torch, or output that cannot be "
            "written", internal="a table written here was refused on reading it back (a bug)")
@writes_into(*EXPERIMENT_OUTPUTS)
@experiment.command("heads")
@click.option("--setting", default="8:3", show_default=True, help="The setting M:q (or M:q:h).")
@click.option("--budgets", default="4,8,16,32,64", show_default=True, help="Feature budgets R = Σ_h r_h.")
@click.option("--heads", "heads", default="1,2,4", show_default=True, help="Head counts H (each divides every R).")
@click.option("--steps", type=click.IntRange(1, 1_000_000), default=1200, show_default=True, help="Training steps per run.")
@click.option("--draws", default="0,1", show_default=True, help="Data draws (split seeds).")
@click.option("--value-width", type=click.IntRange(1, 4096), default=64, show_default=True,
              help="Total value width, split equally among the heads.")
@click.option("--preset", hidden=True, expose_value=False, callback=_no_heads_preset,
              help="Refused with the reason (capacity's --preset has no counterpart here).")
@_shared
def heads_cmd(setting, budgets, heads, steps, draws, value_width, **o) -> int:
    """§6.3: a fixed feature budget split among H heads, matched parameters and minibatches, scored exactly."""
    from ..experiments import protocol as P
    from ..experiments.tasks import Setting
    from ..training import int_list, parse_seeds

    try:
        cfg = P.HeadsConfig(setting=Setting.parse(setting, o["distance"], o["layout"]),
                            budgets=int_list(budgets, "--budgets", 1, 1024, "budget"),
                            heads=int_list(heads, "--heads", 1, 64, "head count"), seeds=parse_seeds(o["seeds"]),
                            steps=steps, draws=int_list(draws, "--draws", 0, 2**32 - 1, "draw"),
                            split=_split_config(o), batch=o["batch"], lr=_lr(o["lr"]), value_width=value_width,
                            eval_every=o["eval_every"], dense=not o["no_dense"], feature_map=o["feature_map"],
                            layout=o["layout"])
        plan = P.plan_heads(cfg)
    except ValueError as exc:
        raise InputError(str(exc)) from None
    o["out_dir"] = o["out_dir"] or "experiment-heads"
    splits, paths = _prepare(o, [(cfg.setting, d) for d in cfg.draws], max(cfg.budgets), value_width)
    return _execute(o, "heads", cfg, plan, splits, paths, _train_spec(o, steps, value_width))


@exit_codes("every property holds", "one fails (named)")
@experiment.command("check-split")
@click.argument("split", type=click.Path(dir_okay=False))
@click.option("--json", "as_json", is_flag=True, help="Print one JSON object (schema certify.check-split/1).")
def check_split_cmd(split: str, as_json: bool) -> int:
    """Prove from a split file that its test set is held out (no test sequence in train or validation, even as a
    multiset; every test token seen in training; origins, held-out axes and labels recomputed); for a strict split
    ("strict": true), also that no test sequence has an all-training origin (docs/math.md §10)."""
    from ..check_split import SplitMalformed, check_split_file

    try:
        rep = check_split_file(split)
    except SplitMalformed as exc:
        raise InputError(str(exc)) from None
    if as_json:
        click.echo(strict_json(rep.to_json()))
    else:
        click.echo(f"certify experiment check-split {split}")
        for line in rep.text():
            click.echo("  " + line)
    return EXIT_VERIFIED if rep.ok else EXIT_REJECTED
