"""Pure: the Market page, every model with a token price as of the newest edition, and its data
files.

The table is HTML written here (every cell escaped: catalogue text is third-party), sorted by
output price, so it reads without JavaScript; `assets/market.js` adds sorting by any column and
filtering by provider and text. Numbers carry their exact value in `data-value` for sorting.
"""

from __future__ import annotations

import datetime as dt
import html
import math

import pandas as pd

from pipeline.compose.sources import Sources
from pipeline.models.links import is_allowed_link
from pipeline.tables.catalogue_history import CHANGE_COLUMNS, history_changes
from pipeline.tables.catalogue_history import COLUMNS as PERIOD_COLUMNS
from pipeline.tables.frames import csv_bytes, json_bytes, records
from pipeline.tables.market import COLUMNS, catalogue_rows, curated_rows, market_table

HISTORY_COLUMNS = ("catalogue", *PERIOD_COLUMNS)
"""The columns of `data/price-history.csv`: every period of every published catalogue."""
SHOWN = (("provider", "Provider", False), ("model", "Model", False),
         ("input_usd_per_mtok", "Input", True), ("cached_input_usd_per_mtok", "Cached input", True),
         ("cache_write_usd_per_mtok", "Cache write", True),
         ("output_usd_per_mtok", "Output", True),
         ("batch_output_usd_per_mtok", "Batch output", True),
         ("currency", "List", False), ("source", "Source", False),
         ("last_change", "Since", False))


def _price(value: float) -> str:
    if value is None or (isinstance(value, float) and math.isnan(value)):
        return '<td data-value=""></td>'
    text = "free" if value == 0 else (f"{value:.4g}" if value < 0.1 else f"{value:,.2f}")
    return f'<td data-value="{value!r}">{text}</td>'


def market_page_md(table: pd.DataFrame, as_of: dt.date) -> str:
    """Return the Market page: a count, how to read it, the filters and the table."""
    providers = sorted(set(table["provider"]))
    free = int(table["free"].sum())
    head = "".join(f'<th scope="col" data-kind="{"number" if number else "text"}">'
                   f'<button type="button">{html.escape(title)}</button></th>'
                   for _, title, number in SHOWN)
    rows = []
    for row in table.itertuples(index=False):
        cells = []
        for column, _, number in SHOWN:
            value = getattr(row, column)
            if number:
                cells.append(_price(value))
            elif column == "source":
                # Raw HTML is not in the tree the SafeLinks guard walks: checked here.
                href = str(row.source_url)
                text = html.escape(str(value))
                cells.append(f'<td><a href="{html.escape(href)}">{text}</a></td>'
                             if is_allowed_link(href) else f"<td>{text}</td>")
            else:
                cells.append(f"<td>{html.escape(str(value))}</td>")
        rows.append(f'<tr data-provider="{html.escape(row.provider)}">{"".join(cells)}</tr>')
    options = "".join(f'<option value="{html.escape(p)}">{html.escape(p)}</option>'
                      for p in providers)
    return "\n".join([
        "---", "search:", "  exclude: true", "---", "",
        "# Market: every model with a token price", "",
        (f"{len(table):,} models from {len(providers)} providers as of {as_of.isoformat()}, in "
         "US dollars per million tokens: the rest-of-week, base-band, realtime prices (batch "
         "beside). Our curated provider files come first and win for the same model; the rest "
         "are from the public catalogues listed on the [Sources](sources.md) page, each as its "
         "newest snapshot by then showed it. Prices in another currency are converted at the "
         f"ECB rate of their record's date. {free} models list a zero price: shown as free, "
         "never ranked. Sorted by output price; the data is in "
         "[market.csv](data/market.csv)."), "",
        '<div class="market-filters" hidden>'
        '<label>Provider <select id="market-provider"><option value="">all</option>'
        f"{options}</select></label> "
        '<label>Search <input id="market-search" type="search" placeholder="model"></label> '
        '<output id="market-count"></output></div>', "",
        # No class: Material then styles it as its own tables, scrolling inside its box.
        f'<table id="market-table"><thead><tr>{head}</tr></thead><tbody>', *rows,
        "</tbody></table>", ""])


def market_files(sources: Sources, as_of: dt.date) -> dict[str, str | bytes]:
    """Return the Market page and its data files as of the newest edition (a page that says so
    when the repository follows no catalogue and has no prices)."""
    catalogues = sources.catalogues.catalogues if sources.catalogues else []
    published = [c for c in catalogues if c.use == "published" and c.id in sources.price_histories]
    rows = [catalogue_rows(sources.price_histories[c.id], c, as_of) for c in published]
    curated = (curated_rows(sources.prices, sources.rates, as_of)
               if sources.prices and sources.rates is not None else None)
    if curated is None and not rows:
        return {"market.md": "# Market\n\nNo prices in this repository.\n"}
    table = market_table([*([] if curated is None else [curated]), *rows])
    files: dict[str, str | bytes] = {"market.md": market_page_md(table, as_of),
                                     "data/market.csv": market_csv(table),
                                     "data/market.json": market_json(table)}
    if published:
        histories = [sources.price_histories[c.id].assign(catalogue=c.id) for c in published]
        files["data/price-history.csv"] = csv_bytes(pd.concat(histories, ignore_index=True),
                                                    HISTORY_COLUMNS)
        health = sources.catalogue_health
        moves = [history_changes(sources.price_histories[c.id], c.id,
                                 health[c.id].whole_since if c.id in health else None)
                 for c in published]
        files["data/changes.csv"] = csv_bytes(pd.concat(moves, ignore_index=True),
                                              CHANGE_COLUMNS)
    return files


def market_csv(table: pd.DataFrame) -> bytes:
    """Return `data/market.csv`: COLUMNS, one row per model, as the page orders them."""
    return csv_bytes(table, COLUMNS)


def market_json(table: pd.DataFrame) -> bytes:
    """Return `data/market.json`: the same rows as an array of objects."""
    return json_bytes(records(table, COLUMNS))
