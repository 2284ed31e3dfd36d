"""Pure: the Discrepancies page: where a catalogue disagrees with our curated price, or with
another catalogue, by more than 5 % for more than 7 days (tables/discrepancies.py), with both
figures and their sources.

Catalogue text is third-party: every cell is escaped here.
"""

from __future__ import annotations

import datetime as dt
import html

import pandas as pd

from pipeline.compose.numbers import money
from pipeline.compose.sources import Sources
from pipeline.models.links import is_allowed_link
from pipeline.normalize.units import METER_TITLES
from pipeline.render.escape import md_cell
from pipeline.tables.cost import day_end
from pipeline.tables.discrepancies import (
    MIN_DAYS,
    THRESHOLD,
    catalogue_periods,
    curated_periods,
    disagreements,
)

MAX_ROWS = 1_000
"""Rows per table on the page."""




def _source(name: str, url: str, price: float) -> str:
    text = f"{money(price, 'USD')} ({md_cell(name)})"
    return f"[{text}]({html.escape(url)})" if is_allowed_link(url) else text


def _table(rows: pd.DataFrame, first: str, second: str) -> list[str]:
    lines = [f"| Provider | Model | Price | {first} | {second} | Difference | Since | Days |",
             "|---|---|---|---|---|---|---|---|"]
    for r in rows.head(MAX_ROWS).itertuples(index=False):
        until = "still" if r.ongoing else f"until {r.until.date().isoformat()}"
        lines.append(
            f"| {md_cell(r.provider)} | {md_cell(r.model)} | {METER_TITLES[r.meter]} | "
            f"{_source(r.source_a, r.url_a, r.usd_per_mtok_a)} | "
            f"{_source(r.source_b, r.url_b, r.usd_per_mtok_b)} | {r.difference:+.1%} | "
            f"{r.since.date().isoformat()} ({until}) | {r.days:,.0f} |")
    if len(rows) > MAX_ROWS:
        lines += ["", f"The {MAX_ROWS:,} longest of {len(rows):,} are shown."]
    return lines


def discrepancies_page_md(sources: Sources, as_of: dt.date) -> str:
    """Return the Discrepancies page as of the end of `as_of` (the newest edition's day)."""
    catalogues = [c for c in (sources.catalogues.catalogues if sources.catalogues else [])
                  if c.id in sources.price_histories]
    curated = curated_periods(sources.prices)
    others = [catalogue_periods(sources.price_histories[c.id], c.name, str(c.page))
              for c in catalogues]
    found = disagreements([curated, *others], day_end(as_of))
    against = found[found["source_a"].isin(set(curated["source"]))]
    between = found[~found.index.isin(against.index)]
    lines = [
        "---", "search:", "  exclude: true", "---", "",
        "# Discrepancies: where the price lists disagree", "",
        (f"Where a public catalogue's price differs from our curated price of the same model, "
         f"or from another catalogue's, by more than {THRESHOLD:.0%} for more than {MIN_DAYS} "
         f"days, up to {as_of.isoformat()}: the catalogue lag a reader meets when a provider "
         "moves its prices and the maps follow late, or never. US dollars per million tokens, "
         "the base price of each (realtime, no time window, no long-context band); a "
         "catalogue's price holds from the first snapshot that showed it; models are matched "
         "by provider and exact model id; a zero price is free and never compared; curated "
         "prices in another currency are left out, an exchange rate not being a "
         "disagreement. Each figure links to its source; the difference is the second figure "
         "against the first, at the latest prices of the stretch."), "",
        f"## Catalogues against our curated prices ({len(against):,})", ""]
    lines += (_table(against, "Curated", "Catalogue") if len(against)
              else ["No catalogue disagrees with a curated price."])
    lines += ["", f"## Between catalogues ({len(between):,})", ""]
    lines += (_table(between, "One catalogue", "The other") if len(between)
              else ["No two catalogues disagree."])
    return "\n".join([*lines, ""])
