"""The pictures of charts (render/charts.py): the site's SVG and an e-mail's PNG of a spec.

An edition's chart (horizontal bars) is drawn on one figure kept for the process and cleared of
the last chart's bars and texts, and laid out from its texts' widths measured once (matplotlib's
own text measurement), not by a layout engine: both were most of a drawing's time, several
times the barest SVG matplotlib draws (issue 38; benchmarks/charts.py). The line and bar charts
(one a build) keep matplotlib's constrained layout. matplotlib is imported only when a chart is
drawn.
"""

from __future__ import annotations

import functools
import io
from typing import Any

from pipeline.compose.charts import ChartSpec
from pipeline.compose.numbers import figures
from pipeline.render.chart_image import ready
from pipeline.render.charts import (
    FIGSIZE_IN,
    FONT_PT,
    LEGEND_ROW_CHARS,
    MOVED,
    PALETTE,
    PNG_DPI,
    TEXT,
    Chart,
    chart_of,
    figure_size_in,
    note_lines,
    note_marks,
    since_words,
    svg_bytes,
    window_words,
)

PAD_PT = 3.0
"""Space left at each edge of the figure (constrained layout's default pad)."""
TICK_PAD_PT = 3.5
"""Between an axis and its tick labels, and the x ticks' length (matplotlib's defaults)."""
LABEL_PAD_PT = 4.0
"""Between the x tick labels and the axis' label."""
LEGEND_GAP_PT = 6.0
"""Between the axis' label and the legend."""
# A legend entry as matplotlib's legend draws one at fontsize 12: its handle 1.2 em by 0.7 em,
# the label 0.8 em right of it, rows 0.5 em apart, columns 1 em.
HANDLE_W_PT, HANDLE_H_PT = 1.2 * FONT_PT, 0.7 * FONT_PT
HANDLE_PAD_PT, ROW_GAP_PT, COLUMN_GAP_PT = 0.8 * FONT_PT, 0.5 * FONT_PT, FONT_PT
VALUE_OFFSET_PT = 4.0
"""Between a bar's end and its figure."""
BAR_HEIGHT = 0.7
"""Of a bar, as a share of its row."""
MAX_LABEL_SHARE = 0.8
"""At most this share of the plot's width is left right of the longest bar for its figure."""


@functools.lru_cache(maxsize=4096)
def text_width_pt(text: str, size_pt: float = FONT_PT) -> float:
    """Return the width in points of text in the charts' font (its longest line), as
    matplotlib measures it when it lays the text out in an SVG. Kept: the same names, legend
    entries and tick labels come back chart after chart, and a legend is measured in every
    number of columns it might take (render/chart_layout.py)."""
    from matplotlib.font_manager import FontProperties
    from matplotlib.textpath import text_to_path

    prop = FontProperties(size=size_pt)
    return max(text_to_path.get_text_width_height_descent(line, prop, ismath=False)[0]
               for line in text.split("\n"))


@functools.cache
def line_height_pt(size_pt: float = FONT_PT) -> tuple[float, float]:
    """Return (the height of a line of text, the gap between two lines of a text) in points,
    from the font's own metrics, as matplotlib lays text out (Text._get_layout): a text of n > 1
    lines is n × (line + gap) high."""
    from matplotlib.font_manager import FontProperties, findfont, get_font

    font = get_font(findfont(FontProperties(size=size_pt)))
    scale = size_pt / font.get_sfnt_table("head")["unitsPerEm"]
    os2 = font.get_sfnt_table("OS/2")
    if os2 is not None:
        return (os2["sTypoAscender"] - os2["sTypoDescender"]) * scale, os2["sTypoLineGap"] * scale
    hhea = font.get_sfnt_table("hhea")
    return (hhea["ascent"] - hhea["descent"]) * scale, hhea["lineGap"] * scale


def text_height_pt(text: str, size_pt: float = FONT_PT) -> float:
    """Return the height in points matplotlib gives a text of one or more lines."""
    lines = text.count("\n") + 1
    line_pt, gap_pt = line_height_pt(size_pt)
    return line_pt if lines == 1 else lines * (line_pt + gap_pt)


_hbar_figure: tuple[Any, Any] | None = None
"""The figure and axes every horizontal bar chart of this process is drawn on."""


def _hbar_axes() -> tuple[Any, Any]:
    """Return the figure and axes of horizontal bars, empty: made and styled once a process,
    cleared of the last chart's bars, texts and legend after."""
    global _hbar_figure
    from matplotlib.figure import Figure

    if _hbar_figure is None:
        # The object-oriented API, not pyplot: no global figure registry, no GUI backend.
        fig = Figure(dpi=PNG_DPI, facecolor="white")
        ax = fig.add_axes((0, 0, 1, 1))
        ax.tick_params(labelsize=FONT_PT, colors=TEXT, length=0, pad=TICK_PAD_PT, axis="y")
        ax.tick_params(labelsize=FONT_PT, colors=TEXT, pad=TICK_PAD_PT, axis="x")
        for side in ("top", "right", "left"):
            ax.spines[side].set_visible(False)
        ax.spines["bottom"].set_color(TEXT)
        ax.grid(axis="x", color="#bbbbbb", linewidth=0.6)
        ax.set_axisbelow(True)
        ax.xaxis.label.set(fontsize=FONT_PT, color=TEXT, va="top")
        # No y label: placed, it is not measured against the names at each draw.
        ax.yaxis.set_label_coords(0.0, 0.5)
        _hbar_figure = fig, ax
    fig, ax = _hbar_figure
    for container in list(ax.containers):
        container.remove()
    for artist in [*ax.patches, *ax.texts, *fig.artists, *fig.texts]:
        artist.remove()
    return fig, ax


def hbar_chart(spec: ChartSpec):
    """Return the figure of horizontal bars of the first series, the first category on top,
    each with its figure; a bar whose figure differs from the second series (the same at an
    earlier date) is hatched orange, with a tick and "was …" at its earlier figure.

    The figure is the process's one (`_hbar_axes`): draw it before asking for another."""
    fig, ax = _hbar_axes()
    width_in, height_in = figure_size_in(spec)
    fig.set_size_inches(width_in, height_in)
    now = spec.series[0].values if spec.series else ()
    then = spec.series[1].values if len(spec.series) > 1 else now
    rows = range(len(spec.categories))
    marks = dict(zip((n.bar for n in spec.notes), note_marks(spec)))
    # A bar with a note moved too, in a list its figure does not read: marked as the others.
    moved = [v is not None and (v != t or i in marks) for i, (v, t) in enumerate(zip(now, then))]
    earlier = [(y, t) for y, m, v, t in zip(rows, moved, now, then)
               if m and t is not None and t != v]
    labels = []
    for y, v, t, m in zip(rows, now, then, moved):
        if v is not None:
            text = figures(v, 3) + ((" (new)" if t is None else f", was {figures(t, 3)}" if t != v
                                  else f" {marks[y]}") if m else "")
            labels.append((y, max(v, t) if m and t is not None else v, text))
    legend = _legend_entries(spec, any(moved), bool(earlier))

    # Every text measured once; the axes are placed from them, in points from the bottom left.
    line_pt, _ = line_height_pt()
    names_pt = max((text_width_pt(c) for c in spec.categories), default=0.0)
    left_pt = PAD_PT + names_pt + TICK_PAD_PT
    legend_pt = _legend_height_pt(legend)
    label_top_pt = PAD_PT + legend_pt + (LEGEND_GAP_PT if legend else 0.0) + line_pt
    bottom_pt = label_top_pt + LABEL_PAD_PT + line_pt + 2 * TICK_PAD_PT
    plot_w_pt = width_in * 72 - PAD_PT - left_pt
    plot_h_pt = height_in * 72 - PAD_PT - bottom_pt
    ax.set_position((left_pt / (width_in * 72), bottom_pt / (height_in * 72),
                     plot_w_pt / (width_in * 72), plot_h_pt / (height_in * 72)))

    # By position, labelled after: names given as categories merge when two providers quote
    # the same model id.
    ax.barh(rows, [v or 0 for v in now], height=BAR_HEIGHT,
            color=[MOVED if m else PALETTE[0] for m in moved],
            hatch=["//" if m else "" for m in moved], edgecolor="white", linewidth=0)
    # The earlier figure of a bar that moved: an empty dashed bar behind it.
    ax.barh([y for y, _ in earlier], [t for _, t in earlier], height=BAR_HEIGHT, fill=False,
            edgecolor=TEXT, linestyle="--", linewidth=1.2)
    ax.set_yticks(rows, spec.categories)
    # The first category on top, as a ranking reads; 5 % of the bars' span above and below.
    span = max(1, len(rows)) - 1 + BAR_HEIGHT
    ax.set_ylim(len(rows) - 1 + BAR_HEIGHT / 2 + 0.05 * span, -BAR_HEIGHT / 2 - 0.05 * span)
    ax.set_xlim(0, _room_for_labels(
        [(end, text_width_pt(text)) for _, end, text in labels], plot_w_pt))
    for y, end, text in labels:
        ax.annotate(text, (end, y), xytext=(VALUE_OFFSET_PT, 0), textcoords="offset points",
                    va="center", fontsize=FONT_PT, color=TEXT)
    # Flush right under the axis: the plot is narrower than the figure, the names take the rest.
    ax.set_xlabel(spec.y_label, loc="right")
    ax.xaxis.set_label_coords(1.0, -(bottom_pt - label_top_pt) / plot_h_pt)

    _draw_legend(fig, legend, PAD_PT + legend_pt)
    return fig


def _draw_legend(fig, entries: list[tuple[dict[str, Any] | None, str]], top_pt: float) -> None:
    """Draw the legend's entries on `fig` from `top_pt` (points from its bottom) down, at its left
    edge, as matplotlib's legend would: a patch and a text per entry. Drawn by hand, it costs a
    few texts; matplotlib's legend laid itself out again at every draw."""
    from matplotlib.patches import Rectangle

    inch, (line_pt, _) = fig.dpi_scale_trans, line_height_pt()
    y_pt = top_pt
    for row in _legend_rows(entries):
        x_pt = PAD_PT
        for handle, label in row:
            if handle is not None:  # centred on the label's first line
                fig.add_artist(Rectangle((x_pt / 72, (y_pt - line_pt / 2 - HANDLE_H_PT / 2) / 72),
                                         HANDLE_W_PT / 72, HANDLE_H_PT / 72, transform=inch,
                                         **handle))
            fig.text((x_pt + HANDLE_W_PT + HANDLE_PAD_PT) / 72, y_pt / 72, label, transform=inch,
                     va="top", fontsize=FONT_PT, color=TEXT)
            x_pt += HANDLE_W_PT + HANDLE_PAD_PT + text_width_pt(label) + COLUMN_GAP_PT
        y_pt -= max(text_height_pt(label) for _, label in row) + ROW_GAP_PT


def _legend_entries(spec: ChartSpec, any_moved: bool,
                    any_earlier: bool) -> list[tuple[dict[str, Any] | None, str]]:
    """Return the legend under the bars: (the handle's patch style, or None for none; its label)
    of each entry, the notes last, each a label of its lines."""
    if len(spec.series) < 2:
        return []
    since, window = since_words(spec), window_words(spec)
    entries: list[tuple[dict[str, Any] | None, str]] = [
        ({"facecolor": MOVED, "hatch": "//", "edgecolor": "white"}, f"moved {window}")
        if any_moved else ({"facecolor": PALETTE[0]}, f"no move {window}")]
    if any_earlier:
        entries.append(({"fill": False, "edgecolor": TEXT, "linestyle": "--"}, f"on {since}"))
    return entries + [(None, "\n".join(note)) for note in note_lines(spec)]


def _legend_rows(entries: list[tuple[dict[str, Any] | None, str]]
                 ) -> list[list[tuple[dict[str, Any] | None, str]]]:
    """Return the legend's entries by row: the first two side by side when they are short and
    there are no notes, else one a row."""
    wide = sum(len(label) for _, label in entries[:2]) > LEGEND_ROW_CHARS
    if len(entries) == 2 and not wide and entries[1][0] is not None:
        return [entries]
    return [[entry] for entry in entries]


def _legend_height_pt(entries: list[tuple[dict[str, Any] | None, str]]) -> float:
    rows = _legend_rows(entries)
    return (sum(max(text_height_pt(label) for _, label in row) for row in rows)
            + max(0, len(rows) - 1) * ROW_GAP_PT)


def _room_for_labels(ends: list[tuple[float, float]], plot_pt: float) -> float:
    """Return the x limit that leaves room right of each bar for its figure: (where the figure
    starts, its measured width in points), in a plot `plot_pt` wide."""
    limit = 1.0
    for end, width_pt in ends:
        share = min(MAX_LABEL_SHARE, (width_pt + VALUE_OFFSET_PT + PAD_PT) / plot_pt)
        limit = max(limit, end / (1 - share))
    return limit


def _figure(spec: ChartSpec):
    # No title in the drawing: the caption under it gives it (Chart.markdown), and the room
    # goes to the data.
    from matplotlib.figure import Figure

    fig = Figure(figsize=FIGSIZE_IN, dpi=PNG_DPI, facecolor="white", layout="constrained")
    ax = fig.add_subplot()
    ax.set_xlabel(spec.x_label, fontsize=FONT_PT, color=TEXT)
    ax.set_ylabel(spec.y_label, fontsize=FONT_PT, color=TEXT)
    ax.tick_params(labelsize=FONT_PT, colors=TEXT)
    ax.spines[["top", "right"]].set_visible(False)
    ax.grid(axis="y", color="#bbbbbb", linewidth=0.6)
    ax.set_axisbelow(True)
    return fig, ax


def _ticks(ax, categories: tuple[str, ...]) -> None:
    positions = list(range(len(categories)))
    # At most six labels at 12 pt across 5 in, so they never overlap whatever the number of points.
    step = max(1, -(-len(categories) // 6))
    labels = [categories[i] for i in positions[::step]]
    ax.set_xticks(positions[::step], labels)
    # Long labels would run into each other side by side: slant them.
    if max((len(x) for x in labels), default=0) * len(labels) > 36:
        ax.tick_params(axis="x", labelrotation=30)
        for label in ax.get_xticklabels():
            label.set_horizontalalignment("right")


def line_chart(spec: ChartSpec):
    """Return the figure of a line chart of the spec's series over its categories."""
    fig, ax = _figure(spec)
    x = range(len(spec.categories))
    markers = "osD^v<>"
    for i, s in enumerate(spec.series):
        values = [float("nan") if v is None else v for v in s.values]
        ax.plot(x, values, color=PALETTE[i % len(PALETTE)], marker=markers[i % len(markers)],
                linewidth=2, label=s.name)
    _ticks(ax, spec.categories)
    if len(spec.series) > 1:
        ax.legend(frameon=False, fontsize=FONT_PT, labelcolor=TEXT)
    return fig


def bar_chart(spec: ChartSpec):
    """Return the figure of a bar chart, bars of several series side by side."""
    fig, ax = _figure(spec)
    n = max(1, len(spec.series))
    width = 0.8 / n
    for i, s in enumerate(spec.series):
        xs = [j + (i - (n - 1) / 2) * width for j, v in enumerate(s.values) if v is not None]
        ys = [v for v in s.values if v is not None]
        # Hatching as well as colour, so series differ in grey-scale print too.
        ax.bar(xs, ys, width=width, color=PALETTE[i % len(PALETTE)], label=s.name,
               hatch=("", "//", "..", "xx")[i % 4], edgecolor="white")
    _ticks(ax, spec.categories)
    ax.yaxis.get_major_locator().set_params(integer=all(
        v is None or float(v).is_integer() for s in spec.series for v in s.values))
    if len(spec.series) > 1:
        ax.legend(frameon=False, fontsize=FONT_PT, labelcolor=TEXT)
    return fig


_FIGURES = {"line": line_chart, "bar": bar_chart, "hbar": hbar_chart}


def _laid_out(spec: ChartSpec):
    fig = _FIGURES[spec.kind](spec)
    if fig.get_layout_engine() is not None:
        # Laid out measuring text at the figure's dpi, as for the PNG; the SVG keeps it.
        fig.draw_without_rendering()
        fig.set_layout_engine("none")
    return fig


def spec_svg(spec: ChartSpec) -> bytes:
    """Return the SVG of a spec, for the site: what a worker of the drawer sends back."""
    # Transparent (svg_bytes), on the page's own background.
    return svg_bytes(_laid_out(spec))


def png(spec: ChartSpec) -> bytes:
    """Return the PNG of a spec, for an e-mail: on white, PNG_DPI pixels an inch."""
    buf = io.BytesIO()
    _laid_out(spec).savefig(buf, format="png", dpi=PNG_DPI, metadata={"Software": None})
    return buf.getvalue()


def draw(spec: ChartSpec) -> Chart:
    """Return the drawn chart of a spec, with its CSV and alt text."""
    return chart_of(spec, ready(spec_svg(spec)))
