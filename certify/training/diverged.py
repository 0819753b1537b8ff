"""Diverged training runs: what ``certify train`` and ``certify experiment`` both call one (docs/experiments.md).

A run *diverges* when an entry of its trained parameters — the arrays it would export
as a kernel table (``phi_q``, ``phi_k``, ``kernel``, ``beta``, ``w``, ``values``) — is not a
finite number (NaN or ±inf; e.g. Adam with a learning rate of 100). Such a table could
only be refused by the reader (every entry of a table must be finite,
docs/kernel-table-format.md), so none is written. A diverged run is a result of the
training, not a bad input and not a bug: both commands record it with the first
non-finite entry as its reason, count it as not solving (``certify train``: no exact
verdict; ``certify experiment``: 0 sequences correct), go on with the other runs, and
say so in the text, the JSON (``diverged``) and the plot. Their exit codes do not change
because of it.

>>> import numpy as np
>>> first_nonfinite({"phi_q": np.ones((2, 2)), "w": np.array([[0.0, np.nan]])})
'w[0, 1] is nan'
>>> first_nonfinite({"phi_q": np.ones((2, 2))}) is None
True
"""
from __future__ import annotations

import math
from typing import Any

__all__ = ["TRAINED_FIELDS", "first_nonfinite", "finite_or_none"]

#: The exported arrays that hold trained numbers (``tokens``, ``heads`` and ``value_heads`` are not trained).
TRAINED_FIELDS = ("phi_q", "phi_k", "kernel", "beta", "w", "values")


def first_nonfinite(arrays: dict[str, Any]) -> str | None:
    """The first entry of the trained arrays that is not finite, e.g. ``"phi_q[3, 1] is nan"``; ``None`` if all are."""
    import numpy as np

    for name in TRAINED_FIELDS:
        if name not in arrays:
            continue
        a = np.asarray(arrays[name])
        if a.dtype.kind in "fc":
            bad = ~np.isfinite(a)
            if bad.any():
                k = tuple(int(i) for i in np.argwhere(bad)[0])
                return f"{name}[{', '.join(map(str, k))}] is {float(a[k])}"
    return None


def finite_or_none(x: float) -> float | None:
    """A float figure for strict JSON: ``None`` in place of NaN or ±inf (a diverged run's loss)."""
    return x if math.isfinite(x) else None
