"""The `brief` command group: the build, its check and preview, and each lane's commands
(cli/terminal.py turns their errors into messages)."""

from __future__ import annotations

import datetime as dt
import sys
from pathlib import Path
from typing import TYPE_CHECKING, ClassVar, NoReturn

import click

from pipeline.cli.terminal import ROOT, STRICT, failed, print_problems, reports_errors
from pipeline.paths import PRINTED, PUBLIC
from pipeline.problems import SourceError

if TYPE_CHECKING:
    import pandas as pd


class _Brief(click.Group):
    """The top-level group; some commands are imported only when they run (or help lists them),
    so `brief build` of an unchanged site does not import what it does not use (the source
    models alone take ~0.08 s)."""

    LAZY: ClassVar[dict[str, str]] = {"new": "pipeline.cli.editors:new",
                                      "schema": "pipeline.cli.editors:schema",
                                      "serve": "pipeline.cli.serve:serve"}

    def list_commands(self, ctx: click.Context) -> list[str]:
        return sorted({*super().list_commands(ctx), *self.LAZY})

    def get_command(self, ctx: click.Context, name: str) -> click.Command | None:
        if name in self.LAZY and name not in self.commands:
            import importlib

            module, attr = self.LAZY[name].split(":")
            self.add_command(getattr(importlib.import_module(module), attr), name)
        return super().get_command(ctx, name)


@click.group(cls=_Brief, context_settings={"help_option_names": ["-h", "--help"]})
def main() -> None:
    """Build the inference-economics briefing site from the sources in this repository."""


@main.command()
@ROOT
@click.option("--format", "fmt", type=click.Choice(["text", "github"]), default="text",
              show_default=True, help="`github` prints problems as workflow annotations.")
@STRICT
def check(root: Path, fmt: str, strict: bool) -> None:
    """Validate every source file; print each problem with its file and field."""
    from pipeline.orchestrate.site import read_sources

    try:
        sources = read_sources(root.resolve(), strict=strict)
    except SourceError as err:
        print_problems(err.problems, fmt)
        errors = sum(p.severity == "error" for p in err.problems)
        click.echo(f"{errors} problem(s) found.", err=True)
        raise failed() from None
    print_problems(sources.warnings, fmt)
    click.echo(f"0 problems; {len(sources.entries)} entries checked"
               + (f", {len(sources.warnings)} warning(s)." if sources.warnings else "."))


def _today(value: str | None) -> dt.date:
    return dt.date.fromisoformat(value) if value else dt.date.today()


@main.command()
@ROOT
@click.option("--out", type=click.Path(file_okay=False, path_type=Path), default=None,
              help="Where to put the site [default: ROOT/public].")
@click.option("--today", default=None, metavar="YYYY-MM-DD",
              help="Build as of this day (editions on a cadence stop here) [default: today].")
@STRICT
@reports_errors
def build(root: Path, out: Path | None, today: str | None, strict: bool) -> None:
    """Check the sources, then build the whole site offline into public/; print the warnings
    `brief check` gives (to standard error; `--strict` fails on them)."""
    from pipeline.orchestrate.site import build_site

    result = build_site(root.resolve(), (out or root / PUBLIC).resolve(), today=_today(today),
                        strict=strict)
    print_problems(list(result.warnings), to_stderr=True)
    click.echo(f"built {result.editions} editions into {result.out}")


@main.command()
@ROOT
@click.option("--today", default=None, metavar="YYYY-MM-DD",
              help="Seal the editions dated up to this day [default: today].")
@click.option("--check", is_flag=True,
              help="Write nothing; exit 1 naming each figure the ledger lacks or records "
                   "otherwise than the editions print it now.")
@reports_errors
def seal(root: Path, today: str | None, check: bool) -> None:
    """Record what each dated edition prints in sources/snapshots/printed.csv; a figure whose
    numbers changed since is kept as a dated correction on its edition."""
    from pipeline.compose.corrections import empty_ledger, sealed
    from pipeline.compose.edition import compose_editions
    from pipeline.load.sources import load_sources
    from pipeline.whole_files import write_whole

    day = _today(today)
    sources = load_sources(root)
    dates = sorted(sources.series.edition_dates(day))
    before = sources.printed if sources.printed is not None else empty_ledger()
    after = sealed(before, compose_editions(sources, dates), day)
    corrected = int((after["replaced"] == day.isoformat()).sum())
    data = after.to_csv(index=False, lineterminator="\n").encode("utf-8")
    path = root / PRINTED
    current = path.is_file() and path.read_bytes() == data
    if check:
        if not current:
            _not_sealed(before, after)
        click.echo(f"{PRINTED.as_posix()} records every figure the {len(dates)} editions print")
        return
    if not current:
        write_whole(path, data)
    click.echo(f"sealed {len(dates)} editions ({len(after)} figures recorded); "
               f"{corrected} corrected today")


def _not_sealed(before: pd.DataFrame, after: pd.DataFrame) -> NoReturn:
    """Say which figures the editions print that the ledger does not hold as printed, then exit 1."""
    was = {(r.edition, r.figure): r.text for r in before[before["replaced"] == ""].itertuples()}
    lines = [f"{PRINTED.as_posix()}: {r.edition} {r.figure}: "
             + ("not recorded" if (r.edition, r.figure) not in was else "recorded as it printed before")
             for r in after[after["replaced"] == ""].itertuples()
             if was.get((r.edition, r.figure)) != r.text]
    for line in lines:
        click.echo(line, err=True)
    what = (f"{len(lines)} figure(s) the editions print are not sealed" if lines else
            "it is not written as `brief seal` writes it")
    click.echo(f"{PRINTED.as_posix()} is not current: {what}; run `brief seal` and commit it",
               err=True)
    raise failed()


def _register_lanes() -> None:
    from pipeline.cli import feeds, hardware, market, prices

    hardware.register(main)
    market.register(main)
    prices.register(main)  # creates the `import` and `ingest` groups
    feeds.register(main)
    main.commands["ingest"].add_command(feeds.ingest_feeds)  # type: ignore[attr-defined]
    from pipeline.cli import channels

    channels.register(main)


_register_lanes()


def run() -> None:
    """The `brief` executable: run the command, then end the process without tearing it down.

    A year-scale build leaves millions of objects that the interpreter would free one by one on
    the way out: 0.13 s of a 2.7 s rebuild, after the work is done (mypy ends the same way). By
    then every file the command wrote is closed and its child processes have stopped; only
    stdout and stderr hold buffered text, so they are flushed first. Tests call `main` instead,
    which returns normally."""
    import os

    try:
        main()
        code: object = 0
    except SystemExit as done:
        code = done.code
    if code is not None and not isinstance(code, int):  # sys.exit("message"): print it, fail
        print(code, file=sys.stderr)
        code = 1
    for stream in (sys.stdout, sys.stderr):
        if stream is None:  # started with it closed (`>&-`): nothing was buffered for it
            continue
        try:
            stream.flush()
        except (OSError, ValueError):  # a closed pipe: nothing more can reach the reader
            code = code or 1
    os._exit(code or 0)


if __name__ == "__main__":
    run()
