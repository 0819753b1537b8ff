"""The upper side of r*(m, 3) from invariant kernels: shipped symmetric-kernel certificates, re-checked (issue 44).

``certify/minrank/certificates/m<M>.symmetric.json`` (``M`` = 1 … :data:`MAX_M`) are
``certify.symmetric-kernel/1`` certificates (docs/certificate-format.md) made by the LP
search of :mod:`certify.minrank.invariant` (HiGHS) with
``python tests/benchmarks/make_invariant_certificates.py``. They are data, not results:
:func:`checked` runs ``certify/check_symmetric.py``'s check on the file every time, and only
the rank it accepts is reported. ``certify minrank --m M --search-invariant`` makes a new one
instead (needs HiGHS), and ``python certify/check_symmetric.py FILE`` checks any of them
without this package.
"""
from __future__ import annotations

import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

__all__ = ["CERTIFICATES", "MAX_M", "SymmetricUpper", "shipped_path", "checked", "describe_parts"]

CERTIFICATES = Path(__file__).resolve().parent / "certificates"
#: The largest m with a shipped certificate.
MAX_M = 48


@dataclass
class SymmetricUpper:
    """A checked symmetric-kernel certificate: its rank, partition, blocks ``[(index, rank, multiplicity)]``."""

    m: int
    rank: int
    parts: list[int]
    blocks: list[tuple[tuple[int, ...], int, int]]
    path: str | None
    doc: dict[str, Any]
    seconds: float  # CPU seconds of the check
    for_m: int | None = None  # the m it bounds, when that is below the certificate's own (Corollary 11.3)

    @property
    def how(self) -> str:
        text = f"a kernel invariant under {describe_parts(self.parts)}, {_blocks_text(self.blocks)}"
        if self.for_m is not None and self.for_m < self.m:
            text += f"; r*({self.for_m}, 3) ≤ r*({self.m}, 3) (docs/math.md Corollary 11.3)"
        return text


def describe_parts(parts: list[int]) -> str:
    """``S_12`` or ``S_1 × S_11``."""
    return " × ".join(f"S_{a}" for a in parts)


def _blocks_text(blocks) -> str:
    shown = ", ".join(f"B_{tuple(k) if len(k) > 1 else k[0]} of rank {r}" for k, r, _ in blocks[:4])
    more = f" and {len(blocks) - 4} more" if len(blocks) > 4 else ""
    return f"{shown}{more}"


def shipped_path(m: int) -> Path | None:
    """The shipped certificate for ``m``, or ``None``."""
    path = CERTIFICATES / f"m{m}.symmetric.json"
    return path if path.is_file() else None


def checked(doc: dict[str, Any], path: str | None = None, max_work: int | None = None) -> SymmetricUpper:
    """Run the symmetric-kernel checker on ``doc``; raises ``certify.check.CertificateError`` if it is refused."""
    from ..check_symmetric import check

    started = time.process_time()
    result = check(doc, max_work=max_work)
    return SymmetricUpper(result.m, result.rank, list(result.parts), [(tuple(k), r, mu) for k, r, mu in result.blocks],
                          path, doc, time.process_time() - started)


def _claimed(path: Path) -> int | None:
    """What a shipped file claims (read without checking, to choose which one to check)."""
    import json

    try:
        value = json.loads(path.read_text(encoding="utf-8")).get("rank_at_most")
    except (OSError, ValueError, AttributeError):
        return None
    return value if type(value) is int else None


def load_checked(m: int, max_work: int | None = None) -> SymmetricUpper | None:
    """The best shipped certificate for ``m``, checked; ``None`` if none applies.

    By docs/math.md Corollary 11.3 (``r*(m, 3) ≤ r*(m', 3)`` for ``m' ≥ m``) every shipped
    certificate of an ``m' ≥ m`` bounds ``r*(m, 3)``: the one of least claimed rank is checked
    (ties: the smallest ``m'``), and the result says which ``m'`` it is.
    """
    from ..check_symmetric import load

    options = []
    for m_file in range(m, MAX_M + 1):
        path = shipped_path(m_file)
        claimed = _claimed(path) if path is not None else None
        if claimed is not None:
            options.append((claimed, m_file, path))
    if not options:
        return None
    _, _, path = min(options)
    found = checked(load(str(path)), str(path), max_work)
    found.for_m = m
    return found
