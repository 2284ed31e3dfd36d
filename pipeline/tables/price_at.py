"""Pure: what one model cost at each provider on a past date, from the histories: the Market's
table as of that date (tables/market.py: only what a snapshot on or before the date showed),
its rows of the model however each source spells it, a workload's blended price, and the
snapshot each price comes from (the catalogue's version that first showed it, with its commit,
or the curated record)."""

from __future__ import annotations

import datetime as dt

import pandas as pd

from pipeline.models.prices import WorkloadProfile
from pipeline.models.sources import Sources
from pipeline.normalize.model_ids import canonical_model
from pipeline.tables.catalogue_history import snapshot_time
from pipeline.tables.cost import day_end
from pipeline.tables.market import market_table_of, workload_usd_per_mtok

COLUMNS = ("provider", "model", "input_usd_per_mtok", "cached_input_usd_per_mtok",
           "output_usd_per_mtok", "workload_usd_per_mtok", "source", "snapshot", "commit",
           "source_url")
"""What `price_at` gives per provider."""


def price_at(sources: Sources, model: str, as_of: dt.date,
             profile: WorkloadProfile) -> pd.DataFrame:
    """Return COLUMNS for each provider of `model` (compared by canonical id) in the Market as
    of the end of `as_of`, cheapest for `profile` first; `snapshot`: the time of the catalogue
    version that first showed the row's newest price (UTC), or the curated record's start;
    `commit`: that version's commit in the catalogue's repository, when replayed."""
    table = market_table_of(sources, as_of)
    if table is None:
        return pd.DataFrame(columns=list(COLUMNS))
    wanted = canonical_model(model)
    rows = table[table["model"].map(canonical_model) == wanted].copy()
    rows["workload_usd_per_mtok"] = workload_usd_per_mtok(
        rows, profile.input_share, profile.cache_hit_rate, profile.offpeak_share, profile.mode)
    rows = with_snapshots(rows, sources, as_of).sort_values(
        ["workload_usd_per_mtok", "provider"], na_position="last", kind="stable",
        ignore_index=True)
    return rows[list(COLUMNS)]


def with_snapshots(table: pd.DataFrame, sources: Sources, as_of: dt.date) -> pd.DataFrame:
    """Return rows of the Market's `table` as of the end of `as_of` with `snapshot` and `commit`
    (price_at's), in the same order."""
    shown = _snapshots(sources, as_of)
    rows = table.merge(shown, on=["source", "provider", "model"], how="left")
    rows["snapshot"] = rows["snapshot"].fillna(rows["last_change"])
    rows["commit"] = rows["commit"].fillna("")
    return rows


def _snapshots(sources: Sources, as_of: dt.date) -> pd.DataFrame:
    """Return per catalogue listing in force at the end of `as_of` the newest `first_seen` of
    its prices and that period's commit."""
    end = snapshot_time(day_end(as_of))
    parts = []
    for catalogue in sources.published_catalogues():
        h = sources.price_histories[catalogue.id]
        live = h[(h["first_seen"] <= end) & ((h["gone_seen"] == "") | (h["gone_seen"] > end))]
        newest = live.sort_values("first_seen", kind="stable").drop_duplicates(
            ["provider", "model"], keep="last")
        parts.append(newest[["provider", "model", "first_seen", "commit"]].rename(
            columns={"first_seen": "snapshot"}).assign(source=catalogue.name))
    if not parts:
        return pd.DataFrame(columns=["source", "provider", "model", "snapshot", "commit"])
    return pd.concat(parts, ignore_index=True)
