"""Load the curated news entries, `sources/entries/YYYY/MM-DD-slug.yaml`."""

from __future__ import annotations

import datetime as dt
import re
from pathlib import Path
from urllib.parse import urlsplit

from pipeline.load.parse import Parser, parse_file, read_model
from pipeline.load.read import rel
from pipeline.models.entries import Entry
from pipeline.models.series import Series
from pipeline.models.sourced import CuratedEntry, Sourced, line_of
from pipeline.paths import ENTRIES
from pipeline.problems import Problem

_ENTRY_NAME = re.compile(r"^(?P<month>\d\d)-(?P<day>\d\d)-(?P<slug>[a-z0-9][a-z0-9-]*)\.yaml$")


def load_entries(root: Path, series: Series | None, parse: Parser = parse_file,
                 ) -> tuple[list[CuratedEntry], list[Problem]]:
    """Load `sources/entries/YYYY/MM-DD-slug.yaml`; check names, sections, unique ids, that each
    entry falls in an edition of `series` and links the pages that state its claims."""
    section_ids = {s.id for s in series.sections} if series else None
    # Once, not once an entry: a year of daily editions sorts its 366 dates for each of ~1,800.
    last = series.last_edition if series else None
    entries: list[CuratedEntry] = []
    problems: list[Problem] = []
    first_path: dict[str, str] = {}
    for path in sorted((root / ENTRIES).rglob("*.y*ml")):
        name = rel(path, root)
        sourced, found = read_model(path, Entry, root, parse)
        problems += found
        if sourced is None:
            continue
        entry = sourced.model
        match = _ENTRY_NAME.match(path.name)
        if not match or path.parent.name != f"{entry.date.year:04d}" or (
                match["month"], match["day"]) != (f"{entry.date.month:02d}", f"{entry.date.day:02d}"):
            problems.append(Problem(name, "date", f"the file should be named "
                                    f"{entry.date:%Y}/{entry.date:%m-%d}-<slug>.yaml for date "
                                    f"{entry.date.isoformat()}", line=line_of(sourced.lines, ("date",))))
            continue
        if section_ids is not None and entry.section not in section_ids:
            problems.append(Problem(name, "section", f"unknown section {entry.section!r}; "
                                    f"editions.yaml has: {', '.join(sorted(section_ids))}",
                                    line=line_of(sourced.lines, ("section",))))
        problems += _after_last_edition(sourced, series, last) + _home_page_links(sourced)
        entry_id = entry.id or match["slug"]
        if entry_id in first_path:
            problems.append(Problem(name, "id", f"duplicate entry id {entry_id!r} "
                                    f"(also used by {first_path[entry_id]})",
                                    line=line_of(sourced.lines, ("id",))))
            continue
        first_path[entry_id] = name
        entries.append(CuratedEntry(entry_id, entry, name, sourced.lines))
    return entries, problems


def _after_last_edition(sourced: Sourced[Entry], series: Series | None,
                        last: dt.date | None) -> list[Problem]:
    """A warning when the entry is dated after `last`, the series' last edition: an entry goes
    into the first edition on or after its date, so it would silently appear in none."""
    day = sourced.model.date
    if last is None or day <= last:
        return []
    assert series is not None
    fix = (f"move `cadence.until` to {day.isoformat()} or later" if series.cadence else
           f"add an edition date on or after {day.isoformat()} to `dates:`")
    return [Problem(sourced.path, "date", f"{day.isoformat()} is after the last edition "
                    f"({last.isoformat()}), so this entry will appear in no edition; {fix} in "
                    "sources/editions.yaml", line=line_of(sourced.lines, ("date",)),
                    severity="warning")]


def _is_home_page(url: str) -> bool:
    """Is `url` a site's home page (no path beyond `/`, no query, no fragment)?"""
    parts = urlsplit(url)
    return parts.path in ("", "/") and not parts.query and not parts.fragment


def _home_page_links(sourced: Sourced[Entry]) -> list[Problem]:
    """A warning for each link to a publisher's home page: a claim links the page that states
    it, unless the entry marks the link as the site itself (`site: true`)."""
    problems = []
    for i, link in enumerate(sourced.model.links):
        if link.url is None or link.site or not _is_home_page(str(link.url)):
            continue
        problems.append(Problem(
            sourced.path, f"links.{i}.url", f"{link.url} is a home page, not the page that "
            "states the claim: link that page; if none is known, replace `url` with `published: "
            "YYYY-MM-DD` (the day the publisher stated it); if the link is the site itself (a "
            "dashboard, a catalogue), add `site: true`",
            line=line_of(sourced.lines, ("links", i, "url")), severity="warning"))
    return problems
