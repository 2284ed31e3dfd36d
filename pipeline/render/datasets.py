"""The files of data the site publishes under `data/`, declared once, and the Data page listing them.

Each lane that publishes a CSV or JSON adds a `DataFile` to `DATA_FILES` (path, title, columns with
what they mean) and writes the file from `site_files`. The build checks the two agree both ways
(`published_data`): a declared file that was not written, or a written one that was not declared,
stops the build, so the Data page never lists a missing file nor leaves one out.
"""

from __future__ import annotations

from dataclasses import dataclass

from pipeline.problems import BuildError
from pipeline.render.escape import md_text


@dataclass(frozen=True)
class Column:
    """One column (CSV) or field (JSON) of a published file."""

    name: str
    description: str
    """What it holds, with its unit: `USD per million input tokens`."""


@dataclass(frozen=True)
class DataFile:
    """A published file of data: where it is, what it is, what its columns mean."""

    path: str
    """Relative to the site root: `data/editions.csv`."""
    title: str
    description: str
    columns: tuple[Column, ...]


DATA_FILES: tuple[DataFile, ...] = (
    DataFile(
        path="data/editions.csv",
        title="Editions",
        description="Every edition, oldest first, with where to read it and what it holds.",
        columns=(
            Column("date", "The edition's date (YYYY-MM-DD); it covers what happened after the "
                           "previous edition, up to and including this day."),
            Column("title", "The edition's title."),
            Column("url", "The edition's web page."),
            Column("text_url", "The plain-text edition."),
            Column("email_url", "The e-mail edition (HTML)."),
            Column("updated", "The edition's date, or the date of its latest correction."),
            Column("stories", "Items in Top developments and Local view."),
            Column("figures", "Items in Context & numbers."),
            Column("radar_items", "Items in On the radar."),
        ),
    ),
    DataFile(
        path="data/editions-per-month.csv",
        title="Editions per month",
        description="How many editions appeared in each month; the chart on the archive page.",
        columns=(
            Column("Month", "The month (YYYY-MM)."),
            Column("Editions", "Editions dated in that month."),
        ),
    ),
)


def published_data(files: dict[str, bytes],
                   declared: tuple[DataFile, ...] = DATA_FILES) -> tuple[DataFile, ...]:
    """Return the declared data files this build writes; a written one that is not declared stops
    the build. (A declared file may be absent: a tree without prices writes no prices.csv.)"""
    written = {p for p in files if p.startswith("data/") and p.endswith((".csv", ".json"))}
    paths = {d.path for d in declared}
    undeclared = sorted(written - paths)
    if undeclared:
        raise BuildError(f"written under data/ but not declared in DATA_FILES (so the Data page "
                         f"would not describe it): {', '.join(undeclared)}")
    return tuple(sorted((d for d in declared if d.path in written), key=lambda d: d.path))


def data_page(data_files: tuple[DataFile, ...]) -> str:
    """Return the Markdown of the Data page: each published file, its columns described."""
    lines = [
        "---", "title: Data", "description: Every table of data this site publishes.", "---", "",
        "# Data", "",
        ("Every figure and chart on this site comes from the tables below; each is rebuilt with "
         "the site. CSV files are UTF-8 with a header row."), "",
    ]
    for d in data_files:
        lines += [f"## {md_text(d.title)}", "",
                  f"[`{d.path}`]({d.path}): {md_text(d.description)}", "",
                  "| Column | What it holds |", "| --- | --- |"]
        lines += [f"| `{c.name}` | {md_text(c.description)} |" for c in d.columns]
        lines.append("")
    lines += [
        "## Feeds and calendar", "",
        "- [`feed.xml`](feed.xml): the latest editions as an Atom 1.0 feed, full text.",
        "- [`feed.json`](feed.json): the same as a JSON Feed 1.1.",
        ("- [`radar.ics`](radar.ics): the dated events of On the radar, as an iCalendar file to "
         "subscribe to."), "",
    ]
    return "\n".join(lines)
