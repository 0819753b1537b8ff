"""The §6.2 and §6.3 protocols: splits, runs, exact scores and the summaries beside the paper's claims.

``certify experiment capacity`` (§6.2) and ``certify experiment heads`` (§6.3) are thin
calls of :func:`run_capacity` and :func:`run_heads`. For every run the trained model is
exported as a kernel table, read back from disk, and scored by
:func:`certify.kernels.predict.exact_predictions` on every sequence of the held-out
test set and of the training set: a sequence is correct when all its ``q`` query errors
are ``< 1/2``, exactly. The float model's verdict is computed too, and any sequence where
the two differ is reported. Labels come from the integer oracle (``witnesses.min_ip_target``).

Summaries use exact rationals for means (accuracies are ``k/N``); the 95% Student-t
half-widths ``t_{0.975, s−1}·sd/√s`` are floats, for display (:data:`T975`).
"""
from __future__ import annotations

import math
import os
import time
from dataclasses import dataclass, field
from fractions import Fraction
from typing import Any, Callable

from ..check import format_rational
from ..training.diverged import finite_or_none, first_nonfinite
from ..kernels.predict import exact_predictions
from ..kernels.table import KernelTable, load_table, npz_bytes
from ..outputs import write_atomic
from .tasks import Setting, Split, SplitConfig, build_split, is_query_token, split_to_json

__all__ = ["CapacityConfig", "HeadsConfig", "Run", "plan_capacity", "plan_heads", "execute", "capacity_summary",
           "heads_summary", "T975", "t_interval", "build_splits", "write_splits", "exact_scores", "check_sizes"]

#: ``t_{0.975, df}`` for ``df = 1 … 30`` (the two-sided 95% Student-t quantile; checked against
#: sympy's Student-t distribution in tests/test_experiments.py). Beyond 30, the normal 1.960.
T975 = (12.706, 4.303, 3.182, 2.776, 2.571, 2.447, 2.365, 2.306, 2.262, 2.228, 2.201, 2.179, 2.160, 2.145, 2.131,
        2.120, 2.110, 2.101, 2.093, 2.086, 2.080, 2.074, 2.069, 2.064, 2.060, 2.056, 2.052, 2.048, 2.045, 2.042)


def t_interval(values: list[Fraction]) -> tuple[Fraction, float]:
    """``(mean, half-width)`` of the 95% Student-t interval (half-width ``nan`` for one value)."""
    k = len(values)
    mean = sum(values, Fraction(0)) / k
    if k < 2:
        return mean, float("nan")
    var = sum(((v - mean) ** 2 for v in values), Fraction(0)) / (k - 1)
    t = T975[k - 2] if k - 1 <= len(T975) else 1.960
    return mean, t * math.sqrt(float(var) / k)


@dataclass(frozen=True)
class CapacityConfig:
    """§6.2 defaults (docs/experiments.md): three settings, nine ranks, five seeds, 600 steps, draw 0."""

    settings: tuple[Setting, ...] = (Setting(6, 4, 3), Setting(8, 6, 4), Setting(10, 8, 5))
    ranks: tuple[int, ...] = (1, 2, 4, 8, 16, 32, 64, 128, 256)
    seeds: tuple[int, ...] = (0, 1, 2, 3, 4)
    steps: int = 600
    draw: int = 0
    split: SplitConfig = SplitConfig()
    batch: int = 64
    lr: str = "0.01"
    value_dim: int = 16
    eval_every: int = 50
    dense: bool = True
    feature_map: str = "softplus"  # certify.experiments.models.MAPS
    layout: str = "M+3"  # certify.experiments.tasks.LAYOUTS (the settings carry it too)

    def to_json(self) -> dict[str, Any]:
        return {"settings": [s.to_json() for s in self.settings], "ranks": list(self.ranks), "seeds": list(self.seeds),
                "steps": self.steps, "draw": self.draw, "split": self.split.to_json(), "batch": self.batch,
                "lr": self.lr, "value_dim": self.value_dim, "eval_every": self.eval_every, "dense": self.dense,
                "feature_map": self.feature_map, "layout": self.layout}


@dataclass(frozen=True)
class HeadsConfig:
    """§6.3 defaults: ``(M, q, n) = (8, 3, 6)``, budgets ``R``, ``H = 1, 2, 4``, value width 64, 1,200 steps, two draws."""

    setting: Setting = Setting(8, 3, 4)
    budgets: tuple[int, ...] = (4, 8, 16, 32, 64)
    heads: tuple[int, ...] = (1, 2, 4)
    seeds: tuple[int, ...] = (0, 1, 2, 3, 4)
    steps: int = 1200
    draws: tuple[int, ...] = (0, 1)
    split: SplitConfig = SplitConfig()
    batch: int = 64
    lr: str = "0.01"
    value_width: int = 64
    eval_every: int = 50
    dense: bool = True
    feature_map: str = "softplus"  # certify.experiments.models.MAPS
    layout: str = "M+3"  # certify.experiments.tasks.LAYOUTS (the settings carry it too)

    def to_json(self) -> dict[str, Any]:
        return {"setting": self.setting.to_json(), "budgets": list(self.budgets), "heads": list(self.heads),
                "seeds": list(self.seeds), "steps": self.steps, "draws": list(self.draws), "split": self.split.to_json(),
                "batch": self.batch, "lr": self.lr, "value_width": self.value_width, "eval_every": self.eval_every,
                "dense": self.dense, "feature_map": self.feature_map, "layout": self.layout}


@dataclass
class Run:
    """One trained model and its exact scores."""

    setting: Setting
    draw: int
    rank: int | None  # None: the dense reference
    heads: int
    seed: int
    table: str = ""
    step: int = 0
    seconds: float = 0.0
    exact: dict[str, dict[str, Any]] = field(default_factory=dict)  # part → correct, total, accuracy, max_error
    float_accuracy: dict[str, float] = field(default_factory=dict)
    float_loss: dict[str, float] = field(default_factory=dict)
    disagreements: list[dict[str, Any]] = field(default_factory=list)
    diverged: str | None = None  # its first non-finite trained entry (certify.training.diverged): no table, 0 correct
    #: On a strict split: the listed split's test set (same training data, so the same model), in two halves —
    #: ``with_training_origin`` and ``without_training_origin`` → correct, total (docs/math.md §10).
    listed_halves: dict[str, dict[str, int]] | None = None

    @property
    def dense(self) -> bool:
        return self.rank is None

    @property
    def name(self) -> str:
        if self.dense:
            return f"dense_seed{self.seed}"
        return f"rank{self.rank}" + (f"_heads{self.heads}" if self.heads > 1 else "") + f"_seed{self.seed}"

    def accuracy(self, part: str = "test") -> Fraction:
        return self.exact[part]["accuracy"]

    def to_json(self) -> dict[str, Any]:
        out = {
            "setting": self.setting.key, "draw": self.draw, "model": "dense" if self.dense else "positive",
            "rank": self.rank, "heads": self.heads, "seed": self.seed, "table": self.table or None,
            "selected_step": self.step, "diverged": self.diverged,
            "exact": {p: {"correct": e["correct"], "total": e["total"],
                          "accuracy": {"exact": format_rational(e["accuracy"]), "decimal": f"{float(e['accuracy']):.6g}"},
                          "max_error_decimal": None if e["max_error"] is None else f"{float(e['max_error']):.6g}"}
                      for p, e in self.exact.items()},
            "float": {p: {"accuracy": finite_or_none(round(self.float_accuracy[p], 12)),
                          "loss": finite_or_none(float(f"{self.float_loss[p]:.6g}"))} for p in self.float_accuracy},
            "float_exact_disagreements": self.disagreements,
        }
        if self.listed_halves is not None:  # only on a strict split: a listed split's document is what it was
            out["listed_test"] = {half: {"correct": c["correct"], "total": c["total"],
                                         "accuracy": {"exact": format_rational(Fraction(c["correct"], c["total"])),
                                                      "decimal": f"{c['correct'] / c['total']:.6g}"}
                                         if c["total"] else None}
                                  for half, c in self.listed_halves.items()}
        return out


def _check_ranks(values: tuple[int, ...], heads: tuple[int, ...]) -> None:
    for r in values:
        for H in heads:
            if r % H:
                raise ValueError(f"--budgets: {r} features cannot be split equally among {H} heads")


def plan_capacity(cfg: CapacityConfig) -> list[tuple[Setting, int, int | None, int, int]]:
    """Every run of §6.2 as ``(setting, draw, rank or None, heads, seed)``, in order."""
    plan = []
    for s in cfg.settings:
        for r in cfg.ranks:
            plan += [(s, cfg.draw, r, 1, seed) for seed in cfg.seeds]
        if cfg.dense:
            plan += [(s, cfg.draw, None, 1, seed) for seed in cfg.seeds]
    return plan


def plan_heads(cfg: HeadsConfig) -> list[tuple[Setting, int, int | None, int, int]]:
    """Every run of §6.3, in order: per draw, per budget, per head count, per seed; then the dense control."""
    _check_ranks(cfg.budgets, cfg.heads)
    for H in cfg.heads:
        if cfg.value_width % H:
            raise ValueError(f"--value-width {cfg.value_width} cannot be split equally among {H} heads")
    plan = []
    for d in cfg.draws:
        for R in cfg.budgets:
            for H in cfg.heads:
                plan += [(cfg.setting, d, R, H, seed) for seed in cfg.seeds]
        if cfg.dense:
            plan += [(cfg.setting, d, None, 1, seed) for seed in cfg.seeds]
    return plan


def build_splits(pairs: list[tuple[Setting, int]], split_cfg: SplitConfig) -> dict[tuple[str, int], Split]:
    """Every split the plan needs, built before any training (a :class:`SplitError` stops the command first)."""
    return {(s.key, d): build_split(s, split_cfg, d) for s, d in dict.fromkeys(pairs)}


def split_texts(splits: dict[tuple[str, int], Split]) -> dict[tuple[str, int], str]:
    """Each split's file text; :class:`SplitError` if the split checker could not read it (before anything is written).

    The checker reads at most ``certify.check.MAX_FILE_BYTES`` (64 MiB) with a parse estimate of
    at most ``MAX_PARSE_MEMORY``: a larger split is refused here, not after training.
    """
    import json

    from ..check import MAX_FILE_BYTES, MAX_PARSE_MEMORY, parse_memory_estimate
    from .tasks import SplitError

    out = {}
    for k, sp in splits.items():
        text = json.dumps(split_to_json(sp), separators=(",", ":")) + "\n"
        data = text.encode("utf-8")
        if len(data) > MAX_FILE_BYTES or parse_memory_estimate(data) > MAX_PARSE_MEMORY:
            raise SplitError(f"{sp.setting.label}, draw {sp.draw}: the split file would be {len(data) / 2**20:,.0f} MiB "
                             f"(about {parse_memory_estimate(data) / 2**20:,.0f} MiB to parse); check-split reads at "
                             f"most {MAX_FILE_BYTES // 2**20} MiB and {MAX_PARSE_MEMORY // 2**20} MiB: fewer sequences")
        out[k] = text
    return out


def write_splits(splits: dict[tuple[str, int], Split], out_dir: str,
                 texts: dict[tuple[str, int], str] | None = None) -> dict[tuple[str, int], str]:
    """Write each split as ``<out>/<setting>/draw<d>/split.json``; return the paths."""
    texts = texts if texts is not None else split_texts(splits)
    paths = {}
    for (key, d), sp in splits.items():
        folder = os.path.join(out_dir, key, f"draw{d}")
        os.makedirs(folder, exist_ok=True)
        path = os.path.join(folder, "split.json")
        write_atomic(path, texts[(key, d)])
        paths[(key, d)] = path
    return paths


def _targets(split: Split, seqs: list[tuple[int, ...]]) -> list[list[int]]:
    out = []
    for seq in seqs:
        row = [0] * len(seq)
        for X in split.inputs(seq):
            row[X.query] = X.target
        out.append(row)
    return out


def exact_scores(table: KernelTable, split: Split, part: str) -> tuple[dict[str, Any], list[bool], list[Fraction]]:
    """Exact-sequence accuracy of a table on a part: (figures, per-sequence verdicts, per-sequence max errors)."""
    seqs = getattr(split, part)
    inputs = [X for seq in seqs for X in split.inputs(seq)]
    preds = exact_predictions(table, inputs, split.setting.m)
    q = split.setting.q
    verdicts, worst = [], []
    for i in range(len(seqs)):
        errs = [abs(p - X.target) for p, X in zip(preds[i * q:(i + 1) * q], inputs[i * q:(i + 1) * q])]
        worst.append(max(errs))
        verdicts.append(all(e < Fraction(1, 2) for e in errs))
    correct = sum(verdicts)
    return ({"correct": correct, "total": len(seqs), "accuracy": Fraction(correct, len(seqs)),
             "max_error": max(worst)}, verdicts, worst)


def execute(plan, splits: dict[tuple[str, int], Split], train_spec: Callable[[int | None, int, int], Any],
            out_dir: str, on_run: Callable[[Run, int, int], None] | None = None) -> list[Run]:
    """Train, export, read back and score every run of ``plan`` (exact on train and test; float on all three parts)."""
    from .models import train_model

    runs = []
    for k, (setting, d, rank, H, seed) in enumerate(plan):
        split = splits[(setting.key, d)]
        tokens = split.tokens
        parts = {p: (getattr(split, p), _targets(split, getattr(split, p))) for p in ("train", "val", "test")}
        run = Run(setting, d, rank, H, seed)
        t0 = time.perf_counter()
        spec = train_spec(rank, H, seed)
        res = train_model(spec, tokens, setting.m, parts)
        folder = os.path.join(out_dir, setting.key, f"draw{d}")
        os.makedirs(folder, exist_ok=True)
        run.step = res["step"]
        for p in ("train", "val", "test"):
            run.float_accuracy[p] = res["float"][p]["accuracy"]
            run.float_loss[p] = res["float"][p]["loss"]
        path = os.path.join(folder, f"{run.name}.npz")
        run.diverged = first_nonfinite(res["arrays"])
        if run.diverged is None:
            run.table = path
            _score(run, res, split, tokens)
        else:  # a result, not a bug: no table (the reader refuses non-finite entries), nothing correct
            if os.path.exists(path):
                os.remove(path)  # an earlier run's table under this name would not be this run's
            run.exact = {p: {"correct": 0, "total": len(getattr(split, p)), "accuracy": Fraction(0), "max_error": None}
                         for p in ("test", "train")}
            if split.strict:
                run.listed_halves = {half: {"correct": 0, "total": n} for half, n in _halves(split.listed).items()}
        run.seconds = time.perf_counter() - t0
        runs.append(run)
        if on_run is not None:
            on_run(run, k + 1, len(plan))
    return runs


def _score(run: Run, res: dict[str, Any], split: Split, tokens: list[int]) -> None:
    """Export the run's table, read it back once and score both parts from the file, exactly; note float disagreements."""
    arrays = {"tokens": _token_strings(tokens, split.setting.m), **res["arrays"]}
    write_atomic(run.table, npz_bytes(arrays, compress=True))
    table = load_table(run.table)  # read back once: both parts are scored from the same file
    for p in ("test", "train"):
        figures, verdicts, _ = exact_scores(table, split, p)
        run.exact[p] = figures
        pred = res["float"][p]["predictions"]
        for i, (seq, ok) in enumerate(zip(getattr(split, p), verdicts)):
            fl = all(abs(pred[i][X.query] - X.target) < 0.5 for X in split.inputs(seq))
            if fl != ok:
                run.disagreements.append({"part": p, "sequence": i, "float_correct": fl, "exact_correct": ok})
    if split.strict:
        _score_listed_halves(run, table, split)


def _halves(listed: Split) -> dict[str, int]:
    """The listed test set's sizes with and without an all-training origin."""
    n = sum(listed.training_origin(o) is not None for o in listed.test_origin)
    return {"with_training_origin": n, "without_training_origin": len(listed.test) - n}


def _score_listed_halves(run: Run, table: KernelTable, split: Split) -> None:
    """A strict split's run, scored on the listed split's test set of the same draw, in its two halves (exactly)."""
    listed = split.listed
    _, verdicts, _ = exact_scores(table, listed, "test")
    halves = {"with_training_origin": {"correct": 0, "total": 0}, "without_training_origin": {"correct": 0, "total": 0}}
    for ok, origin in zip(verdicts, listed.test_origin):
        half = halves["with_training_origin" if listed.training_origin(origin) is not None else "without_training_origin"]
        half["total"] += 1
        half["correct"] += ok
    run.listed_halves = halves


def _token_strings(tokens: list[int], m: int):
    import numpy as np

    return np.array([format(z, f"0{m}b")[::-1] for z in tokens])


# --------------------------------------------------------------------------- summaries


def _group(runs: list[Run], key) -> dict[Any, list[Run]]:
    out: dict[Any, list[Run]] = {}
    for r in runs:
        out.setdefault(key(r), []).append(r)
    return out


def _stat(values: list[Fraction]) -> dict[str, Any]:
    mean, half = t_interval(values)
    return {"mean": {"exact": format_rational(mean), "decimal": f"{float(mean):.4f}"},
            "ci95_half_width": None if math.isnan(half) else round(half, 4), "values": [f"{float(v):.4f}" for v in values]}


def capacity_summary(cfg: CapacityConfig, runs: list[Run]) -> dict[str, Any]:
    """Per setting: each rank's test accuracy (mean, 95% t-interval), dense's, and the claims of §6.2."""
    out = {"settings": [], "claims": {}}
    smallest = []
    dense_all = True
    for s in cfg.settings:
        rs = [r for r in runs if r.setting == s]
        rows = []
        first90 = None
        for rank, group in _group([r for r in rs if not r.dense], lambda r: r.rank).items():
            accs = [r.accuracy() for r in group]
            st = _stat(accs)
            st.update(rank=rank, train=_stat([r.accuracy("train") for r in group]))
            rows.append(st)
            if first90 is None and sum(accs, Fraction(0)) / len(accs) >= Fraction(9, 10):
                first90 = rank
        dense = [r for r in rs if r.dense]
        dense_row = None
        if dense:
            dense_row = _stat([r.accuracy() for r in dense])
            dense_row["train"] = _stat([r.accuracy("train") for r in dense])
            dense_row["every_seed_at_least_90"] = all(r.accuracy() >= Fraction(9, 10) for r in dense)
            dense_all = dense_all and dense_row["every_seed_at_least_90"]
        smallest.append(first90)
        out["settings"].append({"setting": s.to_json(), "ranks": rows, "dense": dense_row,
                                "smallest_rank_mean_accuracy_at_least_90": first90})
    out["claims"] = {
        "smallest_rank_90": {"paper": [8, 16, 64], "measured": smallest},
        "dense_succeeds_every_seed": {"paper": True, "measured": dense_all if cfg.dense else None},
    }
    out["diverged_runs"] = sum(r.diverged is not None for r in runs)
    return out


def heads_summary(cfg: HeadsConfig, runs: list[Run]) -> dict[str, Any]:
    """Per draw and budget: each H's test error (1 − exact accuracy), train error, the paired H=2 − H=1 interval; the claims of §6.3."""
    out: dict[str, Any] = {"draws": [], "claims": {}}
    claims: dict[str, Any] = {}
    for d in cfg.draws:
        rs = [r for r in runs if r.draw == d]
        rows = []
        for R in cfg.budgets:
            row: dict[str, Any] = {"budget": R}
            by_h = {}
            for H in cfg.heads:
                group = sorted((r for r in rs if not r.dense and r.rank == R and r.heads == H), key=lambda r: r.seed)
                errs = [1 - r.accuracy() for r in group]
                by_h[H] = errs
                row[f"H{H}"] = dict(_stat(errs), train=_stat([1 - r.accuracy("train") for r in group]))
            if 1 in by_h and 2 in by_h:
                diff = [a - b for a, b in zip(by_h[2], by_h[1])]
                mean, half = t_interval(diff)
                row["H2_minus_H1"] = {"mean": f"{float(mean):.4f}", "ci95_half_width": None if math.isnan(half) else round(half, 4),
                                      "includes_zero": bool(math.isnan(half) or abs(float(mean)) <= half)}
            rows.append(row)
        dense = [r for r in rs if r.dense]
        drow = dict(_stat([1 - r.accuracy() for r in dense]), train=_stat([1 - r.accuracy("train") for r in dense])) if dense else None
        out["draws"].append({"draw": d, "budgets": rows, "dense": drow})

        def mean_err(row, H):
            return Fraction(row[f"H{H}"]["mean"]["exact"])

        if set(cfg.heads) >= {1, 2, 4}:
            lowest = [row["budget"] for row in rows if mean_err(row, 1) <= min(mean_err(row, 2), mean_err(row, 4))]
            signs = [(mean_err(row, 2) > mean_err(row, 4)) - (mean_err(row, 2) < mean_err(row, 4)) for row in rows]
            nz = [x for x in signs if x]
            overall = {H: sum((mean_err(row, H) for row in rows), Fraction(0)) / len(rows) for H in (1, 2, 4)}
            claims[f"draw{d}"] = {
                "one_head_lowest_at_budgets": lowest,
                "mean_error_over_budgets": {f"H{H}": f"{float(v):.4f}" for H, v in overall.items()},
                "one_head_lowest_overall": overall[1] <= min(overall[2], overall[4]),
                "two_and_four_head_curves_cross": any(a != b for a, b in zip(nz, nz[1:])),
                "all_paired_H2_H1_intervals_include_zero": all(row["H2_minus_H1"]["includes_zero"] for row in rows),
                "largest_budget": {f"H{H}": {"train_error": rows[-1][f"H{H}"]["train"]["mean"]["decimal"],
                                             "test_error": rows[-1][f"H{H}"]["mean"]["decimal"]} for H in cfg.heads},
            }
    out["claims"] = claims
    out["diverged_runs"] = sum(r.diverged is not None for r in runs)
    return out


#: The largest float64 tensor a run holds while scoring a part: sequences × n × rank entries (≈ 400 MB).
MAX_SCORE_ENTRIES = 5 * 10**7


def check_sizes(splits: dict[tuple[str, int], Split], rank: int, value_dim: int) -> None:
    """Refuse (``ValueError``, exit 2) before training a run whose float scoring or exact evaluation is too large.

    Float: ``sequences × n × max(R, d_v, m + 1)`` per part (:data:`MAX_SCORE_ENTRIES`). Exact: the
    kernel-table limits (``KernelTable.check_work``: converted entries and ``Q·T·r`` products).
    """
    from ..kernels.table import MAX_EXACT_ENTRIES, MAX_PRODUCT_WORK

    for sp in splits.values():
        s = sp.setting
        width = max(rank, value_dim, s.m + 1)
        big = max(len(sp.train), len(sp.val), len(sp.test))
        if big * s.n * width > MAX_SCORE_ENTRIES:
            raise ValueError(f"{s.label}: scoring {big:,} sequences × {s.n} tokens × width {width} is "
                             f"{big * s.n * width:,} float entries; at most {MAX_SCORE_ENTRIES:,} (fewer sequences or a "
                             "lower rank)")
        toks = sp.tokens
        Q = sum(1 for z in toks if is_query_token(z))
        T = len(toks)
        width = max(rank, s.m + 1) if rank else T  # dense: an N × N kernel
        entries = (Q + T) * width + Q + (Q + T) * value_dim
        if entries > MAX_EXACT_ENTRIES or Q * T * width > MAX_PRODUCT_WORK:
            raise ValueError(f"{s.label}: the exact evaluation of rank {rank} on {Q:,} query tokens × {T:,} tokens "
                             f"needs {entries:,} exact entries and {Q * T * width:,} products; at most "
                             f"{MAX_EXACT_ENTRIES:,} and {MAX_PRODUCT_WORK:,} (docs/kernel-table-format.md, limits)")
