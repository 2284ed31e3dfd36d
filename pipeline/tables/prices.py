"""Pure: the normalized price table behind the site (`public/data/prices.csv`, `prices.json`):
rows of plain values, and their bytes in a fixed column order. `data/blended.csv` comes from the
blended prices (tables/quotes.py)."""

from __future__ import annotations

import datetime as dt
from collections.abc import Mapping

import pandas as pd

from pipeline.models.prices import PriceFile
from pipeline.models.rates import RateTable
from pipeline.models.sourced import Sourced, line_of
from pipeline.normalize.fx import RateNotFound
from pipeline.normalize.units import meter_label, per_mtok
from pipeline.tables.cost import record_fx, tier_key
from pipeline.tables.frames import csv_bytes, json_bytes, records

PRICE_COLUMNS = ("provider", "model", "currency", "unit_price", "meter", "window",
                 "context_above_tokens", "mode", "effective_from", "effective_to", "usd_per_mtok",
                 "fx_usd_per_unit", "fx_date", "source_url", "checked", "source_file",
                 "source_line")


def instant_text(at: dt.datetime | None) -> str:
    """Return a UTC instant as a date when it is midnight, else as `YYYY-MM-DDTHH:MM:SSZ`."""
    if at is None:
        return ""
    if at.time() == dt.time(0):
        return at.date().isoformat()
    return at.strftime("%Y-%m-%dT%H:%M:%SZ")


def price_rows(files: Mapping[str, Sourced[PriceFile]], rates: RateTable) -> list[dict]:
    """Return one row per (provider, model, list, meter, window, band, mode, period), with the
    line of its price in the provider's file (`source_line`, None when not known).

    Batch prices a record gives as a discount factor appear as batch rows of their own.
    """
    rows = []
    for provider, sourced in sorted(files.items()):
        for li, plist in enumerate(sourced.model.lists):
            for ri, record in sorted(enumerate(plist.records),
                                     key=lambda ir: (ir[1].model, ir[1].from_)):
                try:
                    fx = record_fx(plist, record, rates)
                except RateNotFound:
                    fx = None
                explicit = {tier_key(p) for p in record.prices}
                items = [(i, p, p.price, p.mode) for i, p in enumerate(record.prices)]
                if record.batch_discount is not None:
                    for i, p in enumerate(record.prices):
                        key = (p.meter, p.ttl_minutes, p.window, p.context_above_tokens, "batch")
                        if p.mode == "realtime" and key not in explicit:
                            items.append((i, p, p.price * record.batch_discount, "batch"))
                for pi, p, unit_price, mode in items:
                    mtok = per_mtok(unit_price, plist.unit)
                    rows.append({
                        "provider": provider, "model": record.model, "currency": plist.currency,
                        "unit_price": round(unit_price, 9), "meter": meter_label(p.meter, p.ttl_minutes),
                        "window": p.window or record.rest_tier,
                        "context_above_tokens": p.context_above_tokens, "mode": mode,
                        "effective_from": instant_text(record.from_),
                        "effective_to": instant_text(record.to),
                        "usd_per_mtok": round(mtok * fx.usd_per_unit, 9) if fx else None,
                        "fx_usd_per_unit": round(fx.usd_per_unit, 9) if fx else None,
                        "fx_date": fx.date.isoformat() if fx else "",
                        "source_url": str(record.source_url), "checked": record.checked.isoformat(),
                        "source_file": sourced.path,
                        "source_line": line_of(sourced.lines,
                                               ("lists", li, "records", ri, "prices", pi))})
    return rows


def price_table(files: Mapping[str, Sourced[PriceFile]], rates: RateTable) -> pd.DataFrame:
    """Return `price_rows` as the table behind `data/prices.csv` and `prices.json`."""
    return pd.DataFrame(price_rows(files, rates), columns=list(PRICE_COLUMNS)).astype(
        {"context_above_tokens": "Int64", "source_line": "Int64"})


def prices_csv(table: pd.DataFrame) -> bytes:
    """Return `data/prices.csv` of `price_table`."""
    return csv_bytes(table, PRICE_COLUMNS)


def prices_json(table: pd.DataFrame) -> bytes:
    """Return `data/prices.json` of `price_table`: an array of objects, keys in column order."""
    return json_bytes(records(table, PRICE_COLUMNS))
