"""Plot ``log₂`` of rank bounds against ``m``: ``certify bounds --m-range A:B --plot FILE.png`` and docs/results.png.

One module for both pictures: :func:`plot_rows` draws the closed-form bounds of
``certify bounds`` (rows of :func:`certify.bounds.values.range_rows`), and
:func:`plot_results` draws the certified lower and verified upper sides of
docs/results.md's table by ``m`` over the same Theorem-1 lines (``tests/benchmarks/results_table.py
--plot``). Needs matplotlib, the optional extra ``plot``; imported only here.
"""
from __future__ import annotations

from typing import Any

__all__ = ["PlotUnavailable", "check_plot_path", "plot_rows", "plot_results"]

_STYLE = {
    "theorem1.closed_form": ("Theorem 1, closed form 2^(4⌊M/40⌋−1)", "C0", "--"),
    "theorem1.exact": ("Theorem 1, exact evaluation", "C0", "-"),
    "shell": ("shell counting (A.3)", "C1", "-"),
    "unique_minimizer": ("unique minimizer (A.4)", "C2", "-"),
    "growing_context.exact": ("growing context (A.2), exact", "C3", "-"),
    "heads.exact": ("H heads (B.2), exact", "C4", "-"),
    "degree.exact": ("degree D (B.4), exact", "C5", "-"),
}


class PlotUnavailable(RuntimeError):
    """matplotlib is not installed."""


def pyplot():
    try:
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        raise PlotUnavailable("plotting needs matplotlib: pip install matplotlib "
                              "(the extra plot: pip install '.[plot]' in the checkout)") from None
    return plt


def check_plot_path(path: str, creates: str | None = None) -> None:
    """Refuse, before any work, a plot file matplotlib cannot write (unknown extension, missing folder).

    ``creates``: a folder the command makes before it draws (its ``--out``); a plot directly in
    it is accepted although the folder does not exist yet.

    Raises
    ------
    PlotUnavailable
        matplotlib is missing, or ``path`` has no extension matplotlib can write, or its
        folder does not exist; the message says which and what would work.
    """
    import os

    pyplot()
    from matplotlib.backends.backend_agg import FigureCanvasAgg

    kinds = FigureCanvasAgg.get_supported_filetypes()
    ext = os.path.splitext(path)[1].lower().lstrip(".")
    if ext not in kinds:
        raise PlotUnavailable(f"cannot draw {path!r}: the extension {('.' + ext) if ext else '(none)'} is not one "
                              f"matplotlib writes; use one of {', '.join('.' + k for k in sorted(kinds))}")
    folder = os.path.dirname(os.path.abspath(path))
    if creates is not None and folder == os.path.abspath(creates):
        return
    if not os.path.isdir(folder):
        raise PlotUnavailable(f"cannot write {path!r}: the folder {folder} does not exist")


def _draw_bounds(ax, rows: list[dict[str, Any]], columns, labels: dict[str, str] | None = None) -> None:
    """One line per bound column of ``rows`` (log₂ values; points where it is trivial or does not apply left out)."""
    for col in columns:
        label, color, style = _STYLE[col]
        pts = [(r["m"], r[col]) for r in rows if r.get(col) is not None]
        if pts:
            xs, ys = zip(*pts)
            extra = (labels or {}).get(col)
            ax.plot(xs, ys, style, color=color, label=f"{label}, {extra}" if extra else label,
                    drawstyle="steps-post" if "closed" in col else "default")


def _finish(fig, ax, plt, path: str, ylabel: str, title: str) -> None:
    ax.set_xlabel("m (token bits)")
    ax.set_ylabel(ylabel)
    ax.set_title(title)
    ax.grid(alpha=0.3)
    ax.legend(fontsize=8)
    fig.tight_layout()
    from ..outputs import save_figure

    save_figure(fig, path)
    plt.close(fig)


def plot_rows(rows: list[dict[str, Any]], path: str, title: str = "", labels: dict[str, str] | None = None) -> None:
    """Draw one line per bound (points where it is trivial or does not apply are left out).

    ``labels`` adds text to a column's legend entry (e.g. ``{"heads.exact": "H = 2"}``).
    """
    plt = pyplot()
    fig, ax = plt.subplots(figsize=(8, 5), dpi=120)
    _draw_bounds(ax, rows, _STYLE, labels)
    _finish(fig, ax, plt, path, "log₂ (lower bound on feature rank)", title or "Rank lower bounds of the paper, by m")


def plot_results(points: list[dict[str, Any]], rows: list[dict[str, Any]], path: str, title: str = "") -> None:
    """docs/results.png: ``log₂`` of each row's certified lower bound and verified upper bound against ``m``.

    ``points``: ``{"m", "lower", "upper"}`` per row (``upper`` ``None`` where no table was
    verified); ``rows``: :func:`certify.bounds.values.range_rows` at length 3 for the same
    ``m`` (the paper's Theorem 1, closed form where it applies and evaluated exactly), and
    ``2^m`` (the dense-softmax construction, A.1) for reference.
    """
    import math

    plt = pyplot()
    fig, ax = plt.subplots(figsize=(8, 5), dpi=120)
    ms = [p["m"] for p in points]
    ax.plot(ms, ms, ":", color="grey", label="2^m (dense softmax, A.1)")
    _draw_bounds(ax, rows, ("theorem1.closed_form", "theorem1.exact"))
    if not any(r.get("theorem1.closed_form") is not None for r in rows):  # say why the closed form is not drawn
        ax.plot([], [], " ", label="(Theorem 1's closed form: trivial for these m, it needs M ≥ 168)")
    ax.plot(ms, [math.log2(p["lower"]) for p in points], "^-", color="tab:blue",
            label="certified lower bound (docs/results.md)")
    up = [(p["m"], math.log2(p["upper"])) for p in points if p.get("upper")]
    if up:
        ax.plot(*zip(*up), "v-", color="tab:red", label="verified upper bound (certify bracket)")
    _finish(fig, ax, plt, path, "log₂ (feature rank)", title or "The minimal rank of each row's family, by m")
