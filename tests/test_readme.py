"""README.md stays true: the example session is real output, the set-up commands are what CI runs."""
import os
import re

import pytest
import subprocess
import sys

from conftest import ROOT

README = (ROOT / "README.md").read_text()


def block_after(marker):
    rest = README.split(marker, 1)[1]
    return re.search(r"```[a-z]*\n(.*?)```", rest, re.S).group(1)


def test_setup_commands_are_the_documented_ones():
    assert block_after("<!-- ci:main-command -->").strip() == "pip install . && certify rank-nine"
    assert block_after("<!-- ci:test-command -->").strip() == "pip install -e '.[test]' && pytest -n auto --dist worksteal"
    ci = (ROOT / ".ci" / "run").read_text()
    assert "readme_command test-command" in ci and "readme_command main-command" in ci


SESSIONS = [re.search(r"```[a-z]*\n(.*?)```", part, re.S).group(1) for part in README.split("<!-- example-session -->")[1:]]


def test_readme_has_example_sessions():
    assert len(SESSIONS) >= 2


@pytest.mark.parametrize("session", SESSIONS, ids=lambda s: s.splitlines()[0][:40])
def test_example_session_is_real_output(tmp_path, session):
    os.symlink(ROOT / "tests", tmp_path / "tests")
    os.symlink(ROOT / "certify", tmp_path / "certify")
    os.symlink(ROOT / "docs", tmp_path / "docs")
    bindir = os.path.dirname(sys.executable)
    env = dict(os.environ, PATH=bindir + os.pathsep + os.environ.get("PATH", ""), CERTIFY_PROGRESS="0")
    chunks = re.split(r"^\$ (.*)$", session, flags=re.M)[1:]
    assert chunks, "no commands in the example session"
    for command, expected in zip(chunks[::2], chunks[1::2]):
        if command.startswith("python "):
            command = sys.executable + command[len("python"):]
        # stdout only, progress forced off: a progress or warning line on stderr (a loaded machine) cannot break it;
        # a session that shows an error line says 2>&1 in its own command.
        proc = subprocess.run(["bash", "-c", command], cwd=tmp_path, env=env, capture_output=True, text=True)
        assert proc.stdout == expected.lstrip("\n"), f"$ {command}\n{proc.stdout}\n(stderr: {proc.stderr[-500:]})"
