"""Pure: the blended price of every quoted model at a set of instants, for every workload
profile, as one pandas table built in whole-table passes:

- the record in force at each instant, by an interval join: `merge_asof` on the periods' starts
  (a period holds from its start, inclusive), then a cut at their ends (exclusive);
- each record's blend per profile: tiers chosen for every record at once (mode, context band,
  batch discount; no blend with cache hits for a record without a cache price); a record with time
  windows is weighted per week by its windows' share of the week in their time zone
  (normalize/windows.py), so a DST change or a weekday-only window moves its blend;
- USD per Mtok by an as-of join on the ECB table: the last fixing on or before the record's
  effective date, with the rate and its date kept beside the figure.

What the editions and the Prices page ask of blended prices (the cheapest model, the blends
that moved, an edition's chart, the page's tables, `data/blended.csv`) are selections of it.

No look-ahead guard on prices in force: a record's `checked` is the day it was last checked, not
the day it became known, so a guard on it would hide a long-known price from every edition
before its latest check. Only the radar uses `checked` (a future price is shown once someone has
seen it); a first-seen date comes with the catalogue snapshots (issue 20).
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass

import numpy as np
import pandas as pd

from pipeline.models.prices import PriceFile, PriceList, PriceRecord, WorkloadProfile
from pipeline.models.rates import RateTable
from pipeline.models.sourced import Sourced
from pipeline.normalize.units import per_mtok
from pipeline.tables.cost import blended_per_mtok, day_end, week_start

EPOCH = dt.datetime(1970, 1, 1, tzinfo=dt.UTC)
OPEN_END = np.iinfo(np.int64).max
"""The end of a period that has not ended, in microseconds."""
BLEND_METERS = ("input", "cached_input", "output")
BLENDED_COLUMNS = ("provider", "model", "profile", "as_of", "usd_per_mtok", "tokens_per_usd")
"""The columns of `data/blended.csv` (Quotes.blended_rows)."""


def micros(at: dt.datetime) -> int:
    """Return a UTC instant as microseconds since 1970, the table's time axis."""
    return (at - EPOCH) // dt.timedelta(microseconds=1)


def instant(us: int) -> dt.datetime:
    """Return the UTC instant of `micros`."""
    return EPOCH + dt.timedelta(microseconds=int(us))


@dataclass(frozen=True)
class Quoted:
    """A record of a model's quoted list (`PriceFile.quote_lists`): the provider, the file, the
    list and the record, by the row id the tables use."""

    provider: str
    sourced: Sourced[PriceFile]
    plist: PriceList
    record: PriceRecord


@dataclass(frozen=True)
class Quote:
    """One model's blended price in USD at one instant for one profile, with what it came from
    (a model the ECB has no rate for is in the table, never a Quote)."""

    quoted: Quoted
    list_per_mtok: float
    """In the list's currency."""
    usd_per_mtok: float
    tokens_per_usd: float
    fx_usd_per_unit: float
    fx_date: dt.date


@dataclass(frozen=True, eq=False)
class Quotes:
    """The blended prices of the quoted models at each instant asked, per profile.

    `table` has one row per instant, profile and model in force: `at` (micros), `profile` (its
    position), `key` (the model's position: providers by id, then each file's models in its
    quote order), `rid` (the record's position in `records`), `list_per_mtok` (NaN when the
    input or output price is missing), `usd_per_mtok`, `tokens_per_usd`, `fx_usd_per_unit`,
    and `fx_day` (the fixing's ordinal day); ordered by profile, at and key."""

    table: pd.DataFrame
    records: tuple[Quoted, ...]
    profiles: tuple[WorkloadProfile, ...]
    instants: frozenset[int]
    """The instants the table was built for (micros), models in force at them or not."""

    def __post_init__(self) -> None:
        # Each (instant, profile) is one contiguous run of rows: found by bisection.
        at, profile = self.table["at"].to_numpy(), self.table["profile"].to_numpy()
        starts = np.flatnonzero(np.r_[len(at) > 0, (at[1:] != at[:-1])
                                      | (profile[1:] != profile[:-1])])
        ends = np.r_[starts[1:], len(at)].astype(np.int64)
        runs = {(int(at[s]), int(profile[s])): (int(s), int(e)) for s, e in zip(starts, ends)}
        object.__setattr__(self, "_runs", runs)

    def at(self, at: dt.datetime, profile: WorkloadProfile) -> pd.DataFrame:
        """Return the rows in force at `at` for `profile`, in key order (empty when none).
        Raises KeyError for an instant the table was not built for."""
        us = micros(at)
        if us not in self.instants:
            raise KeyError(f"the quote table has no instant {at.isoformat()}")
        start, end = self._runs.get((us, self.profiles.index(profile)), (0, 0))
        return self.table.iloc[start:end]

    def quote(self, row) -> Quote:
        """Return the Quote of one row of `table` priced in USD (from `itertuples`)."""
        return Quote(self.records[row.rid], float(row.list_per_mtok), float(row.usd_per_mtok),
                     float(row.tokens_per_usd), float(row.fx_usd_per_unit),
                     dt.date.fromordinal(int(row.fx_day)))

    def cheapest(self, at: dt.datetime, profile: WorkloadProfile) -> Quote | None:
        """Return the quote with the fewest USD per Mtok at `at` (the first in key order of
        equals), or None when no model is priced in USD then."""
        rows = self.at(at, profile)
        usd = rows["usd_per_mtok"].to_numpy()
        if not np.isfinite(usd).any():
            return None
        return self.quote(next(rows.iloc[[int(np.nanargmin(usd))]].itertuples()))

    def priced(self, at: dt.datetime, profile: WorkloadProfile) -> list[Quote]:
        """Return the quotes priced in USD at `at`, in key order."""
        rows = self.at(at, profile)
        return [self.quote(r) for r in rows[rows["usd_per_mtok"].notna()].itertuples()]

    def blend_moves(self, start: dt.datetime, end: dt.datetime,
                    profile: WorkloadProfile) -> list[tuple[float, float, Quoted]]:
        """Return (blend at `start`, blend at `end`, both in the list's currency, the record at
        `end`) of every model priced at both instants with a blend above zero at the first, in
        key order."""
        a = self.at(start, profile)[["key", "list_per_mtok"]]
        b = self.at(end, profile)[["key", "list_per_mtok", "rid"]]
        both = a.merge(b, on="key", suffixes=("_a", "_b")).sort_values("key")
        pa, pb = both["list_per_mtok_a"].to_numpy(), both["list_per_mtok_b"].to_numpy()
        ok = ~np.isnan(pa) & ~np.isnan(pb) & (pa > 0)
        return [(float(x), float(y), self.records[rid])
                for x, y, rid in zip(pa[ok], pb[ok], both["rid"].to_numpy()[ok])]

    def blended_rows(self, dates: Sequence[dt.date]) -> pd.DataFrame:
        """Return `data/blended.csv`'s rows over `dates` (all in the table): each model's blended
        USD per Mtok and tokens per USD per profile on the first date it is priced and on each
        date its blend changed; a row holds until the model's next row or a gap. Ordered by model
        (key), profile and date; columns provider, model, profile, as_of, usd_per_mtok,
        tokens_per_usd."""
        days = sorted(set(dates))
        wanted = np.array([micros(day_end(d)) for d in days], dtype=np.int64)
        if missing := [d for d, us in zip(days, wanted.tolist()) if us not in self.instants]:
            raise KeyError(f"the quote table has no instant for {missing[0].isoformat()}")
        t = self.table
        at, usd = t["at"].to_numpy(), t["usd_per_mtok"].to_numpy()
        keep = np.isin(at, wanted) & ~np.isnan(usd)
        key, profile = t["key"].to_numpy()[keep], t["profile"].to_numpy()[keep]
        rid, usd, tpu = t["rid"].to_numpy()[keep], usd[keep], t["tokens_per_usd"].to_numpy()[keep]
        day = np.searchsorted(wanted, at[keep])
        order = np.lexsort((day, profile, key))
        key, profile, rid, usd, tpu, day = (x[order] for x in (key, profile, rid, usd, tpu, day))
        # A row repeats the one before when it is the next date of the same model and profile
        # with the same figures as the CSV shows them (Python's round: correctly rounded
        # decimals, which numpy's is not). Equal floats round equal, so only the pairs that
        # differ are rounded here.
        run = (key[1:] == key[:-1]) & (profile[1:] == profile[:-1]) & (day[1:] == day[:-1] + 1)
        same = run & (usd[1:] == usd[:-1]) & (tpu[1:] == tpu[:-1])
        usd_f, tpu_f = usd.tolist(), tpu.tolist()  # Python floats: round() on numpy's is slow
        for i in np.flatnonzero(run & ~same).tolist():
            same[i] = (round(usd_f[i + 1], 9) == round(usd_f[i], 9)
                       and round(tpu_f[i + 1], 3) == round(tpu_f[i], 3))
        shown = np.r_[True, ~same] if len(key) else np.zeros(0, dtype=bool)
        return pd.DataFrame({
            "provider": [self.records[r].provider for r in rid[shown]],
            "model": [self.records[r].record.model for r in rid[shown]],
            "profile": [self.profiles[p].id for p in profile[shown]],
            "as_of": [days[d].isoformat() for d in day[shown]],
            "usd_per_mtok": [round(x, 9) for x in usd[shown].tolist()],
            "tokens_per_usd": [round(x, 3) for x in tpu[shown].tolist()]},
            columns=list(BLENDED_COLUMNS))


def quotes(files: Mapping[str, Sourced[PriceFile]], rates: RateTable,
           profiles: Sequence[WorkloadProfile], instants: Iterable[dt.datetime]) -> Quotes:
    """Return the blended prices of every quoted model at each of `instants` per profile."""
    records, periods, tiers = _periods(files)
    profiles = tuple(profiles)
    at = np.array(sorted({micros(i) for i in instants}), dtype=np.int64)
    force = in_force(periods, at)
    fx = _fx(periods, rates).set_index("rid").reindex(np.arange(len(records)))
    rate_of, day_of = fx["fx_usd_per_unit"].to_numpy(), fx["fx_day"].to_numpy()
    # Profile after profile, each over the rows in force (sorted by instant and key), so each
    # (instant, profile) is one run of rows without sorting the table.
    blends = [_blends(records, periods, tiers, p, force) for p in profiles]
    count = len(profiles)
    rid = np.tile(force["rid"].to_numpy(), count)
    list_per_mtok = np.concatenate(blends) if blends else np.zeros(0)
    usd = list_per_mtok * rate_of[rid]
    with np.errstate(divide="ignore", invalid="ignore"):
        # A free price buys unbounded tokens.
        tokens = np.where(usd > 0, 1_000_000 / usd, np.where(np.isnan(usd), np.nan, np.inf))
    table = pd.DataFrame({
        "at": np.tile(force["at"].to_numpy(), count),
        "profile": np.repeat(np.arange(count), len(force)),
        "key": np.tile(force["key"].to_numpy(), count), "rid": rid,
        "list_per_mtok": list_per_mtok, "usd_per_mtok": usd, "tokens_per_usd": tokens,
        "fx_usd_per_unit": rate_of[rid], "fx_day": day_of[rid]})
    return Quotes(table, tuple(records), profiles, frozenset(at.tolist()))


def _periods(files: Mapping[str, Sourced[PriceFile]]
             ) -> tuple[list[Quoted], pd.DataFrame, pd.DataFrame]:
    """Return the quoted records, one row per record (rid, key, currency, start, end, whether
    it has windows, batch discount) and one per record's price (rid, meter, mode, band, per_mtok
    in the list's currency)."""
    records: list[Quoted] = []
    periods, tiers = [], []
    key = 0
    for provider, sourced in sorted(files.items()):
        for model, plist in sourced.model.quote_lists.items():
            for record in plist.periods[model][1]:
                rid = len(records)
                records.append(Quoted(provider, sourced, plist, record))
                periods.append((rid, key, plist.currency, micros(record.from_),
                                OPEN_END if record.to is None else micros(record.to),
                                record.from_.date().toordinal(), record.uses_windows,
                                np.nan if record.batch_discount is None else record.batch_discount))
                # Windows are not kept: a record with windows is blended record by record.
                tiers += [(rid, p.meter, p.mode, p.context_above_tokens, per_mtok(p.price, plist.unit))
                          for p in record.prices if p.meter in BLEND_METERS]
            key += 1
    return (records,
            # Typed, so that no price files at all make empty tables, not a join error.
            pd.DataFrame(periods, columns=["rid", "key", "currency", "start", "end",
                                           "from_day", "windows", "discount"]).astype(
                {"rid": np.int64, "key": np.int64, "currency": object, "start": np.int64,
                 "end": np.int64, "from_day": np.int64, "windows": bool, "discount": float}),
            pd.DataFrame(tiers, columns=["rid", "meter", "mode", "band", "per_mtok"]).astype(
                {"rid": np.int64, "band": np.int64, "per_mtok": float}))


def in_force(periods: pd.DataFrame, at: np.ndarray) -> pd.DataFrame:
    """Return (at, key, rid) for each instant and model with a record in force then."""
    keys = np.unique(periods["key"].to_numpy().astype(np.int64))
    grid = pd.DataFrame({"at": np.repeat(at, len(keys)), "key": np.tile(keys, len(at))})
    starts = periods[["start", "key", "rid", "end"]].sort_values("start", kind="stable")
    # A model's periods never overlap (load/prices.py refuses that): the one in force is the
    # last to start by then, unless it has ended.
    joined = pd.merge_asof(grid, starts, left_on="at", right_on="start", by="key",
                           direction="backward", allow_exact_matches=True)
    joined = joined[joined["rid"].notna() & (joined["at"] < joined["end"])]
    return pd.DataFrame({"at": joined["at"].to_numpy(), "key": joined["key"].to_numpy(),
                         "rid": joined["rid"].to_numpy().astype(np.int64)})


def _fx(periods: pd.DataFrame, rates: RateTable) -> pd.DataFrame:
    """Return (rid, fx_usd_per_unit, fx_day): the ECB rate of each record's effective date (or
    the last fixing before it), NaN where there is none; USD at 1.0 on its own date."""
    usd = periods[periods["currency"] == "USD"]
    out = [pd.DataFrame({"rid": usd["rid"], "fx_usd_per_unit": 1.0, "fx_day": usd["from_day"]})]
    for currency, group in periods[periods["currency"] != "USD"].groupby("currency"):
        days = rates.days.get(currency, ())
        fixings = pd.DataFrame({"fx_day": [d.toordinal() for d in days],
                                "fx_usd_per_unit": rates.usd_per_unit.get(currency, ())},
                               dtype=float)
        left = group[["rid", "from_day"]].sort_values("from_day", kind="stable")
        joined = pd.merge_asof(left.astype({"from_day": float}), fixings, left_on="from_day",
                               right_on="fx_day", direction="backward")
        out.append(joined[["rid", "fx_usd_per_unit", "fx_day"]])
    return pd.concat(out, ignore_index=True)


def _blends(records: list[Quoted], periods: pd.DataFrame, tiers: pd.DataFrame,
            profile: WorkloadProfile, rows: pd.DataFrame) -> np.ndarray:
    """Return the blend in the list's currency of the record of each row of `rows` (NaN when
    its input or output price is missing)."""
    flat = _flat_blends(periods, tiers, profile)
    value = flat.reindex(rows["rid"]).to_numpy(copy=True)
    windowed = periods["windows"].to_numpy()[rows["rid"].to_numpy()]
    if windowed.any():
        # Weighted per week, each window by its share of the week's hours in its time zone:
        # computed once per record and week.
        weeks: dict[tuple[int, int], float] = {}
        rids, ats = rows["rid"].to_numpy(), rows["at"].to_numpy()
        for i in np.flatnonzero(windowed):
            rid, week = int(rids[i]), week_start(instant(ats[i]))
            known = weeks.get((rid, micros(week)))
            if known is None:
                q = records[rid]
                blend = blended_per_mtok(q.plist, q.record, profile, week)
                known = weeks[(rid, micros(week))] = np.nan if blend is None else blend
            value[i] = known
    return value


def _flat_blends(periods: pd.DataFrame, tiers: pd.DataFrame,
                 profile: WorkloadProfile) -> pd.Series:
    """Return the blend of each record without windows for `profile`, by rid, as
    tables.cost.blended_per_mtok computes it, for all records at once."""
    flat = periods.loc[~periods["windows"], ["rid", "discount"]].set_index("rid")["discount"]
    t = tiers[tiers["rid"].isin(flat.index)]
    # Cliff semantics: the highest band whose threshold the prompt passes.
    t = t[(t["band"] == 0) | (profile.prompt_tokens > t["band"])]

    def pick(mode: str) -> pd.DataFrame:
        chosen = t[t["mode"] == mode]
        if chosen.empty:
            return pd.DataFrame(np.nan, index=flat.index, columns=list(BLEND_METERS))
        chosen = chosen.loc[chosen.groupby(["rid", "meter"])["band"].idxmax()]
        return (chosen.set_index(["rid", "meter"])["per_mtok"].unstack("meter")
                .reindex(index=flat.index, columns=list(BLEND_METERS)))

    prices = pick(profile.mode)
    if profile.mode == "batch":
        # No batch price of its own: the realtime price times the record's batch discount.
        prices = prices.fillna(pick("realtime").mul(flat, axis=0))
    p_in, p_out = prices["input"], prices["output"]
    h, share = profile.cache_hit_rate, profile.input_share
    # No cache price and cache hits: no blend (tables.cost.blended_per_mtok).
    p_cached = prices["cached_input"] if h else p_in
    return share * ((1 - h) * p_in + h * p_cached) + (1 - share) * p_out
