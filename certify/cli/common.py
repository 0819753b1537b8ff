"""What every ``certify`` command shares: the click group, the error kinds, writing and re-verifying.

Exit codes (every command): 0 verified/solved, 1 rejected/not solved, 2 bad or
unreadable input (one line on stderr), 3 internal contradiction.
"""
from __future__ import annotations

import os

import click

from .. import __version__
from ..check import EXIT_INTERNAL, EXIT_MALFORMED, CertificateError

__all__ = ["cli", "InputError", "Rejected", "Contradiction", "refuse_same_file", "refuse_inputs_as_outputs",
           "writes_into", "exit_codes", "FAULT_CODES", "strict_json"]


class InputError(click.ClickException):
    """Bad input: exit 2 with a one-line reason."""

    exit_code = EXIT_MALFORMED


class Rejected(click.ClickException):
    """An input that is well formed but does not prove what it says: exit 1 with a one-line reason."""

    exit_code = 1


class Contradiction(click.ClickException):
    """Two of our own computations disagree: exit 3."""

    exit_code = EXIT_INTERNAL


#: Parameters that name a file a command writes. Every other parameter whose value is an existing file is read.
OUTPUT_PARAMETERS = ("out", "sharper_out", "expand", "plot")
#: The parameter naming a folder a command writes into; what it writes there is the command's ``folder_outputs``.
FOLDER_PARAMETER = "out_dir"


def writes_into(*patterns: str):
    """Declare the files a command writes into its ``--out`` folder, as ``fnmatch`` patterns of their paths relative
    to the folder (``"bracket.json"``, ``"rank*.table.json"``, ``"*/draw*/split.json"``): an input among them is refused
    before any work (:func:`refuse_inputs_as_outputs`)."""
    def mark(command: click.Command) -> click.Command:
        command.folder_outputs = patterns
        return command

    return mark


def _flag(ctx: click.Context, name: str) -> str:
    for p in ctx.command.params:
        if p.name == name:
            return p.opts[0] if isinstance(p, click.Option) else p.human_readable_name.strip("[]")  # an argument: FAMILY
    return name


def refuse_inputs_as_outputs(ctx: click.Context) -> None:
    """One rule for every command that writes: exit 2, before any work, if an output path is one of its input files.

    The same file by ``os.path.samefile`` (a link or another spelling of the path included),
    not by spelling: ``rank-bound --code F --out F`` would replace the code it reads.
    """
    outs = [(n, v) for n, v in ctx.params.items() if n in OUTPUT_PARAMETERS and isinstance(v, str) and v]
    ins = [(n, v) for n, v in ctx.params.items()
           if n not in OUTPUT_PARAMETERS + (FOLDER_PARAMETER,) and isinstance(v, str) and v and os.path.isfile(v)]
    for oname, out in outs:
        for iname, src in ins:
            try:
                same = os.path.exists(out) and os.path.samefile(src, out)
            except OSError:
                same = False
            if same:
                raise InputError(f"{_flag(ctx, oname)} {out} is the input file given as {_flag(ctx, iname)}; "
                                 "choose another output path")
    folder = ctx.params.get(FOLDER_PARAMETER)
    patterns = getattr(ctx.command, "folder_outputs", ())
    if isinstance(folder, str) and folder and patterns:
        for iname, src in ins:
            clash = _written_into(folder, src, patterns)
            if clash is not None:
                raise InputError(f"{_flag(ctx, FOLDER_PARAMETER)} {folder} would write {clash}, the input file given as "
                                 f"{_flag(ctx, iname)}; choose another folder or move the input")


def _written_into(folder: str, src: str, patterns: tuple[str, ...]) -> str | None:
    """The path of ``folder`` under which the command would write over ``src`` (its own path, or the file a link
    of that name leads to), if a pattern of the command's outputs matches it; else ``None``."""
    import fnmatch

    bases = {os.path.abspath(folder), os.path.realpath(folder)}
    for path in {os.path.abspath(src), os.path.realpath(src)}:
        for base in bases:
            rel = os.path.relpath(path, base)
            if rel.startswith(os.pardir + os.sep) or rel == os.pardir or os.path.isabs(rel):
                continue
            if any(fnmatch.fnmatchcase(rel, p) for p in patterns):
                return os.path.join(folder, rel)
    return None


#: Process faults, the same for every command and for certify/check.py (``certify.check.guard_process``).
FAULT_CODES = {130: "Ctrl-C", 141: "standard output closed by its reader", 143: "SIGTERM"}


def exit_codes(ok: str, rejected: str | None = None, bad: str = "bad input, or output that cannot be written",
               internal: str = "internal contradiction (a bug)"):
    """Declare what each exit code of a command means; its ``--help`` ends with them (issue 42).

    Codes 2 and 3 and the process faults (:data:`FAULT_CODES`) apply to every command; 1 only
    to those that can reject or fail to solve (``rejected``: what 1 means there).
    """
    codes = {0: ok, **({1: rejected} if rejected else {}), 2: bad, 3: internal, **FAULT_CODES}

    def mark(command: click.Command) -> click.Command:
        command.exit_codes = codes
        command.epilog = "Exit codes: " + "; ".join(f"{c} {meaning}" for c, meaning in codes.items()) + "."
        return command

    return mark


class _Command(click.Command):
    def invoke(self, ctx: click.Context):
        refuse_inputs_as_outputs(ctx)
        return super().invoke(ctx)


class Interrupted(BaseException):
    """Ctrl-C on its way past ``click``'s ``main``, which would write an empty line on standard error before its
    ``Abort``; :func:`certify.cli.main` turns it back into ``KeyboardInterrupt``: one line, exit 130."""


class _Group(click.Group):
    command_class = _Command
    group_class = type  # subgroups (certify experiment …) are _Groups too, so their commands are _Commands

    def invoke(self, ctx: click.Context):
        try:
            return super().invoke(ctx)
        except KeyboardInterrupt:
            raise Interrupted from None


@exit_codes("verified or solved", "rejected or not solved (the message names the failing step and item)")
@click.group(cls=_Group, context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(__version__, prog_name="certify")
def cli() -> None:
    """Exact proof certificates for "Three Tokens Force Exponential Feature Rank in
    Nonnegative Kernel Attention".
    """


def _write_and_reverify(cert: dict, out: str, proved: int, max_work: int | None = None):
    """Write ``cert`` to ``out``, re-read it with the independent checker; return (Verified, bytes).

    ``max_work``: the checker's compact work limit (its ``--max-work``; default its own).

    Exit 2 if the file cannot be written; exit 3 if the checker rejects our own
    certificate or proves a different bound (either would be a bug).
    """
    from ..certificates.producer import write_certificate
    from ..check import check, loads

    try:
        data = write_certificate(cert, out)
    except OSError as exc:
        raise InputError(f"cannot write {out}: {exc.strerror or exc}") from None
    try:  # the bytes this process wrote, not the path again: another process cannot change the verdict
        verified = check(loads(data), max_work)
    except CertificateError as exc:
        raise Contradiction(f"the independent checker rejects our own certificate {out}: {exc}") from None
    if verified.proved != proved:
        raise Contradiction(f"the producer says r ≥ {proved}, the checker says r ≥ {verified.proved}")
    return verified, len(data)


def strict_json(doc) -> str:
    """``json.dumps`` that refuses ``NaN`` and ``Infinity`` (not JSON; strict parsers reject them): a bug, exit 3."""
    import json

    return json.dumps(doc, allow_nan=False)


def refuse_same_file(source: str, out: str, option: str) -> None:
    """Exit 2 if writing ``out`` would replace the file ``source`` that is being read (e.g. ``verify X --expand X``)."""
    try:
        same = os.path.exists(out) and os.path.samefile(source, out)
    except OSError:
        same = False
    if same or os.path.abspath(source) == os.path.abspath(out):
        raise InputError(f"{option} {out} is the input file itself; choose another output path")


def _echo_written(title: str, cert: dict, out: str, verified, extra: list[str] = ()) -> None:
    """The text summary of a produced certificate: what it claims, how it was made, where it went."""
    from ..certificates.producer import describe

    click.echo(title)
    for line in describe(cert) + list(extra):
        click.echo("  " + line)
    click.echo(f"  wrote       {out}  (sha256 {cert['sha256'][:16]}…)")
    click.echo(f"  verified    independent checker (certify/check.py) re-read the file: r ≥ {verified.proved}")
