"""`brief price MODEL --at DATE`: what a workload of one model cost at each provider on a date."""

from __future__ import annotations

import datetime as dt
from pathlib import Path

import click

from pipeline.cli.terminal import ROOT, failed, print_problems, reports_errors


def register(group: click.Group) -> None:
    """Add the `price` command to the `brief` group."""
    group.add_command(price)


@click.command()
@ROOT
@click.argument("model")
@click.option("--at", "at", type=click.DateTime(["%Y-%m-%d"]), required=True,
              help="The date (YYYY-MM-DD): the prices known by its end, as the snapshots of "
                   "the catalogues and the curated files had them.")
@click.option("--profile", default=None, metavar="ID",
              help="The workload profile of sources/editions.yaml to blend by [default: the "
                   "first, the market's 3:1 input:output].")
@reports_errors
def price(root: Path, model: str, at: dt.datetime, profile: str | None) -> None:
    """Print what MODEL cost at each provider on a date, cheapest first for a workload, and the
    snapshot each price comes from (a catalogue's version, with its commit, or a curated
    record). MODEL is compared as the Market groups ids: `gpt-4o`, `openai/gpt-4o` and
    `GPT-4o` are one model."""
    from pipeline.load.sources import load_sources
    from pipeline.problems import SourceError
    from pipeline.tables.price_at import price_at

    try:
        sources = load_sources(root)
    except SourceError as err:
        print_problems(err.problems)
        raise failed() from None
    profiles = {p.id: p for p in sources.series.profiles}
    chosen = profiles.get(profile) if profile else next(iter(profiles.values()), None)
    if chosen is None:
        raise click.BadParameter(f"no profile {profile!r}; the series has "
                                 f"{', '.join(profiles) or 'none'}", param_hint="--profile")
    day = at.date()
    rows = price_at(sources, model, day, chosen)
    if rows.empty:
        raise click.ClickException(f"no provider listed {model} by the end of {day}")
    names = {c.name: c for c in sources.published_catalogues()}
    click.echo(f"{model} on {day}, {chosen.title}, US dollars per million tokens:")
    click.echo(f"{'provider':<20} {'model':<34} {'input':>9} {'cached':>9} {'output':>9} "
               f"{'workload':>9}  snapshot")
    for r in rows.itertuples(index=False):
        catalogue = names.get(r.source)
        where = r.source
        if r.commit and catalogue is not None and catalogue.repository is not None:
            where += f" {str(catalogue.repository).rstrip('/')}/commit/{r.commit}"
        click.echo(f"{r.provider[:20]:<20} {r.model[:34]:<34} {_usd(r.input_usd_per_mtok)} "
                   f"{_usd(r.cached_input_usd_per_mtok)} {_usd(r.output_usd_per_mtok)} "
                   f"{_usd(r.workload_usd_per_mtok)}  {r.snapshot} {where}")


def _usd(value: float) -> str:
    return f"{'':>9}" if value != value else f"{value:>9.4g}"
