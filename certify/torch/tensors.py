"""A family as PyTorch tensors, and the callables of a head run on them (``certify.torch``; docs/torch.md).

:func:`family_tokens` and :func:`family_tensors` give a family's tokens, inputs, query
positions and targets; :func:`call_on_tokens` runs a callable or ``torch.nn.Module`` on tokens (in
``eval`` mode, in the module's dtype) and :func:`as_array` takes its output back as a
float64 numpy array (lower precisions cast up, which is exact). PyTorch is the optional
extra ``train``: it is imported only when a function needs it.
"""
from __future__ import annotations

import math
from contextlib import contextmanager
from dataclasses import dataclass
from fractions import Fraction
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


def delta_float(delta: Any) -> float:
    """``delta`` as the float the loss uses: a number ``≥ 0`` that a float64 holds — an int, a float, a ``Fraction``, or
    a string read as the CLI's ``--delta`` is (``"p/q"`` or a decimal, at most 40 characters: nothing that expands)."""
    from ..kernels.audit import parse_tolerance

    try:
        if isinstance(delta, bool):
            raise TypeError
        value = parse_tolerance(delta, "delta") if isinstance(delta, str) else \
            Fraction(delta) if isinstance(delta, (Fraction, int)) else Fraction(float(delta))
        d = float(value)
    except (ValueError, TypeError, OverflowError, ZeroDivisionError):
        raise ValueError(f"delta = {str(delta)[:40]!r}: a finite number ≥ 0 (a library's eps)") from None
    if value < 0 or not math.isfinite(d) or (value and d == 0):
        raise ValueError(f"delta = {str(delta)[:40]!r}: a finite number ≥ 0 that a float64 holds (not so small "
                         "that it rounds to 0)")
    return d


class KeyEps:
    """A denominator that depends on the query: ``δ_h(x) = eps·Σ_i φ_{Q,h,i}(x)`` in each head ``h`` (docs/torch.md).

    What a library computes when it adds ``eps`` to every coordinate of the key sum —
    performer-pytorch's causal op, ``q·(Σ_j k_j + eps)`` — instead of to the denominator:
    ``Σ_j ⟨φ_Q(x), φ_K(x_j)⟩ + eps·Σ_i φ_{Q,i}(x)``, a phantom key whose features are all
    ``eps``. Give it as ``delta=KeyEps(eps)`` (``check``, ``predict``, ``compare``, ``fit``,
    ``LinearHead``). It is in the model class: where ``s_h(x) = Σ_i φ_{Q,h,i}(x) > 0`` the head
    is the one with query features ``φ_{Q,h}/s_h`` and the constant ``δ = eps`` — the same
    prediction, and the same kernel ranks (docs/math.md §2, "A query-dependent denominator");
    ``check`` checks that head exactly. ``eps``: a number ``> 0`` that a float64 holds, read
    as ``delta`` is (:func:`delta_float`).
    """

    def __init__(self, eps: Any) -> None:
        self.eps = delta_float(eps)
        if self.eps == 0:
            raise ValueError(f"KeyEps({eps!r}): eps > 0 (with eps = 0 there is no denominator term: delta=0)")
        self.value = eps  # as given: the table reads it exactly (a string "1e-6" as the decimal it spells)

    def __repr__(self) -> str:
        return f"KeyEps({self.value!r})"

    def extra(self, fq: Any) -> Any:
        """The term a head adds to its denominators: ``eps`` times the row sums of its query features ``fq``."""
        return self.eps * fq.sum(-1)


def denominator_extra(delta: Any, fq: Any) -> Any:
    """What a head adds to ``Σ_j α``: ``δ`` (a float), or ``eps·Σ_i φ_{Q,i}(x)`` for a :class:`KeyEps` (``fq``: that
    head's query features at each input's query)."""
    return delta.extra(fq) if isinstance(delta, KeyEps) else delta


class Stages:
    """Progress of a long ``check``, ``predict`` or ``compare`` on stderr, as the CLI shows its own (docs/torch.md).

    A :class:`certify.check.Progress`: silent for 2 s, then the stage (and the count of inputs,
    where there is one) with the time so far; ``CERTIFY_PROGRESS=0`` silences it, ``=1`` shows it
    at once. A stage that reports nothing while it runs (the exact check) is kept on screen by
    a timer thread, which only reads the current stage. Use as a context manager.
    """

    def __init__(self, label: str, total: int | None = None) -> None:
        import threading

        from ..check import Progress

        self.progress = Progress(label, total=total)
        self.stage, self.done = "", None
        self._lock, self._stop = threading.Lock(), threading.Event()
        self._thread = None
        if self.progress.stream is not None:
            self._thread = threading.Thread(target=self._tick, daemon=True, name="certify.torch progress")
            self._thread.start()

    def _tick(self) -> None:
        while not self._stop.wait(0.5):
            self.update()

    def update(self, done: int | None = None, stage: str | None = None) -> None:
        """Say ``stage`` (kept until the next) and ``done`` inputs so far (kept too)."""
        with self._lock:
            self.stage = self.stage if stage is None else stage
            self.done = self.done if done is None else done
            self.progress.update(self.done, self.stage)

    def __enter__(self) -> "Stages":
        return self

    def __exit__(self, *exc: Any) -> None:
        self._stop.set()
        if self._thread is not None:
            self._thread.join()
        self.progress.close()


def positive_ints(**values: Any) -> None:
    """``ValueError`` naming the first of ``values`` (``max_inputs=…``, ``batch=…``) that is not an integer ≥ 1."""
    for name, v in values.items():
        if type(v) is not int or v < 1:
            raise ValueError(f"{name} = {v!r}: an integer ≥ 1")


def call_on_tokens(fn: Callable, x: Any, dtype: Any = None, device: Any = None, name: str = "the callable",
                   eval_mode: bool = True) -> Any:
    """``fn(x)``; a module gets ``x`` on its own device and in its own floating dtype, in ``eval`` mode (restored after).

    A plain callable gets ``x`` as it is (float64 on the CPU), or in ``dtype`` on ``device`` when given.
    A dtype or device clash inside ``fn`` becomes a ``ValueError`` naming ``name`` and the way out
    (:func:`clash_advice`). ``eval_mode=False`` (training) leaves the module's mode alone.
    """
    torch = import_torch()
    dtype, device = float_dtype(dtype), a_device(device)
    if isinstance(fn, torch.nn.Module):
        x = placed(x, fn)
        was = fn.training
        if eval_mode:
            fn.eval()
        try:
            return _called(fn, x, name)
        finally:
            fn.train(was)
    if dtype is not None or device is not None:
        x = x.to(device=device if device is not None else x.device, dtype=dtype if dtype is not None else x.dtype)
    return _called(fn, x, name)


#: Words of torch's messages when tensors of two dtypes or devices meet (``mat1 and mat2 must have the same dtype``).
_CLASH = ("same dtype", "expected scalar type", "must have the same dtype", "same device", "expected all tensors",
          "found dtype", "input type", "should be the same")


#: Words of torch's messages when two shapes do not fit (``mat1 and mat2 shapes cannot be multiplied``).
_SHAPES = ("shapes cannot be multiplied", "size mismatch", "must match the size", "is invalid for input of size",
           "does not broadcast", "but got input of size")


def _called(fn: Callable, x: Any, name: str) -> Any:
    try:
        return fn(x)
    except RuntimeError as exc:
        text = str(exc).strip().splitlines()[0] if str(exc).strip() else type(exc).__name__
        if any(w in text.lower() for w in _CLASH):
            raise ValueError(f"{name}: torch says {text!r}; {clash_advice(fn, x)}") from None
        if any(w in text.lower() for w in _SHAPES):
            m = x.shape[-1]
            raise ValueError(f"{name}: torch says {text!r}; the family's tokens have m = {m} (it got a tensor of "
                             f"shape {tuple(x.shape)}): if it was built for tokens of another width, check it on a "
                             f"family of its own m, or build its first layers for m = {m}") from None
        raise


def clash_advice(fn: Callable, x: Any) -> str:
    """What to do when ``fn`` got tokens in a dtype or on a device its tensors are not in."""
    torch = import_torch()
    got = f"it got the tokens as {str(x.dtype).replace('torch.', '')} on {x.device}"
    if isinstance(fn, torch.nn.Module):
        held = {(t.dtype, t.device.type) for mod in all_modules(fn) for t in (*mod.parameters(recurse=False),
                                                                              *mod.buffers(recurse=False))
                if t.is_floating_point()}
        if held and held <= {(x.dtype, x.device.type)}:
            name = str(x.dtype).replace("torch.", "")
            way = ("compare in float32: module.float() (exact for its parameters), then compare(…) again"
                   if name in ("bfloat16", "float16") else "make that tensor like the layer's input (x.new_ones(…))")
            return (f"{got}, and every parameter and buffer it holds is {name} on {x.device} already: a tensor made "
                    f"inside the layer's call (a mask or constant: torch.ones(…) is float32) is of another dtype; {way}")
        return (f"{got}, the dtype and device of its first floating parameter or buffer; give the module's "
                "parameters and buffers one dtype and device (module.to(...))")
    inner = modules_used_by(fn)
    names = ", ".join(type(m).__name__ for m in inner[:3])
    use = (f"it uses {names}: wrap it as certify.torch.Layout(fn, ...), a module that owns them and runs in their "
           "dtype and device, or " if inner else "")
    return (f"{got}, as a plain callable does; {use}pass dtype= (and device=) for plain callables, "
            "e.g. dtype=torch.float32")


def modules_used_by(fn: Any) -> list:
    """The ``torch.nn.Module`` s a plain callable uses, as far as Python shows them (docs/torch.md, "Layout").

    A bound method's object, a ``functools.partial`` 's callable and arguments, and for a
    function (a ``lambda`` included) the modules in its closure — except one named ``self``
    or ``cls``, which would make a module its own child — and those its global names refer to;
    callables in the closure are looked into the same way, three levels deep.
    """
    import functools

    Module = import_torch().nn.Module
    found: dict[int, Any] = {}

    def visit(f: Any, depth: int) -> None:
        if isinstance(f, Module):
            found.setdefault(id(f), f)
            return
        if depth > 3 or f is None:
            return
        if isinstance(f, functools.partial):
            for v in (f.func, *f.args, *f.keywords.values()):
                visit(v, depth + 1)
            return
        if isinstance(getattr(f, "__self__", None), Module):
            visit(f.__self__, depth + 1)
        code = getattr(f, "__code__", None)
        if code is None:
            return
        cells = getattr(f, "__closure__", None) or ()
        for var, cell in zip(code.co_freevars, cells):
            try:
                v = cell.cell_contents
            except ValueError:  # an empty cell
                continue
            if var not in ("self", "cls") and (isinstance(v, Module) or callable(v)):
                visit(v, depth + 1)
        names = _globals_read(code)
        space = getattr(f, "__globals__", {})
        for var in sorted(names):
            if isinstance(space.get(var), Module):
                found.setdefault(id(space[var]), space[var])

    visit(fn, 0)
    return list(found.values())


def _globals_read(code: Any) -> set[str]:
    """The global names a code object (and those defined inside it) reads — not its attribute names (``cfg.lin``)."""
    import dis

    names: set[str] = set()
    for ins in dis.get_instructions(code):
        if ins.opname in ("LOAD_GLOBAL", "LOAD_NAME"):
            names.add(str(ins.argval))
    for const in code.co_consts:  # a lambda or function defined inside
        if hasattr(const, "co_code"):
            names |= _globals_read(const)
    return names


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


#: Where a library keeps the head axis: ``B`` batch, ``H`` heads, ``L`` positions, ``D`` features.
LAYOUTS = {"BHLD": "(batch, heads, length, dim): performer-pytorch, linear-attention-transformer",
           "BLHD": "(batch, length, heads, dim): fast-transformers' (N, L, H, E), flash-linear-attention's (B, T, H, K)",
           "BLD": "(batch, length, dim): one head, no head axis"}


def module_base() -> type:
    """``torch.nn.Module`` when PyTorch is there, else ``object`` (then :class:`Layout` refuses to be made, with the hint)."""
    try:
        import torch
    except ImportError:
        return object
    return torch.nn.Module


class Owner(module_base()):  # type: ignore[misc]
    """A module that also owns modules it does not hold as children: the modules a callable it wraps uses.

    They are not registered as submodules — one of them may be (or may come to hold) this module, and a module
    that is its own descendant breaks ``repr``, ``.to()`` and ``state_dict`` — but ``parameters()`` and
    ``buffers()`` include theirs — here and in every module that holds this one (so ``fit`` trains them and
    :func:`placement` sees their dtype) — and ``.to()``, ``.float()``, … and ``train()`` / ``eval()`` reach them,
    each module once per call.
    """

    def own(self, modules: list) -> None:
        """Own ``modules`` (besides the children); each once."""
        owned: list = []
        for mod in modules:
            if mod is not self and all(mod is not o for o in owned):
                owned.append(mod)
        object.__setattr__(self, "_owned", owned)
        object.__setattr__(self, "_busy", False)

    @property
    def owned(self) -> list:
        """The modules owned besides the children (a copy)."""
        return list(self.__dict__.get("_owned", ()))

    def _others(self, fn: Callable) -> list:
        """``fn(module)`` for each owned module, unless this module is already inside such a call (a cycle)."""
        if self.__dict__.get("_busy", True) or not self.__dict__.get("_owned"):
            return []
        object.__setattr__(self, "_busy", True)
        try:
            return [fn(mod) for mod in self._owned]
        finally:
            object.__setattr__(self, "_busy", False)

    def named_modules(self, memo: Any = None, prefix: str = "", remove_duplicate: bool = True):
        """The children's tree, then each owned module's (each module once, whatever ``remove_duplicate``: an owned
        module may hold this one). Parameters, buffers and ``modules()`` — this module's and its ancestors' — go
        through here."""
        memo = set() if memo is None else memo
        yield from super().named_modules(memo, prefix, remove_duplicate)
        memo.add(self)
        for i, mod in enumerate(self.__dict__.get("_owned", ())):
            if mod not in memo:
                yield from mod.named_modules(memo, f"{prefix}{'.' if prefix else ''}owned.{i}", True)

    def _apply(self, fn: Callable, *args: Any, **kwargs: Any) -> Any:
        out = super()._apply(fn, *args, **kwargs)
        self._others(lambda mod: mod._apply(fn, *args, **kwargs))
        return out

    def train(self, mode: bool = True) -> Any:
        out = super().train(mode)
        self._others(lambda mod: mod.train(mode))
        return out


def modules_of(fn: Any) -> list:
    """``[fn]`` for a module, the modules a plain callable uses (:func:`modules_used_by`), ``[]`` for None."""
    if fn is None:
        return []
    return [fn] if isinstance(fn, import_torch().nn.Module) else modules_used_by(fn)


def all_modules(fn: Any) -> list:
    """Every ``torch.nn.Module`` a callable is or uses, owned ones included (:class:`Owner`), each once."""
    out: list = []
    for mod in modules_of(fn):
        out += [sub for sub in mod.modules() if all(sub is not o for o in out)]
    return out


@contextmanager
def raised(to: Any, *fns: Any):
    """Every floating parameter and buffer of lower precision than ``to`` (float32 or float64) of the modules ``fns``
    are or use (:func:`all_modules`), raised to ``to`` in place — the same ``Parameter`` objects, so closures see
    it; exact, since each lower precision is a subset — and put back after, bit for bit. Yields whether any was."""
    torch = import_torch()
    low = {torch.float32: (torch.bfloat16, torch.float16),
           torch.float64: (torch.bfloat16, torch.float16, torch.float32)}[to]
    modules: list = []
    for fn in fns:
        for f in fn if isinstance(fn, (list, tuple)) else [fn]:
            modules += [mod for mod in all_modules(f) if all(mod is not o for o in modules)]
    saved_params: list = []
    saved_buffers: list = []
    try:
        for mod in modules:
            for p in mod.parameters(recurse=False):
                if p.dtype in low and all(p is not q for q, _ in saved_params):
                    saved_params.append((p, p.data))
                    p.data = p.data.to(to)
            for name, b in list(mod._buffers.items()):
                if b is not None and b.dtype in low:
                    saved_buffers.append((mod, name, b))
                    mod._buffers[name] = b.to(to)
        yield bool(saved_params or saved_buffers)
    finally:
        for p, data in saved_params:
            p.data = data
        for mod, name, b in saved_buffers:
            mod._buffers[name] = b


def float_dtype(dtype: Any, name: str = "dtype") -> Any:
    """``dtype=`` as a floating ``torch.dtype`` (``torch.float32``, ``"float32"``, ``numpy.float32``), or None."""
    torch = import_torch()
    if dtype is None:
        return None
    value = dtype
    if not isinstance(value, torch.dtype):
        text = str(np.dtype(dtype)) if not isinstance(dtype, str) and _numpy_dtype(dtype) else str(dtype)
        value = getattr(torch, text.replace("torch.", ""), None)
    if not isinstance(value, torch.dtype) or not value.is_floating_point or value.is_complex:
        raise ValueError(f"{name} = {dtype!r}: a floating dtype, e.g. torch.float32 (for the plain callables; modules "
                         "use their own)")
    return value


def _numpy_dtype(dtype: Any) -> bool:
    try:
        np.dtype(dtype)
    except TypeError:
        return False
    return True


def a_device(device: Any, name: str = "device") -> Any:
    """``device=`` as a ``torch.device``, or None; a ``ValueError`` naming it otherwise."""
    torch = import_torch()
    if device is None:
        return None
    try:
        return torch.device(device)
    except (RuntimeError, TypeError, ValueError):
        raise ValueError(f"{name} = {device!r}: a torch device, e.g. 'cpu', 'cuda:0', 'mps' or 'meta'") from None


class HeadColumns(Owner):
    """Head ``h`` of ``H`` equal column blocks of ``source`` 's output: one head's callable (``Layout.head``, the lists
    of ``LinearHead.parts``). It declares no heads: it is one."""

    def __init__(self, source: Any, h: int, H: int) -> None:
        super().__init__()
        self.source, self.h, self.H = source, h, H

    def forward(self, x: Any) -> Any:
        out = self.source(x)
        width = out.shape[-1] // self.H
        return out[..., self.h * width:(self.h + 1) * width]


def declared_heads(fn: Any) -> int:
    """The heads a callable declares (a :class:`Layout` 's ``heads``, a ``LinearHead`` 's values), 1 for any other."""
    return int(fn.heads) if getattr(fn, "declares_heads", False) else 1


class Layout(Owner):
    """A library's feature map, written for its own tensor layout, as a module on certify's tokens (docs/torch.md).

    ``fn`` acts on ``(B, H, L, d)`` (``"BHLD"``), ``(B, L, H, d)`` (``"BLHD"``, also spelled
    ``"NLHE"``) or ``(B, L, d)`` (``"BLD"``) tensors and returns features in the same layout.
    The module takes certify's ``(N, m)`` tokens (each token a sequence of length 1: a
    feature map for :func:`certify.torch.check`) or ``(B, L, m)`` sequences (for
    ``verify_tokenwise``), applies ``project`` first when given (a layer's query or key
    projection, ``(…, m) → (…, H·d)``), cuts the coordinates into ``heads`` equal parts
    (``d = m / heads``, as ``rearrange(x, 'b l (h d) -> b h l d')`` does) and returns the
    heads' features side by side, ``(N, H·r)`` or ``(B, L, H·r)`` — the column order of
    ``check(..., heads=[r] * H)``.

    It is a ``torch.nn.Module`` that owns what it wraps: ``fn`` and ``project`` when they are
    modules (as children), and otherwise the modules ``fn`` uses (``modules=``, or those
    :func:`modules_used_by` finds: a bound method's object, a closure's or global's module) as
    an :class:`Owner`. So :func:`certify.torch.fit` trains their parameters, ``.to()`` moves
    them, and the tokens reach ``fn`` in their dtype and on their device.
    """

    def __init__(self, fn: Callable, layout: str = "BHLD", heads: int = 1, *, project: Any = None,
                 modules: Any = None) -> None:
        torch = import_torch()
        super().__init__()
        if not callable(fn):
            raise ValueError(f"Layout: fn must be callable, got {type(fn).__name__}")
        layout = {"NLHE": "BLHD"}.get(str(layout).upper(), str(layout).upper())
        if layout not in LAYOUTS:
            raise ValueError(f"layout {layout!r}: expected one of {', '.join(LAYOUTS)} (or NLHE)")
        if isinstance(heads, (bool, np.bool_)) or not isinstance(heads, (int, np.integer)) or heads < 1 \
                or (layout == "BLD" and heads != 1):
            raise ValueError(f"heads = {heads!r}: an integer ≥ 1 (1 for the layout BLD)")
        if project is not None and not callable(project):
            raise ValueError(f"Layout: project must be callable, got {type(project).__name__}")
        self.fn, self.project, self.layout, self.heads = fn, project, layout, int(heads)
        if modules is None:
            modules = [] if isinstance(fn, torch.nn.Module) else modules_used_by(fn)
            if project is not None and not isinstance(project, torch.nn.Module):
                modules += modules_used_by(project)
        else:
            modules = list(modules) if not isinstance(modules, torch.nn.Module) and hasattr(modules, "__iter__") else [0]
            if not all(isinstance(mod, torch.nn.Module) for mod in modules):
                raise ValueError("Layout: modules= is a list of torch.nn.Module (the modules fn uses)")
        self.own([mod for mod in modules if mod is not fn and mod is not project])

    #: Its ``heads`` are the heads ``check``, ``predict``, ``compare``, ``fit`` and ``verify_tokenwise`` see: its columns are
    #: cut into ``heads`` equal parts (:func:`declared_heads`), never summed into one head.
    declares_heads = True

    def extra_repr(self) -> str:
        return f"layout={self.layout!r}, heads={self.heads}"

    def head(self, h: int) -> HeadColumns:
        """Head ``h`` alone (its columns), e.g. to check one head kernel only: ``check(phi_q.head(0), phi_k.head(0))``."""
        if isinstance(h, bool) or not isinstance(h, (int, np.integer)) or not 0 <= h < self.heads:
            raise ValueError(f"head {h!r}: an integer from 0 to {self.heads - 1} (the Layout has {self.heads} head(s))")
        return HeadColumns(self, int(h), self.heads)

    def forward(self, x: Any) -> Any:
        torch = import_torch()
        if not isinstance(x, torch.Tensor) or x.dim() not in (2, 3):
            raise ValueError(f"Layout: expected a tensor of tokens (N, m) or sequences (B, L, m), got "
                             f"{type(x).__name__} of shape {tuple(getattr(x, 'shape', ()))}")
        alone = x.dim() == 2
        seq = x[:, None, :] if alone else x
        if self.project is not None:
            seq = self.project(seq)
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
