"""Pure: how much the *same* listings got cheaper, apart from cheaper new ones arriving.

A listing is one provider's price of one model from one source (a curated file, or a published
catalogue's history), as the Market has it on a date: the rest-of-week, base-band, realtime
input, cached-input and output prices in USD per million tokens, a curated record winning over
the catalogues for the same provider and model (tables/market.py), held-back listings out.

The index is a chained Jevons index, the method statistical offices use for an elementary
aggregate without weights: between two successive dates of the grid, each listing priced at
both gives a price relative (new / old); the step's link is the geometric mean of those
relatives, and the index is the product of the links since its base date (100). A listing that
enters or leaves between two dates is in no relative of that step, so a new cheap model does
not move it; the unmatched average beside it (the geometric mean of every listed price at a
date, as an index of the same base) does move, and the gap between the two is what entries and
exits did. A free price (0) has no relative and is in neither. A step with no matched listing
leaves the index where it was (its `matched` says 0).

Computed per meter (input, cached input, output) and for the 3:1 blend (three input tokens to
one output token, realtime, no cache hits: (3 × input + output) / 4), overall and per segment:
each provider's first-party models (the seller is the model's maker), open-weight models at
third-party hosts, and price bands by a listing's 3:1 blend at the first date it is seen (fixed
then, so a cut never moves a listing out of its band).

Every figure at a date reads only the prices in force at the grid's dates up to it: a
catalogue's periods start at the snapshot that first showed them, so nothing later reaches back.
"""

from __future__ import annotations

import bisect
import datetime as dt
from collections.abc import Mapping, Sequence

import numpy as np
import pandas as pd

from pipeline.models.prices import PriceFile
from pipeline.models.rates import RateTable
from pipeline.models.sourced import Sourced
from pipeline.tables.catalogue_history import snapshot_time
from pipeline.tables.cost import day_end
from pipeline.tables.market import curated_rows

METERS = ("input", "cached_input", "output")
INDEX_METERS = (*METERS, "blend_3_1")
"""The meters an index is computed for: each listed meter and the 3:1 blend."""
BLEND_INPUT_SHARE = 0.75
"""The 3:1 blend: three input tokens to one output token."""
BANDS_USD_PER_MTOK = (1.0, 10.0)
"""The band edges of a listing's 3:1 blend at its first date: under $1, $1 to $10, $10 and up
per million tokens (roughly the small, middle and frontier tiers of 2026's lists)."""
BAND_NAMES = ("band-under-1", "band-1-to-10", "band-10-and-up")
OVERALL = "all"
FIRST_PARTY = "first-party"
OPEN_AT_HOSTS = "open-weight-hosted"
SEGMENT_TITLES = {
    OVERALL: "All listings",
    FIRST_PARTY: "First-party (the maker sells it)",
    OPEN_AT_HOSTS: "Open-weight models at third-party hosts",
    BAND_NAMES[0]: "Under $1 per Mtok (3:1 blend, first seen)",
    BAND_NAMES[1]: "$1 to $10 per Mtok",
    BAND_NAMES[2]: "$10 and up per Mtok",
}
"""Each segment's id (as `index.csv` names it) and its title, in the order pages list them."""
LISTING = ["source", "provider", "catalogue_provider", "model"]
"""What makes a listing: a price of one source is matched only with the same source's."""
PRICE_COLUMNS = ["date", *LISTING, *(f"{m}_usd_per_mtok" for m in METERS), "source_url"]
INDEX_COLUMNS = ("date", "segment", "meter", "matched", "listed", "link", "index",
                 "average_usd_per_mtok", "average_index")
"""The columns of `data/index.csv`, one row per date, segment and meter: the listings matched
by the step ending at the date (0 at the base date), those priced at the date, the step's link
(the geometric mean of its price relatives), the chained index (100 at the first date), the
geometric mean of every listed price at the date (USD per million tokens) and it as an index of
the same base."""


def grid_dates(start: dt.date, editions: Sequence[dt.date], end: dt.date) -> list[dt.date]:
    """Return the index's dates: every seventh day from `start` up to `end`, and the edition
    dates from `start` on. The weeks count from the start of the histories, not from an edition,
    so a new edition adds a date after the others and changes no earlier step."""
    weeks = [start + dt.timedelta(days=7 * k) for k in range((end - start).days // 7 + 1)]
    return sorted({*weeks, *(d for d in editions if start <= d <= end)})


def catalogue_prices(history: pd.DataFrame, source: str, source_url: str,
                     dates: Sequence[dt.date]) -> pd.DataFrame:
    """Return PRICE_COLUMNS for each listing a catalogue's history (tables/catalogue_history.py)
    prices at the end of each of `dates` (sorted), as tables/market.catalogue_rows reads one
    date: realtime, all day, the base context band, the default cache lifetime, within the
    catalogue's own from/to dates; one of the catalogue's providers per provider and model (the
    first in key order, whole)."""
    ends = np.array([snapshot_time(day_end(d)) for d in dates])
    days = np.array([d.isoformat() for d in dates])
    h = history[(history["mode"] == "realtime") & (history["window_utc"] == "")
                & (history["context_above_tokens"] == "0")
                & history["ttl_minutes"].isin(["", "5"]) & history["meter"].isin(METERS)]
    # Each period is live at the dates from the first after it was seen until the first at or
    # after it was gone (history strings sort as times), within its own from/to dates.
    first = np.maximum(np.searchsorted(ends, h["first_seen"].to_numpy(dtype=str), "left"),
                       np.searchsorted(days, h["from_date"].to_numpy(dtype=str), "left"))
    gone = h["gone_seen"].to_numpy(dtype=str)
    until = h["to_date"].to_numpy(dtype=str)
    last = np.minimum(np.where(gone == "", len(dates), np.searchsorted(ends, gone, "left")),
                      np.where(until == "", len(dates), np.searchsorted(days, until, "left")))
    count = np.maximum(last - first, 0)
    # In integer codes from here: a year of daily snapshots expands to millions of prices,
    # where pandas' unstack and drop_duplicates on text columns took seconds.
    keys = ["provider", "catalogue_provider", "model"]
    listing = h.groupby(keys, sort=True).ngroup().to_numpy()  # sorted: in key order
    meter = pd.Index(METERS).get_indexer(h["meter"])
    rows = np.repeat(np.arange(len(h)), count)
    # Each repeated row's date: its first date plus its place within its run.
    date = np.repeat(first, count) + np.arange(len(rows)) - np.repeat(np.cumsum(count) - count,
                                                                       count)
    code = date * (listing.max(initial=0) + 1) + listing[rows]
    # Two periods of one key at once (a ttl of none and of five minutes): the first in the
    # history's order wins, as catalogue_rows' pivot takes the first.
    order = np.lexsort((rows, meter[rows], code))
    code, rows = code[order], rows[order]
    firsts = np.ones(len(rows), dtype=bool)
    firsts[1:] = (code[1:] != code[:-1]) | (meter[rows][1:] != meter[rows][:-1])
    code, rows = code[firsts], rows[firsts]
    cells, at = np.unique(code, return_inverse=True)
    wide = np.full((len(cells), len(METERS)), np.nan)
    wide[at, meter[rows]] = h["usd_per_mtok"].to_numpy(dtype=float)[rows]
    cell_row = np.zeros(len(cells), dtype=int)
    cell_row[at] = rows  # any row of the cell: they share the listing and the date
    kept = ~np.isnan(wide[:, [0, 2]]).all(axis=1)  # an input or an output price
    cells, wide, cell_row = cells[kept], wide[kept], cell_row[kept]
    out = h.iloc[cell_row][keys].reset_index(drop=True)
    out["date"] = np.asarray(dates, dtype=object)[cells // (listing.max(initial=0) + 1)]
    for i, m in enumerate(METERS):
        out[f"{m}_usd_per_mtok"] = wide[:, i]
    # One of the catalogue's providers per provider and model: the first in key order (cells
    # are in date, then key order).
    out = out.drop_duplicates(["date", "provider", "model"]).assign(source=source,
                                                                    source_url=source_url)
    return out[PRICE_COLUMNS].reset_index(drop=True)


def curated_change_days(files: Mapping[str, Sourced[PriceFile]]) -> list[dt.date]:
    """Return the days a curated price can change on: each record's first and last (UTC)."""
    return sorted({d for sourced in files.values() for plist in sourced.model.lists
                   for r in plist.records
                   for d in (r.from_.astimezone(dt.UTC).date(),
                             r.to.astimezone(dt.UTC).date() if r.to else None) if d})


def curated_prices(files: Mapping[str, Sourced[PriceFile]], rates: RateTable,
                   dates: Sequence[dt.date]) -> pd.DataFrame:
    """Return PRICE_COLUMNS of the curated files at the end of each of `dates`, as
    tables/market.curated_rows reads one date (the quoted list, USD at the rate of the
    record's date). The rows change only on curated_change_days, so they are read once for each
    of those and carried to the dates after it."""
    last = max(dates, default=None)
    days = [d for d in curated_change_days(files) if last is not None and d <= last]
    blocks = [curated_rows(files, rates, d, hours=False).assign(block=i)
              for i, d in enumerate(days)]
    rows = pd.concat(blocks, ignore_index=True) if blocks else pd.DataFrame()
    if rows.empty:
        return pd.DataFrame(columns=PRICE_COLUMNS)
    # Each date takes the rows of the last change day on or before it: each day's block of
    # rows repeated once for each of its dates, in one selection.
    block_of = np.array([bisect.bisect_right(days, d) - 1 for d in dates])
    grid = np.asarray(list(dates), dtype=object)
    positions, on = [], []
    by_block = rows.groupby("block").indices
    for block, at in by_block.items():
        when = np.flatnonzero(block_of == block)
        positions.append(np.tile(at, len(when)))
        on.append(np.repeat(grid[when], len(at)))
    out = rows.iloc[np.concatenate(positions)].assign(
        date=np.concatenate(on), source="curated", catalogue_provider="")
    return out.sort_values("date", kind="stable")[PRICE_COLUMNS].reset_index(drop=True)


def history_start(histories: Mapping[str, pd.DataFrame],
                  files: Mapping[str, Sourced[PriceFile]]) -> dt.date | None:
    """Return the first day any catalogue history or curated record prices anything."""
    days = [dt.date.fromisoformat(h["first_seen"].min()[:10]) for h in histories.values()
            if len(h)]
    curated = curated_change_days(files)
    return min([*days, *curated[:1]], default=None)


def codes(frame: pd.DataFrame, columns: Sequence[str], fold: str = "") -> np.ndarray:
    """Return one integer per row, equal where the rows' `columns` are (`fold`: a column
    compared case-folded): what duplicates and groups are found by. Each column is factorized
    once (text compared a million times took seconds at a year's scale)."""
    code = np.zeros(len(frame), dtype=np.int64)
    for column in columns:
        found, uniques = pd.factorize(frame[column])
        if column == fold:
            found = pd.factorize(pd.Index(uniques, dtype=object).str.casefold())[0][found]
        code = code * (len(uniques) + 1) + (found + 1)
        code = pd.factorize(code)[0].astype(np.int64)  # dense again: no overflow
    return code


def listed_prices(parts: Sequence[pd.DataFrame]) -> pd.DataFrame:
    """Return the listings of every date from `parts` in order of precedence (the curated
    prices, then each catalogue's in the order listed), as tables/market.market_table keeps
    one row per provider and model (ids compared case-folded), with `blend_3_1_usd_per_mtok`
    and `listing`, a number per listing (LISTING)."""
    prices = pd.concat([p for p in parts if len(p)], ignore_index=True) if any(
        len(p) for p in parts) else pd.DataFrame(columns=PRICE_COLUMNS)
    same = codes(prices, ["date", "provider", "model"], fold="model")
    prices = prices[~pd.Series(same).duplicated(keep="first").to_numpy()].reset_index(drop=True)
    prices = prices.astype({f"{m}_usd_per_mtok": float for m in METERS})
    prices["blend_3_1_usd_per_mtok"] = (BLEND_INPUT_SHARE * prices["input_usd_per_mtok"]
                                        + (1 - BLEND_INPUT_SHARE) * prices["output_usd_per_mtok"])
    prices["listing"] = codes(prices, LISTING)
    return prices


def segments(prices: pd.DataFrame, makers: pd.DataFrame) -> pd.DataFrame:
    """Return LISTING, `listing` and `segment`, one row per listing and segment it is in:
    OVERALL, the first-party and open-weight-at-hosts segments by `makers` (one row per model
    id: `model`, `maker`, `open_weight`; a model without a maker is in neither), and its price
    band.

    Bands: by the listing's 3:1 blend at the first date it has one (a listing with no blend at
    any date is in no band)."""
    ids = prices["listing"].to_numpy()
    first = np.unique(ids, return_index=True)[1]
    listings = prices.iloc[first][[*LISTING, "listing"]].reset_index(drop=True)
    who = listings.merge(makers, on="model", how="left")
    maker = who["maker"].fillna("")
    known = maker != ""
    first_party = who[known & (maker == who["provider"])]
    hosted = who[known & (maker != who["provider"]) & who["open_weight"].fillna(False).astype(bool)]
    blend = prices["blend_3_1_usd_per_mtok"].to_numpy()
    dated = pd.Index(sorted(set(prices["date"]))).get_indexer(prices["date"])
    priced = np.flatnonzero(blend > 0)
    order = priced[np.lexsort((dated[priced], ids[priced]))]
    seen = order[np.unique(ids[order], return_index=True)[1]]  # each listing's first blend
    band = np.searchsorted(np.array(BANDS_USD_PER_MTOK), blend[seen], "right")
    banded = prices.iloc[seen][[*LISTING, "listing"]].assign(segment=np.array(BAND_NAMES)[band])
    columns = [*LISTING, "listing"]
    parts = [listings.assign(segment=OVERALL), first_party[columns].assign(segment=FIRST_PARTY),
             hosted[columns].assign(segment=OPEN_AT_HOSTS), banded]
    return pd.concat(parts, ignore_index=True)


def relatives(prices: pd.DataFrame, meter: str, dates: Sequence[dt.date]) -> pd.DataFrame:
    """Return one row per listing priced above zero at two successive `dates` (the grid,
    sorted): LISTING, `date` (the later), `old_usd_per_mtok`,
    `new_usd_per_mtok`, `relative` (new / old) for `meter` (one of INDEX_METERS)."""
    column = f"{meter}_usd_per_mtok"
    step = {d: i for i, d in enumerate(dates)}
    priced = prices[prices[column] > 0][[*LISTING, "date", column]]
    priced = priced.assign(step=priced["date"].map(step))
    before = priced.assign(step=priced["step"] + 1).drop(columns="date")
    both = priced.merge(before, on=[*LISTING, "step"], suffixes=("", "_old"))
    return pd.DataFrame({
        **{k: both[k] for k in LISTING}, "date": both["date"],
        "old_usd_per_mtok": both[f"{column}_old"], "new_usd_per_mtok": both[column],
        "relative": both[column] / both[f"{column}_old"]}).reset_index(drop=True)


def price_index(prices: pd.DataFrame, membership: pd.DataFrame,
                dates: Sequence[dt.date]) -> pd.DataFrame:
    """Return INDEX_COLUMNS for each of `dates` (the grid, sorted) from `prices` (listed_prices),
    per segment of `membership` (segments) and meter of INDEX_METERS; a segment with no listing
    at all is left out. Its base (100) is the first date.

    In whole-array passes (numpy's bincount per date), not a merge per step: a year of daily
    editions over a few thousand listings is over a million prices."""
    dates = list(dates)
    step = pd.Index(dates).get_indexer(prices["date"])
    listing = prices["listing"].to_numpy()
    count = int(listing.max(initial=-1)) + 1
    member = membership
    out = []
    for meter in INDEX_METERS:
        usd = prices[f"{meter}_usd_per_mtok"].to_numpy(dtype=float)
        priced = np.flatnonzero(usd > 0)  # NaN is not above zero
        order = priced[np.lexsort((step[priced], listing[priced]))]
        who, when, log_usd = listing[order], step[order], np.log(usd[order])
        # A relative: the same listing at two successive dates of the grid.
        pair = (who[1:] == who[:-1]) & (when[1:] == when[:-1] + 1)
        rel_who, rel_when = who[1:][pair], when[1:][pair]
        log_rel = (log_usd[1:] - log_usd[:-1])[pair]
        for segment in [s for s in SEGMENT_TITLES if s in set(member["segment"])]:
            inside = np.zeros(count, dtype=bool)
            inside[member.loc[member["segment"] == segment, "listing"].to_numpy()] = True
            here = inside[who]
            listed = np.bincount(when[here], minlength=len(dates))
            if not listed.any():
                continue
            sum_log = np.bincount(when[here], weights=log_usd[here], minlength=len(dates))
            counted = inside[rel_who]
            matched = np.bincount(rel_when[counted], minlength=len(dates))
            sum_rel = np.bincount(rel_when[counted], weights=log_rel[counted],
                                  minlength=len(dates))
            log_link = np.divide(sum_rel, matched, out=np.zeros(len(dates)), where=matched > 0)
            with np.errstate(invalid="ignore", divide="ignore"):
                log_mean = np.where(listed > 0, sum_log / np.maximum(listed, 1), np.nan)
            base = log_mean[np.flatnonzero(listed)[0]]
            out.append(pd.DataFrame({
                "date": dates, "segment": segment, "meter": meter, "matched": matched,
                "listed": listed, "link": np.exp(log_link),
                "index": 100 * np.exp(np.cumsum(log_link)),
                "average_usd_per_mtok": np.exp(log_mean),
                "average_index": 100 * np.exp(log_mean - base)}))
    if not out:
        return pd.DataFrame(columns=list(INDEX_COLUMNS))
    return pd.concat(out, ignore_index=True)[list(INDEX_COLUMNS)]


def change_between(index: pd.DataFrame, since: dt.date, until: dt.date,
                   segment: str = OVERALL, meter: str = "blend_3_1") -> float | None:
    """Return the index's change from `since` to `until` (dates of its grid) as a fraction
    (-0.1: ten per cent cheaper), None when either date is not in it."""
    rows = index[(index["segment"] == segment) & (index["meter"] == meter)].set_index("date")
    if since not in rows.index or until not in rows.index:
        return None
    return float(rows.at[until, "index"] / rows.at[since, "index"] - 1)


def year_before(dates: Sequence[dt.date], day: dt.date) -> dt.date:
    """Return the grid date a year's change from `day` starts at: the last on or before 52
    weeks earlier (a weekly grid has that date, 365 days would reach a week further back),
    else the first (a history shorter than a year: since its start)."""
    earlier = [d for d in dates if d <= day - dt.timedelta(days=364)]
    return earlier[-1] if earlier else min(dates)


SPELL_COLUMNS = ("source", "provider", "catalogue_provider", "model", "from_date", "to_date",
                 *(f"{m}_usd_per_mtok" for m in METERS), "source_file", "source_url")
"""The columns of `data/index-prices.csv`: every price the index read, one row per listing and
run of dates at the same prices."""


def price_spells(prices: pd.DataFrame, dates: Sequence[dt.date],
                 source_files: Mapping[str, str]) -> pd.DataFrame:
    """Return SPELL_COLUMNS: each listing's prices (listed_prices) as runs of successive grid
    `dates` at the same input, cached-input and output prices, from the first date of a run to
    its last; `source_files`: each source's file (a catalogue's history, by its id; a curated
    provider's file, by `curated/<provider>`), where the price is the row of that listing in
    force on `from_date`."""
    step = pd.Index(list(dates)).get_indexer(prices["date"])
    columns = [f"{m}_usd_per_mtok" for m in METERS]
    p = prices.assign(step=step).sort_values([*LISTING, "step"], kind="stable",
                                             ignore_index=True)
    same_listing = (p[LISTING] == p[LISTING].shift()).all(axis=1)
    # NaN equals NaN here: a meter a listing never prices is no change.
    same_prices = ((p[columns] == p[columns].shift()) | (p[columns].isna()
                                                        & p[columns].shift().isna())).all(axis=1)
    starts = ~(same_listing & same_prices & (p["step"] == p["step"].shift() + 1))
    run = starts.cumsum()
    first = p[starts.to_numpy()]
    last_step = p.groupby(run)["step"].max().to_numpy()
    key = np.where(first["source"] == "curated", "curated/" + first["provider"], first["source"])
    grid = np.asarray(list(dates), dtype=object)
    return first.assign(from_date=first["date"].astype(str), to_date=grid[last_step].astype(str),
                        source_file=[source_files.get(k, "") for k in key]
                        )[list(SPELL_COLUMNS)].reset_index(drop=True)
