"""Load the curated news entries, `sources/entries/YYYY/MM-DD-slug.yaml`."""

from __future__ import annotations

import bisect
import datetime as dt
import re
from pathlib import Path
from urllib.parse import urlsplit

from pipeline.limits import MAX_PAGE_BYTES, MAX_SITE_BYTES
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
    read: list[Sourced[Entry]] = []
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
        problems += (_after_last_edition(sourced, series, last) + _home_page_links(sourced)
                     + _todos_left(sourced))
        entry_id = entry.id or match["slug"]
        if entry_id in first_path:
            problems.append(Problem(name, "id", f"duplicate entry id {entry_id!r} "
                                    f"(also used by {first_path[entry_id]})",
                                    line=line_of(sourced.lines, ("id",))))
            continue
        first_path[entry_id] = name
        entries.append(CuratedEntry(entry_id, entry, name, sourced.lines))
        read.append(sourced)
    return entries, problems + (_page_sizes(read, series) if series else [])


PRINTED_TEXT = ("headline", "original_headline", "summary")
"""The fields of an entry its edition's page prints as written (or longer, escaped)."""


_TODO = re.compile(r"\bTODO\b")


def _todos_left(sourced: Sourced[Entry]) -> list[Problem]:
    """An error for each field of ours that still holds a `TODO` (what `brief add` pre-fills):
    once its `draft: true` line is gone, nothing else would keep the placeholder off the page."""
    return [Problem(sourced.path, field, "still says TODO, as `brief add` pre-filled it; write "
                    "it in our own words", line=line_of(sourced.lines, (field,)))
            for field in ("headline", "summary") if _TODO.search(getattr(sourced.model, field))]


def _page_sizes(read: list[Sourced[Entry]], series: Series) -> list[Problem]:
    """An error where the entries of one edition hold more text than its page may have
    (MAX_PAGE_BYTES), or all of them more than the site (MAX_SITE_BYTES), at the entry with the
    most: the build would refuse the page after `brief check` had passed it (issue 50). Every
    entry of an edition counts, as it is written to be printed there (a section's quota may
    leave some out)."""
    if not read:
        return []
    every = series.cadence.every_days if series.cadence else 0
    dates = series.edition_dates(max(s.model.date for s in read) + dt.timedelta(days=every))
    by_edition: dict[dt.date, list[tuple[int, Sourced[Entry]]]] = {}
    for sourced in read:
        at = bisect.bisect_left(dates, sourced.model.date)
        if at < len(dates):
            by_edition.setdefault(dates[at], []).append((_text_bytes(sourced.model), sourced))
    problems = []
    for day, sized in sorted(by_edition.items()):
        total = sum(size for size, _ in sized)
        if total > MAX_PAGE_BYTES:
            largest = max(sized, key=lambda s: s[0])[1]
            problems.append(_too_large(largest, f"the edition of {day} would print {total:,} "
                                       "bytes of its entries' text, more than the "
                                       f"{MAX_PAGE_BYTES:,} a page may have"))
    total = sum(size for sized in by_edition.values() for size, _ in sized)
    if total > MAX_SITE_BYTES:
        largest = max((s for sized in by_edition.values() for s in sized),
                      key=lambda s: s[0])[1]
        problems.append(_too_large(largest, f"the editions would print {total:,} bytes of "
                                   f"their entries' text, more than the {MAX_SITE_BYTES:,} the "
                                   "site may have"))
    return problems


def _text_bytes(entry: Entry) -> int:
    return sum(len((getattr(entry, f) or "").encode("utf-8")) for f in PRINTED_TEXT)


def _too_large(sourced: Sourced[Entry], what: str) -> Problem:
    """The problem at the largest printed field of the entry with the most text."""
    field = max(PRINTED_TEXT, key=lambda f: len((getattr(sourced.model, f) or "").encode()))
    return Problem(sourced.path, field, f"{what} (pipeline/limits.py); shorten the text or move "
                   "an entry to another edition", line=line_of(sourced.lines, (field,)))


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
