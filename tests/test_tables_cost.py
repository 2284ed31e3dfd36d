"""The cost core: effective prices, blended prices, tier choice, the week's shares, blend and meter moves."""

from __future__ import annotations

import datetime as dt

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from pipeline.models.prices import PriceFile, PriceList, Window, WorkloadProfile
from pipeline.models.sourced import Sourced
from pipeline.normalize.fx import table_from_eur_rates
from pipeline.normalize.windows import is_in_window, overlap, week_shares, window_at, window_intervals
from pipeline.tables.cost import (
    blended_per_mtok,
    day_end,
    effective_price,
    record_at,
)
from pipeline.tables.moves import meter_moves
from pipeline.tables.quotes import quotes

UTC = dt.UTC


def sourced(plist: PriceList) -> dict[str, Sourced[PriceFile]]:
    return {"p": Sourced(PriceFile(provider="p", name="P", lists=[plist]), "sources/prices/p.yaml")}


WEEKDAYS = ["mon", "tue", "wed", "thu", "fri"]
PEAK = {"name": "peak", "tier": "peak", "timezone": "UTC", "spans": [
    {"start": "01:00", "end": "04:00", "weekdays": WEEKDAYS},
    {"start": "06:00", "end": "10:00", "weekdays": WEEKDAYS}]}
SRC = {"source_url": "https://example.com/pricing", "checked": "2026-09-11"}
CHAT = WorkloadProfile(id="chat-3-1", title="chat", input_share=0.75)
AGENT = WorkloadProfile(id="cached-agent", title="agent", input_share=0.9, cache_hit_rate=0.8)


def usd_list(**over) -> PriceList:
    doc = {"currency": "USD", "windows": [PEAK], "records": [
        {"model": "flash", "from": "2026-08-16T16:00:00Z", "to": "2026-09-10", "rest_tier": "off-peak",
         "prices": [{"meter": "input", "price": 0.22}, {"meter": "output", "price": 0.66},
                    {"meter": "cached_input", "price": 0.007},
                    {"meter": "input", "price": 0.44, "window": "peak"},
                    {"meter": "output", "price": 1.32, "window": "peak"},
                    {"meter": "cached_input", "price": 0.014, "window": "peak"}], **SRC},
        {"model": "flash", "from": "2026-09-10", "rest_tier": "off-peak",
         "prices": [{"meter": "input", "price": 0.20}, {"meter": "output", "price": 0.66},
                    {"meter": "input", "price": 0.40, "window": "peak"},
                    {"meter": "output", "price": 1.32, "window": "peak"}], **SRC},
        {"model": "big", "from": "2026-01-01", "batch_discount": 0.5,
         "prices": [{"meter": "input", "price": 5}, {"meter": "output", "price": 30},
                    {"meter": "input", "price": 10, "context_above_tokens": 272000},
                    {"meter": "output", "price": 45, "context_above_tokens": 272000},
                    {"meter": "cache_write", "price": 6.25, "ttl_minutes": 5},
                    {"meter": "cache_write", "price": 10, "ttl_minutes": 60}], **SRC},
    ]}
    doc.update(over)
    return PriceList.model_validate(doc)


def test_window_decides_the_effective_price():
    plist = usd_list()
    wed_peak = dt.datetime(2026, 9, 2, 2, 30, tzinfo=UTC)
    wed_idle = dt.datetime(2026, 9, 2, 12, 0, tzinfo=UTC)
    sat_morning = dt.datetime(2026, 9, 5, 2, 30, tzinfo=UTC)
    assert effective_price(plist, "flash", "input", wed_peak).per_mtok == pytest.approx(0.44)
    idle = effective_price(plist, "flash", "cached_input", wed_idle)
    assert (idle.per_mtok, idle.tier, idle.window) == (pytest.approx(0.007), "off-peak", None)
    assert effective_price(plist, "flash", "input", sat_morning).tier == "off-peak"


def test_record_boundaries_from_inclusive_to_exclusive():
    plist = usd_list()
    assert record_at(plist, "flash", dt.datetime(2026, 8, 16, 15, 59, tzinfo=UTC)) is None
    assert record_at(plist, "flash", dt.datetime(2026, 8, 16, 16, 0, tzinfo=UTC)) is not None
    assert record_at(plist, "flash", day_end(dt.date(2026, 9, 10))).from_.day == 10


def test_context_band_is_a_cliff_and_batch_uses_the_discount():
    plist = usd_list()
    at = dt.datetime(2026, 9, 1, tzinfo=UTC)
    assert effective_price(plist, "big", "input", at, prompt_tokens=272000).per_mtok == 5
    assert effective_price(plist, "big", "input", at, prompt_tokens=272001).per_mtok == 10
    assert effective_price(plist, "big", "output", at, mode="batch").per_mtok == 15
    assert effective_price(plist, "big", "cache_write", at).per_mtok == 6.25
    assert effective_price(plist, "big", "cache_write", at, ttl_minutes=60).per_mtok == 10
    assert effective_price(plist, "flash", "input", at, mode="batch") is None


def test_blended_by_hand():
    plist = usd_list()
    at = dt.datetime(2026, 9, 1, tzinfo=UTC)
    big = record_at(plist, "big", at)
    assert blended_per_mtok(plist, big, CHAT, at) == pytest.approx(0.75 * 5 + 0.25 * 30)
    flash = record_at(plist, "flash", at)
    off = 0.75 * 0.22 + 0.25 * 0.66
    peak = 0.75 * 0.44 + 0.25 * 1.32
    assert blended_per_mtok(plist, flash, CHAT, at) == pytest.approx(
        (133 * off + 35 * peak) / 168)
    night_owl = CHAT.model_copy(update={"offpeak_share": 1.0})
    assert blended_per_mtok(plist, flash, night_owl, at) == pytest.approx(off)
    agent_off = 0.9 * (0.2 * 0.22 + 0.8 * 0.007) + 0.1 * 0.66
    assert blended_per_mtok(plist, flash, AGENT.model_copy(update={"offpeak_share": 1.0}),
                            at) == pytest.approx(agent_off)


def test_blended_usd_converts_at_the_records_date():
    rates = table_from_eur_rates({"USD": {dt.date(2026, 9, 10): 1.2},
                                  "CNY": {dt.date(2026, 9, 10): 8.4}})
    plist = PriceList.model_validate({"currency": "CNY", "records": [
        {"model": "m", "from": "2026-09-12", "prices": [
            {"meter": "input", "price": 1}, {"meter": "output", "price": 1}], **SRC}]})
    at = day_end(dt.date(2026, 9, 12))
    (b,) = quotes(sourced(plist), rates, [CHAT], [at]).priced(at, CHAT)
    assert b.fx_date == dt.date(2026, 9, 10)  # a Saturday: Thursday's rate
    assert b.usd_per_mtok == pytest.approx(1.2 / 8.4)


def test_blend_change_and_meter_moves():
    plist = usd_list()
    start, end = day_end(dt.date(2026, 9, 5)), day_end(dt.date(2026, 9, 12))
    night = CHAT.model_copy(update={"offpeak_share": 1.0})

    def price_change(model, profile):
        table = quotes(sourced(plist), table_from_eur_rates({}), [profile], [start, end])
        return next(new / old - 1 for old, new, q in table.blend_moves(start, end, profile)
                    if q.record.model == model)

    assert price_change("flash", night) == pytest.approx(
        (0.75 * 0.20 + 0.25 * 0.66) / (0.75 * 0.22 + 0.25 * 0.66) - 1)
    assert price_change("big", CHAT) == 0
    files = {"p": PriceFile(provider="p", name="P", lists=[plist])}
    moves = {(m.key[0], m.key[2], m.kind): (m.old_per_mtok, m.new_per_mtok)
             for m in meter_moves(files, [(start, end)]).between(start, end)}
    assert moves == {("input", None, "cut"): (0.22, 0.20), ("input", "peak", "cut"): (0.44, 0.40),
                     ("cached_input", None, "removed"): (0.007, None),
                     ("cached_input", "peak", "removed"): (0.014, None)}
    early = day_end(dt.date(2025, 12, 1))
    first = meter_moves(files, [(early, start), (start, end)]).between(early, start)
    assert {m.model for m in first if m.whole_model and m.kind == "new"} == {"flash", "big"}


# --- properties (issue 3, acceptance) ---------------------------------------------------------

prices = st.floats(min_value=1e-6, max_value=1e4, allow_nan=False)


@settings(max_examples=60, deadline=None)
@given(p_in=prices, p_cached=prices, p_out=prices, peak_factor=st.floats(0.1, 10),
       input_share=st.floats(0, 1), hit=st.floats(0, 1),
       offpeak=st.one_of(st.none(), st.floats(0, 1)),
       hour=st.integers(0, 24 * 14))
def test_blended_lies_between_cheapest_and_dearest_meter(p_in, p_cached, p_out, peak_factor,
                                                         input_share, hit, offpeak, hour):
    plist = PriceList.model_validate({"currency": "USD", "windows": [PEAK], "records": [
        {"model": "m", "from": "2026-01-01", "prices": [
            {"meter": "input", "price": p_in}, {"meter": "cached_input", "price": p_cached},
            {"meter": "output", "price": p_out},
            {"meter": "input", "price": p_in * peak_factor, "window": "peak"},
            {"meter": "output", "price": p_out * peak_factor, "window": "peak"}], **SRC}]})
    profile = WorkloadProfile(id="x", title="x", input_share=input_share, cache_hit_rate=hit,
                              offpeak_share=offpeak)
    at = dt.datetime(2026, 3, 2, tzinfo=UTC) + dt.timedelta(hours=hour)
    metered = [p_in, p_cached, p_out, p_in * peak_factor, p_out * peak_factor]
    value = blended_per_mtok(plist, plist.records[0], profile, at)
    assert min(metered) * (1 - 1e-9) <= value <= max(metered) * (1 + 1e-9)


spans = st.builds(lambda s, n, days: {"start": f"{s:02d}:00", "end": f"{(s + n) % 24:02d}:00",
                                      "weekdays": days},
                  st.integers(0, 23), st.integers(1, 23),
                  st.lists(st.sampled_from(["mon", "tue", "wed", "thu", "fri", "sat", "sun"]),
                           unique=True, max_size=7))


@settings(max_examples=40, deadline=None)
@given(groups=st.lists(st.lists(spans, min_size=1, max_size=3), min_size=1, max_size=3))
def test_every_hour_of_the_week_falls_in_exactly_one_window(groups):
    windows = [Window(name=f"w{i}", tier="peak", timezone="UTC", spans=g)
               for i, g in enumerate(groups)]
    monday = dt.datetime(2026, 3, 2, tzinfo=UTC)
    counted: dict[str | None, int] = {}
    for hour in range(168):
        w = window_at(windows, monday + dt.timedelta(hours=hour, minutes=30))
        counted[w.name if w else None] = counted.get(w.name if w else None, 0) + 1
    assert sum(counted.values()) == 168
    shares = week_shares(windows, monday)
    assert sum(shares.values()) == pytest.approx(1)
    for name, share in shares.items():
        assert share * 168 == pytest.approx(counted.get(name, 0), abs=1e-9)


def test_two_windows_overlap_where_both_hold_in_the_two_weeks_after_the_start():
    # Mondays only, UTC: a holds 01:00-04:00; b holds 00:00-01:00 (touching a's start: no
    # overlap) and 03:00-05:00 (overlapping a 03:00-04:00). The two weeks from Monday 2 March
    # 2026 hold the Mondays 2 and 9 March; Monday 16 March is the end, excluded.
    a = Window(name="a", tier="peak", timezone="UTC",
               spans=[{"start": "01:00", "end": "04:00", "weekdays": ["mon"]}])
    b = Window(name="b", tier="peak", timezone="UTC",
               spans=[{"start": "03:00", "end": "05:00", "weekdays": ["mon"]},
                      {"start": "00:00", "end": "01:00", "weekdays": ["mon"]}])

    def at(day: int, hour: int) -> dt.datetime:
        return dt.datetime(2026, 3, day, hour, tzinfo=UTC)

    assert overlap(a, b, at(2, 0)) == [(at(2, 3), at(2, 4)), (at(9, 3), at(9, 4))]


def test_a_windows_intervals_in_utc_by_hand():
    # Los Angeles (UTC-8 until DST on 8 March 2026): 23:00-20:00 runs past midnight, so Tuesday
    # 3 March 01:00-02:00 UTC (Monday 17:00-18:00 local) lies inside the span that started on
    # Sunday 1 March 23:00 local: a day before the local day of the start.
    night = Window(name="n", tier="peak", timezone="America/Los_Angeles",
                   spans=[{"start": "23:00", "end": "20:00"}])
    start = dt.datetime(2026, 3, 3, 1, tzinfo=UTC)
    assert window_intervals(night, start, start + dt.timedelta(hours=1)) == [
        (start, start + dt.timedelta(hours=1))]
    # A span whose end is its start holds the whole day; a span of other weekdays is skipped,
    # not the spans after it; no time zone reads as UTC. Monday 2 March, UTC.
    whole = Window(name="w", tier="peak", spans=[
        {"start": "01:00", "end": "02:00", "weekdays": ["sun"]}, {"start": "05:00", "end": "05:00"}])
    monday = dt.datetime(2026, 3, 2, tzinfo=UTC)
    assert window_intervals(whole, monday, monday + dt.timedelta(days=1)) == [
        (monday, monday + dt.timedelta(days=1))]
    # The instant is judged alone: a microsecond before 05:00 is outside a 05:00-06:00 window.
    five = Window(name="f", tier="peak", timezone="UTC", spans=[{"start": "05:00", "end": "06:00"}])
    assert not is_in_window(five, monday + dt.timedelta(hours=5, microseconds=-1))
    assert is_in_window(five, monday + dt.timedelta(hours=5))


def test_a_windows_intervals_are_in_utc_whatever_the_machines_zone(machine_zone) -> None:
    # The machine in Pago Pago (UTC-11), the window in Kiritimati (UTC+14), 25 hours apart:
    # 00:00-01:00 in Kiritimati on 3 September is 10:00-11:00 UTC on 2 September, when it is
    # still 1 September in Pago Pago (23:00-24:00), two dates behind the window's.
    machine_zone("Pacific/Pago_Pago")
    night = Window(name="k", tier="peak", timezone="Pacific/Kiritimati",
                   spans=[{"start": "00:00", "end": "01:00"}])

    def utc(*intervals: tuple[dt.datetime, dt.datetime]) -> list[tuple[str, str]]:
        return [(a.isoformat(), b.isoformat()) for a, b in intervals]

    # The local day of the end is the window's (3 September), not the machine's (1 September).
    start = dt.datetime(2026, 9, 2, 9, 30, tzinfo=UTC)
    assert utc(*window_intervals(night, start, start + dt.timedelta(hours=1))) == [
        ("2026-09-02T10:00:00+00:00", "2026-09-02T10:30:00+00:00")]
    # Both ends in UTC, not in the machine's zone, where they are not clipped to the range.
    day = dt.datetime(2026, 9, 2, tzinfo=UTC)
    assert utc(*window_intervals(night, day, day + dt.timedelta(days=1))) == [
        ("2026-09-02T10:00:00+00:00", "2026-09-02T11:00:00+00:00")]


# Two windows in UTC: peak 01:00-04:00 and 06:00-10:00 on weekdays (35 of the week's 168 hours),
# a night window 20:00-23:00 every day (21 hours, off-peak); the rest of the week is 112 hours.
NIGHT = {"name": "night", "tier": "off-peak", "timezone": "UTC", "spans": [{"start": "20:00", "end": "23:00"}]}
HOURS = {"peak": 35, "night": 21, None: 112}


@settings(max_examples=80, deadline=None)
@given(base=st.tuples(prices, prices, prices), peak=st.tuples(prices, prices, prices),
       night=st.tuples(prices, prices, prices), rest_tier=st.sampled_from(["peak", "off-peak"]),
       input_share=st.floats(0, 1), hit=st.floats(0, 1), offpeak=st.one_of(st.none(), st.floats(0, 1)),
       hour=st.integers(0, 24 * 14))
def test_a_blend_over_peak_offpeak_and_cache_hits_is_the_hand_weighted_mean(
        base, peak, night, rest_tier, input_share, hit, offpeak, hour):
    """The oracle weighs each window by hand: by its hours in the week when the profile fixes no
    off-peak share; else the share is split among the off-peak windows by their hours, and the
    rest among the others by theirs."""
    meters = ("input", "cached_input", "output")
    by_window = {None: base, "peak": peak, "night": night}
    plist = PriceList.model_validate({"currency": "USD", "windows": [PEAK, NIGHT], "records": [
        {"model": "m", "from": "2026-01-01", "rest_tier": rest_tier, "prices": [
            {"meter": meter, "price": value, **({"window": window} if window else {})}
            for window, values in by_window.items() for meter, value in zip(meters, values)], **SRC}]})
    profile = WorkloadProfile(id="x", title="x", input_share=input_share, cache_hit_rate=hit,
                              offpeak_share=offpeak)
    tiers = {"peak": "peak", "night": "off-peak", None: rest_tier}
    if offpeak is None:
        weights = {w: HOURS[w] / 168 for w in HOURS}
    else:
        off_hours = sum(HOURS[w] for w in HOURS if tiers[w] == "off-peak")
        on_hours = 168 - off_hours
        weights = {w: (offpeak * HOURS[w] / off_hours if tiers[w] == "off-peak"
                       else (1 - offpeak) * HOURS[w] / on_hours) for w in HOURS}
    expected = sum(weights[w] * (input_share * ((1 - hit) * p_in + hit * p_cached) + (1 - input_share) * p_out)
                   for w, (p_in, p_cached, p_out) in by_window.items())
    at = dt.datetime(2026, 3, 2, tzinfo=UTC) + dt.timedelta(hours=hour)
    assert blended_per_mtok(plist, plist.records[0], profile, at) == pytest.approx(expected, rel=1e-9, abs=1e-12)


# --- record by record, on a list made for each rule (issue 23) ----------------------------------

HIDDEN = {"name": "hidden", "tier": "off-peak", "timezone": "UTC",
          "spans": [{"start": "02:00", "end": "03:00", "weekdays": WEEKDAYS}]}  # inside PEAK: no hours


def eur_list() -> PriceList:
    """EUR per 1k tokens (x1000 per Mtok): the rest of the week and a peak window, a band above
    1000 tokens, two cache lifetimes, an explicit batch output beside a batch discount."""
    return PriceList.model_validate({"currency": "EUR", "unit": "per_1k_tokens",
                                     "windows": [PEAK, NIGHT, HIDDEN], "records": [
        {"model": "m", "from": "2026-03-01", "to": "2026-03-20", "batch_discount": 0.25, **SRC, "prices": [
            {"meter": "input", "price": 0.001}, {"meter": "input", "price": 0.003, "window": "peak"},
            {"meter": "input", "price": 0.002, "context_above_tokens": 1000},
            {"meter": "output", "price": 0.002}, {"meter": "output", "price": 0.0005, "mode": "batch"},
            {"meter": "cache_write", "price": 0.006, "ttl_minutes": 60},
            {"meter": "cache_write", "price": 0.004, "ttl_minutes": 5}]},
        {"model": "m", "from": "2026-03-25", "rest_tier": "off-peak", **SRC, "prices": [
            {"meter": "input", "price": 0.001}, {"meter": "output", "price": 0.001},
            {"meter": "input", "price": 0.001, "window": "night"}]},
        {"model": "h", "from": "2026-03-01", **SRC, "prices": [
            {"meter": "input", "price": 0.001}, {"meter": "input", "price": 0.002, "window": "peak"},
            {"meter": "input", "price": 0.003, "window": "hidden"},
            {"meter": "cache_write", "price": 0.008}, {"meter": "cache_write", "price": 0.009, "ttl_minutes": 1}]}]})


def test_tier_price_picks_window_band_lifetime_and_batch_price_by_hand():
    from pipeline.tables.cost import tier_price

    plist = eur_list()
    m = plist.records[0]
    assert [tier_price(plist, m, "input", w) for w in (None, "peak", "night")] == [1.0, 3.0, 1.0]
    # The band is a cliff above its threshold, and a window's own prices have no band.
    assert [tier_price(plist, m, "input", None, n) for n in (1000, 1001)] == [1.0, 2.0]
    assert tier_price(plist, m, "input", "peak", 5000) == 3.0
    # The shortest cache lifetime unless one is asked; none for a lifetime not sold.
    assert [tier_price(plist, m, "cache_write", None, ttl_minutes=t) for t in (None, 60, 5, 30)] == [
        4.0, 6.0, 4.0, None]
    # Batch: the explicit price (0.5, not 2 x 0.25), else the realtime one times the discount.
    assert [tier_price(plist, m, meter, w, mode="batch")
            for meter, w in (("output", None), ("input", None), ("input", "peak"))] == [0.5, 0.25, 0.75]
    assert tier_price(plist, m, "cached_input", None) is None
    # A cache write with no stated lifetime is the default one, before even a one-minute one.
    h = plist.records[2]
    assert [tier_price(plist, h, "cache_write", None, ttl_minutes=t) for t in (None, 1)] == [8.0, 9.0]
    assert tier_price(plist, plist.records[1], "input", None, mode="batch") is None  # no discount


def test_effective_price_record_at_and_the_week_by_hand():
    from pipeline.tables.cost import EffectivePrice, record_fx, week_start, window_weights

    plist = eur_list()
    m, later, h = plist.records
    tue_peak, tue_noon = dt.datetime(2026, 3, 3, 2, tzinfo=UTC), dt.datetime(2026, 3, 3, 12, tzinfo=UTC)
    assert effective_price(plist, "m", "input", tue_peak) == EffectivePrice(3.0, "EUR", "peak", "peak", m)
    assert effective_price(plist, "m", "input", tue_noon, 2000) == EffectivePrice(
        2.0, "EUR", None, "standard", m)
    assert effective_price(plist, "m", "cache_write", tue_noon, ttl_minutes=60).per_mtok == 6.0
    assert effective_price(plist, "m", "output", tue_peak, mode="batch").per_mtok == 0.5
    assert effective_price(plist, "m", "cached_input", tue_noon) is None
    sunday_night = dt.datetime(2026, 3, 29, 21, tzinfo=UTC)
    assert effective_price(plist, "m", "input", sunday_night) == EffectivePrice(
        1.0, "EUR", "night", "off-peak", later)
    assert effective_price(plist, "m", "input", dt.datetime(2026, 3, 30, 12, tzinfo=UTC)).tier == "off-peak"
    # In force from `from` (inclusive) to `to` (exclusive); none in the gap, before, or for another model.
    assert [record_at(plist, "m", dt.datetime(2026, 3, d, tzinfo=UTC)) for d in (1, 19, 20, 24, 25)] == [
        m, m, None, None, later]
    assert record_at(plist, "m", dt.datetime(2026, 2, 28, 23, tzinfo=UTC)) is None
    assert record_at(plist, "x", tue_noon) is None and effective_price(plist, "x", "input", tue_noon) is None
    assert day_end(dt.date(2026, 3, 1)) == dt.datetime(2026, 3, 1, 23, 59, 59, 999999, tzinfo=UTC)
    # Monday 00:00 UTC of the week: from a Sunday evening, from another zone, from the Monday itself.
    monday = dt.datetime(2026, 3, 2, tzinfo=UTC)
    plus5 = dt.timezone(dt.timedelta(hours=5))
    assert [week_start(t) for t in (dt.datetime(2026, 3, 8, 23, 30, tzinfo=UTC),
                                    dt.datetime(2026, 3, 9, 1, tzinfo=plus5), monday)] == [monday] * 3
    # Shares of the week: peak 35 h of 168; `hidden` lies inside peak and has none, so a fixed
    # off-peak share has no off-peak hours to go to and the split is by time alone.
    fixed = CHAT.model_copy(update={"offpeak_share": 0.6})
    assert window_weights(plist, h, CHAT, tue_noon) == {"peak": 35 / 168, None: 133 / 168}
    assert window_weights(plist, h, fixed, tue_noon) == {"peak": 35 / 168, None: 133 / 168}
    # The later record: night 21 h (off-peak) and the rest (off-peak too): all off-peak, by time.
    assert window_weights(plist, later, fixed, sunday_night) == pytest.approx({"night": 21 / 168, None: 147 / 168})
    assert window_weights(plist, m, fixed, tue_noon) == {"peak": 35 / 168, None: 133 / 168}  # no off-peak
    assert window_weights(plist, plist.records[0].model_copy(update={"prices": m.prices[:1]}), fixed,
                          tue_noon) == {None: 1.0}
    # A batch blend over the week: input at the discount (peak 3 and rest 1, x 0.25), output at
    # its explicit batch price 0.5 in every hour; no blend without an output price (h).
    batch = WorkloadProfile(id="b", title="b", input_share=0.75, prompt_tokens=0, mode="batch")
    assert blended_per_mtok(plist, m, batch, tue_noon) == pytest.approx(
        35 / 168 * (0.75 * 0.75 + 0.25 * 0.5) + 133 / 168 * (0.75 * 0.25 + 0.25 * 0.5), rel=1e-12)
    assert blended_per_mtok(plist, h, CHAT, tue_noon) is None
    rates = table_from_eur_rates({"USD": {dt.date(2026, 2, 27): 1.1}})
    assert (record_fx(plist, m, rates).usd_per_unit, record_fx(plist, m, rates).date) == (
        pytest.approx(1.1), dt.date(2026, 2, 27))
    usd = PriceList.model_validate({"currency": "USD", "records": [
        {"model": "u", "from": "2026-03-04T10:00:00Z", **SRC, "prices": [{"meter": "input", "price": 1}]}]})
    assert (record_fx(usd, usd.records[0], rates).usd_per_unit, record_fx(usd, usd.records[0], rates).date) == (
        1.0, dt.date(2026, 3, 4))


def test_the_week_starts_on_monday_utc_whatever_the_machines_zone(machine_zone):
    from pipeline.tables.cost import week_start

    # Sunday 20:00 UTC is already Monday 05:00 in Tokyo: the week is still the one of that Sunday.
    machine_zone("Asia/Tokyo")
    assert week_start(dt.datetime(2026, 3, 8, 20, tzinfo=UTC)) == dt.datetime(2026, 3, 2, tzinfo=UTC)
