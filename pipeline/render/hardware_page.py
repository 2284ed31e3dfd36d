"""Pure: the Hardware page as Markdown, with its charts as SVG drawings.

Per model and scenario: tokens per dollar by accelerator for each cost basis (headline results
only: closed, available, measured, official); marked results listed apart; InferenceX throughput
per GPU against interactivity. Charts are deterministic (fixed hash salt, no date metadata), and
drawn by the build's chart workers (build/drawer.py), so matplotlib is imported only where they are.
"""

from __future__ import annotations

import datetime as dt
import html
import re
from collections.abc import Sequence

import pandas as pd

from pipeline.compose.sources import Sources
from pipeline.render.charts import svg_bytes
from pipeline.render.drawing import NOW, Drawing, Draws
from pipeline.tables.hardware import HardwareRow, usd_at_ecb_rates
from pipeline.tables.hardware_costs import (
    GROUP_KEYS,
    Group,
    bases_of,
    best_per_accelerator,
    costed_table,
    rows_table,
)
from pipeline.tables.hardware_files import hardware_csv, hardware_json, hardware_table


def md_text(text: str) -> str:
    """Return third-party text safe inside a Markdown table cell (escaped HTML, no pipes)."""
    return html.escape(text).replace("|", "&#124;").replace("\n", " ")


def slug(*parts: str) -> str:
    """Return a file-name slug for a chart: `llama2-70b-offline-closed`."""
    return re.sub(r"[^a-z0-9]+", "-", "-".join(parts).lower()).strip("-")


def _figure():
    from matplotlib.figure import Figure

    return Figure(figsize=(7, 3.6))


def headline_groups(costed: pd.DataFrame) -> list[tuple[int, Group]]:
    """Return (group number, group) of the comparison groups that have a costed headline token
    result, in sorted order.

    InferenceX sweeps are left out: their best tokens per dollar sits at whatever interactivity
    the highest concurrency gives, so they are shown against interactivity instead."""
    chosen = costed[(costed["suite"] != "InferenceX") & costed["headline"]
                    & costed["tokens_per_usd"].notna()].drop_duplicates("group")
    return sorted(((int(g), tuple(key)) for g, *key in chosen[["group", *GROUP_KEYS]]
                   .itertuples(index=False)), key=lambda p: p[0])


def tokens_per_dollar_chart(costed: pd.DataFrame, group: int, key: Group) -> bytes:
    """Return an SVG bar chart: tokens per dollar by accelerator, one bar per cost basis."""
    bases = bases_of(costed, group)
    best = {b: {r.accelerator: r for r in best_per_accelerator(costed, group, b)
                .itertuples(index=False)} for b in bases}
    accelerators = sorted({a for per in best.values() for a in per},
                          key=lambda a: (-max(best[b][a].tokens_per_usd
                                              for b in bases if a in best[b]), a))
    fig = _figure()
    ax = fig.add_subplot()
    width = 0.8 / max(len(bases), 1)
    for i, b in enumerate(bases):
        xs, heights, hatches = [], [], []
        for j, a in enumerate(accelerators):
            if a in best[b]:
                xs.append(j + i * width)
                heights.append(best[b][a].tokens_per_usd / 1e6)
                hatches.append("//" if best[b][a].cost_placeholder else "")
        label = next(iter(best[b].values())).cost_basis_label if best[b] else b
        bars = ax.bar(xs, heights, width, label=label)
        for bar, hatch in zip(bars, hatches):
            bar.set_hatch(hatch)
    ax.set_xticks([j + width * (len(bases) - 1) / 2 for j in range(len(accelerators))],
                  accelerators)
    ax.set_ylabel("million tokens per US dollar")
    suite, model, scenario, division = key
    ax.set_title(f"{model} {scenario} ({suite}, {division}): tokens per dollar by cost basis",
                 fontsize=9)
    ax.legend(fontsize=7, title="cost basis (hatched: placeholder cost)", title_fontsize=7)
    return svg_bytes(fig, bbox_inches="tight")


def interactivity_chart(rows: Sequence[HardwareRow], model: str, scenario: str) -> bytes:
    """Return an SVG scatter: InferenceX throughput per GPU against interactivity, per accelerator."""
    fig = _figure()
    ax = fig.add_subplot()
    chosen = [r for r in rows if r.suite == "InferenceX" and r.model == model
              and r.scenario == scenario and r.interactivity_tok_s_user is not None]
    for accelerator in sorted({r.accelerator for r in chosen}):
        pts = sorted((r.interactivity_tok_s_user, r.value_per_accelerator)
                     for r in chosen if r.accelerator == accelerator)
        ax.scatter([p[0] for p in pts], [p[1] for p in pts], s=12, label=accelerator)
    ax.set_xlabel("interactivity (tokens/s per user)")
    ax.set_ylabel("throughput per GPU (tokens/s)")
    ax.set_title(f"InferenceX {model} {scenario}", fontsize=9)
    ax.legend(fontsize=7)
    return svg_bytes(fig, bbox_inches="tight")


def hardware_page(costed: pd.DataFrame, rows: Sequence[HardwareRow],
                  skipped: Sequence[tuple[str, int, str, int]] = (),
                  drawer: Draws = NOW, unreadable: Sequence[tuple[str, str]] = (),
                  ) -> tuple[str, dict[str, Drawing]]:
    """Return (the Hardware page's Markdown, {chart file name: SVG drawing}).

    `skipped` lists (file, rows in file, reason, rows left out) for the "not in the table" note;
    `drawer` draws the charts (right away without one); `unreadable` lists (file, why) for the
    benchmark files that could not be read at all, whose results are missing from the page."""
    charts: dict[str, Drawing] = {}
    out = ["# Hardware: tokens per dollar", "",
           "Tokens per dollar = tokens per second per accelerator × 3600 ÷ US dollars per "
           "accelerator-hour, for each cost basis. Results are compared only within one model, "
           "scenario and division; preview, open-division, inferred and unofficial results are "
           "listed apart. Costs marked *placeholder* are the source's own estimates.", ""]
    for group, key in headline_groups(costed):
        suite, model, scenario, division = key
        name = f"hardware-{slug(suite, model, scenario, division)}.svg"
        # Only the group's rows go to the drawer's worker: they are all the chart reads.
        charts[name] = drawer.submit(tokens_per_dollar_chart,
                                     costed[costed["group"] == group], group, key)
        out += [f"## {md_text(model)} · {md_text(scenario)} · {md_text(division)} "
                f"({md_text(suite)})", "",
                f"![Tokens per dollar by accelerator, {md_text(model)} {md_text(scenario)}]"
                f"(charts/{name})", "",
                "| Accelerator | Result | Tokens/s per accelerator | Cost basis | "
                "USD per accelerator-hour | Tokens per USD | USD per Mtok |",
                "| --- | --- | ---: | --- | ---: | ---: | ---: |"]
        for basis in bases_of(costed, group):
            for c in best_per_accelerator(costed, group, basis).itertuples(index=False):
                mark = " (placeholder)" if c.cost_placeholder else ""
                out.append(f"| {c.accelerator} | {md_text(c.citation_id)} "
                           f"({md_text(c.submitter)}) | {c.value_per_accelerator:,.1f} | "
                           f"{c.cost_basis_label}{mark} | "
                           f"{c.usd_per_accelerator_hour:.3f} | {c.tokens_per_usd:,.0f} | "
                           f"{c.usd_per_mtok:.4f} |")
        out.append("")
    marked = [r for r in rows if r.flags and r.units == "Tokens/s" and r.suite != "InferenceX"]
    if marked:
        out += ["## Marked results (not compared with the above)", "",
                "| Result | Accelerator | Model | Scenario | Tokens/s per accelerator | Marked |",
                "| --- | --- | --- | --- | ---: | --- |"]
        out += [f"| {md_text(r.citation_id)} | {r.accelerator} | {md_text(r.model)} | "
                f"{md_text(r.scenario)} | {r.value_per_accelerator:,.1f} | {', '.join(r.flags)} |"
                for r in sorted(marked, key=lambda r: (r.model, r.scenario, r.citation_id))]
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
        out += ["## Rows not in the table", "", "| File | Rows | Reason | Left out |",
                "| --- | ---: | --- | ---: |"]
        out += [f"| {md_text(f)} | {total} | {md_text(reason)} | {n} |"
                for f, total, reason, n in skipped]
        out.append("")
    return "\n".join(out), charts


def hardware_files(sources: Sources, as_of: dt.date,
                   drawer: Draws = NOW) -> dict[str, str | bytes | Drawing]:
    """Return the Hardware page, its charts (drawn by `drawer`) and the hardware data files, as
    of the newest edition."""
    if sources.hardware is None:
        return {"hardware.md": "# Hardware\n\nNo hardware sources in this repository.\n"}
    public = [r for r in sources.hardware_rows if r.published is None or r.published <= as_of]
    costed = costed_table(rows_table(public), sources.hardware.costs, as_of,
                          usd_at_ecb_rates(sources.rates))
    page, charts = hardware_page(costed, public, drawer=drawer,
                                 unreadable=sources.hardware.unreadable)
    table = hardware_table(costed)
    files: dict[str, str | bytes | Drawing] = {"hardware.md": page,
                                               "data/hardware.csv": hardware_csv(table),
                                               "data/hardware.json": hardware_json(table)}
    files.update({f"charts/{name}": svg for name, svg in charts.items()})
    return files
