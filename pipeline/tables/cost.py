"""Pure: the cost core. Effective prices at an instant, blended prices for a workload profile,
record by record (the whole-table passes are tables/quotes.py and moves.py).
Data in, data out; no clock, no files.

Prices here are per million tokens in the list's own currency unless a name says `usd`.
"""

from __future__ import annotations

import bisect
import datetime as dt
from dataclasses import dataclass

from pipeline.models.prices import Price, PriceList, PriceRecord, WorkloadProfile
from pipeline.models.rates import RateTable
from pipeline.normalize.fx import FxRate, rate_on
from pipeline.normalize.units import per_mtok
from pipeline.normalize.windows import record_windows, week_shares, window_at

TierKey = tuple[str, int | None, str | None, int, str]
"""(meter, ttl_minutes, window, context_above_tokens, mode): one published price of a record."""


def day_end(day: dt.date) -> dt.datetime:
    """Return the last instant of `day` in UTC: an edition of `day` sees everything up to it."""
    return dt.datetime(day.year, day.month, day.day, tzinfo=dt.UTC) + dt.timedelta(
        days=1, microseconds=-1)


def record_at(plist: PriceList, model: str, at: dt.datetime) -> PriceRecord | None:
    """Return the record of `model` in force at the UTC instant `at`, if any."""
    starts, records = plist.periods.get(model, ((), ()))
    # Periods of a model never overlap (load/prices.py rejects that), so the one in force is
    # the last to start by `at`, if it has not ended.
    i = bisect.bisect_right(starts, at) - 1
    if i < 0:
        return None
    record = records[i]
    return record if record.to is None or at < record.to else None


def tier_key(price: Price) -> TierKey:
    """Return the key that identifies a published price within its record."""
    return (price.meter, price.ttl_minutes, price.window, price.context_above_tokens, price.mode)


def _band(prices: list[Price], prompt_tokens: int) -> Price | None:
    # Cliff semantics, as providers bill: past a threshold the whole request takes that band.
    applicable = [p for p in prices
                  if p.context_above_tokens == 0 or prompt_tokens > p.context_above_tokens]
    return max(applicable, key=lambda p: p.context_above_tokens, default=None)


def tier_price(plist: PriceList, record: PriceRecord, meter: str, window: str | None,
               prompt_tokens: int = 0, mode: str = "realtime",
               ttl_minutes: int | None = None) -> float | None:
    """Return a record's price per Mtok (list currency) for one tier, or None when unpublished.

    A meter without a price for `window` falls back to its rest-of-week price. A batch price is
    the explicit one, else the realtime price times the record's `batch_discount`.
    """
    def pick(wanted_mode: str) -> Price | None:
        same = [p for p in record.prices if p.meter == meter and p.mode == wanted_mode and (
            ttl_minutes is None or p.ttl_minutes == ttl_minutes)]
        if ttl_minutes is None and any(p.ttl_minutes for p in same):
            # Several cache lifetimes: the shortest is the default one providers quote.
            shortest = min(p.ttl_minutes or 0 for p in same)
            same = [p for p in same if (p.ttl_minutes or 0) == shortest]
        in_window = [p for p in same if p.window == window]
        return _band(in_window or [p for p in same if p.window is None], prompt_tokens)

    price = pick(mode)
    factor = 1.0
    if price is None and mode == "batch" and record.batch_discount is not None:
        price, factor = pick("realtime"), record.batch_discount
    return None if price is None else per_mtok(price.price, plist.unit) * factor


@dataclass(frozen=True)
class EffectivePrice:
    """What one meter costs at one instant, and why."""

    per_mtok: float
    """In the list's currency."""
    currency: str
    window: str | None
    """The window in force (None: the rest of the week)."""
    tier: str
    """The time tier: standard, peak or off-peak (ARCHITECTURE.md, "Time tiers")."""
    record: PriceRecord


def effective_price(plist: PriceList, model: str, meter: str, at: dt.datetime,
                    prompt_tokens: int = 0, mode: str = "realtime",
                    ttl_minutes: int | None = None) -> EffectivePrice | None:
    """Return the price of `meter` of `model` at the UTC instant `at`, with its window and tier."""
    record = record_at(plist, model, at)
    if record is None:
        return None
    window = window_at(record_windows(plist, record), at)
    value = tier_price(plist, record, meter, window.name if window else None, prompt_tokens,
                       mode, ttl_minutes)
    if value is None:
        return None
    tier = window.tier if window else record.rest_tier
    return EffectivePrice(value, plist.currency, window.name if window else None, tier, record)


def week_start(at: dt.datetime) -> dt.datetime:
    """Return Monday 00:00 UTC of the week holding `at`."""
    day = at.astimezone(dt.UTC).date()
    monday = day - dt.timedelta(days=day.weekday())
    return dt.datetime(monday.year, monday.month, monday.day, tzinfo=dt.UTC)


def window_weights(plist: PriceList, record: PriceRecord, profile: WorkloadProfile,
                   at: dt.datetime) -> dict[str | None, float]:
    """Return the share of traffic each window of a record gets under `profile` (None: the rest).

    Time-weighted over the week of `at` unless the profile fixes an off-peak share, which is then
    split among off-peak hours (and the rest among the others) by their time.
    """
    windows = record_windows(plist, record)
    if not windows:
        return {None: 1.0}
    shares = {k: v for k, v in week_shares(windows, week_start(at)).items() if v > 0}
    if profile.offpeak_share is None:
        return shares
    tiers = {w.name: w.tier for w in windows} | {None: record.rest_tier}
    off = {k: v for k, v in shares.items() if tiers[k] == "off-peak"}
    on = {k: v for k, v in shares.items() if tiers[k] != "off-peak"}
    if not off or not on:
        return shares
    s = profile.offpeak_share
    return ({k: s * v / sum(off.values()) for k, v in off.items()}
            | {k: (1 - s) * v / sum(on.values()) for k, v in on.items()})


def blended_per_mtok(plist: PriceList, record: PriceRecord, profile: WorkloadProfile,
                     at: dt.datetime) -> float | None:
    """Return the blended price per Mtok (list currency) of a record for a profile, or None when
    the input or output price is missing, or the profile has cache hits and the record no
    cached-input price (billing the hits at the input price would price the model dearer than
    its list: the record does not say, so the profile leaves the model out)."""
    total = 0.0
    for window, weight in window_weights(plist, record, profile, at).items():
        def price(meter: str, window: str | None = window) -> float | None:
            return tier_price(plist, record, meter, window, profile.prompt_tokens, profile.mode)
        p_in, p_out = price("input"), price("output")
        if p_in is None or p_out is None:
            return None
        h = profile.cache_hit_rate
        p_cached = price("cached_input") if h else p_in
        if p_cached is None:
            return None
        total += weight * (profile.input_share * ((1 - h) * p_in + h * p_cached)
                           + (1 - profile.input_share) * p_out)
    return total


def record_fx(plist: PriceList, record: PriceRecord, rates: RateTable) -> FxRate:
    """Return the USD rate for a record: the ECB rate of its effective date (1.0 for USD)."""
    return rate_on(rates, plist.currency, record.from_.date())
