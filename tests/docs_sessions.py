"""Console sessions of docs/*.md, re-run so that the docs cannot drift (issue 29).

A session is a fenced ``console`` block whose lines ``$ COMMAND`` are followed by what the
command printed on standard output. Each one is marked on the line before its fence:

* ``<!-- session -->`` — re-run by ``tests/test_docs_sessions.py`` in the suite;
* ``<!-- session: torch -->`` — likewise, skipped where PyTorch (the extra ``train``) is missing;
  ``<!-- session: torch needs performer_pytorch -->`` also where that module (one or more, comma-separated)
  is missing: a worked example of a third-party library;
* ``<!-- session: benchmark -->`` — too slow for the suite (minutes of training): re-run by
  ``python tests/benchmarks/bench_docs.py``, which a developer runs before changing a
  documented command (docs/performance.md, "The documented sessions").

Every command runs with ``bash`` (README's sessions alike, ``tests/test_readme.py``) in a fresh directory holding links to ``tests/``,
``certify/`` and ``docs/`` (as README's sessions do), with progress off; a session's commands
share that directory, so a later one reads what an earlier one wrote. Only standard output
is compared, after masking the time columns (``12.3 s``, ``1 min 2 s``, a ``seconds`` column)
that differ between runs. A session must not write into the links (its outputs go to the working directory).
"""
from __future__ import annotations

import os
import re
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
DOCS = ROOT / "docs"
MARKER = re.compile(r"<!-- session(?:: (benchmark|torch)(?: needs ([\w.]+(?:, [\w.]+)*))?)? -->\n```console\n(.*?)```",
                    re.S)
FENCE = re.compile(r"```console\n(.*?)```", re.S)
TIME = re.compile(r" *\b\d+(?:\.\d+)? ?(?:s|ms|min)\b")  # with its padding: right-aligned columns vary in width


@dataclass(frozen=True)
class Session:
    doc: str  # e.g. docs/families.md
    line: int  # of the fence
    text: str
    benchmark: bool
    torch: bool = False  # marked ``<!-- session: torch -->``: in the suite, skipped where PyTorch is missing
    needs: tuple[str, ...] = ()  # ``… needs a, b -->``: modules without which it is skipped as well

    @property
    def name(self) -> str:
        return f"{self.doc}:{self.line}"


def sessions() -> list[Session]:
    """Every marked session of docs/*.md, in file order."""
    out = []
    for path in sorted(DOCS.glob("*.md")):
        src = path.read_text()
        for m in MARKER.finditer(src):
            line = src.count("\n", 0, m.start()) + 2
            out.append(Session(str(path.relative_to(ROOT)), line, m.group(3), m.group(1) == "benchmark",
                               m.group(1) == "torch", tuple(m.group(2).split(", ")) if m.group(2) else ()))
    return out


def unmarked() -> list[str]:
    """``doc:line`` of every console block with a ``$`` command that carries no session marker."""
    out = []
    for path in sorted(DOCS.glob("*.md")):
        src = path.read_text()
        marked = {m.start(0) + m.group(0).index("```console") for m in MARKER.finditer(src)}
        for m in FENCE.finditer(src):
            if m.start() not in marked and re.search(r"^\$ ", m.group(1), re.M):
                out.append(f"{path.relative_to(ROOT)}:{src.count(chr(10), 0, m.start()) + 1}")
    return out


def mask(text: str) -> str:
    """Time columns masked: numbers with a time unit, and the last number of each table row under a header
    that ends in ``seconds`` (a row: at least five numbers; a blank line ends the table)."""
    out, timed = [], False
    for line in text.split("\n"):
        if line.rstrip().endswith("seconds"):
            timed = True
        elif not line.strip():
            timed = False
        elif timed and len(re.findall(r"\d+(?:\.\d+)?", line)) >= 5:
            line = re.sub(r" *\d+(?:\.\d+)?$", " <time>", line.rstrip())
        out.append(TIME.sub(" <time>", line))
    return "\n".join(out)


def run_commands(text: str, where: Path, timeout: float = 3600) -> list[tuple[str, str, str, str]]:
    """Run a session's ``$`` commands in ``where`` (links to tests/, certify/, docs/ made there), as README's and the
    docs' sessions are run; ``(command, expected, stdout, stderr)`` for each, unmasked (``python``: this interpreter)."""
    for name in ("tests", "certify", "docs"):
        os.symlink(ROOT / name, where / name)
    bindir = os.path.dirname(sys.executable)
    env = dict(os.environ, PATH=bindir + os.pathsep + os.environ.get("PATH", ""), CERTIFY_PROGRESS="0")
    chunks = re.split(r"^\$ (.*)$", text, flags=re.M)[1:]
    out = []
    for command, expected in zip(chunks[::2], chunks[1::2]):
        if command.startswith("python "):
            command = sys.executable + command[len("python"):]
        # stdout only, progress forced off: a progress or warning line on stderr (a loaded machine) cannot break it;
        # a session that shows an error line says 2>&1 in its own command.
        proc = subprocess.run(["bash", "-c", command], cwd=where, env=env, capture_output=True, text=True,
                              timeout=timeout)
        out.append((command, expected.lstrip("\n"), proc.stdout, proc.stderr))
    return out


def run(session: Session, where: Path, timeout: float = 3600) -> list[tuple[str, str, str]]:
    """:func:`run_commands` on a docs session, both outputs masked (:func:`mask`)."""
    return [(c, mask(e), mask(p)) for c, e, p, _ in run_commands(session.text, where, timeout)]
