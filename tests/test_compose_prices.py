"""What the prices say in an edition, on hand-made price files: each move of a list in words, with
its conversion and the provider's own dollar price, and the figures an entry states checked."""

from __future__ import annotations

import datetime as dt

from pipeline.compose.prices import claimed_usd_per_mtok, price_figures
from pipeline.models.prices import PriceFile, WorkloadProfile
from pipeline.models.sourced import Sourced
from pipeline.normalize.fx import table_from_eur_rates

SRC = {"source_url": "https://example.com/pricing", "checked": "2026-03-05"}
CHAT = WorkloadProfile(id="chat-3-1", title="chat", input_share=0.75)
# 8 yuan a dollar: 0.125 USD per yuan, exact in binary. No rates for pounds.
RATES = table_from_eur_rates({"USD": {dt.date(2026, 1, 1): 1.0, dt.date(2026, 3, 4): 1.0},
                              "CNY": {dt.date(2026, 1, 1): 8.0, dt.date(2026, 3, 4): 8.0}})
PEAK = [{"name": "peak", "tier": "peak", "timezone": "UTC", "spans": [{"start": "09:00",
                                                                      "end": "12:00"}]}]


def rec(model: str, start: str, end: str | None, *prices: dict) -> dict:
    return {"model": model, "from": start, "prices": list(prices), **SRC} | ({"to": end} if end else {})


def p(meter: str, price: float, **tier) -> dict:
    return {"meter": meter, "price": price, **tier}


BAND, LONG = {"context_above_tokens": 32000}, {"context_above_tokens": 32001}
# Acme's yuan list reprices m on 03-05 in every way a price moves; its dollar list prices m in
# the same tiers (and one band a token longer), but not n; Bravo has a pound list only.
FILES = {
    "acme": Sourced(PriceFile.model_validate({"provider": "acme", "name": "Acme", "lists": [
        {"currency": "USD", "windows": PEAK, "records": [
            rec("m", "2026-01-01", None, p("input", 1.0), p("input", 2.0, window="peak"),
                p("input", 3.0, **BAND), p("input", 3.5, **LONG), p("cache_write", 0.5, ttl_minutes=5),
                p("cache_write", 0.8, ttl_minutes=60), p("output", 4.0), p("output", 2.0, mode="batch")),
            rec("u", "2026-01-01", "2026-03-05", p("input", 2.0), p("output", 4.0)),
            rec("u", "2026-03-05", None, p("input", 1.0), p("output", 4.0))]},
        {"currency": "CNY", "windows": PEAK, "records": [
            rec("m", "2026-01-01", "2026-03-05", p("input", 8), p("input", 16, window="peak"),
                p("input", 24, **BAND), p("cache_write", 0, ttl_minutes=5),
                p("cache_write", 6.4, ttl_minutes=60), p("cached_input", 0), p("output", 32),
                p("output", 16, mode="batch")),
            rec("m", "2026-03-05", None, p("input", 4), p("input", 20, window="peak"),
                p("input", 12, **BAND), p("cache_write", 1.5, ttl_minutes=5),
                p("cache_write", 8, ttl_minutes=60), p("output", 32), p("output", 0, mode="batch")),
            rec("n", "2026-01-01", "2026-03-05", p("input", 8), p("cached_input", 2), p("output", 8)),
            rec("n", "2026-03-05", None, p("input", 8), p("output", 16))]}]}),
        "sources/prices/acme.yaml"),
    "bravo": Sourced(PriceFile.model_validate({"provider": "bravo", "name": "Bravo", "lists": [
        {"currency": "GBP", "records": [
            rec("g", "2026-01-01", "2026-03-05", p("input", 2), p("output", 4)),
            rec("g", "2026-03-05", None, p("input", 1), p("output", 4))]}]}),
        "sources/prices/bravo.yaml"),
}


def test_each_move_of_a_list_in_words_with_its_conversion_and_the_own_dollar_price() -> None:
    figures = price_figures(FILES, RATES, [CHAT], dt.date(2026, 3, 10), dt.date(2026, 3, 3))
    listed = {f.id: (f.label, f.text_md) for f in figures if f.id.startswith("price-")}
    assert list(listed) == ["price-acme-usd-u-2026-03-05", "price-acme-cny-m-2026-03-05",
                            "price-acme-cny-n-2026-03-05", "price-bravo-gbp-g-2026-03-05"]
    # A dollar price is not converted.
    assert listed["price-acme-usd-u-2026-03-05"] == (
        "Acme u (USD list): cut from 2026-03-05", "input: $1.00 per Mtok (was $2.00, -50%).")
    # By hand, at 0.125 USD a yuan (the ECB rate of 03-04, the last before 03-05), tier by tier
    # in the order meter, cache lifetime, window, band, mode; the own USD price of the same tier:
    # cache write 5 min 0 -> 1.5 (a rise from free: no "was"), 1.5 x 0.125 = 0.1875, $0.188 to
    # three figures; 60 min 6.4 -> 8, +25 %, $1.00; cached input 0 went; input 8 -> 4, -50 %,
    # $0.500; its 32,000-token band 24 -> 12, $1.50 (the dollar band over 32,000, not the one
    # over 32,001); peak 16 -> 20, $2.50; batch output 16 -> 0, -100 %.
    rate = " at the ECB rate of 2026-03-04 (8.0000 CNY per USD); Acme's own USD list: "
    assert listed["price-acme-cny-m-2026-03-05"] == (
        "Acme m (CNY list): price change from 2026-03-05",
        f"cache write (5 min): ¥1.50 per Mtok, ≈ $0.188{rate}$0.50; "
        f"cache write (60 min): ¥8.00 per Mtok (was ¥6.40, +25%), ≈ $1.00{rate}$0.80; "
        "cached input: ¥0.00 per Mtok no longer listed; "
        f"input: ¥4.00 per Mtok (was ¥8.00, -50%), ≈ $0.500{rate}$1.00; "
        f"input, prompts over 32,000 tokens: ¥12.00 per Mtok (was ¥24.00, -50%), ≈ $1.50{rate}$3.00; "
        f"input, peak: ¥20.00 per Mtok (was ¥16.00, +25%), ≈ $2.50{rate}$2.00; "
        f"output, batch: ¥0.00 per Mtok (was ¥16.00, -100%), ≈ $0.00{rate}$2.00.")
    # n is not in the dollar list: no own price to give.
    assert listed["price-acme-cny-n-2026-03-05"] == (
        "Acme n (CNY list): rise from 2026-03-05",
        "cached input: ¥2.00 per Mtok no longer listed; output: ¥16.00 per Mtok (was ¥8.00, +100%), ≈ $2.00 at the ECB rate of 2026-03-04 "
        "(8.0000 CNY per USD).")
    assert listed["price-bravo-gbp-g-2026-03-05"] == (
        "Bravo g (GBP list): cut from 2026-03-05",
        "input: £1.00 per Mtok (was £2.00, -50%), no ECB rate to convert it.")


def test_claimed_figure_is_the_list_price_of_its_tier_in_dollars() -> None:
    files = {k: v.model for k, v in FILES.items()}
    at = dt.datetime(2026, 3, 6, tzinfo=dt.UTC)
    # Peak input 20 yuan x 0.125 = 2.5 USD; the rest of the week's 4 yuan = 0.5 USD.
    assert claimed_usd_per_mtok(files, RATES, "acme", "CNY", "m", "input", at, "peak") == 2.5
    assert claimed_usd_per_mtok(files, RATES, "acme", "CNY", "m", "input", at) == 0.5
    # No list in that currency, no record then, no such meter: nothing to check against.
    assert claimed_usd_per_mtok(files, RATES, "acme", "EUR", "m", "input", at) is None
    assert claimed_usd_per_mtok(files, RATES, "acme", "CNY", "m", "input",
                                dt.datetime(2025, 12, 31, tzinfo=dt.UTC)) is None
    assert claimed_usd_per_mtok(files, RATES, "acme", "CNY", "n", "cached_input", at) is None
