"""The ``certify`` command: a thin click layer over the library, one module per command group.

``common`` (the group, the error kinds, writing and re-verifying), ``certificates``
(rank-nine, verify, rank-bound, search, unique-minimizer, family), ``bounds``,
``kernels`` (check-kernel, train), ``constructions`` (construction, identities),
``bracket`` (bracket).

Exit codes (every command): 0 verified/solved, 1 rejected/not solved, 2 bad or
unreadable input (one line on stderr), 3 internal contradiction.
"""
from __future__ import annotations

import os
import signal
import sys

import click

from ..check import EXIT_INTERNAL, EXIT_MALFORMED, safe_output_streams
from . import bounds, bracket, certificates, constructions, kernels  # noqa: F401 - each registers its commands
from .common import cli

__all__ = ["cli", "main"]


def _terminated(signum, frame) -> None:
    """SIGTERM: unwind like an exception, so that atomic writes remove their temporary files."""
    click.echo("certify: terminated (SIGTERM)", err=True)
    raise SystemExit(128 + signum)


def main(argv: list[str] | None = None) -> None:
    """Console entry point: run the CLI, turn every failure into one line and an exit code.

    SIGTERM (``kill``, a CI timeout) exits 143 after unwinding: ``finally`` blocks run, so no
    ``OUT.tmp<pid>`` is left behind (SIGKILL cannot be caught; Ctrl-C is "aborted", exit 1).
    """
    safe_output_streams()
    try:
        previous = signal.signal(signal.SIGTERM, _terminated)
    except ValueError:  # not the main thread (an embedding program): leave its handlers alone
        previous = None
    try:
        code = cli.main(args=argv, prog_name="certify", standalone_mode=False)
    except click.exceptions.UsageError as exc:
        hint = f" (try 'certify {exc.ctx.info_name if exc.ctx and exc.ctx.parent else ''} --help')".replace("  ", " ")
        click.echo(f"certify: error: {exc.format_message()}{hint}", err=True)
        code = EXIT_MALFORMED
    except click.ClickException as exc:
        click.echo(f"certify: error: {exc.format_message()}", err=True)
        code = exc.exit_code
    except click.exceptions.Abort:
        click.echo("certify: aborted", err=True)
        code = 1
    except BrokenPipeError:
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
        code = 1
    except Exception as exc:  # a bug: say so in one line, never a traceback
        if os.environ.get("CERTIFY_DEBUG"):
            raise
        click.echo(f"certify: internal error: {type(exc).__name__}: {exc} (set CERTIFY_DEBUG=1 for a traceback)", err=True)
        code = EXIT_INTERNAL
    finally:
        if previous is not None:
            signal.signal(signal.SIGTERM, previous)
    sys.exit(code if isinstance(code, int) else 0)

