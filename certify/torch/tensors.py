"""A family as PyTorch tensors, and the callables of a head run on them (``certify.torch``; docs/torch.md).

:func:`family_tokens` and :func:`family_tensors` give a family's tokens, inputs, query
positions and targets; :func:`call_on_tokens` runs a callable or ``torch.nn.Module`` on tokens (in
``eval`` mode, in the module's dtype) and :func:`as_array` takes its output back as a
float64 numpy array (lower precisions cast up, which is exact). PyTorch is the optional
extra ``train``: it is imported only when a function needs it.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Callable

import numpy as np

from ..kernels.audit import FamilySpec, load_family
from ..training import import_torch

#: A compact certificate's family is listed only up to this many inputs (the in-memory limit of
#: ``certify.certificates.compact``); beyond it, e.g. golay24's 13,268,976 inputs, the check generates
#: them query by query and ``family_tensors`` lists only the tokens.
from ..certificates.compact import MAX_EXPAND_INPUTS as MAX_TENSOR_INPUTS  # noqa: E402,F401 - re-exported


def family_of(family: Any) -> FamilySpec:
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
    fam = family_of(family)
    if fam.streamed:
        from ..kernels.families import compact_tokens

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


def token_bits(z: int, m: int) -> str:
    return format(z, f"0{m}b")[::-1]


def token_tensor(bits: list[str], m: int):
    """The 0/1 strings as an ``(N, m)`` float64 tensor (character ``i`` is column ``i``)."""
    torch = import_torch()
    return torch.tensor([[float(c == "1") for c in s] for s in bits], dtype=torch.float64).reshape(len(bits), m)


def family_tensors(family: Any = "rank-nine", query_last: bool = False) -> FamilyTensors:
    """Tokens, inputs, query positions and targets of a family as torch tensors (see :class:`FamilyTensors`).

    ``query_last=True`` moves each input's query to its last real position (the others keep
    their order), for causal layers, whose last position sees the whole input. The model's
    prediction does not depend on the order of the other tokens (docs/math.md §2), so the
    targets are the same.
    """
    torch = import_torch()
    fam = family_of(family)
    tokens, _ = family_tokens(fam)
    m = fam.m
    bits = [token_bits(z, m) for z in tokens]
    X = token_tensor(bits, m)
    if fam.streamed:  # beyond what is listed in memory (certify.certificates.compact.MAX_EXPAND_INPUTS)
        return FamilyTensors(fam, bits, X, None, None, None, None, None)
    inputs = fam.inputs
    pos = {z: k for k, z in enumerate(tokens)}
    L = max(len(x.tokens) for x in inputs)
    idx = np.full((len(inputs), L), -1, dtype=np.int64)
    mask = np.zeros((len(inputs), L), dtype=np.float64)
    for i, x in enumerate(inputs):
        order = list(x.tokens)
        if query_last:
            order.append(order.pop(x.query))
        idx[i, : len(x.tokens)] = [pos[z] for z in order]
        mask[i, : len(x.tokens)] = 1.0
    qpos = np.array([len(x.tokens) - 1 if query_last else x.query for x in inputs], dtype=np.int64)
    return FamilyTensors(fam, bits, X, torch.from_numpy(idx), torch.from_numpy(mask), torch.from_numpy(qpos),
                         torch.from_numpy(idx[np.arange(len(inputs)), qpos].copy()),
                         torch.tensor([float(x.target) for x in inputs], dtype=torch.float64))


def as_array(value: Any, name: str, rows: int, ndim: int) -> np.ndarray:
    """A callable's output as a float64 numpy array of ``rows`` rows (bfloat16/float16 cast up: exact)."""
    torch = import_torch()
    if isinstance(value, torch.Tensor):
        t = value.detach()
        if t.is_complex():
            raise ValueError(f"{name}: complex output")
        t = t.cpu()  # first: some accelerators have no float64
        if t.dtype in (torch.bfloat16, torch.float16, torch.float32):
            t = t.to(torch.float64)
        a = t.numpy()
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


def positive_ints(**values: Any) -> None:
    """``ValueError`` naming the first of ``values`` (``max_inputs=…``, ``batch=…``) that is not an integer ≥ 1."""
    for name, v in values.items():
        if type(v) is not int or v < 1:
            raise ValueError(f"{name} = {v!r}: an integer ≥ 1")


def call_on_tokens(fn: Callable, x: Any, dtype: Any = None, device: Any = None) -> Any:
    """``fn(x)``; a module gets ``x`` on its own device and in its own floating dtype, in ``eval`` mode (restored after).

    A plain callable gets ``x`` as it is (float64 on the CPU), or in ``dtype`` on ``device`` when given.
    """
    torch = import_torch()
    if isinstance(fn, torch.nn.Module):
        was = fn.training
        fn.eval()
        try:
            return fn(placed(x, fn))
        finally:
            fn.train(was)
    if dtype is not None or device is not None:
        x = x.to(device=device if device is not None else x.device, dtype=dtype if dtype is not None else x.dtype)
    return fn(x)


def placement(module: Any) -> tuple[Any, Any]:
    """``(dtype, device)`` of a module's first floating parameter or buffer; ``(float64, cpu)`` for anything else.

    Tokens are 0/1, so casting them to any floating dtype is exact.
    """
    torch = import_torch()
    if isinstance(module, torch.nn.Module):
        for t in (*module.parameters(), *module.buffers()):
            if t.is_floating_point():
                return t.dtype, t.device
    return torch.float64, torch.device("cpu")


def placed(x: Any, module: Any) -> Any:
    dtype, device = placement(module)
    return x.to(device=device, dtype=dtype)


def _param_dtype(module: Any):
    return placement(module)[0]


#: Where a library keeps the head axis: ``B`` batch, ``H`` heads, ``L`` positions, ``D`` features.
LAYOUTS = {"BHLD": "(batch, heads, length, dim): performer-pytorch, linear-attention-transformer",
           "BLHD": "(batch, length, heads, dim): fast-transformers' (N, L, H, E), flash-linear-attention's (B, T, H, K)",
           "BLD": "(batch, length, dim): one head, no head axis"}


class Layout:
    """A library's feature map, written for its own tensor layout, as a map of certify's tokens (docs/torch.md).

    ``fn`` acts on ``(B, H, L, d)`` (``"BHLD"``), ``(B, L, H, d)`` (``"BLHD"``, also spelled
    ``"NLHE"``) or ``(B, L, d)`` (``"BLD"``) tensors and returns features in the same layout.
    The wrapper takes certify's ``(N, m)`` tokens (each token a sequence of length 1: a
    feature map for :func:`certify.torch.check`) or ``(B, L, m)`` sequences (for
    ``verify_tokenwise``), cuts the ``m`` coordinates into ``heads`` equal parts
    (``d = m / heads``, as ``rearrange(x, 'b l (h d) -> b h l d')`` does) and returns the
    heads' features side by side, ``(N, H·r)`` or ``(B, L, H·r)`` — the column order of
    ``check(..., heads=[r] * H)``.
    """

    def __init__(self, fn: Callable, layout: str = "BHLD", heads: int = 1) -> None:
        layout = {"NLHE": "BLHD"}.get(layout.upper(), layout.upper())
        if layout not in LAYOUTS:
            raise ValueError(f"layout {layout!r}: expected one of {', '.join(LAYOUTS)} (or NLHE)")
        if isinstance(heads, (bool, np.bool_)) or not isinstance(heads, (int, np.integer)) or heads < 1 \
                or (layout == "BLD" and heads != 1):
            raise ValueError(f"heads = {heads!r}: an integer ≥ 1 (1 for the layout BLD)")
        self.fn, self.layout, self.heads = fn, layout, int(heads)

    def __call__(self, x: Any) -> Any:
        torch = import_torch()
        if not isinstance(x, torch.Tensor) or x.dim() not in (2, 3):
            raise ValueError(f"Layout: expected a tensor of tokens (N, m) or sequences (B, L, m), got "
                             f"{type(x).__name__} of shape {tuple(getattr(x, 'shape', ()))}")
        alone = x.dim() == 2
        seq = x[:, None, :] if alone else x
        B, L, m = seq.shape
        H = self.heads
        if m % H:
            raise ValueError(f"{m} coordinates do not split into {H} heads")
        if self.layout == "BLD":
            out = self.fn(seq)
            if not isinstance(out, torch.Tensor) or out.dim() != 3 or tuple(out.shape[:2]) != (B, L):
                raise ValueError(f"Layout BLD: the map returned {tuple(getattr(out, 'shape', ()))}, expected "
                                 f"({B}, {L}, r) — the same layout, features last")
        else:
            per_head = seq.reshape(B, L, H, m // H)
            out = self.fn(per_head.permute(0, 2, 1, 3) if self.layout == "BHLD" else per_head)
            want = (B, H, L) if self.layout == "BHLD" else (B, L, H)
            if not isinstance(out, torch.Tensor) or out.dim() != 4 or tuple(out.shape[:3]) != want:
                raise ValueError(f"Layout {self.layout}: the map returned {tuple(getattr(out, 'shape', ()))}, "
                                 f"expected ({', '.join(map(str, want))}, r) — the same layout, features last")
            if self.layout == "BHLD":
                out = out.permute(0, 2, 1, 3)
            out = out.reshape(B, L, -1)
        return out[:, 0, :] if alone else out
