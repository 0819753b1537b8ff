"""certify.distributed: a compact certificate's queries checked on a Dask cluster (extra ``dask``).

A ``LocalCluster`` of two in-process workers (threads, no network beyond localhost): the
verdict, counts and messages are those of the checker alone, for a valid certificate and
for rejected ones. Skipped when dask.distributed is not installed.
"""
import json

import pytest

from certify import check as C

from conftest import CORPUS, assert_one_line_error
from test_check_shards import _levels

distributed = pytest.importorskip("distributed")


@pytest.fixture(scope="module")
def client():
    cluster = distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=False, dashboard_address=None)
    c = distributed.Client(cluster)
    yield c
    c.close()
    cluster.close()


def _outcome(fn):
    try:
        v = fn()
        return ("verified", v.proved, v.counts)
    except C.CertificateError as exc:
        return (type(exc).__name__, exc.step, str(exc))


@pytest.mark.parametrize("name", ["valid/compact_hadamard24_best.json", "valid/compact_unequal_weights.json",
                                  "invalid/compact_distance_without_entry.json", "invalid/compact_family_count_changed.json",
                                  "invalid/compact_claim_raised.json"])
def test_dask_shards_give_the_checkers_verdict(client, name):
    from certify.distributed import check_on_dask

    doc = json.loads((CORPUS / name).read_text())
    assert _outcome(lambda: check_on_dask(doc, client, shards=5)) == _outcome(lambda: C.check(doc))


def test_every_worker_gets_work(client):
    from certify.distributed import dask_shards

    doc = json.loads((CORPUS / "valid" / "compact_hadamard24_best.json").read_text())
    ws = [int(w[::-1], 2) for w in doc["code"]["words"]]
    levels = _levels(doc)
    got = dask_shards(client, shards=4)(ws, doc["code"]["length"], levels)
    assert got == C.compact_shard(ws, doc["code"]["length"], levels, 0, len(ws), show=False)
    assert len(client.scheduler_info()["workers"]) == 2


def test_no_scheduler_at_the_address_is_an_os_or_timeout_error():
    """``certify verify --dask ADDRESS`` turns these into exit 2 with one line (cli/certificates.py)."""
    from certify.distributed import client_for

    with pytest.raises((OSError, TimeoutError)):
        client_for("tcp://127.0.0.1:1", timeout=1)


def test_verify_dask_without_dask_exits_2(tmp_path):
    import subprocess
    import sys

    code = ("import sys; sys.modules['distributed'] = None\n"
            f"from certify.cli import main; main(['verify', '--dask', 'local', {str(CORPUS / 'valid' / 'compact_hadamard24_best.json')!r}])")
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=tmp_path, timeout=120)
    assert_one_line_error(proc, 2)
    assert "pip install '.[dask]'" in proc.stderr
