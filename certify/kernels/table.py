"""Kernel tables: read ``.npz``/``.json`` files of a trained (or constructed) head, exactly and lazily.

Format: ``docs/kernel-table-format.md``. A table lists ``N`` tokens and either the
factors ``phi_q``, ``phi_k`` (``N × r``; ``α = φ_Q·φ_Kᵀ``) or the kernel itself
(``kernel``, ``N × N``), and optionally a readout: ``beta`` (``N``) with ``w`` (``N × N``,
one-hot values: ``g_{x_i}(x_j) = beta[i] + w[i][j]``) or with ``values`` (``N × d_v``) and
``w`` (``N × d_v``: ``g_{x_i}(x_j) = beta[i] + ⟨w[i], values[j]⟩``) — docs/math.md §2.

**Hostile input.** The file kind is read from its first bytes, never from its name.
In an ``.npz`` archive every member's ``.npy`` header is read and checked — field name,
dtype, shape, agreement of the shapes with each other and with the bytes the member
holds — before any array data is decompressed, so a forged shape or a decompression
bomb is refused after reading a few hundred bytes (``certify.kernels.npz``, which then
streams each member by rows, keeping only the rows a check uses). JSON is parsed only
after the memory its parse needs has been estimated from byte counts, and number
spellings whose exact value would be huge (``1e999999999``) are refused while parsing.

**Exact and lazy.** Each entry is converted exactly, and only when a check asks for
it, straight into python-flint ``fmpq``: a binary float to the rational it denotes
(``0.1`` in an ``.npz`` is ``3602879701896397/36028797018963968``), a JSON decimal
literal to the decimal it spells (``0.1`` in JSON is ``1/10``), ``"p/q"`` strings to
``p/q``. Tokens a family does not use cost their file size and nothing more. The number
spellings and their exact values: ``certify.kernels.numbers``; the fields, their shapes
and the tokens, checked before any entry is read: ``certify.kernels.fields``.

The reader, one stage per module: :func:`load_table` tells the file kind from its first
bytes and hands it to :mod:`certify.kernels.npz` or :mod:`certify.kernels.json_table`;
this module holds the table they build (:class:`KernelTable`), a table from arrays in
memory (:func:`table_from_arrays`), and the limits and work bounds of a check.
"""
from __future__ import annotations

import math
from fractions import Fraction
from typing import Any

from .fields import MAX_HEADS, MAX_TOKEN_BITS, MAX_TOKENS, NUMERIC, _check_fields, _check_heads, _tokens
from .npz import MAX_DATA_BYTES, MAX_FORTRAN_BYTES, MAX_TOKEN_CHARS, NPZ_DATE, npz_bytes, read_npz  # noqa: F401 - NPZ_DATE
from .numbers import (MAX_DIGITS, TableFormatError, _check_delta, _check_json_entry, _decimal_parts, _fmpq_mat, _json_entry,
                      _json_float, _Matrix, _np_entries)

__all__ = ["TableFormatError", "KernelTable", "load_table", "table_from_arrays", "LIMITS", "npz_bytes"]

MAX_FILE_BYTES = 2**30  # an .npz archive on disk
MAX_JSON_BYTES = 256 * 2**20
MAX_EXACT_ENTRIES = 5_000_000  # entries a check converts to exact rationals (the family's blocks); a batch's block entries
#: A check that forms its blocks a batch of query rows at a time (a streamed family, ``--all-pairs``): the factor
#: entries it converts once and holds (``check_batched_work``). Held as ``fmpq_mat`` entries that fit a machine word,
#: 2·10⁷ of them are about 330 MB, and about 1.3 GB at the peak of their conversion (docs/kernel-table-format.md, limits).
MAX_FACTOR_ENTRIES = 2 * 10**7
MAX_PRODUCT_WORK = 10**9  # Q·T·(r + d_v) multiply-adds to form the family's blocks of α (and g) from factors
MAX_WORK_OPTION = 10**11  # the most ``check-kernel --max-work`` may allow (the user's explicit choice)
MAX_BLOCK_ENTRIES = 2 * 10**7  # exact_predictions: entries of the α and g blocks of all heads, held at once
MAX_PREDICTION_TERMS = 2 * 10**7  # several heads: inputs × length × H terms of the predictions
_ROW_CHUNK = 2**20  # KernelTable._rows converts at most this many entries' pairs at a time
MAX_RANK_SECONDS = 60  # predicted time to prove the kernel rank's upper bound (certify.linalg.rank.predicted_upper_seconds)
LIMITS = {"file bytes (.npz)": MAX_FILE_BYTES, "file bytes (.json)": MAX_JSON_BYTES,
          "decompressed array bytes": MAX_DATA_BYTES, "tokens": MAX_TOKENS, "token bits": MAX_TOKEN_BITS,
          "token characters N·m": MAX_TOKEN_CHARS, "Fortran-order member bytes": MAX_FORTRAN_BYTES,
          "exact entries per check": MAX_EXACT_ENTRIES, "Q·T·(r + d_v) to form α and g from factors": MAX_PRODUCT_WORK,
          "factor entries held by a batched check (streamed family, --all-pairs)": MAX_FACTOR_ENTRIES,
          "α and g block entries of all heads (exact_predictions)": MAX_BLOCK_ENTRIES,
          "input × length × H terms (several heads)": MAX_PREDICTION_TERMS,
          "digits of a JSON number": MAX_DIGITS, "predicted seconds to prove a rank's upper bound": MAX_RANK_SECONDS,
          "heads": MAX_HEADS}


# --------------------------------------------------------------------------- the table


class KernelTable:
    """A validated table: tokens, kernel factors or kernel, optional readout, converted lazily.

    Only the rows and columns a check asks for become exact (:meth:`alpha_block`,
    :meth:`g_block`, :meth:`entry`), straight into python-flint matrices.
    """

    def __init__(self, tokens: tuple[int, ...], m: int, fields: dict[str, _Matrix], delta: Fraction = Fraction(0),
                 heads: tuple[int, ...] | None = None, value_heads: tuple[int, ...] | None = None) -> None:
        self.tokens = tokens
        #: The denominator constant ``δ ≥ 0`` (docs/math.md §2, "A denominator constant"): every
        #: denominator is ``δ + Σ_j α(x, x_j)``, a phantom key of weight ``δ`` whose readout value is ``β(x)``.
        self.delta = delta
        self.m = m
        self.fields = fields
        self.index = {x: i for i, x in enumerate(tokens)}
        self.size = len(tokens)
        self.width = fields["phi_q"].shape[1] if "phi_q" in fields else None
        self.has_readout = "beta" in fields
        self.readout_kind = None if not self.has_readout else ("values" if "values" in fields else "one-hot")
        self.value_width = fields["values"].shape[1] if "values" in fields else None
        #: The multi-head form (docs/kernel-table-format.md, "Several heads"): feature widths ``r_h``
        #: (columns of ``phi_q``/``phi_k``, in order) and value widths ``d_h`` (columns of ``values``/``w``).
        self.heads = heads if heads is not None else ((self.width,) if self.width is not None else (None,))
        self.value_heads = value_heads
        #: ``--clip-negative-alpha TOL``: entries of ``α`` in ``[−TOL, 0)`` are read as 0 (:meth:`clip_negative_alpha`).
        self.clip: Fraction | None = None
        #: The multiply-adds a check may spend forming blocks from factors (``check-kernel --max-work``).
        self.max_work = MAX_PRODUCT_WORK
        self.clipped = 0  # entries the last alpha_block set to 0 (several heads: the last block of each head, summed)
        self._clipped_by_head: dict[int | None, int] = {}

    @property
    def head_count(self) -> int:
        """``H``: 1 unless the table has the multi-head fields."""
        return len(self.heads)

    def _head_cols(self, sizes: tuple[int, ...] | None, head: int | None) -> list[int] | None:
        if head is None or sizes is None or len(sizes) == 1:
            return None
        start = sum(sizes[:head])
        return list(range(start, start + sizes[head]))

    def clip_negative_alpha(self, tol: Fraction) -> None:
        """From now on read entries of ``α`` in ``[−tol, 0)`` as 0: checks are then about the *clipped* kernel.

        For roundoff in an exported kernel that is ``≥ 0`` in the reals. Entries below
        ``−tol`` stay negative (and are refused by the check). The kernel rank is then
        the rank of the clipped block, not of the factors.
        """
        if tol < 0:
            raise TableFormatError(f"--clip-negative-alpha {tol}: the tolerance must be ≥ 0")
        self.clip = Fraction(tol)

    def prepare(self, rows: list[int]) -> None:
        """Read the entries of table rows ``rows`` of every field now, in one pass per field.

        Optional: any later access reads what it needs. Calling it once with every row a
        check will use keeps an ``.npz`` archive to one streaming pass per field, and
        refuses non-finite entries in those rows here.
        """
        for f in self.fields.values():
            f.prepare(rows)

    @classmethod
    def from_dict(cls, raw: dict[str, Any]) -> "KernelTable":
        """A table from a JSON-like dict: tokens as 0/1 strings or rows of 0/1, entries as int, ``Fraction`` or ``"p/q"``."""
        from .json_table import table_of_json_object  # here: json_table builds on KernelTable

        return table_of_json_object(raw)

    def check_work(self, queries: int, tokens: int) -> None:
        """Refuse, before converting anything, a check of ``queries`` × ``tokens`` beyond the limits (:func:`check_work`)."""
        check_work(queries, tokens, None if "kernel" in self.fields else self.width, self.has_readout, self.value_width,
                   self.max_work)

    def check_batched_work(self, queries: int, tokens: int) -> None:
        """:meth:`check_work` for a check that forms its blocks a batch of query rows at a time (:func:`check_batched_work`)."""
        check_batched_work(queries, tokens, None if "kernel" in self.fields else self.width, self.has_readout,
                           self.value_width, self.max_work)

    def entry(self, name: str, i: int, j: int | None = None) -> Fraction:
        """One entry of a numeric field, exactly (``j`` omitted for ``beta``)."""
        p, q = self.fields[name].pairs([i], None if j is None else [j])[0]
        return Fraction(p, q)

    def _rows(self, name: str, idx: list[int], cols: list[int] | None = None):
        """Rows ``idx`` (columns ``cols``) of a field as an exact ``fmpq_mat``, converted :data:`_ROW_CHUNK` entries at a time.

        Integers stay Python ints until the matrix is built: the same matrix as converting every
        entry to ``fmpq`` at once, with a fraction of the transient memory (a held column factor of a
        batched check is millions of entries).
        """
        from flint import fmpq, fmpq_mat

        f = self.fields[name]
        width = 1 if len(f.shape) == 1 else (f.shape[1] if cols is None else len(cols))
        if len(idx) * width <= _ROW_CHUNK:
            return _fmpq_mat(len(idx), width, f.pairs(idx, cols))
        f.prepare(idx)  # one pass over an .npz member for all of them
        step = max(1, _ROW_CHUNK // max(1, width))
        entries: list = []
        for s in range(0, len(idx), step):
            entries.extend(p if q == 1 else fmpq(p, q) for p, q in f.pairs(idx[s:s + step], cols))
        return fmpq_mat(len(idx), width, entries)

    def alpha_block(self, rows: list[int], cols: list[int], head: int | None = None):
        """``α`` (of head ``head`` in the multi-head form) on table rows × columns, as an exact ``fmpq_mat``.

        Clipped: see :meth:`clip_negative_alpha`.
        """
        if "kernel" in self.fields:
            A = self._rows("kernel", rows, cols)
        else:
            hc = self._head_cols(self.heads, head)
            A = self._rows("phi_q", rows, hc) * self._rows("phi_k", cols, hc).transpose()
        if self.clip is not None:
            from flint import fmpq

            lo, zero = fmpq(-self.clip.numerator, self.clip.denominator), fmpq(0)
            count = 0
            ncols = A.ncols()
            for k, a in enumerate(A.entries()):
                if a < zero and a >= lo:
                    A[k // ncols, k % ncols] = zero
                    count += 1
            if head is None:
                self._clipped_by_head = {}
            self._clipped_by_head[head] = count
            self.clipped = sum(self._clipped_by_head.values())
        return A

    def alpha_rank(self, rows: list[int], cols: list[int], head: int | None = None, max_seconds: float | None = None):
        """Exact rank of ``α`` on rows × columns, with the source of each bound (``RankResult``; through the factors when the table has them).

        The upper bound is not attempted when predicted to take more than
        :data:`MAX_RANK_SECONDS` (``RankResult.exact`` is then false).
        """
        from ..linalg.rank import factored_matrix_rank, matrix_rank, matrix_rank_of_pairs

        if max_seconds is None:  # read at the call: a test may lower the module's limit
            max_seconds = MAX_RANK_SECONDS

        if self.clip is not None and self._clipped_by_head.get(head):  # clipped: no longer Φ_Q Φ_Kᵀ, its own rank
            return matrix_rank(self.alpha_block(rows, cols, head), max_seconds=max_seconds)
        if "kernel" in self.fields:  # from the pairs: denominators cleared line by line when they differ widely
            return matrix_rank_of_pairs(len(rows), len(cols), self.fields["kernel"].pairs(rows, cols),
                                        max_seconds=max_seconds)
        hc = self._head_cols(self.heads, head)
        return factored_matrix_rank(self._rows("phi_q", rows, hc), self._rows("phi_k", cols, hc),
                                    max_seconds=max_seconds)

    def g_block(self, rows: list[int], cols: list[int], head: int | None = None):
        """The readout table ``g_{x_i}(x_j)`` on rows × columns (``fmpq_mat``); needs a readout.

        With ``head`` (the multi-head form): head ``h``'s part ``Σ_{k ∈ h} w[i,k]·values[j,k]``,
        without ``beta`` (which is added once, not per head).
        """
        from flint import fmpq_mat

        if head is not None and "values" in self.fields:
            vc = self._head_cols(self.value_heads, head)
            return self._rows("w", rows, vc) * self._rows("values", cols, vc).transpose()
        if "values" in self.fields:
            G = self._rows("w", rows) * self._rows("values", cols).transpose()
        else:
            G = self._rows("w", rows, cols)
        if head is not None:
            return G
        beta = self._rows("beta", rows)
        return G + fmpq_mat(len(rows), len(cols), [beta[i, 0] for i in range(len(rows)) for _ in cols])


def table_from_arrays(token_bits: list[str], arrays: dict[str, Any], delta: Any = 0) -> KernelTable:
    """A table held in memory (``certify.torch``), validated as a file is: fields, shapes, finite numbers.

    ``arrays``: numpy arrays named as the file's fields (``phi_q``, ``phi_k`` or ``kernel``;
    optionally ``beta``, ``w``, ``values``); floats are read as the rationals they are.
    ``delta``: the denominator constant, an int, a float (exactly), a ``Fraction``, or a string:
    ``"p/q"``, an integer or a decimal (``"1e-10"``, read exactly; spellings that expand are refused).
    """
    import numpy as np

    tokens, m = _tokens(list(token_bits))
    arrays = {k: np.asarray(v) for k, v in arrays.items()}
    _check_fields(set(arrays) | {"tokens"}, {k: tuple(v.shape) for k, v in arrays.items()}, len(tokens))
    for name, a in arrays.items():
        if a.dtype.kind not in "iuf":
            raise TableFormatError(f"{name}: expected a numeric array, got dtype {a.dtype}")
        if a.dtype.kind == "f" and not np.isfinite(a).all():
            k = tuple(int(i) for i in np.argwhere(~np.isfinite(a))[0])
            raise TableFormatError(f"{name}{list(k)} is {float(a[k])}; every entry must be finite")
    if hasattr(delta, "dtype") and getattr(delta, "ndim", None) == 0 or type(delta).__module__ == "numpy":
        if hasattr(delta, "detach"):  # a torch scalar; bfloat16 has no numpy dtype, and float64 holds it exactly
            delta = delta.detach().cpu()
            delta = (delta.double() if delta.is_floating_point() else delta).numpy()
        d = np.asarray(delta)
        if d.dtype.kind not in "iuf" or d.dtype.kind == "f" and not np.isfinite(d):
            raise TableFormatError(f"delta: expected a finite number, got {d.dtype} {d.item()!r}")
        value = Fraction(*_np_entries(d.reshape(1))[0])
    elif isinstance(delta, str):  # "p/q", an integer or a decimal ("1e-10" is 1/10¹⁰), as the CLI's --delta reads it
        text = delta.strip()
        if "/" in text or not any(c in text for c in ".eE"):
            _check_json_entry(text, "delta")
            value = Fraction(*_json_entry(text))
        else:
            try:
                value = Fraction(*_decimal_parts(_json_float(text)))
            except TableFormatError as exc:
                raise TableFormatError(f"delta: {str(exc).removeprefix('number ')}") from None
    elif isinstance(delta, (int, float, Fraction)) and not isinstance(delta, bool):
        if isinstance(delta, float) and not math.isfinite(delta):
            raise TableFormatError(f"delta is {delta}; it must be finite")
        value = Fraction(delta)
    else:
        raise TableFormatError(f"delta: expected a number, got {type(delta).__name__}")
    fields = {name: _Matrix(name, np.ascontiguousarray(arrays[name]), tuple(arrays[name].shape))
              for name in NUMERIC if name in arrays}
    delta = _check_delta(value)
    widths = [None if k not in arrays else [int(v) if arrays[k].dtype.kind in "iu" else v for v in arrays[k].tolist()]
              for k in ("heads", "value_heads")]
    return KernelTable(tokens, m, fields, delta, *_check_heads(fields, *widths))


def check_work(queries: int, tokens: int, width: int | None, has_readout: bool, value_width: int | None,
               max_work: int = MAX_PRODUCT_WORK) -> None:
    """Refuse (:class:`TableFormatError`) a check of ``queries`` × ``tokens`` beyond the limits, from the shapes alone.

    The entries a check converts: the kernel's ``Q × T`` block (``width`` ``None``: the
    kernel given directly), or ``(Q + T)·r`` factor entries (and ``Q·T·r`` multiply-adds to
    form the block); the readout's ``Q × T`` (one-hot, ``value_width`` ``None``) or
    ``(Q + T)·d_v`` entries (and ``Q·T·d_v`` multiply-adds), and ``Q`` of ``beta``.
    ``max_work``: the multiply-adds allowed (``check-kernel --max-work``; default
    :data:`MAX_PRODUCT_WORK`).
    """
    Q, T = queries, tokens
    if width is None:
        entries, work = Q * T, 0
    else:
        entries, work = (Q + T) * width, Q * T * width
    if has_readout:
        entries += Q + (Q * T if value_width is None else (Q + T) * value_width)
        if value_width is not None:
            work += Q * T * value_width  # the readout block w·valuesᵀ
    if entries > MAX_EXACT_ENTRIES or work > max_work:
        raise TableFormatError(
            f"checking {Q:,} query tokens × {T:,} tokens of this table needs {entries:,} exact entries"
            + (f" and {work:,} multiply-adds" if work else "")
            + f"; at most {MAX_EXACT_ENTRIES:,} and {max_work:,}"
            + (" (docs/kernel-table-format.md, limits; check-kernel --max-work sets the second)" if work > max_work else
               " (docs/kernel-table-format.md, limits)"))


def check_batched_work(queries: int, tokens: int, width: int | None, has_readout: bool, value_width: int | None,
                       max_work: int = MAX_PRODUCT_WORK) -> None:
    """Refuse (:class:`TableFormatError`) a check of ``queries`` × ``tokens`` whose blocks are formed a batch of query rows
    at a time (a streamed family: ``certify.kernels.blocks.RowBatches``) beyond the limits, from the shapes alone.

    Three counts (docs/kernel-table-format.md, limits): the factor entries converted once and
    held — ``(Q + T)·r`` of ``phi_q``/``phi_k``, ``(Q + T)·d_v`` of ``w``/``values`` and ``Q`` of
    ``beta`` — at most :data:`MAX_FACTOR_ENTRIES`; the entries given directly, converted a batch
    at a time — the kernel's ``Q × T`` (``width`` ``None``) and a one-hot readout's ``Q × T`` — at
    most :data:`MAX_EXACT_ENTRIES` in all, as :func:`check_work` counts them; and the ``Q·T·(r +
    d_v)`` multiply-adds at most ``max_work``. The block entries held at once are those of one
    batch, at most :data:`MAX_EXACT_ENTRIES` (``max(1, MAX_EXACT_ENTRIES // T)`` rows, and ``T``
    is at most ``MAX_TOKENS``, below it). Everything :func:`check_work` accepts is accepted.
    """
    Q, T = queries, tokens
    factors = direct = work = 0
    if width is None:
        direct = Q * T
    else:
        factors, work = (Q + T) * width, Q * T * width
    if has_readout:
        factors += Q
        if value_width is None:
            direct += Q * T
        else:
            factors += (Q + T) * value_width
            work += Q * T * value_width
    over = []
    if factors > MAX_FACTOR_ENTRIES:
        over.append(f"{factors:,} factor entries converted and held (at most {MAX_FACTOR_ENTRIES:,})")
    if direct > MAX_EXACT_ENTRIES:
        over.append(f"{direct:,} exact entries of the kernel or one-hot readout (at most {MAX_EXACT_ENTRIES:,})")
    if work > max_work:
        over.append(f"{work:,} multiply-adds (at most {max_work:,}; check-kernel --max-work sets it)")
    if over:
        raise TableFormatError(f"checking {Q:,} query tokens × {T:,} tokens of this table needs " + " and ".join(over)
                               + " (docs/kernel-table-format.md, limits)")


# --------------------------------------------------------------------------- files


def _load_npz(path: str) -> KernelTable:
    return KernelTable(*read_npz(path))


def load_table(path: str) -> KernelTable:
    """Read a table file, ``.npz`` or JSON, told apart by content; ``TableFormatError`` on any problem."""
    try:
        with open(path, "rb") as fh:
            head = fh.read(64)
            fh.seek(0, 2)
            size = fh.tell()
            if head[:4] in (b"PK\x03\x04", b"PK\x05\x06"):
                if size > MAX_FILE_BYTES:
                    raise TableFormatError(f"{path}: file larger than {MAX_FILE_BYTES // 2**20:,} MiB")
                kind = "npz"
            elif head.lstrip()[:1] == b"{" or head.lstrip()[:3] == b"\xef\xbb\xbf":
                if size > MAX_JSON_BYTES:
                    raise TableFormatError(f"{path}: JSON table larger than {MAX_JSON_BYTES // 2**20} MiB; use an .npz archive")
                fh.seek(0)
                data = fh.read(MAX_JSON_BYTES + 1)
                kind = "json"
            elif head[:6] == b"\x93NUMPY":
                raise TableFormatError(f"{path}: a single .npy array, not a table (an .npz archive of named arrays "
                                       "made by numpy.savez, or a JSON object)")
            elif not head:
                raise TableFormatError(f"{path}: file is empty")
            else:
                raise TableFormatError(f"{path}: not a kernel table: neither an .npz archive (zip) nor a JSON object "
                                       "(docs/kernel-table-format.md)")
    except TableFormatError:
        raise
    except FileNotFoundError:
        raise TableFormatError(f"{path}: no such file") from None
    except IsADirectoryError:
        raise TableFormatError(f"{path}: is a directory") from None
    except OSError as exc:
        raise TableFormatError(f"{path}: cannot read ({exc.strerror or exc})") from None
    if kind == "npz":
        try:
            return _load_npz(path)
        except TableFormatError as exc:
            if str(exc).startswith(f"{path}: "):
                raise
            raise TableFormatError(f"{path}: {exc}") from None
    if data.startswith(b"\xef\xbb\xbf"):
        data = data[3:]
    from .json_table import loads_json  # here: json_table builds on KernelTable

    try:
        return loads_json(data)
    except TableFormatError as exc:
        raise TableFormatError(f"{path}: {exc}") from None
