"""Pure: the Hardware page as Markdown, with its charts as SVG drawings.

Per model and scenario: tokens per dollar by accelerator for each cost basis (headline results
only: closed, available, measured, official); marked results listed apart; InferenceX throughput
per GPU against interactivity. The charts (render/hardware_charts.py) are deterministic (fixed
hash salt, no date metadata), and drawn by the build's chart workers (orchestrate/chart_workers.py), so
matplotlib is imported only where they are.
"""

from __future__ import annotations

import html
import re
from collections.abc import Sequence

import pandas as pd

from pipeline.compose.hardware import HardwareShown
from pipeline.compose.numbers import fixed, grouped, money, three_figures
from pipeline.models.hardware_results import HardwareRow
from pipeline.normalize.items import md_link
from pipeline.render.chart_image import IN_PROCESS, ChartDrawer, ChartImage
from pipeline.render.hardware_charts import Bar, interactivity_chart, tokens_per_dollar_chart
from pipeline.tables.hardware import (
    TOKEN_UNITS,
    round_over_round,
    target_text,
)
from pipeline.tables.hardware_costs import (
    GROUP_KEYS,
    Group,
    bases_of,
    best_per_group,
)
from pipeline.tables.hardware_files import hardware_csv, hardware_json, hardware_table


def md_text(text: str) -> str:
    """Return third-party text safe inside a Markdown table cell (escaped HTML, no pipes)."""
    return html.escape(text).replace("|", "&#124;").replace("\n", " ")


def slug(*parts: str) -> str:
    """Return a file-name slug for a chart: `llama2-70b-offline-closed`."""
    return re.sub(r"[^a-z0-9]+", "-", "-".join(parts).lower()).strip("-")


def headline_groups(costed: pd.DataFrame) -> list[tuple[int, Group]]:
    """Return (group number, group) of the comparison groups that have a costed headline token
    result, in sorted order.

    InferenceX sweeps are left out: their best tokens per dollar sits at whatever interactivity
    the highest concurrency gives, so they are shown against interactivity instead."""
    chosen = costed[(costed["suite"] != "InferenceX") & costed["headline"]
                    & costed["tokens_per_usd"].notna()].drop_duplicates("group")
    return sorted(((int(g), tuple(key)) for g, *key in chosen[["group", *GROUP_KEYS]]
                   .itertuples(index=False)), key=lambda p: p[0])


def basis_bars(per_basis: Sequence[tuple[str, Sequence]]) -> list[tuple[str, list[Bar]]]:
    """Return what a group's chart draws, from (cost basis, its best result per accelerator):
    per basis, its label and (accelerator, million tokens per US dollar, whether the cost is a
    placeholder) of each result."""
    return [(results[0].cost_basis_label if results else basis,
             [(r.accelerator, float(r.tokens_per_usd) / 1e6, bool(r.cost_placeholder))
              for r in results]) for basis, results in per_basis]


def group_heading(key: Group) -> str:
    """Return a comparison group as its heading reads: what is compared, at which target."""
    suite, round_, model, target, scenario, division = key
    return (f"{md_text(model)}, {target_text(target)} · {md_text(scenario)} · "
            f"{md_text(division)} division ({md_text(suite)} {md_text(round_)})")


def _result_link(row) -> str:
    return md_link(row.citation_id, row.details_url)


def _cost_link(row) -> str:
    mark = " (placeholder)" if row.cost_placeholder else ""
    return md_link(row.cost_basis_label, row.cost_source_url) + mark


def _round_over_round_section(rows: Sequence[HardwareRow],
                              waiting: Sequence[tuple[str, str, str, int]]) -> list[str]:
    out = ["## Round over round", "",
           "The one place this page sets rounds side by side: one system, one benchmark, in two "
           "rounds that both have a publication date. Software and rules change between rounds, "
           "so the change is the system's, not the accelerator's alone.", ""]
    pairs = round_over_round(rows)
    if not pairs:
        out += ["No system is in two rounds that both have a publication date yet"
                + (" (the rounds below wait for theirs)." if waiting else "."), ""]
        return out
    out += ["| System | Benchmark | Earlier | Tokens/s | Later | Tokens/s | Change |",
            "| --- | --- | --- | ---: | --- | ---: | ---: |"]
    for old, new in pairs:
        system = f"{old.submitter} {old.platform}" if old.platform else old.system
        out.append(f"| {md_text(system)} | {md_text(old.model)}, {target_text(old.accuracy_target)}"
                   f" · {md_text(old.scenario)} · {md_text(old.division)} | "
                   f"{md_text(old.round)} {_result_link(old)} | {grouped(old.value, 1)} | "
                   f"{md_text(new.round)} {_result_link(new)} | {grouped(new.value, 1)} | "
                   f"×{fixed(new.value / old.value, 2)} |")
    out.append("")
    return out


def hardware_page(costed: pd.DataFrame, rows: Sequence[HardwareRow],
                  skipped: Sequence[tuple[str, int, str, int]] = (),
                  drawer: ChartDrawer = IN_PROCESS, unreadable: Sequence[tuple[str, str]] = (),
                  waiting: Sequence[tuple[str, str, str, int]] = (),
                  ) -> tuple[str, dict[str, ChartImage]]:
    """Return (the Hardware page's Markdown, {chart file name: SVG drawing}).

    `costed` and `rows` hold only results whose round is published (tables.hardware.is_public).
    `skipped` lists (file, rows in file, reason, rows left out) for the "not in the table" note;
    `drawer` draws the charts (right away without one); `unreadable` lists (file, why) for the
    benchmark files that could not be read at all, whose results are missing from the page;
    `waiting` lists (suite and round, file, its source URL, results) of the rounds whose
    publication date is not set, whose results are in no figure."""
    charts: dict[str, ChartImage] = {}
    out = ["# Hardware: tokens per dollar", "",
           "Tokens per dollar = tokens per second per accelerator × 3600 ÷ US dollars per "
           "accelerator-hour, for each cost basis. Results are compared only within one round, "
           "model, accuracy target, scenario and division (the round-over-round section is the "
           "exception, and says so); preview, open-division, inferred and unofficial results are "
           "listed apart. Each result links to its page in the publisher's repository and each "
           "cost basis to its source. Costs marked *placeholder* are the source's own estimates.",
           ""]
    best = best_per_group(costed)
    for group, key in headline_groups(costed):
        suite, round_, model, target, scenario, division = key
        name = f"hardware-{slug(suite, round_, model, target, scenario, division)}.svg"
        per_basis = [(basis, list(best.get((group, basis), costed.iloc[:0])
                                  .itertuples(index=False))) for basis in bases_of(costed, group)]
        # The worker is handed plain numbers: what the chart draws, no table to sort again.
        charts[name] = drawer.submit(tokens_per_dollar_chart, key, basis_bars(per_basis))
        out += [f"## {group_heading(key)}", "",
                f"![Tokens per dollar by accelerator, {md_text(model)} "
                f"{target_text(target)} {md_text(scenario)}](charts/{name})", "",
                "| Accelerator | Result | Tokens/s per accelerator | Cost basis | "
                "USD per accelerator-hour | Tokens per USD | USD per Mtok |",
                "| --- | --- | ---: | --- | ---: | ---: | ---: |"]
        for _, results in per_basis:
            for c in results:
                out.append(f"| {c.accelerator} | {_result_link(c)} ({md_text(c.submitter)}) | "
                           f"{grouped(c.value_per_accelerator, 1)} | {_cost_link(c)} | "
                           f"{money(c.usd_per_accelerator_hour, 'USD')} | "
                           f"{three_figures(c.tokens_per_usd)} | "
                           f"{money(c.usd_per_mtok, 'USD', computed=True)} |")
        out.append("")
    out += _round_over_round_section(rows, waiting)
    if waiting:
        out += ["## Rounds waiting for a publication date", "",
                "The benchmark index gives these rounds no publication date yet, so none of "
                "their results is in a figure, table or comparison on this page or in an edition "
                "until it does.", "", "| Round | File | Results |", "| --- | --- | ---: |"]
        out += [f"| {md_link(name, url)} | {md_text(f)} | {n} |" for name, f, url, n in waiting]
        out.append("")
    marked = [r for r in rows if r.flags and r.units == TOKEN_UNITS and r.suite != "InferenceX"]
    if marked:
        out += ["## Marked results (not compared with the above)", "",
                "| Result | Round | Accelerator | Model | Accuracy target | Scenario | "
                "Tokens/s per accelerator | Marked |",
                "| --- | --- | --- | --- | --- | --- | ---: | --- |"]
        out += [f"| {_result_link(r)} | {md_text(r.round)} | {r.accelerator} | "
                f"{md_text(r.model)} | {md_text(r.accuracy_target or 'not stated')} | "
                f"{md_text(r.scenario)} | {grouped(r.value_per_accelerator, 1)} | {', '.join(r.flags)} |"
                for r in sorted(marked, key=lambda r: (r.model, r.accuracy_target, r.scenario,
                                                       r.round, r.citation_id, r.row_ref))]
        out.append("")
    ix = sorted({(r.model, r.scenario) for r in rows if r.suite == "InferenceX"
                 and r.interactivity_tok_s_user is not None})
    for model, scenario in ix:
        name = f"hardware-inferencex-{slug(model, scenario)}.svg"
        shown = [r for r in rows
                 if r.suite == "InferenceX" and (r.model, r.scenario) == (model, scenario)]
        charts[name] = drawer.submit(interactivity_chart, shown, model, scenario)
        out += [f"## InferenceX {md_text(model)} {md_text(scenario)}: throughput per GPU "
                "against interactivity", "", f"![Throughput per GPU against interactivity]"
                f"(charts/{name})", ""]
    if unreadable:
        out += ["## Files not read", "", "These benchmark files could not be read; none of "
                "their results are on this page.", "", "| File | Why |", "| --- | --- |"]
        out += [f"| {md_text(f)} | {md_text(why)} |" for f, why in unreadable]
        out.append("")
    if skipped:
        out += ["## Rows not in the table", "", "Rows of the publishers' files that this page "
                "does not compare, by reason.", "", "| File | Rows | Reason | Left out |",
                "| --- | ---: | --- | ---: |"]
        out += [f"| {md_text(f)} | {total} | {md_text(reason)} | {n} |"
                for f, total, reason, n in skipped]
        out.append("")
    return "\n".join(out), charts


def hardware_files(shown: HardwareShown | None,
                   drawer: ChartDrawer = IN_PROCESS) -> dict[str, str | bytes | ChartImage]:
    """Return the Hardware page of `shown` (compose/hardware.py), its charts (drawn by `drawer`)
    and the hardware data files: results of rounds published by the newest edition only, in the
    page and in the data files alike."""
    if shown is None:
        return {"hardware.md": "# Hardware\n\nNo hardware sources in this repository.\n"}
    page, charts = hardware_page(shown.costed, shown.rows, shown.skipped, drawer=drawer,
                                 unreadable=shown.unreadable, waiting=shown.waiting)
    table = hardware_table(shown.costed)
    files: dict[str, str | bytes | ChartImage] = {"hardware.md": page,
                                               "data/hardware.csv": hardware_csv(table),
                                               "data/hardware.json": hardware_json(table)}
    files.update({f"charts/{name}": svg for name, svg in charts.items()})
    return files
