"""Pure: decide what makes up the edition of a date, with the provenance of every item.

Data in (validated sources, the edition dates), data out (Edition values); no files, no clock.
Each lane contributes items through a function that takes the sources and an edition window and
returns Stories, Figures or RadarItems; this module puts them in the series' sections and order.
"""

from __future__ import annotations

import bisect
import dataclasses
import datetime as dt
from collections.abc import Iterable

import pandas as pd

from pipeline.compose.catalogue_moves import catalogue_figures, window_moves, without_models
from pipeline.compose.charts import ChartSpec
from pipeline.compose.corrections import figure_corrections
from pipeline.compose.hardware import (
    FigureIndex,
    figure_index,
    hardware_figures,
    hardware_radar,
)
from pipeline.compose.list_moves import ListMove, window_list_moves
from pipeline.compose.numbers import since_words
from pipeline.compose.prices import FIRST_EDITION_LOOKBACK, price_figures, price_radar
from pipeline.compose.prices_page import cheapest_chart_spec
from pipeline.compose.radar import radar_section
from pipeline.compose.rank import FeedItems, feed_items, feed_stories
from pipeline.compose.round_notes import noted
from pipeline.compose.types import (
    Citation,
    Edition,
    Figure,
    Item,
    RadarItem,
    SectionContent,
    Story,
    in_window,
)
from pipeline.models.sourced import CuratedEntry
from pipeline.models.sources import Sources
from pipeline.tables.catalogue_history import catalogue_changes
from pipeline.tables.cost import day_end
from pipeline.tables.hardware import usd_at_ecb_rates
from pipeline.tables.moves import Moves, meter_moves
from pipeline.tables.quotes import Quotes, instant, micros, quotes


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


def compose_edition(sources: Sources, date: dt.date, previous: dt.date | None,
                    parts: Parts | None = None) -> Edition:
    """Return the edition of `date`: its window's entries, by section, in the series' order.

    `parts`: the computed parts of the editions being composed (see `Parts`)."""
    parts = parts if parts is not None else Parts(sources, [date])
    series = sources.series
    chosen = parts.entries_in(date, previous)
    computed = parts.computed(date, previous)
    curated_urls = {str(link.url) for c in chosen for link in c.entry.links if link.url}
    sections = []
    for section in series.sections:
        curated = [(c, curated_item(c)) for c in chosen if c.entry.section == section.id]
        items = [item for _, item in curated]
        if section.id in ("top", "local") and len(items) < section.quota:
            items += [dataclasses.replace(i, lane="feeds") for i in parts.feed_items(
                date, previous, local=section.id == "local", limit=section.quota - len(items),
                exclude_urls=curated_urls)]
        if section.id == "radar":
            items = radar_section(curated, computed.get("radar", []),
                                  series.edition_dates(date), date)
        else:
            items += computed.get(section.id, [])
        # A story quoting a round the site leaves out of its figures says so beside them.
        items = [noted(i, sources.hardware_rows, date) for i in items[: section.quota]]
        sections.append(SectionContent(section.id, section.title, tuple(items)))
    corrections = tuple((x.date, c.id, x.note) for c in chosen for x in c.entry.corrections)
    corrections += figure_corrections(sources.printed, date)
    return Edition(date=date, title=series.edition_title(date), previous=previous,
                   sections=tuple(sections), corrections=corrections,
                   sources=numbered_sources(sections))


LaneItems = tuple[list[Item], list[Item]]
"""What a lane contributes to an edition: (Context & numbers items, On the radar items)."""


class Parts:
    """The parts of editions computed from data: price, hardware and feed items, and each
    edition's chart spec, one method each, so a caller can reuse a part it has computed before
    (orchestrate/parts.py does, between builds). The indexes they share are built once, when first
    needed."""

    def __init__(self, sources: Sources, dates: Iterable[dt.date] = ()) -> None:
        self.sources = sources
        # The edition dates being composed: blended prices are computed for all of them at
        # once, when first needed.
        self._days = sorted(dates)
        self._quotes: Quotes | None = None
        self._moves: Moves | None = None
        self.moved_days: set[dt.date] | None = None
        """The edition dates whose price moves to compute in the first pass (None: all); a
        build that reuses the other editions' parts names the ones it will compose."""
        days = [c.entry.date for c in sources.entries]
        # Loaded entries are sorted by date; then a window is a slice (bisect), not a scan.
        self._entry_days = days if days == sorted(days) else None
        self._hardware_index: FigureIndex | None = None
        self._feed_index: FeedItems | None = None
        self._catalogue_changes: pd.DataFrame | None = None
        self._curated_since: dict[tuple[str, str], dt.date] | None = None

    def quotes(self, *dates: dt.date) -> Quotes:
        """Return the blended prices at the end of each edition date and of the week before the
        first (its window's start), computed once; `dates` outside them are added."""
        s = self.sources
        if self._quotes is None or any(micros(day_end(d)) not in self._quotes.instants
                                       for d in dates):
            self._days = sorted({*self._days, *dates})
            first = self._days[0] - FIRST_EDITION_LOOKBACK
            self._quotes = quotes(s.prices, s.rates, s.series.profiles,
                                  [day_end(d) for d in [first, *self._days]])
        return self._quotes

    def moves(self, start: dt.date, date: dt.date) -> Moves:
        """Return the price moves of the window from the end of `start` to the end of `date`,
        computed once for the windows of all the edition dates (each from the edition before,
        the first from a week before it); a window outside them is added."""
        pair = (day_end(start), day_end(date))
        if self._moves is None or (micros(pair[0]), micros(pair[1])) not in self._moves.pairs:
            days, wanted = self._days, self.moved_days
            starts = [days[0] - FIRST_EDITION_LOOKBACK, *days[:-1]]
            pairs = {pair, *((day_end(a), day_end(b)) for a, b in zip(starts, days)
                             if wanted is None or b in wanted)}
            if self._moves is not None:
                pairs |= {(instant(a), instant(b)) for a, b in self._moves.pairs}
            self._moves = meter_moves({k: v.model for k, v in self.sources.prices.items()},
                                      pairs)
        return self._moves

    def cheapest_spec(self, date: dt.date, previous: dt.date | None) -> ChartSpec:
        """Return the spec of the chart of an edition (the most tokens per dollar as of its
        date, for the first profile, with the moves of its window (previous, date])."""
        s = self.sources
        start = previous if previous is not None else date - FIRST_EDITION_LOOKBACK
        return cheapest_chart_spec(s.prices, s.rates, s.series.profiles[0], date, start,
                                   table=self.quotes(start, date),
                                   window=since_words(date, previous, FIRST_EDITION_LOOKBACK),
                                   list_moves=self.list_moves(date, previous))

    def list_moves(self, date: dt.date, previous: dt.date | None) -> list[ListMove]:
        """Return the price moves of the window (previous, date] in lists no blend quotes
        (compose/list_moves.py), which the edition's chart marks as its figures do."""
        s = self.sources
        start = previous if previous is not None else date - FIRST_EDITION_LOOKBACK
        moved = self.moves(start, date).between(day_end(start), day_end(date))
        return window_list_moves(s.prices, s.rates,
                                 [(m.provider, m.currency, m.record) for m in moved])

    def prices(self, date: dt.date, previous: dt.date | None) -> LaneItems:
        """Return the price figures and radar items of the window (previous, date]."""
        s = self.sources
        start = previous if previous is not None else date - FIRST_EDITION_LOOKBACK
        return (price_figures(s.prices, s.rates, s.series.profiles, date, previous,
                              self.quotes(start, date), self.moves(start, date)),
                price_radar(s.prices, date))

    def hardware(self, date: dt.date, previous: dt.date | None) -> LaneItems:
        """Return the hardware figures and radar items of the window (previous, date]."""
        s, hw = self.sources, self.sources.hardware
        return (hardware_figures(hw, self.hardware_index(), date, previous,
                                 usd_at_ecb_rates(s.rates)),
                hardware_radar(hw, date))

    def catalogue_changes(self) -> pd.DataFrame:
        """Return every move of the published catalogues' histories, computed once."""
        if self._catalogue_changes is None:
            s = self.sources
            self._catalogue_changes = catalogue_changes(
                {c.id: s.price_histories[c.id] for c in s.published_catalogues()},
                {c: h.whole_since for c, h in s.catalogue_health.items()})
        return self._catalogue_changes

    def catalogue_window(self, date: dt.date, previous: dt.date | None) -> pd.DataFrame:
        """Return the catalogue moves of the window (previous, date], without the models a
        curated file priced by `date`."""
        start = previous if previous is not None else date - FIRST_EDITION_LOOKBACK
        # Curated as of the edition: a model added to a curated file later leaves the past
        # editions' figures as they were.
        if self._curated_since is None:
            self._curated_since = curated_since(self.sources)
        moves = window_moves(self.catalogue_changes(), day_end(start), day_end(date))
        return without_models(moves, {p for p, d in self._curated_since.items() if d <= date})

    def catalogues(self, date: dt.date, previous: dt.date | None,
                   moves: pd.DataFrame | None = None) -> list[Item]:
        """Return the figures of the catalogue moves of the window (previous, date];
        `moves`: that window's moves, when the caller has them."""
        start = previous if previous is not None else date - FIRST_EDITION_LOOKBACK
        moves = moves if moves is not None else self.catalogue_window(date, previous)
        return list(catalogue_figures(moves, self.sources.published_catalogues(), start))

    def computed(self, date: dt.date, previous: dt.date | None) -> dict[str, list[Item]]:
        """Return the items computed from data (not written by editors), by section id."""
        s = self.sources
        items: dict[str, list[Item]] = {"numbers": [], "radar": []}
        lanes: list[tuple[str, LaneItems]] = []
        if s.prices and s.rates is not None:
            lanes.append(("prices", self.prices(date, previous)))
        if s.published_catalogues():
            lanes.append(("catalogues", (self.catalogues(date, previous), [])))
        if s.hardware is not None:
            lanes.append(("hardware", self.hardware(date, previous)))
        # Each item says its lane, which the per-topic feeds select by (compose/topics.py).
        for lane, (numbers, radar) in lanes:
            items["numbers"] += [dataclasses.replace(i, lane=lane) for i in numbers]
            items["radar"] += [dataclasses.replace(i, lane=lane) for i in radar]
        return items

    def entries_in(self, date: dt.date, previous: dt.date | None) -> list[CuratedEntry]:
        """Return the curated entries of the window (previous, date], in the sources' order."""
        entries, days = self.sources.entries, self._entry_days
        if days is None:
            return [c for c in entries if in_window(c.entry.date, previous, date)]
        start = 0 if previous is None else bisect.bisect_right(days, previous)
        return entries[start:bisect.bisect_right(days, date)]

    def hardware_index(self) -> FigureIndex:
        """Return the hardware rows indexed for figures, built once, when first needed."""
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
        return list(feed_stories(
            feeds.feeds, self.sources.snapshots, feeds.topics, date, previous, local=local,
            limit=limit, exclude_urls=exclude_urls, index=self.feed_index()))

    def feed_index(self) -> FeedItems | None:
        """Return the feed items by day, built once, when first needed (one pass over them
        for all the windows)."""
        if self._feed_index is None and self.sources.feeds is not None:
            self._feed_index = feed_items(self.sources.feeds.feeds, self.sources.snapshots)
        return self._feed_index


def curated_since(sources: Sources) -> dict[tuple[str, str], dt.date]:
    """Return the (provider, case-folded model) pairs a curated provider file prices, each with
    the first day one of its records was in force or announced: from then on a catalogue's
    price of it is not the site's. Case-folded, as catalogues spell ids both ways (`GLM-5.2`)."""
    since: dict[tuple[str, str], dt.date] = {}
    for provider, sourced in sources.prices.items():
        for plist in sourced.model.lists:
            for r in plist.records:
                pair, day = (provider, r.model.casefold()), min(r.from_.date(), r.checked)
                since[pair] = min(day, since.get(pair, day))
    return since


def curated_models(sources: Sources, by: dt.date | None = None) -> set[tuple[str, str]]:
    """Return the pairs of `curated_since` priced by `by` (all of them without it)."""
    return {pair for pair, day in curated_since(sources).items() if by is None or day <= by}


def numbered_sources(sections: Iterable[SectionContent]) -> tuple[Citation, ...]:
    """Return every source the sections cite, once each, in order of first use."""
    seen: dict[str, Citation] = {}
    for section in sections:
        for item in section.items:
            for cite in item.citations:
                seen.setdefault(cite.key, cite)
    return tuple(seen.values())


def compose_editions(sources: Sources, dates: list[dt.date],
                     parts: Parts | None = None) -> list[Edition]:
    """Return every edition of `dates` (sorted), each with its window; `parts` computes their
    parts (a fresh `Parts` of the sources when not given)."""
    parts = parts if parts is not None else Parts(sources, dates)
    editions = []
    previous = None
    for date in sorted(dates):
        editions.append(compose_edition(sources, date, previous, parts))
        previous = date
    return editions
