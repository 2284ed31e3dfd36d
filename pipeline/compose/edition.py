"""Pure: decide what makes up the edition of a date, with the provenance of every item.

Data in (validated sources, the edition dates), data out (Edition values); no files, no clock.
Each lane contributes items through a function that takes the sources and an edition window and
returns Stories, Figures or RadarItems; this module puts them in the series' sections and order.
"""

from __future__ import annotations

import bisect
import datetime as dt
from dataclasses import dataclass, field
from typing import Any

from pipeline.build.memo import Memo
from pipeline.load.sources import CuratedEntry, Sources


@dataclass(frozen=True)
class Citation:
    """Where an item or figure comes from: the outside page and our source file."""

    label: str
    """Who published it: `DeepSeek API docs`, `MLPerf Inference v5.1 (5.1-0069)`."""
    url: str
    """The outside page (http/https)."""
    source_path: str
    """Our source file, relative to the repository root."""
    ref: str = ""
    """The id inside that file (entry id, record, result id), for an anchor."""


@dataclass(frozen=True)
class Story:
    """A headline and a paragraph (Top developments, Local view)."""

    id: str
    headline: str
    """Plain text; escaped when rendered."""
    summary_md: str
    """Markdown safe to render: the editor's own, or third-party text already sanitized."""
    citations: tuple[Citation, ...]
    origin: str = "curated"
    """`curated` (an editor's entry) or `feed` (a ranked feed item)."""
    original_headline: str | None = None
    also_reported_by: tuple[str, ...] = ()
    corrections: tuple[tuple[dt.date, str], ...] = ()


@dataclass(frozen=True)
class Figure:
    """One bullet of Context & numbers: a label and a sentence, with its sources."""

    label: str
    text_md: str
    """Markdown safe to render."""
    citations: tuple[Citation, ...]
    id: str = ""


@dataclass(frozen=True)
class RadarItem:
    """One bullet of On the radar: something due, with the day when known."""

    label: str
    text_md: str
    citations: tuple[Citation, ...]
    due: dt.date | None = None
    id: str = ""


Item = Story | Figure | RadarItem


@dataclass(frozen=True)
class SectionContent:
    id: str
    title: str
    items: tuple[Item, ...]


@dataclass(frozen=True)
class Edition:
    """The briefing of one date."""

    date: dt.date
    title: str
    previous: dt.date | None
    """The date of the edition before it; the window is (previous, date]."""
    sections: tuple[SectionContent, ...]
    corrections: tuple[tuple[dt.date, str, str], ...] = ()
    """(date, entry id, note) for entries corrected after publication."""
    sources: tuple[Citation, ...] = field(default=())
    """Every outside page the edition cites, once each, in order of first use."""

    def section(self, section_id: str) -> SectionContent | None:
        return next((s for s in self.sections if s.id == section_id), None)


def in_window(day: dt.date, previous: dt.date | None, date: dt.date) -> bool:
    """Is `day` in the edition window (previous, date]? The first edition takes all before it."""
    return day <= date and (previous is None or day > previous)


def entry_citations(c: CuratedEntry) -> tuple[Citation, ...]:
    """Return the citations of a curated entry: each of its links, tied to its file."""
    return tuple(Citation(link.publisher, str(link.url), c.path, c.id) for link in c.entry.links)


def curated_item(c: CuratedEntry) -> Item:
    """Return the edition item a curated entry becomes in its section."""
    e = c.entry
    cites = entry_citations(c)
    if e.section in ("top", "local"):
        return Story(id=c.id, headline=e.headline, summary_md=e.summary, citations=cites,
                     original_headline=e.original_headline,
                     corrections=tuple((x.date, x.note) for x in e.corrections))
    if e.section == "radar":
        return RadarItem(label=e.headline, text_md=e.summary, citations=cites,
                         due=e.event_date, id=c.id)
    return Figure(label=e.headline, text_md=e.summary, citations=cites, id=c.id)


def compose_edition(sources: Sources, date: dt.date, previous: dt.date | None,
                    parts: Parts | None = None) -> Edition:
    """Return the edition of `date`: its window's entries, by section, in the series' order.

    `parts`: the computed parts of the editions being composed (see `Parts`)."""
    parts = parts if parts is not None else Parts(sources, [date], Memo(), "")
    series = sources.series
    chosen = parts.entries_in(date, previous)
    computed = parts.computed(date, previous)
    curated_urls = {str(link.url) for c in chosen for link in c.entry.links}
    sections = []
    for section in series.sections:
        items = [curated_item(c) for c in chosen if c.entry.section == section.id]
        if section.id in ("top", "local") and len(items) < section.quota:
            items += parts.feed_items(date, previous, local=section.id == "local",
                                      limit=section.quota - len(items), exclude_urls=curated_urls)
        items += computed.get(section.id, [])
        sections.append(SectionContent(section.id, section.title, tuple(items[: section.quota])))
    corrections = tuple((x.date, c.id, x.note) for c in chosen for x in c.entry.corrections)
    return Edition(date=date, title=series.edition_title(date), previous=previous,
                   sections=tuple(sections), corrections=corrections,
                   sources=_numbered_sources(sections))


class Parts:
    """The computed parts of editions (price, hardware and feed items, and each edition's chart
    spec), each computed once per key and reused from `memo` (an earlier build's) when its key is
    there.

    A key is the digest of what the part reads (edition_keys.py), so a reused part is the part a
    fresh computation would give; `memo.used` ends up with the parts of this composition, for the
    caller to keep for the next build. Pure: data in, data out.
    """

    def __init__(self, sources: Sources, dates: list[dt.date], memo: Memo, code: str) -> None:
        from pipeline.build import keys

        self.sources, self.memo, self.code = sources, memo, code
        # One more date, after every other: the key of all price records, for the price tables.
        price_keys = keys.price_keys(sources, [*dates, dt.date.max], code) if (
            sources.prices and sources.rates is not None) else []
        self._price_keys = dict(zip(dates, price_keys))
        self.prices_key = price_keys[-1] if price_keys else ""
        """The digest of every price record and the rates they use."""
        self.hardware_key = (keys.hardware_key(sources, code)
                             if sources.hardware is not None else "")
        """The digest of every hardware source and the rates they use."""
        self._feeds_by_day = keys.feed_items_by_day(sources) if sources.feeds else ([], [], "")
        self._windows: dict[tuple[dt.date, dt.date | None], str] = {}
        days = [c.entry.date for c in sources.entries]
        # Loaded entries are sorted by date; then a window is a slice (bisect), not a scan.
        self._entry_days = days if days == sorted(days) else None
        self._hardware_index: Any = None
        self._feed_index: Any = None

    def cheapest_spec(self, date: dt.date) -> Any:
        """Return the spec of the chart of an edition (the most tokens per dollar as of its
        date, for the first profile); it reads what the edition's price part reads."""
        from pipeline.render.prices_page import cheapest_chart_spec

        s = self.sources
        return self.memo.get(f"{self._price_keys[date]} chart", lambda: cheapest_chart_spec(
            s.prices, s.rates, s.series.profiles[0], date))

    def computed(self, date: dt.date, previous: dt.date | None) -> dict[str, list[Item]]:
        """Return the items computed from data (not written by editors), by section id."""
        from pipeline.compose.prices import price_figures, price_radar
        from pipeline.tables.hardware import usd_at_ecb_rates
        from pipeline.compose.hardware import any_fresh, hardware_figures, hardware_radar

        s = self.sources
        items: dict[str, list[Item]] = {"numbers": [], "radar": []}
        if s.prices and s.rates is not None:
            numbers, radar = self.memo.get(f"{self._price_keys[date]} {previous}", lambda: (
                price_figures(s.prices, s.rates, s.series.profiles, date, previous),
                price_radar(s.prices, date)))
            items["numbers"] += numbers
            items["radar"] += radar
        if s.hardware is not None:
            hw = s.hardware
            numbers, radar = self.memo.get(f"{self.hardware_key} {date} {previous}", lambda: (
                hardware_figures(hw, self.hardware_index(), date, previous,
                                 usd_at_ecb_rates(s.rates))
                if any_fresh(hw, date, previous) else [],  # and the rows stay unread
                hardware_radar(hw, date)))
            items["numbers"] += numbers
            items["radar"] += radar
        return items

    def entries_in(self, date: dt.date, previous: dt.date | None) -> list[CuratedEntry]:
        """Return the curated entries of the window (previous, date], in the sources' order."""
        entries, days = self.sources.entries, self._entry_days
        if days is None:
            return [c for c in entries if in_window(c.entry.date, previous, date)]
        start = 0 if previous is None else bisect.bisect_right(days, previous)
        return entries[start:bisect.bisect_right(days, date)]

    def hardware_index(self) -> Any:
        """Return the hardware rows indexed for figures, built once, when first needed."""
        from pipeline.compose.hardware import figure_index

        if self._hardware_index is None:
            self._hardware_index = figure_index(self.sources.hardware_rows)
        return self._hardware_index

    def feed_items(self, date: dt.date, previous: dt.date | None, *, local: bool, limit: int,
                   exclude_urls: set[str]) -> list[Item]:
        """Return ranked feed stories that fill a section where curated entries are fewer than
        its quota (none when there are no feeds)."""
        feeds = self.sources.feeds
        if feeds is None:
            return []
        from pipeline.build.keys import feed_window_key
        from pipeline.compose.rank import feed_stories

        window = self._windows.get((date, previous))
        if window is None:  # asked for twice an edition (top and local): digest it once
            window = feed_window_key(self.sources, date, previous, self.code, self._feeds_by_day)
            self._windows[(date, previous)] = window
        key = f"{window} {local} {limit} {sorted(exclude_urls)!r}"
        return self.memo.get(key, lambda: list(feed_stories(
            feeds.feeds, self.sources.snapshots, feeds.topics, date, previous, local=local,
            limit=limit, exclude_urls=exclude_urls, index=self.feed_index())))

    def feed_index(self) -> Any:
        """Return the feed items by day, built once, when first needed (one pass over them
        for all the windows)."""
        from pipeline.compose.rank import feed_items

        if self._feed_index is None and self.sources.feeds is not None:
            self._feed_index = feed_items(self.sources.feeds.feeds, self.sources.snapshots)
        return self._feed_index


def _numbered_sources(sections: list[SectionContent]) -> tuple[Citation, ...]:
    seen: dict[str, Citation] = {}
    for section in sections:
        for item in section.items:
            for cite in item.citations:
                seen.setdefault(cite.url, cite)
    return tuple(seen.values())


def compose_editions(sources: Sources, dates: list[dt.date]) -> list[Edition]:
    """Return every edition of `dates` (sorted), each with its window."""
    return compose_reusing(sources, dates, Memo(), "")[0]


def compose_reusing(sources: Sources, dates: list[dt.date], memo: Memo, code: str,
                    ) -> tuple[list[Edition], Parts]:
    """Return every edition of `dates` (sorted) and their computed parts, reusing the parts in
    `memo` (an earlier build's) whose key did not change.

    `code` is a digest of the package's code, part of every key."""
    dates = sorted(dates)
    parts = Parts(sources, dates, memo, code)
    editions = []
    previous = None
    for date in dates:
        editions.append(compose_edition(sources, date, previous, parts))
        previous = date
    return editions, parts
