"""The Hardware page's charts (render/hardware_page.py): tokens per dollar by accelerator and cost
basis, and InferenceX throughput per GPU against interactivity, as SVG.

Drawn as the edition's and the model charts are (render/chart_figures.py, render/model_page.py):
each kind on one figure kept for the process and cleared of the last chart's data, its axes
placed from the texts' measured sizes and its legend at a fixed place outside them. Before, a
chart was a new figure, saved with `bbox_inches="tight"` (a whole extra draw to measure the
box), its legend at matplotlib's "best" place (tried against every data point): about 0.5 s a
chart, against 0.1 s for a model chart (issue 38; python -m benchmarks.charts).
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any

from pipeline.models.hardware_results import HardwareRow
from pipeline.render.chart_figures import (
    LABEL_PAD_PT,
    LEGEND_GAP_PT,
    PAD_PT,
    TICK_PAD_PT,
    line_height_pt,
    text_width_pt,
)
from pipeline.render.charts import cleared, svg_bytes
from pipeline.tables.hardware import target_text
from pipeline.tables.hardware_costs import Group

WIDTH_IN, HEIGHT_IN = 7.0, 3.6
"""The figure's size; wider only when its title needs it."""
TITLE_PT, TICK_PT, LABEL_PT, LEGEND_PT = 9.0, 10.0, 10.0, 7.0
"""Font sizes: the title, tick labels, axis labels, the legend and its title."""
TICK_LEN_PT = 3.5
TITLE_PAD_PT = 6.0
"""Between the axes' top and the title (matplotlib's default)."""
# A legend as matplotlib lays one out, in units of its font size (its defaults).
BORDER_PAD, LABEL_SPACING, HANDLE_LENGTH, HANDLE_TEXT_PAD, COLUMN_SPACING = 0.4, 0.5, 2.0, 0.8, 2.0

Bar = tuple[str, float, bool]
"""A bar of the tokens per dollar chart: (accelerator, million tokens per US dollar, whether its
cost is a placeholder)."""

_figures: dict[str, tuple[Any, Any]] = {}
"""The figure and axes each kind of chart of this process is drawn on."""


def _axes(kind: str) -> tuple[Any, Any]:
    """Return the figure and axes of a kind of chart, empty: made and styled once a process,
    cleared of the last chart's bars, points, texts and legend after, and autoscaled afresh."""
    if kind not in _figures:
        from matplotlib.figure import Figure

        fig = Figure(figsize=(WIDTH_IN, HEIGHT_IN))
        ax = fig.add_axes((0, 0, 1, 1))
        ax.tick_params(labelsize=TICK_PT, pad=TICK_PAD_PT, length=TICK_LEN_PT)
        ax.xaxis.label.set_fontsize(LABEL_PT)
        ax.yaxis.label.set_fontsize(LABEL_PT)
        _figures[kind] = fig, ax
    return cleared(*_figures[kind])


def _tick_labels(axis) -> list[str]:
    """Return the tick labels an axis will draw at its current size and limits."""
    low, high = sorted(axis.get_view_interval())
    locs = [x for x in axis.get_majorticklocs() if low <= x <= high]
    return [label for label in axis.get_major_formatter().format_ticks(locs) if label]


def _legend_size_pt(title: str, labels: Sequence[str], columns: int) -> tuple[float, float]:
    """Return the (width, height) of a frameless legend in `columns` columns, in points, as
    matplotlib lays it out (Legend._init_legend_box): every column as wide as the widest label."""
    em, (line_pt, _) = LEGEND_PT, line_height_pt(LEGEND_PT)
    rows = math.ceil(len(labels) / columns)
    column_pt = (HANDLE_LENGTH + HANDLE_TEXT_PAD) * em + max(
        text_width_pt(label, LEGEND_PT) for label in labels)
    width_pt = max(columns * column_pt + (columns - 1) * COLUMN_SPACING * em,
                   text_width_pt(title, LEGEND_PT) if title else 0.0)
    height_pt = rows * line_pt + (rows - 1) * LABEL_SPACING * em
    if title:
        height_pt += line_pt + LABEL_SPACING * em
    return width_pt + 2 * BORDER_PAD * em, height_pt + 2 * BORDER_PAD * em


def _lay_out(fig, ax, title: str, y_label: str, bottom_pt: float, right_pt: float,
             x_label: str = "", x_label_pt: float = 0.0) -> tuple[float, float, float]:
    """Place the axes `bottom_pt` and `right_pt` from the figure's bottom and right, under the
    title, and left of them room for the y tick labels and the y label, the figure widened if
    the title needs it; set the title and the labels at fixed places (`x_label_pt` from the axes'
    bottom to the x label's top): placed, matplotlib does not measure the tick labels against
    them at each draw. Return the figure's width and height, and the room left of the axes, in
    points."""
    height_pt = HEIGHT_IN * 72
    top_pt = PAD_PT + line_height_pt(TITLE_PT)[0] + TITLE_PAD_PT
    plot_h_pt = height_pt - bottom_pt - top_pt
    # The y ticks hang on the axes' height alone (and the data): placed in height first, the
    # axes give the tick labels to measure.
    ax.set_position((0.5, bottom_pt / height_pt, 0.1, plot_h_pt / height_pt))
    ticks_pt = max((text_width_pt(t, TICK_PT) for t in _tick_labels(ax.yaxis)), default=0.0)
    left_pt = (PAD_PT + line_height_pt(LABEL_PT)[0] + LABEL_PAD_PT + ticks_pt + TICK_PAD_PT
               + TICK_LEN_PT)
    width_pt = max(WIDTH_IN * 72, left_pt + text_width_pt(title, TITLE_PT) + PAD_PT)
    plot_w_pt = width_pt - left_pt - right_pt
    fig.set_size_inches(width_pt / 72, HEIGHT_IN)
    ax.set_position((left_pt / width_pt, bottom_pt / height_pt, plot_w_pt / width_pt,
                     plot_h_pt / height_pt))
    ax.set_title(title, loc="left", fontsize=TITLE_PT, y=1.0, pad=TITLE_PAD_PT)
    # Turned upright, the y label's bottom is its right side; the figure's pad is left of it.
    ax.set_ylabel(y_label)
    ax.yaxis.set_label_coords(-(left_pt - PAD_PT - line_height_pt(LABEL_PT)[0]) / plot_w_pt, 0.5)
    ax.set_xlabel(x_label)
    ax.xaxis.set_label_coords(0.5, -x_label_pt / plot_h_pt)
    return width_pt, height_pt, left_pt


def tokens_per_dollar_chart(key: Group, bars: Sequence[tuple[str, Sequence[Bar]]]) -> bytes:
    """Return an SVG bar chart of a comparison group: tokens per dollar by accelerator, one bar
    per cost basis (`bars`: each basis' label and bars, render/hardware_page.basis_bars), the
    best first, hatched where the cost is a placeholder; the legend of cost bases under it."""
    best: dict[str, float] = {}
    for _, per in bars:
        for accelerator, mtok_per_usd, _ in per:
            best[accelerator] = max(best.get(accelerator, 0.0), mtok_per_usd)
    accelerators = sorted(best, key=lambda a: (-best[a], a))
    column = {a: j for j, a in enumerate(accelerators)}
    labels = [label for label, _ in bars]
    fig, ax = _axes("bars")
    width = 0.8 / max(len(bars), 1)
    for i, (label, per) in enumerate(bars):
        drawn = ax.bar([column[a] + i * width for a, _, _ in per], [v for _, v, _ in per],
                       width, label=label)
        for bar, (_, _, placeholder) in zip(drawn, per):
            bar.set_hatch("//" if placeholder else "")
    ax.set_xticks([j + width * (len(bars) - 1) / 2 for j in range(len(accelerators))],
                  accelerators)
    suite, round_, model, target, scenario, division = key
    title = (f"{model} ({target_text(target)}) {scenario} ({suite} {round_}, {division}): "
             "tokens per dollar by cost basis")
    legend_title = "cost basis (hatched: placeholder cost)"

    # Every text measured; the axes placed from them, in points from the figure's edges. The
    # legend, a row of the cost bases under its title, goes under the accelerators' names, at
    # the figure's left edge.
    line_pt = line_height_pt(TICK_PT)[0]
    names_pt = max((text_width_pt(a, TICK_PT) for a in accelerators), default=0.0)
    columns = max(1, len(labels))
    while columns > 1 and _legend_size_pt(legend_title, labels, columns)[0] > WIDTH_IN * 72 - 2 * PAD_PT:
        columns -= 1
    legend_h_pt = _legend_size_pt(legend_title, labels, columns)[1] if labels else 0.0
    ticks_pt = TICK_LEN_PT + TICK_PAD_PT + line_pt
    bottom_pt = PAD_PT + legend_h_pt + LEGEND_GAP_PT + ticks_pt
    # Half a name right of the axes: the last name is centred on its bars, near the edge.
    right_pt = PAD_PT + names_pt / 2
    width_pt, height_pt, _ = _lay_out(fig, ax, title, "million tokens per US dollar",
                                      bottom_pt, right_pt)
    if labels:
        ax.legend(fontsize=LEGEND_PT, title=legend_title, title_fontsize=LEGEND_PT,
                  loc="upper left", ncols=columns, frameon=False, borderaxespad=0,
                  bbox_to_anchor=(PAD_PT / width_pt, (PAD_PT + legend_h_pt) / height_pt),
                  bbox_transform=fig.transFigure)
    return svg_bytes(fig)


def interactivity_chart(rows: Sequence[HardwareRow], model: str, scenario: str) -> bytes:
    """Return an SVG scatter: InferenceX throughput per GPU against interactivity, per
    accelerator, the legend of accelerators right of it."""
    fig, ax = _axes("scatter")
    chosen = [r for r in rows if r.suite == "InferenceX" and r.model == model
              and r.scenario == scenario and r.interactivity_tok_s_user is not None]
    accelerators = sorted({r.accelerator for r in chosen})
    for accelerator in accelerators:
        pts = sorted((r.interactivity_tok_s_user, r.value_per_accelerator)
                     for r in chosen if r.accelerator == accelerator)
        ax.scatter([p[0] for p in pts], [p[1] for p in pts], s=12, label=accelerator)
    title = f"InferenceX {model} {scenario}"

    line_pt = line_height_pt(TICK_PT)[0]
    ticks_pt = TICK_LEN_PT + TICK_PAD_PT + line_pt
    bottom_pt = PAD_PT + line_height_pt(LABEL_PT)[0] + LABEL_PAD_PT + ticks_pt
    legend_w_pt = _legend_size_pt("", accelerators, 1)[0] if accelerators else 0.0
    right_pt = PAD_PT + legend_w_pt + LEGEND_GAP_PT
    width_pt, _, left_pt = _lay_out(fig, ax, title, "throughput per GPU (tokens/s)", bottom_pt,
                                    right_pt, "interactivity (tokens/s per user)",
                                    ticks_pt + LABEL_PAD_PT)
    # Right of the axes, its top at theirs. The last x tick label, centred on the axes' right
    # edge at most, reaches half its width past it, into the legend's column: far below the
    # legend, and narrower than it.
    if accelerators:
        ax.legend(fontsize=LEGEND_PT, loc="upper left", frameon=False, borderaxespad=0,
                  bbox_to_anchor=(1 + LEGEND_GAP_PT / (width_pt - left_pt - right_pt), 1.0))
    return svg_bytes(fig)
