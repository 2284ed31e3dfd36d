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
from pipeline.models.links import is_allowed_link
from pipeline.models.sources import Sources
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
from pipeline.tables.plausibility import FACTOR

MAX_ROWS = 1_000
"""Rows per table on the page."""


def held_md(held: pd.DataFrame | None, names: dict[str, tuple[str, str]]) -> list[str]:
    """Return the section on the catalogue prices held back as implausible
    (tables/plausibility.py), one row per price, the newest first by listing; `names`: each
    catalogue id's name and page."""
    held = held if held is not None else pd.DataFrame()
    lines = [f"## Held back as implausible ({len(held):,})", "",
             (f"A catalogue price more than {FACTOR:.0f}× above or below the median of the other "
              "providers' prices of the same model (input and output; each provider counted "
              "once, at least two of them), or above its mode's ceiling in "
              "sources/catalogues.yaml, is held back: it is on no other page, in no ranking and "
              "in no data file, and when a listing's newest prices are held its whole listing "
              "is. An editor who checks one at its source lists it under "
              "`confirmed_listings`."), ""]
    if held.empty:
        return [*lines, "No catalogue price is held back."]
    lines += ["| Catalogue | Provider | Model | Price | Listed | Other providers | Since | Why |",
              "|---|---|---|---|---|---|---|---|"]
    for r in held.head(MAX_ROWS).itertuples(index=False):
        name, page = names.get(r.catalogue, (r.catalogue, ""))
        median = ("" if pd.isna(r.median_usd_per_mtok) else
                  f"{money(r.median_usd_per_mtok, 'USD')} (median of {r.providers:.0f})")
        until = "" if r.gone_seen == "" else f" (until {r.gone_seen[:10]})"
        lines.append(f"| {_source_name(name, page)} | {md_cell(r.provider)} | {md_cell(r.model)} | "
                     f"{METER_TITLES[r.meter]} | {money(r.usd_per_mtok, 'USD')} | {median} | "
                     f"{r.first_seen[:10]}{until} | {md_cell(r.cause)} |")
    if len(held) > MAX_ROWS:
        lines += ["", f"The first {MAX_ROWS:,} of {len(held):,} are shown."]
    return lines


def _source_name(name: str, url: str) -> str:
    return f"[{md_cell(name)}]({html.escape(url)})" if is_allowed_link(url) else md_cell(name)


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
        *held_md(sources.held_prices,
                 {c.id: (c.name, str(c.page)) for c in (sources.catalogues.catalogues
                                                        if sources.catalogues else [])}), "",
        f"## Catalogues against our curated prices ({len(against):,})", ""]
    lines += (_table(against, "Curated", "Catalogue") if len(against)
              else ["No catalogue disagrees with a curated price."])
    lines += ["", f"## Between catalogues ({len(between):,})", ""]
    lines += (_table(between, "One catalogue", "The other") if len(between)
              else ["No two catalogues disagree."])
    return "\n".join([*lines, ""])
