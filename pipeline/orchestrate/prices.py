"""The Prices page's files, with what an earlier build computed of them reused: the full price
tables (by the digest of every record and rate) and the drawings of the two charts that rarely
change (by the numbers they plot)."""

from __future__ import annotations

import datetime as dt
import hashlib

from pipeline.cache.keys import ModelDigests, price_keys
from pipeline.cache.memo import Memo
from pipeline.compose.prices_page import (
    PricesChart,
    cheapest,
    current_tables,
    hour_of_week,
    price_history,
)
from pipeline.models.sources import Sources
from pipeline.orchestrate.parts import ReusedParts
from pipeline.render import prices_page
from pipeline.render.drawing import NOW, Drawing, Draws
from pipeline.tables.cost import day_end
from pipeline.tables.frames import csv_bytes
from pipeline.tables.prices import price_table, prices_csv, prices_json
from pipeline.tables.quotes import BLENDED_COLUMNS, quotes


def price_files(sources: Sources, dates: list[dt.date], memo: Memo | None = None,
                parts: ReusedParts | None = None, drawer: Draws = NOW,
                code: tuple[str, str] = ("", "")) -> dict[str, str | bytes | Drawing]:
    """Return the Prices page, its charts and the price data files, as of the newest edition.

    The full price tables do not depend on the editions: `memo` keeps them by the digest of
    every price record and rate (`parts.prices_key`), and the drawings of two of the charts by
    the digest of the numbers they plot (`prices_chart_key`). The blended prices come from the
    parts' table (compose.edition.Parts.quotes). `drawer` draws the charts (orchestrate/drawer.py);
    `code` holds the digests of the rendering and of the drawing code (cache/code.py)."""
    memo = memo if memo is not None else Memo()
    if not sources.prices or sources.rates is None:
        return {"prices.md": "# Prices\n\nNo price histories in this repository.\n"}

    files, rates, profiles = sources.prices, sources.rates, sources.series.profiles
    as_of = max(dates)
    monday = as_of - dt.timedelta(days=as_of.weekday())
    render_code, chart_code = code
    json = parts.json if parts else ModelDigests(sources)
    every = parts.prices_key if parts else price_keys(sources, [dt.date.max], "", json)[0]

    def tables() -> dict[str, bytes]:
        table = price_table(files, rates)
        return {"data/prices.csv": prices_csv(table), "data/prices.json": prices_json(table)}

    table = (parts.quotes(*dates) if parts
             else quotes(files, rates, profiles, [day_end(d) for d in dates]))
    blended = table.blended_rows(dates)
    current = current_tables(files, rates, profiles, as_of, table)
    # Drawn only when what they plot changed: the hour-of-week chart reads the windowed prices of
    # the week (the same from week to week but for DST), the cheapest one the rows in force.
    reused = {
        "charts/hour-of-week.svg": hour_of_week(files, monday),
        "charts/cheapest.svg": cheapest(files, rates, profiles, as_of, current=current),
    }
    # The price history runs to the newest edition, so it is drawn every time; kept in `memo`
    # it would change the memo, whose file (~170 MB at year scale) is then rewritten.
    history = price_history(files, rates, profiles[0], as_of)
    return {
        **memo.get(f"price-tables {every} {render_code}", tables),
        "prices.md": prices_page.prices_page_md(files, rates, profiles, as_of, current,
                                                str(sources.series.source_url),
                                                {**reused, prices_page.HISTORY_SVG: history}),
        "charts/price-history.svg": drawer.submit(prices_page.svg, history),
        prices_page.HISTORY_CSV: prices_page.history_csv(history),
        **{path: memo.get(prices_chart_key(chart, chart_code),
                          lambda c=chart: drawer.submit(prices_page.svg, c))
           for path, chart in reused.items()},
        "data/blended.csv": csv_bytes(blended, BLENDED_COLUMNS),
    }


def prices_chart_key(chart: PricesChart, code: str) -> str:
    """Return the digest of what a Prices-page chart plots (a frozen value whose repr holds every
    number, label and date drawn) and of the code and library versions that draw it."""
    return "prices-chart " + hashlib.sha256(f"{code}\0{chart!r}".encode()).hexdigest()
