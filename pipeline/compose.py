"""Pure: decide what makes up the edition of a date, with the provenance of every item.

Data in (validated sources, the edition dates), data out (Edition values); no files, no clock.
Each lane contributes items through a function that takes the sources and an edition window and
returns Stories, Figures or RadarItems; this module puts them in the series' sections and order.
"""

from __future__ import annotations

import datetime as dt
import typing
from dataclasses import dataclass, field

from pipeline.sources import CuratedEntry, Sources

if typing.TYPE_CHECKING:  # rank imports this module's Citation and Story
    from pipeline.rank import FeedItems


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
                    index: FeedItems | None = None) -> Edition:
    """Return the edition of `date`: its window's entries, by section, in the series' order.

    `index` is `feed_index(sources)`, passed when composing many editions to index them once.
    """
    series = sources.series
    chosen = [c for c in sources.entries if in_window(c.entry.date, previous, date)]
    computed = _computed_items(sources, date, previous)
    curated_urls = {str(link.url) for c in chosen for link in c.entry.links}
    sections = []
    for section in series.sections:
        items = [curated_item(c) for c in chosen if c.entry.section == section.id]
        if section.id in ("top", "local") and len(items) < section.quota:
            items += _feed_items(sources, date, previous, local=section.id == "local",
                                 limit=section.quota - len(items), exclude_urls=curated_urls,
                                 index=index)
        items += computed.get(section.id, [])
        sections.append(SectionContent(section.id, section.title, tuple(items[: section.quota])))
    corrections = tuple((x.date, c.id, x.note) for c in chosen for x in c.entry.corrections)
    return Edition(date=date, title=series.edition_title(date), previous=previous,
                   sections=tuple(sections), corrections=corrections,
                   sources=_numbered_sources(sections))


def _computed_items(sources: Sources, date: dt.date, previous: dt.date | None
                    ) -> dict[str, list[Item]]:
    """Return the items computed from data (not written by editors), by section id."""
    from pipeline.hardware_compose import hardware_figures, hardware_radar

    from pipeline.cost_edition import price_figures, price_radar

    items: dict[str, list[Item]] = {"numbers": [], "radar": []}
    if sources.prices and sources.rates is not None:
        items["numbers"] += price_figures(sources.prices, sources.rates,
                                          sources.series.profiles, date, previous)
        items["radar"] += price_radar(sources.prices, date)
    if sources.hardware is not None:
        items["numbers"] += hardware_figures(sources.hardware, sources.hardware_rows, date, previous)
        items["radar"] += hardware_radar(sources.hardware, date)
    return items


def feed_index(sources: Sources) -> FeedItems | None:
    """Return the feed items of `sources` by day (None when there are no feeds)."""
    if sources.feeds is None:
        return None
    from pipeline.rank import feed_items

    return feed_items(sources.feeds.feeds, sources.snapshots)


def _feed_items(sources: Sources, date: dt.date, previous: dt.date | None, *, local: bool,
                limit: int, exclude_urls: set[str], index: FeedItems | None = None) -> list[Item]:
    """Return ranked feed stories that fill a section where curated entries are fewer than its
    quota (none when there are no feeds). `index`: `feed_index(sources)`, or None to build it."""
    if sources.feeds is None:
        return []
    from pipeline.rank import feed_stories

    return list(feed_stories(sources.feeds.feeds, sources.snapshots, sources.feeds.topics, date,
                             previous, local=local, limit=limit, exclude_urls=exclude_urls,
                             index=index))


def _numbered_sources(sections: list[SectionContent]) -> tuple[Citation, ...]:
    seen: dict[str, Citation] = {}
    for section in sections:
        for item in section.items:
            for cite in item.citations:
                seen.setdefault(cite.url, cite)
    return tuple(seen.values())


def compose_editions(sources: Sources, dates: list[dt.date]) -> list[Edition]:
    """Return every edition of `dates` (sorted), each with its window."""
    editions = []
    previous = None
    index = feed_index(sources)  # one pass over the feed items for all the windows
    for date in sorted(dates):
        editions.append(compose_edition(sources, date, previous, index))
        previous = date
    return editions
