"""The editions' computed parts, each from the store when what it reads is unchanged.

Each lane's items, the feed stories an edition asks for and its chart spec are computed from the
editions' tables (compose/edition_tables.py) under the digest of exactly what they read (cache/keys.py
InputDigests), so a reused part is the part a fresh computation would give, and one new edition does
not recompose a year of them.
"""

from __future__ import annotations

import datetime as dt
from functools import partial

from pipeline.cache.keys import InputDigests
from pipeline.cache.store import Store
from pipeline.compose.charts import ChartSpec
from pipeline.compose.edition import EditionInputs, feed_asks, windows
from pipeline.compose.edition_tables import EditionTables
from pipeline.compose.lanes import present_lanes


def edition_inputs(parts: EditionTables, dates: list[dt.date], store: Store,
                   keys: InputDigests, only: dt.date | None = None) -> dict[dt.date, EditionInputs]:
    """Return what each edition of `dates` is made of, by date (`only`: that edition's alone)."""
    spans = [(d, p) for d, p in windows(dates) if only in (None, d)]
    lanes = present_lanes(parts.sources)
    for prices in (lane for lane in lanes if lane.name == "prices"):
        # Only the editions whose price items are not kept need their price moves: one new
        # edition then computes its own window's, not a year of them.
        parts.moved_days = {d for d, p in spans
                            if not store.has("compose", keys.lane(prices, d, p), by=prices.items)}
    inputs = {}
    for date, previous in spans:
        entries = parts.entries_in(date, previous)
        inputs[date] = EditionInputs(
            entries,
            {lane.name: store.cached("compose", partial(lane.items, parts, date, previous),
                                     keys.lane(lane, date, previous)) for lane in lanes},
            {ask: store.cached("compose", partial(parts.feed_items, date, previous, ask),
                               keys.feeds(date, previous, ask))
             for ask in feed_asks(parts.sources, entries)},
            parts.results_by_value())
    return inputs


def chart_spec(parts: EditionTables, store: Store, keys: InputDigests, date: dt.date,
               previous: dt.date | None) -> ChartSpec:
    """Return the spec of an edition's chart (EditionTables.cheapest_spec), kept in the store."""
    return store.cached("compose", partial(parts.cheapest_spec, date, previous),
                        keys.chart(date, previous))
