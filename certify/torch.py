"""Check PyTorch heads exactly: feature maps in, the exact verdict of ``certify check-kernel`` out.

The glue between a model written in PyTorch and the exact check (docs/torch.md; the model
class is docs/math.md §2, the paper's §2.2). A head is given as callables — functions or
``torch.nn.Module`` s — on a tensor of 0/1 tokens of shape ``(N, m)``:

* ``phi_q``, ``phi_k``: the query and key feature maps, ``(N, m) → (N, r)``;
* ``values``: the tokenwise values, ``(N, m) → (N, d_v)`` (optional);
* ``readout``: the query-dependent affine readout, ``(N, m) → (β, w)`` with ``β`` of
  shape ``(N,)`` and ``w`` of shape ``(N, d_v)``, or one ``(N, 1 + d_v)`` tensor whose
  column 0 is ``β`` (optional, with ``values``);
* ``delta``: the denominator constant a library adds (``Σ_j α + δ``; docs/math.md §2).

:func:`check` evaluates them **once**, on the family's tokens, in float64 (bfloat16 and
float16 outputs are cast up, which is exact), builds the kernel table in memory and hands
it to :func:`certify.kernels.audit.check_kernel`: every number after the evaluation is
exact, and the verdict is about the table of these float64 values. :func:`export` writes
the same table as an ``.npz`` file (docs/kernel-table-format.md). Whether the table *is*
the module — whether the module is tokenwise — is a separate question, answered by
:func:`verify_tokenwise`. :func:`fit` trains such a head on a family (full batch, Adam,
mean squared error), for experiments and the worked examples.

PyTorch is the optional extra ``train``; nothing else in ``certify`` imports this module.

Families (``family=``): a :class:`~certify.kernels.audit.FamilySpec`, a built-in name
(``"rank-nine"``, ``"hadamard24"``, ``"golay24"``), or the path of a certificate (any
kind and version, compact included) or a family file.
"""
from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any, Callable

import numpy as np

from .kernels.audit import FamilySpec, KernelReport, check_kernel, load_family
from .kernels.table import KernelTable, npz_bytes, table_from_arrays

__all__ = ["FamilyTensors", "TokenwiseReport", "family_tensors", "family_tokens", "evaluate", "check", "export",
           "verify_tokenwise", "fit", "MAX_TENSOR_INPUTS"]

#: A compact certificate's family is listed only up to this many inputs (the in-memory limit of
#: ``certify.certificates.compact``); beyond it, e.g. golay24's 13,268,976 inputs, the check generates
#: them query by query and ``family_tensors`` lists only the tokens.
from .certificates.compact import MAX_EXPAND_INPUTS as MAX_TENSOR_INPUTS  # noqa: E402


def _torch():
    from .kernels.training import _torch as need

    return need()


def _family(family: Any) -> FamilySpec:
    if isinstance(family, FamilySpec):
        return family
    if family is None or isinstance(family, str):
        return load_family(family)
    raise TypeError(f"family: expected a FamilySpec, a built-in name or a path, got {type(family).__name__}")


def family_tokens(family: Any) -> tuple[list[int], list[int]]:
    """``(tokens, query tokens)`` of a family as bitmasks, each in order of first use.

    For a streamed (compact) family they come from its plan, query by query, without
    generating its inputs.
    """
    fam = _family(family)
    if fam.streamed:
        from .kernels.families import compact_tokens

        queries = list(dict.fromkeys(fam.compact.code.words))
        return list(dict.fromkeys(queries + compact_tokens(fam.compact)[0])), queries
    tokens: dict[int, None] = {}
    queries: dict[int, None] = {}
    for X in fam.inputs:
        queries.setdefault(X.tokens[X.query])
        tokens.update(dict.fromkeys(X.tokens))
    return list(tokens), list(queries)


@dataclass
class FamilyTensors:
    """A family as tensors (:func:`family_tensors`).

    ``tokens``: ``(N, m)`` float64 0/1, row ``k`` is ``token_bits[k]`` (character ``i`` is
    coordinate ``i``); ``inputs``: ``(B, L)`` int64 indices into ``tokens`` (``-1`` pads
    inputs shorter than ``L``); ``mask``: ``(B, L)`` float64, 1 on real positions;
    ``query_position``: ``(B,)`` int64; ``query``: ``(B,)`` int64 index of each input's
    query token; ``targets``: ``(B,)`` float64 (the Min-IP targets, integers). ``inputs``
    and the rest are ``None`` for a family of more than :data:`MAX_TENSOR_INPUTS` inputs.
    """

    family: FamilySpec
    token_bits: list[str]
    tokens: Any
    inputs: Any
    mask: Any
    query_position: Any
    query: Any
    targets: Any

    @property
    def certified_bound(self) -> int | None:
        return self.family.certified_bound


def _bits(z: int, m: int) -> str:
    return format(z, f"0{m}b")[::-1]


def _token_tensor(bits: list[str], m: int):
    """The 0/1 strings as an ``(N, m)`` float64 tensor (character ``i`` is column ``i``)."""
    torch = _torch()
    return torch.tensor([[float(c == "1") for c in s] for s in bits], dtype=torch.float64).reshape(len(bits), m)


def family_tensors(family: Any = "rank-nine") -> FamilyTensors:
    """Tokens, inputs, query positions and targets of a family as torch tensors (see :class:`FamilyTensors`)."""
    torch = _torch()
    fam = _family(family)
    tokens, _ = family_tokens(fam)
    m = fam.m
    bits = [_bits(z, m) for z in tokens]
    X = _token_tensor(bits, m)
    if fam.streamed:  # beyond what is listed in memory (certify.certificates.compact.MAX_EXPAND_INPUTS)
        return FamilyTensors(fam, bits, X, None, None, None, None, None)
    inputs = fam.inputs
    pos = {z: k for k, z in enumerate(tokens)}
    L = max(len(x.tokens) for x in inputs)
    idx = np.full((len(inputs), L), -1, dtype=np.int64)
    mask = np.zeros((len(inputs), L), dtype=np.float64)
    for i, x in enumerate(inputs):
        idx[i, : len(x.tokens)] = [pos[z] for z in x.tokens]
        mask[i, : len(x.tokens)] = 1.0
    qpos = np.array([x.query for x in inputs], dtype=np.int64)
    return FamilyTensors(fam, bits, X, torch.from_numpy(idx), torch.from_numpy(mask), torch.from_numpy(qpos),
                         torch.from_numpy(idx[np.arange(len(inputs)), qpos].copy()),
                         torch.tensor([float(x.target) for x in inputs], dtype=torch.float64))


# --------------------------------------------------------------------------- evaluation


def _as_array(value: Any, name: str, rows: int, ndim: int) -> np.ndarray:
    """A callable's output as a float64 numpy array of ``rows`` rows (bfloat16/float16 cast up: exact)."""
    torch = _torch()
    if isinstance(value, torch.Tensor):
        t = value.detach()
        if t.is_complex():
            raise ValueError(f"{name}: complex output")
        if t.dtype in (torch.bfloat16, torch.float16, torch.float32):
            t = t.to(torch.float64)
        a = t.cpu().numpy()
    else:
        a = np.asarray(value)
        if a.dtype.kind == "f" and a.dtype.itemsize < 8:
            a = a.astype(np.float64)
    if a.dtype.kind not in "iuf":
        raise ValueError(f"{name}: expected numbers, got dtype {a.dtype}")
    if ndim == 2 and a.ndim == 1:
        a = a[:, None]
    if a.ndim != ndim or a.shape[0] != rows:
        raise ValueError(f"{name}: expected shape ({rows}{', …' if ndim == 2 else ''}), got {tuple(a.shape)}")
    if a.dtype.kind == "f" and not np.isfinite(a).all():
        k = tuple(int(i) for i in np.argwhere(~np.isfinite(a))[0])
        raise ValueError(f"{name}{list(k)} is {float(a[k])} on token {k[0]}; every output must be finite")
    return a


def evaluate(phi_q: Callable, phi_k: Callable, *, values: Callable | None = None, readout: Callable | None = None,
             tokens: Any) -> dict[str, np.ndarray]:
    """The table's arrays: each callable run once on ``tokens`` (``(N, m)`` float64) under ``torch.no_grad``.

    Modules are put in ``eval`` mode for the call and restored afterwards. Returns
    ``phi_q``, ``phi_k`` and, with a readout, ``beta``, ``w``, ``values`` as numpy arrays.
    """
    torch = _torch()
    if (values is None) != (readout is None):
        raise ValueError("values and readout come together (a head without them is checked as kernel only)")
    N = tokens.shape[0]
    out: dict[str, np.ndarray] = {}
    with torch.no_grad():
        for name, fn in (("phi_q", phi_q), ("phi_k", phi_k), ("values", values)):
            if fn is not None:
                out[name] = _as_array(_call(fn, tokens), name, N, 2)
        if readout is not None:
            r = _call(readout, tokens)
            if isinstance(r, (tuple, list)):
                if len(r) != 2:
                    raise ValueError(f"readout: expected (beta, w), got {len(r)} outputs")
                out["beta"] = _as_array(r[0], "readout beta", N, 1) if np.ndim(r[0]) != 2 else \
                    _as_array(r[0], "readout beta", N, 2)[:, 0]
                out["w"] = _as_array(r[1], "readout w", N, 2)
            else:
                both = _as_array(r, "readout", N, 2)
                out["beta"], out["w"] = both[:, 0].copy(), both[:, 1:].copy()
    if out["phi_q"].shape[1] != out["phi_k"].shape[1]:
        raise ValueError(f"phi_q has width {out['phi_q'].shape[1]}, phi_k {out['phi_k'].shape[1]}")
    if "w" in out and out["w"].shape[1] != out["values"].shape[1]:
        raise ValueError(f"readout w has width {out['w'].shape[1]}, values {out['values'].shape[1]}")
    return out


def _call(fn: Callable, x: Any) -> Any:
    torch = _torch()
    if isinstance(fn, torch.nn.Module):
        was = fn.training
        fn.eval()
        try:
            return fn(x.to(_param_dtype(fn)))
        finally:
            fn.train(was)
    return fn(x)


def _param_dtype(module: Any):
    torch = _torch()
    for p in module.parameters():
        if p.is_floating_point():
            return p.dtype
    return torch.float64


def _table(phi_q, phi_k, values, readout, fam: FamilySpec, delta) -> tuple[KernelTable, dict[str, np.ndarray], list[str]]:
    tokens, _ = family_tokens(fam)
    bits = [_bits(z, fam.m) for z in tokens]
    X = _token_tensor(bits, fam.m)
    arrays = evaluate(phi_q, phi_k, values=values, readout=readout, tokens=X)
    return table_from_arrays(bits, arrays, delta), arrays, bits


def check(phi_q: Callable, phi_k: Callable, *, values: Callable | None = None, readout: Callable | None = None,
          family: Any = "rank-nine", delta: Any = 0, search_readout: bool = False, first_failure: bool = False,
          clip_negative_alpha: Any = None) -> KernelReport:
    """The exact check of a head given as callables (see the module docstring); returns ``check-kernel``'s report.

    ``report.ok`` is the verdict (readout given: it solves the family; kernel only: some
    readout does); ``report.kernel_rank`` the exact rank on the family's query tokens;
    ``report.text()`` the lines ``certify check-kernel`` prints. Bad outputs (wrong shape,
    NaN, negative ``α`` on a used pair) raise ``ValueError`` /
    :class:`~certify.kernels.table.TableFormatError`; a contradiction with the certified
    theorem raises :class:`~certify.kernels.audit.KernelContradiction`.
    """
    from fractions import Fraction

    from .kernels.audit import parse_tolerance

    fam = _family(family)
    table, _, _ = _table(phi_q, phi_k, values, readout, fam, delta)
    if clip_negative_alpha is not None:
        tol = clip_negative_alpha
        table.clip_negative_alpha(Fraction(tol) if not isinstance(tol, str) else parse_tolerance(tol, "clip_negative_alpha"))
    return check_kernel(table, fam, search_readout=search_readout, first_failure=first_failure)


def export(path: str, phi_q: Callable, phi_k: Callable, *, values: Callable | None = None,
           readout: Callable | None = None, family: Any = "rank-nine", delta: Any = 0, note: str = "") -> str:
    """Write the table :func:`check` would check as an ``.npz`` file (docs/kernel-table-format.md); return ``path``.

    The same bytes for the same arrays (members dated 1980-01-01). Check it later with
    ``certify check-kernel PATH --family …``.
    """
    from fractions import Fraction

    fam = _family(family)
    table, arrays, bits = _table(phi_q, phi_k, values, readout, fam, delta)
    out: dict[str, Any] = {"tokens": np.array(bits)}
    out.update({k: arrays[k] for k in ("phi_q", "phi_k", "beta", "w", "values") if k in arrays})
    if table.delta:
        d = table.delta
        exact_float = float(d) if Fraction(float(d)) == d else None
        if exact_float is None:
            raise ValueError(f"delta {d} is not a float64; write the table as JSON to keep it exact")
        out["delta"] = np.float64(exact_float)
    if note:
        out["note"] = np.array(note)
    from .certificates.producer import write_atomic

    write_atomic(path, npz_bytes(out, compress=True))
    return path


# --------------------------------------------------------------------------- tokenwise?


@dataclass
class TokenwiseReport:
    """How far a module is from tokenwise on a family (:func:`verify_tokenwise`)."""

    max_difference: float
    input_index: int | None
    position: int | None
    inputs_checked: int
    inputs: int
    scale: float  # the largest |output| of a token alone
    rtol: float

    @property
    def tokenwise(self) -> bool:
        """True when every output in a sequence equals the token's output alone, up to ``rtol`` × ``scale``.

        Float rounding alone differs between batch shapes (a matrix product is blocked
        differently), by about 10⁻¹⁶ relative; a sequence-dependent map differs by far more.
        """
        return self.max_difference <= self.rtol * self.scale

    def text(self) -> str:
        part = "" if self.inputs_checked == self.inputs else f" (the first {self.inputs_checked:,} of {self.inputs:,})"
        rel = self.max_difference / self.scale if self.scale else 0.0
        if self.tokenwise:
            return (f"tokenwise on {self.inputs_checked:,} inputs{part}: largest difference {self.max_difference:.3g} "
                    f"({rel:.2g} relative, float rounding); the verdict on the table is a verdict on the module")
        return (f"NOT tokenwise: outputs differ by up to {self.max_difference:.3g} ({rel:.2g} relative; "
                f"family.inputs[{self.input_index}], position {self.position}){part}; the verdict is about the "
                "exported table, not the module")


def verify_tokenwise(module: Callable, family: Any = "rank-nine", *, max_inputs: int = 100_000,
                     batch: int = 4096, rtol: float = 1e-12) -> TokenwiseReport:
    """Run ``module`` on the family's real sequences and on each token alone; report the largest difference.

    ``module`` maps a batch of sequences ``(B, L, m)`` to per-position outputs ``(B, L, r)``
    — as a library's feature map is applied to a sequence. Tokens alone are the sequences
    ``(N, 1, m)``. A tokenwise map (each output a function of its own token) gives a
    difference of 0; a map with a per-sequence stabilizer (FAVOR+ takes a maximum over the
    sequence) does not, and then the exact verdict is about the table, not the module. The
    first ``max_inputs`` inputs are compared, ``batch`` at a time, in float64.
    """
    torch = _torch()
    ft = family_tensors(family)
    if ft.inputs is None:
        raise ValueError(f"{ft.family.source}: more than {MAX_TENSOR_INPUTS:,} inputs; give a smaller family")
    X = ft.tokens
    with torch.no_grad():
        alone = _as_array(_call(module, X[:, None, :])[:, 0, :], "module (tokens alone)", X.shape[0], 2)
        worst, where = 0.0, (None, None)
        total = min(ft.inputs.shape[0], max_inputs)
        for start in range(0, total, batch):
            idx = ft.inputs[start:start + batch]
            lengths = (idx >= 0).sum(1)
            for L in sorted(set(int(v) for v in lengths)):  # one call per length: no padding enters a sequence
                rows = torch.nonzero(lengths == L)[:, 0]
                seq = X[idx[rows, :L]]
                out = _call(module, seq)
                got = out.detach().to(torch.float64).cpu().numpy()
                want = alone[idx[rows, :L].numpy()]
                diff = np.abs(got - want).max(axis=2)
                k = np.unravel_index(int(np.argmax(diff)), diff.shape)
                if diff[k] > worst:
                    worst, where = float(diff[k]), (start + int(rows[k[0]]), int(k[1]))
    scale = float(np.abs(alone).max()) if alone.size else 0.0
    return TokenwiseReport(worst, where[0], where[1], total, ft.inputs.shape[0], scale, rtol)


# --------------------------------------------------------------------------- training


def fit(phi_q: Any, phi_k: Any, values: Any, readout: Any, *, family: Any = "rank-nine", steps: int = 500,
        lr: float = 0.01, delta: float = 0.0, seed: int = 0) -> float:
    """Train the four modules on a family's inputs (full batch, Adam, mean squared error); return the final loss.

    The head is the one :func:`check` checks: ``α = ⟨phi_q(x), phi_k(z)⟩``,
    ``t̂ = β(x) + ⟨w(x), Σ_j α v(x_j) / (Σ_j α + δ)⟩``. float64, one thread, seeded: the
    same seed and modules give the same parameters. The modules are trained in place.
    """
    torch = _torch()
    ft = family_tensors(family)
    if ft.inputs is None:
        raise ValueError(f"{ft.family.source}: more than {MAX_TENSOR_INPUTS:,} inputs; train on a smaller family")
    torch.manual_seed(seed)
    threads = torch.get_num_threads()
    torch.set_num_threads(1)
    try:
        params = [p for mod in (phi_q, phi_k, values, readout) for p in mod.parameters()]
        opt = torch.optim.Adam(params, lr=lr)
        X, idx, mask, q, target = ft.tokens, ft.inputs.clamp(min=0), ft.mask, ft.query, ft.targets
        loss = None
        for _ in range(steps):
            loss = ((_predict(phi_q, phi_k, values, readout, X, idx, mask, q, delta) - target) ** 2).mean()
            opt.zero_grad()
            loss.backward()
            opt.step()
        with torch.no_grad():
            return float(((_predict(phi_q, phi_k, values, readout, X, idx, mask, q, delta) - target) ** 2).mean())
    finally:
        torch.set_num_threads(threads)


def _predict(phi_q, phi_k, values, readout, X, idx, mask, q, delta):
    fq, fk, v = phi_q(X), phi_k(X), values(X)
    r = readout(X)
    beta, w = (r[0].reshape(-1), r[1]) if isinstance(r, (tuple, list)) else (r[:, 0], r[:, 1:])
    alpha = (fq[q][:, None, :] * fk[idx]).sum(-1) * mask
    head = (alpha[:, :, None] * v[idx]).sum(1) / (alpha.sum(1) + delta)[:, None]
    return beta[q] + (w[q] * head).sum(1)
