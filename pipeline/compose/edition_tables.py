"""Pure: the tables the computed parts of editions read, and those parts, one method each.

Blended prices, price moves, the hardware and feed indexes and the catalogue moves are built once
for all the editions being composed, when first needed; each lane's items (compose/lanes.py),
the feed stories and each edition's chart spec are computed from them for one window.
"""

from __future__ import annotations

import bisect
import datetime as dt
from collections.abc import Iterable
from dataclasses import dataclass

import pandas as pd

from pipeline.compose.catalogue_moves import catalogue_figures, window_moves, without_models
from pipeline.compose.charts import ChartSpec
from pipeline.compose.economics import Economics, cost_table, economics_figures, market_economics
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
from pipeline.compose.rank import FeedItems, feed_items, feed_stories
from pipeline.compose.types import Item, in_window
from pipeline.models.catalogues import Catalogue
from pipeline.models.sourced import CuratedEntry
from pipeline.models.sources import Sources
from pipeline.tables.catalogue_history import catalogue_changes
from pipeline.tables.catalogue_records import committed_moves
from pipeline.tables.cost import day_end
from pipeline.tables.hardware import usd_at_ecb_rates
from pipeline.tables.market import market_table_of
from pipeline.tables.moves import Moves, meter_moves
from pipeline.tables.quotes import Quotes, instant, micros, quotes
from pipeline.tables.round_quotes import ByValue, by_value

LaneItems = tuple[list[Item], list[Item]]
"""What a lane contributes to an edition: (Context & numbers items, On the radar items)."""


@dataclass(frozen=True)
class FeedAsk:
    """Feed stories wanted to fill Top developments or Local view, where the curated entries
    of an edition are fewer than the section's quota."""

    local: bool
    limit: int
    exclude_urls: frozenset[str]


class EditionTables:
    """The tables the parts of editions are computed from (blended prices, price moves, the
    hardware and feed indexes, the catalogue moves), each built once, when first needed, and
    the parts themselves: each lane's items (compose/lanes.py), feed stories and each edition's
    chart spec, one method each, so a caller can reuse a part it computed before."""

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
        self._entry_days: list[dt.date] | None = None
        self._hardware_index: FigureIndex | None = None
        self._feed_index: FeedItems | None = None
        self._catalogue_changes: pd.DataFrame | None = None
        self._committed_changes: pd.DataFrame | None = None
        self._curated_since: dict[tuple[str, str], dt.date] | None = None
        self._catalogue_windows: dict[tuple[dt.date, dt.date | None], pd.DataFrame] = {}
        self._by_value: ByValue | None = None
        self._editions = sorted(dates)
        """The edition dates, as given: the price index's grid holds them (not the dates
        `quotes` adds)."""
        self._economics: Economics | None = None
        self._economics_done = False
        self._costs: dict[dt.date, pd.DataFrame] = {}
        self._markets: dict[dt.date, pd.DataFrame | None] = {}

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

    def market_economics(self) -> Economics | None:
        """Return the price index over the editions' grid (compose/economics.py), built once."""
        if not self._economics_done:
            self._economics = market_economics(self.sources, self._editions)
            self._economics_done = True
        return self._economics

    def cost_table(self, date: dt.date) -> pd.DataFrame:
        """Return the cost to serve beside the price as of `date`, computed once a date."""
        if date not in self._costs:
            self._costs[date] = cost_table(self.sources, self.market_economics(), date)
        return self._costs[date]

    def economics(self, date: dt.date, previous: dt.date | None) -> LaneItems:
        """Return the same-model index and cost-to-serve figures of the edition of `date`."""
        return economics_figures(self.sources, self.market_economics(), date, previous,
                                 self.cost_table), []

    def market_table(self, as_of: dt.date) -> pd.DataFrame | None:
        """Return the Market's table as of the end of `as_of` (tables/market.market_table_of),
        computed once a date: the Market and the providers' pages show the same rows."""
        if as_of not in self._markets:
            self._markets[as_of] = market_table_of(self.sources, as_of)
        return self._markets[as_of]

    def catalogue_changes(self) -> pd.DataFrame:
        """Return every move of the published catalogues' histories, computed once."""
        if self._catalogue_changes is None:
            s = self.sources
            self._catalogue_changes = catalogue_changes(
                {c.id: s.price_histories[c.id] for c in s.published_catalogues()},
                {c: h.whole_since for c, h in s.catalogue_health.items()})
        return self._catalogue_changes

    def committed_changes(self) -> pd.DataFrame:
        """Return every move of the published catalogues with the commit that made it
        (tables/catalogue_records.committed_moves), computed once: data/changes.csv, the Market's
        and the Changes pages read it."""
        if self._committed_changes is None:
            self._committed_changes = committed_moves(self.catalogue_changes(),
                                                      self.sources.catalogue_commits)
        return self._committed_changes

    def catalogue_window(self, date: dt.date, previous: dt.date | None) -> pd.DataFrame:
        """Return the catalogue moves of the window (previous, date], without the models a
        curated file priced by `date` (computed once a window)."""
        window = self._catalogue_windows.get((date, previous))
        if window is not None:
            return window
        start = previous if previous is not None else date - FIRST_EDITION_LOOKBACK
        # Curated as of the edition: a model added to a curated file later leaves the past
        # editions' figures as they were.
        if self._curated_since is None:
            self._curated_since = curated_since(self.sources)
        moves = window_moves(self.catalogue_changes(), day_end(start), day_end(date))
        window = without_models(moves, {p for p, d in self._curated_since.items() if d <= date})
        self._catalogue_windows[(date, previous)] = window
        return window

    def catalogues(self, date: dt.date, previous: dt.date | None) -> LaneItems:
        """Return the figures of the catalogue moves of the window (previous, date]."""
        moves = self.catalogue_window(date, previous)
        window = since_words(date, previous, FIRST_EDITION_LOOKBACK)
        return list(catalogue_figures(moves, self.sources.published_catalogues(), window)), []

    def entries_in(self, date: dt.date, previous: dt.date | None) -> list[CuratedEntry]:
        """Return the curated entries of the window (previous, date], in the sources' order."""
        entries = self.sources.entries
        if self._entry_days is None:
            # Loaded entries are sorted by date; then a window is a slice (bisect), not a scan.
            days = [c.entry.date for c in entries]
            self._entry_days = days if days == sorted(days) else []
        days = self._entry_days
        if not days:
            return [c for c in entries if in_window(c.entry.date, previous, date)]
        start = 0 if previous is None else bisect.bisect_right(days, previous)
        return entries[start:bisect.bisect_right(days, date)]

    def results_by_value(self) -> ByValue:
        """Return the hardware results by value, built once (tables.round_quotes.by_value)."""
        if self._by_value is None:
            self._by_value = by_value(self.sources.hardware_rows)
        return self._by_value

    def hardware_index(self) -> FigureIndex:
        """Return the hardware rows indexed for figures, built once, when first needed."""
        if self._hardware_index is None:
            self._hardware_index = figure_index(self.sources.hardware_rows)
        return self._hardware_index

    def feed_items(self, date: dt.date, previous: dt.date | None, ask: FeedAsk) -> list[Item]:
        """Return the ranked feed stories an edition of the window (previous, date] asks for
        (none when there are no feeds)."""
        feeds = self.sources.feeds
        if feeds is None:
            return []
        return list(feed_stories(
            feeds.feeds, self.sources.snapshots, feeds.topics, date, previous, local=ask.local,
            limit=ask.limit, exclude_urls=set(ask.exclude_urls), index=self.feed_index()))

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


@dataclass(frozen=True)
class ChangesPages:
    """What the Changes pages show as of an edition (render/changes_page.changes_files)."""

    moves: pd.DataFrame
    """Every move with its commit (EditionTables.committed_changes)."""
    catalogues: list[Catalogue]
    """The published catalogues, each page in the navigation written even when it has none."""
    curated: set[tuple[str, str]]
    """The (provider, case-folded model) pairs a curated file prices by the edition, marked."""


def changes_pages(sources: Sources, moves: pd.DataFrame, as_of: dt.date) -> ChangesPages:
    """Return what the Changes pages show as of `as_of`: `moves` (EditionTables.committed_changes),
    the published catalogues and the models curated by then."""
    return ChangesPages(moves, sources.published_catalogues(), curated_models(sources, as_of))
