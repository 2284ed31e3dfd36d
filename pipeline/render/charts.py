"""Charts: a declared series of numbers → the files the site publishes of it (an SVG, drawn by
render/chart_figures.py, and a CSV), its size and alt text; an e-mail carries its PNG, drawn
only when the e-mail is made (mail clients do not show SVG).

The drawing is pure (spec in, bytes out) and deterministic: matplotlib stamps creation dates and
random ids unless told not to (ARCHITECTURE.md), so two builds give the same bytes. matplotlib is
imported only when a chart is drawn, so commands that never draw (`brief check`) don't pay for it.
Which drawings are kept between builds is the build's business (orchestrate/charts.py).
"""

from __future__ import annotations

import csv
import html
import io
import textwrap
from dataclasses import dataclass
from typing import Any, Literal

from pipeline.compose.charts import ChartSpec
from pipeline.compose.numbers import plain_number
from pipeline.render.chart_image import ChartImage
from pipeline.tables.frames import text_cell

# Okabe & Ito, "Color Universal Design" (2008): eight colours told apart with every common form of
# colour blindness. Black is left out of the cycle: it is the axis and text colour.
PALETTE = ("#0072B2", "#E69F00", "#009E73", "#D55E00", "#CC79A7", "#56B4E9", "#F0E442")

# Fixed size and resolution: part of what makes the bytes repeatable. 5 × 3.4 in at 100 dpi gives
# a 500 × 340 PNG, which fits a mail client's 600 px column as it is; on the site, 12 pt text in
# a 5 in drawing reads at about 12 px on a phone (see WIDTH_IN).
FIGSIZE_IN = (5.0, 3.4)
PNG_DPI = 100
HASH_SALT = "inference-brief"

# Every chart of the site is read on phones (issue 39): 5 in wide (at most its natural 480 CSS px
# on the page, assets/charts.css), so at the 358 px of a 390 px screen's column its 12 pt text
# shows at 12 × 358 / 360 ≈ 11.9 px; a wider drawing or smaller text falls under 11 px.
# tests/test_browser_charts.py checks every chart of the site against it.
WIDTH_IN = 5.0
FONT_PT = 12.0
"""The size of every text of every chart: tick labels, axis labels, legends, titles, notes."""
HBAR_ROW_IN = 0.36
"""Height of one bar's row: a 12 pt name and the gap to the next."""
HBAR_FRAME_IN = 1.3
"""Height of the axis, its label and the legend below the bars."""
TEXT = "#222222"
MOVED = "#E69F00"
"""Bars whose figure moved in the window: orange of the palette, hatched as well."""


NOTE_LINE_IN = 0.22
"""Height of one line of a note under the bars, or of a legend entry of its own."""
NOTE_CHARS = 44
"""Characters in one line of a note: about 4.6 in at 12 pt (DejaVu Sans averages about 0.095 in
a character), beside the legend's handle."""
LEGEND_ROW_CHARS = 40
"""Legend labels longer than this together take a row each."""


def note_lines(spec: ChartSpec) -> list[list[str]]:
    """Return the notes drawn under an `hbar` chart, each as its lines:
    `* DeepSeek deepseek-v4-flash: CNY list cut on 2026-09-10: …`."""
    return [textwrap.wrap(f"{mark} {spec.categories[note.bar]}: {note.short}.", NOTE_CHARS)
            for mark, note in zip(note_marks(spec), spec.notes)]


def note_marks(spec: ChartSpec) -> list[str]:
    """Return the mark of each note, as its bar's label and the note under the chart carry it."""
    return ["*" if len(spec.notes) == 1 else f"*{i}" for i in range(1, len(spec.notes) + 1)]


def figure_size_in(spec: ChartSpec) -> tuple[float, float]:
    """Return a chart's (width, height) in inches: a row per bar for horizontal bars, and a line
    per line of their notes."""
    if spec.kind == "hbar":
        notes = note_lines(spec)
        # One more legend row for the earlier figure's entry when the notes take rows of their own.
        extra = sum(len(n) for n in notes) + (1 if notes else 0)
        return WIDTH_IN, round(HBAR_FRAME_IN + HBAR_ROW_IN * max(1, len(spec.categories))
                                    + NOTE_LINE_IN * extra, 2)
    return FIGSIZE_IN

@dataclass(frozen=True)
class Chart:
    """A chart: the files it publishes and the text that describes it. Its SVG may still be
    being drawn (render/chart_image.py); `svg` waits for it."""

    spec: ChartSpec
    drawing: ChartImage
    """The SVG's bytes, when asked for."""
    csv: bytes
    alt: str

    @property
    def svg(self) -> bytes:
        return self.drawing.result()

    @property
    def svg_path(self) -> str:
        return f"charts/{self.spec.name}.svg"

    @property
    def png_path(self) -> str:
        """The PNG's path under the site's URL in an e-mail's HTML, which the message replaces
        by its inline part (render/mail.py); the site publishes no PNG."""
        return f"charts/{self.spec.name}.png"

    @property
    def csv_path(self) -> str:
        return f"data/{self.spec.name}.csv"

    def files(self) -> dict[str, bytes | ChartImage]:
        """Return the files this chart publishes, by path relative to the site root; the SVG as
        its drawing, which may still be being drawn."""
        return {self.svg_path: self.drawing, self.csv_path: self.csv}

    def markdown(self, prefix: str = "", image: Literal["svg", "png"] = "svg") -> str:
        """Return the chart as Markdown: the image with its alt text, and a link to its CSV.

        `prefix` leads from the page's Markdown file (or an absolute site URL) to the site root.
        """
        src = prefix + (self.svg_path if image == "svg" else self.png_path)
        # The alt text goes in as an HTML-escaped attribute-free string: no brackets or
        # backslashes, so Markdown cannot end the image early or eat characters.
        alt = html.escape(self.alt.replace("[", "(").replace("]", ")").replace("\\", "/"))
        width, height = (round(x * PNG_DPI) for x in figure_size_in(self.spec))
        return (f'![{alt}]({src}){{ .chart width="{width}" height="{height}" }}\n\n'
                f"<small>{html.escape(self.spec.title)}: "
                f"[the data behind this chart (CSV)]({prefix}{self.csv_path})</small>\n")


def alt_text(spec: ChartSpec) -> str:
    """Return a description of the chart from its data: what it shows, extremes, latest value."""
    if spec.kind == "hbar":
        return hbar_alt_text(spec)
    kind = "Line chart" if spec.kind == "line" else "Bar chart"
    cats = spec.categories
    parts = [f"{kind}: {spec.title}."]
    if not cats:
        return parts[0] + " No data yet."
    parts.append(f"{spec.y_label} by {spec.x_label.lower()}, {len(cats)} "
                 f"{'point' if len(cats) == 1 else 'points'} from {cats[0]} to {cats[-1]}.")
    for s in spec.series:
        known = [(v, c) for v, c in zip(s.values, cats) if v is not None]
        who = f"{s.name}: " if len(spec.series) > 1 else ""
        if not known:
            parts.append(f"{who}no values.")
            continue
        # Ties go to the earliest category, so the sentence does not depend on sort stability.
        high = max(known, key=lambda vc: vc[0])
        low = min(known, key=lambda vc: vc[0])
        last = known[-1]
        sentence = (f"highest {_amount(high[0], spec)} ({high[1]}), "
                    f"lowest {_amount(low[0], spec)} ({low[1]}), "
                    f"latest {_amount(last[0], spec)} ({last[1]}).")
        parts.append(who + sentence if who else sentence[0].upper() + sentence[1:])
    return " ".join(parts)


ALT_TOP = 3
"""Bars named in a horizontal bar chart's alt text, besides those that moved."""


def hbar_alt_text(spec: ChartSpec) -> str:
    """Return the alt text of horizontal bars: the first bars with their figures, then every bar
    whose figure differs from the second series (the moves), or that none does."""
    parts = [f"Horizontal bar chart: {spec.title}."]
    if not spec.categories:
        return parts[0] + " No data yet."
    now = spec.series[0].values
    named = [f"{c} {plain_number(v)}" for c, v in zip(spec.categories, now) if v is not None]
    parts.append(f"{spec.y_label}, {len(spec.categories)} "
                 f"{'bar' if len(spec.categories) == 1 else 'bars'}, highest first: "
                 f"{', '.join(named[:ALT_TOP])}{', …' if len(named) > ALT_TOP else ''} {spec.unit}.")
    if len(spec.series) > 1:
        then, window = spec.series[1], window_words(spec)
        notes = {n.bar: n.full for n in spec.notes}
        moves = []
        for i, (c, v, t) in enumerate(zip(spec.categories, now, then.values)):
            if v is None or (v == t and i not in notes):
                continue
            text = f"{c} " + (f"new at {plain_number(v)}" if t is None
                              else f"from {plain_number(t)} to {plain_number(v)}" if v != t
                              else f"unchanged at {plain_number(v)}")
            moves.append(text + (f", its prices moved in another list: {notes[i]}"
                                 if i in notes else ""))
        parts.append(f"Moved {window}: {'; '.join(moves)}." if moves
                     else f"None of these moved {window}.")
    return " ".join(parts)


def since_words(spec: ChartSpec) -> str:
    """The date the marks are against, in words."""
    return spec.since or "the earlier date"


def window_words(spec: ChartSpec) -> str:
    """The window the marks cover, in words: `since 2026-09-04`."""
    return spec.window or f"since {since_words(spec)}"


def _amount(value: float, spec: ChartSpec) -> str:
    unit = spec.unit_one if value == 1 and spec.unit_one else spec.unit
    return f"{plain_number(value)} {unit}"


def chart_csv(spec: ChartSpec) -> bytes:
    """Return the CSV behind a chart: one row per category, one column per series."""
    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\n")
    notes = {n.bar: n.full for n in spec.notes}
    extra = [text_cell(spec.note_column)] if spec.note_column else []
    writer.writerow([text_cell(spec.x_label), *(text_cell(s.name) for s in spec.series), *extra])
    for i, category in enumerate(spec.categories):
        cell = text_cell(category) if isinstance(category, str) else category
        writer.writerow([cell, *("" if s.values[i] is None else repr_value(s.values[i])
                                 for s in spec.series),
                         *([text_cell(notes.get(i, ""))] if extra else [])])
    return out.getvalue().encode()


def repr_value(value: float | None) -> str:
    """Return a value as a CSV cell: exact, without thousands separators."""
    if value is None:
        return ""
    return str(int(value)) if float(value).is_integer() else repr(float(value))


def cleared(fig: Any, ax: Any) -> tuple[Any, Any]:
    """Return a figure reused from the last chart, and its axes, as new ones would be: its bars,
    lines, patches, texts and legend removed, the colour cycle at its first colour, the limits to
    come from the next chart's data alone."""
    for container in list(ax.containers):
        container.remove()
    for artist in [*ax.patches, *ax.collections, *ax.lines, *ax.texts]:
        artist.remove()
    if ax.legend_ is not None:
        ax.legend_.remove()
    ax.set_prop_cycle(None)
    ax.relim()
    ax.set_autoscale_on(True)
    return fig, ax


def svg_bytes(fig) -> bytes:
    """Return a matplotlib figure as SVG, the same bytes on every build: a fixed hash salt for
    its ids and no date (matplotlib's defaults are neither: ARCHITECTURE.md), and text kept as
    text (`svg.fonttype: none`: smaller, selectable, no glyph turned into a path). Every chart of
    the site is written by this.

    Transparent, figure and axes alike: drawn on the page's own background, which
    assets/charts.css turns light on dark for the dark scheme (issue 39); an opaque white
    figure stayed a white block there. An e-mail's PNG keeps its white (chart_figures.png)."""
    import matplotlib

    with matplotlib.rc_context({"svg.hashsalt": HASH_SALT, "svg.fonttype": "none"}):
        buf = io.BytesIO()
        fig.savefig(buf, format="svg", metadata={"Date": None}, transparent=True)
    return buf.getvalue()


def chart_of(spec: ChartSpec, drawing: ChartImage) -> Chart:
    """Return the chart of a spec whose drawing is `drawing` (ready, or being drawn)."""
    return Chart(spec=spec, drawing=drawing, csv=chart_csv(spec), alt=alt_text(spec))

