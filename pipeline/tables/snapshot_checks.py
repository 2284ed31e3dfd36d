"""Pure: what a catalogue's snapshot as a whole says about itself, before it may update the
history: a map in another unit, a partial export, listings whose prices do not read.

Each is the catalogue's fault, not a market move: the run is held as failing (the history kept)
or, for a listing whose prices do not read, its last good prices stay instead of it reading as
delisted (issue 37).
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Iterable

import numpy as np
import pandas as pd

from pipeline.models.catalogues import CataloguesFile
from pipeline.normalize.model_ids import TEXT
from pipeline.tables.catalogue_history import KEY, snapshot_time
from pipeline.tables.plausibility import FACTOR, round_times

LOST_SHARE = 0.2
"""A snapshot that lacks more than this share of the most listings in force within LOST_WINDOW
is a partial export, not a market: held as failing."""
LOST_WINDOW = dt.timedelta(days=30)
"""How far back the most listings in force are looked for: against the last run alone, four
exports of 85 %, 72 %, 61 % and 52 % of a map each lose under 20 % (issue 50)."""


WHOLE_MAP_MIN_PRICES = 20
"""A snapshot judged as a whole needs at least this many prices (a small map may move for real)."""


def whole_map_problem(history: pd.DataFrame, snapshot: pd.DataFrame,
                      catalogues: CataloguesFile) -> str | None:
    """Return why a catalogue's snapshot (catalogue_history.snapshot_table) reads as a whole
    map in another unit, or None: most of its prices above the text ceiling, or its prices
    moved more than FACTOR times at the median against the history's prices in force."""
    prices = snapshot["usd_per_mtok"].astype(float)
    ceiling = catalogues.ceilings_usd_per_mtok.get(TEXT)
    if ceiling is not None and len(prices) >= WHOLE_MAP_MIN_PRICES:
        share = float((prices > ceiling).mean())
        if share > 0.5:
            return (f"{share:.0%} of its prices are above the ceiling of ${ceiling:,.0f} per "
                    "Mtok: a whole map in another unit?")
    both = history[history["gone_seen"] == ""].merge(snapshot, on=KEY, suffixes=("_old", ""))
    old, new = both["usd_per_mtok_old"].astype(float), both["usd_per_mtok"].astype(float)
    both = both[(old > 0) & (new > 0)]
    if len(both) < WHOLE_MAP_MIN_PRICES:
        return None
    ratio = float(np.median(new[both.index] / old[both.index]))
    if 1 / FACTOR <= ratio <= FACTOR:
        return None
    times = ratio if ratio > 1 else 1 / ratio
    return (f"its prices moved ×{round_times(times)} {'up' if ratio > 1 else 'down'} at the "
            f"median against the last good snapshot ({len(both):,} prices): a whole map in "
            "another unit?")


def lost_listings_problem(history: pd.DataFrame, snapshot: pd.DataFrame,
                          at: dt.datetime) -> str | None:
    """Return why a snapshot seen at `at` looks like a partial export, or None: it lacks more
    than LOST_SHARE of the most listings (provider and model) the history held at any time
    within LOST_WINDOW before `at`, now included."""
    listing = ["catalogue_provider", "model"]
    present = pd.MultiIndex.from_frame(snapshot[listing].drop_duplicates())
    held = history.loc[history["gone_seen"] == "", listing].drop_duplicates()
    since = snapshot_time(at - LOST_WINDOW)
    window = history[(history["gone_seen"] == "") | (history["gone_seen"] > since)]
    seen = pd.MultiIndex.from_frame(window[listing])
    # The most held at any time lacks at most every listing of the window the snapshot lacks,
    # and is no fewer than those held now: most runs stop here, without a count per snapshot.
    if len(seen[~seen.isin(present)].unique()) <= LOST_SHARE * len(held):
        return None
    day, most = _most_listings(window, seen, since)
    if len(most) < WHOLE_MAP_MIN_PRICES:
        return None
    lost = int((~most.isin(present)).sum())
    if lost <= LOST_SHARE * len(most):
        return None
    return (f"it lacks {lost:,} of the {len(most):,} listings in force on {day} "
            f"({lost / len(most):.0%}, more than {LOST_SHARE:.0%} within "
            f"{LOST_WINDOW.days} days): a partial export?")


def _most_listings(window: pd.DataFrame, seen: pd.MultiIndex,
                   since: str) -> tuple[str, pd.MultiIndex]:
    """Return the day the history's periods `window` held the most listings from `since` on
    (the latest such snapshot), and those listings. The count changes only at a snapshot, so
    it is taken at `since` and at each snapshot after it."""
    codes, listings = seen.factorize()
    first, gone = window["first_seen"].to_numpy(), window["gone_seen"].to_numpy()

    def held_at(t: str) -> np.ndarray:
        return np.unique(codes[(first <= t) & ((gone == "") | (gone > t))])

    times = [since, *sorted(set(first[first > since]))]
    counts = [len(held_at(t)) for t in times]
    latest = len(counts) - 1 - int(np.argmax(counts[::-1]))
    return times[latest][:10], listings[held_at(times[latest])]


def with_last_good(snapshot: pd.DataFrame, history: pd.DataFrame,
                   unreadable: Iterable[tuple[str, str]]) -> pd.DataFrame:
    """Return `snapshot` with, for each listing (catalogue provider, model) in `unreadable`,
    the history's prices in force that the snapshot lacks: a price that does not read keeps the
    last good one instead of reading as delisted."""
    pairs = list(set(unreadable))
    if not pairs:
        return snapshot
    open_rows = history[history["gone_seen"] == ""]
    mine = pd.MultiIndex.from_frame(open_rows[["catalogue_provider", "model"]]).isin(
        pd.MultiIndex.from_tuples(pairs))
    kept = open_rows[mine]
    kept = kept[~pd.MultiIndex.from_frame(kept[KEY]).isin(pd.MultiIndex.from_frame(snapshot[KEY]))]
    if kept.empty:
        return snapshot
    columns = list(snapshot.columns)
    return pd.concat([snapshot, kept[columns]], ignore_index=True).sort_values(
        KEY, kind="stable", ignore_index=True)
