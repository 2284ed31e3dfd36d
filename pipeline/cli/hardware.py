"""`brief hardware`: show tokens per dollar by accelerator, and read a publisher's file as a check."""

from __future__ import annotations

import datetime as dt
from pathlib import Path

import click

from pipeline.cli.terminal import ROOT, failed


def register(group: click.Group) -> None:
    """Add the `hardware` command to the `brief` group."""
    group.add_command(hardware)


@click.command()
@ROOT
@click.option("--model", default="llama2-70b", show_default=True, help="Model, without accuracy target.")
@click.option("--scenario", default="Offline", show_default=True)
@click.option("--division", default="closed", show_default=True)
@click.option("--target", default=None, help="Accuracy target (99 or 99.9); all when not given.")
@click.option("--as-of", "as_of", type=click.DateTime(["%Y-%m-%d"]), required=True,
              help="Date whose hourly costs apply (YYYY-MM-DD).")
@click.option("--file", "extra", type=click.Path(dir_okay=False, path_type=Path),
              help="Also read this publisher's file (not bundled), e.g. a full MLPerf summary.")
@click.option("--suite", type=click.Choice(["mlperf-inference", "inferencex"]),
              default="mlperf-inference", show_default=True, help="Format of --file.")
def hardware(root: Path, model: str, scenario: str, division: str, target: str | None,
             as_of: dt.datetime, extra: Path | None, suite: str) -> None:
    """Print tokens per dollar by accelerator for one model and scenario, per cost basis: one
    table per round and accuracy target (results of rounds with no publication date by
    --as-of are left out, as on the Hardware page; a --file is shown whatever its date)."""
    # Imported here: `brief` imports this module to register the command (see cli/main.py).
    from pipeline.formats.mlperf import FormatError
    from pipeline.load.hardware import load_hardware
    from pipeline.load.parse import read_benchmark
    from pipeline.normalize.accelerators import accelerator_patterns
    from pipeline.tables.hardware import FileInfo, is_public
    from pipeline.tables.hardware_costs import (
        bases_of,
        best_per_group,
        costed_table,
        rows_table,
    )

    hw, rows, problems = load_hardware(root)
    for p in problems:
        click.echo(p.located(), err=True)
    if hw is None or any(p.severity == "error" for p in problems):
        raise failed()
    every_row = rows
    rows = [r for r in rows if is_public(r, as_of.date())]
    if extra is not None:
        try:
            more, report = read_benchmark(extra.read_bytes(), suite, "", FileInfo(
                str(extra), None, extra.as_uri()), accelerator_patterns(hw.accelerators))
        except (OSError, FormatError) as err:
            raise click.ClickException(f"{extra}: {err}") from err
        rows = rows + more
        click.echo(f"{extra}: {report.total_rows} rows ({report.schema}); "
                   f"{report.table_rows} in the table")
        for reason, n in report.skipped:
            click.echo(f"  {n:5d}  {reason}")
    costed = costed_table(rows_table(rows), hw.costs, as_of.date())
    chosen = costed[(costed["model"] == model) & (costed["scenario"] == scenario)
                    & (costed["division"] == division)]
    if target is not None:
        chosen = chosen[chosen["accuracy_target"] == target]
    if chosen.empty:
        asked = f"{model} {scenario} ({division}{f', {target} % target' if target else ''})"
        later = sorted(r.published for r in every_row if r.published is not None
                       and r.published > as_of.date() and (r.model, r.scenario, r.division) == (
                           model, scenario, division) and target in (None, r.accuracy_target))
        if not later:
            raise click.ClickException(f"no results for {asked}")
        # An empty answer for a date before the rounds would read as "no such results".
        raise click.ClickException(
            f"no results for {asked} published by {as_of:%Y-%m-%d}; {len(later)} were published "
            f"later, the first on {later[0]:%Y-%m-%d}")
    best = best_per_group(costed)
    for group in sorted(set(chosen["group"])):
        first = chosen[chosen["group"] == group].iloc[0]
        click.echo(f"{first['suite']} {first['round']}, {model} {scenario} {division}, "
                   f"accuracy target {first['accuracy_target'] or 'not stated'}")
        click.echo(f"{'accelerator':<12}{'result':<12}{'tok/s/acc':>12}{'USD/h':>8}"
                   f"{'tokens/USD':>14}{'USD/Mtok':>10}  basis")
        for basis in bases_of(costed, group):
            for c in best.get((group, basis), costed.iloc[:0]).itertuples(index=False):
                mark = ", placeholder" if c.cost_placeholder else ""
                click.echo(f"{c.accelerator:<12}{c.citation_id:<12}"
                           f"{c.value_per_accelerator:>12,.1f}{c.usd_per_accelerator_hour:>8.3f}"
                           f"{c.tokens_per_usd:>14,.0f}{c.usd_per_mtok:>10.4f}  "
                           f"{c.cost_basis_label}{mark}")
