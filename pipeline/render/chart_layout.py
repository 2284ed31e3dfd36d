"""Axes placed by hand from their texts' measured sizes, for the charts drawn on a figure kept
for the process (the model pages', the Hardware page's, the Prices page's price history): room
left of the axes for the y tick labels and the y label, a title wrapped to the figure's width,
and a legend under the axes, in as many columns as fit.

A layout engine measures every text again at every draw, which was most of a drawing's time
(issue 38); these charts are laid out once a drawing from what matplotlib would measure
(chart_figures.text_width_pt). Every figure is WIDTH_IN wide and every text FONT_PT, so it reads
at 11 px or more on a phone (issue 39): a title or legend too wide for that takes more lines,
never a wider figure. No legend sits over the data.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any

from pipeline.render.chart_figures import (
    LABEL_PAD_PT,
    PAD_PT,
    TICK_PAD_PT,
    line_height_pt,
    text_height_pt,
    text_width_pt,
)
from pipeline.render.charts import FONT_PT, WIDTH_IN

WIDTH_PT = WIDTH_IN * 72
TICK_LEN_PT = 3.5
"""matplotlib's default tick length."""
TITLE_PAD_PT = 6.0
"""Between the axes' top and the title (matplotlib's default)."""
# A legend as matplotlib lays one out, in units of its font size (its defaults).
BORDER_PAD, LABEL_SPACING, HANDLE_LENGTH, HANDLE_TEXT_PAD, COLUMN_SPACING = 0.4, 0.5, 2.0, 0.8, 2.0


def x_ticks_pt(lines: int = 1) -> float:
    """Return the height under the axes that x tick labels of `lines` lines take, ticks included."""
    return TICK_LEN_PT + TICK_PAD_PT + text_height_pt("\n".join(["x"] * lines))


def tick_labels(axis) -> list[str]:
    """Return the labels an axis will draw at its current size and limits, minor ones too (a log
    axis labels some)."""
    low, high = sorted(axis.get_view_interval())
    labels = []
    for locs, formatter in ((axis.get_majorticklocs(), axis.get_major_formatter()),
                            (axis.get_minorticklocs(), axis.get_minor_formatter())):
        shown = [x for x in locs if low <= x <= high]
        labels += [label for label in formatter.format_ticks(shown) if label]
    return labels


def wrapped(text: str, width_pt: float) -> str:
    """Return `text` with its words in lines no wider than `width_pt` at FONT_PT (a word wider
    than that on a line of its own)."""
    lines: list[str] = []
    for word in text.split(" "):
        if lines and text_width_pt(f"{lines[-1]} {word}") <= width_pt:
            lines[-1] += f" {word}"
        else:
            lines.append(word)
    return "\n".join(lines)


def legend_size_pt(labels: Sequence[str], columns: int, title: str = "") -> tuple[float, float]:
    """Return the (width, height) in points of a frameless legend in `columns` columns at
    FONT_PT, as matplotlib lays it out (Legend._init_legend_box), every column taken as wide as
    the widest label (matplotlib fills columns top to bottom)."""
    em, (line_pt, _) = FONT_PT, line_height_pt()
    rows = math.ceil(len(labels) / columns)
    column_pt = (HANDLE_LENGTH + HANDLE_TEXT_PAD) * em + max(
        (text_width_pt(label) for label in labels), default=0.0)
    width_pt = max(columns * column_pt + (columns - 1) * COLUMN_SPACING * em,
                   text_width_pt(title) if title else 0.0)
    height_pt = rows * line_pt + max(0, rows - 1) * LABEL_SPACING * em
    if title:
        height_pt += text_height_pt(title) + LABEL_SPACING * em
    return width_pt + 2 * BORDER_PAD * em, height_pt + 2 * BORDER_PAD * em


def legend_columns(labels: Sequence[str], title: str = "") -> int:
    """Return the most columns, up to one a label, in which a legend fits the figure's width."""
    columns = max(1, len(labels))
    while columns > 1 and legend_size_pt(labels, columns, title)[0] > WIDTH_PT - 2 * PAD_PT:
        columns -= 1
    return columns


def legend_height_pt(labels: Sequence[str], title: str = "") -> float:
    """Return the height of the legend of `labels` under the axes (none without labels)."""
    return legend_size_pt(labels, legend_columns(labels, title), title)[1] if labels else 0.0


def legend_below(fig, ax, labels: Sequence[str], title: str = "") -> None:
    """Draw the axes' legend at the figure's bottom left, under everything else: the room for it
    is `legend_height_pt` of the bottom, left when the axes were placed."""
    if not labels:
        return
    height_pt = fig.get_figheight() * 72
    top_pt = PAD_PT + legend_height_pt(labels, title)
    kwargs: dict[str, Any] = {"title": title, "title_fontsize": FONT_PT} if title else {}
    ax.legend(fontsize=FONT_PT, loc="upper left", ncols=legend_columns(labels, title),
              frameon=False, borderaxespad=0, bbox_to_anchor=(PAD_PT / WIDTH_PT, top_pt / height_pt),
              bbox_transform=fig.transFigure, alignment="left", **kwargs)


def place_axes(fig, ax, *, top_pt: float, plot_h_pt: float, bottom_pt: float,
               right_pt: float | None, y_label: str) -> float:
    """Size the figure WIDTH_PT by `top_pt + plot_h_pt + bottom_pt` and place the axes in it,
    `bottom_pt` and `right_pt` from its bottom and right (None: what the last x tick label
    needs, `right_room_pt`), and left of them the room the y tick labels and `y_label` take; the
    label set at a fixed place (placed, matplotlib does not measure the tick labels against it
    at each draw). Return the room left of the axes."""
    height_pt = top_pt + plot_h_pt + bottom_pt
    fig.set_size_inches(WIDTH_IN, height_pt / 72)
    # The y ticks hang on the axes' height alone (and the data): placed in height first, the
    # axes give the tick labels to measure.
    ax.set_position((0.5, bottom_pt / height_pt, 0.1, plot_h_pt / height_pt))
    ticks_pt = max((text_width_pt(t) for t in tick_labels(ax.yaxis)), default=0.0)
    label_pt = line_height_pt()[0] if y_label else 0.0
    left_pt = PAD_PT + label_pt + LABEL_PAD_PT + ticks_pt + TICK_PAD_PT + TICK_LEN_PT
    if right_pt is None:
        right_pt = right_room_pt(ax, left_pt)
    plot_w_pt = WIDTH_PT - left_pt - right_pt
    ax.set_position((left_pt / WIDTH_PT, bottom_pt / height_pt, plot_w_pt / WIDTH_PT,
                     plot_h_pt / height_pt))
    # Turned upright, the y label's bottom is its right side; the figure's pad is left of it.
    ax.set_ylabel(y_label, fontsize=FONT_PT)
    ax.yaxis.set_label_coords(-(left_pt - PAD_PT - label_pt) / plot_w_pt, 0.5)
    return left_pt


def right_room_pt(ax, left_pt: float) -> float:
    """Return the room right of the axes that the last x tick label needs, centred on its tick:
    half its width past the axes' right edge at most. For tick locations that do not hang on the
    axes' width (dates: AutoDateLocator picks them from the span alone)."""
    low, high = ax.get_xlim()
    locs = [x for x in ax.xaxis.get_majorticklocs() if low <= x <= high]
    if not locs:
        return PAD_PT
    half_pt = text_width_pt(ax.xaxis.get_major_formatter().format_ticks(locs)[-1]) / 2
    share = (locs[-1] - low) / (high - low)  # of the plot's width, left of the last tick
    # The label's right end, left_pt + share × plot + half, at most WIDTH_PT - PAD_PT, with
    # plot = WIDTH_PT - left_pt - right.
    if share <= 0:
        return PAD_PT
    right = (half_pt + PAD_PT - (1 - share) * (WIDTH_PT - left_pt)) / share
    return max(PAD_PT, right)
