"""Pure: the market as of a date, one row per provider and model with a token price: the
published catalogues' histories (tables/catalogue_history.py) and the curated provider files,
the curated record winning for the same provider and model.

Prices are the rest-of-week, base-band, realtime ones in USD per million tokens (batch beside);
a catalogue price counts from the snapshot that first showed it, so a past date sees only what
was known then. Zero is free: kept and marked, never ranked (`free`).

The Market page's calculator prices a workload (a share of input tokens, cache hits, an
off-peak share) with `workload_usd_per_mtok`: tables.cost.blended_per_mtok's blend over the whole
table at once, from each row's listed prices and, where the price depends on the hour, its
prices in off-peak hours and in the others (TIER_COLUMNS); in batch mode from its batch input
and output prices, one price all week.
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Mapping, Sequence

import numpy as np
import pandas as pd

from pipeline.models.catalogues import Catalogue
from pipeline.models.prices import Mode, PriceFile, WorkloadProfile
from pipeline.models.rates import RateTable
from pipeline.models.sourced import Sourced
from pipeline.models.sources import Sources
from pipeline.normalize.fx import RateNotFound
from pipeline.normalize.model_identity import identity_key
from pipeline.normalize.windows import record_windows, week_shares
from pipeline.tables.catalogue_history import seen_per_listing, snapshot_time
from pipeline.tables.cost import day_end, record_at, record_fx, tier_price, week_start

METERS = ("input", "cached_input", "cache_write", "output")
COLUMNS = ("provider", "model", "input_usd_per_mtok", "cached_input_usd_per_mtok",
           "cache_write_usd_per_mtok", "output_usd_per_mtok", "batch_input_usd_per_mtok",
           "batch_output_usd_per_mtok", "context_window_tokens", "currency", "list_input_per_mtok",
           "list_output_per_mtok", "free", "source", "source_url", "last_change", "first_seen",
           "released")
"""The columns of `data/market.csv`, in order."""
LATER = ("free", "first_seen", "released")
"""The columns market_table and with_dates add to the rows of the sources."""
TIER_METERS = ("input", "cached_input", "output")
TIER_COLUMNS = (*(f"offpeak_{m}_usd_per_mtok" for m in TIER_METERS),
                *(f"peak_{m}_usd_per_mtok" for m in TIER_METERS), "offpeak_week_share")
"""Beside COLUMNS, for a model whose price depends on the hour: its prices in off-peak hours
and in the others (peak or standard), each averaged over those hours of the week as
tables.cost.window_weights weighs them, cache hits at the input price where there is no cached
one; and the off-peak hours' share of the week. NaN for a kind of hour a model does not have;
all NaN for a model with one price all week, or without an input or output price."""


def catalogue_rows(history: pd.DataFrame, catalogue: Catalogue, as_of: dt.date) -> pd.DataFrame:
    """Return one row per (provider, model) priced by a catalogue's history at the end of
    `as_of`: only what a snapshot on or before then showed."""
    end = snapshot_time(day_end(as_of))
    day = as_of.isoformat()
    h = history
    live = ((h["first_seen"] <= end) & ((h["gone_seen"] == "") | (h["gone_seen"] > end))
            & ((h["from_date"] == "") | (h["from_date"] <= day))
            & ((h["to_date"] == "") | (h["to_date"] > day))
            & (h["context_above_tokens"] == "0") & h["ttl_minutes"].isin(["", "5"]))
    windowed = h[live & (h["window_utc"] != "")]
    h = h[live & (h["window_utc"] == "")]
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
    out["last_change"] = seen_per_listing(h, keys, newest=True).str[:10]
    out["context_window_tokens"] = pd.to_numeric(h["context_window_tokens"], errors="coerce").groupby(
        [h[k] for k in keys]).max()
    out = out.reset_index()
    out = out[out[["input_usd_per_mtok", "output_usd_per_mtok"]].notna().any(axis=1)]
    out = out.merge(_catalogue_tiers(windowed, out, keys), on=keys, how="left")
    out = out.drop_duplicates(["provider", "model"]).drop(columns="catalogue_provider")
    return out.assign(currency="USD", list_input_per_mtok=out["input_usd_per_mtok"],
                      list_output_per_mtok=out["output_usd_per_mtok"], source=catalogue.name,
                      source_url=str(catalogue.page))


def _catalogue_tiers(windowed: pd.DataFrame, rest: pd.DataFrame, keys: list[str]) -> pd.DataFrame:
    """Return `keys` and TIER_COLUMNS for the models of `rest` (rows with their rest-of-day
    prices) that a catalogue also prices in a daily UTC window (`windowed`: its live rows)."""
    w = windowed[(windowed["mode"] == "realtime") & windowed["meter"].isin(TIER_METERS)]
    if w.empty:
        return _tiers(pd.DataFrame(columns=[*keys, "share", "offpeak", *TIER_METERS]), keys)
    meters = list(TIER_METERS)
    prices = w.pivot_table(index=[*keys, "window_utc"], columns="meter", values="usd_per_mtok",
                           aggfunc="first").reindex(columns=meters)
    day = rest.set_index(keys)[[f"{m}_usd_per_mtok" for m in meters]].set_axis(meters, axis=1)
    prices = prices[prices.index.droplevel("window_utc").isin(day.index)]
    base = day.reindex(prices.index.droplevel("window_utc")).set_axis(prices.index)
    # The catalogue names no tier. A window dearer than the rest of the day (by input, else by
    # output) is peak and the rest off-peak (genai-prices lists DeepSeek's night discount as the
    # rest of the day); any other window is off-peak, as `brief import` names them
    # (formats/price_map.py).
    by_input = prices["input"].notna() & base["input"].notna()
    dearer = (prices["input"] > base["input"]).where(by_input, prices["output"] > base["output"])
    # A meter the window does not price bills at the rest of the day's, as tier_price falls back.
    prices = prices.fillna(base)
    text = prices.index.get_level_values("window_utc").str
    start = text[0:2].astype(int) * 60 + text[3:5].astype(int)
    end = text[6:8].astype(int) * 60 + text[9:11].astype(int)
    # A span that ends where it starts is the whole day, as normalize/windows.py reads one.
    minutes = np.where((end - start) % 1440 == 0, 1440, (end - start) % 1440)
    parts = prices.assign(share=minutes / 1440, offpeak=~dearer.to_numpy()).droplevel("window_utc")
    by_model = parts.groupby(level=keys)
    rest_share = 1 - by_model["share"].sum()
    rest_part = day.reindex(rest_share.index).assign(
        share=rest_share, offpeak=~by_model["offpeak"].any())
    slots = pd.concat([parts, rest_part]).reset_index()
    # Windows that overlap (more than a day between them): which price holds when is unknown.
    overlapping = rest_share[rest_share < -1e-9].index
    slots = slots[~pd.MultiIndex.from_frame(slots[keys]).isin(overlapping)]
    return _tiers(slots, keys)


def _tiers(slots: pd.DataFrame, keys: list[str]) -> pd.DataFrame:
    """Return `keys` and TIER_COLUMNS from `slots`: one row per part of a model's week that has
    its own prices (TIER_METERS, USD per Mtok), with its `share` of the week's hours and whether
    it is `offpeak`."""
    meters = list(TIER_METERS)
    slots = slots[slots["share"].astype(float) > 0]
    if slots.empty:  # most catalogues price no hours: 0.1 s of pandas for no rows, per call
        return pd.DataFrame({**{k: pd.Series(dtype=object) for k in keys},
                             **{c: pd.Series(dtype=float) for c in TIER_COLUMNS}})
    slots = slots.assign(share=slots["share"].astype(float), offpeak=slots["offpeak"].astype(bool),
                         **{m: slots[m].astype(float) for m in meters})
    weighted = slots[meters].mul(slots["share"], axis=0).assign(share=slots["share"])
    out = slots[keys].drop_duplicates().set_index(keys)
    for prefix, mask in (("offpeak", slots["offpeak"]), ("peak", ~slots["offpeak"])):
        group = [slots.loc[mask, k] for k in keys]
        sums = weighted[mask].groupby(group).sum()
        mean = sums[meters].div(sums["share"], axis=0)
        # A part of these hours without a cached price: none for these hours (a workload with
        # cache hits then has no cost, as tables.cost.blended_per_mtok).
        mean.loc[slots.loc[mask, "cached_input"].isna().groupby(group).any(), "cached_input"] = np.nan
        for m in meters:
            out[f"{prefix}_{m}_usd_per_mtok"] = mean[m].reindex(out.index)
        if prefix == "offpeak":
            out["offpeak_week_share"] = sums["share"].reindex(out.index).fillna(0.0)
    # A part without an input or output price: the blend has none (blended_per_mtok gives None),
    # and the rest of the week, at whose prices the parts without their own bill, lacks it too.
    gaps = slots[["input", "output"]].isna().any(axis=1).groupby([slots[k] for k in keys]).any()
    out.loc[gaps.reindex(out.index).to_numpy(dtype=bool), list(TIER_COLUMNS)] = np.nan
    return out.reset_index()[[*keys, *TIER_COLUMNS]].astype({c: float for c in TIER_COLUMNS})


def curated_rows(files: Mapping[str, Sourced[PriceFile]], rates: RateTable,
                 as_of: dt.date, hours: bool = True) -> pd.DataFrame:
    """Return one row per curated model in force at the end of `as_of`, from the list it is
    quoted from (USD when it has one), converted at the ECB rate of its record's date;
    without TIER_COLUMNS when not `hours` (the price index reads the listed prices only, and
    the week's hours are most of the time this takes)."""
    at = day_end(as_of)
    rows, slots = [], []
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
            windows = record_windows(plist, record)
            tier = {w.name: w.tier for w in windows} | {None: record.rest_tier}
            # Each part of the week (a window, the rest) with its time share, as window_weights
            # starts from; none for a record without windows.
            for name, share in (week_shares(windows, week_start(at)).items()
                                if windows and hours else ()):
                slots.append({"provider": provider, "model": model, "share": share,
                              "offpeak": tier[name] == "off-peak",
                              **{m: _usd(tier_price(plist, record, m, name), usd)
                                 for m in TIER_METERS}})
            rows.append({
                "provider": provider, "model": model,
                **{f"{m}_usd_per_mtok": _usd(listed[m], usd) for m in METERS},
                "batch_input_usd_per_mtok": _usd(batch["input"], usd),
                "batch_output_usd_per_mtok": _usd(batch["output"], usd),
                "currency": plist.currency,
                "list_input_per_mtok": np.nan if listed["input"] is None else listed["input"],
                "list_output_per_mtok": np.nan if listed["output"] is None else listed["output"],
                "source": f"{sourced.model.name} (curated)", "source_url": str(record.source_url),
                # The newest record in force in any of the model's lists: a move in a list the
                # row does not show (DeepSeek's CNY list) is still its last change.
                "last_change": max(r.from_ for p in sourced.model.lists
                                   if (r := record_at(p, model, at)) is not None
                                   ).date().isoformat()})
    keys = ["provider", "model"]
    table = pd.DataFrame(rows, columns=[c for c in COLUMNS if c not in LATER]).astype(
        {"context_window_tokens": float})
    if not hours:
        return table
    tiers = _tiers(pd.DataFrame(slots, columns=[*keys, "share", "offpeak", *TIER_METERS]), keys)
    return table.merge(tiers, on=keys, how="left")


def _usd(value: float | None, usd_per_unit: float) -> float:
    return np.nan if value is None else value * usd_per_unit


def market_table(parts: Sequence[pd.DataFrame]) -> pd.DataFrame:
    """Return the market from `parts` in order of precedence (the curated rows, then each
    catalogue's in the order listed): a (provider, model) pair priced by an earlier part keeps
    that part's row (model ids compared case-folded); `free` where a token price is zero;
    sorted by output price, free last."""
    table = pd.concat(list(parts), ignore_index=True)
    # One model, however each source spells its id (`GLM-5.2`, `glm-5.2`).
    same = [table["provider"], table["model"].str.casefold()]
    # A context window is the model's: a curated row, which gives none, takes a catalogue's.
    table["context_window_tokens"] = table.groupby(same, sort=False)[
        "context_window_tokens"].transform("first")
    table = table[~pd.DataFrame({"p": same[0], "m": same[1]}).duplicated(keep="first")]
    prices = table[[f"{m}_usd_per_mtok" for m in ("input", "output")]]
    table["free"] = (prices == 0).any(axis=1)
    table = table.sort_values(["free", "output_usd_per_mtok", "input_usd_per_mtok", "provider",
                               "model"], kind="stable", na_position="last", ignore_index=True)
    table = table.reindex(columns=[*COLUMNS, *TIER_COLUMNS])
    # Whole tokens, written as such (NaN where no source gives one).
    return table.astype({"context_window_tokens": "Int64"})


def workload_usd_per_mtok(table: pd.DataFrame, input_share: float, cache_hit_rate: float,
                          offpeak_share: float | None = None,
                          mode: Mode = "realtime") -> pd.Series:
    """Return each row's blended USD per million tokens for a workload, as
    tables.cost.blended_per_mtok blends a record: `input_share` of the tokens are input,
    `cache_hit_rate` of those cache hits at the cached-input price (none: no cost), and
    `offpeak_share` of the traffic in off-peak hours (None: spread over the week's hours).
    In `mode` batch, at the batch input and output prices, one price all week.
    NaN for a free model, where the input or output price is missing, and where there are cache
    hits and no cached-input price."""
    h = cache_hit_rate

    def blend(p: dict[str, pd.Series]) -> pd.Series:
        hits = p["cached_input"] if h else p["input"]
        return (input_share * ((1 - h) * p["input"] + h * hits)
                + (1 - input_share) * p["output"])

    if mode == "batch":
        # No source gives a cached-input batch price (the table has no column for one): a
        # workload with cache hits has no batch cost, as blended_per_mtok's rule for a record
        # without a cached price. Windows price realtime traffic only: batch is flat.
        batch = {"input": table["batch_input_usd_per_mtok"],
                 "cached_input": pd.Series(np.nan, index=table.index),
                 "output": table["batch_output_usd_per_mtok"]}
        return blend(batch).mask(table["free"].astype(bool))
    listed = {m: table[f"{m}_usd_per_mtok"] for m in TIER_METERS}
    off = {m: table[f"offpeak_{m}_usd_per_mtok"] for m in TIER_METERS}
    on = {m: table[f"peak_{m}_usd_per_mtok"] for m in TIER_METERS}
    # Hours of one kind only: all the traffic bills at them (window_weights then ignores the
    # off-peak share).
    has_off, has_on = off["input"].notna(), on["input"].notna()
    off, on = ({m: off[m].where(has_off, on[m]) for m in TIER_METERS},
               {m: on[m].where(has_on, off[m]) for m in TIER_METERS})
    share = table["offpeak_week_share"] if offpeak_share is None else offpeak_share
    by_hour = share * blend(off) + (1 - share) * blend(on)
    usd = by_hour.where(table["offpeak_week_share"].notna(), blend(listed))
    return usd.mask(table["free"].astype(bool))


def tokens_per_usd(usd_per_mtok: pd.Series) -> pd.Series:
    """Return how many tokens one US dollar buys at each price; NaN where the price is missing
    or zero, never inf (a free model is not a figure to rank)."""
    return 1_000_000 / usd_per_mtok.where(usd_per_mtok > 0)


def calculator_profiles(profiles: Sequence[WorkloadProfile]) -> list[WorkloadProfile]:
    """Return the profiles the Market page offers as presets: the realtime ones (a preset sets
    the workload; the page's Mode select, realtime or batch, the prices it bills at; a batch
    profile's figures are data/blended.csv's)."""
    return [p for p in profiles if p.mode == "realtime"]


def preset_figures(table: pd.DataFrame, profiles: Sequence[WorkloadProfile]) -> pd.DataFrame:
    """Return `<id>_usd_per_mtok` and `<id>_tokens_per_usd` of each calculator profile for every
    row of `table`, and the same at batch prices (`<id>_batch_usd_per_mtok`,
    `<id>_batch_tokens_per_usd`): what the page's calculator must show for the preset in each
    mode (the browser test)."""
    out = pd.DataFrame(index=table.index)
    for p in calculator_profiles(profiles):
        for mode, infix in (("realtime", ""), ("batch", "_batch")):
            usd = workload_usd_per_mtok(table, p.input_share, p.cache_hit_rate, p.offpeak_share,
                                        mode)
            out[f"{p.id}{infix}_usd_per_mtok"] = usd
            out[f"{p.id}{infix}_tokens_per_usd"] = tokens_per_usd(usd)
    return out


def market_table_of(sources: Sources, as_of: dt.date) -> pd.DataFrame | None:
    """Return the Market's table as of the end of `as_of` (tables/market.py), with the columns
    beside COLUMNS the calculator needs; None when the repository follows no catalogue and has
    no prices."""
    rows = [catalogue_rows(sources.price_histories[c.id], c, as_of)
            for c in sources.published_catalogues()]
    curated = (curated_rows(sources.prices, sources.rates, as_of)
               if sources.prices and sources.rates is not None else None)
    if curated is None and not rows:
        return None
    table = market_table([*([] if curated is None else [curated]), *rows])
    return with_dates(table, sources, as_of)


def with_dates(table: pd.DataFrame, sources: Sources, as_of: dt.date) -> pd.DataFrame:
    """Return the Market's `table` with `first_seen` (the listing's first dated price by the
    end of `as_of`: a catalogue snapshot's day, or a curated record's start) and `released`
    (the model's release date as models.dev gives it, the earliest of the listings that serve
    the same model, normalize/model_identity.py; empty where it gives none)."""
    end = snapshot_time(day_end(as_of))
    seen = []
    for catalogue in sources.published_catalogues():
        h = sources.price_histories[catalogue.id]
        h = h[h["first_seen"] <= end]
        first = seen_per_listing(h, ["provider", "model"]).str[:10]
        seen.append(first.reset_index().assign(source=catalogue.name))
    for provider, sourced in sources.prices.items():
        starts: dict[str, str] = {}
        for plist in sourced.model.lists:
            for record in plist.records:
                day = record.from_.date().isoformat()
                if day <= as_of.isoformat():
                    starts[record.model] = min(starts.get(record.model, day), day)
        seen.append(pd.DataFrame({"provider": provider, "model": list(starts),
                                  "first_seen": list(starts.values()),
                                  "source": f"{sourced.model.name} (curated)"}))
    keys = ["source", "provider", "model"]
    firsts = (pd.concat(seen, ignore_index=True).drop_duplicates(keys) if seen
              else pd.DataFrame(columns=[*keys, "first_seen"]))
    out = table.drop(columns=["first_seen", "released"]).merge(firsts, on=keys, how="left")
    facts = [f[f["release_date"] != ""] for f in sources.model_facts.values()]
    facts = [f for f in facts if len(f)]
    if facts:
        dates = pd.concat(facts, ignore_index=True)
        dates = dates.assign(key=dates["model"].map(identity_key)).groupby("key")[
            "release_date"].min()
        out["released"] = out["model"].map(identity_key).map(dates)
    else:
        out["released"] = ""
    # Text columns: a merge or map that found nothing gives float NaN, which pandas will not
    # fill with text in a float column.
    out[["first_seen", "released"]] = out[["first_seen", "released"]].astype(object).fillna("")
    return out[table.columns]
