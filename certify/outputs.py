"""Writing output files: all or nothing (issue 42).

Every file a ``certify`` command writes — certificates, families, kernel tables (``.json``
and ``.npz``), plots, run records — goes through :func:`atomic_writer`: the bytes go to a
temporary file in the destination's folder (``NAME.tmp<pid>``), which is renamed onto the
destination only once it is complete and closed. A full disk, a quota, Ctrl-C or SIGTERM
midway leave the destination as it was (absent, or the previous file) and no temporary
file behind; the error reaches the command, which exits 2 naming the file.

>>> import os, tempfile
>>> folder = tempfile.mkdtemp()
>>> path = os.path.join(folder, "x.txt")
>>> write_atomic(path, "complete\\n")
>>> open(path).read()
'complete\\n'
>>> with atomic_writer(path) as fh:
...     _ = fh.write(b"half")
...     raise OSError(28, "No space left on device")
Traceback (most recent call last):
OSError: [Errno 28] No space left on device
>>> open(path).read(), sorted(os.listdir(folder))  # the old file, whole; no temporary file left
('complete\\n', ['x.txt'])
"""
from __future__ import annotations

import contextlib
import errno
import os
import stat
from typing import IO, Iterator

__all__ = ["atomic_writer", "write_atomic", "save_figure", "refuse_special_file"]


def refuse_special_file(path: str | os.PathLike) -> str:
    """``path`` as a string; ``OSError`` if it exists and is not a regular file (a device, a FIFO, a folder).

    Writers rename a temporary file into place, which would replace such an entry rather
    than write to it.
    """
    path = os.fspath(path)
    try:
        mode = os.stat(path).st_mode
    except FileNotFoundError:
        return path
    if not stat.S_ISREG(mode):
        raise OSError(errno.EINVAL, "exists and is not a regular file", path)
    return path


@contextlib.contextmanager
def atomic_writer(path: str | os.PathLike, mode: str = "wb", encoding: str | None = None) -> Iterator[IO]:
    """A file object whose contents replace ``path`` only if the ``with`` block completes.

    ``mode`` is ``"wb"`` or ``"w"`` (text, ``encoding`` default UTF-8). On any exception —
    ``OSError`` from a full disk, ``KeyboardInterrupt`` — the temporary file is removed and
    the exception propagates; ``path`` is untouched.
    """
    if mode not in ("wb", "w"):
        raise ValueError(f"mode {mode!r}: 'wb' or 'w'")
    path = refuse_special_file(path)
    tmp = f"{path}.tmp{os.getpid()}"
    try:
        with open(tmp, mode, encoding=(encoding or "utf-8") if mode == "w" else None) as fh:
            yield fh
        os.replace(tmp, path)
    finally:
        with contextlib.suppress(OSError):
            if os.path.lexists(tmp):
                os.remove(tmp)


def write_atomic(path: str | os.PathLike, data: str | bytes) -> None:
    """Write ``data`` (text as UTF-8) to ``path`` through :func:`atomic_writer`."""
    with atomic_writer(path) as fh:
        fh.write(data.encode("utf-8") if isinstance(data, str) else data)


def save_figure(fig, path: str | os.PathLike, **options) -> None:
    """``fig.savefig`` through :func:`atomic_writer`, in the format of ``path``'s extension (``.png``, ``.pdf``, …)."""
    kind = os.path.splitext(os.fspath(path))[1].lstrip(".").lower() or None
    with atomic_writer(path) as fh:
        fig.savefig(fh, format=kind, **options)
