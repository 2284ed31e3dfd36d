"""The computed parts of editions, reused from an earlier build when what they read is unchanged.

Each part (an edition's price items, hardware items, feed stories, chart spec) is computed by
compose.edition.Parts; here each is looked up first in the memo of the last build under its key,
the digest of exactly what it reads (keys.py), so a reused part is the part a fresh computation
would give, and one new edition does not recompose a year of them (issue 8).
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Callable

import pandas as pd

from pipeline.cache import keys
from pipeline.cache.memo import Memo
from pipeline.compose.charts import ChartSpec
from pipeline.compose.edition import LaneItems, Parts
from pipeline.compose.types import Item
from pipeline.models.sources import Sources


class ReusedParts(Parts):
    """Parts, each from `memo` when its key is there; `memo.used` ends up with the parts of this
    composition, for the build to keep for the next one. `code` is the digest of the package's
    code, part of every key."""

    def __init__(self, sources: Sources, dates: list[dt.date], memo: Memo, code: str,
                 json: keys.ModelDigests | None = None,
                 file_key: Callable[[str], str | None] = lambda name: None) -> None:
        super().__init__(sources, dates)
        self.memo, self.code = memo, code
        self.json = json or keys.ModelDigests(sources)
        """The JSON of each record and item, what keys digest them by."""
        # One more date, after every other: the key of all price records, for the price tables.
        price_keys = keys.price_keys(sources, [*dates, dt.date.max], code, self.json) if (
            sources.prices and sources.rates is not None) else []
        self._price_keys = dict(zip(dates, price_keys))
        self.prices_key = price_keys[-1] if price_keys else ""
        """The digest of every price record and the rates they use."""
        self.hardware_key = (keys.hardware_key(sources, code, file_key)
                             if sources.hardware is not None else "")
        """The digest of every hardware source and the rates they use."""
        self._feeds_by_day = keys.feed_items_by_day(sources, self.json) if sources.feeds else ([], [], "")
        # Only the editions whose price part is not kept need their price moves: one new
        # edition then computes its own window's, not a year of them.
        days = sorted(dates)
        self.moved_days = {d for d, previous in zip(days, [None, *days[:-1]])
                           if f"{self._price_keys.get(d)} {previous}" not in memo.known}
        self._windows: dict[tuple[dt.date, dt.date | None], str] = {}
        self._changes_hashes: pd.Series | None = None

    def cheapest_spec(self, date: dt.date, previous: dt.date | None) -> ChartSpec:
        # It reads what the edition's price part reads.
        return self.memo.get(f"{self._price_keys[date]} {previous} chart",
                             lambda: super(ReusedParts, self).cheapest_spec(date, previous))

    def prices(self, date: dt.date, previous: dt.date | None) -> LaneItems:
        return self.memo.get(f"{self._price_keys[date]} {previous}",
                             lambda: super(ReusedParts, self).prices(date, previous))

    def catalogues(self, date: dt.date, previous: dt.date | None,
                   moves: pd.DataFrame | None = None) -> list[Item]:
        # It reads the window's moves (what is left after the curated models) and how the
        # catalogues are named: a snapshot outside the window leaves the figure as it was.
        moves = moves if moves is not None else self.catalogue_window(date, previous)
        named = [(c.id, c.name, str(c.page)) for c in self.sources.published_catalogues()]
        key = keys.catalogue_key(self._moves_hashes(moves), list(moves.columns), named, date,
                                 previous, self.code)
        return self.memo.get(key, lambda: super(ReusedParts, self).catalogues(date, previous,
                                                                              moves))

    def _moves_hashes(self, moves: pd.DataFrame) -> pd.Series:
        """Return pandas' hash of each row of a window's `moves`, a part of catalogue_changes()
        with its index: the rows of the whole table hashed once a build, where each of a year's
        windows hashed its own (a row's hash depends on that row alone)."""
        if self._changes_hashes is None:
            self._changes_hashes = pd.util.hash_pandas_object(self.catalogue_changes(),
                                                              index=False)
        return self._changes_hashes.loc[moves.index]

    def hardware(self, date: dt.date, previous: dt.date | None) -> LaneItems:
        return self.memo.get(f"{self.hardware_key} {date} {previous}",
                             lambda: super(ReusedParts, self).hardware(date, previous))

    def feed_items(self, date: dt.date, previous: dt.date | None, *, local: bool, limit: int,
                   exclude_urls: set[str]) -> list[Item]:
        if self.sources.feeds is None:
            return []
        window = self._windows.get((date, previous))
        if window is None:  # asked for twice an edition (top and local): digest it once
            window = keys.feed_window_key(self.sources, date, previous, self.code,
                                          self._feeds_by_day)
            self._windows[(date, previous)] = window
        key = f"{window} {local} {limit} {sorted(exclude_urls)!r}"
        return self.memo.get(key, lambda: super(ReusedParts, self).feed_items(
            date, previous, local=local, limit=limit, exclude_urls=exclude_urls))
