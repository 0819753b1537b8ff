"""Text, JSON and plots of ``certify experiment capacity`` and ``certify experiment heads``.

The JSON documents (schemas ``certify.experiment.capacity/1`` and
``certify.experiment.heads/1``, docs/experiments.md) carry no wall times, so the same
options and seeds give byte-identical JSON; the text output and the progress lines do.
"""
from __future__ import annotations

from typing import Any

from .protocol import CapacityConfig, HeadsConfig, Run, capacity_summary, heads_summary
from ..bounds.plot import pyplot
from ..outputs import save_figure
from .tasks import Split

__all__ = ["capacity_json", "heads_json", "capacity_text", "heads_text", "plot_capacity", "plot_heads"]


#: The feature map as the text output names it (``--feature-map``; certify.experiments.models).
MAP_TEXT = {"softplus": "softplus(W x̃)", "elu1": "elu(W x̃) + 1", "exp": "exp(W x̃)", "relu": "relu(W x̃) + 2⁻¹⁰",
            "favor": "exp(Ω u − |u|²/2)/√r with u = W x̃ and Ω fixed (FAVOR+)"}


def _split_json(split: Split, path: str) -> dict[str, Any]:
    s = split.setting
    out = {"setting": s.key, "draw": split.draw, "file": path, "words": len(split.words),
           "held_out_words": len(split.held_words), "patterns": len(split.patterns),
           "held_out_patterns": len(split.held_patterns), "permutations": len(split.perms),
           "held_out_permutations": len(split.held_perms), "train": len(split.train), "val": len(split.val),
           "test": len(split.test), "tokens": len(split.tokens)}
    if split.strict:  # only then (a listed split's document is what it was): the listed test set's two halves
        out["strict"] = True
        out["listed_test"] = {"total": len(split.listed.test),
                              "with_training_origin": sum(split.listed.training_origin(o) is not None
                                                          for o in split.listed.test_origin)}
    return out


def _doc(schema: str, cfg, splits, paths, runs, summary, env) -> dict[str, Any]:
    return {"schema": schema, "config": cfg.to_json(), "environment": env,
            "splits": [_split_json(sp, paths[k]) for k, sp in splits.items()],
            "runs": [r.to_json() for r in runs], "summary": summary}


def capacity_json(cfg: CapacityConfig, splits, paths, runs: list[Run], env: dict[str, Any]) -> dict[str, Any]:
    return _doc("certify.experiment.capacity/1", cfg, splits, paths, runs, capacity_summary(cfg, runs), env)


def heads_json(cfg: HeadsConfig, splits, paths, runs: list[Run], env: dict[str, Any]) -> dict[str, Any]:
    return _doc("certify.experiment.heads/1", cfg, splits, paths, runs, heads_summary(cfg, runs), env)


def _split_lines(splits, paths) -> list[str]:
    out = []
    for k, sp in splits.items():
        s = sp.setting
        out.append(f"  split        {s.label}, draw {sp.draw}: {len(sp.words)} words ({len(sp.held_words)} held out), "
                   f"{len(sp.patterns)} patterns ({len(sp.held_patterns)}), {len(sp.perms)} permutations "
                   f"({len(sp.held_perms)}); {len(sp.train):,} train, {len(sp.val):,} val, {len(sp.test):,} test "
                   f"sequences; {paths[k]} (check-split: holds" + (", strict" if sp.strict else "") + ")")
        if sp.strict:
            listed = _split_json(sp, paths[k])["listed_test"]
            out.append(f"  strict       no test sequence has an all-training origin; the listed split of the draw (the same "
                       f"training and validation sequences) has {listed['with_training_origin']:,} of "
                       f"{listed['total']:,} test sequences with one: each run is scored on its two halves too")
    return out


def _training_line(steps: int, batch: int, lr: str, every: int) -> str:
    return (f"  training     {steps:,} steps, Adam (lr {lr}), minibatches of {batch}, mean squared error at the query "
            f"positions, checkpoint chosen on validation every {every} steps, float64, 1 torch thread")


def _fmt(st: dict[str, Any]) -> str:
    half = st["ci95_half_width"]
    return f"{st['mean']['decimal']:>7} ± {half:.4f}" if half is not None else f"{st['mean']['decimal']:>7}         "


def _disagree(runs: list[Run]) -> int:
    return sum(len(r.disagreements) for r in runs)


def _diverged_lines(runs: list[Run]) -> list[str]:
    """A diverged run (certify.training.diverged): named with its first non-finite entry; it counts as 0 correct."""
    bad = [r for r in runs if r.diverged is not None]
    if not bad:
        return []
    shown = "; ".join(f"{r.setting.key} draw {r.draw} {r.name}: {r.diverged}" for r in bad[:3])
    return [f"  diverged     {len(bad)} of {len(runs)} runs: a trained entry is not finite, so no table was written; "
            f"each counts as 0 sequences correct ({shown}{'; …' if len(bad) > 3 else ''})"]


def _diverged_note(fig, runs: list[Run], counted: str) -> None:
    n = sum(r.diverged is not None for r in runs)
    if n:
        fig.text(0.01, 0.01, f"{n} diverged run(s): no table, counted as {counted}", fontsize=7, color="tab:red")


def capacity_text(cfg: CapacityConfig, splits, paths, runs: list[Run]) -> list[str]:
    summ = capacity_summary(cfg, runs)
    lines = [f"certify experiment capacity  §6.2: {len(cfg.settings)} settings × {len(cfg.ranks)} ranks × "
             f"{len(cfg.seeds)} seeds" + (" + dense reference" if cfg.dense else "") + f", data draw {cfg.draw}"]
    lines += _split_lines(splits, paths)
    lines.append(_training_line(cfg.steps, cfg.batch, cfg.lr, cfg.eval_every))
    lines.append(f"  models       one head, φ = {MAP_TEXT[cfg.feature_map]} of rank r, values and readout affine (d_v = {cfg.value_dim}); "
                 "dense: softmax(⟨W_Q x̃, W_K z̃⟩)")
    lines.append(f"  scored       exactly, from each exported table: a sequence is correct when all q query errors "
                 f"are < 1/2; float and exact verdicts differ on {_disagree(runs)} sequences")
    lines += _diverged_lines(runs)
    for s, block in zip(cfg.settings, summ["settings"]):
        rs = [r for r in runs if r.setting == s]
        lines.append("")
        lines.append(f"  {s.label}: joint-OOD exact-sequence accuracy, mean ± 95% Student-t half-width over "
                     f"{len(cfg.seeds)} seeds")
        lines.append("      rank   test accuracy       per seed                              train     seconds")
        for row in block["ranks"]:
            group = [r for r in rs if r.rank == row["rank"]]
            lines.append(f"    {row['rank']:>6}  {_fmt(row)}   {' '.join(row['values']):<36}  {row['train']['mean']['decimal']:>7}"
                         f"  {sum(r.seconds for r in group) / len(group):>7.1f}")
        if block["dense"]:
            d = block["dense"]
            group = [r for r in rs if r.dense]
            lines.append(f"     dense  {_fmt(d)}   {' '.join(d['values']):<36}  {d['train']['mean']['decimal']:>7}"
                         f"  {sum(r.seconds for r in group) / len(group):>7.1f}")
        lines.append(f"    smallest rank with mean accuracy ≥ 90%: {block['smallest_rank_mean_accuracy_at_least_90'] or 'none tested'}")
    c = summ["claims"]
    lines.append("")
    lines.append("  claims (paper → this run)")
    lines.append(f"    smallest rank reaching 90% mean accuracy: {', '.join(map(str, c['smallest_rank_90']['paper']))} → "
                 f"{', '.join(str(v) if v else 'none' for v in c['smallest_rank_90']['measured'])}")
    if cfg.dense:
        lines.append(f"    dense attention succeeds (≥ 90%) at every seed: yes → "
                     f"{'yes' if c['dense_succeeds_every_seed']['measured'] else 'no'}")
    return lines


def heads_text(cfg: HeadsConfig, splits, paths, runs: list[Run]) -> list[str]:
    summ = heads_summary(cfg, runs)
    s = cfg.setting
    lines = [f"certify experiment heads  §6.3: {s.label}, budgets R = {', '.join(map(str, cfg.budgets))} split among "
             f"H = {', '.join(map(str, cfg.heads))} heads, value width {cfg.value_width}, {len(cfg.seeds)} seeds, "
             f"data draws {', '.join(map(str, cfg.draws))}" + (" + dense control" if cfg.dense else "")]
    lines += _split_lines(splits, paths)
    lines.append(_training_line(cfg.steps, cfg.batch, cfg.lr, cfg.eval_every))
    lines.append(f"  models       H heads of R/H {cfg.feature_map} features and value width {cfg.value_width}/H each, one affine "
                 "readout; the same parameter count, initial values and minibatch order at each R")
    lines.append(f"  scored       exactly, from each exported table (error = 1 − exact-sequence accuracy); float and "
                 f"exact verdicts differ on {_disagree(runs)} sequences")
    lines += _diverged_lines(runs)
    for block in summ["draws"]:
        lines.append("")
        lines.append(f"  draw {block['draw']}: joint-OOD test error, mean ± 95% Student-t half-width (train error in brackets)")
        head = "      R  " + "".join(f"  H = {H:<22}" for H in cfg.heads) + ("  H=2 − H=1 (paired)" if 2 in cfg.heads and 1 in cfg.heads else "")
        lines.append(head)
        for row in block["budgets"]:
            cells = "".join(f"  {_fmt(row[f'H{H}'])} [{row[f'H{H}']['train']['mean']['decimal']}]" for H in cfg.heads)
            diff = row.get("H2_minus_H1")
            half = diff and diff["ci95_half_width"]
            dtext = (f"  {diff['mean']:>7}" + (f" ± {half:.4f}" if half is not None else "")
                     + (" (includes 0)" if diff["includes_zero"] else "") if diff else "")
            lines.append(f"    {row['budget']:>4}{cells}{dtext}")
        if block["dense"]:
            lines.append(f"    dense {_fmt(block['dense'])} [{block['dense']['train']['mean']['decimal']}]")
    lines.append("")
    lines.append("  claims (paper → this run)")
    for d, c in summ["claims"].items():
        lines.append(f"    {d}: one head has the lowest mean error → {'yes' if c['one_head_lowest_overall'] else 'no'} "
                     f"(mean over budgets: {', '.join(f'{k} {v}' for k, v in c['mean_error_over_budgets'].items())}; "
                     f"lowest at R = {', '.join(map(str, c['one_head_lowest_at_budgets'])) or 'none'})")
        lines.append(f"    {d}: the two- and four-head curves cross → {'yes' if c['two_and_four_head_curves_cross'] else 'no'}")
        lines.append(f"    {d}: every paired 95% interval for H=2 − H=1 includes zero (paper: on the second draw) → "
                     f"{'yes' if c['all_paired_H2_H1_intervals_include_zero'] else 'no'}")
        big = c["largest_budget"]
        lines.append(f"    {d}: at the largest budget, train vs test error → "
                     + "; ".join(f"{k}: {v['train_error']} vs {v['test_error']}" for k, v in big.items()))
    return lines


def plot_capacity(cfg: CapacityConfig, runs: list[Run], path: str) -> None:
    """Figure 2's layout: (a) five-seed means against rank, (b) 95% Student-t intervals; dense dashed."""
    plt = pyplot()
    summ = capacity_summary(cfg, runs)
    fig, axes = plt.subplots(1, 2, figsize=(11, 4.2), sharey=True)
    for i, (s, block) in enumerate(zip(cfg.settings, summ["settings"])):
        color = f"C{i}"
        xs = [row["rank"] for row in block["ranks"]]
        ys = [float(row["mean"]["decimal"]) for row in block["ranks"]]
        hw = [row["ci95_half_width"] or 0.0 for row in block["ranks"]]
        axes[0].plot(xs, ys, "o-", color=color, label=s.label)
        axes[1].errorbar(xs, ys, yerr=hw, fmt="o-", color=color, capsize=3, label=s.label)
        if block["dense"]:
            for ax in axes:
                ax.axhline(float(block["dense"]["mean"]["decimal"]), color=color, ls="--", lw=1)
    ticks = list(cfg.ranks)
    for ax, title in zip(axes, ("(a) five-seed means", "(b) 95% Student-t intervals")):
        ax.set_xscale("log", base=2)
        ax.set_xticks(ticks, [str(t) for t in ticks])
        ax.set_ylim(-0.02, 1.02)
        ax.axhline(0.9, color="grey", ls=":", lw=1)
        ax.set_xlabel("feature rank r")
        ax.set_title(title)
    axes[0].set_ylabel("joint-OOD exact-sequence accuracy (exact)")
    axes[0].legend(fontsize=8, loc="lower right", title="dashed: dense reference", title_fontsize=8)
    fig.tight_layout()
    _diverged_note(fig, runs, "accuracy 0")
    save_figure(fig, path, dpi=120)
    plt.close(fig)


def plot_heads(cfg: HeadsConfig, runs: list[Run], path: str) -> None:
    """Figure 3's layout: per data draw, test error against budget R for each H (95% intervals); dense dashed."""
    plt = pyplot()
    summ = heads_summary(cfg, runs)
    blocks = summ["draws"]
    fig, axes = plt.subplots(1, len(blocks), figsize=(5.5 * len(blocks), 4.2), sharey=True, squeeze=False)
    for ax, block in zip(axes[0], blocks):
        for j, H in enumerate(cfg.heads):
            xs = [row["budget"] for row in block["budgets"]]
            ys = [float(row[f"H{H}"]["mean"]["decimal"]) for row in block["budgets"]]
            hw = [row[f"H{H}"]["ci95_half_width"] or 0.0 for row in block["budgets"]]
            tr = [float(row[f"H{H}"]["train"]["mean"]["decimal"]) for row in block["budgets"]]
            ax.errorbar(xs, ys, yerr=hw, fmt="o-", color=f"C{j}", capsize=3, label=f"H = {H} (test)")
            ax.plot(xs, tr, ":", color=f"C{j}", lw=1, label=f"H = {H} (train)")
        if block["dense"]:
            ax.axhline(float(block["dense"]["mean"]["decimal"]), color="black", ls="--", lw=1, label="dense control")
        ax.set_xscale("log", base=2)
        ax.set_xticks(list(cfg.budgets), [str(b) for b in cfg.budgets])
        ax.set_ylim(-0.02, 1.02)
        ax.set_xlabel("feature budget R = Σ_h r_h")
        ax.set_title(f"data draw {block['draw']}")
    axes[0][0].set_ylabel("joint-OOD error, 1 − exact-sequence accuracy")
    axes[0][0].legend(fontsize=7)
    fig.tight_layout()
    _diverged_note(fig, runs, "error 1")
    save_figure(fig, path, dpi=120)
    plt.close(fig)
