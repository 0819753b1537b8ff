"""Text, JSON and plot of a ``certify train`` experiment (presentation only; docs/experiments.md).

The numbers come from :mod:`certify.training.runs`; this module lays them out and sums them up per rank (:func:`summarize`).

>>> row_verdict(True, None), row_verdict(False, True), row_verdict(False, False)
('yes', 'no (some readout exists)', 'no (no readout exists)')
"""
from __future__ import annotations

from fractions import Fraction
from typing import Any

from ..check import format_rational
from ..kernels.audit import FamilySpec, KernelReport
from .options import TrainConfig
from .runs import RunResult

__all__ = ["row_verdict", "summarize", "render_text", "to_json", "plot_results"]

SCHEMA = "certify.train/1"


def row_verdict(solves: bool, readout_exists: bool | None) -> str:
    """``solves`` of the trained readout, and for a failing one whether any readout would solve (exact LP)."""
    if solves:
        return "yes"
    return "no (some readout exists)" if readout_exists else "no (no readout exists)"


def summarize(results: list[RunResult]) -> list[dict[str, Any]]:
    """Per rank: seeds, mean of the exact maximum errors over the runs that did not diverge, runs that solve, diverged runs."""
    rows = []
    for rank in dict.fromkeys(r.rank for r in results):
        runs = [r for r in results if r.rank == rank]
        done = [r for r in runs if r.report is not None]
        mean = sum((r.report.max_error for r in done), Fraction(0)) / len(done) if done else None
        rows.append({"rank": rank, "seeds": [r.seed for r in runs],
                     "mean_max_error": None if mean is None else format_rational(mean),
                     "mean_max_error_decimal": None if mean is None else f"{float(mean):.4f}",
                     "solving": sum(r.solves for r in runs), "runs": len(runs),
                     "readout_exists": sum(bool(r.solves or r.report.readout_exists) for r in done),
                     "diverged": len(runs) - len(done)})
    return rows


def render_text(family: FamilySpec, config: TrainConfig, results: list[RunResult],
                construction: KernelReport, out_dir: str) -> list[str]:
    """The table printed by ``certify train``: one row per run, then one per rank."""
    bound = f"; certified bound r ≥ {family.certified_bound}" if family.certified_bound is not None else ""
    lines = [
        f"certify train  family: {family.source}: {len(family.inputs)} inputs, error < {format_rational(family.error)}{bound}",
        f"  training     {config.describe()}",
        f"  tables       {out_dir}/rank<r>_seed<s>.npz, each checked exactly (certify check-kernel)",
        "",
        "  rank  seed  train loss  max error   max error  solves (exact)             jumps     kernel  time",
        "              (float)     (float)     (exact)                               violated  rank",
    ]
    for r in results:
        rep = r.report
        if rep is None:
            lines.append(f"  {r.rank:>4}  {r.seed:>4}  {r.loss:<10.4g}  {r.float_max_error:<10.4g}  "
                         f"{'—':<10}  {'no (diverged: no table)':<25}  {'—':>8}  {'—':>6}  {r.seconds:4.1f} s")
            continue
        lines.append(f"  {r.rank:>4}  {r.seed:>4}  {r.loss:<10.4g}  {r.float_max_error:<10.4g}  "
                     f"{float(rep.max_error):<10.4g}  {row_verdict(r.solves, rep.readout_exists):<25}  "
                     f"{len(rep.jump_violations):>8}  {rep.kernel_rank:>6}  {r.seconds:4.1f} s")
    rows = summarize(results)
    lines += ["", "  rank  mean max error (exact)  solving  readout exists (exact LP)"]
    for row in rows:
        done = row["runs"] - row["diverged"]
        mean = row["mean_max_error_decimal"] or "—"
        if row["diverged"]:
            mean += f" (of {done})"
        lines.append(f"  {row['rank']:>4}  {mean:<22}  {row['solving']}/{row['runs']:<6}  "
                     f"{row['readout_exists']}/{row['runs']}" + (f"  ({row['diverged']} diverged)" if row["diverged"] else ""))
    diverged = [r for r in results if r.diverged]
    if diverged:
        lines.append("")
        lines.append(f"  diverged     {len(diverged)} of {len(results)} runs: the loss or a trained entry is not finite, so no "
                     "table was written; counted as not solving (" + "; ".join(f"rank {r.rank} seed {r.seed}: {r.diverged}"
                                                            for r in diverged[:3]) + ("; …" if len(diverged) > 3 else "") + ")")
    lines.append("")
    lines.append(f"  constructed  rank {construction.kernel_rank} (φ_Q one-hot over the query tokens, dense-softmax kernel, "
                 f"A.1): max error {float(construction.max_error):.4g} (exact), solves: "
                 f"{'yes' if construction.solves else 'no'}")
    if family.certified_bound is not None:
        lines.append(f"  certificate  excludes every r < {family.certified_bound}: no table of lower rank can solve "
                     "the family (a solving one would exit 3)")
    return lines


def to_json(family: FamilySpec, config: TrainConfig, results: list[RunResult], construction: KernelReport,
            out_dir: str, environment: dict[str, Any]) -> dict[str, Any]:
    """``--json``: schema ``certify.train/1`` (docs/experiments.md)."""
    return {
        "schema": SCHEMA,
        "family": {"source": family.source, "inputs": len(family.inputs), "error_below": format_rational(family.error),
                   "certified_bound": family.certified_bound},
        "config": {"ranks": list(config.ranks), "seeds": list(config.seeds), "steps": config.steps, "lr": config.lr,
                   "feature_map": config.feature_map, "delta": config.delta,
                   "delta_used": format_rational(Fraction(config.delta_float)),
                   "loss": "mean squared error", "optimizer": "Adam", "positivity": "softplus", "dtype": "float64",
                   "feature_map_dtype": config.dtype},
        "environment": environment,
        "out": out_dir,
        "runs": [r.to_json() for r in results],
        "summary": summarize(results),
        "construction": {"rank": construction.kernel_rank, "solves": construction.solves,
                         "max_error": {"exact": format_rational(construction.max_error),
                                       "decimal": f"{float(construction.max_error):.6g}"}},
    }


def plot_results(results: list[RunResult], construction: KernelReport, certified_bound: int | None, path: str) -> None:
    """Exact max error against rank, one point per seed; ``r < bound`` shaded; the construction marked.

    Raises ``certify.bounds.plot.PlotUnavailable`` without matplotlib (the ``plot`` extra).
    """
    from ..bounds.plot import PlotUnavailable

    try:
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        raise PlotUnavailable("--plot needs matplotlib: pip install matplotlib "
                              "(the extra plot: pip install '.[plot]' in the checkout)") from None
    ranks = sorted({r.rank for r in results})
    pos = {r: i for i, r in enumerate(ranks)}  # ranks on an even axis, labelled by value
    fig, ax = plt.subplots(figsize=(7, 4.2))
    diverged = [r for r in results if r.report is None]
    for r in results:
        if r.report is None:  # diverged: no exact error; marked at the top of its rank's column
            ax.scatter(pos[r.rank] + 0.06 * (r.seed % 5 - 2), 1.0, marker="x", color="tab:grey", s=30, zorder=3,
                       transform=ax.get_xaxis_transform())
            continue
        ax.scatter(pos[r.rank] + 0.06 * (r.seed % 5 - 2), float(r.report.max_error),
                   color="tab:green" if r.solves else "tab:red", s=22, zorder=3)
    ax.axhline(0.5, color="grey", ls="--", lw=1, label="error 1/2")
    if certified_bound is not None:
        below = [pos[r] for r in ranks if r < certified_bound]
        if below:
            ax.axvspan(-0.5, max(below) + 0.5, color="grey", alpha=0.15,
                       label=f"excluded by the certificate (r < {certified_bound})")
    cr = construction.kernel_rank
    if cr in pos:
        ax.scatter(pos[cr] + 0.3, float(construction.max_error), marker="*", s=140, color="tab:blue", zorder=4,
                   label=f"constructed rank-{cr} solution")
    ax.set_xticks(range(len(ranks)), [str(r) for r in ranks])
    ax.set_xlabel("feature rank r")
    ax.set_ylabel("max error on the family (exact)")
    ax.set_title("Trained heads, checked exactly (green: solves, red: fails)"
                 + (f"\n× at the top: {len(diverged)} diverged run(s), no table" if diverged else ""))
    ax.legend(fontsize=8, loc="upper right")
    fig.tight_layout()
    from ..outputs import save_figure

    save_figure(fig, path, dpi=120)
    plt.close(fig)
