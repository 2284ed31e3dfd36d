"""The Market economics page's charts (render/economics_page.py), as SVG: index lines over time,
and the cost to serve beside the price per model.

Drawn as the model charts are (render/model_page.py): one figure of each kind kept for the
process and cleared of the last chart's data, the axes placed from the measured texts
(render/chart_layout.py), the legend under them, 12 pt text on a 5 in figure.
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Sequence
from typing import Any

from pipeline.render.chart_figures import LEGEND_GAP_PT, PAD_PT, line_height_pt
from pipeline.render.chart_layout import legend_below, legend_height_pt, place_axes, x_ticks_pt
from pipeline.render.charts import FONT_PT, cleared, svg_bytes
from pipeline.render.date_ticks import set_date_axis

PLOT_H_PT = 170.0
"""The plot's height; the figure is as high as its legend needs besides."""
Line = tuple[str, Sequence[tuple[dt.date, float]]]
"""A line of an index chart: its label and (date, index) points, oldest first."""
Mark = tuple[dt.date, str]
"""A dashed vertical line on an index chart, named in the legend: (day, what happened)."""
CostBars = tuple[str, float, float, float]
"""A model of the cost chart: (name, hardware USD per million output tokens, cheapest and
median market output price)."""

_figures: dict[str, tuple[Any, Any]] = {}


def text(label: str) -> str:
    """Return a label as matplotlib shows it literally: a dollar sign starts its math text
    ("$1 to $10" would be set as math), and a leading underscore hides a legend entry."""
    label = label.replace("$", r"\$")
    return "\u200b" + label if label.startswith("_") else label


def _axes(kind: str) -> tuple[Any, Any]:
    """Return the figure and axes of a kind of chart, empty (made once a process)."""
    if kind not in _figures:
        from matplotlib.figure import Figure

        fig = Figure()
        ax = fig.add_subplot()
        if kind == "index":
            set_date_axis(ax.xaxis)
        ax.tick_params(labelsize=FONT_PT)
        ax.xaxis.set_label_coords(0.5, 0.0)
        _figures[kind] = fig, ax
    return cleared(*_figures[kind])


def index_chart(lines: Sequence[Line], marks: Sequence[Mark] = (),
                unit: str = "index (first date = 100)") -> bytes:
    """Return an SVG of index lines as steps (an index holds between the dates it is computed
    on), with `marks` as dashed lines named in the legend."""
    fig, ax = _axes("index")
    styles = ("-", "--", "-.", ":")
    for i, (label, points) in enumerate(lines):
        days, values = zip(*points)
        ax.step(days, values, where="post", label=text(label),
                linestyle=styles[i % len(styles)], linewidth=1.6)
    for day, label in marks:
        ax.axvline(day, color="#777777", linestyle=(0, (2, 2)), linewidth=1, label=text(label))
    ax.set_ylim(bottom=0)
    labels = ax.get_legend_handles_labels()[1]
    place_axes(fig, ax, top_pt=PAD_PT + line_height_pt()[0] / 2, plot_h_pt=PLOT_H_PT,
               bottom_pt=x_ticks_pt() + LEGEND_GAP_PT + legend_height_pt(labels) + PAD_PT,
               right_pt=None, y_label=unit)
    legend_below(fig, ax, labels)
    return svg_bytes(fig)


def cost_chart(models: Sequence[CostBars]) -> bytes:
    """Return an SVG bar chart, on a log axis: per model (a row each, so no name is turned or
    crowded), the lowest hardware cost of a million output tokens beside the cheapest and the
    median market price of them."""
    fig, ax = _axes("cost")
    height = 0.27
    series = (("hardware cost, lowest (full load)", 1), ("cheapest listing", 2),
              ("median listing", 3))
    for offset, (label, field) in enumerate(series):
        ax.barh([j + (offset - 1) * height for j in range(len(models))],
                [m[field] for m in models], height, label=label,
                hatch="//" if field == 1 else "")
    from matplotlib.ticker import FuncFormatter, NullFormatter

    ax.set_xscale("log")
    # Plain numbers (0.01, 0.1, 1), not matplotlib's math text powers of ten in another font.
    ax.xaxis.set_major_formatter(FuncFormatter(lambda v, _: f"{v:g}"))
    ax.xaxis.set_minor_formatter(NullFormatter())
    ax.set_yticks(range(len(models)), [text(m[0]) for m in models])
    ax.invert_yaxis()  # the first model on top, as the table lists them
    labels = ax.get_legend_handles_labels()[1]
    title = "USD per million output tokens (log scale)"
    line_pt = line_height_pt()[0]
    place_axes(fig, ax, top_pt=PAD_PT + line_pt / 2, plot_h_pt=max(3, len(models)) * 3 * 11.0,
               bottom_pt=x_ticks_pt() + LEGEND_GAP_PT + legend_height_pt(labels, title)
               + PAD_PT, right_pt=None, y_label="")
    legend_below(fig, ax, labels, title)
    return svg_bytes(fig)


LaunchQuarter = tuple[str, int, float, float]
"""A quarter of the launch chart: (quarter, new models, median launch price, their median price
on the last date), USD per million tokens (3:1 blend)."""


def launch_chart(quarters: Sequence[LaunchQuarter]) -> bytes:
    """Return an SVG, on a log axis: per quarter (labelled with its count of new models under
    it), the
    median launch price of the models launched in it and their median price on the last date."""
    fig, ax = _axes("launch")
    from matplotlib.ticker import FuncFormatter, LogLocator, NullFormatter

    xs = range(len(quarters))
    ax.plot(xs, [q[2] for q in quarters], marker="o", linewidth=1.6,
            label="median launch price of the quarter's new models")
    ax.plot(xs, [q[3] for q in quarters], marker="s", linestyle="--", linewidth=1.6,
            label="the same models' median price on the last date")
    ax.set_yscale("log")
    # 1, 2 and 5 of each decade labelled: medians within one decade still get ticks to read.
    ax.yaxis.set_major_locator(LogLocator(base=10, subs=(1.0, 2.0, 5.0)))
    ax.yaxis.set_major_formatter(FuncFormatter(lambda v, _: f"{v:g}"))
    ax.yaxis.set_minor_formatter(NullFormatter())
    ax.set_xticks(list(xs), [f"{q[0][5:]}\n{q[0][:4]}\n({q[1]})" for q in quarters])
    ax.set_xlim(-0.5, len(quarters) - 0.5)
    labels = ax.get_legend_handles_labels()[1]
    place_axes(fig, ax, top_pt=PAD_PT + line_height_pt()[0] / 2, plot_h_pt=PLOT_H_PT,
               bottom_pt=x_ticks_pt(3) + LEGEND_GAP_PT + legend_height_pt(labels) + PAD_PT,
               right_pt=None, y_label="USD per Mtok, 3:1 blend (log)")
    legend_below(fig, ax, labels)
    return svg_bytes(fig)
