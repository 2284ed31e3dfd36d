"""The Prices page: Markdown text and SVG charts, each returned as data (no files).

The page shows the prices in force at the newest edition and nothing that changes with that date
alone, so its Markdown stays byte-identical while no price changes and the build reuses its HTML
(render/page_cache.py; issue 8). Each chart is computed in two steps: the numbers it plots, as a
frozen value (`PriceHistory`, `HourOfWeek`, `Cheapest`), then the drawing (`svg`). The build keeps
the drawings of the charts that rarely change by those numbers (build.price_files), so a chart
whose numbers did not change is not drawn again; matplotlib is imported only to draw.
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Mapping

from pipeline.compose.prices_page import (
    MODEL_LABEL,
    MTOK_PER_USD_LABEL,
    Cheapest,
    CurrentRow,
    HourOfWeek,
    PriceHistory,
    PricesChart,
    cheapest_chart_name,
    current_tables,
    in_force_since,
)
from pipeline.models.prices import PriceFile, WorkloadProfile
from pipeline.models.sourced import Sourced
from pipeline.normalize.fx import RateTable
from pipeline.render.charts import svg_bytes
from pipeline.render.datasets import EDITION_DATE, Column, DataFile
from pipeline.tables.prices import instant_text


def prices_page_md(files: Mapping[str, Sourced[PriceFile]], rates: RateTable,
                   profiles: list[WorkloadProfile], as_of: dt.date,
                   current: Mapping[str, list[CurrentRow]] | None = None) -> str:
    """Return the Markdown of the Prices page: the prices in force at the end of `as_of` (charts
    referenced by file name).

    The text holds no date but that of the newest price change, so it is the same for every
    `as_of` with the same prices in force. `current`: the `current_tables` of `as_of`, when
    already computed."""
    current = current if current is not None else current_tables(files, rates, profiles, as_of)
    since = in_force_since(files, as_of)
    when = (f"The prices in force since {instant_text(since)}, when the newest change among them "
            "took effect" if since else "No prices are in force yet")
    lines = ["# Prices", "",
             (f"{when}. Blended USD per million tokens, converted at the ECB reference rate of "
              "each price's effective date. Every price and its history: "
              "[prices.csv](data/prices.csv), [blended.csv](data/blended.csv)."), ""]
    for profile in profiles:
        lines += [f"## {profile.title}", "",
                  "| Provider | Model | List | USD per Mtok | Tokens per USD | FX date |",
                  "| --- | --- | --- | ---: | ---: | --- |"]
        for name, model, cur, usd, tpu, fx_date in current[profile.id]:
            fx = fx_date.isoformat() if cur != "USD" else ""
            lines.append(f"| {name} | `{model}` | {cur} | {usd:.4g} | {tpu:,.0f} | {fx} |")
        lines.append("")
    lines += ["## Charts", "", "![Blended price history](charts/price-history.svg)", "",
              "![Effective price by hour of the week](charts/hour-of-week.svg)", "",
              "![Cheapest tokens per dollar](charts/cheapest.svg)", ""]
    return "\n".join(lines)


def svg(chart: PricesChart) -> bytes:
    """Return the SVG drawing of a chart's numbers (deterministic bytes)."""
    draw = {PriceHistory: _draw_price_history, HourOfWeek: _draw_hour_of_week,
            Cheapest: _draw_cheapest}[type(chart)]
    return draw(chart)


def _figure(width_in: float, height_in: float, layout: str | None = None):
    # The object-oriented API, not pyplot: no global figure registry, no GUI backend, and
    # matplotlib is imported only when a chart is drawn (most builds reuse all three).
    from matplotlib.figure import Figure

    return Figure(figsize=(width_in, height_in), layout=layout)


def _plain_log_formatter():
    from matplotlib.ticker import LogFormatter

    class PlainLogFormatter(LogFormatter):
        """LogFormatter's choice of which ticks to label (fewer minor ones as the range grows),
        each written as a plain number (0.06, not 6e-02)."""

        def __call__(self, x: float, pos: int | None = None) -> str:
            return f"{x:g}" if super().__call__(x, pos) else ""

    return PlainLogFormatter(labelOnlyBase=False)


def _draw_price_history(chart: PriceHistory) -> bytes:
    # Drawn on every new edition, so fixed margins rather than a layout engine (which measures
    # every text twice: about half the drawing time). What sits in them is short and bounded:
    # the y label, price ticks and month ticks; the title, of any length, is on top.
    # The legend sits right of the plot, in its own margin, so it never covers a line.
    fig = _figure(8, 4.5)
    fig.subplots_adjust(left=0.09, right=0.72, bottom=0.13, top=0.93)  # room for the year
    ax = fig.add_subplot()
    for i, (label, points) in enumerate(chart.lines):
        # Rows mark changes only; the last value holds to the last date.
        steps = [*points, (chart.end, points[-1][1])]
        # Ten colours in matplotlib's cycle: past them, dashes tell a line from its namesake.
        ax.step(*zip(*steps), where="post", label=label, linestyle=("-", "--")[i // 10 % 2])
    ax.set_yscale("log")
    from matplotlib.dates import AutoDateLocator, ConciseDateFormatter

    # Short date labels ("Sep", "15", the year once): full dates ran into each other.
    locator = AutoDateLocator(maxticks=8)
    ax.xaxis.set_major_locator(locator)
    ax.xaxis.set_major_formatter(ConciseDateFormatter(locator))
    # Plain numbers (0.06, 1, 10), not 10^x: a price reads as one, and the default labels go
    # through mathtext, whose parsing was most of this chart's drawing time.
    for set_formatter in (ax.yaxis.set_major_formatter, ax.yaxis.set_minor_formatter):
        set_formatter(_plain_log_formatter())
    ax.set_ylabel("USD per Mtok (log scale)")
    ax.set_title(chart.title, loc="left", fontsize=10)
    if chart.lines:
        ax.legend(fontsize=6, loc="upper left", bbox_to_anchor=(1.02, 1.0), frameon=False)
    else:
        _say_empty(ax, "No price in force yet")
    return svg_bytes(fig)


def _say_empty(ax, text: str) -> None:
    ax.text(0.5, 0.5, text, transform=ax.transAxes, ha="center", va="center", color="#555555")


def _draw_hour_of_week(chart: HourOfWeek) -> bytes:
    # Redrawn only when a windowed price changes: a layout engine keeps any label inside.
    fig = _figure(8, 3.5, layout="constrained")
    ax = fig.add_subplot()
    for label, values in chart.lines:
        ax.step(range(168), values, where="post", label=label)
    ax.set_xticks(range(0, 169, 24), ["Mon", "Tue", "Wed", "Thu", "Fri", "Sat", "Sun", ""])
    ax.set_ylabel(f"{chart.meter} price per Mtok, list currency")
    if chart.lines:
        ax.legend(fontsize=6)
    else:
        _say_empty(ax, "No price varies with the hour this week")
    return svg_bytes(fig)


def _draw_cheapest(chart: Cheapest) -> bytes:
    # Redrawn only when the cheapest models change; the layout engine keeps the model names of
    # one panel clear of the panel to their left.
    fig = _figure(4 * len(chart.panels), 4, layout="constrained")
    for i, (title, bars) in enumerate(chart.panels):
        ax = fig.add_subplot(1, len(chart.panels), i + 1)
        # By position, labelled after: bars given as category names merge when two providers
        # quote the same model id.
        ax.barh(range(len(bars)), [mtok for _, mtok in bars])
        ax.set_yticks(range(len(bars)), [label for label, _ in bars])
        ax.set_title(title, fontsize=8)
        ax.set_xlabel("million tokens per USD")
        ax.tick_params(labelsize=6)
    return svg_bytes(fig)


def cheapest_chart_data(profile: WorkloadProfile) -> DataFile:
    """Return the Data page entry of the CSVs behind every edition's chart for `profile`: one
    family, whose files differ only by date (the spec above gives each the same columns)."""
    return DataFile(
        f"data/{cheapest_chart_name(profile, EDITION_DATE)}.csv",
        f"Tokens per dollar behind each edition's chart, {profile.title}",
        ("The data behind the chart in each edition's Context & numbers: the models with the most "
         f"tokens per US dollar for the workload profile {profile.id}, at the prices of the "
         "edition's date, most tokens per dollar first."),
        (Column(MODEL_LABEL, "The provider and the model id."),
         Column(MTOK_PER_USD_LABEL, "Million tokens per US dollar, blended for the profile "
                               "(1 ÷ blended USD per million tokens), to three decimals.")))

