"""The Prices page: Markdown text and SVG charts, each returned as data (no files).

The page shows the prices in force at the newest edition and nothing that changes with that date
alone, so its Markdown stays byte-identical while no price changes and the build reuses its HTML
(cache/page_cache.py; issue 8). Each chart is computed in two steps: the numbers it plots, as a
frozen value (`PriceHistory`, `HourOfWeek`, `Cheapest`), then the drawing (`svg`). The build keeps
the drawings of the charts that rarely change by those numbers (orchestrate/prices.py), so a chart
whose numbers did not change is not drawn again; matplotlib is imported only to draw.
"""

from __future__ import annotations

import csv
import datetime as dt
import io
import math
from collections.abc import Mapping

from pipeline.compose.list_moves import newest_list_moves
from pipeline.compose.numbers import figures, money, three_figures
from pipeline.compose.prices_page import (
    MODEL_LABEL,
    MTOK_PER_USD_LABEL,
    NOTE_LABEL,
    WINDOW_START_LABEL,
    Cheapest,
    CurrentRow,
    HourOfWeek,
    PriceHistory,
    PricesChart,
    PricesPage,
    cheapest_chart_name,
    current_tables,
    newest_in_force,
)
from pipeline.models.prices import PriceFile, PriceList, PriceRecord, WorkloadProfile
from pipeline.models.rates import RateTable
from pipeline.models.sourced import Sourced, line_of
from pipeline.render.chart_figures import LABEL_PAD_PT, LEGEND_GAP_PT, PAD_PT, line_height_pt
from pipeline.render.chart_image import ChartDrawer, ChartImage
from pipeline.render.chart_layout import legend_below, legend_height_pt, place_axes, x_ticks_pt
from pipeline.render.charts import FONT_PT, PALETTE, TEXT, WIDTH_IN, svg_bytes
from pipeline.render.datasets import EDITION_DATE, Column, DataFile
from pipeline.render.date_ticks import set_date_axis
from pipeline.render.escape import md_code, md_text
from pipeline.tables.cost import day_end, tier_price
from pipeline.tables.frames import csv_bytes, text_cell
from pipeline.tables.prices import instant_text
from pipeline.tables.quotes import BLENDED_COLUMNS, Quoted

METERS = (("input", "Input"), ("cached_input", "Cached input"), ("output", "Output"))
"""The meters of the list-price table, each a column."""
HISTORY_CSV = "data/blended-history.csv"
HISTORY_COLUMNS = ("model", "from_utc", "usd_per_mtok")


def prices_page_md(files: Mapping[str, Sourced[PriceFile]], rates: RateTable,
                   profiles: list[WorkloadProfile], as_of: dt.date,
                   current: Mapping[str, list[CurrentRow]] | None = None,
                   source_url: str = "", charts: Mapping[str, PricesChart] | None = None) -> str:
    """Return the Markdown of the Prices page: the prices in force at the end of `as_of` (charts
    referenced by file name).

    The text holds no date but that of the newest record in force, so it is the same for every
    `as_of` with the same prices in force. `current`: the `current_tables` of `as_of`, when
    already computed; `source_url` leads to the repository's files (a figure links to the line
    of its record); `charts`: what each chart plots, by path (orchestrate/prices.py), whose alt text
    the page gives."""
    current = current if current is not None else current_tables(files, rates, profiles, as_of)
    newest = newest_in_force(current, files, as_of)
    if newest:
        since, models = newest
        named = ", ".join(map(md_text, models[:3])) + (
            f" and {len(models) - 3} more" if len(models) > 3 else "")
        when = (f"The prices in force. The newest of them took effect on {instant_text(since)} "
                f"(UTC): {named}")
        # A list no blend quotes: what moved in it, and why the tables below do not show it.
        told = [m.sentence() for m in newest_list_moves(files, rates, day_end(as_of)).values()
                if m.at == since]
        if told:
            when += ". " + " ".join(md_text(t) for t in told).removesuffix(".")
    else:
        when = "No prices are in force yet"
    lines = ["# Prices", "",
             (f"{when}. Every price and its history: [prices.csv](data/prices.csv), "
              "[blended.csv](data/blended.csv)."), "",
             "## List prices", "",
             ("Per million tokens in the list's currency, outside any time window (a model's page "
              "gives its peak and off-peak prices). Each model links to the page its price was "
              "read from."), "",
             '<div class="prices-table" markdown>', "",
             "| Model | " + " | ".join(title for _, title in METERS) + " |",
             "| --- |" + " ---: |" * len(METERS)]
    seen: dict[tuple[str, str], CurrentRow] = {}
    for rows in current.values():
        for row in rows:
            seen.setdefault((row[0], row[1]), row)
    for (name, model), row in sorted(seen.items()):
        q = row[6]
        cells = [_meter(q.plist, q.record, meter) for meter, _ in METERS]
        lines.append(f"| {md_text(name)}<br>[{md_code(model)}]({_url(q.record.source_url)}) | "
                     + " | ".join(cells) + " |")
    lines += ["", "</div>", ""]
    for profile in profiles:
        lines += [f"## {profile.title}", "",
                  ("Blended USD per million tokens, converted at the ECB reference rate of the "
                   "price's effective date; each figure links to its record."), "",
                  '<div class="prices-table" markdown>', "",
                  "| Model | USD per Mtok | Tokens per USD |", "| --- | ---: | ---: |"]
        for name, model, cur, usd, tpu, fx_date, q in current[profile.id]:
            fx = f"<br><small>{cur} at ECB {fx_date.isoformat()}</small>" if cur != "USD" else ""
            lines.append(f"| {md_text(name)}<br>{md_code(model)} | [{money(usd, 'USD', computed=True)}]"
                         f"({record_link(q, source_url)}){fx} | {three_figures(tpu)} |")
        lines += ["", "</div>", ""]
    history = charts.get(HISTORY_SVG) if charts else None
    hours = charts.get(HOURS_SVG) if charts else None
    bars = charts.get(CHEAPEST_SVG) if charts else None
    lines += ["## Charts", ""] if charts else []
    if isinstance(history, PriceHistory):
        lines += [f"![{_alt(history_alt(history))}]({HISTORY_SVG}){{ .chart width=\"500\" }}", "",
                  (f"<small>{md_text(history.title)}; dates in UTC, each step a record taking "
                   f"effect: [the data behind this chart (CSV)]({HISTORY_CSV})</small>"), ""]
    if isinstance(hours, HourOfWeek):
        lines += [f"![{_alt(hours_alt(hours))}]({HOURS_SVG}){{ .chart width=\"500\" }}", "",
                  ("<small>Effective price by hour of the week, in UTC (Monday 00:00 to Sunday "
                   "24:00), the week of the newest edition: "
                   "[every price and its windows (CSV)](data/prices.csv)</small>"), ""]
    if isinstance(bars, Cheapest):
        lines += [f"![{_alt(cheapest_alt(bars))}]({CHEAPEST_SVG}){{ .chart width=\"500\" }}", "",
                  ("<small>Most tokens per US dollar by workload profile, at the prices above: "
                   "[each model's blend (CSV)](data/blended.csv)</small>"), ""]
    return "\n".join(lines)


HISTORY_SVG, HOURS_SVG, CHEAPEST_SVG = ("charts/price-history.svg", "charts/hour-of-week.svg",
                                        "charts/cheapest.svg")


def kept_charts(page: PricesPage) -> dict[str, PricesChart]:
    """Return the charts of `page` that rarely change, by path: the build keeps their drawings
    while what they plot is the same (the price history runs to each new edition)."""
    return {HOURS_SVG: page.hours, CHEAPEST_SVG: page.cheapest}


def prices_files(page: PricesPage, kept: Mapping[str, bytes | ChartImage],
                 drawer: ChartDrawer) -> dict[str, str | bytes | ChartImage]:
    """Return the Prices page of `page`, its price-history chart and data, `kept` (the drawings
    of kept_charts) and data/blended.csv."""
    return {
        "prices.md": prices_page_md(page.files, page.rates, page.profiles, page.as_of,
                                    page.current, page.source_url,
                                    {**kept_charts(page), HISTORY_SVG: page.history}),
        HISTORY_SVG: drawer.submit(svg, page.history),
        HISTORY_CSV: history_csv(page.history),
        **kept,
        "data/blended.csv": csv_bytes(page.blended, BLENDED_COLUMNS),
    }


def _alt(text: str) -> str:
    # Alt text inside Markdown image brackets: no bracket or backslash may end it early.
    return md_text(text.replace("[", "(").replace("]", ")").replace("\\", "/"))


def history_alt(chart: PriceHistory) -> str:
    """Return the alt text of the price history: each line's steps, with their dates."""
    if not chart.lines:
        return f"Step chart: {chart.title}. No price has changed yet."
    def step(at: dt.datetime, usd: float) -> str:
        return (f"{'no price' if math.isnan(usd) else money(usd, 'USD', computed=True)} from "
                f"{instant_text(at)}")
    return (f"Step chart: {chart.title}, USD per million tokens on a log scale. "
            + " ".join(f"{label}: {', '.join(step(*p) for p in points)}."
                       for label, points in chart.lines))


def hours_alt(chart: HourOfWeek) -> str:
    """Return the alt text of the hour-of-week chart: each line's range through the week."""
    if not chart.lines:
        return "Step chart: no price varies with the hour of the week (UTC)."
    def span(values: tuple[float, ...]) -> str:
        known = [v for v in values if not math.isnan(v)]
        return f"from {figures(min(known), 4)} to {figures(max(known), 4)}"
    return (f"Step chart: {chart.meter} price per million tokens by hour of the week (UTC), in "
            "each list's currency. " + " ".join(f"{label}: {span(values)}."
                                               for label, values in chart.lines))


def cheapest_alt(chart: Cheapest) -> str:
    """Return the alt text of the cheapest chart: each profile's first three bars."""
    return "Horizontal bar charts, most tokens per US dollar. " + " ".join(
        f"{title}: " + ", ".join(f"{label} {figures(mtok, 3)}" for label, mtok in bars[::-1][:3])
        + " million tokens per USD." for title, bars in chart.panels)


def _meter(plist: PriceList, record: PriceRecord, meter: str) -> str:
    value = tier_price(plist, record, meter, None)
    return "" if value is None else money(value, plist.currency)


def _url(url: object) -> str:
    # A bracket would end the Markdown link early; percent-encoded it is the same address.
    return str(url).replace("(", "%28").replace(")", "%29").replace(" ", "%20")


def record_link(q: Quoted, source_url: str) -> str:
    """Return the link to a record's line in its file (`source_url` + path + `#L<line>`)."""
    lists = q.sourced.model.lists
    li = next(i for i, x in enumerate(lists) if x is q.plist)
    ri = next(i for i, x in enumerate(q.plist.records) if x is q.record)
    line = line_of(q.sourced.lines, ("lists", li, "records", ri))
    return _url(f"{source_url}{q.sourced.path}" + (f"#L{line}" if line else ""))


def history_csv(chart: PriceHistory) -> bytes:
    """Return the CSV behind the price-history chart: one row per step of each line."""
    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\n")
    writer.writerow(HISTORY_COLUMNS)
    for label, points in chart.lines:
        for at, usd in points:
            writer.writerow([text_cell(label), instant_text(at),
                             "" if math.isnan(usd) else repr(round(usd, 9))])
    return out.getvalue().encode()


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


HISTORY_PLOT_H_PT = 190.0
"""The price history's plot; the figure is as high as its axis and legend need besides."""


def _draw_price_history(chart: PriceHistory) -> bytes:
    # Drawn on every new edition, so laid out by hand (render/chart_layout.py) rather than by a
    # layout engine (which measures every text twice: about half the drawing time). 5 in wide
    # with 12 pt text, as every chart, so it reads on a phone; the legend, in as many columns
    # as fit, sits below the plot so it never covers a line and its names are never cut.
    fig = _figure(WIDTH_IN, 4)
    ax = fig.add_subplot()
    for i, (label, points) in enumerate(chart.lines):
        # Rows mark changes only; the last value holds to the last instant.
        steps = [*points, (chart.end, points[-1][1])]
        # Ten colours in matplotlib's cycle: past them, dashes tell a line from its namesake.
        ax.step(*zip(*steps), where="post", label=label, linewidth=2,
                linestyle=("-", "--")[i // 10 % 2])
    ax.set_yscale("log")
    # Whole dates ("Jul 2026"), not ConciseDateFormatter's "Jul · 2026 · Jul" (issue 39).
    set_date_axis(ax.xaxis)
    # Plain numbers (0.06, 1, 10), not 10^x: a price reads as one, and the default labels go
    # through mathtext, whose parsing was most of this chart's drawing time.
    for set_formatter in (ax.yaxis.set_major_formatter, ax.yaxis.set_minor_formatter):
        set_formatter(_plain_log_formatter())
    ax.tick_params(which="both", labelsize=FONT_PT, colors=TEXT)  # the log axis labels minors
    ax.set_xlabel("Date (UTC)", fontsize=FONT_PT, color=TEXT, loc="right")
    labels = [label for label, _ in chart.lines]
    axis_pt = x_ticks_pt() + LABEL_PAD_PT + line_height_pt()[0]
    legend_pt = legend_height_pt(labels)
    place_axes(fig, ax, top_pt=PAD_PT + line_height_pt()[0] / 2, plot_h_pt=HISTORY_PLOT_H_PT,
               bottom_pt=PAD_PT + legend_pt + (LEGEND_GAP_PT if labels else 0) + axis_pt,
               right_pt=None, y_label=f"{chart.unit} (log)")
    ax.yaxis.label.set_color(TEXT)
    ax.xaxis.set_label_coords(1.0, -axis_pt / HISTORY_PLOT_H_PT)
    ax.xaxis.label.set_va("bottom")
    if chart.lines:
        legend_below(fig, ax, labels)
    else:
        _say_empty(ax, "No price has changed yet")
    return svg_bytes(fig)


def _say_empty(ax, text: str) -> None:
    ax.text(0.5, 0.5, text, transform=ax.transAxes, ha="center", va="center", color="#555555")


def _draw_hour_of_week(chart: HourOfWeek) -> bytes:
    # Redrawn only when a windowed price changes: a layout engine keeps any label inside.
    # 5 in wide, as the other charts, with 12 pt text: about 12 px on a 390 px screen.
    fig = _figure(WIDTH_IN, 3.2 + 0.25 * len(chart.lines), layout="constrained")
    ax = fig.add_subplot()
    for label, values in chart.lines:
        ax.step(range(168), values, where="post", label=label, linewidth=2)
    ax.set_xticks(range(0, 169, 24), ["Mon", "Tue", "Wed", "Thu", "Fri", "Sat", "Sun", ""])
    ax.tick_params(labelsize=FONT_PT, colors=TEXT)
    ax.set_ylabel(hours_unit(chart), fontsize=FONT_PT, color=TEXT)
    ax.set_xlabel("Hour of the week (UTC)", fontsize=FONT_PT, color=TEXT, loc="right")
    if chart.lines:
        fig.legend(loc="outside lower left", frameon=False, fontsize=FONT_PT, labelcolor=TEXT)
    else:
        _say_empty(ax, "No price varies with the hour this week")
    return svg_bytes(fig)


def hours_unit(chart: HourOfWeek) -> str:
    """Return the hour-of-week chart's value axis label: its currency and meter, "USD per Mtok,
    input"; lists in several currencies say that each line's name gives its own."""
    meter = chart.meter.replace("_", " ")
    if len(chart.currencies) == 1:
        return f"{chart.currencies[0]} per Mtok, {meter}"
    # Two lines: one would be longer than the axis is high.
    return f"{meter} per Mtok, in the\ncurrency each name gives"


def _draw_cheapest(chart: Cheapest) -> bytes:
    # Redrawn only when the cheapest models change. One panel above the other, 5 in wide with
    # 12 pt text, as the editions' bars; the layout engine keeps the names inside.
    from matplotlib.transforms import blended_transform_factory

    rows = sum(max(1, len(bars)) for _, bars in chart.panels)
    fig = _figure(WIDTH_IN, 0.9 * len(chart.panels) + 0.36 * rows, layout="constrained")
    for i, (title, bars) in enumerate(chart.panels):
        ax = fig.add_subplot(len(chart.panels), 1, i + 1)
        # By position, labelled after: bars given as category names merge when two providers
        # quote the same model id.
        ax.barh(range(len(bars)), [mtok for _, mtok in bars], height=0.7, color=PALETTE[0])
        ax.set_yticks(range(len(bars)), [label for label, _ in bars])
        for y, (_, mtok) in enumerate(bars):
            ax.annotate(figures(mtok, 3), (mtok, y), xytext=(4, 0), textcoords="offset points",
                        va="center", fontsize=FONT_PT, color=TEXT)
        ax.set_xlim(0, max((m for _, m in bars), default=1) * 1.3)
        # The title from the figure's left edge, over the names too: from the plot's it ran out
        # of the figure. The blank axes title keeps its room in the layout.
        ax.set_title(" ", fontsize=FONT_PT)
        ax.text(0.01, 1.0, title, transform=blended_transform_factory(fig.transFigure, ax.transAxes),
                fontsize=FONT_PT, color=TEXT, va="bottom", fontweight="bold")
        ax.set_xlabel("million tokens per USD", fontsize=FONT_PT, color=TEXT, loc="right")
        ax.tick_params(labelsize=FONT_PT, colors=TEXT)
        ax.spines[["top", "right"]].set_visible(False)
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
                               "(1 ÷ blended USD per million tokens), to three decimals."),
         Column(WINDOW_START_LABEL, "The same at the end of the day the edition's window starts "
                "(the previous edition's date; for the first edition, a week before): where it "
                "differs, the chart marks a move. Empty: no price then."),
         Column(NOTE_LABEL, "Where the model's prices moved in the window in a list no blend "
                "quotes (DeepSeek's CNY list), so its figure did not: which meters, on what "
                "date, against the quoted list at the ECB rate, and why no blend comes from "
                "it; the chart marks the bar as moved. Empty for every other model.")))


def history_chart_data() -> DataFile:
    """Return the Data page entry of the CSV behind the Prices page's price-history chart."""
    return DataFile(
        HISTORY_CSV, "Blended price history of the models whose price changed",
        ("The steps of the Prices page's history chart: for each quoted model whose blended price "
         "for the first workload profile changed, the price from each record's start."),
        (Column("model", "The provider and the model id."),
         Column("from_utc", "When the price took effect (UTC)."),
         Column("usd_per_mtok", "Blended USD per million tokens from then; empty where no "
                "price is in force.")))

