"""The ``certify`` command: a thin click layer over the library, one module per command group.

``common`` (the group, the error kinds, writing and re-verifying), ``certificates``
(rank-nine, verify, rank-bound, search, unique-minimizer, family), ``bounds``,
``kernels`` (check-kernel, train), ``constructions`` (construction, identities),
``bracket`` (bracket), ``minrank`` (minrank), ``experiments`` (experiment capacity, heads, check-split).

Exit codes (every command): 0 verified/solved, 1 rejected/not solved, 2 bad or
unreadable input or unwritable output (one line on stderr), 3 internal contradiction;
130 Ctrl-C, 141 standard output closed by its reader, 143 SIGTERM.
"""
from __future__ import annotations

import errno
import os
import re
import signal
import sys

if os.path.basename(sys.argv[0]) in ("certify", "-m") and signal.getsignal(signal.SIGINT) is signal.default_int_handler:
    # Run as the program (the console script, or python -m certify.cli): a signal while the imports below
    # run is 130 / 143 with one line, as later; nothing is written yet, so leave at once.
    def _starting(signum, frame):
        os.write(2, b"certify: interrupted (SIGINT)\n" if signum == signal.SIGINT else b"certify: terminated (SIGTERM)\n")
        os._exit(130 if signum == signal.SIGINT else 143)

    _starting.certify_starting = True
    signal.signal(signal.SIGINT, _starting)
    signal.signal(signal.SIGTERM, _starting)

import click  # noqa: E402

from ..check import EXIT_INTERNAL, EXIT_MALFORMED, CertificateError, guard_process, safe_output_streams  # noqa: E402
from . import bounds, bracket, certificates, constructions, experiments, kernels, minrank  # noqa: F401,E402 - each registers its commands
from .common import Interrupted, cli  # noqa: E402

__all__ = ["cli", "main"]


#: errno values of a failed write (a full disk, a quota, an I/O error): bad output, exit 2, not a bug.
_WRITE_ERRNOS = {errno.ENOSPC, errno.EIO, errno.EFBIG, errno.EDQUOT, errno.EROFS}


def main(argv: list[str] | None = None) -> None:
    """Console entry point: run the CLI, turn every failure into one line and an exit code.

    Process faults (``certify.check.guard_process``, the same as ``check.py``): Ctrl-C exits
    130 and SIGTERM 143 after unwinding (``finally`` blocks run, so no ``OUT.tmp<pid>`` is
    left behind; SIGKILL cannot be caught); a closed standard output (``| head``) exits 141
    silently; a write error on standard output (a full disk) exits 2 with the reason.
    """
    safe_output_streams()
    sys.exit(guard_process(lambda: _run(argv), "certify"))


def _run(argv: list[str] | None) -> int:
    try:
        code = cli.main(args=argv, prog_name="certify", standalone_mode=False)
    except click.exceptions.UsageError as exc:
        hint = f" (try '{exc.ctx.command_path if exc.ctx else 'certify'} --help')"  # the full path: certify experiment capacity
        click.echo(f"certify: error: {abbreviate(exc.format_message())}{hint}", err=True)
        code = EXIT_MALFORMED
    except click.ClickException as exc:
        click.echo(f"certify: error: {abbreviate(exc.format_message())}", err=True)
        code = exc.exit_code
    except CertificateError as exc:  # a limit or a verdict of the checker's library, raised past a command: its own code
        click.echo(f"certify: error: {exc}", err=True)  # (limits, format: 2 naming the limit; rejected: 1; contradiction: 3)
        code = exc.exit_code
    except (click.exceptions.Abort, Interrupted):  # Ctrl-C: click's form (while parsing), ours past click's empty line
        raise KeyboardInterrupt from None
    except (KeyboardInterrupt, BrokenPipeError):
        raise
    except SystemExit as exc:  # click turns a closed pipe (EPIPE) into exit 1 after pacifying stdout
        from click.utils import PacifyFlushWrapper

        if isinstance(sys.stdout, PacifyFlushWrapper):
            raise BrokenPipeError from None
        raise exc
    except OSError as exc:
        if exc.errno in _WRITE_ERRNOS:
            raise  # guard_process: "cannot write the output", exit 2
        return _internal(exc)
    except Exception as exc:  # a bug: say so in one line, never a traceback
        return _internal(exc)
    return code if isinstance(code, int) else 0


_LONG_NUMBER = re.compile(r"\d{41,}")
_LONG_WORD = re.compile(r"\S{201,}")


def abbreviate(message: str) -> str:
    """An error line with every value a user typed kept short (issue 42): a run of more than 40 digits becomes its
    first 20 and its length, any other word over 200 characters its first 60 — as the project's own parsers say
    "integer 10000000000…", so that a 5,001-digit ``--m`` gives a line of a hundred characters, not 5,106.

    >>> abbreviate("Invalid value for '--m': " + "9" * 5001 + " is not in the range 4<=x<=64.")
    "Invalid value for '--m': 99999999999999999999… (5,001 digits) is not in the range 4<=x<=64."
    """
    message = _LONG_NUMBER.sub(lambda mo: f"{mo.group()[:20]}… ({len(mo.group()):,} digits)", message)
    return _LONG_WORD.sub(lambda mo: f"{mo.group()[:60]}… ({len(mo.group()):,} characters)", message)


def _internal(exc: Exception) -> int:
    if os.environ.get("CERTIFY_DEBUG"):
        raise exc
    click.echo(f"certify: internal error: {type(exc).__name__}: {exc} (set CERTIFY_DEBUG=1 for a traceback)", err=True)
    return EXIT_INTERNAL
