"""Output files are all or nothing (certify/outputs.py; issue 42, point 6).

On a full disk (here: a file-size limit, ``RLIMIT_FSIZE``, which makes a write past it fail
with ``EFBIG`` exactly as ``ENOSPC`` does on a full 64 KiB tmpfs) every command exits 2 with
one line, and leaves neither a truncated destination nor a temporary file.
"""
import json
import os
import resource
import signal
import subprocess
import sys

import pytest

from conftest import CORPUS, ROOT
from certify.outputs import atomic_writer, refuse_special_file, write_atomic

LIMIT = 4096  # bytes: every output below is larger


def test_a_failed_write_leaves_the_old_file_and_no_temporary_file(tmp_path):
    path = tmp_path / "x.json"
    write_atomic(path, "old\n")
    with pytest.raises(OSError, match="No space"):
        with atomic_writer(path, "w") as fh:
            fh.write("new, half written")
            raise OSError(28, "No space left on device")
    assert path.read_text() == "old\n" and sorted(os.listdir(tmp_path)) == ["x.json"]
    with pytest.raises(KeyboardInterrupt):
        with atomic_writer(tmp_path / "y.bin") as fh:
            fh.write(b"\0" * 10)
            raise KeyboardInterrupt
    assert sorted(os.listdir(tmp_path)) == ["x.json"]
    write_atomic(path, b"new\n")
    assert path.read_bytes() == b"new\n"


def test_a_special_file_is_never_replaced(tmp_path):
    with pytest.raises(OSError, match="not a regular file"):
        refuse_special_file(tmp_path)
    with pytest.raises(OSError, match="not a regular file"):
        write_atomic("/dev/null", "x")
    assert os.path.exists("/dev/null")


def _limited():
    signal.signal(signal.SIGXFSZ, signal.SIG_IGN)  # a write past the limit fails with EFBIG instead of killing
    resource.setrlimit(resource.RLIMIT_FSIZE, (LIMIT, LIMIT))


COMMANDS = {
    "construction rank15 .json": ["construction", "rank15", "--out", "{d}/y.json"],
    "construction rank15 .npz": ["construction", "rank15", "--out", "{d}/y.npz"],
    "rank-nine": ["rank-nine", "--out", "{d}/y.cert.json"],
    "verify --expand": ["verify", str(CORPUS / "valid" / "rank_nine_paper.json"), "--expand", "{d}/y.json"],
    "family --from --out": ["family", "--from", str(CORPUS / "valid" / "compact_rank_nine_paper.json"), "--out",
                            "{d}/y.json"],
    "minrank --out": ["minrank", "--m", "3", "--out", "{d}/run"],
}


@pytest.mark.skipif(sys.platform != "linux", reason="RLIMIT_FSIZE and SIGXFSZ as on Linux")
@pytest.mark.parametrize("name", COMMANDS)
def test_a_full_disk_leaves_no_partial_file(tmp_path, name):
    """Issue 42's reproducer: `construction rank15 --out y.json` on a 64 KiB tmpfs left 65,536 bytes of truncated
    JSON (and a 0-byte .npz); now exit 2, one line, nothing left behind."""
    d = tmp_path / "out"
    d.mkdir()
    args = [a.format(d=d) for a in COMMANDS[name]]
    proc = subprocess.run([sys.executable, "-m", "certify.cli", *args], capture_output=True, text=True, cwd=tmp_path,
                          preexec_fn=_limited, timeout=300, env=dict(os.environ, CERTIFY_PROGRESS="0"))
    assert proc.returncode == 2, proc.stdout + proc.stderr
    assert "Traceback" not in proc.stderr and len(proc.stderr.strip().splitlines()) == 1, proc.stderr
    assert "cannot write" in proc.stderr or "too large" in proc.stderr, proc.stderr
    left = [p for p in d.rglob("*") if p.is_file()]
    assert not [p for p in left if ".tmp" in p.name], left  # no temporary file
    for p in left:  # a command writing several files into a folder: those it finished are whole, nothing else is there
        assert name == "minrank --out" and json.loads(p.read_text()), p
