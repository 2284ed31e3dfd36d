"""What every command shares with the terminal: the `--root` option, problems printed one per
line, and domain errors turned into a message and exit code 1, never a traceback."""

from __future__ import annotations

import functools
from collections.abc import Callable
from pathlib import Path

import click

from pipeline.problems import BuildError, Problem, SourceError

ROOT = click.option(
    "--root", type=click.Path(file_okay=False, path_type=Path), default=Path("."),
    show_default=True, help="The repository whose sources/ to read (and write, for commands "
    "that write).")


STRICT = click.option("--strict", is_flag=True,
                      help="Treat every warning as an error (exit 1, nothing built).")

ALLOW_NETWORK = click.option(
    "--allow-network", "allowed", multiple=True, metavar="CIDR", envvar="BRIEF_ALLOW_NETWORK",
    help="Also allow this non-public network (e.g. 127.0.0.0/8 for a local test server).")
"""The ingest commands' escape from the address checks, for tests on 127.0.0.1."""


def print_problems(problems: list[Problem], fmt: str = "text", *, to_stderr: bool = False) -> None:
    """Print problems one per line, as `path:line:col: field: message` (Problem.located) or as
    GitHub annotations; errors go to standard error, warnings to standard output (`to_stderr`:
    both to standard error, for commands whose standard output is their result)."""
    for p in problems:
        if fmt == "github":
            level = "warning" if p.severity == "warning" else "error"
            line = f",line={p.line}" + (f",col={p.column}" if p.column else "") if p.line else ""
            title = f",title={_gh_escape(p.field, True)}" if p.field else ""
            click.echo(f"::{level} file={_gh_escape(p.path, True)}{line}{title}::"
                       f"{_gh_escape(p.message)}")
        else:
            click.echo(p.located(), err=to_stderr or p.severity == "error")


def _gh_escape(text: str, prop: bool = False) -> str:
    # The workflow-command escaping GitHub documents for data and property values.
    text = text.replace("%", "%25").replace("\r", "%0D").replace("\n", "%0A")
    if prop:
        text = text.replace(":", "%3A").replace(",", "%2C")
    return text


def failed() -> click.exceptions.Exit:
    """Return the exit of a command that failed after saying why (raise it)."""
    return click.exceptions.Exit(1)


def os_error_line(err: OSError, where: object) -> str:
    """Return an OS error as one line: the path it concerns (`where`, the command's output or
    repository, when the error names none) and what the system said."""
    path = err.filename if err.filename is not None else where
    also = f" → {err.filename2}" if err.filename2 is not None else ""
    return f"error: {path}{also}: {err.strerror or err}"


def reports_errors(fn: Callable) -> Callable:
    """Turn the domain errors of a command into messages and exit code 1, without tracebacks;
    an OS error (a read-only folder, a full disk) is one line naming the path."""
    @functools.wraps(fn)
    def wrapper(*args, **kwargs):
        try:
            return fn(*args, **kwargs)
        except OSError as err:
            click.echo(os_error_line(err, kwargs.get("out") or kwargs.get("root", ".")),
                       err=True)
            raise failed() from None
        except SourceError as err:
            print_problems(err.problems)
            errors = sum(p.severity == "error" for p in err.problems)
            click.echo(f"{errors} problem(s) found; nothing was written.", err=True)
            raise failed() from None
        except BuildError as err:
            click.echo(f"error: {err}", err=True)
            raise failed() from None
    return wrapper
