"""One-hot queries: a solution of any family with rank = number of query tokens (§6.1, A.1; docs/math.md §8, §10).

§6.1 reports a constructed rank-15 solution of the rank-nine family. Ours: give each of
the family's distinct query tokens ``x`` its own feature, ``φ_Q(x) = e_x``, and let
``φ_K(z)_x = b^{−⟨x,z⟩}`` — for each query a kernel that decreases with the overlap, the
dense-softmax kernel of A.1 at temperature ``log b``. With values ``v(z) = z`` and
readout ``⟨x_i, a_i⟩`` (``β = 0``, ``w(x) = x``), A.1 gives error ``< ε`` on every input
of length ``≤ n`` when ``b ≥ n/ε``; the default is ``b = n/ε`` with ``n`` the family's
longest input (6 for the rank-nine family: ``n = 3``, ``ε = 1/2``).

The table stores integers: ``φ_K(z)_x = p^{‖x‖₁ − ⟨x,z⟩}·q^{⟨x,z⟩}`` for ``b = p/q`` in
lowest terms, i.e. row ``x`` of the kernel multiplied by ``p^{‖x‖₁}`` — a positive
per-query factor, which leaves every prediction unchanged (the head normalizes per
query). Entries are at most ``max(p, q)^{max ‖x‖₁}``; when that reaches ``2^63`` the table
can only be written as JSON (exact Python integers), not ``.npz``.

:func:`one_hot_table` builds the arrays; :func:`check_one_hot` writes them, reads the
file back with ``certify.kernels.table.load_table`` and checks it with
``certify check-kernel``'s :func:`certify.kernels.audit.check_kernel`.

>>> from certify.kernels.audit import load_family
>>> t = one_hot_table(load_family(None))
>>> t["phi_q"].shape, int(t["phi_k"].max()), t["base"]
((239, 15), 2176782336, Fraction(6, 1))
>>> one_hot_table(load_family(None), base=Fraction(-2))
Traceback (most recent call last):
...
certify.constructions.exhaustive.ConstructionInputError: the kernel base b must be a rational > 1, not -2
"""
from __future__ import annotations

import os
import tempfile
from fractions import Fraction
from typing import Any

from ..check import format_rational
from .exhaustive import ConstructionInputError

__all__ = ["one_hot_table", "write_table", "check_one_hot"]

_INT64 = 2**63


def one_hot_table(family, base: Fraction | None = None) -> dict[str, Any]:
    """The one-hot-query table for ``family`` (a :class:`certify.kernels.audit.FamilySpec`).

    Parameters
    ----------
    family : FamilySpec
        Inputs, token length and error threshold ``ε``.
    base : Fraction, optional
        ``b > 1``; default ``n/ε`` with ``n`` the longest input.

    Returns
    -------
    dict
        ``tokens`` (0/1 strings, sorted by bitmask), ``phi_q``, ``phi_k``, ``beta``, ``w``,
        ``values`` (numpy ``int64`` arrays, or nested lists of Python ints when an
        entry reaches ``2^63``), plus ``base``, ``queries`` (the query tokens in order of
        first use) and ``fits_int64``.
    """
    import numpy as np

    from ..exact import exact

    m = family.m
    n = max(X.length for X in family.inputs)
    b = Fraction(n) / family.error if base is None else exact(base, "base")
    if b <= 1:
        raise ConstructionInputError(f"the kernel base b must be a rational > 1, not {format_rational(b)}")
    p, q = b.numerator, b.denominator
    tokens = sorted({z for X in family.inputs for z in X.tokens})
    queries = list(dict.fromkeys(X.tokens[X.query] for X in family.inputs))
    col = {x: k for k, x in enumerate(queries)}
    top = max(p, q) ** max(x.bit_count() for x in queries)
    phi_q = [[1 if col.get(z) == k else 0 for k in range(len(queries))] for z in tokens]
    phi_k = [[p ** (x.bit_count() - (x & z).bit_count()) * q ** (x & z).bit_count() for x in queries] for z in tokens]
    bits = [[z >> k & 1 for k in range(m)] for z in tokens]
    table: dict[str, Any] = {
        "tokens": [format(z, f"0{m}b")[::-1] for z in tokens],
        "phi_q": phi_q, "phi_k": phi_k, "beta": [0] * len(tokens), "w": bits, "values": bits,
    }
    fits = top < _INT64
    if fits:
        table = {k: np.array(v) if k == "tokens" else np.array(v, dtype=np.int64) for k, v in table.items()}
    table.update(base=b, queries=queries, fits_int64=fits)
    return table


def write_table(table: dict[str, Any], path: str) -> None:
    """Write the arrays as ``.npz`` (compressed) or ``.json`` (by the file name's ending).

    Raises
    ------
    ConstructionInputError
        For another ending, or ``.npz`` when the entries do not fit ``int64``.
    OSError
        If the file cannot be written.
    """
    import json

    from ..outputs import atomic_writer, write_atomic

    fields = {k: table[k] for k in ("tokens", "phi_q", "phi_k", "beta", "w", "values")}
    if path.endswith(".json"):
        doc = {"note": f"one-hot-query construction, kernel base {format_rational(table['base'])} "
                       "(certify construction rank15; docs/math.md §8)"}
        doc.update({k: (v.tolist() if hasattr(v, "tolist") else v) for k, v in fields.items()})
        with atomic_writer(path, "w") as fh:  # a full disk leaves no truncated file (issue 42)
            json.dump(doc, fh)
            fh.write("\n")
    elif path.endswith(".npz"):
        if not table["fits_int64"]:
            raise ConstructionInputError(f"{path}: the table's integers exceed int64; write it as .json instead")
        from ..kernels.table import npz_bytes

        write_atomic(path, npz_bytes(fields))
    else:
        raise ConstructionInputError(f"--out must end in .npz or .json, not {os.path.basename(path)!r}")


def check_one_hot(family, out: str | None = None, base: Fraction | None = None):
    """Build the table, write it (to ``out`` or a temporary file), read it back and check it.

    Returns
    -------
    (table, report)
        The arrays and the :class:`certify.kernels.audit.KernelReport` of the file as read.
    """
    from ..kernels.audit import check_kernel
    from ..kernels.table import load_table

    table = one_hot_table(family, base)
    if out is not None:
        write_table(table, out)
        return table, check_kernel(load_table(out), family)
    suffix = ".npz" if table["fits_int64"] else ".json"
    with tempfile.TemporaryDirectory() as tmp:
        path = os.path.join(tmp, "table" + suffix)
        write_table(table, path)
        return table, check_kernel(load_table(path), family)
