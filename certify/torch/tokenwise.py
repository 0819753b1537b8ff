"""Is the table the module? :func:`verify_tokenwise` (``certify.torch``; docs/torch.md).

The model class (docs/math.md §2) needs every map to see only its own token. A library
applies its feature map to a whole sequence; this runs the map on the family's real
sequences and on each token alone and reports how far apart they are, judged at the
precision of the module's output dtype. Three outcomes:

* **tokenwise**: the outputs differ by float rounding only;
* **a positive scale per sequence**: each sequence's outputs are ``c > 0`` times the
  tokens' own, one ``c`` per sequence and head (a key stabilizer, measured against the map
  without it: ``reference=``). Scaling every ``α`` of a sequence by one factor leaves
  ``Σ_j α v / Σ_j α`` unchanged, so this is harmless for a
  feature map (``role="features"``) of normalized attention without a denominator constant;
  on values or a readout, or with ``δ > 0`` (``c·Σ α + δ ≠ c·(Σ α + δ)``), it is not;
* **a stabilizer**: a factor per sequence and head times a factor ``a(z)`` per token — what
  a key stabilizer (a maximum over the sequence subtracted in the exponent) gives against the
  same map on each token alone, which subtracts the token's own maximum. The module is then
  the map ``a(z)·φ(z)`` up to a factor per sequence, not the table of ``φ`` on single
  tokens; the report says to give the map without the stabilizer as ``reference=`` (and to
  check that map), against which the factor is one per sequence and head;
* **not tokenwise**: the exact verdict is about the tokenwise table, not the module;
  ``certify.torch.compare`` measures how far the module's layer is from it.

The figures are floats (a diagnosis of a float module, not a proof); the exact check
(``certify.torch.check``) is what proves.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Callable

import numpy as np

from .tensors import (MAX_TENSOR_INPUTS, KeyEps, call_on_tokens, declared_heads, delta_float, family_tensors,
                      import_torch, positive_ints)

#: Relative tolerance by the module's output dtype: the same map on two batch shapes differs by
#: a few units in the last place (matrix products are blocked differently); a sequence-dependent
#: map differs by far more.
TOKENWISE_RTOL = {"float64": 1e-12, "float32": 1e-5, "float16": 4e-3, "bfloat16": 3e-2}

#: What to do when a map is not tokenwise (the text of :class:`TokenwiseReport`).
NEXT_STEP = ("the exact verdict covers the tokenwise table (each token's features computed alone), not the module; "
             "measure the module's own layer against it with certify.torch.compare(layer, …), or make the map "
             "tokenwise (drop the part that sees the sequence: a stabilizer over positions, rotary or other "
             "positional terms, a softmax over the sequence)")


def dtype_name(dtype: Any) -> str:
    """``"float32"`` for ``torch.float32`` or ``numpy.float32``."""
    return str(dtype).replace("torch.", "")


@dataclass
class TokenwiseReport:
    """How far a module is from tokenwise on a family (:func:`verify_tokenwise`).

    Differences are judged column by column: an output column is compared with the largest
    ``|output|`` that column has on the tokens alone (a large column cannot hide a change in
    a small one). ``max_relative`` is the largest such ratio, at ``input_index``,
    ``position``; ``max_difference`` the difference there.
    """

    max_difference: float
    input_index: int | None
    position: int | None
    inputs_checked: int
    inputs: int
    scale: float  # the largest |output| of a token alone, over all columns
    rtol: float
    dtype: str = "float64"
    scale_residual: float = 0.0  # relative, after dividing each sequence by its best factor c
    scale_range: tuple[float, float] | None = None  # the factors c over the sequences (None: some c ≤ 0 or none fitted)
    max_relative: float = 0.0
    role: str = "features"  # what the module is in the head: "features" (φ_Q or φ_K), "values" or "readout"
    delta: float = 0.0  # the head's denominator constant: with δ > 0 a per-sequence factor is not harmless
    heads: tuple[int, ...] = ()  # the column widths of the heads, each with its own factor per sequence
    reference: bool = False  # the tokens alone were run through reference=, not the module
    stabilizer_residual: float = float("inf")  # relative, after a factor per sequence and head and one per token
    token_range: tuple[float, float] | None = None  # the per-token factors a(z) (their largest is 1)

    @property
    def tokenwise(self) -> bool:
        """True when every output in a sequence equals the token's output alone, up to ``rtol`` of its column."""
        return self.max_relative <= self.rtol

    @property
    def per_sequence_scale(self) -> bool:
        """Not tokenwise, but each sequence's outputs are one positive factor times the tokens' own."""
        return (not self.tokenwise and self.scale_range is not None and self.scale_range[0] > 0
                and self.scale_residual <= self.rtol)

    @property
    def stabilizer(self) -> bool:
        """Neither of the above, but a factor per sequence and head times a factor per token (a key stabilizer)."""
        return (not self.tokenwise and not self.per_sequence_scale and self.token_range is not None
                and self.stabilizer_residual <= self.rtol)

    @property
    def verdict(self) -> str:
        """``"tokenwise"``, ``"per-sequence scale"``, ``"stabilizer"`` or ``"not tokenwise"``."""
        return ("tokenwise" if self.tokenwise else "per-sequence scale" if self.per_sequence_scale
                else "stabilizer" if self.stabilizer else "not tokenwise")

    @property
    def harmless(self) -> bool:
        """The exact verdict on the table is a verdict on the module.

        Tokenwise; or a per-sequence factor on a feature map (``role="features"``) of a head
        without a denominator constant — a factor on values or a readout, or with ``δ > 0``,
        changes the output.
        """
        return self.tokenwise or (self.per_sequence_scale and self.role == "features" and self.delta == 0)

    def text(self) -> str:
        part = "" if self.inputs_checked == self.inputs else f" (the first {self.inputs_checked:,} of {self.inputs:,})"
        tol = f"{self.dtype} rounding: ≤ {self.rtol:.0e} of each column"
        against = "the reference map on each token alone" if self.reference else "its tokens alone"
        per = " per head" if len(self.heads) > 1 else ""
        if self.tokenwise:
            return (f"tokenwise on {self.inputs_checked:,} inputs{part}: largest difference {self.max_difference:.3g} "
                    f"({self.max_relative:.2g} of its column, {tol}) against {against}; the verdict on the table is a "
                    "verdict on the module")
        if self.per_sequence_scale:
            lo, hi = self.scale_range
            size = (f"factors {lo:.3g} to {hi:.3g} over {self.inputs_checked:,} inputs{part} and "
                    f"{len(self.heads)} head(s), against {against}; after them within {tol}")
            if self.harmless:
                return (f"harmless: a per-sequence factor{per} ({size}). Normalized attention's Σ_j α v / Σ_j α does "
                        "not change when a sequence's α are scaled by one factor, so the verdict on the table is a "
                        "verdict on the module (δ = 0)")
            why = ("with δ > 0 the factor changes Σ_j α v / (Σ_j α + δ)" if self.role == "features"
                   else f"a factor on the {self.role} changes the prediction")
            return f"a per-sequence factor{per} ({size}): NOT harmless, {why}; {NEXT_STEP}"
        if self.stabilizer:
            lo, hi = self.token_range
            return (f"a stabilizer: a factor per sequence{' and head' if len(self.heads) > 1 else ''} times a factor "
                    f"a(z) per token ({lo:.3g} to {hi:.3g}; after them within {tol}) on {self.inputs_checked:,} "
                    f"inputs{part}. The module is the map a(z)·φ(z) up to a factor "
                    "per sequence, but its table on single tokens is φ (each token alone is rescaled by its own "
                    "stabilizer), a different head: NOT a verdict on the module as it is. Give the map without its "
                    "stabilizer as reference=… (and check that map); against it the factor is one per sequence")
        return (f"NOT tokenwise: outputs differ by up to {self.max_difference:.3g} ({self.max_relative:.2g} of the "
                f"column, {tol}; family.inputs[{self.input_index}], position {self.position}) against {against}"
                f"{part}; {NEXT_STEP}")

    def to_json(self) -> dict[str, Any]:
        finite = lambda v: v if np.isfinite(v) else None  # noqa: E731
        return {"verdict": self.verdict, "harmless": self.harmless, "max_difference": self.max_difference,
                "max_relative": self.max_relative, "input_index": self.input_index, "position": self.position,
                "inputs_checked": self.inputs_checked, "inputs": self.inputs, "scale": self.scale, "rtol": self.rtol,
                "dtype": self.dtype, "role": self.role, "delta": self.delta,
                "scale_residual": finite(self.scale_residual),
                "scale_range": None if self.scale_range is None else list(self.scale_range),
                "heads": list(self.heads), "reference": self.reference,
                "stabilizer_residual": finite(self.stabilizer_residual),
                "token_range": None if self.token_range is None else list(self.token_range)}


ROLES = ("features", "values", "readout")


def _outputs(out: Any, name: str, rows: int, length: int, width: int | None) -> np.ndarray:
    """A module's output on ``rows`` sequences of ``length`` tokens as a finite float64 ``(rows, length, width)`` array."""
    torch = import_torch()
    a = out.detach().cpu().to(torch.float64).numpy() if isinstance(out, torch.Tensor) else np.asarray(out, dtype=np.float64)
    want = (rows, length, width if width is not None else (a.shape[2] if a.ndim == 3 else "r"))
    if a.ndim != 3 or a.shape[:2] != (rows, length) or (width is not None and a.shape[2] != width):
        raise ValueError(f"{name}: expected an output of shape {want} (sequences × positions × features), "
                         f"got {tuple(a.shape)}")
    if not np.isfinite(a).all():
        k = tuple(int(i) for i in np.argwhere(~np.isfinite(a))[0])
        raise ValueError(f"{name}: output {float(a[k])} at sequence {k[0]}, position {k[1]}, column {k[2]}; "
                         "every output must be finite")
    return a


def _head_cuts(heads: Any, module: Any, width: int) -> list[tuple[int, int]]:
    """``[(start, end), …]`` of each head's columns: ``heads`` an int (equal parts) or widths; default a Layout's heads."""
    own = declared_heads(module)
    if heads is None:
        heads = own
    count = heads if isinstance(heads, (int, np.integer)) else len(heads) if hasattr(heads, "__len__") else None
    if getattr(module, "declares_heads", False) and count is not None and count > own:
        raise ValueError(f"heads = {heads!r}: the Layout has {own} head(s); a factor per sequence is fitted "
                         "per head, so more heads than it has could call a factor per column harmless")
    if isinstance(heads, (bool, np.bool_)):
        raise ValueError(f"heads = {heads!r}: an integer ≥ 1 or a list of widths")
    if isinstance(heads, (int, np.integer)):
        if heads < 1 or width % heads:
            raise ValueError(f"heads = {heads}: the module's {width} output columns do not split into {heads} equal heads")
        widths = [width // int(heads)] * int(heads)
    else:
        widths = list(heads) if hasattr(heads, "__iter__") and not isinstance(heads, (str, bytes)) else [None]
        if not widths or any(isinstance(v, (bool, np.bool_)) or not isinstance(v, (int, np.integer)) or v < 1
                             for v in widths) or sum(widths) != width:
            raise ValueError(f"heads = {heads!r}: widths ≥ 1 summing to the module's {width} output columns")
    edges = np.cumsum([0] + [int(v) for v in widths])
    return [(int(a), int(b)) for a, b in zip(edges[:-1], edges[1:])]


def verify_tokenwise(module: Callable, family: Any = "rank-nine", *, max_inputs: int = 100_000,
                     batch: int = 4096, rtol: float | None = None, dtype: Any = None, device: Any = None,
                     role: str = "features", delta: Any = 0, heads: Any = None,
                     reference: Callable | None = None) -> TokenwiseReport:
    """Run ``module`` on the family's real sequences and on each token alone; report the largest difference.

    ``module`` maps a batch of sequences ``(B, L, m)`` to per-position outputs ``(B, L, r)``
    — as a library's feature map is applied to a sequence (``certify.torch.Layout`` adapts
    the libraries' ``(B, H, L, d)`` and ``(B, L, H, d)`` layouts). Tokens alone are the
    sequences ``(N, 1, m)``, run through ``reference`` when given (the tokenwise map the
    table is built from, e.g. the map without its stabilizer), else through ``module``.
    A module gets them on its own device and in its own dtype; a
    plain function gets float64 on the CPU, or ``dtype`` on ``device`` when given.
    The first ``max_inputs`` inputs are compared, ``batch`` at a time; ``rtol`` (default:
    by the output dtype, :data:`TOKENWISE_RTOL`) is relative to the largest output of each
    column. ``heads``: the output's heads, each with its own factor per sequence (an int for
    equal widths, or the widths; default a ``Layout`` 's ``heads``, else one). ``role``
    (``"features"``, ``"values"``, ``"readout"``) and ``delta`` say what
    the module is in the head, which decides whether a per-sequence factor is harmless. See
    the module docstring for the verdicts. A non-finite output or a wrong shape raises
    ``ValueError`` naming it.
    """
    torch = import_torch()
    if role not in ROLES:
        raise ValueError(f"role {role!r}: one of {', '.join(ROLES)}")
    positive_ints(max_inputs=max_inputs, batch=batch)
    tol = None if rtol is None else float(rtol)
    if tol is not None and not (np.isfinite(tol) and tol >= 0):
        raise ValueError(f"rtol = {rtol!r}: a finite number ≥ 0")
    d = delta.eps if isinstance(delta, KeyEps) else delta_float(delta)
    ft = family_tensors(family)
    if ft.inputs is None:
        raise ValueError(f"{ft.family.source}: more than {MAX_TENSOR_INPUTS:,} inputs; give a smaller family")
    X = ft.tokens
    fit = _Factors()
    with torch.no_grad():
        own = reference if reference is not None else module
        raw = call_on_tokens(own, X[:, None, :], dtype, device, "reference" if reference is not None else "module")
        out_dtype = dtype_name(raw.dtype) if hasattr(raw, "dtype") else "float64"
        alone = _outputs(raw, "reference (tokens alone)" if reference is not None else "module (tokens alone)",
                         X.shape[0], 1, None)[:, 0, :]
        width = alone.shape[1]
        cuts = _head_cuts(heads, module, width)
        colscale = np.abs(alone).max(axis=0)
        overall = float(colscale.max()) if colscale.size else 0.0
        colscale = np.where(colscale > 0, colscale, overall if overall > 0 else 1.0)  # an all-zero column: the largest
        worst = _Worst()
        total = min(ft.inputs.shape[0], max_inputs)
        for start in range(0, total, batch):
            idx = ft.inputs[start:min(start + batch, total)]
            lengths = (idx >= 0).sum(1)
            for L in sorted(set(int(v) for v in lengths)):  # one call per length: no padding enters a sequence
                rows = torch.nonzero(lengths == L)[:, 0]
                raw = call_on_tokens(module, X[idx[rows, :L]], dtype, device, "module")
                if reference is not None and hasattr(raw, "dtype"):
                    out_dtype = dtype_name(raw.dtype)
                got = _outputs(raw, "module (sequences)", len(rows), L, width)
                tok = idx[rows, :L].numpy()
                want = alone[tok]
                worst.add(np.abs(got - want) / colscale, np.abs(got - want), rows, start)
                fit.add(got, want, tok, colscale, cuts)
    tol = TOKENWISE_RTOL.get(out_dtype, 1e-12) if tol is None else tol
    seq = fit.per_sequence()
    stab = fit.stabilizer(X.shape[0]) if seq[0] > tol else (float("inf"), None)
    return TokenwiseReport(worst.absolute, worst.where[0], worst.where[1], total, ft.inputs.shape[0], overall, tol,
                           out_dtype, seq[0], seq[1], worst.value, role, d, tuple(b - a for a, b in cuts),
                           reference is not None, stab[0], stab[1])


class _Factors:
    """The fits of the outputs to the tokens' own: one factor per sequence and head, or that times one per token."""

    def __init__(self) -> None:
        self.seq_resid, self.c_lo, self.c_hi, self.positive = 0.0, np.inf, -np.inf, True
        self.rho: list[np.ndarray] = []  # (rows, L, H): each position's own factor per head
        self.pos_resid, self.tokens = 0.0, []

    def add(self, got: np.ndarray, want: np.ndarray, tok: np.ndarray, colscale: np.ndarray, cuts: list) -> None:
        rho = np.zeros(got.shape[:2] + (len(cuts),))
        for h, (a, b) in enumerate(cuts):
            g, w, sc = got[:, :, a:b], want[:, :, a:b], colscale[a:b]
            norm = (w * w).sum(axis=(1, 2))
            c = np.where(norm > 0, (g * w).sum(axis=(1, 2)) / np.where(norm > 0, norm, 1.0), 1.0)
            if (c <= 0).any():
                self.positive = False
            else:
                self.c_lo, self.c_hi = min(self.c_lo, float(c.min())), max(self.c_hi, float(c.max()))
                resid = (np.abs(g - c[:, None, None] * w) / sc).max(axis=(1, 2)) / c
                self.seq_resid = max(self.seq_resid, float(resid.max()))
            pn = (w * w).sum(axis=2)
            r = np.where(pn > 0, (g * w).sum(axis=2) / np.where(pn > 0, pn, 1.0), 1.0)
            rho[:, :, h] = r
            if (r > 0).all():
                self.pos_resid = max(self.pos_resid, float(((np.abs(g - r[:, :, None] * w) / sc).max(axis=2) / r).max()))
        self.rho.append(rho)
        self.tokens.append(tok)

    def per_sequence(self) -> tuple[float, tuple[float, float] | None]:
        if not self.positive or self.c_lo > self.c_hi:
            return float("inf"), None
        return self.seq_resid, (self.c_lo, self.c_hi)

    def stabilizer(self, n_tokens: int) -> tuple[float, tuple[float, float] | None]:
        """Solve ``log ρ = log c(sequence, head) + log a(token, head)`` along the sequences; the residual bound and a's range.

        The factors are propagated exactly, sequence by sequence (breadth first over the
        graph of sequences and their tokens); the residual is each position's own fit plus
        ``|ρ / (c·a) − 1|`` at every position, a bound on the relative difference after both factors.
        """
        if not self.rho:
            return float("inf"), None
        tokens = [t for block in self.tokens for t in block]
        seqs_of: dict[int, list[int]] = {}
        for i, t in enumerate(tokens):
            for z in t.tolist():
                seqs_of.setdefault(z, []).append(i)
        worst, lo, hi = self.pos_resid, np.inf, -np.inf
        for h in range(self.rho[0].shape[2]):
            rho = [r for block in self.rho for r in block[:, :, h]]
            if any((r <= 0).any() for r in rho):
                return float("inf"), None
            logs = [np.log(r) for r in rho]
            la, lc = np.full(n_tokens, np.nan), np.full(len(tokens), np.nan)
            for first in range(len(tokens)):
                if not np.isnan(lc[first]):
                    continue
                z0 = int(tokens[first][0])
                if np.isnan(la[z0]):
                    la[z0] = 0.0
                queue = [first]
                while queue:
                    i = queue.pop()
                    if not np.isnan(lc[i]):
                        continue
                    t = tokens[i]
                    j = int(np.flatnonzero(~np.isnan(la[t]))[0])
                    lc[i] = logs[i][j] - la[t[j]]
                    for k, z in enumerate(t.tolist()):
                        if np.isnan(la[z]):
                            la[z] = logs[i][k] - lc[i]
                            queue.extend(s for s in seqs_of[z] if np.isnan(lc[s]))
            used = la[~np.isnan(la)]
            for i, t in enumerate(tokens):
                worst = max(worst, float(np.abs(np.expm1(logs[i] - lc[i] - la[t])).max()))
            top = used.max()
            lo, hi = min(lo, float(np.exp(used.min() - top))), max(hi, 1.0)
        return worst, (lo, hi)


class _Worst:
    """The largest relative difference so far, where it was, and the absolute difference there."""

    def __init__(self) -> None:
        self.value, self.absolute, self.where = 0.0, 0.0, (None, None)

    def add(self, rel: np.ndarray, diff: np.ndarray, rows: Any, start: int) -> None:
        per = rel.max(axis=2)
        k = np.unravel_index(int(np.argmax(per)), per.shape)
        if per[k] > self.value:
            col = int(np.argmax(rel[k[0], k[1]]))
            self.value, self.absolute = float(per[k]), float(diff[k[0], k[1], col])
            self.where = (start + int(rows[k[0]]), int(k[1]))
