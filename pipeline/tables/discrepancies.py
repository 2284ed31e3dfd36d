"""Pure: where two sources of one price disagree, and for how long: a catalogue against a curated
provider file (the curated record is the truth: the beat's "catalogue lag"), or two catalogues
against each other.

Each source is a table of price periods of one key (provider, model, meter) in US dollars per
million tokens: the base price only (realtime, no time window, no long-context band, the
default cache lifetime). Curated periods run from a record's effective start to its end, a
catalogue's from the first snapshot that showed a price to the first that no longer did (and
within the dates the catalogue gives it, if any). Two
sources disagree over the stretch where both hold a price and they differ by more than
THRESHOLD; consecutive stretches of one key join (a source may move and still disagree), and a
disagreement is listed once it has lasted more than MIN_DAYS. Zero is free, not a price: never
compared. Curated prices in another currency are left out: an exchange rate is not a
disagreement.
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Mapping, Sequence

import numpy as np
import pandas as pd

from pipeline.models.prices import PriceFile
from pipeline.models.sourced import Sourced
from pipeline.normalize.units import per_mtok
from pipeline.tables.catalogue_history import SNAPSHOT_FORMAT, base_prices

THRESHOLD = 0.05
"""A difference above this share of the first source's price is a disagreement."""
MIN_DAYS = 7
"""A disagreement is listed once it has lasted longer than this."""
METERS = ("input", "cached_input", "output")
KEY = ["provider", "model", "meter"]
INSTANT = "datetime64[ns, UTC]"
"""The instants' type in every period table, so they compare and fill alike."""
PERIOD_COLUMNS = [*KEY, "usd_per_mtok", "start", "end", "source", "source_url"]
"""A source's periods: `start` and `end` UTC timestamps (`end` NaT while it holds)."""
COLUMNS = [*KEY, "source_a", "url_a", "usd_per_mtok_a", "source_b", "url_b", "usd_per_mtok_b",
           "difference", "since", "until", "days", "ongoing"]
"""One disagreement: the two sources, the latest price of each in it, `difference` (b / a - 1
at those prices), its start and end (`until`: the end of the build's day while it holds)."""


def curated_periods(files: Mapping[str, Sourced[PriceFile]]) -> pd.DataFrame:
    """Return the base prices of the curated USD lists, one row per record and meter."""
    rows = []
    for provider, sourced in sorted(files.items()):
        source = f"{sourced.model.name} (curated)"
        for plist in sourced.model.lists:
            if plist.currency != "USD":
                continue
            for record in plist.records:
                for p in record.prices:
                    # (A curated cache lifetime is only on cache_write, not one of METERS.)
                    if (p.meter in METERS and p.window is None and p.context_above_tokens == 0
                            and p.mode == "realtime"):
                        rows.append((provider, record.model, p.meter, per_mtok(p.price, plist.unit),
                                     record.from_, record.to, source, str(record.source_url)))
    table = pd.DataFrame(rows, columns=PERIOD_COLUMNS)
    for column in ("start", "end"):
        table[column] = pd.to_datetime(table[column], utc=True).astype(INSTANT)
    # A record listing one meter twice: the first, the price the Market page quotes
    # (tables.cost.tier_price).
    return table.drop_duplicates([*KEY, "start"])


def catalogue_periods(history: pd.DataFrame, source: str, url: str) -> pd.DataFrame:
    """Return the base prices of a catalogue's history (catalogue_history.base_prices)."""
    h = base_prices(history, METERS)
    # The history's empty text (open, undated) is NaT to pandas.
    periods = pd.DataFrame({
        "provider": h["provider"], "model": h["model"], "meter": h["meter"],
        "usd_per_mtok": h["usd_per_mtok"].astype(float),
        "start": pd.to_datetime(h["first_seen"], utc=True, format=SNAPSHOT_FORMAT),
        "end": pd.to_datetime(h["gone_seen"], utc=True, format=SNAPSHOT_FORMAT),
        "source": source, "source_url": url}, columns=PERIOD_COLUMNS).astype(
            {"start": INSTANT, "end": INSTANT})
    # A price the catalogue dates holds only within its dates, once a snapshot showed it.
    since = pd.to_datetime(h["from_date"], utc=True).astype(INSTANT)
    until = pd.to_datetime(h["to_date"], utc=True).astype(INSTANT)
    periods["start"] = periods["start"].where(since.isna() | (since <= periods["start"]), since)
    periods["end"] = periods["end"].where(until.isna() | (periods["end"] <= until), until)
    return periods[periods["end"].isna() | (periods["start"] < periods["end"])].reset_index(
        drop=True)


def disagreements(sources: Sequence[pd.DataFrame], as_of: dt.datetime) -> pd.DataFrame:
    """Return every disagreement between two of `sources` (period tables, the one to trust
    first) up to `as_of`, the longest-running first."""
    now = pd.Timestamp(as_of)
    found = []
    for i, a in enumerate(sources):
        for b in sources[i + 1:]:
            found.append(_pair(a[a["start"] <= now], b[b["start"] <= now], now))
    if not found:
        return pd.DataFrame(columns=COLUMNS)
    # (The sort renumbers the rows: the pairs' own indexes are not kept.)
    table = pd.concat(found)
    return table.sort_values(["ongoing", "days", "provider", "model", "meter", "source_b"],
                             ascending=[False, False, True, True, True, True], kind="stable",
                             ignore_index=True)[COLUMNS]


def _pair(a: pd.DataFrame, b: pd.DataFrame, now: pd.Timestamp) -> pd.DataFrame:
    # Model ids matched case-folded (`GLM-5.2` and `glm-5.2` are one model); the first
    # source's spelling is shown.
    on = ["provider", "match", "meter"]
    both = a.assign(match=a["model"].str.casefold()).merge(
        b.assign(match=b["model"].str.casefold()).drop(columns="model"), on=on,
        suffixes=("_a", "_b"))
    start = np.maximum(both["start_a"], both["start_b"])
    # Up to the page's date: a period a later snapshot ended is still open then.
    end = np.minimum(np.minimum(both["end_a"].fillna(now), both["end_b"].fillna(now)), now)
    pa, pb = both["usd_per_mtok_a"], both["usd_per_mtok_b"]
    # Rounded, so a difference of exactly 5 % (2.00 against 2.10) is not over by a float's ulp.
    share = ((pb / pa - 1).abs()).round(9)
    apart = (start < end) & (pa > 0) & (pb > 0) & (share > THRESHOLD)
    seg = both[apart].assign(since=start[apart], until=end[apart])
    if seg.empty:
        return pd.DataFrame(columns=COLUMNS)
    seg = seg.sort_values([*on, "source_b", "since"], kind="stable", ignore_index=True)
    # A stretch joins the one before when it begins where that one ended, for the same key.
    same = (seg[on].shift() == seg[on]).all(axis=1) & (seg["since"] == seg["until"].shift())
    run = (~same).cumsum()
    runs = seg.groupby(run).agg(
        provider=("provider", "first"), model=("model", "first"), meter=("meter", "first"),
        source_a=("source_a", "last"), url_a=("source_url_a", "last"),
        usd_per_mtok_a=("usd_per_mtok_a", "last"), source_b=("source_b", "last"),
        url_b=("source_url_b", "last"), usd_per_mtok_b=("usd_per_mtok_b", "last"),
        since=("since", "min"), until=("until", "max"))
    runs["days"] = (runs["until"] - runs["since"]).dt.total_seconds() / 86_400
    runs["ongoing"] = runs["until"] == now
    runs["difference"] = runs["usd_per_mtok_b"] / runs["usd_per_mtok_a"] - 1
    return runs.loc[runs["days"] > MIN_DAYS, COLUMNS]
