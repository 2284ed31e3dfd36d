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
@click.option("--as-of", "as_of", type=click.DateTime(["%Y-%m-%d"]), required=True,
              help="Date whose hourly costs apply (YYYY-MM-DD).")
@click.option("--file", "extra", type=click.Path(dir_okay=False, path_type=Path),
              help="Also read this publisher's file (not bundled), e.g. a full MLPerf summary.")
@click.option("--suite", type=click.Choice(["mlperf-inference", "inferencex"]),
              default="mlperf-inference", show_default=True, help="Format of --file.")
def hardware(root: Path, model: str, scenario: str, division: str, as_of: dt.datetime,
             extra: Path | None, suite: str) -> None:
    """Print tokens per dollar by accelerator for one model and scenario, per cost basis."""
    # Imported here: `brief` imports this module to register the command (see cli.py).
    from pipeline.formats.mlperf import FormatError
    from pipeline.load.hardware import load_hardware, read_benchmark
    from pipeline.tables.hardware import FileInfo
    from pipeline.tables.hardware_costs import (
        bases_of,
        best_per_accelerator,
        costed_table,
        rows_table,
    )

    hw, rows, problems = load_hardware(root)
    for p in problems:
        click.echo(str(p), err=True)
    if hw is None or any(p.severity == "error" for p in problems):
        raise failed()
    if extra is not None:
        try:
            more, report = read_benchmark(extra.read_bytes(), suite, "", FileInfo(
                str(extra), None, extra.as_uri()), hw.accelerators)
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
    if chosen.empty:
        raise click.ClickException(f"no results for {model} {scenario} ({division})")
    group = int(chosen["group"].iloc[0])
    click.echo(f"{'accelerator':<12}{'result':<12}{'tok/s/acc':>12}{'USD/h':>8}"
               f"{'tokens/USD':>14}{'USD/Mtok':>10}  basis")
    for basis in bases_of(costed, group):
        for c in best_per_accelerator(costed, group, basis).itertuples(index=False):
            mark = ", placeholder" if c.cost_placeholder else ""
            click.echo(f"{c.accelerator:<12}{c.citation_id:<12}"
                       f"{c.value_per_accelerator:>12,.1f}{c.usd_per_accelerator_hour:>8.3f}"
                       f"{c.tokens_per_usd:>14,.0f}{c.usd_per_mtok:>10.4f}  "
                       f"{c.cost_basis_label}{mark}")
