"""A family as PyTorch tensors, and the callables of a head run on them (``certify.torch``; docs/torch.md).

:func:`family_tokens` and :func:`family_tensors` give a family's tokens, inputs, query
positions and targets; :func:`_call` runs a callable or ``torch.nn.Module`` on tokens (in
``eval`` mode, in the module's dtype) and :func:`_as_array` takes its output back as a
float64 numpy array (lower precisions cast up, which is exact). PyTorch is the optional
extra ``train``: it is imported only when a function needs it.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Callable

import numpy as np

from .audit import FamilySpec, load_family

#: A compact certificate's family is listed only up to this many inputs (the in-memory limit of
#: ``certify.certificates.compact``); beyond it, e.g. golay24's 13,268,976 inputs, the check generates
#: them query by query and ``family_tensors`` lists only the tokens.
from ..certificates.compact import MAX_EXPAND_INPUTS as MAX_TENSOR_INPUTS  # noqa: E402


def _torch():
    from .training import _torch as need

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
        from .families import compact_tokens

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
