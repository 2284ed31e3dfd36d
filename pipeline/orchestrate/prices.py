"""The Prices page's files, with what an earlier build computed of them reused: the full price
tables (by the digest of every record and rate) and the drawings of the two charts that rarely
change (by the numbers they plot)."""

from __future__ import annotations

import datetime as dt
from functools import partial

from pipeline.cache.keys import LaneKeys
from pipeline.cache.store import Store
from pipeline.compose.parts import Parts
from pipeline.compose.prices_page import (
    cheapest,
    current_tables,
    hour_of_week,
    price_history,
)
from pipeline.models.sources import Sources
from pipeline.render import prices_page
from pipeline.render.drawing import NOW, Drawing, Draws
from pipeline.tables.frames import csv_bytes
from pipeline.tables.prices import price_table, prices_csv, prices_json
from pipeline.tables.quotes import BLENDED_COLUMNS, Quotes


def price_files(sources: Sources, dates: list[dt.date], store: Store | None = None,
                quotes: Quotes | None = None, keys: LaneKeys | None = None,
                drawer: Draws = NOW) -> dict[str, str | bytes | Drawing]:
    """Return the Prices page, its charts and the price data files, as of the newest edition.

    The full price tables do not depend on the editions: `store` keeps them by the digest of
    every price record and rate (`keys.prices`), and the drawings of two of the charts by
    what they plot (a frozen value whose repr holds every number, label and date drawn). The
    blended prices come from `quotes`, the editions' table (compose.parts.Parts.quotes).
    `drawer` draws the charts (orchestrate/drawer.py)."""
    store = store if store is not None else Store(None, {})
    if not sources.prices or sources.rates is None:
        return {"prices.md": "# Prices\n\nNo price histories in this repository.\n"}

    files, rates, profiles = sources.prices, sources.rates, sources.series.profiles
    as_of = max(dates)
    monday = as_of - dt.timedelta(days=as_of.weekday())
    if quotes is None or keys is None:
        parts = Parts(sources, dates)
        quotes = quotes if quotes is not None else parts.quotes(*dates)
        keys = keys if keys is not None else LaneKeys(sources, dates, parts)

    def tables() -> dict[str, bytes]:
        table = price_table(files, rates)
        return {"data/prices.csv": prices_csv(table), "data/prices.json": prices_json(table)}

    blended = quotes.blended_rows(dates)
    current = current_tables(files, rates, profiles, as_of, quotes)
    # Drawn only when what they plot changed: the hour-of-week chart reads the windowed prices of
    # the week (the same from week to week but for DST), the cheapest one the rows in force.
    reused = {
        "charts/hour-of-week.svg": hour_of_week(files, monday),
        "charts/cheapest.svg": cheapest(files, rates, profiles, as_of, current=current),
    }
    # The price history runs to the newest edition, so it is drawn every time.
    history = price_history(files, rates, profiles[0], as_of)
    return {
        **store.cached("render", tables, ("price-tables", keys.prices)),
        "prices.md": prices_page.prices_page_md(files, rates, profiles, as_of, current,
                                                str(sources.series.source_url),
                                                {**reused, prices_page.HISTORY_SVG: history}),
        "charts/price-history.svg": drawer.submit(prices_page.svg, history),
        prices_page.HISTORY_CSV: prices_page.history_csv(history),
        **{path: store.cached("charts", partial(drawer.submit, prices_page.svg, chart),
                              ("prices-chart", chart))
           for path, chart in reused.items()},
        "data/blended.csv": csv_bytes(blended, BLENDED_COLUMNS),
    }
