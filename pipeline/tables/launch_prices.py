"""Pure: each model's launch price beside its price today, and the launch prices of new models
per quarter: the two effects a price index of the same listings keeps apart.

"LLMflation" (a16z) and Epoch AI's price trends measure the price of a level of capability,
which falls mostly because cheaper new models reach it; the same-model index
(tables/price_index.py) measures how the models already on sale are repriced. From the
histories both can be seen: a model's first price (its launch price) against its price now is
the repricing, and the median launch price of each quarter's new models is what arrives.

A model here is a maker's own listing (the seller made the model, normalize/makers.py), one per
provider and canonical id (normalize/model_ids.py) however each source spells it: the price a
maker launches at, not a host's resale. Its launch date is its release date where a catalogue
gives one (models.dev's model facts), else the first date the index's grid sees it priced. Only
models the histories saw arrive count: not those already listed on the grid's first date, nor
those without a release date first seen when a catalogue's first whole snapshot arrived or when
their source first listed their provider at all (a catalogue's coverage, not a launch), nor
those first priced more than LAUNCH_WINDOW_DAYS after their release date.
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Mapping, Sequence

import numpy as np
import pandas as pd

from pipeline.normalize.model_ids import canonical_model

LAUNCH_WINDOW_DAYS = 90
"""A model first priced later than this after its release date has no launch price here."""
LAUNCH_COLUMNS = ("provider", "model", "release_date", "first_priced", "launch_date", "quarter",
                  "launch_source", "launch_input_usd_per_mtok", "launch_output_usd_per_mtok",
                  "launch_blend_3_1_usd_per_mtok", "today_input_usd_per_mtok",
                  "today_output_usd_per_mtok", "today_blend_3_1_usd_per_mtok", "change")
"""The columns of `data/launch-prices.csv`, one row per model launched within the histories."""
QUARTER_COLUMNS = ("quarter", "models", "median_launch_blend_3_1_usd_per_mtok",
                   "listed_today", "median_today_blend_3_1_usd_per_mtok", "median_change",
                   "repriced")
"""The per-quarter summary: the models launched in it, the median of their launch 3:1 blends,
how many are listed on the last date and the median of their blends then, the median of each
one's change since launch, and how many of them were repriced since."""


def quarter(day: dt.date) -> str:
    """Return a date's calendar quarter, `2025-Q3`."""
    return f"{day.year}-Q{(day.month - 1) // 3 + 1}"


def launch_prices(prices: pd.DataFrame, makers: Mapping[str, str], dates: Sequence[dt.date],
                  facts: pd.DataFrame, arrivals: Mapping[str, dt.date]) -> pd.DataFrame:
    """Return LAUNCH_COLUMNS, newest launch first: `prices` (price_index.listed_prices) over the
    grid `dates` (sorted); `makers`: model id → its maker (a model without one is left out);
    `facts`: `provider`, `model`, `release_date` (ISO text, empty where unknown; no rows when no
    catalogue gives facts); `arrivals`: each source → the first grid date of its first whole
    snapshot."""
    empty = pd.DataFrame(columns=list(LAUNCH_COLUMNS))
    if prices.empty or not dates:
        return empty
    own = prices[(prices["model"].map(makers).astype(object).fillna("") == prices["provider"])
                 & (prices["blend_3_1_usd_per_mtok"] > 0)]
    if own.empty:
        return empty
    own = own.assign(key=own["model"].map(canonical_model)).sort_values(
        ["provider", "key", "date"], kind="stable")
    first = own.drop_duplicates(["provider", "key"], keep="first")
    last_date = max(dates)
    today = own[own["date"] == last_date].drop_duplicates(["provider", "key"])
    released = {}
    if len(facts):
        f = facts[facts["release_date"] != ""]
        released = {(p, canonical_model(m)): d
                    for p, m, d in zip(f["provider"], f["model"], f["release_date"])}
    release = [released.get(k, "") for k in zip(first["provider"], first["key"])]
    first = first.assign(release_date=release)
    priced = first["date"]
    launch = [dt.date.fromisoformat(r) if r else d for r, d in zip(release, priced)]
    # Without a release date, a first price is a launch only where its source already listed
    # the provider before: else it is the source's coverage of that provider arriving (a young
    # catalogue adding providers week by week), or the source's first whole snapshot.
    covered = prices.groupby(["source", "provider"])["date"].min()
    since = covered.reindex(pd.MultiIndex.from_arrays([first["source"], first["provider"]]))
    arrived = [arrivals.get(s) == d or not c < d
               for s, d, c in zip(first["source"], priced, since)]
    lag = [(d - dt.date.fromisoformat(r)).days if r else 0 for r, d in zip(release, priced)]
    start = min(dates)
    keep = ((priced > start).to_numpy() & np.array([d > start for d in launch])
            & ~(np.array(arrived) & (first["release_date"] == "").to_numpy())
            & (np.array(lag) <= LAUNCH_WINDOW_DAYS))
    first = first[keep].assign(launch_date=[d for d, k in zip(launch, keep) if k])
    now = today.set_index(["provider", "key"])
    at = pd.MultiIndex.from_arrays([first["provider"], first["key"]])
    t_in, t_out, t_blend = (now[f"{m}_usd_per_mtok"].reindex(at).to_numpy()
                            for m in ("input", "output", "blend_3_1"))
    out = pd.DataFrame({
        "provider": first["provider"].to_numpy(), "model": first["model"].to_numpy(),
        "release_date": first["release_date"].to_numpy(),
        "first_priced": [d.isoformat() for d in first["date"]],
        "launch_date": [d.isoformat() for d in first["launch_date"]],
        "quarter": [quarter(d) for d in first["launch_date"]],
        "launch_source": first["source"].to_numpy(),
        "launch_input_usd_per_mtok": first["input_usd_per_mtok"].to_numpy(),
        "launch_output_usd_per_mtok": first["output_usd_per_mtok"].to_numpy(),
        "launch_blend_3_1_usd_per_mtok": first["blend_3_1_usd_per_mtok"].to_numpy(),
        "today_input_usd_per_mtok": t_in, "today_output_usd_per_mtok": t_out,
        "today_blend_3_1_usd_per_mtok": t_blend})
    out["change"] = out["today_blend_3_1_usd_per_mtok"] / out["launch_blend_3_1_usd_per_mtok"] - 1
    return out.sort_values(["launch_date", "provider", "model"], ascending=[False, True, True],
                           kind="stable", ignore_index=True)[list(LAUNCH_COLUMNS)]


def quarterly(launches: pd.DataFrame) -> pd.DataFrame:
    """Return QUARTER_COLUMNS, oldest quarter first, from launch_prices()."""
    rows = []
    for name, group in launches.groupby("quarter", sort=True):
        listed = group[group["today_blend_3_1_usd_per_mtok"].notna()]
        rows.append((name, len(group), float(group["launch_blend_3_1_usd_per_mtok"].median()),
                     len(listed), float(listed["today_blend_3_1_usd_per_mtok"].median())
                     if len(listed) else np.nan,
                     float(listed["change"].median()) if len(listed) else np.nan,
                     int((listed["change"].abs() > 1e-9).sum())))
    return pd.DataFrame(rows, columns=list(QUARTER_COLUMNS))
