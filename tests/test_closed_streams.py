"""A closed standard output is exit 2 with one line, never a verdict (issue 53, point 2).

Run with file descriptor 1 closed (``check.py FILE >&-``), Python has ``sys.stdout = None``; every
entry point — the five checker scripts and every ``certify`` command — used to crash on it with a
traceback and exit 1, which a script reads as "rejected" for a valid certificate. Now
``certify.check.guard_process``, which all of them start in, refuses it before any work: exit 2 and
``PROG: cannot write the output: standard output is closed`` on stderr (with stderr closed too, exit 2
silently). A pipe closed by its reader stays 141 (tests/test_process_faults.py).

Each case is one process start (the command does no work), with arguments that exit 0 when
standard output is open: a valid input, never one that would be refused anyway.
"""
import os
import subprocess
import sys

import pytest

from certify.cli import cli
from conftest import CORPUS, ROOT

LINE = "cannot write the output: standard output is closed"
VALID = str(CORPUS / "valid" / "small_paper.json")
SMOKE = ["--seeds", "0", "--steps", "20", "--train", "96", "--val", "16", "--test", "16", "--eval-every", "10"]

#: The trusted checkers as scripts: (script, a valid input of its format).
CHECKERS = [
    ("check.py", str(CORPUS / "valid" / "rank_nine_paper.json")),
    ("check_split.py", str(ROOT / "tests" / "splits" / "valid" / "small_M4_q2.json")),
    ("check_obstruction.py", str(ROOT / "tests" / "minrank" / "valid" / "m4_orders_rank2.json")),
    ("check_symmetric.py", str(ROOT / "tests" / "symmetric" / "valid" / "m2_s2_rank2.json")),
    ("check_degree.py", str(ROOT / "tests" / "degree" / "valid" / "m2_degree_0.json")),
]

#: Every ``certify`` command path (the root and the experiment group by --help) and arguments that would exit 0;
#: OUT is a fresh folder, where nothing may appear: the refusal comes before the work.
COMMANDS = {
    (): ["--version"],
    ("bounds",): ["--m", "8"],
    ("bracket",): [str(CORPUS / "valid" / "shifted_rank_nine_direct.json"), "--start-rank", "14", "--lowest-rank", "14",
                   "--out", "OUT"],
    ("check-kernel",): [str(ROOT / "docs" / "examples" / "rank15_solves.npz")],
    ("construction",): ["softmax", "--m", "3"],
    ("experiment",): ["--help"],
    ("experiment", "capacity"): ["--settings", "6:4", "--ranks", "2", *SMOKE, "--out", "OUT"],
    ("experiment", "check-split"): [str(ROOT / "tests" / "splits" / "valid" / "small_M4_q2.json")],
    ("experiment", "heads"): ["--budgets", "4", "--draws", "1", "--no-dense", *SMOKE, "--out", "OUT"],
    ("family",): ["jumps", "--code", "rank-nine", "--out", "OUT/family.json"],
    ("identities",): [],
    ("minrank",): ["--m", "2", "--rows", str(ROOT / "docs" / "results")],
    ("rank-bound",): ["--code", "rank-nine", "--out", "OUT/rank-nine.cert.json"],
    ("rank-nine",): ["--no-sharper", "--out", "OUT/rank-nine.cert.json"],
    ("search",): ["--m", "4", "--budget", "10", "--out", "OUT/search.cert.json"],
    ("train",): ["--family", VALID, "--ranks", "2", "--seeds", "0", "--steps", "30", "--out", "OUT"],
    ("unique-minimizer",): ["--out", "OUT/um.cert.json"],
    ("verify",): [VALID],
}


def _walk(group=cli, path=()):
    yield path
    for name, sub in getattr(group, "commands", {}).items():
        yield from _walk(sub, path + (name,))


CERTIFY = [sys.executable, "-m", "certify.cli"]
#: (id, the program's name in its lines, argv with OUT for the folder)
ENTRIES = ([(name, name, [sys.executable, str(ROOT / "certify" / name), path]) for name, path in CHECKERS]
           + [("certify --help", "certify", CERTIFY + ["--help"])]
           + [(" ".join(("certify",) + (p or ("--version",))), "certify", CERTIFY + list(p) + args)
              for p, args in COMMANDS.items()])


def _run(argv, out, *fds):
    """``argv`` (OUT: the empty folder ``out``) run in ``out`` with the descriptors ``fds`` closed: (exit code,
    stderr)."""
    def close():
        for fd in fds:
            os.close(fd)

    argv = [str(out) + a[3:] if a.startswith("OUT") else a for a in argv]
    proc = subprocess.run(argv, stdin=subprocess.DEVNULL, stderr=None if 2 in fds else subprocess.PIPE,
                          preexec_fn=close, cwd=out, env={**os.environ, "CERTIFY_PROGRESS": "0"}, text=True, timeout=120)
    return proc.returncode, proc.stderr or ""


def test_every_certify_command_has_a_case():
    assert set(_walk()) == set(COMMANDS)  # a new command fails here until it is given arguments


@pytest.mark.parametrize("prog,argv", [e[1:] for e in ENTRIES], ids=[e[0] for e in ENTRIES])
def test_a_closed_standard_output_is_exit_2_with_one_line_before_any_work(prog, argv, tmp_path):
    code, err = _run(argv, tmp_path, 1)
    assert code == 2 and "Traceback" not in err, err
    assert err.splitlines() == [f"{prog}: {LINE}"]
    assert list(tmp_path.iterdir()) == []  # nothing written: refused before the work


BOTH = [e for e in ENTRIES if e[1] != "certify"] + [e for e in ENTRIES if e[0] == "certify verify"]


@pytest.mark.parametrize("argv", [e[2] for e in BOTH], ids=[e[0] for e in BOTH])
def test_with_standard_error_closed_too_it_is_still_exit_2(argv, tmp_path):
    assert _run(argv, tmp_path, 1, 2)[0] == 2  # nowhere to say why; a traceback would have been exit 1


@pytest.mark.parametrize("argv", [e[2] for e in BOTH], ids=[e[0] for e in BOTH])
def test_the_same_arguments_verify_when_standard_output_is_open(argv, tmp_path):
    """Exit 0 with an open standard output: exit 2 above is the closed stream alone, never the input."""
    proc = subprocess.run(argv, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True, cwd=tmp_path, timeout=60,
                          env={**os.environ, "CERTIFY_PROGRESS": "0"})
    assert proc.returncode == 0 and proc.stderr == ""


@pytest.mark.parametrize("name, code", [("valid/rank_nine_paper.json", 0),
                                        ("invalid/" + sorted(p.name for p in (CORPUS / "invalid").iterdir())[0], 1)])
def test_check_py_quiet_needs_no_standard_output_and_gives_its_verdict_with_it_closed(name, code, tmp_path):
    """``check.py --quiet`` prints nothing: its exit code is the whole verdict, so a closed standard output changes
    nothing (0 for a valid file, 1 for an invalid one); with ``--json`` it prints, so it is refused as above."""
    script = str(ROOT / "certify" / "check.py")
    assert _run([sys.executable, script, "--quiet", str(CORPUS / name)], tmp_path, 1)[0] == code
    refused = _run([sys.executable, script, "--quiet", "--json", str(CORPUS / name)], tmp_path, 1)
    assert refused == (2, f"check.py: {LINE}\n")
    assert _run([sys.executable, script, "--", "--quiet"], tmp_path, 1)[0] == 2  # a path named --quiet is no option
