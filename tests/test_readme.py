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


# --------------------------------------------------------------------------- a README a newcomer reads in minutes

LINK = re.compile(r"\[[^\]]*\]\(([^)\s]+)\)")


def _slug(heading: str) -> str:
    """The anchor GitHub gives a Markdown heading: lower case, punctuation dropped, spaces as hyphens."""
    return re.sub(r"[^\w\- ]", "", heading.strip().lower()).replace(" ", "-")


def _anchors(path):
    text = re.sub(r"```.*?```", "", path.read_text(encoding="utf-8"), flags=re.S)
    return {_slug(h) for h in re.findall(r"(?m)^#+ (.*)$", text)}


@pytest.mark.parametrize("doc", ["README.md", "docs/commands.md", "docs/testing.md", "docs/architecture.md"])
def test_every_relative_link_names_a_file_and_heading_that_exist(doc):
    """README → docs/architecture.md → a command's own page: no link on the way leads nowhere."""
    path = ROOT / doc
    for target in LINK.findall(path.read_text(encoding="utf-8")):
        if re.match(r"[a-z]+:", target):  # an absolute URL: not ours to check offline
            continue
        file, _, anchor = target.partition("#")
        dest = (path.parent / file).resolve() if file else path
        assert dest.exists(), f"{doc}: link to {target}: no such file"
        if anchor:
            assert anchor in _anchors(dest), f"{doc}: link to {target}: no such heading"


def _commands():
    """Every command path of the CLI (``certify experiment heads``), read from the click group itself."""
    import click

    from certify.cli import cli

    def walk(group, prefix):
        for name, command in group.commands.items():
            if isinstance(command, click.Group):
                yield from walk(command, f"{prefix} {name}")
            else:
                yield f"{prefix} {name}"

    return sorted(walk(cli, "certify"))


def test_every_command_has_a_one_line_row_in_readme_and_a_section_in_the_command_reference():
    reference = _anchors(ROOT / "docs" / "commands.md")
    table = README.split("## Commands", 1)[1].split("\n## ", 1)[0]
    rows = [line for line in table.splitlines() if line.startswith("| [")]
    assert _commands() and rows
    for command in _commands():
        anchor = _slug(command)
        assert anchor in reference, f"docs/commands.md has no section for {command}"
        linked = [row for row in rows if f"(docs/commands.md#{anchor})" in row or
                  (command.startswith("certify experiment ") and "experiment capacity\\|heads" in row
                   and command.rsplit(" ", 1)[1] in ("capacity", "heads"))]
        assert linked, f"README's command table has no row for {command}"
    for row in rows:  # one line, not a paragraph: the details are a link away
        description = row.rsplit("|", 2)[-2].strip()
        assert len(description) <= 100, f"README command row too long ({len(description)} characters): {row[:80]}"


def test_the_setup_section_is_two_commands_and_a_short_paragraph():
    setup = README.split("## Set-up: two commands", 1)[1].split("\n## ", 1)[0]
    prose = [line for line in re.sub(r"```.*?```", "", setup, flags=re.S).splitlines()
             if line.strip() and not line.startswith("<!--")]
    assert len(prose) <= 15, "\n".join(prose)


@pytest.mark.parametrize("doc", ["README.md", *sorted(str(p.relative_to(ROOT)) for p in (ROOT / "docs").rglob("*.md"))])
def test_user_docs_cite_no_internal_issues(doc):
    """A reader cannot look up our issue tracker: say what changed instead."""
    text = (ROOT / doc).read_text(encoding="utf-8")
    found = re.search(r"\bissues? \d+|\bthe issue's\b", text, re.I)
    assert not found, f"{doc}: {found.group(0)!r} at line {text[:found.start()].count(chr(10)) + 1}"
