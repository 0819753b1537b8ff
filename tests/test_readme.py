"""README.md stays true: the example session is real output, the set-up commands are what CI runs."""
import re

import pytest

from conftest import ROOT
from docs_sessions import run_commands

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
    results = run_commands(session, tmp_path)  # tests/docs_sessions.py: the runner of the docs' sessions too
    assert results, "no commands in the example session"
    for command, expected, stdout, stderr in results:  # unmasked: README's sessions show no times
        assert stdout == expected, f"$ {command}\n{stdout}\n(stderr: {stderr[-500:]})"
