"""The plot of r*(m, 3)'s bracket against m (``certify minrank --plot``; docs/results.md): needs the extra ``plot``.

It reads every ``m<M>.minrank.json`` of a directory (what ``certify minrank --out DIR``
writes), and draws on a log₂ scale the verified lower and upper sides, ``2^m`` (dense
softmax, A.1) and the paper's Theorem 1 evaluated exactly for that ``m`` (``certify bounds``,
docs/math.md §7). Only drawn numbers are floats; each comes from a verified file or an
exact bound.
"""
from __future__ import annotations

import glob
import json
import math
import os

from ..bounds.plot import pyplot

__all__ = ["read_brackets", "plot_brackets"]


def read_brackets(directory: str) -> list[dict]:
    """The ``certify.minrank/1`` documents of ``directory``, by m (a file of another schema is skipped)."""
    out = {}
    for path in glob.glob(os.path.join(directory, "m*.minrank.json")):
        try:
            with open(path, encoding="utf-8") as fh:
                doc = json.load(fh)
        except (OSError, ValueError, RecursionError) as exc:
            raise ValueError(f"{path}: not a certify.minrank/1 file ({exc})") from None
        if not isinstance(doc, dict) or doc.get("schema") != "certify.minrank/1":
            continue
        ok = (type(doc.get("m")) is int and all(type(doc.get(k)) is int and doc[k] >= 1 for k in ("lower", "upper"))
              and isinstance(doc.get("closed"), bool))
        if not ok:
            raise ValueError(f"{path}: m, lower, upper (integers ≥ 1) and closed are needed to draw it")
        out[doc["m"]] = doc
    return [out[m] for m in sorted(out)]


def plot_brackets(docs: list[dict], path: str) -> None:
    """Draw the brackets of ``docs`` into ``path`` (module docstring)."""
    from ..bounds.values import theorem1

    plt = pyplot()
    ms = [d["m"] for d in docs]
    fig, ax = plt.subplots(figsize=(7, 4.5), dpi=120)
    ax.plot(ms, [m for m in ms], ":", color="grey", label="2^m (dense softmax, A.1)")
    ax.plot(ms, [math.log2(theorem1(m).values["exact"].value) for m in ms], "v-", color="tab:purple",
            label="paper's Theorem 1, exact (certify bounds)")
    ax.plot(ms, [math.log2(d["lower"]) for d in docs], "^-", color="tab:blue", label="lower side, verified")
    ax.plot(ms, [math.log2(d["upper"]) for d in docs], "o-", color="tab:red", label="upper side, verified table")
    for d in docs:
        if d["closed"]:
            ax.annotate("closed", (d["m"], math.log2(d["upper"])), textcoords="offset points", xytext=(0, 6),
                        ha="center", fontsize=7)
    ax.set_xlabel("m (token bits)")
    ax.set_ylabel("log₂ rank")
    ax.set_title("r*(m, 3): the least rank solving every length-3 input")
    ax.grid(alpha=0.3)
    ax.legend(fontsize=8)
    fig.tight_layout()
    from ..outputs import save_figure

    save_figure(fig, path)
    plt.close(fig)
