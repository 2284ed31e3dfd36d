"""The blended-price table (tables/quotes.py): the interval join at period edges, the as-of FX
join, window weighting across a DST change and by weekday, hand-computed blends and the
look-ahead guard. Expected values are worked out by hand here, not by the code under test."""

from __future__ import annotations

import datetime as dt
import warnings
from pathlib import Path

import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st

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


# A file made for the whole table: o's `w` has a window over every day's first twelve hours UTC (half
# the week), o's `free` costs nothing, p's `a` changes record on 2026-03-03 (a context band and a
# batch discount from then), p's `c` is priced in yuan only; p's CNY list also prices `a`, which is
# quoted from the USD list.
MORNING = {"name": "morning", "tier": "peak", "timezone": "UTC", "spans": [{"start": "00:00", "end": "12:00"}]}
MADE = {
    "p": Sourced(PriceFile.model_validate({"provider": "p", "name": "P", "lists": [
        usd([{"model": "a", "from": "2026-03-01", "to": "2026-03-03", **SRC, "prices": [
                 {"meter": "input", "price": 1}, {"meter": "output", "price": 3},
                 {"meter": "cached_input", "price": 0.1}]},
             {"model": "a", "from": "2026-03-03", "batch_discount": 0.5, **SRC, "prices": [
                 {"meter": "input", "price": 2}, {"meter": "output", "price": 6},
                 {"meter": "input", "price": 4, "context_above_tokens": 100000},
                 {"meter": "output", "price": 12, "context_above_tokens": 100000}]}]),
        {"currency": "CNY", "records": [
            {"model": "a", "from": "2026-03-01", **SRC, "prices": [
                {"meter": "input", "price": 100}, {"meter": "output", "price": 100}]},
            {"model": "c", "from": "2026-03-02", "batch_discount": 0.4, **SRC, "prices": [
                {"meter": "input", "price": 8}, {"meter": "output", "price": 16}]}]}]}),
        "sources/prices/p.yaml"),
    "o": Sourced(PriceFile.model_validate({"provider": "o", "name": "O", "lists": [
        usd([{"model": "w", "from": "2026-03-01", **SRC, "prices": [
                 {"meter": "input", "price": 1}, {"meter": "output", "price": 2},
                 {"meter": "input", "price": 2, "window": "morning"},
                 {"meter": "output", "price": 4, "window": "morning"}]},
             {"model": "free", "from": "2026-03-01", **SRC, "prices": [
                 {"meter": "input", "price": 0}, {"meter": "output", "price": 0}]}], [MORNING])]}),
        "sources/prices/o.yaml")}
MADE_RATES = table_from_eur_rates({"USD": {dt.date(2026, 2, 27): 1.1}, "CNY": {dt.date(2026, 2, 27): 7.7}})
BATCH = WorkloadProfile(id="batch", title="b", input_share=0.75, mode="batch")
LONG = WorkloadProfile(id="long", title="l", input_share=0.75, prompt_tokens=200000)
BEFORE, OPENING, CHANGE = (dt.datetime(2026, 2, 28, tzinfo=UTC), dt.datetime(2026, 3, 1, tzinfo=UTC),
                           dt.datetime(2026, 3, 3, tzinfo=UTC))


def test_every_cell_of_the_quote_table_of_a_file_made_for_it():
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # a free model's tokens per USD are inf, not a numpy warning
        table = quotes(MADE, MADE_RATES, [CHAT, AGENT, BATCH, LONG], [CHANGE, BEFORE, OPENING, CHANGE])
    nan, inf, cny = float("nan"), float("inf"), 1.1 / 7.7   # 1 CNY = 1/7 USD on 2026-02-27
    us = {at: int(at.timestamp()) * 1_000_000 for at in (OPENING, CHANGE)}
    day = {d: dt.date(2026, *d).toordinal() for d in ((2, 27), (3, 1), (3, 3))}
    # Keys: o's w 0, free 1, then p's a 2, c 3; rids in that order, a's two records 2 and 3, c 4.
    # Blends by hand, per profile (chat 3:1; agent 0.9 input, 80 % hits; batch; 200k-token prompt):
    w = (0.75 * 1 + 0.25 * 2 + 0.75 * 2 + 0.25 * 4) / 2                        # 1.875, half in the window
    a_old = {"chat": 0.75 * 1 + 0.25 * 3, "agent": 0.9 * (0.2 * 1 + 0.8 * 0.1) + 0.1 * 3,  # 0.552
             "batch": nan, "long": 0.75 * 1 + 0.25 * 3}
    a_new = {"chat": 0.75 * 2 + 0.25 * 6, "agent": nan, "batch": 0.5 * (0.75 * 2 + 0.25 * 6),
             "long": 0.75 * 4 + 0.25 * 12}                                     # 3, -, 1.5, 6
    c = {"chat": 0.75 * 8 + 0.25 * 16, "agent": nan, "batch": 0.4 * 10, "long": 10.0}
    free = {"chat": 0.0, "agent": nan, "batch": nan, "long": 0.0}
    window = {"chat": w, "agent": nan, "batch": nan, "long": w}
    expected = []
    for n, name in enumerate(("chat", "agent", "batch", "long")):
        for at, key, rid, blend, rate, fixed in [
                (OPENING, 0, 0, window[name], 1.0, (3, 1)), (OPENING, 1, 1, free[name], 1.0, (3, 1)),
                (OPENING, 2, 2, a_old[name], 1.0, (3, 1)),
                (CHANGE, 0, 0, window[name], 1.0, (3, 1)), (CHANGE, 1, 1, free[name], 1.0, (3, 1)),
                (CHANGE, 2, 3, a_new[name], 1.0, (3, 3)), (CHANGE, 3, 4, c[name], cny, (2, 27))]:
            usd_ = blend * rate
            tokens = nan if usd_ != usd_ else (inf if usd_ == 0 else 1e6 / usd_)
            expected.append((us[at], n, key, rid, blend, usd_, tokens, rate, day[fixed]))
    got = table.table
    assert list(got.columns) == ["at", "profile", "key", "rid", "list_per_mtok", "usd_per_mtok",
                                 "tokens_per_usd", "fx_usd_per_unit", "fx_day"]
    assert len(got) == len(expected)
    for row, want in zip(got.itertuples(index=False), expected, strict=True):
        assert tuple(row[:4]) == want[:4]
        assert list(row[4:]) == pytest.approx(list(want[4:]), rel=1e-12, nan_ok=True)
    assert table.instants == {int(at.timestamp()) * 1_000_000 for at in (BEFORE, OPENING, CHANGE)}
    assert table.at(BEFORE, CHAT).empty and table.at(BEFORE, LONG).empty
    assert list(table.at(CHANGE, BATCH)["rid"]) == [0, 1, 3, 4]
    with pytest.raises(KeyError, match=r"^'the quote table has no instant 2026-03-02T00:00:00\+00:00'$"):
        table.at(dt.datetime(2026, 3, 2, tzinfo=UTC), CHAT)

    # The figures as quotes, and the selections of them.
    (qa, qc) = [q for q in table.priced(CHANGE, BATCH)]
    assert (qa.quoted.provider, qa.quoted.record.model, qa.quoted.record.from_) == ("p", "a", CHANGE)
    assert (qa.list_per_mtok, qa.usd_per_mtok, qa.tokens_per_usd, qa.fx_usd_per_unit, qa.fx_date) == (
        1.5, 1.5, 1e6 / 1.5, 1.0, dt.date(2026, 3, 3))
    assert qc.quoted.plist.currency == "CNY" and qc.quoted.sourced is MADE["p"]
    assert (qc.list_per_mtok, qc.fx_date) == (4.0, dt.date(2026, 2, 27))
    assert (qc.usd_per_mtok, qc.tokens_per_usd, qc.fx_usd_per_unit) == pytest.approx(
        (4 * cny, 1e6 / (4 * cny), cny), rel=1e-12)
    assert [q.quoted.record.model for q in table.priced(OPENING, AGENT)] == ["a"]
    assert table.priced(CHANGE, AGENT) == [] and table.cheapest(CHANGE, AGENT) is None
    assert table.cheapest(OPENING, AGENT).list_per_mtok == pytest.approx(0.552, rel=1e-12)
    assert table.cheapest(CHANGE, BATCH).quoted.record.model == "c"            # 4/7 USD < 1.5
    free_quote = table.cheapest(CHANGE, CHAT)
    assert (free_quote.quoted.record.model, free_quote.usd_per_mtok, free_quote.tokens_per_usd) == (
        "free", 0.0, inf)
    # A blend of zero at the start has no relative move: free is left out.
    assert [(x, y, q.record.model, q.record.from_) for x, y, q in table.blend_moves(OPENING, CHANGE, LONG)] == [
        (w, w, "w", OPENING), (1.5, 6.0, "a", CHANGE)]
    assert table.blend_moves(OPENING, CHANGE, AGENT) == []
    assert [q.record.model for _, _, q in table.blend_moves(CHANGE, CHANGE, BATCH)] == ["a", "c"]
    assert quotes(MADE, MADE_RATES, [], [OPENING]).table.empty


def test_a_blend_is_shown_again_only_when_its_figures_as_the_file_shows_them_change():
    """usd_per_mtok has 9 decimals in the file, tokens_per_usd 3: a change below both adds no row,
    one below the first only adds one."""
    def record(model, start, end, value):
        return {"model": model, "from": start, **({"to": end} if end else {}), **SRC,
                "prices": [{"meter": "input", "price": value}, {"meter": "output", "price": value}]}

    f = files(usd([record("e", "2026-03-01", "2026-03-03", 1), record("e", "2026-03-03", None, 1.0000000001),
                   record("f", "2026-03-01", "2026-03-03", 0.001),
                   record("f", "2026-03-03", None, 0.0010000000004)]))
    days = [dt.date(2026, 3, d) for d in (4, 1, 2, 3, 2)]
    table = quotes(f, MADE_RATES, [CHAT, LONG], [day_end(d) for d in days])
    rows = table.blended_rows(days)
    assert list(rows.columns) == ["provider", "model", "profile", "as_of", "usd_per_mtok", "tokens_per_usd"]
    # e: 1.0000000001 rounds to 1.0 and 999999.9999 to 1000000.0: one row per profile. f: 0.001 and
    # 0.0010000000004 agree to 9 decimals, but a dollar buys 1e9 and 999999999.6 tokens.
    assert rows.to_dict("split")["data"] == [
        ["p", "e", "chat-3-1", "2026-03-01", 1.0, 1000000.0],
        ["p", "e", "long", "2026-03-01", 1.0, 1000000.0],
        ["p", "f", "chat-3-1", "2026-03-01", 0.001, 1e9],
        ["p", "f", "chat-3-1", "2026-03-03", 0.001, 999999999.6],
        ["p", "f", "long", "2026-03-01", 0.001, 1e9],
        ["p", "f", "long", "2026-03-03", 0.001, 999999999.6]]
    with pytest.raises(KeyError, match="the quote table has no instant for 2026-03-05"):
        table.blended_rows([dt.date(2026, 3, 1), dt.date(2026, 3, 5)])


def test_edges_of_bands_periods_batch_prices_and_currencies_by_hand():
    """A band's threshold itself (a prompt of exactly 100000 tokens stays below it, one of 0
    tokens is in the base band), a record that ends with no successor (gone at its end, to the
    microsecond), an explicit batch price beside a record with only a discount, a list in a
    currency without ECB rates, and a yuan record before the USD ones in row order."""
    band = [{"meter": "input", "price": 1}, {"meter": "output", "price": 3},
            {"meter": "input", "price": 4, "context_above_tokens": 100000},
            {"meter": "output", "price": 12, "context_above_tokens": 100000}]
    f = {"a": Sourced(PriceFile.model_validate({"provider": "a", "name": "A", "lists": [
            {"currency": "CNY", "records": [{"model": "y", "from": "2026-03-02", **SRC, "prices": FLAT}]}]}),
            "sources/prices/a.yaml"),
         "b": Sourced(PriceFile.model_validate({"provider": "b", "name": "B", "lists": [
             usd([{"model": "band", "from": "2026-03-01", "to": "2026-03-03", **SRC, "prices": band},
                  {"model": "x", "from": "2026-03-01", **SRC, "prices": [
                      *FLAT, {"meter": "input", "price": 0.5, "mode": "batch"},
                      {"meter": "output", "price": 1.5, "mode": "batch"}]},
                  {"model": "d", "from": "2026-03-01", "batch_discount": 0.5, **SRC, "prices": FLAT}]),
             {"currency": "JPY", "records": [{"model": "j", "from": "2026-03-01", **SRC, "prices": FLAT}]}]}),
             "sources/prices/b.yaml")}
    profiles = [WorkloadProfile(id=f"p{n}", title="p", input_share=0.75, prompt_tokens=n)
                for n in (0, 100000, 100001)]
    end = dt.datetime(2026, 3, 3, tzinfo=UTC)
    tick = dt.timedelta(microseconds=1)
    table = quotes(f, MADE_RATES, [*profiles, BATCH, AGENT], [end - tick, end])

    def blends(at, profile):
        return {(q.quoted.provider, q.quoted.record.model): q.list_per_mtok for q in table.priced(at, profile)}

    # 3:1 of 1 and 3 = 1.5; of 4 and 12 = 6; y in yuan: 1.5 x 1/7 USD.
    assert [blends(end - tick, p)[("b", "band")] for p in profiles] == [1.5, 1.5, 6.0]
    assert ("b", "band") not in blends(end, profiles[0])
    assert blends(end, BATCH) == {("b", "x"): 0.75 * 0.5 + 0.25 * 1.5, ("b", "d"): 0.5 * 1.5}
    # Blends under 1 move too (both 0.75, unchanged): only a blend of 0 at the start is left out.
    assert [(x, y, q.record.model) for x, y, q in table.blend_moves(end - tick, end, BATCH)] == [
        (0.75, 0.75, "x"), (0.75, 0.75, "d")]
    assert [(q.quoted.record.model, q.usd_per_mtok) for q in table.priced(end, profiles[0])] == [
        ("y", pytest.approx(1.5 * 1.1 / 7.7, rel=1e-12)), ("x", 1.5), ("d", 1.5)]
    # j has no rate (in the table, never priced); no model here has a cache price.
    assert len(table.at(end, profiles[0])) == 4 and table.priced(end, AGENT) == []
    assert quotes(f, MADE_RATES, [CHAT], []).table.empty


# Blends a day can have: pairs equal to 9 decimals (USD) and 3 (tokens per USD), or not; None: no record.
NEAR = [1.0, 1.0000000001, 2.5, 2.5000000001, 3.0, 3.0000000001, 0.001, 0.0010000000004, None]


@settings(max_examples=40, deadline=None)
@example(days=[[2.5, 2.5000000001, None, 1.0, 1.0000000001, 2.5000000001],
                [3.0, 3.0000000001, 0.001, 0.0010000000004, None, 2.5]])
@given(days=st.lists(st.lists(st.sampled_from(NEAR), min_size=6, max_size=6), min_size=2, max_size=2))
def test_blended_rows_are_the_days_whose_shown_figures_differ_from_the_day_before(days):
    """Oracle: day by day, a row where the model is priced and the day before it was not, or
    its figures rounded as the file shows them (9 decimals, 3) differ from the day before's."""
    start = dt.date(2026, 3, 1)
    dates = [start + dt.timedelta(days=i) for i in range(7)]

    def record(model, i, value):
        return {"model": model, "from": dates[i].isoformat(), "to": (dates[i] + dt.timedelta(days=1)).isoformat(),
                **SRC, "prices": [{"meter": "input", "price": value}, {"meter": "output", "price": value}]}

    # A seventh day in the table but not asked for: its figures must not leak into the rows.
    f = files(usd([record(m, i, v) for m, values in zip("mn", days)
                   for i, v in enumerate([*values, 7.0]) if v is not None]))
    table = quotes(f, MADE_RATES, [CHAT, LONG], [day_end(d) for d in dates])
    expected = []
    for model, values in zip("mn", days):
        for profile in (CHAT, LONG):
            before = None
            for d, v in zip(dates, values):
                shown = None
                if v is not None:
                    usd_ = 0.75 * v + 0.25 * v              # the blend as 3:1 of equal prices
                    shown = (round(usd_, 9), round(1e6 / usd_, 3))
                    if shown != before:
                        expected.append(["p", model, profile.id, d.isoformat(), *shown])
                before = shown
    assert table.blended_rows(dates[:6]).to_dict("split")["data"] == expected
