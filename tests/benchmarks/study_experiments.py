"""The sensitivity study of §6.2 and §6.3 (docs/experiments.md, "Which choices move §6.2 and §6.3"): run it, rerun a
cell, and regenerate the doc's tables and figure from the committed JSON documents.

Every *cell* of the study is one ``certify experiment`` command (options only, no code
edits); its JSON document (``OUT/results.json``) is committed as
``docs/results/experiments/study/<cell>.json``. The committed default runs
(``docs/results/experiments/capacity.json``) give the tables' five-seed reference row. ::

    python tests/benchmarks/study_experiments.py --list             # every cell and its command
    python tests/benchmarks/study_experiments.py --run --jobs 2     # run the cells whose JSON is missing (≈ 45 min)
    python tests/benchmarks/study_experiments.py --rerun CELL       # rerun one cell; byte-compare its JSON
    python tests/benchmarks/study_experiments.py --report           # rewrite the doc section and the figure

Each command runs in ``--scratch`` (default ``/tmp/certify-study``) with ``--out`` the cell's
name, so the file paths inside its JSON are the same on every rerun. The tables use only
exact test accuracies (``runs[].exact.test``) and, for the validation-selected choice of
a configuration, the float validation accuracy (``runs[].float.val``), never the test set.

Issue 46: the cells that carry the verdicts (the preset at the paper's three settings, with the
dense reference; §6.3's five draws) again with ``--split strict`` (``<cell>-strict``). Their
documents also score the listed test set in two halves (``runs[].listed_test``), which the
report sets beside the listed cells' accuracies; the verdict table gets a column for them.
"""
from __future__ import annotations

import argparse
import json
import math
import os
import shlex
import shutil
import subprocess
import sys
import time
from concurrent.futures import ThreadPoolExecutor
from fractions import Fraction

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
RESULTS = os.path.join(ROOT, "docs", "results", "experiments")
STUDY = os.path.join(RESULTS, "study")
DOC = os.path.join(ROOT, "docs", "experiments.md")
FIGURE = os.path.join(ROOT, "docs", "experiments-study.png")
BEGIN, END = "<!-- study:begin (tests/benchmarks/study_experiments.py --report) -->", "<!-- study:end -->"

#: §6.2's settings in the study: (setting, ranks around the paper's threshold and ours).
CAPACITY = {"M8_q6": ("8:6", (8, 16, 32, 64)), "M10_q8": ("10:8", (32, 64, 128))}
#: The paper's smallest rank reaching 90% mean accuracy at those settings (§6.2).
PAPER_90 = {"M8_q6": 16, "M10_q8": 64}
SEEDS = (0, 1, 2)  # the variations' seeds; the baseline's first three seeds are its paired counterpart
#: One factor at a time: (factor, level, options).
VARIATIONS = (
    ("learning rate", "0.003", ("--lr", "0.003")),
    ("learning rate", "0.03", ("--lr", "0.03")),
    ("steps", "2,000", ("--steps", "2000")),
    ("feature map", "elu + 1", ("--feature-map", "elu1")),
    ("feature map", "FAVOR+", ("--feature-map", "favor")),
    ("token layout", "M + 2", ("--layout", "M+2")),
    ("training set", "1,024", ("--train", "1024")),
    ("training set", "16,384", ("--train", "16384")),
)
#: ``capacity --preset paper`` at the paper's three settings, seeds 0–4, and the paper's thresholds there.
PRESET_SETTINGS = {"M6_q4": "6:4", "M8_q6": "8:6", "M10_q8": "10:8"}
PRESET_RANKS = (4, 8, 16, 32, 64, 128)
PAPER_90_ALL = {"M6_q4": 8, "M8_q6": 16, "M10_q8": 64}
#: §6.3's one-factor changes (draws 0 and 1, seeds 0–4): the learning rate.
HEADS_VARIATIONS = (("learning rate", "0.003", ("--lr", "0.003")), ("learning rate", "0.03", ("--lr", "0.03")))
HEADS_DRAWS = (0, 1, 2, 3, 4)  # the default run has draws 0 and 1; the same seeds and options give the same runs


def _slug(opts: tuple[str, ...]) -> str:
    return "-".join(o.lstrip("-").replace("+", "p").replace("feature-map", "map") for o in opts)


def cells() -> list[dict]:
    """Every cell: name, its command (argv after ``certify``), the JSON path, and what it varies."""
    out = []
    for key, (setting, ranks) in CAPACITY.items():
        for factor, level, opts in (("defaults", "", ()),) + VARIATIONS:
            name = f"capacity-{key}-{_slug(opts) or 'defaults'}"
            out.append({"name": name, "json": os.path.join(STUDY, name + ".json"), "kind": "capacity",
                        "factor": factor, "level": level, "setting": key,
                        "argv": ["experiment", "capacity", "--settings", setting, "--ranks", ",".join(map(str, ranks)),
                                 "--seeds", f"{SEEDS[0]}-{SEEDS[-1]}", *(("--no-dense",) if opts else ()), *opts,
                                 "--out", name]})
    for key, setting in PRESET_SETTINGS.items():  # the preset's check: all three settings, five seeds (the paper's)
        name = f"capacity-preset-paper-{key}"
        out.append({"name": name, "json": os.path.join(STUDY, name + ".json"), "kind": "capacity",
                    "factor": "preset", "level": "paper", "setting": key,
                    "argv": ["experiment", "capacity", "--preset", "paper", "--settings", setting, "--ranks",
                             ",".join(map(str, PRESET_RANKS)), "--no-dense", "--out", name]})
    for factor, level, opts in HEADS_VARIATIONS:  # §6.3: the optimizer, on the paper's two draws
        name = f"heads-draws01-{_slug(opts)}"
        out.append({"name": name, "json": os.path.join(STUDY, name + ".json"), "kind": "heads",
                    "factor": factor, "level": level, "setting": "M8_q3",
                    "argv": ["experiment", "heads", "--draws", "0,1", "--no-dense", *opts, "--out", name]})
    for d in HEADS_DRAWS:
        name = f"heads-draw{d}"
        out.append({"name": name, "json": os.path.join(STUDY, name + ".json"), "kind": "heads",
                    "factor": "data draw", "level": str(d), "setting": "M8_q3",
                    "argv": ["experiment", "heads", "--draws", str(d), "--no-dense", "--out", name]})
    # issue 46: the cells that carry the verdicts, again on strict splits — the preset at the paper's three settings
    # (with the dense reference: the dense claim's strict verdict) and §6.3's five draws
    for key, setting in PRESET_SETTINGS.items():
        name = f"capacity-preset-paper-{key}-strict"
        out.append({"name": name, "json": os.path.join(STUDY, name + ".json"), "kind": "capacity",
                    "factor": "split", "level": "strict", "setting": key,
                    "argv": ["experiment", "capacity", "--preset", "paper", "--settings", setting, "--ranks",
                             ",".join(map(str, PRESET_RANKS)), "--split", "strict", "--out", name]})
    for d in HEADS_DRAWS:
        name = f"heads-draw{d}-strict"
        out.append({"name": name, "json": os.path.join(STUDY, name + ".json"), "kind": "heads",
                    "factor": "split", "level": "strict", "setting": "M8_q3",
                    "argv": ["experiment", "heads", "--draws", str(d), "--no-dense", "--split", "strict", "--out", name]})
    return out


def printed(cell: dict) -> str:
    return "certify " + " ".join(shlex.quote(a) for a in cell["argv"])


def run_cell(cell: dict, scratch: str) -> tuple[str, bool, str]:
    """Run one cell in ``scratch``; ``(name, identical to the committed JSON or None when there is none, message)``."""
    os.makedirs(scratch, exist_ok=True)
    out_dir = os.path.join(scratch, cell["argv"][cell["argv"].index("--out") + 1])
    shutil.rmtree(out_dir, ignore_errors=True)
    env = dict(os.environ, CERTIFY_PROGRESS="0")
    t0 = time.perf_counter()
    proc = subprocess.run([sys.executable, "-m", "certify.cli", *cell["argv"]], cwd=scratch, env=env,
                          capture_output=True, text=True)
    wall = f" ({time.perf_counter() - t0:.0f} s wall)"
    if proc.returncode != 0:
        return cell["name"], False, f"exit {proc.returncode}: {proc.stderr.strip()[-300:]}{wall}"
    with open(os.path.join(out_dir, "results.json"), "rb") as fh:
        data = fh.read()
    if os.path.exists(cell["json"]):
        with open(cell["json"], "rb") as fh:
            same = fh.read() == data
        return cell["name"], same, ("byte-identical to " if same else "DIFFERS from ") + os.path.relpath(cell["json"], ROOT) + wall
    os.makedirs(os.path.dirname(cell["json"]), exist_ok=True)
    with open(cell["json"], "wb") as fh:
        fh.write(data)
    return cell["name"], True, "wrote " + os.path.relpath(cell["json"], ROOT) + wall


# --------------------------------------------------------------------------- reading the documents


def load(cell: dict) -> dict:
    with open(cell["json"], encoding="utf-8") as fh:
        return json.load(fh)


def _acc(run: dict, part: str = "test") -> Fraction:
    e = run["exact"][part]
    return Fraction(e["correct"], e["total"])


def _t(values: list) -> tuple[float, float]:
    """Mean and 95% Student-t half-width (floats, for display; the protocol's table of quantiles)."""
    from certify.experiments.protocol import t_interval

    mean, half = t_interval([Fraction(v) for v in values])
    return float(mean), half


def capacity_table(doc: dict, key: str, seeds=SEEDS) -> dict:
    """Per rank: exact mean test accuracy over ``seeds`` and the mean float validation accuracy; the smallest
    rank at ≥ 90% on test and on validation."""
    rows = {}
    for r in doc["runs"]:
        if r["setting"].split("_m")[0] != key or r["model"] != "positive" or r["seed"] not in seeds:
            continue
        row = rows.setdefault(r["rank"], {"test": [], "val": [], "seeds": []})
        row["test"].append(_acc(r))
        row["val"].append(r["float"]["val"]["accuracy"] or 0.0)
        row["seeds"].append(r["seed"])
    out = {}
    for rank, row in sorted(rows.items()):
        if sorted(row["seeds"]) != sorted(seeds):
            raise ValueError(f"{key} rank {rank}: seeds {row['seeds']}, expected {list(seeds)}")
        out[rank] = {"test": sum(row["test"], Fraction(0)) / len(row["test"]), "val": sum(row["val"]) / len(row["val"])}
    first = lambda part: next((k for k, v in out.items() if v[part] >= Fraction(9, 10)), None)  # noqa: E731
    return {"ranks": out, "test90": first("test"), "val90": first("val")}


def heads_errors(docs: list[dict]) -> dict:
    """``(draw, R, H) → {seed: (test error, train error)}``, exact, over every document."""
    out: dict = {}
    for doc in docs:
        for r in doc["runs"]:
            if r["model"] != "positive":
                continue
            out.setdefault((r["draw"], r["rank"], r["heads"]), {})[r["seed"]] = (1 - _acc(r), 1 - _acc(r, "train"))
    return out


# --------------------------------------------------------------------------- the report


def _head(add, first: str, cols: list[str], last: list[str]) -> None:
    """A markdown table's header: a label column, then right-aligned number columns."""
    add(f"| {first} | " + " | ".join(cols + last) + " |")
    add("| --- | " + " | ".join("---:" for _ in cols + last) + " |")


def _seed_mean(by_seed: dict, seeds, part: int = 0) -> Fraction:
    """The mean over ``seeds`` of one (draw, R, H) cell's test (``part`` 0) or train (1) error, exact."""
    return sum(by_seed[k][part] for k in seeds) / len(seeds)


def _draw_means(err: dict, d: int, heads, budgets, seeds) -> tuple[dict, int]:
    """Per head count, draw ``d``'s mean test error over the budgets and seeds; and the head count where it is lowest."""
    means = {H: sum(_seed_mean(err[(d, R, H)], seeds) for R in budgets) / len(budgets) for H in heads}
    return means, min(heads, key=lambda H: means[H])


def _bold(means: dict, low: int) -> str:
    """Markdown cells of ``means`` (by head count), the lowest in bold."""
    return " | ".join(f"**{_dec(v)}**" if H == low else _dec(v) for H, v in means.items())


def len_test(doc: dict) -> int:
    """The test set's size of a (one-split) cell's document."""
    return doc["splits"][0]["test"]


def _half_means(doc: dict, half: str, key) -> dict:
    """Per ``key(run)`` (a rank, or a budget and head count): the mean exact accuracy over the seeds of the positive
    runs on one half of the listed test set (``runs[].listed_test``, a strict cell's document); ``None`` if empty."""
    out: dict = {}
    for r in doc["runs"]:
        if r["model"] == "positive":
            out.setdefault(key(r), []).append(r["listed_test"][half])
    return {k: None if not v[0]["total"] else sum(Fraction(h["correct"], h["total"]) for h in v) / len(v)
            for k, v in out.items()}


def _same_models(docs: dict, sdocs: dict) -> tuple[int, int]:
    """How many positive runs of the strict cells are their listed cell's models (same selected step and training
    count, the listed test set's halves adding up to its test count), of how many."""
    same = total = 0
    for name, sdoc in sdocs.items():
        listed = {(r["setting"], r["draw"], r["rank"], r["heads"], r["seed"]): r for r in docs[name]["runs"]}
        for r in sdoc["runs"]:
            if r["model"] != "positive":
                continue
            total += 1
            o = listed.get((r["setting"], r["draw"], r["rank"], r["heads"], r["seed"]))
            same += bool(o) and (r["selected_step"], r["exact"]["train"]) == (o["selected_step"], o["exact"]["train"]) \
                and sum(h["correct"] for h in r["listed_test"].values()) == o["exact"]["test"]["correct"]
    return same, total


def _heads_table(add, err: dict, draws, budgets, heads, seeds) -> dict:
    """§6.3's table of mean test error per draw (and pooled), and the paired sentence; the statistics the verdicts use."""
    add("")
    add("| draw | " + " | ".join(f"H = {H}" for H in heads) + " | lowest | H = 2 and H = 4 cross | "
        "paired H=2 − H=1 intervals that include 0 | train vs test error at R = " + str(budgets[-1]) + " (H = 1) |")
    add("| ---: | " + " | ".join("---:" for _ in heads) + " | ---: | --- | ---: | --- |")
    lowest, crossing, zero = {}, {}, {}
    per_pair: dict[int, list[float]] = {H: [] for H in heads}  # per (draw, seed): mean over budgets
    for d in draws:
        means, low = _draw_means(err, d, heads, budgets, seeds)
        lowest[d] = low
        diff = [sum(err[(d, R, 2)][s][0] - err[(d, R, 4)][s][0] for s in seeds) for R in budgets]
        cross = any(a * b < 0 for a, b in zip(diff, diff[1:])) or (any(x > 0 for x in diff) and any(x < 0 for x in diff))
        crossing[d] = cross
        inc = 0
        for R in budgets:
            m, half = _t([err[(d, R, 2)][s][0] - err[(d, R, 1)][s][0] for s in seeds])
            inc += abs(m) <= half
        zero[d] = inc
        tr, te = _seed_mean(err[(d, budgets[-1], 1)], seeds, 1), _seed_mean(err[(d, budgets[-1], 1)], seeds)
        for s in seeds:
            for H in heads:
                per_pair[H].append(float(sum(err[(d, R, H)][s][0] for R in budgets) / len(budgets)))
        add(f"| {d} | " + _bold(means, low) + f" | H = {low} | {'yes' if cross else 'no'} | {inc} of {len(budgets)} | {_dec(tr)} vs {_dec(te)} |")
    pooled = {H: _t(per_pair[H]) for H in heads}
    diffs = {H: _t([a - b for a, b in zip(per_pair[H], per_pair[1])]) for H in heads if H != 1}
    add(f"| all ({len(draws)} × {len(seeds)}) | " + " | ".join(
        f"{pooled[H][0]:.3f} ± {pooled[H][1]:.3f}" for H in heads) + f" | H = {min(heads, key=lambda H: pooled[H][0])} | "
        f"{sum(crossing.values())} of {len(draws)} draws | {sum(zero.values())} of "
        f"{len(draws) * len(budgets)} | |")
    add("")
    add("Paired over the " + str(len(per_pair[1])) + " (draw, seed) pairs, mean over the budgets: " + "; ".join(
        f"H = {H} − H = 1: {m:+.4f} ± {h:.4f} ({'includes 0' if abs(m) <= h else 'excludes 0'})"
        for H, (m, h) in diffs.items()) + ".")
    big = budgets[-1]
    fit = {(d, H): (_seed_mean(err[(d, big, H)], seeds, 1), _seed_mean(err[(d, big, H)], seeds))
           for d in draws for H in heads}
    return {"lowest": lowest, "cross": crossing, "zero": zero, "pooled": pooled, "fit": fit}


def _lowest_text(st: dict, draws, heads) -> str:
    return ("the lowest mean error over the budgets is " + ", ".join(f"H = {st['lowest'][d]}" for d in draws)
            + f" on draws {', '.join(map(str, draws))}; pooled "
            + ", ".join(f"H = {H} {st['pooled'][H][0]:.3f}" for H in heads))


def _one_head_verdict(st: dict, draws, heads) -> str:
    n = sum(v == 1 for v in st["lowest"].values())
    pooled = min(heads, key=lambda H: st["pooled"][H][0]) == 1
    return ("**reproduced**" if pooled and n == len(draws) else f"**on {n} of {len(draws)} draws**" if n else
            "**not reproduced**")


def _cross_verdict(st: dict, draws) -> str:
    n = sum(st["cross"].values())
    return "reproduced" if n == len(draws) else f"on {n} of {len(draws)} draws"


def _zero_verdict(st: dict, draws, budgets) -> str:
    n = sum(v == len(budgets) for v in st["zero"].values())
    return ("**" + ("reproduced on every draw" if n == len(draws) else f"on {n} of {len(draws)} draws") + "** ("
            + ", ".join(f"draw {d}: {st['zero'][d]} of {len(budgets)}" for d in draws) + ")")


def _fit_verdict(st: dict, budgets) -> str:
    fit = st["fit"]
    n_fit = sum(tr < Fraction(1, 100) for tr, _ in fit.values())
    n_err = sum(te > 0 for _, te in fit.values())
    n_above = sum(te > tr for tr, te in fit.values())
    return (f"**{'reproduced' if n_fit == n_err == len(fit) else 'partly'}**: at R = {budgets[-1]}, mean train error "
            f"below 1% in {n_fit} of {len(fit)} (draw, H) cells, test error above 0 in {n_err}, and above the train "
            f"error in {n_above} (largest train error {_dec(max(tr for tr, _ in fit.values()))}, test errors "
            f"{_dec(min(te for _, te in fit.values()))}–{_dec(max(te for _, te in fit.values()))})")


def _dec(x: Fraction | float) -> str:
    return f"{float(x):.3f}"


def _distance(t: dict[str, dict]) -> tuple[int, bool]:
    """Σ over the settings of |log₂ (validation threshold) − log₂ (paper's)|; not reached: twice the largest rank."""
    total, beyond = 0, False
    for key, (_, ranks) in CAPACITY.items():
        r = t[key]["val90"]
        if r is None:
            r, beyond = 2 * ranks[-1], True
        total += abs(int(math.log2(r)) - int(math.log2(PAPER_90[key])))
    return total, beyond


def report(check_only: bool = False) -> int:
    cs = cells()
    missing = [c["name"] for c in cs if not os.path.exists(c["json"])]
    if missing:
        print(f"missing JSON documents ({len(missing)}): {', '.join(missing)}; run --run first", file=sys.stderr)
        return 2
    docs = {c["name"]: load(c) for c in cs}
    lines: list[str] = []
    add = lines.append
    # ---- §6.2
    configs = [("defaults", None, "defaults")]
    for factor, level, opts in VARIATIONS:
        configs.append((f"{factor}: {level}", None, _slug(opts)))
    tables: dict[str, dict[str, dict]] = {}
    for label, _, slug in configs:
        tables[label] = {key: capacity_table(docs[f"capacity-{key}-{slug}"], key) for key in CAPACITY}
    with open(os.path.join(RESULTS, "capacity.json"), encoding="utf-8") as fh:
        committed = json.load(fh)
    full = {key: capacity_table(committed, key, seeds=(0, 1, 2, 3, 4)) for key in CAPACITY}
    for key, (setting, ranks) in CAPACITY.items():
        M, q = setting.split(":")
        add("")
        add(f"**(M, q, n) = ({M}, {q}, {2 * int(q)})**: mean joint-OOD exact-sequence accuracy over seeds 0–2 "
            f"(exact, from the exported tables), and the smallest tested rank reaching 90% on test and, in floats, "
            f"on validation (paper: {PAPER_90[key]}).")
        add("")
        _head(add, "configuration", [f"r = {r}" for r in ranks], ["≥ 90% (test)", "≥ 90% (validation)"])
        for label, _, _ in configs:
            t = tables[label][key]
            cells_ = [(_dec(t["ranks"][r]["test"]) if r in t["ranks"] else "—") for r in ranks]
            add(f"| {label} | " + " | ".join(cells_) + f" | {t['test90'] or '> ' + str(ranks[-1])} | "
                f"{t['val90'] or '> ' + str(ranks[-1])} |")
        f5 = full[key]
        add("| defaults, all five seeds (the committed run) | " + " | ".join(_dec(f5["ranks"][r]["test"]) for r in ranks)
            + f" | {f5['test90']} | {f5['val90']} |")
    match = [label for label, t in tables.items() if all(t[k]["test90"] == PAPER_90[k] for k in CAPACITY)]
    distance = {label: _distance(t) for label, t in tables.items()}
    closest = min(distance, key=lambda label: distance[label][0])
    add("")
    add("How far each configuration's validation thresholds are from the paper's (the sum over the two settings of "
        "|log₂ rank − log₂ paper's rank|; a threshold not reached by the largest tested rank counts as twice it, "
        "marked ≥): " + "; ".join(f"{label} {'≥ ' if d[1] else ''}{d[0]}" for label, d in distance.items())
        + f". The closest is **{closest}**.")
    # ---- the preset's check: five seeds, the three settings
    add("")
    add("**`--preset paper`** (the closest configuration on validation, at the paper's three settings, seeds 0–4): "
        "mean joint-OOD exact-sequence accuracy, and the smallest tested rank reaching 90%.")
    add("")
    _head(add, "setting", [f"r = {r}" for r in PRESET_RANKS], ["≥ 90% (test)", "≥ 90% (validation)", "paper"])
    preset90 = {}
    for key, setting in PRESET_SETTINGS.items():
        t = capacity_table(docs[f"capacity-preset-paper-{key}"], key, seeds=(0, 1, 2, 3, 4))
        M, q = setting.split(":")
        preset90[key] = t["test90"]
        add(f"| ({M}, {q}, {2 * int(q)}) | " + " | ".join(_dec(t["ranks"][r]["test"]) for r in PRESET_RANKS)
            + f" | {t['test90'] or '> ' + str(PRESET_RANKS[-1])} | {t['val90'] or '> ' + str(PRESET_RANKS[-1])} | "
            f"{PAPER_90_ALL[key]} |")
    # ---- §6.3
    err = heads_errors([docs[f"heads-draw{d}"] for d in HEADS_DRAWS])
    draws = sorted({d for d, _, _ in err})
    budgets = sorted({R for _, R, _ in err})
    heads = sorted({H for _, _, H in err})
    seeds = sorted(next(iter(err.values())))
    add("")
    add(f"**(M, q, n) = (8, 3, 6), draws {', '.join(map(str, draws))}, seeds {seeds[0]}–{seeds[-1]}**: mean "
        "joint-OOD test error (1 − exact-sequence accuracy) per data draw, averaged over the budgets "
        f"R = {', '.join(map(str, budgets))}; the lowest in bold.")
    st = _heads_table(add, err, draws, budgets, heads, seeds)
    # ---- §6.3 under other learning rates
    lr_lowest = {}
    add("")
    add("**(8, 3, 6) under other learning rates**, draws 0 and 1, seeds 0–4: mean joint-OOD test error over the "
        "budgets; the lowest in bold.")
    add("")
    add("| learning rate | draw | " + " | ".join(f"H = {H}" for H in heads) + " | lowest |")
    add("| --- | ---: | " + " | ".join("---:" for _ in heads) + " | ---: |")
    levels = [("0.01 (defaults)", err)] + [(level, heads_errors([docs[f"heads-draws01-{_slug(opts)}"]]))
                                           for _, level, opts in HEADS_VARIATIONS]
    for level, e in sorted(levels, key=lambda x: float(x[0].split()[0])):
        lr_lowest[level] = {}
        for d in (0, 1):
            means, low = _draw_means(e, d, heads, budgets, seeds)
            lr_lowest[level][d] = low
            add(f"| {level} | {d} | " + _bold(means, low) + f" | H = {low} |")
    one_head = [level for level, lows in lr_lowest.items() if all(v == 1 for v in lows.values())]
    # ---- issue 46: the cells that carry the verdicts, again on strict splits
    sdocs = {k: docs[f"{k}-strict"] for k in [f"capacity-preset-paper-{key}" for key in PRESET_SETTINGS]
             + [f"heads-draw{d}" for d in HEADS_DRAWS]}
    same, runs_compared = _same_models(docs, sdocs)
    origins = {k: d["splits"][0]["listed_test"] for k, d in sdocs.items()}
    add("")
    add("**On strict splits.** The same cells again with `--split strict`: no test sequence has any origin "
        "made only of training words, a training pattern and a training permutation. A strict split keeps the listed "
        "split's training and validation sequences, so each strict cell trains the listed cell's models: "
        f"{same} of the {runs_compared} positive-feature runs have the same selected checkpoint and training count, "
        "and their scores on the listed test set's two halves add up to the listed cell's test count. Of each listed "
        "test set's 1,024 sequences, this many have an all-training origin: "
        + "; ".join(f"({', '.join(PRESET_SETTINGS[key].split(':'))}, {2 * int(PRESET_SETTINGS[key].split(':')[1])}) "
                    f"{origins[f'capacity-preset-paper-{key}']['with_training_origin']:,}" for key in PRESET_SETTINGS)
        + "; (8, 3, 6) draws " + ", ".join(str(d) for d in HEADS_DRAWS) + ": "
        + ", ".join(f"{origins[f'heads-draw{d}']['with_training_origin']:,}" for d in HEADS_DRAWS) + ".")
    add("")
    add("**`--preset paper` on strict splits, and the listed test set in two halves**, seeds 0–4: mean exact-sequence "
        "accuracy per test set (sequences in brackets), and the smallest tested rank reaching 90%.")
    add("")
    add("| setting | test set | " + " | ".join(f"r = {r}" for r in PRESET_RANKS) + " | ≥ 90% | paper |")
    add("| --- | --- | " + " | ".join("---:" for _ in PRESET_RANKS) + " | ---: | ---: |")
    strict90, halves62 = {}, {}
    for key, setting in PRESET_SETTINGS.items():
        M, q = setting.split(":")
        listed = capacity_table(docs[f"capacity-preset-paper-{key}"], key, seeds=(0, 1, 2, 3, 4))
        strict = capacity_table(sdocs[f"capacity-preset-paper-{key}"], key, seeds=(0, 1, 2, 3, 4))
        strict90[key] = strict["test90"]
        halves62[key] = {"listed": {r: v["test"] for r, v in listed["ranks"].items()},
                         "strict": {r: v["test"] for r, v in strict["ranks"].items()}}
        n = origins[f"capacity-preset-paper-{key}"]
        rows = [("listed", f"{n['total']:,}", halves62[key]["listed"])]
        for half, label, count in (("with_training_origin", "with an all-training origin", n["with_training_origin"]),
                                   ("without_training_origin", "without one", n["total"] - n["with_training_origin"])):
            halves62[key][half] = _half_means(sdocs[f"capacity-preset-paper-{key}"], half, lambda r: r["rank"])
            rows.append((label, f"{count:,}", halves62[key][half]))
        rows.append(("**strict**", f"{len_test(sdocs[f'capacity-preset-paper-{key}']):,}", halves62[key]["strict"]))
        for i, (label, count, means) in enumerate(rows):
            first = next((r for r in PRESET_RANKS if means.get(r) is not None and means[r] >= Fraction(9, 10)), None)
            add(f"| {f'({M}, {q}, {2 * int(q)})' if i == 0 else ''} | {label} ({count}) | "
                + " | ".join(_dec(means[r]) if means.get(r) is not None else "—" for r in PRESET_RANKS)
                + f" | {first or '> ' + str(PRESET_RANKS[-1])} | {PAPER_90_ALL[key] if i == 0 else ''} |")
    serr = heads_errors(sdocs[f"heads-draw{d}"] for d in HEADS_DRAWS)
    add("")
    add("**(8, 3, 6) on strict splits, and the listed test set in two halves**, seeds 0–4: mean test error over the "
        f"budgets R = {', '.join(map(str, budgets))} per data draw and test set (sequences in brackets); the lowest "
        "in bold.")
    add("")
    add("| draw | test set | " + " | ".join(f"H = {H}" for H in heads) + " | lowest |")
    add("| ---: | --- | " + " | ".join("---:" for _ in heads) + " | ---: |")
    for d in draws:
        n = origins[f"heads-draw{d}"]
        sets = [("listed", n["total"], _draw_means(err, d, heads, budgets, seeds)[0])]
        for half, label, count in (("with_training_origin", "with an all-training origin", n["with_training_origin"]),
                                   ("without_training_origin", "without one", n["total"] - n["with_training_origin"])):
            acc = _half_means(sdocs[f"heads-draw{d}"], half, lambda r: (r["rank"], r["heads"]))
            sets.append((label, count, {H: None if any(acc.get((R, H)) is None for R in budgets) else
                                        1 - sum(acc[(R, H)] for R in budgets) / len(budgets) for H in heads}))
        sets.append(("**strict**", len_test(sdocs[f"heads-draw{d}"]), _draw_means(serr, d, heads, budgets, seeds)[0]))
        for i, (label, count, means) in enumerate(sets):
            if None in means.values():
                add(f"| {d if i == 0 else ''} | {label} ({count:,}) | " + " | ".join("—" for _ in heads) + " | — |")
                continue
            low = min(heads, key=lambda H: means[H])
            add(f"| {d if i == 0 else ''} | {label} ({count:,}) | " + _bold(means, low) + f" | H = {low} |")
    add("")
    add(f"**(M, q, n) = (8, 3, 6) on strict splits, draws {', '.join(map(str, draws))}, seeds {seeds[0]}–{seeds[-1]}**: "
        "the table of the five draws above, again: mean strict test error per data draw over the budgets; the lowest "
        "in bold.")
    sst = _heads_table(add, serr, draws, budgets, heads, seeds)
    # ---- verdicts
    draws_text = f"defaults, draws {draws[0]}–{draws[-1]}, seeds {seeds[0]}–{seeds[-1]}"
    add("")
    add("| claim (paper) | verdict | configuration(s) behind it | on strict splits |")
    add("| --- | --- | --- | --- |")
    fmt = lambda d: ", ".join(str(d[k] or ">") for k in PRESET_SETTINGS)  # noqa: E731
    if match:
        v62 = (f"**reproduced under {', '.join(match)}** at (8, 6, 12) and (10, 8, 16), seeds 0–2; with five seeds "
               f"at the three settings the preset gives {fmt(preset90)} against the paper's {fmt(PAPER_90_ALL)}"
               + ("" if preset90 == PAPER_90_ALL else " (above)"))
    else:
        v62 = "**not reproduced under any tried choice**"
    hits = sum(strict90[k] == PAPER_90_ALL[k] for k in PRESET_SETTINGS)
    ranks90 = [strict90[k] for k in PRESET_SETTINGS]
    grows = None not in ranks90 and all(a < b for a, b in zip(ranks90, ranks90[1:]))
    s62 = ("**reproduced**" if hits == len(PRESET_SETTINGS) else f"**the values at {hits} of {len(PRESET_SETTINGS)} "
           "settings**" if hits else "**not reproduced**") + (
        f": `--preset paper`, seeds 0–4, gives {fmt(strict90)} against the paper's {fmt(PAPER_90_ALL)} (listed "
        f"splits: {fmt(preset90)})" + ("; it grows with (M, q, n)" if grows else ""))
    add("| §6.2: the smallest tested rank reaching 90% mean accuracy grows 8 → 16 → 64 | " + v62 + " | "
        + "; ".join(f"{label}: {t['M8_q6']['test90'] or '>'}, {t['M10_q8']['test90'] or '>'}"
                    for label, t in tables.items()) + " (at (8, 6, 12), (10, 8, 16); seeds 0–2, test) | " + s62 + " |")
    dense = [_acc(r) for key in CAPACITY for r in docs[f"capacity-{key}-defaults"]["runs"] if r["model"] == "dense"]
    dense_ok = bool(dense) and min(dense) >= Fraction(9, 10)
    sdense = [_acc(r) for key in PRESET_SETTINGS for r in sdocs[f"capacity-preset-paper-{key}"]["runs"]
              if r["model"] == "dense"]
    sdense_ok = bool(sdense) and min(sdense) >= Fraction(9, 10)
    add(f"| §6.2: dense attention succeeds at every seed | **{'reproduced' if dense_ok else 'not reproduced'}** "
        f"(lowest accuracy of the {len(dense)} dense runs: {_dec(min(dense))}) | defaults, with the dense reference | "
        f"**{'reproduced' if sdense_ok else 'not reproduced'}**: lowest accuracy of the {len(sdense)} dense runs "
        f"(`--preset paper`, the three settings, seeds 0–4): {_dec(min(sdense))} |")
    n_h1 = sum(v == 1 for v in st["lowest"].values())
    h1_lowest = min(heads, key=lambda H: st["pooled"][H][0]) == 1
    v1 = ("**reproduced**" if h1_lowest and n_h1 == len(draws) else
          f"**reproduced on {n_h1} of {len(draws)} draws only**" if n_h1 else
          f"**reproduced under learning rate {', '.join(one_head)} (draws 0, 1) only**" if one_head else
          "**not reproduced under any tried choice** (five draws; learning rates "
          + ", ".join(level for _, level, _ in HEADS_VARIATIONS) + " on draws 0, 1"
          + "".join(f"; H = 1 is lowest only on draw {d} at learning rate {level}"
                    for level, lows in lr_lowest.items() for d, v in lows.items() if v == 1) + ")")
    add(f"| §6.3: one head has the lowest mean error | {v1}: {_lowest_text(st, draws, heads)} | {draws_text}; "
        "learning rates " + ", ".join(level for _, level, _ in HEADS_VARIATIONS) + " on draws 0, 1 (table above) | "
        + _one_head_verdict(sst, draws, heads) + f": {_lowest_text(sst, draws, heads)} |")
    add("| §6.3: the two- and four-head curves cross | **" + _cross_verdict(st, draws) + f"** | {draws_text} | **"
        + _cross_verdict(sst, draws) + "** |")
    add("| §6.3: every paired 95% interval for H = 2 − H = 1 includes 0 (paper: on the second draw) | "
        + _zero_verdict(st, draws, budgets) + f" | {draws_text} | " + _zero_verdict(sst, draws, budgets) + " |")
    add("| §6.3: at larger budgets the models fit the training data almost perfectly but still err on held-out "
        f"inputs | {_fit_verdict(st, budgets)} | {draws_text} | {_fit_verdict(sst, budgets)} |")
    figure_data = {"listed_err": err, "strict_err": serr, "halves62": halves62}
    text = "\n".join(lines).strip("\n")
    with open(DOC, encoding="utf-8") as fh:
        doc = fh.read()
    if BEGIN not in doc or END not in doc:
        print(f"{DOC}: markers not found", file=sys.stderr)
        return 2
    head, rest = doc.split(BEGIN, 1)
    _, tail = rest.split(END, 1)
    new = head + BEGIN + "\n" + text + "\n" + END + tail
    if check_only:
        if new != doc:
            print("docs/experiments.md: the study section is not what the committed JSON documents give; run --report",
                  file=sys.stderr)
            return 1
        print("docs/experiments.md: the study section matches the committed JSON documents")
        return 0
    with open(DOC, "w", encoding="utf-8") as fh:
        fh.write(new)
    _figure(tables, configs, figure_data, draws, budgets, heads, seeds)
    print(text)
    return 0


def _heads_panel(ax, err, draws, budgets, heads, seeds, title: str) -> None:
    """§6.3: mean error against the budget per head count, pooled over the draws and seeds, with 95% intervals."""
    for H in heads:
        ys, hw = [], []
        for R in budgets:
            m, h = _t([err[(d, R, H)][s][0] for d in draws for s in seeds])
            ys.append(m)
            hw.append(h)
        ax.errorbar([R * (1 + 0.06 * (H - 2)) for R in budgets], ys, yerr=hw, fmt="o-", capsize=3, label=f"H = {H}")
    ax.set_xscale("log", base=2)
    ax.set_xticks(budgets, [str(R) for R in budgets])
    ax.set_title(title)
    ax.set_xlabel("feature budget R")
    ax.legend(fontsize=8)


def _figure(tables, configs, data, draws, budgets, heads, seeds) -> None:
    """Top row: the study (§6.2 per configuration, §6.3 over five draws); bottom row: issue 46, strict splits."""
    from certify.bounds.plot import pyplot

    plt = pyplot()
    fig, grid = plt.subplots(2, 3, figsize=(15, 8.8))
    axes = grid[0]
    for ax, (key, (setting, ranks)) in zip(axes, CAPACITY.items()):
        for i, (label, _, _) in enumerate(configs):
            t = tables[label][key]
            xs = [r for r in ranks if r in t["ranks"]]
            ax.plot(xs, [float(t["ranks"][r]["test"]) for r in xs], "o-" if i == 0 else ".-",
                    lw=2.5 if i == 0 else 1, color="black" if i == 0 else f"C{i - 1}", label=label)
        ax.axhline(0.9, color="grey", ls=":", lw=1)
        ax.axvline(PAPER_90[key], color="grey", ls="--", lw=1)
        ax.set_xscale("log", base=2)
        ax.set_xticks(ranks, [str(r) for r in ranks])
        M, q = setting.split(":")
        ax.set_title(f"§6.2 (M, q, n) = ({M}, {q}, {2 * int(q)}): dashed, the paper's 90% rank")
        ax.set_xlabel("feature rank r")
    axes[0].set_ylabel("mean joint-OOD accuracy, seeds 0–2 (exact)")
    axes[1].legend(fontsize=7, loc="lower right")
    _heads_panel(axes[2], data["listed_err"], draws, budgets, heads, seeds,
                 f"§6.3 (8, 3, 6): {len(draws)} draws × {len(seeds)} seeds, 95% intervals")
    axes[2].set_ylabel("mean joint-OOD error (exact)")
    # issue 46: the preset on listed and strict splits, the listed test set's two halves, §6.3 on strict splits
    styles = {"listed": ("o-", "listed test set"), "strict": ("s--", "strict test set"),
              "with_training_origin": ("^:", "listed, with an all-training origin"),
              "without_training_origin": ("v-.", "listed, without one")}
    for ax, which in zip(grid[1][:2], (("listed", "strict"), ("with_training_origin", "without_training_origin"))):
        for i, (key, setting) in enumerate(PRESET_SETTINGS.items()):
            M, q = setting.split(":")
            for part in which:
                means = data["halves62"][key][part]
                xs = [r for r in PRESET_RANKS if means.get(r) is not None]
                ax.plot(xs, [float(means[r]) for r in xs], styles[part][0], color=f"C{i}",
                        label=f"({M}, {q}, {2 * int(q)}), {styles[part][1]}")
        for i, key in enumerate(PRESET_SETTINGS):
            ax.axvline(PAPER_90_ALL[key], color=f"C{i}", ls="--", lw=0.8)
        ax.axhline(0.9, color="grey", ls=":", lw=1)
        ax.set_xscale("log", base=2)
        ax.set_xticks(PRESET_RANKS, [str(r) for r in PRESET_RANKS])
        ax.set_xlabel("feature rank r")
        ax.legend(fontsize=7, loc="lower right")
    grid[1][0].set_title("§6.2 --preset paper: listed vs strict (dashed: the paper's rank)")
    grid[1][1].set_title("§6.2 --preset paper: the listed test set's two halves")
    grid[1][0].set_ylabel("mean exact-sequence accuracy (exact)")
    _heads_panel(grid[1][2], data["strict_err"], draws, budgets, heads, seeds,
                 f"§6.3 (8, 3, 6) on strict splits: {len(draws)} draws × {len(seeds)} seeds")
    grid[1][2].set_ylabel("mean strict test error (exact)")
    fig.tight_layout()
    fig.savefig(FIGURE, dpi=110)
    plt.close(fig)


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--list", action="store_true", help="print every cell and its command")
    ap.add_argument("--run", action="store_true", help="run the cells whose JSON document is missing")
    ap.add_argument("--rerun", metavar="CELL", help="rerun one cell and byte-compare its JSON with the committed one")
    ap.add_argument("--report", action="store_true", help="rewrite the doc's study section and the figure")
    ap.add_argument("--check-doc", action="store_true", help="exit 1 if the doc's section is not what the JSON gives")
    ap.add_argument("--times", action="store_true", help="each finished cell's wall time in --scratch (from its files)")
    ap.add_argument("--jobs", type=int, default=2)
    ap.add_argument("--scratch", default="/tmp/certify-study")
    a = ap.parse_args()
    cs = cells()
    if a.list:
        for c in cs:
            print(f"{c['name']:<40} {printed(c)}")
        return 0
    if a.rerun:
        cell = next((c for c in cs if c["name"] == a.rerun), None)
        if cell is None:
            print(f"no cell {a.rerun!r} (--list)", file=sys.stderr)
            return 2
        print(printed(cell))
        name, ok, msg = run_cell(cell, a.scratch)
        print(f"{name}: {msg}")
        return 0 if ok else 1
    if a.times:  # each cell's wall time in --scratch, from its files: the first split written to results.json
        for c in cs:
            out_dir = os.path.join(a.scratch, c["argv"][c["argv"].index("--out") + 1])
            res = os.path.join(out_dir, "results.json")
            if os.path.exists(res):
                first = min(os.path.getmtime(os.path.join(d, f)) for d, _, fs in os.walk(out_dir) for f in fs
                            if f == "split.json")
                print(f"{c['name']:<40} {os.path.getmtime(res) - first:7.0f} s")
        return 0
    if a.run:
        todo = [c for c in cs if not os.path.exists(c["json"])]
        todo.sort(key=lambda c: (c["kind"] != "heads", "M10" not in c["name"], "steps" not in c["name"]))
        with ThreadPoolExecutor(max(1, a.jobs)) as pool:
            for name, ok, msg in pool.map(lambda c: run_cell(c, a.scratch), todo):
                print(f"{name}: {msg}", flush=True)
        return 0
    if a.report or a.check_doc:
        return report(check_only=a.check_doc)
    ap.print_help()
    return 0


if __name__ == "__main__":
    sys.exit(main())
