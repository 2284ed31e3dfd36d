"""The blended-price table (tables/quotes.py): the interval join at period edges, the as-of FX
join, window weighting across a DST change and by weekday, hand-computed blends and the
look-ahead guard. Expected values are worked out by hand here, not by the code under test."""

from __future__ import annotations

import datetime as dt
from pathlib import Path

import pytest

from pipeline.compose.prices import price_radar
from pipeline.load.fx import load_rate_table
from pipeline.load.prices import load_prices
from pipeline.models.prices import DEFAULT_PROFILES, PriceFile, WorkloadProfile
from pipeline.models.sourced import Sourced
from pipeline.normalize.fx import table_from_eur_rates
from pipeline.tables.cost import day_end
from pipeline.tables.quotes import quotes

ROOT = Path(__file__).resolve().parents[1]
UTC = dt.UTC
CHAT, AGENT = DEFAULT_PROFILES
SRC = {"source_url": "https://example.com/pricing", "checked": "2026-01-01"}
FLAT = [{"meter": "input", "price": 1}, {"meter": "output", "price": 3}]


def files(*lists: dict, provider: str = "p") -> dict[str, Sourced[PriceFile]]:
    doc = {"provider": provider, "name": "P", "lists": list(lists)}
    return {provider: Sourced(PriceFile.model_validate(doc), f"sources/prices/{provider}.yaml")}


def usd(records: list[dict], windows: list[dict] | None = None) -> dict:
    return {"currency": "USD", "windows": windows or [], "records": records}


RATES = table_from_eur_rates({"USD": {dt.date(2026, 12, 23): 1.10, dt.date(2026, 12, 24): 1.20},
                              "CNY": {dt.date(2026, 12, 23): 8.0, dt.date(2026, 12, 24): 8.4}})


def test_a_period_holds_from_its_start_inclusive_to_its_end_exclusive():
    f = files(usd([
        {"model": "m", "from": "2026-09-01", "to": "2026-09-10T12:00:00Z", "prices": FLAT, **SRC},
        {"model": "m", "from": "2026-09-10T12:00:00Z",
         "prices": [{"meter": "input", "price": 2}, {"meter": "output", "price": 6}], **SRC}]))
    tick = dt.timedelta(microseconds=1)
    noon = dt.datetime(2026, 9, 10, 12, tzinfo=UTC)
    first = dt.datetime(2026, 9, 1, tzinfo=UTC)
    table = quotes(f, RATES, [CHAT], [first - tick, first, noon - tick, noon])
    assert table.at(first - tick, CHAT).empty
    # 3:1 of input 1 and output 3 = 1.5; of 2 and 6 = 3.0.
    assert [q.list_per_mtok for q in table.priced(first, CHAT)] == [1.5]
    assert [q.list_per_mtok for q in table.priced(noon - tick, CHAT)] == [1.5]
    assert [q.list_per_mtok for q in table.priced(noon, CHAT)] == [3.0]
    with pytest.raises(KeyError):
        table.at(noon + tick, CHAT)


def test_usd_comes_from_the_last_fixing_on_or_before_the_records_date():
    # 2026-12-25 and 26 are TARGET holidays, 27 a Sunday: a record from the 27th takes the
    # fixing of Thursday the 24th: 1.20 USD per euro / 8.4 CNY per euro.
    f = files({"currency": "CNY", "records": [
        {"model": "early", "from": "2026-12-20", "prices": FLAT, **SRC},
        {"model": "late", "from": "2026-12-27", "prices": FLAT, **SRC}]})
    at = day_end(dt.date(2026, 12, 28))
    table = quotes(f, RATES, [CHAT], [at])
    rows = table.at(at, CHAT)
    assert len(rows) == 2
    (late,) = table.priced(at, CHAT)  # `early` predates every fixing: no USD figure
    assert late.quoted.record.model == "late"
    assert late.fx_date == dt.date(2026, 12, 24)
    assert late.fx_usd_per_unit == 1.20 / 8.4
    assert late.usd_per_mtok == 1.5 * (1.20 / 8.4)
    assert late.tokens_per_usd == 1_000_000 / (1.5 * (1.20 / 8.4))


def test_a_window_is_weighted_by_its_hours_in_its_own_zone_across_a_dst_change():
    # 00:00-04:00 New York time on Sundays: four hours a week, but five on 2026-11-01, when
    # clocks fall back at 02:00. Inside it input 2 / output 4 (3:1 blend 2.5), else 1 / 2 (1.25).
    window = {"name": "sunday-night", "tier": "peak", "timezone": "America/New_York",
              "spans": [{"start": "00:00", "end": "04:00", "weekdays": ["sun"]}]}
    f = files(usd([{"model": "w", "from": "2026-10-01", "prices": [
        {"meter": "input", "price": 1}, {"meter": "output", "price": 2},
        {"meter": "input", "price": 2, "window": "sunday-night"},
        {"meter": "output", "price": 4, "window": "sunday-night"}], **SRC}], [window]))
    before, during = day_end(dt.date(2026, 10, 25)), day_end(dt.date(2026, 11, 1))
    table = quotes(f, RATES, [CHAT], [before, during])
    assert table.priced(before, CHAT)[0].list_per_mtok == pytest.approx((4 * 2.5 + 164 * 1.25) / 168)
    assert table.priced(during, CHAT)[0].list_per_mtok == pytest.approx((5 * 2.5 + 163 * 1.25) / 168)


def test_a_weekday_window_counts_only_its_weekdays():
    window = {"name": "office", "tier": "peak", "timezone": "UTC",
              "spans": [{"start": "09:00", "end": "17:00",
                         "weekdays": ["mon", "tue", "wed", "thu", "fri"]}]}
    f = files(usd([{"model": "w", "from": "2026-10-01", "prices": [
        {"meter": "input", "price": 1}, {"meter": "output", "price": 2},
        {"meter": "input", "price": 2, "window": "office"},
        {"meter": "output", "price": 4, "window": "office"}], **SRC}], [window]))
    at = day_end(dt.date(2026, 10, 14))
    table = quotes(f, RATES, [CHAT], [at])
    assert table.priced(at, CHAT)[0].list_per_mtok == pytest.approx((40 * 2.5 + 128 * 1.25) / 168)


def test_batch_band_and_cache_tiers_are_chosen_for_every_record_at_once():
    f = files(usd([{"model": "big", "from": "2026-01-01", "batch_discount": 0.5, "prices": [
        {"meter": "input", "price": 5}, {"meter": "output", "price": 30},
        {"meter": "input", "price": 10, "context_above_tokens": 272000},
        {"meter": "output", "price": 45, "context_above_tokens": 272000}], **SRC}]))
    at = day_end(dt.date(2026, 9, 1))
    batch = WorkloadProfile(id="batch", title="b", input_share=0.75, mode="batch")
    long_prompt = WorkloadProfile(id="long", title="l", input_share=0.75, prompt_tokens=300000)
    table = quotes(f, RATES, [CHAT, AGENT, batch, long_prompt], [at])
    got = {p.id: table.priced(at, p)[0].list_per_mtok for p in (CHAT, batch, long_prompt)}
    # No cache price: a profile with cache hits leaves the model out rather than bill the hits
    # at the input price.
    assert table.priced(at, AGENT) == []
    assert got == pytest.approx({"chat-3-1": 0.75 * 5 + 0.25 * 30,
                   "batch": 0.75 * 2.5 + 0.25 * 15,
                   "long": 0.75 * 10 + 0.25 * 45})


def test_hand_checked_figures_of_the_bundled_prices():
    prices, problems = load_prices(ROOT)
    assert problems == []
    at = day_end(dt.date(2026, 9, 12))
    table = quotes(prices, load_rate_table(ROOT), [CHAT, AGENT], [at])

    def blend(profile, model):
        return next(q.usd_per_mtok for q in table.priced(at, profile)
                    if q.quoted.record.model == model and q.quoted.plist.currency == "USD")

    assert blend(CHAT, "gpt-5.5") == pytest.approx(0.75 * 5 + 0.25 * 30)             # 11.25
    assert blend(AGENT, "claude-opus-4-7") == pytest.approx(0.9 * (0.2 * 5 + 0.8 * 0.5)
                                                             + 0.1 * 25)            # 3.76
    # DeepSeek's peak hours (twice the off-peak price) are 35 of the week's 168 in Beijing
    # time, weekdays only: off-peak 3:1 of 0.22 / 0.66, peak of 0.44 / 1.32.
    off, peak = 0.75 * 0.22 + 0.25 * 0.66, 0.75 * 0.44 + 0.25 * 1.32
    assert blend(CHAT, "deepseek-v4-flash") == pytest.approx((133 * off + 35 * peak) / 168)
    assert blend(CHAT, "deepseek-v4-flash") == pytest.approx(0.39875)


def test_the_look_ahead_guard_is_the_radars_and_checked_is_not_a_first_seen_date():
    """A future price is on an edition's radar only once someone has checked it (the DeepSeek
    cut from 2026-09-10, checked 2026-09-11, is not on the radar of 09-04). A price in force is
    not hidden by a later `checked`: the field is the day of the last check, and re-checking a
    long-known price must not take it off the editions before that day."""
    f = files(usd([
        {"model": "m", "from": "2026-09-01", "to": "2026-09-10", "prices": FLAT, **SRC},
        {"model": "m", "from": "2026-09-10", "to": "2026-10-01",
         "source_url": "https://example.com/pricing", "checked": "2026-09-11",
         "prices": [{"meter": "input", "price": 0.5}, {"meter": "output", "price": 1.5}]},
        {"model": "m", "from": "2026-10-01", "source_url": "https://example.com/pricing",
         "checked": "2026-09-05", "prices": FLAT}]))
    # On the 4th neither later price had been seen; on the 9th only October's had.
    assert price_radar(f, dt.date(2026, 9, 4)) == []
    assert [i.due for i in price_radar(f, dt.date(2026, 9, 9))] == [dt.date(2026, 10, 1)]
    assert [i.due for i in price_radar(f, dt.date(2026, 9, 11))] == [dt.date(2026, 10, 1)]
    on_10 = day_end(dt.date(2026, 9, 10))
    table = quotes(f, RATES, [CHAT], [on_10])
    assert [q.list_per_mtok for q in table.priced(on_10, CHAT)] == [0.75]
    later = files(usd([{"model": "m", "from": "2026-09-01", "source_url": "https://example.com/p",
                        "checked": "2026-11-30", "prices": FLAT}]))
    on_2 = day_end(dt.date(2026, 9, 2))
    assert [q.list_per_mtok for q in quotes(later, RATES, [CHAT], [on_2]).priced(on_2, CHAT)] == [1.5]


def test_no_price_files_make_an_empty_table():
    at = day_end(dt.date(2026, 9, 1))
    table = quotes({}, RATES, [CHAT], [at])
    assert table.priced(at, CHAT) == [] and table.cheapest(at, CHAT) is None
    assert table.blended_rows([dt.date(2026, 9, 1)]).empty


def test_blended_rows_hold_until_a_blend_changes():
    f = files(usd([
        {"model": "m", "from": "2026-09-01", "to": "2026-09-03", "prices": FLAT, **SRC},
        {"model": "m", "from": "2026-09-03", "to": "2026-09-05", "prices": FLAT, **SRC},
        {"model": "m", "from": "2026-09-06", "to": "2026-09-08", "prices": FLAT, **SRC},
        {"model": "m", "from": "2026-09-08",
         "prices": [{"meter": "input", "price": 2}, {"meter": "output", "price": 6}], **SRC}]))
    days = [dt.date(2026, 9, d) for d in range(1, 10)]
    table = quotes(f, RATES, [CHAT], [day_end(d) for d in days])
    rows = table.blended_rows(days)
    # A new record at the same price adds no row (the 3rd); after the gap of the 5th the same
    # price is news again (the 6th); so is the rise (the 8th).
    assert [(r.as_of, r.usd_per_mtok) for r in rows.itertuples()] == [
        ("2026-09-01", 1.5), ("2026-09-06", 1.5), ("2026-09-08", 3.0)]
