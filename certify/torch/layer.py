"""The head of a linear-attention layer, built from the layer's parts: :class:`LinearHead` (``certify.torch``; docs/torch.md).

A library's linear-attention layer computes, on a sequence ``x_1 … x_L`` and per head ``h``,

    ``out_h(i) = Σ_j ⟨φ(q_h(x_i)), φ(k_h(x_j))⟩ v_h(x_j) / (Σ_j ⟨φ(q_h(x_i)), φ(k_h(x_j))⟩ + δ)``,

puts the heads side by side, applies its output projection ``O`` and — in a model — a
prediction layer ``P`` (and often a residual ``x_i +``). With ``O`` and ``P`` affine, the
prediction at position ``i`` is ``β(x_i) + Σ_h ⟨w_h, out_h(i)⟩`` with ``w = P∘O`` minus its
constant and ``β(x) = P(O(0))`` (plus ``P(x) − P(0)`` with the residual): the
query-dependent affine readout of docs/math.md §2 (the paper's §2.2). :class:`LinearHead`
builds that head — query and key maps, values, readout, ``δ`` and the heads' widths — from
the projections, the feature map, ``O`` and ``P``, as one ``torch.nn.Module`` that owns
them, so that ``fit`` trains them and ``check``, ``compare`` and ``predict`` take
``**head.parts()``. :meth:`LinearHead.layer` wraps the library's own layer with the same
``P`` (and residual) for :func:`certify.torch.compare`.
"""
from __future__ import annotations

from typing import Any, Callable

from .tensors import HeadColumns, KeyEps, Layout, Owner, denominator_extra, import_torch, modules_of, raised

__all__ = ["LinearHead"]


class _Owner(Owner):
    """An :class:`~certify.torch.tensors.Owner` of the modules the given callables are or use."""

    def _own(self, *fns: Any) -> None:
        torch = import_torch()  # a module is a child already; a plain callable's modules are owned
        self.own([mod for f in fns if not isinstance(f, torch.nn.Module) for mod in modules_of(f)])


class _Values(_Owner):
    """The values ``v(x)`` of every head side by side, ``(…, m) → (…, H·d_v)``: ``heads`` equal parts, which
    ``check`` and the rest see as the heads' values (:func:`~certify.torch.tensors.declared_heads`)."""

    declares_heads = True

    def __init__(self, v_proj: Any, heads: int = 1) -> None:
        super().__init__()
        self.v_proj, self.heads = v_proj, heads
        self._own(v_proj)

    def forward(self, x: Any) -> Any:
        return self.v_proj(x) if self.v_proj is not None else x


class _Readout(_Owner):
    """``x ↦ (β(x), w)`` as one ``(N, 1 + H·d_v)`` tensor, from an affine output projection and prediction layer.

    ``w`` and ``β`` are read off by probing ``P∘O`` at 0 and at the unit vectors (exact for an
    affine map up to its own rounding). The first call checks that ``P∘O`` is affine
    (:meth:`_check_affine`); a prediction layer with more than one output is refused.
    """

    def __init__(self, out_proj: Any, predict: Any, residual: bool) -> None:
        super().__init__()
        self.out_proj, self.predict, self.residual = out_proj, predict, residual
        self._own(out_proj, predict)
        self.affine_checked = False

    def _combined(self, z: Any) -> Any:
        y = self.out_proj(z) if self.out_proj is not None else z
        out = self.predict(y)
        if out.dim() != z.dim() or out.shape[-1] != 1:
            raise ValueError(f"LinearHead: predict must map to one output (the prediction), (…, 1); it returned "
                             f"shape {tuple(out.shape)} for an input of shape {tuple(y.shape)}")
        return out[..., 0]

    def _check_affine(self, width: int, like: Any) -> None:
        """``ValueError`` unless ``P∘O`` is affine on six random points (spread ±4, a fixed seed) and the all-ones one.

        Probed with the parameters raised to float64 (exact; put back after), where a norm, a
        nonlinearity or dropout left on shows far above rounding; where that cannot run (a tensor
        held outside any module), in the modules' own dtype at its rounding.
        """
        torch = import_torch()
        gen = torch.Generator().manual_seed(0)
        Z = torch.cat([torch.ones(1, width, dtype=torch.float64),
                       4 * torch.randn(6, width, generator=gen, dtype=torch.float64)])
        with torch.no_grad():
            try:
                with raised(torch.float64, self.out_proj, self.predict):
                    defect, scale, unit = self._defect(Z, width)
            except (RuntimeError, ValueError):
                defect, scale, unit = self._defect(Z.to(like), width)
        if not (defect == defect and abs(defect) != float("inf")):
            raise ValueError(f"LinearHead: out_proj followed by predict overflows on a probe ({like.dtype}): "
                             "their weights are beyond this dtype's range")
        if defect > 16 * (width + 2) * unit * scale:
            raise ValueError("LinearHead: out_proj followed by predict is not affine (a nonlinearity, a norm, or "
                             "dropout in training mode); certify's readout is affine in the heads' outputs, so give "
                             "the affine part as out_proj and keep the rest out of the head")

    def _defect(self, Z: Any, width: int) -> tuple[float, float, float]:
        """``max |P∘O(z) − (c + ⟨w, z⟩)|``, the scale ``max(|c| + Σ|w_i z_i|) + 1`` and the unit roundoff, on ``Z``."""
        torch = import_torch()
        const, w = self.coefficients(width, Z)
        got = self._combined(Z)
        want = const + Z @ w
        scale = float((const.abs() + Z.abs() @ w.abs()).max()) + 1.0
        unit = torch.finfo(got.dtype).eps / 2 if got.is_floating_point() else 0.0
        return float((got - want).abs().max()), scale, unit

    def coefficients(self, width: int, like: Any) -> tuple[Any, Any]:
        """``(P(O(0)), w)``: the constant and the ``width`` coefficients of ``P∘O``."""
        torch = import_torch()
        probe = torch.cat([torch.zeros(1, width), torch.eye(width)]).to(like)
        out = self._combined(probe)
        return out[0], out[1:] - out[0]

    def forward(self, x: Any) -> Any:
        torch = import_torch()
        lead = x.shape[:-1]
        width = self.values_of(x[..., :1, :]).shape[-1]
        if not self.affine_checked:
            self._check_affine(width, x)
            self.affine_checked = True
        const, w = self.coefficients(width, x)
        beta = const.expand(lead)
        if self.residual:
            y0 = self.out_proj(torch.zeros(1, width).to(x)) if self.out_proj is not None else torch.zeros(1, width).to(x)
            if y0.shape[-1] != x.shape[-1]:
                raise ValueError(f"LinearHead: residual=True adds the token ({x.shape[-1]} coordinates) to the layer's "
                                 f"output ({y0.shape[-1]}); they must have one width")
            beta = self.predict(x + y0)[..., 0]
        return torch.cat([beta[..., None], w.expand(lead + (width,))], dim=-1)


class _Prediction(_Owner):
    """A library's layer followed by the prediction layer (and residual): ``(B, L, m) → (B, L)`` for ``compare``."""

    def __init__(self, layer: Callable, predict: Any, residual: bool) -> None:
        super().__init__()
        self.layer, self.predict, self.residual = layer, predict, residual
        self._own(layer, predict)

    def forward(self, x: Any) -> Any:
        y = self.layer(x)
        if isinstance(y, (tuple, list)):  # (output, cache, …) as several libraries return
            y = y[0]
        if self.residual:
            y = x + y
        return self.predict(y)[..., 0]


class LinearHead(_Owner):
    """The head of a linear-attention layer, from its parts (module docstring; docs/torch.md, "From a layer's parts").

    ``feature_map``: the library's map on ``(B, H, L, d)`` tensors (``layout="BHLD"``), on
    ``(B, L, H, d)`` (``"BLHD"``) or with no head axis (``"BLD"``), as in :class:`Layout`;
    ``key_feature_map``: the keys' map when it differs (a query/key pair of maps). ``q_proj``,
    ``k_proj``, ``v_proj``: callables ``(…, m) → (…, H·d)`` (a ``Linear``, or a ``lambda``
    cutting a fused projection); ``None`` is the identity. ``out_proj`` (``O``) and
    ``predict`` (``P``, to one output) must be affine — ``Linear`` layers, dropout off — and
    are checked to be so. ``residual=True``: the prediction layer sees ``x_i + O(heads)``.
    ``delta``: the library's denominator constant (its ``eps``), or ``KeyEps(eps)`` when the library adds ``eps`` to
    the key sum (``δ(x) = eps·Σ_i φ_i(x)``: performer-pytorch's causal op). ``heads``: ``H``, which ``phi_q``,
    ``phi_k`` and ``values`` declare: ``check(head.phi_q, head.phi_k, values=head.values, …)`` checks ``H`` heads.

    :meth:`parts` gives the keyword arguments of ``fit``, ``check``, ``compare`` and
    ``predict``; :meth:`layer` wraps the library's own layer with ``P`` for ``compare``;
    ``phi_q``, ``phi_k`` (:class:`Layout` s, for ``verify_tokenwise``), ``values`` and
    ``readout`` are the parts themselves.
    """

    def __init__(self, *, feature_map: Callable, predict: Any, q_proj: Any = None, k_proj: Any = None,
                 v_proj: Any = None, out_proj: Any = None, key_feature_map: Callable | None = None, heads: int = 1,
                 layout: str = "BHLD", delta: Any = 0, residual: bool = False) -> None:
        import_torch()
        super().__init__()
        if not callable(predict):
            raise ValueError("LinearHead: predict is the prediction layer P (e.g. torch.nn.Linear(dim, 1)); it is "
                             "what turns the layer's output into certify's readout")
        for name, f in (("q_proj", q_proj), ("k_proj", k_proj), ("v_proj", v_proj), ("out_proj", out_proj),
                        ("key_feature_map", key_feature_map)):
            if f is not None and not callable(f):
                raise ValueError(f"LinearHead: {name} must be callable, got {type(f).__name__}")
        self.heads, self.delta, self.residual = heads, delta, bool(residual)
        self.phi_q = Layout(feature_map, layout, heads, project=q_proj)
        self.phi_k = Layout(key_feature_map if key_feature_map is not None else feature_map, layout, heads,
                            project=k_proj)
        self.values = _Values(v_proj, heads)
        self.readout = _Readout(out_proj, predict, self.residual)
        object.__setattr__(self.readout, "values_of", self.values)  # its width, not a second owner

    def parts(self) -> dict[str, Any]:
        """``phi_q``, ``phi_k``, ``values``, ``readout``, ``delta``: the keywords of ``fit(**head.parts(), …)``.

        Several heads come as lists of per-head callables (each head's columns of the maps),
        so ``check`` finds the heads' widths itself.
        """
        H = self.heads
        if H == 1:
            return {"phi_q": self.phi_q, "phi_k": self.phi_k, "values": self.values, "readout": self.readout,
                    "delta": self.delta}
        cols = lambda f: [HeadColumns(f, h, H) for h in range(H)]  # noqa: E731
        return {"phi_q": cols(self.phi_q), "phi_k": cols(self.phi_k), "values": cols(self.values),
                "readout": self.readout, "delta": self.delta}

    def layer(self, layer: Callable) -> Any:
        """The library's own ``layer`` (``(B, L, m) → (B, L, dim)``, or a tuple whose first item is that) followed
        by this head's prediction layer (and residual): ``(B, L, m) → (B, L)``, for :func:`certify.torch.compare`."""
        if not callable(layer):
            raise ValueError(f"LinearHead.layer: expected the library's layer (a callable), got {type(layer).__name__}")
        return _Prediction(layer, self.readout.predict, self.residual)

    def forward(self, x: Any) -> Any:
        """The head on sequences ``(B, L, m)`` in floating point, a prediction per position ``(B, L)`` (no mask)."""
        torch = import_torch()
        H = self.heads
        fq, fk, v = self.phi_q(x), self.phi_k(x), self.values(x)
        r, dv = fq.shape[-1] // H, v.shape[-1] // H
        d = self.delta if isinstance(self.delta, KeyEps) else float(self.delta)
        outs = []
        for h in range(H):
            a = torch.einsum("bir,bjr->bij", fq[..., h * r:(h + 1) * r], fk[..., h * r:(h + 1) * r])
            extra = denominator_extra(d, fq[..., h * r:(h + 1) * r])
            outs.append(torch.einsum("bij,bjd->bid", a, v[..., h * dv:(h + 1) * dv])
                        / (a.sum(-1) + extra)[..., None])
        ro = self.readout(x)
        return ro[..., 0] + (ro[..., 1:] * torch.cat(outs, -1)).sum(-1)
