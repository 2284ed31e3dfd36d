"""The Hardware page's charts (render/hardware_page.py): tokens per dollar by accelerator and cost
basis, and InferenceX throughput per GPU against interactivity, as SVG.

Drawn as the edition's and the model charts are (render/chart_figures.py, render/model_page.py):
each kind on one figure kept for the process and cleared of the last chart's data, its axes
placed from the texts' measured sizes (render/chart_layout.py) and its legend under them. Before, a
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
    text_height_pt,
    text_width_pt,
)
from pipeline.render.chart_layout import (
    TICK_LEN_PT,
    TITLE_PAD_PT,
    WIDTH_PT,
    legend_below,
    legend_height_pt,
    place_axes,
    wrapped,
)
from pipeline.render.charts import FONT_PT, cleared, svg_bytes
from pipeline.tables.hardware import target_text
from pipeline.tables.hardware_costs import Group

PLOT_H_PT = 190.0
"""The plot's height; the figure is as high as its title, names and legend need besides."""
ROTATION = 30
"""Of the accelerators' names, when side by side they would run into each other."""

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

        fig = Figure()
        ax = fig.add_axes((0, 0, 1, 1))
        ax.tick_params(labelsize=FONT_PT, pad=TICK_PAD_PT, length=TICK_LEN_PT)
        ax.xaxis.label.set_fontsize(FONT_PT)
        _figures[kind] = fig, ax
    return cleared(*_figures[kind])


def _titled(ax, title: str) -> float:
    """Set the title, wrapped to the figure's width, flush with the figure's left edge over the
    y labels; return the room above the axes it takes."""
    from matplotlib.transforms import blended_transform_factory

    text = wrapped(title, WIDTH_PT - 2 * PAD_PT)
    # As a text of the axes, not their title: a title would be measured against the tick labels
    # at each draw. Left at the figure's pad, bottom TITLE_PAD_PT above the axes.
    ax.set_title("")
    ax.annotate(text, (PAD_PT / WIDTH_PT, 1.0), xytext=(0, TITLE_PAD_PT), textcoords="offset points",
                xycoords=blended_transform_factory(ax.get_figure().transFigure, ax.transAxes),
                fontsize=FONT_PT, va="bottom", ha="left")
    return PAD_PT + text_height_pt(text) + TITLE_PAD_PT


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
    top_pt = _titled(ax, f"{model} ({target_text(target)}) {scenario} ({suite} {round_}, "
                         f"{division}): tokens per dollar by cost basis")
    legend_title = "cost basis (hatched: placeholder cost)"

    # Every text measured; the axes placed from them, in points from the figure's edges. The
    # legend, the cost bases under its title, goes under the accelerators' names, at the
    # figure's left edge. Names that would run into each other side by side are slanted: the
    # room each has is known once the axes are placed, the y labels left of them.
    line_pt = line_height_pt()[0]
    names_pt = [text_width_pt(a) for a in accelerators]
    legend_pt = legend_height_pt(labels, legend_title)
    # Half a name right of the axes: the last name is centred on its bars, near the edge.
    right_pt = PAD_PT + (names_pt[-1] / 2 if names_pt else 0.0)
    ticks_pt = TICK_LEN_PT + TICK_PAD_PT + line_pt
    left_pt = place_axes(fig, ax, top_pt=top_pt, plot_h_pt=PLOT_H_PT,
                         bottom_pt=PAD_PT + legend_pt + LEGEND_GAP_PT + ticks_pt,
                         right_pt=right_pt, y_label="million tokens per US dollar")
    slot_pt = (WIDTH_PT - left_pt - right_pt) / max(1, len(accelerators))
    if any(n + TICK_PAD_PT > slot_pt for n in names_pt):
        ax.tick_params(axis="x", labelrotation=ROTATION)
        for name in ax.get_xticklabels():
            name.set(ha="right", rotation_mode="anchor")
        # Turned, a name is as high as its width's and its line's share.
        turn = math.radians(ROTATION)
        ticks_pt = (TICK_LEN_PT + TICK_PAD_PT + max(names_pt) * math.sin(turn)
                    + line_pt * math.cos(turn))
        place_axes(fig, ax, top_pt=top_pt, plot_h_pt=PLOT_H_PT,
                   bottom_pt=PAD_PT + legend_pt + LEGEND_GAP_PT + ticks_pt,
                   right_pt=PAD_PT, y_label="million tokens per US dollar")
    else:
        ax.tick_params(axis="x", labelrotation=0)
        for name in ax.get_xticklabels():
            name.set(ha="center", rotation_mode="default")
    legend_below(fig, ax, labels, legend_title)
    return svg_bytes(fig)


def interactivity_chart(rows: Sequence[HardwareRow], model: str, scenario: str) -> bytes:
    """Return an SVG scatter: InferenceX throughput per GPU against interactivity, per
    accelerator, the legend of accelerators under it."""
    fig, ax = _axes("scatter")
    chosen = [r for r in rows if r.suite == "InferenceX" and r.model == model
              and r.scenario == scenario and r.interactivity_tok_s_user is not None]
    accelerators = sorted({r.accelerator for r in chosen})
    for accelerator in accelerators:
        pts = sorted((r.interactivity_tok_s_user, r.value_per_accelerator)
                     for r in chosen if r.accelerator == accelerator)
        ax.scatter([p[0] for p in pts], [p[1] for p in pts], s=16, label=accelerator)
    top_pt = _titled(ax, f"InferenceX {model} {scenario}")

    line_pt = line_height_pt()[0]
    axis_pt = TICK_LEN_PT + TICK_PAD_PT + line_pt + LABEL_PAD_PT + line_pt
    bottom_pt = PAD_PT + legend_height_pt(accelerators) + LEGEND_GAP_PT + axis_pt
    # The last x tick label, centred on the axes' right edge at most, reaches half its width
    # past it: room for five digits.
    right_pt = PAD_PT + text_width_pt("00000") / 2
    place_axes(fig, ax, top_pt=top_pt, plot_h_pt=PLOT_H_PT, bottom_pt=bottom_pt,
               right_pt=right_pt, y_label="throughput per GPU (tokens/s)")
    ax.set_xlabel("interactivity (tokens/s per user)")
    ax.xaxis.set_label_coords(0.5, -(axis_pt - line_pt) / PLOT_H_PT)
    legend_below(fig, ax, accelerators)
    return svg_bytes(fig)
