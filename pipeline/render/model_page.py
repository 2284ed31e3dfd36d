"""Pure: the page of one tracked model (compose/model_pages.py) and the index of them, as
Markdown. Names are escaped: a tracked model's id may come from a catalogue."""

from __future__ import annotations

import datetime as dt
import html
from typing import Any

from pipeline.compose.model_pages import METER_NAMES, METERS, ModelPage, chart_name
from pipeline.compose.numbers import money
from pipeline.compose.prices_page import PriceHistory
from pipeline.models.links import is_allowed_link
from pipeline.render.chart_figures import LEGEND_GAP_PT, PAD_PT, line_height_pt
from pipeline.render.chart_layout import legend_below, legend_height_pt, place_axes, x_ticks_pt
from pipeline.render.charts import FONT_PT, cleared, svg_bytes
from pipeline.render.date_ticks import set_date_axis
from pipeline.render.escape import md_cell


def chart_path(page: ModelPage) -> str:
    """Return the chart's path in the docs."""
    return f"charts/{chart_name(page.slug)}"


def model_page_md(page: ModelPage, across: str | None = None) -> str:
    """Return the page: what it shows, the chart, and one table per list of every dated price;
    `across`: the slug of the model's page across its providers, where it has one."""
    name = md_cell(page.title)
    lines = ["---", "search:", "  exclude: true", "---", "", f"# {name}", "",
             # No date here: the page changes only when its prices do.
             (f"Every dated base price of {name} we have up to the newest edition (realtime, "
              "no time window, no long-context band), per million tokens, each with its source. "
              "A curated list's prices hold from the record's effective date; a catalogue's "
              "from the first snapshot that showed them. Every tier is in the price files of "
              # The built pages' URLs, not their .md: a page linking no Markdown file keeps
              # its HTML between builds (cache/page_cache.py), and there are many of these.
              "the [Data](../../data/) page; the current prices on the [Market](../../market/) "
              "page" + (f", and every provider's on [{md_cell(page.model)} across providers]"
                        f"(../{across}/)." if across else ".")), ""]
    if not page.lists:
        return "\n".join([*lines, "No price of this model is recorded yet.", ""])
    meters = ", ".join(n for n, _ in page.chart.lines).lower() or "no"
    stories = [move.sentence() for move in page.elsewhere]
    # The alt text tells the marked moves too: brackets would end the Markdown image early.
    told = "".join(" Marked: " + md_cell(t).replace("[", "(").replace("]", ")") for t in stories)
    lines += [f"![{meters} price of {name} over time, from the table below.{told}]"
              f"(../{chart_path(page)})", ""]
    lines += [f"Marked on the chart: {md_cell(t)}" for t in stories] + ([""] if stories else [])
    for history in page.lists:
        lines += [f"## {md_cell(history.title)}", "",
                  "| From | " + " | ".join(METER_NAMES[m] for m in METERS) + " | Source |",
                  "|---|" + "---:|" * len(METERS) + "---|"]
        for row in history.rows:
            prices = " | ".join("" if p is None else money(p, history.currency)
                                for p in row.prices)
            source = (f"[{md_cell(row.source)}]({html.escape(row.url)})"
                      if is_allowed_link(row.url) else md_cell(row.source))
            note = f" ({md_cell(row.note)})" if row.note else ""
            lines.append(f"| {row.date.isoformat()} | {prices} | {source}{note} |")
        lines.append("")
    return "\n".join(lines)


def tracked_table_md(pages: list[ModelPage]) -> str:
    """Return the table of the tracked models' pages, with each one's newest base prices in the
    currency of the list charted on its page (models/index.md)."""
    lines = [(f"{len(pages)} models with a dated history of their own: those our curated "
              "provider files price, and those `sources/catalogues.yaml` tracks from the public "
              "catalogues. Their newest base prices per million tokens, in the currency of the "
              "list charted on each page."), "",
             "| Model | " + " | ".join(METER_NAMES[m] for m in METERS) + " | Since |",
             "|---|" + "---:|" * len(METERS) + "---|"]
    for page in pages:
        history = next((h for h in page.lists if h.currency == "USD"),
                       page.lists[0] if page.lists else None)
        last = history.rows[-1] if history and history.rows else None
        prices = (" | ".join("" if p is None else money(p, history.currency)
                             for p in last.prices) if last and history else " | ".join(
                  [""] * len(METERS)))
        since = last.date.isoformat() if last else ""
        lines.append(f"| [{md_cell(page.title)}]({page.slug}/) | "
                     f"{prices} | {since} |")
    return "\n".join([*lines, ""])


_history_figure: tuple[Any, Any] | None = None
"""The figure and axes every model chart of this process is drawn on."""
MODEL_PLOT_H_PT = 150.0
"""The plot's height; the figure is as high as its legend needs besides."""


def _history_axes() -> tuple[Any, Any]:
    """Return the figure and axes of a model's price history, empty: made once a process with
    a date axis, cleared of the last chart's lines, texts and legend after (cProfile: a new
    figure and its axes took an eighth of a drawing, their first ticks a sixth)."""
    global _history_figure
    if _history_figure is None:
        from matplotlib.figure import Figure

        fig = Figure()
        ax = fig.add_subplot()
        set_date_axis(ax.xaxis)
        ax.tick_params(labelsize=FONT_PT)
        # No x label (the ticks are dates); placed, it is not measured at each draw.
        ax.xaxis.set_label_coords(0.5, 0.0)
        _history_figure = fig, ax
    return cleared(*_history_figure)


def chart_svg(chart: PriceHistory) -> bytes:
    """Return the drawing of a model's price history: one step line per meter to `chart.end`.

    Plain, laid out by hand (render/chart_layout.py) and with a linear axis from zero: a year of
    sources has a page per curated model (1,200 in the benchmark's). 5 in wide with 12 pt text
    as every chart, its legend under it, so it reads on a phone and hides no line (issue 39)."""
    fig, ax = _history_axes()
    first = min((points[0][0] for _, points in chart.lines), default=chart.end)
    # One price, never changed: a day wide, so the date axis has a range to place ticks in.
    end = max(chart.end, first + dt.timedelta(days=1))
    colours = {}
    for label, points in chart.lines:
        # Rows mark changes only, each a dot; the last value holds to the last change.
        drawn = ax.step(*zip(*[*points, (end, points[-1][1])]), where="post", label=label,
                        marker="o", markersize=4, markevery=list(range(len(points))))
        colours[label] = drawn[0].get_color()
    for when, label, points in chart.marks:
        # A move in a list the lines do not show: a dashed line on its day, named in the legend
        # (a label on the plot hid the lines under it), and its prices at the ECB rate as
        # crosses in the colour of their meter's line.
        ax.axvline(when, color="#555555", linestyle="--", linewidth=1, label=label)
        for i, (meter, usd) in enumerate(points):
            ax.plot([when], [usd], marker="x", linestyle="none", markersize=7,
                    color=colours.get(meter.split(",")[0], "#555555"),
                    label=f"{label.split(' ')[0]} list, ≈ USD" if i == 0 else "_nolegend_")
    ax.set_ylim(bottom=0)
    labels = ax.get_legend_handles_labels()[1]
    place_axes(fig, ax, top_pt=PAD_PT + line_height_pt()[0] / 2, plot_h_pt=MODEL_PLOT_H_PT,
               bottom_pt=x_ticks_pt() + LEGEND_GAP_PT + legend_height_pt(labels) + PAD_PT,
               right_pt=None, y_label=chart.unit)
    legend_below(fig, ax, labels)
    return svg_bytes(fig)
