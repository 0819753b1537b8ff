"""The certified results rows as lower bounds of r*(m, 3): ``docs/results/m{M}.cert.json`` (docs/results.md).

Each committed rank certificate ``mM.cert.json`` proves (``python certify/check.py FILE``)
that every one-head kernel solving a family of length-3 inputs over ``M``-bit tokens with
error ``< 1/2`` has rank ``≥`` its bound. The family is a subset of all length-3 inputs, so
the bound is a lower bound on ``r*(M, 3)``, and by Corollary 11.3 (``r*(m + 1, 3) ≥
r*(m, 3)``, docs/math.md §11) on ``r*(m, 3)`` for every ``m ≥ M``.

* :func:`find_rows_dir` — where the rows are (an explicit folder, ``docs/results`` here, or
  beside an editable install);
* :func:`best_row` — the row to use at ``m``: of the rows of the two largest ``M ≤ m``, the one
  claiming more (the committed bounds grow with ``M``; ``tests/test_results_rows.py`` holds
  them to it), not yet checked;
* :func:`claimed_bound` — what a file *claims*, read without checking (for tables);
* :func:`recheck` — the check itself, in this process (``certify.check.check``, with
  ``certify/check.py``'s reading and limits): the bound it proves, or :class:`RowNotVerified`.

Cost of :func:`recheck` (one core, the CI machine kind; docs/results.md, the rows' check
times): under 0.1 s for ``M ≤ 22``, then growing with the code — about 41 s at ``M = 46``
and 60 s at ``M = 48``. ``announce(work)`` is told the work before it starts
(``certify.check.describe_cost(work)`` is the line ``certify verify`` prints),
``certify.check.Progress`` reports on stderr while it runs (``CERTIFY_PROGRESS=0`` silences
it), and ``jobs > 1`` shares the queries among processes (``certify.shards``).
"""
from __future__ import annotations

import os
import re
from dataclasses import dataclass
from fractions import Fraction
from pathlib import Path

__all__ = ["Row", "RowNotVerified", "find_rows_dir", "rows", "best_row", "claimed_bound", "recheck"]

#: A row's file name: ``m{M}.cert.json`` (``M`` written without leading zeros).
ROW_NAME = re.compile(r"m([1-9][0-9]*)\.cert\.json")


@dataclass(frozen=True)
class Row:
    """A committed results row, not checked: token length ``M``, its file, and the bound the file *claims*."""

    M: int
    path: Path
    claimed: int


class RowNotVerified(ValueError):
    """A row's file does not verify (any more), or does not state a bound on ``r*(M, 3)``: the message says why."""


def _has_rows(folder: Path) -> bool:
    return folder.is_dir() and any(ROW_NAME.fullmatch(p.name) and p.is_file() for p in folder.glob("m*.cert.json"))


def find_rows_dir(explicit: str | os.PathLike | None = None) -> Path | None:
    """The folder of the results rows, or ``None`` if none is found.

    ``explicit`` if given: it must be a folder holding ``m*.cert.json`` rows (``ValueError``
    with a one-line reason otherwise). Else ``docs/results`` under the current directory if it
    holds rows, else ``docs/results`` beside the installed package (an editable install: the
    repository of ``certify``), else ``None``.
    """
    if explicit is not None:
        folder = Path(explicit)
        if not folder.is_dir():
            raise ValueError(f"rows folder {str(folder)!r}: {'not a folder' if folder.exists() else 'no such folder'}")
        if not _has_rows(folder):
            raise ValueError(f"rows folder {str(folder)!r}: holds no results rows (no file m<M>.cert.json in it)")
        return folder
    here = Path.cwd() / "docs" / "results"
    if _has_rows(here):
        return here
    import certify

    beside = Path(certify.__file__).resolve().parents[1] / "docs" / "results"
    return beside if _has_rows(beside) else None


def claimed_bound(path: str | os.PathLike) -> int:
    """The bound the file at ``path`` **claims** (``claim.rank_at_least``), read without checking anything else.

    For tables and for choosing a row; not evidence (:func:`recheck` is). ``ValueError`` if the
    file cannot be read as a certificate (``certify.check.load``: its size limit and strict JSON)
    or has no integer claim.
    """
    from ..check import CertificateError, load

    try:
        doc = load(str(path))
    except CertificateError as exc:
        raise ValueError(f"{path}: cannot be read ({exc})") from None
    claim = doc.get("claim")
    bound = claim.get("rank_at_least") if isinstance(claim, dict) else None
    if type(bound) is not int:
        raise ValueError(f"{path}: no integer claim.rank_at_least")
    return bound


def _files(rows_dir: str | os.PathLike | None) -> list[tuple[int, Path]]:
    """``(M, path)`` of the files ``m{M}.cert.json`` in ``rows_dir``, by ``M`` (``[]`` for ``None``)."""
    if rows_dir is None:
        return []
    return sorted((int(match.group(1)), p) for p in Path(rows_dir).glob("m*.cert.json")
                  if (match := ROW_NAME.fullmatch(p.name)) and p.is_file())


def rows(rows_dir: str | os.PathLike | None) -> list[Row]:
    """Every row in ``rows_dir``, by ``M``, their claims read but not checked (``[]`` for ``None``): for tables."""
    return [Row(M, p, claimed_bound(p)) for M, p in _files(rows_dir)]


def best_row(m: int, rows_dir: str | os.PathLike | None) -> Row | None:
    """The row to use at ``m``, unchecked: of the two rows with the largest ``M ≤ m``, the one claiming more (ties: the larger ``M``).

    At ``m`` with a row of its own that is ``M = m`` or ``m − 1`` (rows exist for every even
    ``M`` from 8 and for odd ``M ≥ 27``; the odd rows come from other codes, so the row of
    ``m − 1`` may claim more); beyond the table, the last rows. ``None`` if ``rows_dir`` is
    ``None`` or holds no row with ``M ≤ m``. Only those rows' claims are read
    (:func:`claimed_bound`); :func:`recheck` checks the one returned.
    """
    found = [(M, p) for M, p in _files(rows_dir) if M <= m][-2:]
    if not found:
        return None
    return max((Row(M, path, claimed_bound(path)) for M, path in found), key=lambda row: (row.claimed, row.M))


def recheck(row: Row, max_work: int | None = None, announce=None, jobs: int = 1) -> int:
    """Check ``row``'s file now and return the bound it proves on ``r*(row.M, 3)`` (hence on ``r*(m, 3)``, ``m ≥ M``).

    In this process: ``certify.check.load`` (check.py's size limit and strict JSON) and
    ``certify.check.check`` (``max_work`` as ``certify verify --max-work``, default the
    checker's; ``announce(work)`` called once the work is known, before it starts; ``jobs``
    processes for the queries). Then the claim must be the one ``r*(M, 3)`` needs: a rank
    certificate (``certify.rank-certificate``) of the model of §2 with ``claim.m = M`` (the
    file's name), ``claim.length = 3`` and ``claim.error_below ≥ 1/2``. Returns the proved
    bound (``Verified.proved``, at least the claim). Raises :class:`RowNotVerified`, naming the
    file, if any of this fails. Cost: about 60 s of CPU at ``M = 48`` (module docstring).
    """
    from .. import check as C

    try:
        doc = C.load(str(row.path))
        result = C.check(doc, max_work, announce, None if jobs <= 1 else _local(jobs))
    except C.CertificateError as exc:
        label = {C.EXIT_MALFORMED: "malformed", C.EXIT_REJECTED: "rejected"}.get(exc.exit_code, "internal error")
        raise RowNotVerified(f"{row.path}: does not verify ({label}: {exc})") from None
    claim = result.claim
    wrong = ("it is not a rank certificate" if doc.get("format") != C.FORMAT
             else f"its claim is for m = {claim['m']}, not M = {row.M} (the file's name)" if claim["m"] != row.M
             else f"its inputs have length {claim['length']}, not 3" if claim["length"] != 3
             else f"its error bound {claim['error_below']} is below 1/2"
             if C.parse_rational(claim["error_below"], "claim.error_below") < Fraction(1, 2) else None)
    if wrong:
        raise RowNotVerified(f"{row.path}: verifies, but is no bound on r*({row.M}, 3): {wrong}")
    return result.proved


def _local(jobs: int):
    from ..shards import local

    return local(jobs)
