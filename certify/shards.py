"""``--jobs N``: the compact checker's queries in shards, in processes of the standard library.

The shard function is the checker's own (:func:`certify.check.compact_shard`): a worker
generates and checks the queries ``words[lo:hi]`` and returns their exact counts (ordered
pairs per distance, jumps, inputs), or the failure it met. :func:`merge_shards` adds the
counts of disjoint ranges in query order and re-raises the first range's failure, which is
the failure the serial check meets first; ``certify/check.py`` then compares the totals
with the certificate as it always does. So the verdict and every message are those of
``--jobs 1``. Standard library only (``multiprocessing``), like the checker;
``certify.distributed`` runs the same shards on Dask.

>>> shard_ranges(10, 3)
[(0, 3), (3, 6), (6, 10)]
"""
from __future__ import annotations

from . import check as C

__all__ = ["shard_ranges", "merge_shards", "run_in_processes", "local"]


def local(jobs: int):
    """A ``run_shards`` for :func:`certify.check.check`: ``jobs`` processes here."""
    return lambda words, m, levels: run_in_processes(words, m, levels, jobs)


def _shard_job(args):
    """A worker's call: ``compact_shard`` on one range, its ``CertificateError`` returned rather than raised."""
    try:
        return ("ok", C.compact_shard(*args))
    except C.CertificateError as exc:
        return ("error", type(exc).__name__, exc.step, str(exc)[len(exc.step) + 2:])


def shard_ranges(t: int, jobs: int) -> list[tuple[int, int]]:
    """``jobs`` contiguous ranges of query indices covering ``0 … t−1`` (the ones that are not empty)."""
    jobs = max(1, min(jobs, t))
    return [(t * k // jobs, t * (k + 1) // jobs) for k in range(jobs) if t * k // jobs < t * (k + 1) // jobs]


def merge_shards(results: list[tuple], levels: dict[int, tuple[int, ...]]) -> tuple[dict[int, int], int, int]:
    """Add the exact partial counts of shards in query order; re-raise the first shard's failure, as the serial check would."""
    pairs = dict.fromkeys(levels, 0)
    n_jumps = n_inputs = 0
    for res in results:
        if res[0] == "error":
            _, kind, step, message = res
            if kind == "CertificateLimitError":
                raise C.CertificateLimitError(message)
            cls = {"CertificateRejected": C.CertificateRejected, "CertificateFormatError": C.CertificateFormatError}.get(kind)
            raise (cls or C.InternalContradiction)(step, message)
        part, jumps, inputs = res[1]
        for d, count in part.items():
            pairs[d] += count
        n_jumps += jumps
        n_inputs += inputs
    return pairs, n_jumps, n_inputs


def run_in_processes(words: list[int], m: int, levels: dict[int, tuple[int, ...]], jobs: int):
    """The generation of all queries in ``jobs`` processes of the standard library (in this one if ``jobs = 1``).

    A worker that dies (killed, out of memory) ends the check with exit 3 and one line, never a hang.
    """
    if jobs <= 1 or len(words) < 2 * jobs:
        return C.compact_shard(words, m, levels, 0, len(words))
    import multiprocessing
    from concurrent.futures import ProcessPoolExecutor
    from concurrent.futures.process import BrokenProcessPool

    ctx = multiprocessing.get_context("fork" if "fork" in multiprocessing.get_all_start_methods() else "spawn")
    ranges = shard_ranges(len(words), 8 * jobs)  # more ranges than workers: the pool balances uneven queries
    # the code goes to each worker once (initargs), each task is just a range
    pool = ProcessPoolExecutor(jobs, mp_context=ctx, initializer=_worker_start, initargs=(words, m, levels))
    done = False
    try:
        results = list(pool.map(_range_job, ranges))
        done = True
    except BrokenProcessPool:
        raise C.InternalContradiction("generation", "a --jobs worker process died (killed, or out of memory); "
                                      "rerun with fewer --jobs") from None
    finally:
        if not done:  # Ctrl-C, SIGTERM or a dead worker: stop the others at once
            for proc in list(getattr(pool, "_processes", {}).values()):
                proc.terminate()
        pool.shutdown(wait=True, cancel_futures=True)
    return merge_shards(results, levels)


_CODE: tuple = ()  # a worker's (words, m, levels), set once by _worker_start


def _range_job(bounds: tuple[int, int]):
    """A ``--jobs`` worker's task: :func:`_shard_job` on the queries ``lo … hi−1`` of the code it was given."""
    return _shard_job((*_CODE, *bounds, False))


def _worker_start(words: list[int], m: int, levels: dict[int, tuple[int, ...]]) -> None:
    """A ``--jobs`` worker: keeps the code; SIGTERM ends it quietly (the parent reports), Ctrl-C is the parent's.

    Its stderr goes to ``os.devnull``: a task's exception reaches the parent through its
    future, and what else a worker could print is the pool's own shutdown noise (a sibling
    of a killed worker printed ``Process ForkProcess-2:`` before the parent's one line).
    """
    import os
    import signal
    import sys

    global _CODE
    _CODE = (words, m, levels)
    sys.stderr = open(os.devnull, "w")
    signal.signal(signal.SIGTERM, signal.SIG_DFL)
    signal.signal(signal.SIGINT, signal.SIG_IGN)
