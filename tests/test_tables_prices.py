"""What prices contribute to editions, the data tables and the Prices page (bundled sources)."""

from __future__ import annotations

import csv
import datetime as dt
import io
import json
from pathlib import Path

import pytest
import yaml
from conftest import ecb_usd_per_unit

from pipeline.compose.claims import entry_claim_problems
from pipeline.compose.prices import price_figures, price_radar
from pipeline.compose.prices_page import cheapest, hour_of_week
from pipeline.load.fx import load_rate_table
from pipeline.load.prices import load_prices
from pipeline.models.entries import Claim
from pipeline.models.prices import DEFAULT_PROFILES
from pipeline.render.prices_page import prices_page_md, svg
from pipeline.tables.cost import day_end
from pipeline.tables.prices import PRICE_COLUMNS, price_rows, price_table, prices_csv, prices_json
from pipeline.tables.quotes import quotes

ROOT = Path(__file__).resolve().parents[1]
PROFILES = list(DEFAULT_PROFILES)
BLENDED_COLUMNS = ("provider", "model", "profile", "as_of", "usd_per_mtok", "tokens_per_usd")


def blended_rows(files, rates, profiles, days) -> list[dict]:
    """The rows of data/blended.csv over `days`, as the build computes them."""
    table = quotes(files, rates, profiles, [day_end(d) for d in days])
    return table.blended_rows(days).to_dict("records")


@pytest.fixture(scope="module")
def bundled():
    files, problems = load_prices(ROOT)
    assert problems == []
    return files, load_rate_table(ROOT)


def test_2026_09_12_edition_shows_the_deepseek_cut_in_yuan_and_usd(bundled):
    files, rates = bundled
    figures = price_figures(files, rates, PROFILES, dt.date(2026, 9, 12), dt.date(2026, 9, 5))
    deepseek = next(f for f in figures if "deepseek-v4-flash (CNY list)" in f.label)
    # Three significant figures of a conversion: 0.02 / 6.7063 = 0.0029822…; 0.10 / 6.7063 =
    # 0.014911…
    usd_per_cny = ecb_usd_per_unit("CNY", "2026-09-10")
    usd, peak = f"{0.02 * usd_per_cny:.3g}", f"{0.10 * usd_per_cny:.3g}"
    assert (usd, peak, f"{1 / usd_per_cny:.4f}") == ("0.00298", "0.0149", "6.7063")
    # Each meter against the USD list's price of the same tier when the cut took effect (its
    # record of 2026-08-16: peak input $0.44, off-peak cached input $0.007): 0.014911 / 0.44 - 1
    # = -96.6 %, 0.0029822 / 0.007 - 1 = -57.4 %. Both below: a cut. The USD list did not move
    # with it, and the CNY record has no output price: no blend comes from it.
    assert deepseek.label == "DeepSeek deepseek-v4-flash (CNY list): cut from 2026-09-10"
    assert deepseek.text_md == (
        f"input, peak: $0.44 (USD list) → ¥0.10 ≈ ${peak} (CNY list), ≈ −97 %; "
        f"cached input, off-peak: $0.007 (USD list) → ¥0.02 ≈ ${usd} (CNY list), ≈ −57 %, "
        "at the ECB rate of 2026-09-10 (6.7063 CNY per USD). No blended price comes from it: the "
        "CNY record gives only cached input and input prices (no output price), and the blends "
        "quote DeepSeek's USD list, unchanged since 2026-08-16.")
    assert deepseek.citations[0].source_path == "sources/prices/deepseek.yaml"
    assert deepseek.citations[0].url.startswith("https://api-docs.deepseek.com/")
    labels = [f.label for f in figures]
    assert "Cheapest tokens per dollar, Chat (3:1 input:output, no cache)" in labels
    # The first CNY prices of a model the USD list prices are not a new model.
    assert not any("new model" in label or "Median" in label for label in labels)
    (blend,) = [f for f in figures if f.id == "blend-moves"]
    # No blend moved, and the one move of the window is named with why no blend shows it.
    assert blend.label == "Blended prices since 2026-09-05"
    assert blend.text_md == (
        "No blended price moved across the 16 tracked models (Chat (3:1 input:output, no "
        "cache)). DeepSeek deepseek-v4-flash's prices did move, in its CNY list on 2026-09-10 "
        "(above), but no blended price comes from it: the CNY record gives only cached input and "
        "input prices (no output price), and the blends quote DeepSeek's USD list, unchanged "
        "since 2026-08-16.")


def test_blend_moves_are_listed_biggest_first_with_the_count(bundled):
    """What the median (+0.0 %, most models unmoved) hid: DeepSeek V4 +120 % and +128 % in the
    2026-08-21 edition, Sonnet 5 +50 % in the 2026-09-04 one."""
    files, rates = bundled
    labels = {}
    for date, previous in ((dt.date(2026, 8, 21), dt.date(2026, 8, 14)),
                           (dt.date(2026, 9, 4), dt.date(2026, 8, 21))):
        (blend,) = [f for f in price_figures(files, rates, PROFILES, date, previous)
                    if f.id == "blend-moves"]
        labels[date] = (blend.label, blend.text_md)
    label, text = labels[dt.date(2026, 8, 21)]
    assert label == "Blended prices since 2026-08-14: 2 of 16 tracked models moved"
    # By hand, Chat 3:1 with V4's off-peak share of the week: Flash 0.75 * 0.14 + 0.25 * 0.28
    # = 0.175 before; Pro 0.75 * 0.435 + 0.25 * 0.87 = 0.54375 before.
    flash, pro = text.split("; ")
    assert flash.startswith("Chat (3:1 input:output, no cache), each in its list's currency: "
                            "DeepSeek deepseek-v4-flash (USD list) $0.175 → $0.399 per Mtok "
                            "(+127.9%, from 2026-08-16)")
    assert pro == ("DeepSeek deepseek-v4-pro (USD list) $0.544 → $1.20 per Mtok (+120.0%, from "
                   "2026-08-16).")
    label, text = labels[dt.date(2026, 9, 4)]
    assert label == "Blended prices since 2026-08-21: 1 of 16 tracked models moved"
    assert "Anthropic claude-sonnet-5 (USD list) $4.00 → $6.00 per Mtok (+50.0%" in text


def test_radar_has_future_dated_records(bundled):
    files, _ = bundled
    items = price_radar(files, dt.date(2026, 9, 12))
    assert [(i.label, i.due) for i in items] == [
        ("Google gemini-3.6-flash: new prices", dt.date(2027, 1, 1))]
    assert "input $1.50 (now $0.75)" in items[0].text_md
    earlier = price_radar(files, dt.date(2026, 8, 20))
    assert any("claude-sonnet-5" in i.label for i in earlier)


def test_claim_check_refuses_a_conversion_over_two_percent_off(bundled):
    files, rates = bundled
    files = {k: v.model for k, v in files.items()}

    def stated(usd: float) -> Claim:
        return Claim(provider="deepseek", currency="CNY", model="deepseek-v4-flash",
                     meter="cached_input", at=dt.date(2026, 9, 10), stated_usd_per_mtok=usd)

    # The example briefing says "approx. $0.0028"; at the ECB rate of 2026-09-10 it is more.
    assert entry_claim_problems("e.yaml", [stated(0.0028), stated(0.00301)], files, rates,
                                PROFILES)[0].message == (
        "states 0.0028 but our figure is 0.00298228 (-6.1%) (deepseek deepseek-v4-flash "
        "cached_input price (CNY list) on 2026-09-10, in USD at the ECB rate of 2026-09-10); "
        "correct the figure in the prose and here, or its conversion")
    assert len(entry_claim_problems("e.yaml", [stated(0.00301)], files, rates, PROFILES)) == 0


def test_price_table_columns_and_conversions(bundled):
    files, rates = bundled
    rows = price_rows(files, rates)
    data = prices_csv(price_table(files, rates))
    reader = csv.DictReader(io.StringIO(data.decode()))
    assert tuple(reader.fieldnames) == PRICE_COLUMNS
    cny = [r for r in reader if r["model"] == "deepseek-v4-flash" and r["currency"] == "CNY"
           and r["meter"] == "cached_input"]
    assert cny[0]["fx_date"] == "2026-09-10" and cny[0]["window"] == "off-peak"
    ecb = ecb_usd_per_unit("CNY", "2026-09-10")
    assert float(cny[0]["fx_usd_per_unit"]) == pytest.approx(ecb, rel=1e-9)
    assert float(cny[0]["usd_per_mtok"]) == pytest.approx(0.02 * ecb, rel=1e-6)
    batch = [r for r in rows if r["model"] == "claude-opus-4-7" and r["mode"] == "batch"
             and r["meter"] == "output"]
    assert batch[0]["usd_per_mtok"] == 12.5
    from_json = json.loads(prices_json(price_table(files, rates)))
    assert list(from_json[0]) == list(PRICE_COLUMNS)
    # The JSON holds the same values as the CSV, cell for cell.
    assert [{k: "" if v is None else str(v) for k, v in r.items()} for r in from_json] == list(
        csv.DictReader(io.StringIO(data.decode())))
    assert prices_csv(price_table(files, rates)) == data


def test_blended_table_and_hand_computations(bundled):
    files, rates = bundled
    rows = blended_rows(files, rates, PROFILES, [dt.date(2026, 9, 12)])
    assert tuple(rows[0]) == BLENDED_COLUMNS
    got = {(r["model"], r["profile"]): r["usd_per_mtok"] for r in rows}
    # Hand computations (closing note of issue 3):
    assert got[("gpt-5.5", "chat-3-1")] == pytest.approx(0.75 * 5 + 0.25 * 30)        # 11.25
    assert got[("claude-opus-4-7", "cached-agent")] == pytest.approx(
        0.9 * (0.2 * 5 + 0.8 * 0.5) + 0.1 * 25)                                         # 3.76
    off, peak = 0.75 * 0.22 + 0.25 * 0.66, 0.75 * 0.44 + 0.25 * 1.32
    assert got[("deepseek-v4-flash", "chat-3-1")] == pytest.approx(
        (133 * off + 35 * peak) / 168)                                                   # 0.3208
    for r in rows:
        assert r["tokens_per_usd"] * r["usd_per_mtok"] == pytest.approx(1e6, rel=1e-6)


def test_prices_page_and_charts_are_deterministic(bundled):
    files, rates = bundled
    md = prices_page_md(files, rates, PROFILES, dt.date(2026, 9, 12))
    assert "| DeepSeek<br>[`deepseek-v4-flash`](" in md
    one = svg(hour_of_week(files, dt.date(2026, 9, 7)))
    assert one == svg(hour_of_week(files, dt.date(2026, 9, 7)))
    assert one.startswith(b"<?xml") and b"<dc:date>" not in one
    assert svg(cheapest(files, rates, PROFILES, dt.date(2026, 9, 12))).count(b"<svg") == 1


def test_blended_table_keeps_only_the_dates_a_blend_changed(bundled):
    """The table has a row where a model's blend is new or changed, day by day, and no other."""
    files, rates = bundled
    days = [dt.date(2026, 1, 1) + dt.timedelta(days=i) for i in range(330)]
    rows = blended_rows(files, rates, PROFILES, days)
    pro = [(r["profile"], r["as_of"], r["usd_per_mtok"], r["tokens_per_usd"]) for r in rows
           if r["model"] == "deepseek-v4-pro"]
    # By hand from sources/prices/deepseek.yaml (USD list): the 2026-05-31 record repeats the
    # prices of 2026-04-26, so it makes no row; from 2026-08-16 the 35 peak hours of the week's
    # 168 (UTC, no daylight saving) bill input 1.32, cached 0.044, output 3.96, the others
    # 0.66, 0.022, 1.98.
    chat_0426, chat_0816 = 0.75 * 0.435 + 0.25 * 0.87, (
        133 * (0.75 * 0.66 + 0.25 * 1.98) + 35 * (0.75 * 1.32 + 0.25 * 3.96)) / 168
    agent_0426, agent_0816 = 0.9 * (0.2 * 0.435 + 0.8 * 0.003625) + 0.1 * 0.87, (
        133 * (0.9 * (0.2 * 0.66 + 0.8 * 0.022) + 0.1 * 1.98)
        + 35 * (0.9 * (0.2 * 1.32 + 0.8 * 0.044) + 0.1 * 3.96)) / 168
    expected = [("chat-3-1", "2026-04-26", chat_0426), ("chat-3-1", "2026-08-16", chat_0816),
                ("cached-agent", "2026-04-26", agent_0426),
                ("cached-agent", "2026-08-16", agent_0816)]                 # 0.54375, 1.19625,
    assert [p[:2] for p in pro] == [e[:2] for e in expected]                   # 0.16791, 0.40194
    for (_, _, usd, tpu), (_, _, by_hand) in zip(pro, expected, strict=True):
        assert usd == pytest.approx(by_hand, rel=1e-9)
        assert tpu == pytest.approx(1e6 / by_hand, rel=1e-9)
    # Every model: a blend changes only where a record starts (the FX rate is the one of the
    # record's date, and no bundled window has daylight saving), so each row's date is the
    # first day asked or a record's start, read here from the YAML, not through the loader.
    docs = [yaml.safe_load(p.read_text()) for p in (ROOT / "sources" / "prices").glob("*.yaml")]
    starts = {(doc["provider"], r["model"], to_day(r["from"]))
              for doc in docs for plist in doc["lists"] for r in plist["records"]}
    for r in rows:
        assert (r["as_of"] == days[0].isoformat()
                or (r["provider"], r["model"], r["as_of"]) in starts), r
    assert len(rows) < len(days)  # one row per change, not per day


def to_day(value) -> str:
    """The UTC day of a YAML `from`: a date, or a date-time with its zone."""
    if isinstance(value, dt.datetime):  # PyYAML reads a zone as UTC, naive or aware
        return (value.astimezone(dt.UTC) if value.tzinfo else value).date().isoformat()
    return dt.date.fromisoformat(str(value)).isoformat()


def test_blended_rows_of_a_price_file_made_for_it():
    """Repeats dropped, a row again after a gap, a change in a meter no blend uses dropped, a
    list converted at its rate: every row computed by hand (Chat 3:1: 0.75 input + 0.25 output)."""
    from pipeline.models.prices import PriceFile
    from pipeline.models.sourced import Sourced
    from pipeline.normalize.fx import table_from_eur_rates

    src = {"source_url": "https://p.example/pricing", "checked": "2026-03-01"}

    def record(model, start, end, p_in, p_out, *extra):
        return {"model": model, "from": start, **({"to": end} if end else {}), **src,
                "prices": [{"meter": "input", "price": p_in}, {"meter": "output", "price": p_out},
                           *extra]}

    usd = {"currency": "USD", "records": [
        record("a", "2026-03-01", "2026-03-03", 1, 4),
        record("a", "2026-03-05", "2026-03-06", 1, 4),   # after a gap: shown again
        record("a", "2026-03-06", None, 1, 4),           # the same, straight after: not shown
        record("b", "2026-03-01", "2026-03-04", 2, 2),
        record("b", "2026-03-04", "2026-03-07", 2, 2,    # only a cache write added: not shown
               {"meter": "cache_write", "price": 3, "ttl_minutes": 5}),
        record("b", "2026-03-07", None, 1, 1)]}
    cny = {"currency": "CNY", "records": [record("c", "2026-03-02", None, 8, 16)]}
    files = {p: Sourced(PriceFile.model_validate({"provider": p, "name": p.upper(),
                                                  "lists": [plist]}), f"sources/prices/{p}.yaml")
             for p, plist in (("p", usd), ("q", cny))}
    # 1 EUR = 1.2 USD = 9.6 CNY on the Friday before: 1 CNY = 0.125 USD.
    rates = table_from_eur_rates({"USD": {dt.date(2026, 2, 27): 1.2},
                                  "CNY": {dt.date(2026, 2, 27): 9.6}})
    days = [dt.date(2026, 3, 1) + dt.timedelta(days=i) for i in range(8)]
    chat = next(p for p in PROFILES if p.id == "chat-3-1")
    got = [(r["provider"], r["model"], r["as_of"], r["usd_per_mtok"], r["tokens_per_usd"])
           for r in blended_rows(files, rates, [chat], days)]
    assert got == [
        ("p", "a", "2026-03-01", 1.75, pytest.approx(1e6 / 1.75)),   # 0.75 * 1 + 0.25 * 4
        ("p", "a", "2026-03-05", 1.75, pytest.approx(1e6 / 1.75)),
        ("p", "b", "2026-03-01", 2.0, 500000.0),                     # 0.75 * 2 + 0.25 * 2
        ("p", "b", "2026-03-07", 1.0, 1000000.0),                    # 0.75 * 1 + 0.25 * 1
        ("q", "c", "2026-03-02", 1.25, 800000.0)]                    # (0.75 * 8 + 0.25 * 16) / 8


def test_every_price_row_names_the_line_of_its_price(bundled):
    rows = price_rows(*bundled)
    assert rows
    for row in rows:
        line = (ROOT / row["source_file"]).read_text().splitlines()[row["source_line"] - 1]
        # The line gives this price's meter (a cache write's lifetime sits beside it).
        meter = line.split("meter:")[1].split(",")[0].strip()
        assert row["meter"].startswith(meter), (row, line)


def test_a_model_new_to_all_its_lists_at_once_is_a_new_model():
    from pipeline.models.prices import PriceFile
    from pipeline.models.sourced import Sourced
    from pipeline.normalize.fx import table_from_eur_rates

    def plist(currency: str) -> dict:
        return {"currency": currency, "unit": "per_1m_tokens", "records": [
            {"model": "x", "from": "2026-09-08", "source_url": "https://p.example/pricing",
             "checked": "2026-09-08", "prices": [{"meter": "input", "price": 1.0},
                                                 {"meter": "output", "price": 4.0}]}]}

    file = PriceFile.model_validate({"provider": "p", "name": "P",
                                     "lists": [plist("USD"), plist("EUR")]})
    rates = table_from_eur_rates({"USD": {dt.date(2026, 9, 8): 1.1}})
    figures = price_figures({"p": Sourced(file, "sources/prices/p.yaml")}, rates, PROFILES,
                            dt.date(2026, 9, 12), dt.date(2026, 9, 5))
    labels = [f.label for f in figures if f.id.startswith("price-")]
    assert labels == ["P x (USD list): new model from 2026-09-08",
                      "P x (EUR list): new model from 2026-09-08"]


def made_price_files():
    """Two providers, written out of order; a EUR list per 1k tokens with a window, a batch
    discount beside one explicit batch price, a cache lifetime and a context band; a CNY list
    with a record older than every fixing."""
    from pipeline.models.prices import PriceFile
    from pipeline.models.sourced import Sourced

    night = {"name": "night", "tier": "off-peak", "timezone": "UTC",
             "spans": [{"start": "20:00", "end": "23:00"}]}
    eur = {"currency": "EUR", "unit": "per_1k_tokens", "windows": [night], "records": [
        {"model": "m", "from": "2026-03-10T06:30:00Z", "source_url": "https://z.example/pricing/new",
         "checked": "2026-03-11", "prices": [{"meter": "input", "price": 0.003}]},
        {"model": "m", "from": "2026-03-01", "to": "2026-03-10T06:30:00Z", "rest_tier": "peak",
         "batch_discount": 0.5, "source_url": "https://z.example/pricing", "checked": "2026-03-02",
         "prices": [{"meter": "input", "price": 0.002}, {"meter": "output", "price": 0.008},
                    {"meter": "input", "price": 0.001, "window": "night"},
                    {"meter": "cache_write", "price": 0.004, "ttl_minutes": 60},
                    {"meter": "input", "price": 0.0009, "mode": "batch"},
                    {"meter": "output", "price": 0.01, "context_above_tokens": 1000}]}]}
    cny = {"currency": "CNY", "records": [
        {"model": "c", "from": "2026-03-02", "batch_discount": 0.3, "source_url": "https://a.example/p",
         "checked": "2026-03-03", "prices": [{"meter": "output", "price": 0.12345678912}]},
        {"model": "c", "from": "2026-01-05", "to": "2026-03-02", "source_url": "https://a.example/p",
         "checked": "2026-01-06", "prices": [{"meter": "input", "price": 2}]}]}
    z_lines = {("lists", 0, "records", 0, "prices", 0): 9, ("lists", 0, "records", 1): 15,
               **{("lists", 0, "records", 1, "prices", i): 20 + i for i in (0, 1, 2, 3, 5)}}
    return {"z": Sourced(PriceFile.model_validate({"provider": "z", "name": "Z", "lists": [eur]}),
                         "sources/prices/z.yaml", z_lines),
            "a": Sourced(PriceFile.model_validate({"provider": "a", "name": "A", "lists": [cny]}),
                         "sources/prices/a.yaml")}


# 1 EUR = 1.1 USD = 7.7 CNY on 2026-02-27 (1 CNY = 1/7 USD) and 1.1 USD on 2026-03-09.
MADE_RATES = {"USD": {dt.date(2026, 2, 27): 1.1, dt.date(2026, 3, 9): 1.1}, "CNY": {dt.date(2026, 2, 27): 7.7}}


def test_price_rows_of_a_price_file_made_for_them_by_hand():
    from pipeline.normalize.fx import table_from_eur_rates

    rows = price_rows(made_price_files(), table_from_eur_rates(MADE_RATES))
    cny = 1.1 / 7.7

    def row(provider, model, currency, unit_price, meter, window, band, mode, start, end, usd,
            fx, fx_date, url, checked, line):
        return dict(zip(PRICE_COLUMNS, (provider, model, currency, unit_price, meter, window, band,
                                        mode, start, end, usd, fx, fx_date, url, checked,
                                        f"sources/prices/{provider}.yaml", line)))

    a = ("a", "c", "CNY")
    first = ("2026-01-05", "2026-03-02", None, None, "", "https://a.example/p", "2026-01-06", None)
    z = ("z", "m", "EUR")
    # EUR per 1k tokens: per Mtok x1000, at 1.1 USD per EUR (the fixing of 2026-02-27 for a record
    # of 03-01, of 03-09 for one of 03-10); a batch row without an explicit price is half the
    # realtime one; the explicit batch input keeps its own price and makes no derived row.
    old = ("2026-03-01", "2026-03-10T06:30:00Z")
    old_fx = (1.1, "2026-02-27", "https://z.example/pricing", "2026-03-02")
    assert rows == [
        # Records by (model, from): the CNY record of 01-05, before every fixing, has no USD.
        row(*a, 2, "input", "standard", 0, "realtime", *first),
        row(*a, 0.123456789, "output", "standard", 0, "realtime", "2026-03-02", "",
            round(0.12345678912 * cny, 9), 0.142857143, "2026-02-27", "https://a.example/p",
            "2026-03-03", None),
        row(*a, round(0.12345678912 * 0.3, 9), "output", "standard", 0, "batch", "2026-03-02", "",
            round(0.12345678912 * 0.3 * cny, 9), 0.142857143, "2026-02-27", "https://a.example/p",
            "2026-03-03", None),
        row(*z, 0.002, "input", "peak", 0, "realtime", *old, 2.2, *old_fx, 20),
        row(*z, 0.008, "output", "peak", 0, "realtime", *old, 8.8, *old_fx, 21),
        row(*z, 0.001, "input", "night", 0, "realtime", *old, 1.1, *old_fx, 22),
        row(*z, 0.004, "cache_write_60m", "peak", 0, "realtime", *old, 4.4, *old_fx, 23),
        row(*z, 0.0009, "input", "peak", 0, "batch", *old, 0.99, *old_fx, 15),   # no line: the record's
        row(*z, 0.01, "output", "peak", 1000, "realtime", *old, 11.0, *old_fx, 25),
        row(*z, 0.004, "output", "peak", 0, "batch", *old, 4.4, *old_fx, 21),
        row(*z, 0.0005, "input", "night", 0, "batch", *old, 0.55, *old_fx, 22),
        row(*z, 0.002, "cache_write_60m", "peak", 0, "batch", *old, 2.2, *old_fx, 23),
        row(*z, 0.005, "output", "peak", 1000, "batch", *old, 5.5, *old_fx, 25),
        row(*z, 0.003, "input", "standard", 0, "realtime", "2026-03-10T06:30:00Z", "", 3.3, 1.1,
            "2026-03-09", "https://z.example/pricing/new", "2026-03-11", 9)]


def test_price_files_bytes_of_a_price_file_made_for_them():
    """The CSV and JSON of the table, byte for byte: integer bands and lines, empty cells and nulls
    where a figure or a line is unknown."""
    from pipeline.normalize.fx import table_from_eur_rates

    table = price_table(made_price_files(), table_from_eur_rates(MADE_RATES))
    assert list(table.columns) == list(PRICE_COLUMNS)
    lines = prices_csv(table).decode().split("\n")
    assert lines[0] == ",".join(PRICE_COLUMNS)
    assert lines[1] == "a,c,CNY,2.0,input,standard,0,realtime,2026-01-05,2026-03-02,,,,https://a.example/p,2026-01-06,sources/prices/a.yaml,"
    assert lines[9] == ("z,m,EUR,0.01,output,peak,1000,realtime,2026-03-01,2026-03-10T06:30:00Z,11.0,1.1,"
                        "2026-02-27,https://z.example/pricing,2026-03-02,sources/prices/z.yaml,25")
    assert len(lines) == 16 and lines[15] == ""
    data = prices_json(table)
    assert data.endswith(b"}]\n") and b" " not in data
    docs = json.loads(data)
    assert docs[0] == dict(zip(PRICE_COLUMNS, (
        "a", "c", "CNY", 2.0, "input", "standard", 0, "realtime", "2026-01-05", "2026-03-02", None,
        None, "", "https://a.example/p", "2026-01-06", "sources/prices/a.yaml", None)))
    assert [(d["context_above_tokens"], d["source_line"]) for d in docs[8:10]] == [(1000, 25), (0, 21)]
    # No price files at all: the files still have their header (CSV) and are an empty array (JSON).
    empty = price_table({}, table_from_eur_rates(MADE_RATES))
    assert (prices_csv(empty), prices_json(empty)) == ((",".join(PRICE_COLUMNS) + "\n").encode(), b"[]\n")
