"""The market table: catalogue histories as of a date, curated files winning, free kept apart."""

from __future__ import annotations

import datetime as dt
import math
import re
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from pipeline.formats.price_map import ImportedPrice
from pipeline.load.fx import load_rate_table
from pipeline.load.prices import load_prices
from pipeline.models.catalogues import Catalogue
from pipeline.tables.catalogue_history import COLUMNS, empty_history, snapshot_table, update_history
from pipeline.tables.market import (
    TIER_COLUMNS,
    catalogue_rows,
    curated_rows,
    market_table,
    preset_figures,
    tokens_per_usd,
    workload_usd_per_mtok,
)

ROOT = Path(__file__).resolve().parents[1]
CATALOGUE = Catalogue(id="c", name="Cat", url="https://c.example/m.json",
                      page="https://c.example/", format="litellm", licence="MIT",
                      attribution="a", use="published")


def history_of(*snapshots: tuple[dt.datetime, list[ImportedPrice]]) -> pd.DataFrame:
    history = empty_history()
    for at, prices in snapshots:
        history = update_history(history, snapshot_table(prices, {}, at.date()), at).history
    return history


def p(model: str, meter: str, usd: float, provider: str = "openai", **kw) -> ImportedPrice:
    return ImportedPrice(provider, model, meter, usd, **kw)


def test_a_catalogue_price_counts_from_the_snapshot_that_first_showed_it():
    t1 = dt.datetime(2026, 9, 1, 6, tzinfo=dt.UTC)
    t2 = dt.datetime(2026, 9, 10, 6, tzinfo=dt.UTC)
    history = history_of((t1, [p("m", "input", 1.0), p("m", "output", 4.0)]),
                         (t2, [p("m", "input", 0.5), p("m", "output", 4.0),
                               p("n", "input", 2.0), p("n", "output", 8.0),
                               p("m", "input", 9.0, context_above_tokens=200_000),
                               p("m", "output", 2.0, mode="batch")]))
    before = catalogue_rows(history, CATALOGUE, dt.date(2026, 9, 9))
    assert before[["model", "input_usd_per_mtok", "output_usd_per_mtok"]].values.tolist() == [
        ["m", 1.0, 4.0]]  # n and the cut are not known yet
    after = catalogue_rows(history, CATALOGUE, dt.date(2026, 9, 10))
    m = after[after["model"] == "m"].iloc[0]
    # The base band only; batch beside; the cut dated by its snapshot.
    assert (m["input_usd_per_mtok"], m["batch_output_usd_per_mtok"], m["last_change"]) == (
        0.5, 2.0, "2026-09-10")
    assert catalogue_rows(history, CATALOGUE, dt.date(2026, 8, 31)).empty


def test_curated_records_win_and_free_is_kept_but_never_ranked():
    files, _ = load_prices(ROOT)
    rates = load_rate_table(ROOT)
    at = dt.datetime(2026, 9, 1, tzinfo=dt.UTC)
    history = history_of((at, [p("gpt-5.5", "input", 99.0), p("gpt-5.5", "output", 99.0),
                               p("gratis", "input", 0.0), p("gratis", "output", 0.0),
                               p("cheap", "input", 0.01, provider="x"),
                               p("cheap", "output", 0.02, provider="x")]))
    day = dt.date(2026, 9, 12)
    table = market_table([curated_rows(files, rates, day), catalogue_rows(history, CATALOGUE, day)])
    gpt = table[(table["provider"] == "openai") & (table["model"] == "gpt-5.5")]
    assert len(gpt) == 1 and gpt.iloc[0]["source"] == "OpenAI (curated)"
    assert (gpt.iloc[0]["input_usd_per_mtok"], gpt.iloc[0]["output_usd_per_mtok"]) == (5.0, 30.0)
    assert table.iloc[0]["model"] == "cheap"  # the lowest output price first
    assert table.iloc[-1]["model"] == "gratis" and bool(table.iloc[-1]["free"])
    flash = table[table["model"] == "glm-4.5-air"].iloc[0]
    # From the CNY list at the ECB rate of the record's date, the list's own price beside.
    assert flash["currency"] == "CNY" and flash["list_input_per_mtok"] > flash["input_usd_per_mtok"]


def test_the_changes_a_history_records_are_the_moves_each_snapshot_made():
    """Two ways to the same moves: each update's own, and the final history read back."""
    from pipeline.tables.catalogue_history import history_changes

    snaps = [
        (dt.datetime(2026, 9, 1, 6, tzinfo=dt.UTC), [p("a", "input", 1.0), p("b", "input", 2.0)]),
        (dt.datetime(2026, 9, 2, 6, tzinfo=dt.UTC), [p("a", "input", 0.8), p("b", "input", 2.0),
                                                      p("c", "input", 3.0)]),
        (dt.datetime(2026, 9, 3, 6, tzinfo=dt.UTC), [p("a", "input", 0.8), p("c", "input", 3.5)]),
        (dt.datetime(2026, 9, 4, 6, tzinfo=dt.UTC), [p("a", "input", 0.8), p("b", "input", 2.0),
                                                      p("c", "input", 3.5)]),
    ]
    history, recorded = empty_history(), []
    for i, (at, prices) in enumerate(snaps):
        update = update_history(history, snapshot_table(prices, {}, at.date()), at)
        history = update.history
        if i:  # the first snapshot is where the history starts
            recorded.append(update.changes)
    want = pd.concat(recorded, ignore_index=True)
    got = history_changes(history, "c")
    as_rows = lambda t, old, new: sorted(  # noqa: E731
        (r.model, r.kind, None if pd.isna(getattr(r, old)) else getattr(r, old),
         None if pd.isna(getattr(r, new)) else getattr(r, new), r.at) for r in t.itertuples())
    assert as_rows(got, "old_usd_per_mtok", "new_usd_per_mtok") == as_rows(want, "old", "new")
    assert as_rows(got, "old_usd_per_mtok", "new_usd_per_mtok") == [
        ("a", "cut", 1.0, 0.8, "2026-09-02T06:00Z"), ("b", "new", None, 2.0, "2026-09-04T06:00Z"),
        ("b", "removed", 2.0, None, "2026-09-03T06:00Z"), ("c", "new", None, 3.0, "2026-09-02T06:00Z"),
        ("c", "rise", 3.0, 3.5, "2026-09-03T06:00Z")]
    # From the first snapshot of the whole catalogue on, a price first seen then is where its
    # history starts (c), not a new price; a price new later (b, back on 09-04) still is.
    since = history_changes(history, "c", whole_since=snaps[1][0])
    assert ("c", "new") not in {(r.model, r.kind) for r in since.itertuples()}
    assert ("b", "new") in {(r.model, r.kind) for r in since.itertuples()}


def test_a_model_priced_only_in_another_list_then_is_quoted_from_it():
    from pipeline.models.prices import PriceFile
    from pipeline.models.sourced import Sourced
    from pipeline.normalize.fx import table_from_eur_rates

    def record(start: str, end: str | None, price: float) -> dict:
        r = {"model": "m", "from": start, "source_url": "https://p.example/pricing",
             "checked": start, "prices": [{"meter": "input", "price": price},
                                           {"meter": "output", "price": price * 4}]}
        return r | ({"to": end} if end else {})

    file = PriceFile.model_validate({"provider": "p", "name": "P", "lists": [
        {"currency": "USD", "unit": "per_1m_tokens", "records": [record("2026-10-01", None, 2.0)]},
        {"currency": "EUR", "unit": "per_1m_tokens",
         "records": [record("2026-01-01", None, 1.0)]}]})
    rates = table_from_eur_rates({"USD": {dt.date(2026, 1, 1): 1.25}})
    table = curated_rows({"p": Sourced(file, "sources/prices/p.yaml")}, rates,
                         dt.date(2026, 6, 1))
    (row,) = table.itertuples()
    # The USD list is the quoted one but starts later: the EUR list, in force, is used.
    assert (row.currency, row.list_input_per_mtok, row.input_usd_per_mtok) == ("EUR", 1.0, 1.25)


def hourly_market() -> pd.DataFrame:
    """A market whose blends are worked out by hand below: four curated models (one with
    off-peak nights, one with peak days, one with a flat price, one free) and a catalogue model
    that the catalogue prices dearer in a daily window."""
    from pipeline.models.prices import PriceFile
    from pipeline.models.sourced import Sourced
    from pipeline.normalize.fx import table_from_eur_rates

    def record(model: str, prices: list[dict], **kw) -> dict:
        return {"model": model, "from": "2026-01-01", "source_url": "https://p.example/pricing",
                "checked": "2026-01-01", "prices": prices, **kw}

    def price(meter: str, value: float, window: str | None = None) -> dict:
        return {"meter": meter, "price": value} | ({"window": window} if window else {})

    file = PriceFile.model_validate({"provider": "p", "name": "P", "lists": [{
        "currency": "USD", "unit": "per_1m_tokens",
        "windows": [
            {"name": "night", "tier": "off-peak", "timezone": "UTC",
             "spans": [{"start": "00:00", "end": "06:00"}]},
            {"name": "day", "tier": "peak", "timezone": "UTC",
             "spans": [{"start": "08:00", "end": "20:00"}]}],
        "records": [
            # Nights (6 of 24 hours) off-peak at half price; no cached price of their own.
            record("w", [price("input", 2.0), price("cached_input", 0.5), price("output", 8.0),
                         price("input", 1.0, "night"), price("output", 4.0, "night")]),
            # Peak days (12 hours), the rest standard: no off-peak hours at all; no cached price.
            record("q", [price("input", 2.0), price("output", 4.0), price("input", 4.0, "day"),
                         price("output", 8.0, "day")]),
            record("flat", [price("input", 3.0), price("output", 7.0)]),
            record("gratis", [price("input", 0.0), price("output", 0.0)])]}]})
    rates = table_from_eur_rates({"USD": {dt.date(2026, 1, 1): 1.25}})
    day = dt.date(2026, 6, 1)
    curated = curated_rows({"p": Sourced(file, "sources/prices/p.yaml")}, rates, day)
    at = dt.datetime(2026, 5, 1, tzinfo=dt.UTC)
    day_window = (dt.time(8), dt.time(20))
    history = history_of((at, [p("cat", "input", 0.5, provider="c"),
                               p("cat", "cached_input", 0.1, provider="c"),
                               p("cat", "output", 2.0, provider="c"),
                               p("cat", "input", 1.0, provider="c", window_utc=day_window),
                               p("cat", "output", 4.0, provider="c", window_utc=day_window)]))
    return market_table([curated, catalogue_rows(history, CATALOGUE, day)]).set_index("model")


def test_a_workload_is_priced_by_the_hour_as_the_build_blends_it_worked_by_hand():
    table = hourly_market()
    tiers = table[list(TIER_COLUMNS)]
    nan = float("nan")
    # Off-peak input, cached, output; the other hours' the same; the off-peak share of the week.
    # w: nights at 1.0 / 4.0, cache hits at the rest-of-week cached price (tier_price falls back).
    assert tiers.loc["w"].tolist() == [1.0, 0.5, 4.0, 2.0, 0.5, 8.0, 0.25]
    # q: no off-peak hours; its other hours averaged by time: (4 + 2) / 2, (8 + 4) / 2, and no
    # cached price.
    assert tiers.loc["q"].tolist()[3] == 3.0
    assert tiers.loc["q"].tolist()[5:] == [6.0, 0.0] and math.isnan(tiers.loc["q"].tolist()[4])
    assert tiers.loc["q"].isna().tolist()[:3] == [True] * 3
    # cat: the window is dearer than the rest of the day, so it is peak and the rest off-peak.
    assert tiers.loc["cat"].tolist() == [0.5, 0.1, 2.0, 1.0, 0.1, 4.0, 0.5]
    assert tiers.loc[["flat", "gratis"]].isna().all(axis=None)

    # 75 % input, a fifth of it cache hits: per kind of hour 0.75 × (0.8 in + 0.2 cached) + 0.25 out.
    #   w off-peak 0.75 × 0.9 + 1.0 = 1.675, other 0.75 × 1.7 + 2.0 = 3.275;
    #     by the week's hours 0.25 × 1.675 + 0.75 × 3.275 = 2.875; 60 % off-peak 2.315.
    #   q and flat have no cached price: no cost with cache hits.
    #   cat 0.815 off-peak, 1.615 peak:
    #     1.215 by the hours (half each), 0.6 × 0.815 + 0.4 × 1.615 = 1.135 at 60 %.
    by_hours = workload_usd_per_mtok(table, 0.75, 0.2)
    sixty = workload_usd_per_mtok(table, 0.75, 0.2, offpeak_share=0.6)
    want = {"w": (2.875, 2.315), "cat": (1.215, 1.135)}
    for model, (hours, at_sixty) in want.items():
        assert by_hours[model] == pytest.approx(hours, rel=1e-12), model
        assert sixty[model] == pytest.approx(at_sixty, rel=1e-12), model
    assert math.isnan(by_hours["q"]) and math.isnan(by_hours["flat"])
    assert math.isnan(by_hours["gratis"]) and bool(table.loc["gratis", "free"])
    # No cache hits: q 0.75 × 4 + 0.25 × 8 = 5 by day, 2.5 else: 3.75 whatever the off-peak
    # share; flat 0.75 × 3 + 0.25 × 7 = 4.0.
    no_hits = workload_usd_per_mtok(table, 0.75, 0.0)
    assert no_hits["q"] == pytest.approx(3.75, rel=1e-12)
    assert workload_usd_per_mtok(table, 0.75, 0.0, offpeak_share=0.6)["q"] == pytest.approx(3.75)
    assert no_hits["flat"] == pytest.approx(4.0, rel=1e-12)
    tokens = tokens_per_usd(no_hits)
    assert tokens["flat"] == pytest.approx(250_000, rel=1e-12)
    # Free has no tokens per dollar; nor does a workload that costs nothing: never inf.
    assert math.isnan(tokens["gratis"])
    assert tokens_per_usd(pd.Series([0.0, nan])).isna().all()


def test_the_market_blend_is_the_builds_blend_for_every_curated_model():
    """tables.cost.blended_per_mtok, record by record, against the whole-table blend."""
    from pipeline.load.sources import load_sources
    from pipeline.models.prices import WorkloadProfile
    from pipeline.tables.cost import blended_per_mtok, day_end, record_at, record_fx, week_start

    sources = load_sources(ROOT)
    day = sources.series.dates[-1]
    table = market_table([curated_rows(sources.prices, sources.rates, day)])
    profiles = [*sources.series.profiles, WorkloadProfile(
        id="night-owl", title="Night owl", input_share=0.6, cache_hit_rate=0.5,
        offpeak_share=0.9)]
    figures = preset_figures(table, profiles)
    at = day_end(day)
    hourly = 0
    for i, row in table.iterrows():
        plist = sources.prices[row["provider"]].model.quote_lists[row["model"]]
        record = record_at(plist, row["model"], at)
        if record is None or plist.currency != row["currency"]:
            continue  # quoted from another list in force (curated_rows): checked elsewhere
        usd = record_fx(plist, record, sources.rates).usd_per_unit
        hourly += not math.isnan(row["offpeak_week_share"])
        for profile in profiles:
            want = blended_per_mtok(plist, record, profile, week_start(at))
            got = figures.loc[i, f"{profile.id}_usd_per_mtok"]
            if want is None or row["free"]:
                assert math.isnan(got)
            else:
                assert got == pytest.approx(want * usd, rel=1e-12), (row["model"], profile.id)
    assert hourly >= 2  # DeepSeek's v4 models, peak and off-peak


def test_the_page_carries_each_presets_figures_and_never_inf_or_nan():
    from pipeline.models.prices import WorkloadProfile
    from pipeline.render.market_page import market_page_md

    table = hourly_market().reset_index()
    profiles = [WorkloadProfile(id="chat-3-1", title="Chat", input_share=0.75),
                WorkloadProfile(id="bulk", title="Bulk", input_share=0.5, mode="batch")]
    page = market_page_md(table, dt.date(2026, 6, 1), profiles)
    rows = {r.split("<td>")[2].split("</td>")[0]: r for r in page.splitlines()
            if r.startswith("<tr ")}
    assert 'data-build-chat-3-1="4.0 250000.0"' in rows["flat"]  # 0.75 × 3 + 0.25 × 7
    assert "data-build-bulk" not in page  # the calculator prices realtime: no batch preset
    assert 'data-offpeak="1.0 0.5 4.0" data-peak="2.0 0.5 8.0" data-offpeak-week="0.25"' in rows["w"]
    assert "data-offpeak=" not in rows["q"] and 'data-offpeak-week="0.0"' in rows["q"]
    assert "data-free" in rows["gratis"] and "data-build" not in rows["gratis"]
    assert '<option value="chat-3-1" data-input-tokens="750000" data-output-tokens="250000" ' \
           'data-cache-hit="0" data-offpeak="">Chat</option>' in page
    assert not re.search(r"\b(nan|inf|NaN|Infinity)\b", page)


def test_a_catalogue_window_is_off_peak_unless_dearer_and_shares_the_week_by_its_minutes():
    """Each model's TIER_COLUMNS worked out by hand from its rest-of-day and window prices."""
    t = dt.time

    def priced(model: str, window: tuple[dt.time, dt.time], **meters: float) -> list[ImportedPrice]:
        return [p(model, "input", 2.0), p(model, "output", 4.0),
                *(p(model, m, usd, window_utc=window) for m, usd in meters.items())]

    at = dt.datetime(2026, 9, 1, 6, tzinfo=dt.UTC)
    night = (t(22, 30), t(6, 30))  # 1350 → 390 min: 480 of 1440, a third of the week
    afternoon = (t(12), t(18))  # 360 of 1440: a quarter
    history = history_of((at, [
        p("d", "input", 2.0), p("d", "cached_input", 0.2), p("d", "output", 8.0),
        p("d", "input", 1.0, window_utc=night), p("d", "output", 4.0, window_utc=night),
        p("d", "input", 0.5, window_utc=night, mode="batch"),  # batch: not a tier
        p("d", "input", 3.0, window_utc=night, from_date=dt.date(2026, 1, 1)),  # listed second
        *priced("w", (t(6), t(6)), input=1.0, output=2.0),  # ends where it starts: all day
        # All day too, the rest of it (no time) without an input price: that does not matter.
        p("w2", "output", 4.0), p("w2", "input", 1.0, window_utc=(t(6), t(6))),
        p("w2", "output", 2.0, window_utc=(t(6), t(6))),
        *priced("o", (t(0), t(16)), input=1.0, output=2.0),  # 960 + 720 min: overlap
        *priced("o", (t(8), t(20)), input=3.0, output=6.0),
        *priced("n", afternoon, output=6.0),  # no input price: dearer by output, peak
        *priced("n2", afternoon, output=4.0),  # no input price, output as the rest: off-peak
        *priced("e", afternoon, input=2.0, output=6.0),  # input as the rest: not dearer
        p("plain", "input", 1.0), p("plain", "output", 2.0),
        p("plain2", "input", 1.0), p("plain2", "output", 3.0)]))
    table = catalogue_rows(history, CATALOGUE, dt.date(2026, 9, 10)).set_index("model")
    nan = float("nan")
    # (offpeak input, cached, output, peak input, cached, output, offpeak week share)
    want = {
        # The night (input 1.0 < 2.0) is off-peak, a third of the week; cache hits at the
        # rest of the day's 0.2 in both; the first listed night input, 1.0, not 3.0.
        "d": (1.0, 0.2, 4.0, 2.0, 0.2, 8.0, 1 / 3),
        "w": (1.0, nan, 2.0, nan, nan, nan, 1.0), "w2": (1.0, nan, 2.0, nan, nan, nan, 1.0),
        "o": (nan,) * 7,
        # The afternoon bills input at the rest's 2.0; the rest (3/4) is off-peak.
        "n": (2.0, nan, 4.0, 2.0, nan, 6.0, 0.75),
        "n2": (2.0, nan, 4.0, 2.0, nan, 4.0, 0.25),
        "e": (2.0, nan, 6.0, 2.0, nan, 4.0, 0.25),
        "plain": (nan,) * 7, "plain2": (nan,) * 7}
    got = {m: tuple(float(table.loc[m, c]) for c in TIER_COLUMNS) for m in want}
    for model, values in want.items():
        assert all(math.isclose(g, w) or (math.isnan(g) and math.isnan(w))
                   for g, w in zip(got[model], values, strict=True)), (model, got[model], values)


def test_a_workload_on_a_model_with_off_peak_hours_only_bills_them_and_tokens_per_dollar():
    table = pd.DataFrame([{
        "input_usd_per_mtok": 2.0, "cached_input_usd_per_mtok": np.nan, "output_usd_per_mtok": 4.0,
        "offpeak_input_usd_per_mtok": 1.0, "offpeak_cached_input_usd_per_mtok": np.nan,
        "offpeak_output_usd_per_mtok": 2.0, "peak_input_usd_per_mtok": np.nan,
        "peak_cached_input_usd_per_mtok": np.nan, "peak_output_usd_per_mtok": np.nan,
        "offpeak_week_share": 1.0, "free": False}])
    # All hours off-peak: whatever share the workload puts off-peak, 0.75 × 1 + 0.25 × 2 = 1.25.
    assert workload_usd_per_mtok(table, 0.75, 0.0, offpeak_share=0.3).tolist() == [1.25]
    got = tokens_per_usd(pd.Series([0.5, 0.0, np.nan, 4.0]))
    assert got.iloc[0] == 2_000_000 and got.iloc[3] == 250_000 and got.iloc[1:3].isna().all()


# --- Which periods of a history are live at an edition, written row by row ------------------------

T1, T2, END = "2026-09-01T06:00Z", "2026-09-10T06:00Z", "2026-09-10T23:59Z"  # END: 10 September's last minute


def period(model: str, meter: str, usd: float, first_seen: str = T1, gone_seen: str = "", *,
           provider: str = "acme", catalogue_provider: str = "", ttl: str = "", above: str = "0",
           mode: str = "realtime", window: str = "", from_date: str = "", to_date: str = "",
           context: str = "") -> dict:
    return {"provider": provider, "catalogue_provider": catalogue_provider or provider,
            "model": model, "meter": meter, "ttl_minutes": ttl, "context_above_tokens": above,
            "mode": mode, "window_utc": window, "from_date": from_date, "to_date": to_date,
            "usd_per_mtok": usd, "first_seen": first_seen, "gone_seen": gone_seen,
            "checked": first_seen[:10], "context_window_tokens": context}


def written(*periods: dict) -> pd.DataFrame:
    return pd.DataFrame(list(periods), columns=COLUMNS)


def test_the_rows_at_an_edition_are_the_live_base_prices_read_off_the_periods_by_hand():
    """Each expected cell below is read off the periods, as of 10 September 2026 (to its last
    minute, END), not computed by the module."""
    history = written(
        # a: base prices, one cut at T2, two daily windows; rows that are not its base price.
        period("a", "input", 0.5, mode="batch"),  # batch beside, as `batch_input`
        period("a", "cached_input", 0.1, ttl="5"),  # the default cache lifetime
        period("a", "cached_input", 0.5, ttl="60"),  # a longer one: not the base price
        period("a", "input", 1.0, context="128000"),
        period("a", "input", 2.0, above="200000"),  # a long-context band: not the base price
        period("a", "input", 0.5, window="22:30-06:30"),  # 480 of 1440 minutes, cheaper
        period("a", "input", 2.0, window="12:00-18:00"),  # 360 of 1440 minutes, dearer
        period("a", "output", 5.0, T1, T2, context="100000"),  # cut at T2
        period("a", "output", 4.0, T2, context="200000"),  # the largest window of the live rows
        period("a", "output", 2.0, window="22:30-06:30"),
        period("a", "output", 8.0, window="12:00-18:00"),
        # b: two live cached prices in one cell: the first in the history's (key) order.
        period("b", "cached_input", 0.2), period("b", "cached_input", 0.3, ttl="5"),
        # A window that is not a number (a history file edited by hand) is none, not a failure.
        period("b", "input", 2.0, context="unknown"), period("b", "output", 6.0),
        # dated: a price from the day itself counts; one up to the day has ended.
        period("dated", "input", 2.0, from_date="2026-09-10"),
        period("dated", "output", 8.0, to_date="2026-09-10"),
        period("dated", "output", 7.0, from_date="2026-09-10"),
        period("gone", "input", 1.0, T1, END), period("gone", "output", 2.0, T1, END),  # gone at END
        period("later", "input", 1.0, from_date="2026-09-11"),  # from the day after
        period("later", "output", 2.0, from_date="2026-09-11"),
        period("starts", "input", 3.0, END), period("starts", "output", 6.0, END),  # seen at END
        # google's g as two of the catalogue's providers: gemini, first in key order, stands whole.
        period("g", "input", 1.0, provider="google", catalogue_provider="gemini"),
        period("g", "output", 4.0, provider="google", catalogue_provider="gemini"),
        period("g", "input", 2.0, provider="google", catalogue_provider="vertex_ai"),
        period("g", "output", 9.0, provider="google", catalogue_provider="vertex_ai"))
    got = catalogue_rows(history, CATALOGUE, dt.date(2026, 9, 10))
    nan = np.nan
    # a's hours: the night (input 0.5 < 1.0) is off-peak, a third of the week; the afternoon
    # (2.0 > 1.0) and the rest of the day (5/12) are not. Cache hits bill at 0.1 in both.
    # Peak input (2.0 × 1/4 + 1.0 × 5/12) / (2/3) = 1.375; output (8 × 1/4 + 4 × 5/12) / (2/3) = 5.5.
    a_tiers = [0.5, 0.1, 2.0, 1.375, 0.1, 5.5, 1 / 3]
    want = pd.DataFrame([
        ["acme", "a", 1.0, 0.1, nan, 4.0, 0.5, nan, "2026-09-10", 200000.0, *a_tiers],
        ["acme", "b", 2.0, 0.2, nan, 6.0, nan, nan, "2026-09-01", nan, *[nan] * 7],
        ["acme", "dated", 2.0, nan, nan, 7.0, nan, nan, "2026-09-01", nan, *[nan] * 7],
        ["acme", "starts", 3.0, nan, nan, 6.0, nan, nan, "2026-09-10", nan, *[nan] * 7],
        ["google", "g", 1.0, nan, nan, 4.0, nan, nan, "2026-09-01", nan, *[nan] * 7]],
        columns=["provider", "model", "input_usd_per_mtok", "cached_input_usd_per_mtok",
                 "cache_write_usd_per_mtok", "output_usd_per_mtok", "batch_input_usd_per_mtok",
                 "batch_output_usd_per_mtok", "last_change", "context_window_tokens", *TIER_COLUMNS])
    want = want.assign(currency="USD", list_input_per_mtok=want["input_usd_per_mtok"],
                       list_output_per_mtok=want["output_usd_per_mtok"], source="Cat",
                       source_url="https://c.example/")
    pd.testing.assert_frame_equal(got, want, check_exact=False, rtol=1e-12)


def test_a_catalogue_without_batch_or_cache_prices_has_those_columns_as_numbers_none_given():
    history = written(period("m", "input", 1.0), period("m", "output", 2.0))
    got = catalogue_rows(history, CATALOGUE, dt.date(2026, 9, 10))
    for meter in ("cached_input", "cache_write", "batch_input", "batch_output"):
        column = got[f"{meter}_usd_per_mtok"]
        assert column.dtype == "float64" and column.isna().all(), meter


def test_preset_figures_have_a_row_for_every_row_of_the_table_even_without_a_preset():
    table = hourly_market().reset_index()
    assert list(preset_figures(table, []).index) == list(table.index) and len(table) > 0


def batch_market() -> pd.DataFrame:
    """A market whose batch blends are worked out by hand below, indexed by model: one model
    with both batch prices, one with a batch input price only, one priced by the hour with
    flat batch prices, and a free one with batch prices."""
    from pipeline.tables.market import COLUMNS as MARKET

    nan = np.nan
    columns = [c for c in (*MARKET, *TIER_COLUMNS) if c != "free"]
    #        model, input, cached, output, batch input, batch output, off-peak in/out, share
    rows = [("both", 2.0, 0.5, 8.0, 1.0, 4.0, nan, nan, nan),
            ("half", 2.0, nan, 9.0, 1.0, nan, nan, nan, nan),
            ("hourly", 2.0, nan, 10.0, 1.5, 6.0, 1.0, 4.0, 0.25),
            ("gratis", 0.0, nan, 0.0, 0.5, 1.0, nan, nan, nan)]
    part = pd.DataFrame([{
        "provider": "p", "model": m, "input_usd_per_mtok": i, "cached_input_usd_per_mtok": c,
        "output_usd_per_mtok": o, "batch_input_usd_per_mtok": bi, "batch_output_usd_per_mtok": bo,
        # By the hour: off-peak at off_in / off_out, the rest at the listed prices.
        "offpeak_input_usd_per_mtok": off_in, "offpeak_output_usd_per_mtok": off_out,
        "peak_input_usd_per_mtok": nan if share != share else i,
        "peak_output_usd_per_mtok": nan if share != share else o, "offpeak_week_share": share,
        "currency": "USD", "source": "P (curated)", "source_url": "https://p.example/pricing",
        "last_change": "2026-01-01"} for m, i, c, o, bi, bo, off_in, off_out, share in rows],
        columns=columns)
    part = part.astype({c: float for c in columns
                        if c not in ("provider", "model", "currency", "source", "source_url",
                                     "last_change")})
    return market_table([part]).set_index("model")


def test_a_workload_at_batch_prices_is_billed_at_the_batch_input_and_output_worked_by_hand():
    table = batch_market()
    nan = np.nan
    # 75 % input: both 0.75 × 1 + 0.25 × 4 = 1.75; hourly 0.75 × 1.5 + 0.25 × 6 = 2.625 whatever
    # the off-peak share (batch is one price all week); half has no batch output price; gratis
    # is free, never priced.
    want = pd.Series([1.75, nan, 2.625, nan], index=pd.Index(["both", "half", "hourly", "gratis"],
                                                             name="model"))
    for offpeak in (None, 0.6):
        got = workload_usd_per_mtok(table, 0.75, 0.0, offpeak, mode="batch")
        pd.testing.assert_series_equal(got.loc[want.index], want, rtol=1e-12, check_names=False)
    # No list gives a cached-input batch price: with cache hits no model has a batch cost, though
    # both has a realtime one (0.9 × (0.2 × 2 + 0.8 × 0.5) + 0.1 × 8 = 1.52).
    assert workload_usd_per_mtok(table, 0.9, 0.8, mode="batch").isna().all()
    assert workload_usd_per_mtok(table, 0.9, 0.8)["both"] == pytest.approx(1.52, rel=1e-12)


def test_preset_figures_carry_each_presets_batch_figures_beside_the_realtime_ones():
    from pipeline.models.prices import DEFAULT_PROFILES

    table = batch_market()
    got = preset_figures(table, DEFAULT_PROFILES).loc[["both", "half", "hourly", "gratis"]]
    nan = np.nan
    # chat-3-1 realtime: both 0.75 × 2 + 0.25 × 8 = 3.5, half 0.75 × 2 + 0.25 × 9 = 3.75,
    # hourly off-peak 0.75 × 1 + 0.25 × 4 = 1.75 for a quarter of the week and
    # 0.75 × 2 + 0.25 × 10 = 4 for the rest: 3.4375. cached-agent: only both has a cached price.
    usd = {"chat-3-1": [3.5, 3.75, 3.4375, nan], "chat-3-1_batch": [1.75, nan, 2.625, nan],
           "cached-agent": [1.52, nan, nan, nan], "cached-agent_batch": [nan] * 4}
    want = pd.DataFrame({f"{k}_{unit}": [nan if v != v else (v if unit == "usd_per_mtok"
                                                             else 1e6 / v) for v in values]
                         for k, values in usd.items()
                         for unit in ("usd_per_mtok", "tokens_per_usd")}, index=got.index)
    pd.testing.assert_frame_equal(got, want[got.columns], rtol=1e-12)
    assert sorted(got.columns) == sorted(want.columns)


def test_the_page_carries_batch_prices_and_figures_only_where_both_batch_prices_are_given():
    from pipeline.models.prices import DEFAULT_PROFILES
    from pipeline.render.market_page import market_page_md

    page = market_page_md(batch_market().reset_index(), dt.date(2026, 6, 1),
                          list(DEFAULT_PROFILES))
    rows = {r.split("<td>")[2].split("</td>")[0]: r for r in page.splitlines()
            if r.startswith("<tr ")}
    assert 'data-batch="1.0 4.0"' in rows["both"]
    assert 'data-build-batch-chat-3-1="1.75 571428.5714285715"' in rows["both"]
    assert 'data-build-batch-chat-3-1="2.625 380952.38095238095"' in rows["hourly"]
    assert "data-batch" not in rows["half"] and "data-build-batch" not in rows["half"]
    # Free: its batch prices filter it in, but it has no figure to rank.
    assert 'data-batch="0.5 1.0"' in rows["gratis"] and "data-build" not in rows["gratis"]
    assert "data-build-batch-cached-agent" not in page  # cache hits: no batch cost
    assert ('<select id="market-mode"><option value="realtime">realtime</option>'
            '<option value="batch">batch</option></select>') in page


# --- Curated rows and the market's precedence, written by hand ------------------------------------

def curated_file(*lists: dict) -> dict:
    """A curated provider `p` (name P) from `lists`, each {currency, records}, all priced per
    million tokens; the list's windows are one off-peak night, 00:00-06:00 UTC (a quarter of the
    week)."""
    night = {"name": "night", "tier": "off-peak", "timezone": "UTC",
             "spans": [{"start": "00:00", "end": "06:00"}]}
    return {"provider": "p", "name": "P", "lists": [
        {"unit": "per_1m_tokens", "windows": [night], **plist} for plist in lists]}


def curated_record(model: str, start: str, *prices: tuple, **kw) -> dict:
    """A record of `model` from `start`; each price (meter, price[, window[, mode]])."""
    def price(meter: str, value: float, window: str | None = None, mode: str = "realtime") -> dict:
        return {"meter": meter, "price": value, "mode": mode} | ({"window": window} if window else {})

    return {"model": model, "from": start, "source_url": f"https://p.example/{model}",
            "checked": start, "prices": [price(*p) for p in prices], **kw}


def curated_table(file: dict, day: dt.date = dt.date(2026, 6, 1)) -> pd.DataFrame:
    from pipeline.models.prices import PriceFile
    from pipeline.models.sourced import Sourced
    from pipeline.normalize.fx import table_from_eur_rates

    # 1.25 USD per euro from 2 February 2026; no rates at all for GBP.
    rates = table_from_eur_rates({"USD": {dt.date(2026, 2, 2): 1.25}})
    return curated_rows({"p": Sourced(PriceFile.model_validate(file), "sources/prices/p.yaml")},
                        rates, day)


def test_curated_rows_worked_by_hand_skipping_a_model_not_in_force_and_one_without_a_rate():
    """Models in quote order: later (USD, from October: not in force on 1 June), u (USD, no
    output price), a (USD, a cheaper night), g (GBP: no rate), e (EUR, batch and cache prices).
    Each skipped model is followed by one that is kept."""
    file = curated_file(
        {"currency": "USD", "records": [
            curated_record("later", "2026-10-01", ("input", 1.0), ("output", 2.0)),
            curated_record("u", "2026-03-01", ("input", 3.0), ("input", 1.5, "night")),
            curated_record("a", "2026-04-01", ("input", 2.0), ("output", 8.0),
                           ("input", 1.0, "night"), ("output", 4.0, "night"))]},
        {"currency": "GBP", "records": [curated_record("g", "2026-03-01", ("input", 1.0),
                                                       ("output", 2.0))]},
        {"currency": "EUR", "records": [curated_record(
            "e", "2026-02-03", ("input", 2.0), ("cached_input", 0.4), ("cache_write", 2.5),
            ("output", 8.0), ("input", 1.0, None, "batch"), ("output", 3.0, None, "batch"))]})
    got = curated_table(file)
    nan = np.nan
    # u has no output price: no tiers (a blend without one has none). a's night is off-peak at
    # 1.0 / 4.0, a quarter of the week, the rest at 2.0 / 8.0; no cached price in either.
    # e in USD at 1.25 (the 2 February rate, the last on or before its 3 February record):
    # 2.5, 0.5, 3.125, 10.0; batch 1.25, 3.75; its EUR list prices beside.
    want = pd.DataFrame([
        ["p", "u", 3.0, nan, nan, nan, nan, nan, nan, "USD", 3.0, nan, "P (curated)",
         "https://p.example/u", "2026-03-01", *[nan] * 7],
        ["p", "a", 2.0, nan, nan, 8.0, nan, nan, nan, "USD", 2.0, 8.0, "P (curated)",
         "https://p.example/a", "2026-04-01", 1.0, nan, 4.0, 2.0, nan, 8.0, 0.25],
        ["p", "e", 2.5, 0.5, 3.125, 10.0, 1.25, 3.75, nan, "EUR", 2.0, 8.0, "P (curated)",
         "https://p.example/e", "2026-02-03", *[nan] * 7]],
        columns=["provider", "model", "input_usd_per_mtok", "cached_input_usd_per_mtok",
                 "cache_write_usd_per_mtok", "output_usd_per_mtok", "batch_input_usd_per_mtok",
                 "batch_output_usd_per_mtok", "context_window_tokens", "currency",
                 "list_input_per_mtok", "list_output_per_mtok", "source", "source_url",
                 "last_change", *TIER_COLUMNS])
    pd.testing.assert_frame_equal(got, want, check_exact=False, rtol=1e-12)


@pytest.mark.parametrize("meter", ["input", "output"])
def test_a_curated_list_price_no_record_gives_is_a_number_column_of_nan(meter: str):
    # The only model, priced for one meter: the other's list price is NaN in a float column.
    other = {"input": "output", "output": "input"}[meter]
    got = curated_table(curated_file({"currency": "USD", "records": [
        curated_record("m", "2026-03-01", (meter, 2.0))]}))
    column = got[f"list_{other}_per_mtok"]
    assert column.dtype == "float64" and column.isna().all()
    assert got[f"list_{meter}_per_mtok"].tolist() == [2.0]


def market_part(*rows: tuple, columns: list[str]) -> pd.DataFrame:
    """A part of the market: rows of (provider, model, input, output, context window, source),
    every other column NaN, in the order `columns` (a part's own)."""
    cells = [{"provider": pv, "model": m, "input_usd_per_mtok": i, "output_usd_per_mtok": o,
              "context_window_tokens": w, "source": s} for pv, m, i, o, w, s in rows]
    return pd.DataFrame(cells, columns=columns).astype(
        {c: float for c in columns if c not in ("provider", "model", "source")})


def test_the_market_keeps_the_first_parts_row_per_provider_and_model_and_sorts_free_last():
    from pipeline.tables.market import COLUMNS as MARKET

    nan = np.nan
    curated = [c for c in (*MARKET, *TIER_COLUMNS) if c != "free"]
    catalogue = [*reversed(curated)]  # another part, its columns in another order
    parts = [
        market_part(("p", "GLM-5", 1.0, 4.0, nan, "cur"), ("q", "m", 2.0, 3.0, nan, "cur"),
                    columns=curated),
        # p's glm-5 is the curated GLM-5 (ids compared case-folded): the curated row stays and
        # takes this one's context window; r's m is not q's m.
        market_part(("p", "glm-5", 9.0, 9.0, 128_000.0, "cat"), ("r", "m", 0.5, 1.0, 64_000.0, "cat"),
                    ("r", "gratis", 0.0, 0.0, nan, "cat"), columns=catalogue)]
    got = market_table(parts)
    # By output price (1.0, 3.0, 4.0), the free one last; numbered from 0 in that order.
    rows = [("r", "m", 0.5, 1.0, 64_000, False, "cat"), ("q", "m", 2.0, 3.0, pd.NA, False, "cur"),
            ("p", "GLM-5", 1.0, 4.0, 128_000, False, "cur"), ("r", "gratis", 0.0, 0.0, pd.NA, True, "cat")]
    want = pd.DataFrame([{"provider": pv, "model": m, "input_usd_per_mtok": i,
                          "output_usd_per_mtok": o, "context_window_tokens": w, "free": f,
                          "source": s} for pv, m, i, o, w, f, s in rows],
                        columns=[*MARKET, *TIER_COLUMNS])
    want = want.astype({c: float for c in want.columns
                        if c not in ("provider", "model", "source", "free", "context_window_tokens")})
    want = want.astype({"context_window_tokens": "Int64", "free": bool})
    pd.testing.assert_frame_equal(got, want)


def test_the_page_says_which_listings_are_not_billed_per_token():
    from pipeline.render.market_page import market_page_md

    page = market_page_md(hourly_market().reset_index(), dt.date(2026, 6, 1), held=2,
                          other_modes={"image": 5},
                          other_billing={"billed per instance hour (SageMaker)": 3,
                                         "routers, billed at the model they pick": 15})
    assert ("2 catalogue listings are held back as implausible (far from the same model's other "
            "providers, or above the ceiling for text models): see the "
            "[Discrepancies](../discrepancies/) page. Only text-generation models are ranked "
            "here; left out, their token fields not being comparable: 5 image listings. Left out "
            "too, as not billed per token (their token price, mostly zero, is no free price): 3 "
            "billed per instance hour (SageMaker); 15 routers, billed at the model they pick. "
            "Sorted by output price") in page
