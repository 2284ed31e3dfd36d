"""Pure: decide what makes up the edition of a date, with the provenance of every item.

Data in (validated sources, the edition dates, what each edition is made of), data out (Edition
values); no files, no clock. The lanes (compose/lanes.py) and the feed stories contribute items
computed from the tables of compose/edition_tables.py; this module puts them, with the curated entries of
the window, in the series' sections and order.
"""

from __future__ import annotations

import dataclasses
import datetime as dt
from collections.abc import Iterable
from dataclasses import dataclass

from pipeline.compose.corrections import figure_corrections
from pipeline.compose.edition_tables import EditionTables, FeedAsk, LaneItems
from pipeline.compose.lanes import present_lanes
from pipeline.compose.radar import radar_section
from pipeline.compose.round_notes import noted
from pipeline.compose.types import (
    Citation,
    Edition,
    Figure,
    Item,
    RadarItem,
    SectionContent,
    Story,
)
from pipeline.models.sourced import CuratedEntry
from pipeline.models.sources import Sources
from pipeline.tables.round_quotes import ByValue


def entry_citations(c: CuratedEntry) -> tuple[Citation, ...]:
    """Return the citations of a curated entry: each of its links, tied to its file."""
    return tuple(Citation(link.publisher, str(link.url or ""), c.path, c.id,
                          published=None if link.url else link.published)
                 for link in c.entry.links)


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


@dataclass(frozen=True)
class EditionInputs:
    """What an edition is made of besides the series: its window's curated entries, each
    lane's items (compose/lanes.py), the feed stories of each of its asks, and the hardware
    results by value, which its stories' figures are looked up in (compose/round_notes.py;
    made once for all the editions, EditionTables.results_by_value)."""

    entries: list[CuratedEntry]
    lanes: dict[str, LaneItems]
    feeds: dict[FeedAsk, list[Item]]
    results: ByValue


def feed_asks(sources: Sources, chosen: list[CuratedEntry]) -> list[FeedAsk]:
    """Return the feed stories an edition of the curated entries `chosen` asks for."""
    curated_urls = frozenset(str(link.url) for c in chosen for link in c.entry.links if link.url)
    asks = []
    for section in sources.series.sections:
        if section.id not in ("top", "local"):
            continue
        curated = sum(c.entry.section == section.id for c in chosen)
        if curated < section.quota:
            asks.append(FeedAsk(section.id == "local", section.quota - curated, curated_urls))
    return asks


def edition_inputs(parts: EditionTables, date: dt.date, previous: dt.date | None) -> EditionInputs:
    """Return what the edition of the window (previous, date] is made of, each part computed
    now (a build reuses the parts it computed before: orchestrate/compose.py)."""
    chosen = parts.entries_in(date, previous)
    return EditionInputs(
        chosen, {lane.name: lane.items(parts, date, previous)
                 for lane in present_lanes(parts.sources)},
        {ask: parts.feed_items(date, previous, ask) for ask in feed_asks(parts.sources, chosen)},
        parts.results_by_value())


def compose_edition(sources: Sources, date: dt.date, previous: dt.date | None,
                    inputs: EditionInputs | None = None) -> Edition:
    """Return the edition of `date`: its window's entries, by section, in the series' order.

    `inputs`: what it is made of (computed from the sources when not given)."""
    inputs = inputs if inputs is not None else edition_inputs(EditionTables(sources, [date]), date,
                                                              previous)
    series = sources.series
    chosen = inputs.entries
    computed = lane_sections(inputs.lanes)
    feeds = {ask.local: items for ask, items in inputs.feeds.items()}
    sections = []
    for section in series.sections:
        curated = [(c, curated_item(c)) for c in chosen if c.entry.section == section.id]
        items = [item for _, item in curated]
        if section.id in ("top", "local") and len(items) < section.quota:
            items += [dataclasses.replace(i, lane="feeds")
                      for i in feeds.get(section.id == "local", [])]
        if section.id == "radar":
            items = radar_section(curated, computed.get("radar", []),
                                  series.edition_dates(date), date)
        else:
            items += computed.get(section.id, [])
        # A story quoting a round the site leaves out of its figures says so beside them.
        items = [noted(i, inputs.results, date) for i in items[: section.quota]]
        sections.append(SectionContent(section.id, section.title, tuple(items)))
    corrections = tuple((x.date, c.id, x.note) for c in chosen for x in c.entry.corrections)
    corrections += figure_corrections(sources.printed, date)
    return Edition(date=date, title=series.edition_title(date), previous=previous,
                   sections=tuple(sections), corrections=corrections,
                   sources=numbered_sources(sections))


def lane_sections(lanes: dict[str, LaneItems]) -> dict[str, list[Item]]:
    """Return the lanes' items by section id (Context & numbers, On the radar), each marked
    with its lane, which the per-topic feeds select by (compose/topics.py)."""
    items: dict[str, list[Item]] = {"numbers": [], "radar": []}
    for lane, (numbers, radar) in lanes.items():
        items["numbers"] += [dataclasses.replace(i, lane=lane) for i in numbers]
        items["radar"] += [dataclasses.replace(i, lane=lane) for i in radar]
    return items


def numbered_sources(sections: Iterable[SectionContent]) -> tuple[Citation, ...]:
    """Return every source the sections cite, once each, in order of first use."""
    seen: dict[str, Citation] = {}
    for section in sections:
        for item in section.items:
            for cite in item.citations:
                seen.setdefault(cite.key, cite)
    return tuple(seen.values())


def compose_editions(sources: Sources, dates: list[dt.date],
                     inputs: dict[dt.date, EditionInputs] | None = None) -> list[Edition]:
    """Return every edition of `dates` (sorted), each with its window; `inputs`: what each
    is made of, by date (computed here from one `EditionTables` of the sources when not given)."""
    if inputs is None:
        parts = EditionTables(sources, dates)
        inputs = {date: edition_inputs(parts, date, previous)
                  for date, previous in windows(dates)}
    return [compose_edition(sources, date, previous, inputs[date])
            for date, previous in windows(dates)]


def windows(dates: Iterable[dt.date]) -> list[tuple[dt.date, dt.date | None]]:
    """Return each edition date with the one before it (None for the first), oldest first."""
    days = sorted(dates)
    return list(zip(days, [None, *days[:-1]]))
