"""Pure: the market as of a date, one row per provider and model with a token price: the
published catalogues' histories (tables/catalogue_history.py) and the curated provider files,
the curated record winning for the same provider and model.

Prices are the rest-of-week, base-band, realtime ones in USD per million tokens (batch beside);
a catalogue price counts from the snapshot that first showed it, so a past date sees only what
was known then. Zero is free: kept and marked, never ranked (`free`).
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Mapping, Sequence

import numpy as np
import pandas as pd

from pipeline.models.catalogues import Catalogue
from pipeline.models.prices import PriceFile
from pipeline.models.sourced import Sourced
from pipeline.normalize.fx import RateNotFound, RateTable
from pipeline.tables.catalogue_history import snapshot_time
from pipeline.tables.cost import day_end, record_at, record_fx, tier_price

METERS = ("input", "cached_input", "cache_write", "output")
COLUMNS = ("provider", "model", "input_usd_per_mtok", "cached_input_usd_per_mtok",
           "cache_write_usd_per_mtok", "output_usd_per_mtok", "batch_input_usd_per_mtok",
           "batch_output_usd_per_mtok", "currency", "list_input_per_mtok",
           "list_output_per_mtok", "free", "source", "source_url", "last_change")
"""The columns of `data/market.csv`, in order."""


def catalogue_rows(history: pd.DataFrame, catalogue: Catalogue, as_of: dt.date) -> pd.DataFrame:
    """Return one row per (provider, model) priced by a catalogue's history at the end of
    `as_of`: only what a snapshot on or before then showed."""
    end = snapshot_time(day_end(as_of))
    day = as_of.isoformat()
    h = history
    live = ((h["first_seen"] <= end) & ((h["gone_seen"] == "") | (h["gone_seen"] > end))
            & ((h["from_date"] == "") | (h["from_date"] <= day))
            & ((h["to_date"] == "") | (h["to_date"] > day))
            & (h["context_above_tokens"] == "0") & (h["window_utc"] == "")
            & h["ttl_minutes"].isin(["", "5"]))
    h = h[live]
    # By the catalogue's own provider too: two of its providers that are one company for us
    # (gemini, vertex_ai) stay two rows here, and the first in key order is kept below, whole,
    # rather than one row mixing their meters.
    keys = ["provider", "catalogue_provider", "model"]
    wide = h.pivot_table(index=keys, columns=["mode", "meter"], values="usd_per_mtok",
                         aggfunc="first")
    out = pd.DataFrame(index=wide.index)
    for meter in METERS:
        out[f"{meter}_usd_per_mtok"] = wide.get(("realtime", meter), np.nan)
    out["batch_input_usd_per_mtok"] = wide.get(("batch", "input"), np.nan)
    out["batch_output_usd_per_mtok"] = wide.get(("batch", "output"), np.nan)
    out["last_change"] = h.groupby(keys)["first_seen"].max().str[:10]
    out = out.reset_index()
    out = out[out[["input_usd_per_mtok", "output_usd_per_mtok"]].notna().any(axis=1)]
    out = out.drop_duplicates(["provider", "model"]).drop(columns="catalogue_provider")
    return out.assign(currency="USD", list_input_per_mtok=out["input_usd_per_mtok"],
                      list_output_per_mtok=out["output_usd_per_mtok"], source=catalogue.name,
                      source_url=str(catalogue.page))


def curated_rows(files: Mapping[str, Sourced[PriceFile]], rates: RateTable,
                 as_of: dt.date) -> pd.DataFrame:
    """Return one row per curated model in force at the end of `as_of`, from the list it is
    quoted from (USD when it has one), converted at the ECB rate of its record's date."""
    at = day_end(as_of)
    rows = []
    for provider, sourced in sorted(files.items()):
        for model, quoted in sourced.model.quote_lists.items():
            # The quoted list first (USD when it prices the model), else any list in force then.
            lists = [quoted, *(p for p in sourced.model.lists if p is not quoted)]
            plist, record = next(((p, r) for p in lists
                                  if (r := record_at(p, model, at)) is not None), (quoted, None))
            if record is None:
                continue
            try:
                usd = record_fx(plist, record, rates).usd_per_unit
            except RateNotFound:
                continue
            listed = {m: tier_price(plist, record, m, None) for m in METERS}
            batch = {m: tier_price(plist, record, m, None, mode="batch")
                     for m in ("input", "output")}

            rows.append({
                "provider": provider, "model": model,
                **{f"{m}_usd_per_mtok": _usd(listed[m], usd) for m in METERS},
                "batch_input_usd_per_mtok": _usd(batch["input"], usd),
                "batch_output_usd_per_mtok": _usd(batch["output"], usd),
                "currency": plist.currency,
                "list_input_per_mtok": np.nan if listed["input"] is None else listed["input"],
                "list_output_per_mtok": np.nan if listed["output"] is None else listed["output"],
                "source": f"{sourced.model.name} (curated)", "source_url": str(record.source_url),
                "last_change": record.from_.date().isoformat()})
    return pd.DataFrame(rows, columns=[c for c in COLUMNS if c != "free"])


def _usd(value: float | None, usd_per_unit: float) -> float:
    return np.nan if value is None else value * usd_per_unit


def market_table(parts: Sequence[pd.DataFrame]) -> pd.DataFrame:
    """Return the market from `parts` in order of precedence (the curated rows, then each
    catalogue's in the order listed): a (provider, model) pair priced by an earlier part keeps
    that part's row; `free` where a token price is zero; sorted by output price, free last."""
    table = pd.concat(list(parts), ignore_index=True).drop_duplicates(
        ["provider", "model"], keep="first")
    prices = table[[f"{m}_usd_per_mtok" for m in ("input", "output")]]
    table["free"] = (prices == 0).any(axis=1)
    table = table.sort_values(["free", "output_usd_per_mtok", "input_usd_per_mtok", "provider",
                               "model"], kind="stable", na_position="last", ignore_index=True)
    return table[list(COLUMNS)]
