"""Kernel tables: read ``.npz``/``.json`` files of a trained (or constructed) head, exactly.

Format: ``docs/kernel-table-format.md``. A table lists ``N`` tokens and either the
factors ``phi_q``, ``phi_k`` (``N × r``; ``α = φ_Q·φ_Kᵀ``) or the kernel itself
(``kernel``, ``N × N``), and optionally a readout: ``beta`` (``N``) with ``w`` (``N × N``,
one-hot values: ``g_{x_i}(x_j) = beta[i] + w[i][j]``) or with ``values`` (``N × d_v``) and
``w`` (``N × d_v``: ``g_{x_i}(x_j) = beta[i] + ⟨w[i], values[j]⟩``) — docs/math.md §2.

Every number is converted exactly, once, here: a binary float to the rational it
denotes (``0.1`` in an ``.npz`` is ``3602879701896397/36028797018963968``), a JSON
decimal literal to the decimal it spells (``0.1`` in JSON is ``1/10``), ``"p/q"``
strings to ``p/q``. Everything downstream is python-flint ``fmpq``.

>>> t = loads_json('{"tokens": ["10", "01"], "kernel": [[1, "1/2"], [0.25, 1]]}')
>>> t.size, t.m, t.width, t.has_readout
(2, 2, None, False)
>>> loads_json('{"tokens": ["10", "01"], "kernel": [[1, NaN], [0, 1]]}')
Traceback (most recent call last):
...
certify.kernels.table.TableFormatError: NaN is not a number
"""
from __future__ import annotations

import json
import math
import zipfile
from decimal import Decimal
from fractions import Fraction
from typing import Any

__all__ = ["TableFormatError", "KernelTable", "load_table", "loads_json"]

KEYS = ("tokens", "phi_q", "phi_k", "kernel", "beta", "w", "values", "note")
MAX_ENTRIES = 50_000_000


class TableFormatError(ValueError):
    """The table file is unreadable or malformed (exit 2); the message names the field."""


def _fmpq(x: Fraction):
    from flint import fmpq

    return fmpq(x.numerator, x.denominator)


class KernelTable:
    """A validated table: tokens, exact kernel factors or kernel, optional exact readout.

    Numeric fields stay as nested lists of ``Fraction`` until a sub-matrix is asked for
    (:meth:`alpha_block`, :meth:`g_block`), so that only the rows a family uses are
    converted to flint matrices.
    """

    def __init__(self, fields: dict[str, Any]) -> None:
        self.fields = fields
        self.tokens: tuple[int, ...] = fields["tokens"]
        self.m: int = fields["m"]
        self.index = {x: i for i, x in enumerate(self.tokens)}
        self.size = len(self.tokens)
        self.width = len(fields["phi_q"][0]) if "phi_q" in fields else None
        self.has_readout = "beta" in fields
        self.readout_kind = None if not self.has_readout else ("values" if "values" in fields else "one-hot")

    def _rows(self, name: str, idx: list[int], cols: list[int] | None = None):
        """Rows ``idx`` of field ``name`` (all columns, or columns ``cols``) as an exact ``fmpq_mat``."""
        from flint import fmpq_mat

        data = self.fields[name]
        cols = range(len(data[idx[0]])) if cols is None else cols
        return fmpq_mat(len(idx), len(cols), [_fmpq(data[i][j]) for i in idx for j in cols])

    def alpha_block(self, rows: list[int], cols: list[int]):
        """``α`` restricted to table rows × columns, as an exact ``fmpq_mat``."""
        if "kernel" in self.fields:
            return self._rows("kernel", rows, cols)
        return self._rows("phi_q", rows) * self._rows("phi_k", cols).transpose()

    def alpha_rank(self, rows: list[int], cols: list[int], block=None):
        """Exact rank of ``α`` on rows × columns, with the source of each bound (``RankResult``; through the factors when the table has them)."""
        from ..lemmas.frobenius import factored_matrix_rank, matrix_rank

        if "kernel" in self.fields:
            return matrix_rank(block if block is not None else self.alpha_block(rows, cols))
        return factored_matrix_rank(self._rows("phi_q", rows), self._rows("phi_k", cols))

    def g_block(self, rows: list[int], cols: list[int]):
        """The readout table ``g_{x_i}(x_j)`` on rows × columns (``fmpq_mat``); needs a readout."""
        from flint import fmpq_mat

        if "values" in self.fields:
            G = self._rows("w", rows) * self._rows("values", cols).transpose()
        else:
            G = self._rows("w", rows, cols)
        beta = self.fields["beta"]
        return G + fmpq_mat(len(rows), len(cols), [_fmpq(beta[i]) for i in rows for _ in cols])


# --------------------------------------------------------------------------- reading


def _decimal(text: str) -> Decimal:
    return Decimal(text)


def _no_constants(text: str):
    raise TableFormatError(f"{text} is not a number")


def _scalar(v: Any, where: str) -> Fraction:
    """One JSON entry: int, decimal literal (Decimal), or a "p/q" string."""
    if isinstance(v, bool) or v is None:
        raise TableFormatError(f"{where}: expected a number, got {json.dumps(v)}")
    if isinstance(v, int):
        return Fraction(v)
    if isinstance(v, Decimal):
        if not v.is_finite():
            raise TableFormatError(f"{where}: {v} is not finite")
        return Fraction(v)
    if isinstance(v, str):
        if len(v) > 1000:
            raise TableFormatError(f"{where}: number string longer than 1000 characters")
        try:
            q = Fraction(v.strip())
        except (ValueError, ZeroDivisionError):
            raise TableFormatError(f"{where}: {v[:40]!r} is not a rational number \"p/q\"") from None
        return q
    raise TableFormatError(f"{where}: expected a number, got {type(v).__name__}")


def _json_matrix(v: Any, name: str) -> list:
    if not isinstance(v, list):
        raise TableFormatError(f"{name}: expected an array")
    if name == "beta":
        return [_scalar(x, f"{name}[{i}]") for i, x in enumerate(v)]
    out = []
    for i, row in enumerate(v):
        if not isinstance(row, list):
            raise TableFormatError(f"{name}[{i}]: expected an array (a row)")
        out.append([_scalar(x, f"{name}[{i}][{j}]") for j, x in enumerate(row)])
    return out


def _np_exact(arr, name: str) -> list:
    """Exact rationals from a numpy array (ints, bools or finite binary floats)."""
    import numpy as np

    kind = arr.dtype.kind
    if kind == "c":
        raise TableFormatError(f"{name}: complex numbers are not allowed")
    if kind not in "iufb":
        raise TableFormatError(f"{name}: expected a numeric array, got dtype {arr.dtype}")
    if kind == "f":
        bad = np.argwhere(~np.isfinite(arr))
        if len(bad):
            idx = tuple(int(i) for i in bad[0])
            raise TableFormatError(f"{name}{list(idx)} is {float(arr[idx])}; every entry must be finite")
        conv = lambda x: Fraction(*x.as_integer_ratio())  # noqa: E731 - exact for every float width
    else:
        conv = lambda x: Fraction(int(x))  # noqa: E731
    if arr.ndim == 1:
        return [conv(x) for x in arr]
    return [[conv(x) for x in row] for row in arr]


def _tokens(v: Any, name: str = "tokens") -> tuple[tuple[int, ...], int]:
    """Tokens as 0/1 strings or an N×m 0/1 integer array → (bitmasks, m)."""
    rows: list[str] = []
    for i, t in enumerate(v):
        if isinstance(t, str):
            s = t
        else:
            try:
                bits = [int(b) if not isinstance(b, bool) else int(b) for b in t]
            except (TypeError, ValueError):
                raise TableFormatError(f"{name}[{i}]: expected a 0/1 string or a row of 0/1 integers") from None
            if any(b not in (0, 1) for b in bits):
                raise TableFormatError(f"{name}[{i}]: entries must be 0 or 1")
            s = "".join(map(str, bits))
        if not s or s.strip("01"):
            raise TableFormatError(f"{name}[{i}]: {s[:40]!r} is not a nonempty 0/1 string")
        rows.append(s)
    if not rows:
        raise TableFormatError(f"{name}: no tokens")
    m = len(rows[0])
    masks = []
    seen: dict[int, int] = {}
    for i, s in enumerate(rows):
        if len(s) != m:
            raise TableFormatError(f"{name}[{i}] has length {len(s)}, {name}[0] has {m}")
        x = int(s[::-1], 2)
        if x in seen:
            raise TableFormatError(f"{name}[{i}] repeats {name}[{seen[x]}] ({s})")
        seen[x] = i
        masks.append(x)
    return tuple(masks), m


def _validate(raw: dict[str, Any], convert) -> KernelTable:
    unknown = [k for k in raw if k not in KEYS]
    if unknown:
        raise TableFormatError(f"unknown field {unknown[0]!r}; a table has {', '.join(KEYS)}")
    if "tokens" not in raw:
        raise TableFormatError("missing field 'tokens'")
    tokens, m = _tokens(raw["tokens"])
    N = len(tokens)
    fields: dict[str, Any] = {"tokens": tokens, "m": m}
    has_factors = "phi_q" in raw or "phi_k" in raw
    if has_factors == ("kernel" in raw):
        raise TableFormatError("give either 'phi_q' and 'phi_k' or 'kernel', not both and not neither")
    if has_factors and not ("phi_q" in raw and "phi_k" in raw):
        raise TableFormatError("'phi_q' and 'phi_k' come together")
    readout = [k for k in ("beta", "w", "values") if k in raw]
    if readout and not ("beta" in raw and "w" in raw):
        raise TableFormatError("a readout needs both 'beta' and 'w' ('values' is optional)")
    for name in ("phi_q", "phi_k", "kernel", "beta", "w", "values"):
        if name in raw:
            fields[name] = convert(raw[name], name)

    def shape(name: str, rows: int, cols: int | None) -> None:
        val = fields[name]
        if cols is None:
            if len(val) != rows:
                raise TableFormatError(f"{name} has {len(val)} entries; expected N = {rows}")
            return
        if len(val) != rows:
            raise TableFormatError(f"{name} has {len(val)} rows; expected N = {rows}")
        for i, row in enumerate(val):
            if len(row) != cols:
                raise TableFormatError(f"{name}[{i}] has {len(row)} columns; expected {cols}")

    def width(name: str) -> int:  # the column count of the first row, which must be ≥ 1
        cols = len(fields[name][0]) if fields[name] else 0
        if cols < 1:
            raise TableFormatError(f"{name} needs at least one row and one column")
        return cols

    if has_factors:
        r = width("phi_q")
        shape("phi_q", N, r)
        shape("phi_k", N, r)
    else:
        shape("kernel", N, N)
    if "beta" in fields:
        shape("beta", N, None)
        if "values" in fields:
            dv = width("values")
            shape("values", N, dv)
            shape("w", N, dv)
        else:
            shape("w", N, N)
    return KernelTable(fields)


def _count_entries(shape: tuple[int, ...]) -> int:
    return math.prod(shape) if shape else 1


def load_table(path: str) -> KernelTable:
    """Read a ``.npz`` (``allow_pickle=False``) or ``.json`` table; ``TableFormatError`` on any problem."""
    if path.endswith(".json"):
        try:
            with open(path, "rb") as fh:
                data = fh.read()
        except OSError as exc:
            raise TableFormatError(f"{path}: cannot read ({exc.strerror or exc})") from None
        return loads_json(data)
    import numpy as np

    try:
        npz = np.load(path, allow_pickle=False)
        if not isinstance(npz, np.lib.npyio.NpzFile):
            raise TableFormatError(f"{path}: a single array, not an .npz archive of named arrays")
        raw = {}
        with npz:
            for k in npz.files:
                if k not in KEYS:
                    raise TableFormatError(f"unknown field {k!r}; a table has {', '.join(KEYS)}")
                arr = npz[k]
                if _count_entries(arr.shape) > MAX_ENTRIES:
                    raise TableFormatError(f"{k}: {arr.size} entries is more than {MAX_ENTRIES}")
                raw[k] = arr
    except TableFormatError:
        raise
    except FileNotFoundError:
        raise TableFormatError(f"{path}: no such file") from None
    except IsADirectoryError:
        raise TableFormatError(f"{path}: is a directory") from None
    except ValueError as exc:  # includes "Object arrays cannot be loaded when allow_pickle=False"
        msg = str(exc).splitlines()[0] if str(exc) else type(exc).__name__
        if "pickle" in msg:
            msg = "contains pickled Python objects, which are never loaded (allow_pickle=False)"
        raise TableFormatError(f"{path}: {msg}") from None
    except (OSError, EOFError, zipfile.BadZipFile, KeyError) as exc:
        raise TableFormatError(f"{path}: not a readable .npz archive ({type(exc).__name__}: {str(exc)[:80]})") from None

    def convert(arr, name):
        if name == "beta":
            if arr.ndim != 1:
                raise TableFormatError(f"beta must be one-dimensional, got shape {arr.shape}")
        elif arr.ndim != 2:
            raise TableFormatError(f"{name} must be two-dimensional, got shape {arr.shape}")
        return _np_exact(arr, name)

    if "tokens" in raw:
        tok = raw["tokens"]
        if tok.dtype.kind in "US":
            raw["tokens"] = [str(t) if tok.dtype.kind == "U" else t.decode("ascii", "replace") for t in tok.ravel()]
        elif tok.dtype.kind in "iub" and tok.ndim == 2:
            raw["tokens"] = tok.astype(int).tolist()
        else:
            raise TableFormatError(f"tokens: expected 0/1 strings or an N×m 0/1 integer array, got {tok.dtype} {tok.shape}")
    return _validate(raw, convert)


def loads_json(data: bytes | str) -> KernelTable:
    """Parse a JSON table (decimal literals exact, NaN/Infinity refused)."""
    if isinstance(data, bytes):
        try:
            data = data.decode("utf-8")
        except UnicodeDecodeError:
            raise TableFormatError("table is not UTF-8 text") from None
    try:
        raw = json.loads(data, parse_float=_decimal, parse_constant=_no_constants)
    except TableFormatError:
        raise
    except (json.JSONDecodeError, RecursionError, ValueError) as exc:
        raise TableFormatError(f"invalid JSON: {str(exc).splitlines()[0][:120]}") from None
    if not isinstance(raw, dict):
        raise TableFormatError("a JSON table is an object with fields tokens, phi_q/phi_k or kernel, …")

    def convert(v, name):
        return _json_matrix(v, name)

    raw = dict(raw)
    raw.pop("note", None)
    if "tokens" in raw and not isinstance(raw["tokens"], list):
        raise TableFormatError("tokens: expected an array")
    return _validate(raw, convert)
