"""The Prices family kept between builds: the full price tables (by the digest of every record
and rate) and the drawings of the two charts that rarely change (by the numbers they plot); the
page's value is composed in compose/prices_page.py and rendered by render/prices_page.py."""

from __future__ import annotations

import datetime as dt
from functools import partial

from pipeline.cache.keys import InputDigests
from pipeline.cache.store import Store
from pipeline.compose.edition_tables import EditionTables
from pipeline.compose.prices_page import PricesPage, prices_page
from pipeline.models.sources import Sources
from pipeline.render import prices_page as render
from pipeline.render.chart_image import IN_PROCESS, ChartDrawer, ChartImage
from pipeline.tables.prices import price_table, prices_csv, prices_json
from pipeline.tables.quotes import Quotes


def prices_of(sources: Sources, dates: list[dt.date], quotes: Quotes) -> PricesPage | None:
    """Return the Prices page's value as of the newest of `dates` (compose/prices_page.py)."""
    return prices_page(sources.prices, sources.rates, sources.series.profiles, dates,
                       str(sources.series.source_url), quotes)


def price_files(sources: Sources, dates: list[dt.date], store: Store | None = None,
                quotes: Quotes | None = None, keys: InputDigests | None = None,
                drawer: ChartDrawer = IN_PROCESS) -> dict[str, str | bytes | ChartImage]:
    """Return the Prices page, its charts and the price data files, as of the newest edition;
    `quotes` and `keys`, the editions' table and what its parts read, when already computed
    (compose.parts.EditionTables)."""
    if not sources.prices or sources.rates is None:
        return kept_price_files(None, Store(None, {}), None)
    if quotes is None or keys is None:
        parts = EditionTables(sources, dates)
        quotes = quotes if quotes is not None else parts.quotes(*dates)
        keys = keys if keys is not None else InputDigests(sources, dates, parts)
    return kept_price_files(prices_of(sources, dates, quotes),
                            store if store is not None else Store(None, {}), keys, drawer)


def kept_price_files(page: PricesPage | None, store: Store, keys: InputDigests | None,
                     drawer: ChartDrawer = IN_PROCESS) -> dict[str, str | bytes | ChartImage]:
    """Return the files of `page`: the full price tables do not depend on the editions, so
    `store` keeps them by the digest of every price record and rate (`keys.prices`), and the
    drawings of two of the charts by what they plot (a frozen value whose repr holds every
    number, label and date drawn). `drawer` draws the charts (orchestrate/chart_workers.py)."""
    if page is None or keys is None:
        return {"prices.md": "# Prices\n\nNo price histories in this repository.\n"}

    def tables() -> dict[str, bytes]:
        table = price_table(page.files, page.rates)
        return {"data/prices.csv": prices_csv(table), "data/prices.json": prices_json(table)}

    kept = {path: store.cached("charts", partial(drawer.submit, render.svg, chart),
                               ("prices-chart", chart), by=render.svg)
            for path, chart in render.kept_charts(page).items()}
    return {**store.cached("render", tables, ("price-tables", keys.prices)),
            **render.prices_files(page, kept, drawer)}
