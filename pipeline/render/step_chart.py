"""Pure: a price-path chart as SVG written directly, one step path per line, for the pages too
many to draw with matplotlib (a model page across its providers: 1,000 and more charts, where
matplotlib took 40 to 130 ms each and this well under one).

The same reading as the matplotlib charts (render/model_page.py `chart_svg`): dates across, a
linear value axis from zero, each price held as a step until the next, a gap where no price was
in force, a dot where a price began; the legend under the plot, so nothing hides a line.
Deterministic: fixed palette and dash patterns, numbers written to one decimal.
"""

from __future__ import annotations

import datetime as dt
import math
from html import escape

from pipeline.compose.numbers import axis_usd
from pipeline.compose.prices_page import PriceHistory

WIDTH = 480
"""As wide as the matplotlib charts (5 in at 96 px), so text shows as large on a phone."""
PLOT_H = 240
LEFT, RIGHT, TOP = 66, 14, 16
UNIT_W = 22
"""What the rotated unit label at the left edge takes (its baseline at FONT + 2, its descent
beyond); the value labels start right of it."""
AXIS_H = 44
LEGEND_ROW = 20
LEGEND_COL_W = 205
FONT = 14
LABEL_W = LEGEND_COL_W - 28 - 4
"""A legend label's width at most (by `text_width_px`), to fit its column beside its line."""
PALETTE = ("#1f77b4", "#ff7f0e", "#2ca02c", "#d62728", "#9467bd", "#8c564b", "#e377c2",
           "#7f7f7f", "#bcbd22", "#17becf")
"""matplotlib's default colours, as the site's other charts use."""
DASHES = ("", "6 3", "2 2", "8 3 2 3")
"""After every ten lines the colours come again with the next dash pattern."""
GRID = "#dddddd"
INK = "#333333"


def _nice_step(span: float, ticks: int = 5) -> float:
    raw = span / ticks
    power = 10 ** math.floor(math.log10(raw))
    return next(m * power for m in (1, 2, 2.5, 5, 10) if m * power >= raw)


def _months(first: dt.datetime, last: dt.datetime) -> list[dt.datetime]:
    """Return month starts between the two instants, thinned to at most 5."""
    at = dt.datetime(first.year, first.month, 1, tzinfo=first.tzinfo)
    out = []
    while at <= last:
        if at >= first:
            out.append(at)
        at = dt.datetime(at.year + at.month // 12, at.month % 12 + 1, 1, tzinfo=at.tzinfo)
    every = max(1, math.ceil(len(out) / 5))
    return out[::every]


def text_width_px(text: str, size: float = FONT) -> float:
    """Return an upper bound of `text`'s width at `size` px in a sans-serif (DejaVu Sans, the
    widest of the usual ones): an SVG shown as an image cannot be measured, and a label past the
    viewBox is cut (issue 52: "Nov 2026" at the right edge)."""
    def em(ch: str) -> float:
        return (0.4 if ch in " .,:;'|!il()[]/" else 1.0 if ch in "mwMW%@"
                else 0.8 if ch.isupper() else 0.65)
    return size * sum(em(ch) for ch in text)



def step_svg(chart: PriceHistory) -> bytes:
    """Return the SVG of `chart`: each line's steps to `chart.end`, labelled in a legend."""
    points = [p for _, line in chart.lines for p in line]
    first = min(at for at, _ in points)
    end = max(chart.end, first + dt.timedelta(days=1))
    top = max((v for _, v in points if v == v), default=0.0)
    step = _nice_step(top * 1.05) if top > 0 else 1.0
    y_max = step * math.ceil(top * 1.05 / step) if top > 0 else 1.0
    ticks = [step * i for i in range(int(round(y_max / step)) + 1)]
    # Wide enough for the widest value label beside the unit label: "$800.00" passed the edge.
    left = max(LEFT, math.ceil(UNIT_W + 5 + max(text_width_px(axis_usd(v)) for v in ticks)))
    plot_w = WIDTH - left - RIGHT
    span = (end - first).total_seconds()

    def x(at: dt.datetime) -> float:
        return left + plot_w * (at - first).total_seconds() / span

    def y(usd: float) -> float:
        return TOP + PLOT_H * (1 - usd / y_max)

    columns = max(1, (WIDTH - 8) // LEGEND_COL_W)
    rows = math.ceil(len(chart.lines) / columns)
    height = TOP + PLOT_H + AXIS_H + rows * LEGEND_ROW + 8
    out = ['<?xml version="1.0" encoding="utf-8"?>\n',
           f'<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 {WIDTH} {height}" '
           f'width="{WIDTH}" height="{height}" role="img" font-family="sans-serif" '
           f'font-size="{FONT}"><title>{escape(chart.title)}</title>',
           f'<rect width="{WIDTH}" height="{height}" fill="#ffffff"/>']
    for usd in ticks:
        out.append(f'<line x1="{left}" x2="{left + plot_w}" y1="{y(usd):.1f}" '
                   f'y2="{y(usd):.1f}" stroke="{GRID}"/>'
                   f'<text x="{left - 5}" y="{y(usd) + 5:.1f}" text-anchor="end" '
                   f'fill="{INK}">{escape(axis_usd(usd))}</text>')
    for at in _months(first, end):
        # The tick at its date, its label moved in from an edge to be whole inside the drawing.
        half = text_width_px(f"{at:%b %Y}") / 2
        label_x = min(max(x(at), half), WIDTH - half)
        out.append(f'<line x1="{x(at):.1f}" x2="{x(at):.1f}" y1="{TOP + PLOT_H}" '
                   f'y2="{TOP + PLOT_H + 4}" stroke="{INK}"/>'
                   f'<text x="{label_x:.1f}" y="{TOP + PLOT_H + 17}" text-anchor="middle" '
                   f'fill="{INK}">{at:%b %Y}</text>')
    # Turned a quarter left, its glyphs rise leftward of its baseline: a font size in from the edge.
    out.append(f'<text x="{FONT + 2}" y="{TOP + PLOT_H / 2:.1f}" text-anchor="middle" '
               f'fill="{INK}" transform="rotate(-90 {FONT + 2} {TOP + PLOT_H / 2:.1f})">'
               f'{escape(chart.unit)}</text>')
    out.append(f'<path d="M{left} {TOP}V{TOP + PLOT_H}H{left + plot_w}" fill="none" '
               f'stroke="{INK}"/>')
    for i, (label, line) in enumerate(chart.lines):
        colour, dash = PALETTE[i % len(PALETTE)], DASHES[i // len(PALETTE) % len(DASHES)]
        dashed = f' stroke-dasharray="{dash}"' if dash else ""
        path, dots = [], []
        held: float | None = None
        for (at, usd), following in zip(line, [*[p[0] for p in line[1:]], end], strict=True):
            if usd != usd:  # no price in force from `at`
                held = None
                continue
            if held is None:
                path.append(f"M{x(at):.1f} {y(usd):.1f}")
            else:
                path.append(f"V{y(usd):.1f}")
            path.append(f"H{x(following):.1f}")
            dots.append(f'<circle cx="{x(at):.1f}" cy="{y(usd):.1f}" r="2.5"/>')
            held = usd
        out.append(f'<g stroke="{colour}" fill="{colour}"><path d="{"".join(path)}" '
                   f'fill="none" stroke-width="1.8"{dashed}/>{"".join(dots)}</g>')
        lx = 8 + (i % columns) * LEGEND_COL_W
        ly = TOP + PLOT_H + AXIS_H + (i // columns) * LEGEND_ROW
        out.append(f'<line x1="{lx}" x2="{lx + 22}" y1="{ly - 4}" y2="{ly - 4}" '
                   f'stroke="{colour}" stroke-width="2.5"{dashed}/>'
                   f'<text x="{lx + 28}" y="{ly}" fill="{INK}">{escape(_short(label))}</text>')
    out.append("</svg>")
    return "".join(out).encode()


def _short(label: str) -> str:
    """Return a legend label cut to fit its column."""
    if text_width_px(label) <= LABEL_W:
        return label
    while text_width_px(label + "…") > LABEL_W:
        label = label[:-1]
    return label + "…"
