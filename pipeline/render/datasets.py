"""The files of data the site publishes under `data/`, declared once, and the Data page listing them.

Each lane that publishes a CSV or JSON adds a `DataFile` to `DATA_FILES` (path, title, columns with
what they mean) and writes the file from its page family (orchestrate/families.py). A file written
once per edition is declared once, as a family of files: its path holds `<YYYY-MM-DD>` where each
file has its edition's date, so the Data page does not grow, nor change, with every edition (issue 8).

The build checks declarations and files agree both ways (`published_data`): a written file that no
declaration matches stops the build, and a declared file or family this tree does not write is left
off the page; so the Data page never lists a missing file nor leaves one out. A CSV's header must
be its declared columns, so one description stays true of every file of a family.
"""

from __future__ import annotations

import csv
import functools
import re
from dataclasses import dataclass

from pipeline.disk_bodies import DiskBody
from pipeline.problems import BuildError
from pipeline.render.escape import md_text


@dataclass(frozen=True)
class Column:
    """One column (CSV) or field (JSON) of a published file."""

    name: str
    description: str
    """What it holds, with its unit: `USD per million input tokens`."""


EDITION_DATE = "<YYYY-MM-DD>"
"""In a declared path, where each file of a family has its edition's date."""

QUARTER_END = "<quarter-end>"
"""In a declared path, where each file of a family has a quarter's last day (YYYY-MM-DD). Its
text links no page: a link makes the Data page rendered again whenever the linked page changes
(the Market's, with every edition)."""

_PLACEHOLDERS = {EDITION_DATE: r"\d{4}-\d{2}-\d{2}", QUARTER_END: r"\d{4}-\d{2}-\d{2}"}
_FAMILY_TEXT = {
    EDITION_DATE: (f"One file per edition, where `{EDITION_DATE}` is the edition's date; each "
                   "edition links its own file, and the dates are listed in "
                   "[`data/editions.csv`](data/editions.csv)."),
    QUARTER_END: (f"One file per quarter the catalogues' histories cover, where `{QUARTER_END}` "
                  "is the quarter's last day (YYYY-MM-DD); the Market page's calculator offers "
                  "each date."),
}


@dataclass(frozen=True)
class DataFile:
    """A published file of data, or a family of files alike: where, what, what the columns mean."""

    path: str
    """Relative to the site root: `data/editions.csv`; a family's holds `<YYYY-MM-DD>`."""
    title: str
    description: str
    columns: tuple[Column, ...]

    def __post_init__(self) -> None:
        if self.is_family:
            _member_re(self.path)  # an unknown placeholder fails where it is declared

    @property
    def is_family(self) -> bool:
        return "<" in self.path

    def matches(self, path: str) -> bool:
        """Return whether `path` is this file, or one of this family's files."""
        if not self.is_family:
            return path == self.path
        return bool(_member_re(self.path).fullmatch(path))


@functools.cache
def _member_re(pattern: str) -> re.Pattern[str]:
    """Return the regular expression of the paths a family's pattern stands for."""
    parts = re.split(r"(<[^>]*>)", pattern)
    unknown = [p for p in parts[1::2] if p not in _PLACEHOLDERS]
    if unknown:
        raise ValueError(f"data file {pattern}: unknown placeholder {unknown[0]} "
                         f"(known: {', '.join(_PLACEHOLDERS)})")
    return re.compile("".join(_PLACEHOLDERS[p] if i % 2 else re.escape(p)
                              for i, p in enumerate(parts)))


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


def published_data(files: dict[str, bytes | DiskBody],
                   declared: tuple[DataFile, ...] = DATA_FILES) -> tuple[DataFile, ...]:
    """Return the declared data files and families this build writes, by path.

    A written file that no declaration matches, or a CSV whose header is not its declared
    columns, stops the build. A declared file, or a family with no file, that this tree does not
    write is left out (a tree without prices writes no prices.csv)."""
    written = sorted(p for p in files if p.startswith("data/") and p.endswith((".csv", ".json")))
    singles = {d.path: d for d in declared if not d.is_family}
    families = [d for d in declared if d.is_family]
    found: dict[str, DataFile] = {}
    undeclared = []
    for path in written:
        d = singles.get(path) or next((f for f in families if f.matches(path)), None)
        if d is None:
            undeclared.append(path)
        else:
            found[path] = d
    if undeclared:
        raise BuildError(f"written under data/ but not declared in DATA_FILES (so the Data page "
                         f"would not describe it): {', '.join(undeclared)}")
    for path, d in found.items():
        # The header only: a large file kept on disk (output.DiskBody) is not read whole.
        body = files[path]
        head = body.head(64 * 1024) if isinstance(body, DiskBody) else body
        header = csv_header(head) if path.endswith(".csv") else None
        if header is not None and header != [c.name for c in d.columns]:
            raise BuildError(f"{path}: its header is {', '.join(header) or '(none)'} but its "
                             f"declaration ({d.path}) describes the columns "
                             f"{', '.join(c.name for c in d.columns)}; make the two agree, so the "
                             f"Data page describes the file truly")
    return tuple(sorted(set(found.values()), key=lambda d: d.path))


def csv_header(body: bytes) -> list[str]:
    """Return the column names in a CSV file's first row (the rest is not read)."""
    end = body.find(b"\n")
    first = (body if end < 0 else body[:end]).decode("utf-8-sig").rstrip("\r")
    return next(csv.reader([first]), [])


def data_page(data_files: tuple[DataFile, ...]) -> str:
    """Return the Markdown of the Data page: each published file, its columns described."""
    lines = [
        "---", "title: Data", "description: Every table of data this site publishes.", "---", "",
        "# Data", "",
        ("Every figure and chart on this site comes from the tables below; each is rebuilt with "
         "the site. CSV files are UTF-8 with a header row."), "",
    ]
    for d in data_files:
        lines += [f"## {md_text(d.title)}", ""]
        if d.is_family:
            # No link, no list of files: a pattern keeps the page the same from one edition to
            # the next, so it is not rendered and indexed again on every build (issue 8).
            placeholder = next(p for p in _PLACEHOLDERS if p in d.path)
            lines += [f"`{d.path}`: {md_text(d.description)}", "", _FAMILY_TEXT[placeholder],
                      ""]
        else:
            lines += [f"[`{d.path}`]({d.path}): {md_text(d.description)}", ""]
        lines += ["| Column | What it holds |", "| --- | --- |"]
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
