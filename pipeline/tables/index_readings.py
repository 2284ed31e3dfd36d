"""Pure: what a move of the same-model index (tables/price_index.py) rests on, and whether it is
a market figure at all.

A chained Jevons step is the mean of its listings' log price relatives, so each listing that
moved adds ln(new ÷ old) ÷ matched to the log of the index: its contribution. Over a period
(several steps) the contributions add up, and each listing's share of the period's log-change
is its contribution over the period's. A step or a period is a market figure only when every
step of it matched at least MIN_MATCHED listings and no one listing carries more than
ONE_LISTING_SHARE of its log-change (issue 49, point 5): a catalogue catching up with one old
cut moved the index by 13 % in a week of 18 listings, which is a fact about that listing, not
about the market.
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
import pandas as pd

from pipeline.tables import price_index as pi
from pipeline.tables.price_index import LISTING

MIN_MATCHED = 30
"""A step or period whose thinnest step matched fewer listings is not a market figure."""
ONE_LISTING_SHARE = 0.5
"""A step or period more than half of whose log-change is one listing is not a market figure."""
CATCH_UP_DAYS = 14
"""A listing moved to a price another source of the same provider and model had listed at least
this many days before is said to catch up with it (a catalogue late with a price change)."""
CONTRIBUTION_COLUMNS = ("date", "previous_date", "matched", "step_change", *LISTING,
                        "old_usd_per_mtok", "new_usd_per_mtok", "log_relative",
                        "log_contribution", "share_of_step", "elsewhere_source",
                        "elsewhere_since")
"""The columns of `data/index-contributions.csv`: one row per step and listing whose price
moved in it."""


def contributions(prices: pd.DataFrame, dates: Sequence[dt.date], meter: str = "blend_3_1",
                  members: np.ndarray | None = None, known: pd.DataFrame | None = None,
                  every: pd.DataFrame | None = None) -> pd.DataFrame:
    """Return CONTRIBUTION_COLUMNS: every listing of `prices` (tables/price_index.listed_prices;
    `members`: only these `listing` numbers) whose `meter` price moved between two successive
    `dates` (the grid, sorted), largest move of each step first; `matched`: the listings priced
    above zero at both ends of the step; `step_change`: the step's link − 1; `share_of_step`: the
    listing's ln(relative) over the sum of the step's (NaN when the moves cancel out);
    `elsewhere_*`: the other source that listed the new price first, and from when, where one
    did at least CATCH_UP_DAYS before the step (caught_up) among `every` source's prices
    (PRICE_COLUMNS, before the market keeps one per provider and model; default `prices`), or as
    `known` (contributions of the same meter over more listings) has them: they are the
    listing's, whatever the segment."""
    dates = list(dates)
    p = prices if members is None else prices[prices["listing"].isin(members)]
    usd = p[f"{meter}_usd_per_mtok"].to_numpy(dtype=float)
    step = pd.Index(dates).get_indexer(p["date"])
    listing = p["listing"].to_numpy()
    priced = np.flatnonzero(usd > 0)  # NaN is not above zero
    order = priced[np.lexsort((step[priced], listing[priced]))]
    who, when, log_usd = listing[order], step[order], np.log(usd[order])
    pair = (who[1:] == who[:-1]) & (when[1:] == when[:-1] + 1)
    log_rel = (log_usd[1:] - log_usd[:-1])[pair]
    rel_when = when[1:][pair]
    matched = np.bincount(rel_when, minlength=len(dates))
    total = np.bincount(rel_when, weights=log_rel, minlength=len(dates))
    moved = log_rel != 0
    new_at, old_at = order[1:][pair][moved], order[:-1][pair][moved]
    at = rel_when[moved]
    rows = p.iloc[new_at]
    with np.errstate(invalid="ignore", divide="ignore"):
        share = np.where(np.abs(total[at]) > 1e-12, log_rel[moved] / total[at], np.nan)
    out = pd.DataFrame({
        "date": rows["date"].to_numpy(), "previous_date": np.asarray(dates, dtype=object)[at - 1],
        "matched": matched[at], "step_change": np.exp(total[at] / matched[at]) - 1,
        **{k: rows[k].to_numpy() for k in LISTING},
        "old_usd_per_mtok": usd[old_at], "new_usd_per_mtok": usd[new_at],
        "log_relative": log_rel[moved], "log_contribution": log_rel[moved] / matched[at],
        "share_of_step": share})
    out = out.assign(size=-np.abs(out["log_relative"])).sort_values(
        ["date", "size", "source", "provider", "model"], kind="stable").drop(columns="size")
    out = out.reset_index(drop=True)
    if known is None:
        return caught_up(prices if every is None else every, out, meter)
    late = ["date", *LISTING, "elsewhere_source", "elsewhere_since"]
    return out.merge(known[late], on=late[:-2], how="left").fillna(
        {"elsewhere_source": "", "elsewhere_since": ""})


def caught_up(prices: pd.DataFrame, moves: pd.DataFrame, meter: str) -> pd.DataFrame:
    """Return `moves` with `elsewhere_source` and `elsewhere_since`: for each move, the first
    date another source listed the same provider and model (ids compared case-folded) at its
    new price (within 0.5 %), where that is at least CATCH_UP_DAYS before the move's step; else
    empty. What the data can tell of how late a catalogue was with a price change."""
    out = moves.assign(elsewhere_source="", elsewhere_since="")
    if moves.empty:
        return out
    # One join of the moves with the prices of their own provider and model (a few hundred
    # moves, a few hundred dates each), not a filter of the whole table per move.
    models = prices[prices["model"].str.casefold().isin(set(moves["model"].str.casefold()))]
    column = f"{meter}_usd_per_mtok"
    usd = (models[column] if column in models.columns
           else pi.BLEND_INPUT_SHARE * models["input_usd_per_mtok"].astype(float)
           + (1 - pi.BLEND_INPUT_SHARE) * models["output_usd_per_mtok"].astype(float))
    seen = pd.DataFrame({"provider": models["provider"], "folded": models["model"].str.casefold(),
                         "other": models["source"], "seen": models["date"], "usd": usd})
    # Only the first date each source listed each price counts: a price listed for a year of
    # daily snapshots is one row, not 365, in the join below.
    seen = seen.sort_values("seen", kind="stable").drop_duplicates(
        ["provider", "folded", "other", "usd"])
    both = moves.assign(move=np.arange(len(moves)), folded=moves["model"].str.casefold()).merge(
        seen, on=["provider", "folded"])
    both = both[(both["other"] != both["source"])
                & ((both["usd"] / both["new_usd_per_mtok"] - 1).abs() <= 0.005)]
    first = both.sort_values(["move", "seen"], kind="stable").drop_duplicates("move")
    late = first[np.array([(p - s).days >= CATCH_UP_DAYS
                           for p, s in zip(first["previous_date"], first["seen"])], dtype=bool)]
    source = np.full(len(moves), "", dtype=object)
    since = np.full(len(moves), "", dtype=object)
    source[late["move"].to_numpy()] = late["other"].to_numpy()
    since[late["move"].to_numpy()] = [d.isoformat() for d in late["seen"]]
    return out.assign(elsewhere_source=source, elsewhere_since=since)


@dataclass(frozen=True)
class Reading:
    """A change of the index between two dates of its grid, and what it rests on."""

    since: dt.date
    until: dt.date
    change: float
    """The index at `until` over the index at `since`, − 1."""
    steps: int
    """The steps between the two dates."""
    fewest: int
    """The fewest listings any of those steps matched (priced at both of its ends)."""
    thinnest: dt.date | None
    """The end of the step that matched the fewest (None without steps)."""
    top: pd.DataFrame
    """The moves (CONTRIBUTION_COLUMNS) of the listing with the largest share of the period's
    log-change in its direction, oldest first; empty when nothing moved."""
    top_share: float
    """That listing's share of the period's log-change (0 when nothing moved)."""
    movers: int
    """Listings whose price moved within the period."""

    @property
    def too_thin(self) -> bool:
        """Whether a step of the period matched fewer than MIN_MATCHED listings."""
        return self.fewest < MIN_MATCHED

    @property
    def one_listing(self) -> bool:
        """Whether more than ONE_LISTING_SHARE of the period's move is one listing (a move
        that rounds to nothing at 0.1 % is nobody's)."""
        return (self.top_share > ONE_LISTING_SHARE + 1e-9  # exactly half is not "more than"
                and round(abs(self.change) * 100, 1) > 0)

    @property
    def is_market_figure(self) -> bool:
        """Whether the change can be printed as the market's."""
        return not self.too_thin and not self.one_listing


def reading(rows: pd.DataFrame, moves: pd.DataFrame, since: dt.date,
            until: dt.date) -> Reading:
    """Return what the change from `since` to `until` rests on: `rows`, one segment's and
    meter's index rows (INDEX_COLUMNS) by date; `moves`, their contributions()."""
    steps = rows[(rows.index > since) & (rows.index <= until)]
    change = float(rows.at[until, "index"] / rows.at[since, "index"] - 1)
    fewest = int(steps["matched"].min()) if len(steps) else 0
    thinnest = steps["matched"].idxmin() if len(steps) else None
    inside = moves[(moves["date"] > since) & (moves["date"] <= until)]
    total = float(np.log1p(change))
    top, share = inside.iloc[:0], 0.0
    if len(inside) and abs(total) > 1e-9:
        per = inside.groupby(LISTING, sort=True)["log_contribution"].sum() / total
        key = per.idxmax()
        share = float(per.max())
        chosen = (inside[LISTING] == pd.Series(key, index=LISTING)).all(axis=1)
        top = inside[chosen].sort_values("date", kind="stable")
    movers = len(inside.drop_duplicates(LISTING))
    return Reading(since, until, change, len(steps), fewest, thinnest, top, share, movers)
