"""Pure: the Market's table on a past date, as a data file the page's calculator loads
(`data/market-on/<date>.json`) when a reader picks that date: the rows `brief price --at` reads
(tables/price_at.py), each with the catalogue snapshot its price comes from and that snapshot's
commit on the catalogue's repository.

The dates offered are the quarters' last days from the first quarter the histories cover to the
newest edition's (compose/market.py): a page or a table through mkdocs per date would cost the
build half a second and 2 to 3 MB each, a compact file a tenth of that and no page."""

from __future__ import annotations

import datetime as dt
from collections.abc import Mapping, Sequence

import pandas as pd

from pipeline.models.links import is_allowed_link
from pipeline.models.sources import Catalogue
from pipeline.tables.frames import json_bytes, records
from pipeline.tables.market import TIER_COLUMNS

ROW_COLUMNS = ("provider", "model", "input_usd_per_mtok", "cached_input_usd_per_mtok",
               "output_usd_per_mtok", "context_window_tokens", "cache_write_usd_per_mtok",
               "batch_input_usd_per_mtok", "batch_output_usd_per_mtok", "currency", "source",
               "last_change", "first_seen", "released", "free", "snapshot")
"""What each row of a date's file holds, in order (the file names them in `columns`), beside
`tiers` (TIER_COLUMNS, for a price that depends on the hour; else null), `page` (its model's
page, where one exists today) and `link` (the index in `links` of the snapshot's commit on the
catalogue's repository, else of the source's own address: a few hundred for thousands of
rows)."""


FOLDER = "data/market-on"
"""Where the files are in the site, one per day."""


def file_path(day: dt.date) -> str:
    """Return the site path of the table on `day`."""
    return f"{FOLDER}/{day.isoformat()}.json"


def past_market_json(table: pd.DataFrame, day: dt.date, pages: Mapping[str, str],
                     catalogues: Sequence[Catalogue]) -> bytes:
    """Return the file of the Market on `day`: `table` (market_table_of with_snapshots of that
    day, in the page's order), `pages`: the slug of today's model page of each model it has one
    for, by id; `catalogues`: the published ones, whose repositories the commits are on."""
    repositories = {c.name: str(c.repository).rstrip("/") for c in catalogues
                    if c.repository is not None}
    hrefs = [f"{repositories[source]}/commit/{commit}" if commit and source in repositories
             else str(url) for source, commit, url in zip(table["source"], table["commit"],
                                                          table["source_url"], strict=True)]
    # The file's links go into the page as they are: only those a page may carry (each
    # address checked once: a few hundred for thousands of rows).
    allowed = {href: href if is_allowed_link(href) else "" for href in set(hrefs)}
    hrefs = [allowed[href] for href in hrefs]
    links = {href: i for i, href in enumerate(dict.fromkeys(hrefs))}
    frame = table.assign(free=table["free"].astype(bool),
                         snapshot=table["snapshot"].astype(str).str[:10],
                         **{c: table[c].fillna("").astype(str)
                            for c in ("first_seen", "released", "last_change")})
    rows = records(frame, ROW_COLUMNS)
    tiers = records(table, TIER_COLUMNS)
    out = []
    for row, tier, model, href in zip(rows, tiers, table["model"], hrefs, strict=True):
        out.append([*row.values(), None if tier["offpeak_week_share"] is None
                    else list(tier.values()), pages.get(model, ""), links[href]])
    return json_bytes({
        "as_of": day.isoformat(), "providers": int(table["provider"].nunique()),
        "columns": [*ROW_COLUMNS, "tiers", "page", "link"], "tiers": list(TIER_COLUMNS),
        "links": list(links), "rows": out})
