"""Check a compact certificate's queries on a Dask cluster (optional extra ``dask``).

``certify verify CERT --dask ADDRESS`` (or :func:`check_on_dask`) runs the checker of
``certify/check.py`` with its query generation handed to Dask: the same shard function
(:func:`certify.check.compact_shard`, through ``certify.shards._shard_job``) runs on the workers,
one contiguous range of queries each, and the coordinator only adds their exact partial
counts (:func:`certify.shards.merge_shards`) and lets ``check.py`` compare them with the
certificate's claims — every other step (format, integrity, code, plan, family,
arithmetic, claim) runs in ``check.py`` as it always does. No scheduler or wire protocol of
our own: ``dask.distributed.Client.map`` and ``gather``.

``ADDRESS`` is a scheduler (``tcp://host:8786``) or ``local``, which starts a
``LocalCluster`` of ``--jobs`` worker processes on this machine.
"""
from __future__ import annotations

from typing import Any

from . import check as C
from . import shards as S

__all__ = ["DaskUnavailable", "dask_shards", "check_on_dask", "client_for"]

DASK_HINT = "--dask needs dask.distributed: pip install '.[dask]' from the checkout"


class DaskUnavailable(RuntimeError):
    """dask.distributed is not installed (exit 2 with :data:`DASK_HINT`)."""


def _distributed():
    try:
        import distributed
    except ImportError:
        raise DaskUnavailable(DASK_HINT) from None
    return distributed


def dask_shards(client: Any, shards: int | None = None):
    """A ``run_shards`` for :func:`certify.check.check`: the queries in ``shards`` ranges (default: 4 per worker) on ``client``."""

    def run_shards(words, m, levels):
        workers = max(1, len(client.scheduler_info().get("workers", {})))
        ranges = S.shard_ranges(len(words), shards or 4 * workers)
        [scattered] = client.scatter([list(words)], broadcast=True)  # the code once per worker, as one object
        futures = client.map(lambda ws, lo, hi: S._shard_job((ws, m, levels, lo, hi, False)),
                             [scattered] * len(ranges), [lo for lo, _ in ranges], [hi for _, hi in ranges],
                             pure=False)
        return S.merge_shards(client.gather(futures), levels)

    return run_shards


#: Seconds to wait for a scheduler before ``--dask ADDRESS`` gives up (exit 2).
CONNECT_TIMEOUT = 10


def client_for(address: str, workers: int = 2, timeout: float = CONNECT_TIMEOUT):
    """A ``distributed.Client`` for ``address``; ``local``: a ``LocalCluster`` of ``workers`` processes here."""
    distributed = _distributed()
    if address == "local":
        cluster = distributed.LocalCluster(n_workers=workers, threads_per_worker=1, processes=True,
                                           dashboard_address=None)
        return distributed.Client(cluster)
    return distributed.Client(address, timeout=timeout)


def check_on_dask(doc: dict[str, Any], client: Any, shards: int | None = None, max_work: int | None = None):
    """:func:`certify.check.check` of ``doc`` with the queries of a compact certificate checked by ``client``'s workers."""
    return C.check(doc, max_work=max_work, run_shards=dask_shards(client, shards))
