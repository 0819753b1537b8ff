"""Kernel tables as ``.npz`` archives: checked from their headers, then read by rows, on demand.

**Hostile input.** Every member's ``.npy`` header is read and checked — field name, dtype,
shape, agreement of the shapes with each other and with the bytes the member holds —
before any array data is decompressed (:func:`_npz_headers`), so a forged shape or a
decompression bomb is refused after reading a few hundred bytes. Then the tokens are
decoded whole (at most :data:`MAX_TOKEN_CHARS` bits) and each numeric field becomes an
:class:`_NpzMatrix`, which streams its member and keeps only the rows a check asks for
(:func:`read_npz`; ``certify.kernels.table.load_table`` makes the table of them).

:func:`npz_bytes` writes an archive as ``numpy.savez`` does, but reproducibly.

>>> import os, tempfile, numpy as np
>>> arrays = {"tokens": np.array(["10", "01"]), "kernel": np.array([[1.0, 0.5], [0.25, 1.0]])}
>>> with tempfile.TemporaryDirectory() as tmp:
...     path = os.path.join(tmp, "t.npz")
...     with open(path, "wb") as fh:
...         _ = fh.write(npz_bytes(arrays))
...     tokens, m, fields, delta, heads, value_heads = read_npz(path)
...     print(tokens, m, fields["kernel"].pairs([1], [0]), delta, heads)
(1, 2) 2 [(1, 4)] 0 None
"""
from __future__ import annotations

import math
import zipfile
import zlib
from fractions import Fraction
from typing import Any

from .fields import KEYS, MAX_TOKENS, NUMERIC, _check_bits, _check_fields, _check_heads, _tokens
from .numbers import TableFormatError, _check_delta, _Matrix, _np_entries

__all__ = ["read_npz", "npz_bytes", "NPZ_DATE"]

MAX_DATA_BYTES = 2**30  # all arrays of an .npz, decompressed
MAX_HEADER = 10_000  # bytes of one .npy header
MAX_TOKEN_CHARS = 2**26  # N·m: the tokens are decoded whole
MAX_FORTRAN_BYTES = 64 * 2**20  # a Fortran-order member is read whole, not streamed by rows


def _npz_headers(zf: zipfile.ZipFile, path: str) -> dict[str, tuple]:
    """Read and check every member's ``.npy`` header; return name → (info, dtype, shape, fortran, offset)."""
    from numpy.lib import format as npy

    infos = zf.infolist()
    if len(infos) > len(KEYS):
        raise TableFormatError(f"{path}: the archive has {len(infos):,} members; a table has at most {len(KEYS)}")
    out: dict[str, tuple] = {}
    total = 0
    for info in infos:
        name = info.filename
        field = name[:-4] if name.endswith(".npy") else None
        if field is None or field not in KEYS:
            raise TableFormatError(f"{path}: unknown field {(field or name)[:60]!r} (member {name[:60]!r}); a table has "
                                   f"{', '.join(KEYS)}, each as a .npy member")
        if field in out:
            raise TableFormatError(f"{path}: field {field!r} appears twice in the archive")
        try:
            with zf.open(info) as fp:
                version = npy.read_magic(fp)
                if version == (1, 0):
                    shape, fortran, dtype = npy.read_array_header_1_0(fp, max_header_size=MAX_HEADER)
                elif version == (2, 0):
                    shape, fortran, dtype = npy.read_array_header_2_0(fp, max_header_size=MAX_HEADER)
                else:
                    raise TableFormatError(f"{path}: member {name!r} has .npy format version {version}; "
                                           "versions 1.0 and 2.0 are read (numpy.save writes 1.0)")
                offset = fp.tell()
        except TableFormatError:
            raise
        except Exception as exc:  # numpy parses the header of an untrusted file: any failure means "unreadable"
            raise TableFormatError(f"{path}: member {name!r} is not a readable .npy array "
                                   f"({type(exc).__name__}: {str(exc).splitlines()[0][:80] if str(exc) else ''})") from None
        if dtype.hasobject:
            raise TableFormatError(f"{path}: {field} holds Python objects (pickled data), which are never loaded")
        if dtype.fields is not None or dtype.subdtype is not None:
            raise TableFormatError(f"{path}: {field} has a structured dtype {dtype}; expected plain numbers")
        kinds = "USiubf" if field in ("tokens", "note") else "iufb"  # a note: free text (or numbers), never read
        if dtype.kind == "c":
            raise TableFormatError(f"{field}: complex numbers are not allowed")
        if dtype.kind not in kinds:
            raise TableFormatError(f"{field}: expected {'0/1 strings or a 0/1 array (integers, booleans or floats)' if field == 'tokens' else 'a numeric array'}, "
                                   f"got dtype {dtype}")
        if any(d < 0 for d in shape) or len(shape) > 2:
            raise TableFormatError(f"{field}: shape {shape} is not that of a vector or matrix")
        nbytes = math.prod(shape) * dtype.itemsize
        if info.file_size != offset + nbytes:
            raise TableFormatError(f"{path}: member {name!r} declares shape {shape} ({nbytes:,} bytes of data) "
                                   f"but holds {max(info.file_size - offset, 0):,}")
        total += nbytes
        if total > MAX_DATA_BYTES:
            raise TableFormatError(f"{path}: the arrays would take more than {MAX_DATA_BYTES // 2**20:,} MiB "
                                   "decompressed; refused before decompressing")
        out[field] = (info, dtype, shape, fortran, offset)
    return out


_CORRUPT = (zipfile.BadZipFile, zlib.error, EOFError, OSError, ValueError, RuntimeError, NotImplementedError)


def _npz_stream_rows(path: str, header: tuple, row_bytes: int, rows: list[int], take) -> None:
    """Stream a member's data, calling ``take(row, bytes)`` for each of the sorted ``rows``; stop after the last."""
    from ..check import Progress

    info, dtype, shape, fortran, offset = header
    progress = Progress(f"reading {info.filename}", total=(rows[-1] + 1) * row_bytes if rows else 0)
    try:
        with zipfile.ZipFile(path) as zf, zf.open(info) as fp:
            pos = -offset  # bytes of data consumed so far (negative while in the header)
            for r in rows:
                target = r * row_bytes
                while pos < target:
                    step = min(target - pos, _NpzMatrix.CHUNK)
                    got = fp.read(step)
                    if len(got) != step:
                        raise TableFormatError(f"{path}: member {info.filename!r} is truncated")
                    pos += step
                    progress.update(max(pos, 0), "bytes")
                buf = fp.read(row_bytes)
                if len(buf) != row_bytes:
                    raise TableFormatError(f"{path}: member {info.filename!r} is truncated")
                take(r, buf)
                pos += row_bytes
        progress.close()
    except TableFormatError:
        raise
    except _CORRUPT as exc:
        raise TableFormatError(f"{path}: member {info.filename!r} is corrupt ({type(exc).__name__}: "
                               f"{str(exc).splitlines()[0][:80] if str(exc) else ''})") from None


def _npz_read(path: str, header: tuple, nbytes: int) -> bytes:
    """A whole member's data (its size was checked against its header)."""
    out: list[bytes] = []
    info = header[0]
    _npz_stream_rows(path, header, nbytes, [0], lambda r, buf: out.append(buf))
    return out[0]


class _NpzMatrix(_Matrix):
    """One field of an ``.npz`` archive, decompressed lazily and only up to the rows asked for.

    A C-order ``.npy`` member stores its rows one after another, so the rows a check needs
    are read by streaming the member once, keeping those rows and discarding the others
    chunk by chunk, and stopping after the last one: memory is proportional to the rows
    used, and the rows past the last one used are never decompressed. (Fortran-order
    members are read whole.) Every row read is checked to be finite.
    """

    CHUNK = 16 * 2**20

    def __init__(self, name: str, path: str, header: tuple) -> None:
        super().__init__(name, None, tuple(header[2]))
        self.path, self.header = path, header
        self.loaded: dict[int, int] = {}  # table row → row of self.data

    def prepare(self, rows: list[int]) -> None:
        """Make sure ``rows`` are in memory (one streaming pass over the member for all missing rows)."""
        import numpy as np

        missing = sorted(set(rows) - set(self.loaded))
        if not missing:
            return
        keep = sorted(set(self.loaded) | set(missing))
        info, dtype, shape, fortran, offset = self.header
        width = shape[1] if len(shape) == 2 else 1
        row_bytes = width * dtype.itemsize
        if fortran and len(shape) == 2:
            if math.prod(shape) * dtype.itemsize > MAX_FORTRAN_BYTES:
                raise TableFormatError(f"{self.path}: {self.name} is stored in Fortran order and holds "
                                       f"{math.prod(shape) * dtype.itemsize:,} bytes; such members are read whole, at "
                                       f"most {MAX_FORTRAN_BYTES // 2**20} MiB (save it in C order: numpy.ascontiguousarray)")
            whole = _npz_read(self.path, self.header, math.prod(shape) * dtype.itemsize)
            block = np.frombuffer(whole, dtype=dtype).reshape(shape, order="F")[keep]
        else:
            block = np.empty((len(keep), width), dtype=dtype)
            want = {r: k for k, r in enumerate(keep)}
            _npz_stream_rows(self.path, self.header, row_bytes, keep, lambda r, buf: block.__setitem__(
                want[r], np.frombuffer(buf, dtype=dtype)))
            if len(shape) == 1:
                block = block[:, 0]
        if dtype.kind == "f" and block.size:
            finite = np.isfinite(block)
            if not finite.all():
                k = tuple(int(i) for i in np.argwhere(~finite)[0])
                where = [keep[k[0]]] + list(k[1:])
                raise TableFormatError(f"{self.path}: {self.name}{where} is {float(block[k])}; every entry must be finite")
        self.data = block
        self.loaded = {r: k for k, r in enumerate(keep)}

    def pairs(self, rows: list[int], cols: list[int] | None) -> list[tuple[int, int]]:
        self.prepare(rows)
        local = [self.loaded[r] for r in rows]
        return super().pairs(local, cols)


def read_npz(path: str) -> tuple:
    """A table archive's parts, as ``KernelTable`` takes them: ``(tokens, m, fields, delta, heads, value_heads)``.

    Every member's header is checked first (:func:`_npz_headers`), then the fields' shapes and the
    tokens (decoded whole); the numeric fields become :class:`_NpzMatrix`, read later and lazily.
    """
    import numpy as np

    try:
        zf = zipfile.ZipFile(path)
    except _CORRUPT as exc:
        raise TableFormatError(f"{path}: not a readable .npz archive ({type(exc).__name__}: {str(exc)[:80]})") from None
    with zf:
        headers = _npz_headers(zf, path)
    headers.pop("note", None)
    delta = _npz_delta(path, headers.pop("delta")) if "delta" in headers else Fraction(0)
    if "tokens" not in headers:
        raise TableFormatError("missing field 'tokens'")
    tok_h = headers["tokens"]
    if tok_h[1].kind in "US" and len(tok_h[2]) != 1 or tok_h[1].kind in "iubf" and len(tok_h[2]) != 2:
        raise TableFormatError(f"tokens: expected N 0/1 strings or an N×m 0/1 array, got {tok_h[1]} {tok_h[2]}")
    N = tok_h[2][0]
    _check_fields(set(headers), {k: h[2] for k, h in headers.items() if k != "tokens"}, N)
    width = tok_h[2][1] if len(tok_h[2]) == 2 else tok_h[1].itemsize // (4 if tok_h[1].kind == "U" else 1)
    if N > MAX_TOKENS or N * width > MAX_TOKEN_CHARS:  # from the header: the tokens are decoded whole
        raise TableFormatError(f"tokens: {N:,} tokens of up to {width:,} bits; at most {MAX_TOKENS:,} tokens "
                               f"and {MAX_TOKEN_CHARS:,} bits in all")
    tok = np.frombuffer(_npz_read(path, tok_h, math.prod(tok_h[2]) * tok_h[1].itemsize), dtype=tok_h[1])
    tok = tok.reshape(tok_h[2], order="F" if tok_h[3] else "C")
    if tok.dtype.kind == "U":
        rows = [str(t) for t in tok.tolist()]
    elif tok.dtype.kind == "S":
        rows = [t.decode("ascii", "replace") for t in tok.tolist()]
    else:
        _check_bits(tok)
        text = (np.ascontiguousarray(tok, dtype=np.uint8) + ord("0")).tobytes().decode("ascii")
        rows = [text[i * width:(i + 1) * width] for i in range(N)]
    tokens, m = _tokens(rows)
    fields = {name: _NpzMatrix(name, path, headers[name]) for name in NUMERIC if name in headers}
    widths = [None if k not in headers else _npz_widths(path, k, headers[k]) for k in ("heads", "value_heads")]
    return (tokens, m, fields, delta, *_check_heads(fields, *widths))


def _npz_widths(path: str, name: str, header: tuple) -> list[Any]:
    """A ``heads``/``value_heads`` member's entries (at most :data:`certify.kernels.fields.MAX_HEADS`
    integers; the shape was checked)."""
    import numpy as np

    info, dtype, shape, fortran, offset = header
    if dtype.kind not in "iu":
        raise TableFormatError(f"{name}: expected integers, got dtype {dtype}")
    return [int(v) for v in np.frombuffer(_npz_read(path, header, math.prod(shape) * dtype.itemsize), dtype=dtype)]


def _npz_delta(path: str, header: tuple) -> Fraction:
    """The ``delta`` member: one finite number ≥ 0 (shape ``()`` as ``numpy.savez(delta=1e-6)`` writes it, or ``(1,)``)."""
    import numpy as np

    info, dtype, shape, fortran, offset = header
    if shape not in ((), (1,)) or dtype.kind not in "iuf":
        raise TableFormatError(f"delta: expected one number (shape ()), got dtype {dtype} shape {shape}")
    value = np.frombuffer(_npz_read(path, header, dtype.itemsize), dtype=dtype)[0]
    if dtype.kind == "f" and not np.isfinite(value):
        raise TableFormatError(f"delta is {float(value)}; it must be finite")
    p, q = _np_entries(np.asarray(value))[0]
    return _check_delta(Fraction(p, q))


#: The date every member of a written ``.npz`` carries (the earliest a zip can hold), so
#: that the same arrays always give the same bytes.
NPZ_DATE = (1980, 1, 1, 0, 0, 0)


def npz_bytes(arrays: dict[str, Any], *, compress: bool = True, allow_pickle: bool = False) -> bytes:
    """An ``.npz`` archive of ``arrays`` as ``numpy.savez[_compressed]`` writes it, but reproducible.

    numpy dates each member with the current time, so writing the same table twice gives
    different files; here every member is dated :data:`NPZ_DATE`. Members are ``<name>.npy``
    in the order given, without pickles unless ``allow_pickle`` (the reader refuses object
    arrays; the test corpus writes one to show it).
    """
    import io

    import numpy as np

    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w", zipfile.ZIP_DEFLATED if compress else zipfile.ZIP_STORED) as zf:
        for name, arr in arrays.items():
            member = io.BytesIO()
            np.lib.format.write_array(member, np.asanyarray(arr), allow_pickle=allow_pickle)
            info = zipfile.ZipInfo(f"{name}.npy", date_time=NPZ_DATE)
            info.compress_type = zf.compression
            info.external_attr = 0o644 << 16
            zf.writestr(info, member.getvalue())
    return buf.getvalue()
