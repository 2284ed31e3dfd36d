"""Commands of the channels lane: `brief email DATE` writes an edition as a .eml message."""

from __future__ import annotations

import datetime as dt
import sys
from pathlib import Path

import click

from pipeline.cli.terminal import ROOT, reports_errors
from pipeline.problems import BuildError


def register(group: click.Group) -> None:
    """Add the channels commands to `group` (the `brief` command)."""

    @group.command()
    @click.argument("date", metavar="YYYY-MM-DD")
    @ROOT
    @click.option("--out", type=click.Path(dir_okay=False, path_type=Path), default=None,
                  help="Write the message to this file [default: standard output].")
    @click.option("--from", "sender", default=None, metavar="ADDRESS",
                  help="The From header [default: the series' name at briefing@<site host>].")
    @click.option("--to", default=None, metavar="ADDRESS", help="The To header, if any.")
    @reports_errors
    def email(date: str, root: Path, out: Path | None, sender: str | None,
              to: str | None) -> None:
        """Write the e-mail edition of DATE as a multipart/alternative .eml (text and HTML)."""
        from pipeline.build.charts import ChartCache
        from pipeline.build.files import edition_charts
        from pipeline.build.stamp import cache_dir
        from pipeline.compose.edition import compose_editions
        from pipeline.load.sources import load_sources
        from pipeline.render.channels import edition_email

        try:
            day = dt.date.fromisoformat(date)
        except ValueError:
            raise BuildError(f"{date!r} is not a date; give it as YYYY-MM-DD") from None
        root = root.resolve()
        sources = load_sources(root)
        dates = [d for d in sources.series.edition_dates(max(day, dt.date.today())) if d <= day]
        if day not in dates:
            known = ", ".join(d.isoformat() for d in dates[-5:]) or "none"
            raise BuildError(f"{day} is not an edition date (latest editions up to it: {known})")
        editions = compose_editions(sources, dates)
        cache = cache_dir(root)
        charts = edition_charts(sources, editions,
                                ChartCache(cache / "charts" if cache else None).chart)
        message = edition_email(editions[-1], editions, sources.series, charts[day],
                                sender=sender, to=to)
        if out is None:
            if sys.stdout is None:  # started with it closed
                raise BuildError("standard output is closed: give --out FILE for the message")
            sys.stdout.buffer.write(message)
            sys.stdout.buffer.flush()
        else:
            out.write_bytes(message)
            click.echo(f"wrote {out} ({len(message):,} bytes)", err=True)
