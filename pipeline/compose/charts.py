"""Value types of charts: what a chart shows, declared as numbers and labels. Compose returns
them; render draws them (render/charts.py), and the CSV and alt text come from the same value."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

ChartKind = Literal["line", "bar", "hbar"]
"""`hbar`: horizontal bars of the first series, the first category on top; a second series, if
any, is the same figure at an earlier date (`ChartSpec.since`), and marks the bars that moved
since."""


@dataclass(frozen=True)
class ChartSeries:
    """One named line or set of bars; `values[i]` belongs to the chart's `categories[i]`."""

    name: str
    values: tuple[float | None, ...]
    """None where there is no value (a gap in a line, no bar)."""


@dataclass(frozen=True)
class ChartNote:
    """A bar whose figure did not move though its model's prices did, in a list or tier its
    figure does not read (compose/list_moves.py): marked as a move, and said why."""

    bar: int
    """The category's position."""
    short: str
    """Drawn under the chart: `CNY list cut on 2026-09-10: input, peak ≈ −97 % …`."""
    full: str
    """In the alt text and the CSV: every moved meter and why no figure comes from it."""


@dataclass(frozen=True)
class ChartSpec:
    """Everything a chart shows, declared: the drawing, CSV and alt text all come from this."""

    name: str
    """File stem, lower-case with hyphens: `charts/<name>.svg`, `data/<name>.csv`."""
    kind: ChartKind
    title: str
    x_label: str
    """What the categories are: `Month`, `Edition date`."""
    y_label: str
    """What the values are, with their unit: `USD per Mtok`, `Editions`."""
    unit: str
    """The unit as alt text reads it after a number: `editions`, `USD per Mtok`."""
    categories: tuple[str, ...]
    series: tuple[ChartSeries, ...]
    unit_one: str = ""
    """The unit after the number 1, where it differs: `edition`."""
    since: str = ""
    """The date of an `hbar` chart's second series: what its marks compare with."""
    window: str = ""
    """The window its marks cover, in words (`since 2026-09-04`); empty: since `since`."""
    notes: tuple[ChartNote, ...] = ()
    """The bars marked as moved whose figure did not move."""
    note_column: str = ""
    """The CSV's column of the notes' full text, when the chart can have notes: every chart of
    a family has the same columns, notes or none."""

    def __post_init__(self) -> None:
        for s in self.series:
            if len(s.values) != len(self.categories):
                raise ValueError(f"chart {self.name}: series {s.name!r} has {len(s.values)} "
                                 f"values for {len(self.categories)} categories")
