"""Every command's --help lists its exit codes; a huge option value is abbreviated in the error line
(issue 42, points 8, 10 and 11; certify/cli/common.py ``exit_codes``, certify/cli/__init__.py ``abbreviate``)."""
import click
import pytest

from certify.cli import cli
from certify.cli.common import FAULT_CODES
from conftest import run_cli_here

HUGE = "1" * 5001


def _commands(group=cli, path=()):
    """``(path, command)`` for the root group, every subgroup and every command under them."""
    yield path, group
    for name, sub in sorted(getattr(group, "commands", {}).items()):
        yield from _commands(sub, path + (name,))


COMMANDS = list(_commands())


def test_the_walk_finds_every_command():
    names = {" ".join(p) for p, _ in COMMANDS}
    assert {"verify", "rank-nine", "bracket", "minrank", "experiment heads", "experiment check-split"} <= names
    assert len(names) == 18  # the root, 13 commands, the experiment group and its 3 commands: a new one is walked too


@pytest.mark.parametrize("path,command", COMMANDS, ids=lambda v: " ".join(v) or "certify" if isinstance(v, tuple) else "")
def test_help_lists_the_exit_codes_the_command_can_return(path, command):
    """Issue 42: bounds, family, rank-bound, rank-nine, search, unique-minimizer and the experiment group listed none,
    and `certify --help` omitted 130/141/143. Every command now declares its codes; its help prints them."""
    codes = getattr(command, "exit_codes", None)
    assert codes, f"certify {' '.join(path)} declares no exit codes (certify.cli.common.exit_codes)"
    assert {0, 2, 3} <= set(codes) and set(FAULT_CODES) <= set(codes)
    code, out, err = _run(*path, "--help")
    assert code == 0 and err == ""
    text = " ".join(out.split())  # click rewraps the epilog
    listed = text[text.index("Exit codes: "):]
    for c, meaning in codes.items():
        assert f"{c} {' '.join(meaning.split())}" in listed, (c, listed)
    positions = [listed.index(f" {c} ") if c else listed.index(": 0 ") for c in codes]
    assert positions == sorted(positions)


def _filled(command):
    """Values for a command's required arguments, so that parsing reaches the option under test."""
    out = []
    for p in command.params:
        if isinstance(p, click.Argument) and p.required:
            out.append(p.type.choices[0] if isinstance(p.type, click.Choice) else "x")
    return out


NUMERIC = [(path, p.opts[-1]) for path, c in COMMANDS for p in c.params
           if isinstance(p, click.Option) and isinstance(p.type, (click.types.IntParamType, click.types.FloatParamType))]


def test_every_numeric_option_is_walked():
    assert (("search",), "--m") in NUMERIC and (("bracket",), "--iterations") in NUMERIC and len(NUMERIC) >= 40


@pytest.mark.parametrize("path,option", NUMERIC, ids=lambda v: " ".join(v) if isinstance(v, tuple) else v)
def test_a_huge_value_of_a_numeric_option_is_abbreviated(monkeypatch, path, option):
    """Issue 42: a 5,001-digit --m gave a 5,106-character error line, for every click integer option."""
    monkeypatch.setenv("CERTIFY_PROGRESS", "0")
    command = dict(COMMANDS)[path]
    code, out, err = _run(*path, *_filled(command), option, HUGE)
    assert code == 2 and out == "" and len(err.strip().splitlines()) == 1, err
    assert len(err) < 400 and option in err, err
    assert "11111111111111111111… (5,001 digits)" in err or "inf is not in the range" in err  # a float: inf


def test_experiment_heads_says_why_it_has_no_preset():
    """Issue 42: `experiment heads --preset paper` answered "No such option '--preset'. Did you mean '--test'?"."""
    code, out, err = _run("experiment", "heads", "--preset", "paper")
    assert code == 2 and out == "" and len(err.strip().splitlines()) == 1
    assert "experiment heads has no --preset: its defaults are the paper's stated §6.3 setup" in err
    code, out, _ = _run("experiment", "capacity", "--help")
    assert "heads has none" in " ".join(out.split())


def _run(*args: str) -> tuple[int, str, str]:
    """``certify ARGS`` in this process (conftest.run_cli_here): ``(exit code, stdout, stderr)``."""
    proc = run_cli_here(*args)
    return proc.returncode, proc.stdout, proc.stderr
