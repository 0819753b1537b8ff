"""A picture of :func:`certify.torch.compare`: the layer's outputs against its table's predictions (docs/torch.md).

:func:`compare_plot` draws a :class:`~certify.torch.compare.CompareReport`; it is
``report.plot(path)``. Needs matplotlib, the optional extra ``certify[plot]`` (imported only
here, through :func:`certify.bounds.plot.pyplot`).
"""
from __future__ import annotations

from typing import Any

import numpy as np

from ..bounds.plot import check_plot_path, pyplot

__all__ = ["compare_plot"]

#: The least relative difference drawn on the log scale: differences of 0 (exact agreement) sit on it.
FLOOR = 1e-18


def compare_plot(report: Any, path: str, title: str | None = None) -> str:
    """Draw ``report`` as a PNG (or any extension matplotlib writes) at ``path``; return ``path``.

    Left: one point per input, the layer's output (y) against the table's exact prediction
    (x), coloured by ``|layer − t̂| / max(1, |t̂|)`` on a log scale, with the line
    ``layer = t̂`` and the band ``± rtol·max(1, |t̂|)`` that rounding allows. Right: that
    relative difference per input, ``family.inputs[i]`` in order, the tolerance as a line and
    the worst input marked. A bfloat16/float16 layer re-evaluated in float32 is drawn as that
    re-evaluation, which decides the verdict (the title says so).
    """
    if report.outputs is None or report.predictions is None:
        raise ValueError("report.plot: this report holds no outputs (made by compare() of this version?)")
    check_plot_path(path)
    plt = pyplot()
    from matplotlib.colors import LogNorm

    shown = report.float32 if report.float32 is not None else report
    x, y = np.asarray(shown.predictions, dtype=float), np.asarray(shown.outputs, dtype=float)
    rel = np.abs(y - x) / np.maximum(1.0, np.abs(x))
    tol = shown.rtol
    drawn = np.maximum(rel, FLOOR)
    top = max(float(drawn.max()), 10 * tol)
    norm = LogNorm(vmin=min(float(drawn.min()), tol / 100), vmax=top)

    fig, (left, right) = plt.subplots(1, 2, figsize=(11, 4.6), gridspec_kw={"width_ratios": [1, 1.35]})
    order = np.argsort(rel)  # the worst drawn last, on top
    points = left.scatter(x[order], y[order], c=drawn[order], cmap="viridis", norm=norm, s=14, edgecolors="none")
    lo, hi = float(min(x.min(), y.min())), float(max(x.max(), y.max()))
    pad = 0.04 * (hi - lo or 1.0)
    line = np.linspace(lo - pad, hi + pad, 200)
    band = tol * np.maximum(1.0, np.abs(line))
    left.fill_between(line, line - band, line + band, color="tab:orange", alpha=0.25, lw=0,
                      label=f"rounding tolerance ± {tol:.2g}·max(1, |t̂|)")
    left.plot(line, line, color="black", lw=0.8, label="layer = table")
    left.set_xlim(lo - pad, hi + pad)
    left.set_ylim(lo - pad, hi + pad)
    left.set_xlabel("the table's exact prediction t̂")
    left.set_ylabel(f"the layer's output ({shown.dtype})")
    left.legend(fontsize=8, loc="upper left")
    left.grid(alpha=0.3)

    idx = np.arange(len(rel))
    right.scatter(idx, drawn, c=drawn, cmap="viridis", norm=norm, s=8, edgecolors="none")
    right.axhline(tol, color="tab:orange", lw=1.5, label=f"rounding tolerance {tol:.2g}")
    right.set_yscale("log")
    right.set_ylim(min(float(drawn.min()), tol / 100) / 2, top * 3)
    right.set_xlabel("family.inputs[i]")
    right.set_ylabel("|layer − t̂| / max(1, |t̂|)")
    worst = int(np.argmax(rel))
    right.scatter([worst], [drawn[worst]], s=90, facecolors="none", edgecolors="tab:red", lw=1.2,
                  label=f"worst: family.inputs[{worst}], {rel[worst]:.3g}")
    left.scatter([x[worst]], [y[worst]], s=90, facecolors="none", edgecolors="tab:red", lw=1.2)
    right.legend(fontsize=8, loc="lower right")
    right.grid(alpha=0.3)
    bar = fig.colorbar(points, ax=right, label="relative difference")
    bar.ax.axhline(tol, color="tab:orange", lw=2)

    verdict = "agrees: the layer is its table's head" if report.agrees else "does NOT agree: not its table's head"
    how = " (the same weights in float32)" if report.float32 is not None else ""
    fig.suptitle(title or f"layer vs its table on {len(rel):,} inputs{how}: {verdict}", fontsize=11)
    if not report.agrees and report.cause:
        fig.text(0.5, 0.005, f"cause found by the probes: {report.cause}", ha="center", fontsize=8)
    fig.tight_layout()
    from ..outputs import save_figure

    save_figure(fig, path)
    plt.close(fig)
    return path
