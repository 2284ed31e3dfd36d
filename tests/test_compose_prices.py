"""What the prices say in an edition, on hand-made price files: each move of a list in words, with
its conversion and the provider's own dollar price (entries' figures: test_entry_claims.py)."""

from __future__ import annotations

import datetime as dt

from pipeline.compose.prices import price_figures, price_radar
from pipeline.compose.types import Citation, RadarItem
from pipeline.models.prices import PriceFile, WorkloadProfile
from pipeline.models.sourced import Sourced
from pipeline.normalize.fx import table_from_eur_rates
from pipeline.tables.cost import day_end
from pipeline.tables.moves import meter_moves
from pipeline.tables.quotes import quotes

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
            rec("m", "2026-01-01", "2026-04-01", p("input", 1.0), p("input", 2.0, window="peak"),
                p("input", 3.0, **BAND), p("input", 3.5, **LONG), p("cache_write", 0.5, ttl_minutes=5),
                p("cache_write", 0.8, ttl_minutes=60), p("output", 4.0), p("output", 2.0, mode="batch")),
            rec("m", "2026-04-01", None, p("input", 0.9), p("input", 1.8, window="peak"),
                p("input", 2.5, **BAND), p("cache_write", 0.7, ttl_minutes=60),
                p("output", 1.5, mode="batch"), p("cached_input", 0.1)),
            rec("u", "2026-01-01", "2026-03-05", p("input", 1.5), p("output", 0)),
            rec("u", "2026-03-05", None, p("input", 1.4), p("output", 0.15)),
            rec("z", "2026-03-05", None, p("input", 3.0), p("output", 3.0))]},
        {"currency": "CNY", "windows": PEAK, "records": [
            rec("m", "2026-01-01", "2026-03-05", p("input", 8), p("input", 16, window="peak"),
                p("input", 24, **BAND), p("cache_write", 0, ttl_minutes=5),
                p("cache_write", 6.4, ttl_minutes=60), p("cached_input", 0), p("output", 32),
                p("output", 16, mode="batch")),
            rec("m", "2026-03-05", None, p("input", 4), p("input", 20, window="peak"),
                p("input", 12, **BAND), p("cache_write", 1.5, ttl_minutes=5),
                p("cache_write", 8, ttl_minutes=60), p("output", 32), p("output", 0, mode="batch")),
            rec("n", "2026-01-01", "2026-03-05", p("input", 8), p("cached_input", 2), p("output", 8)),
            rec("n", "2026-03-05", "2026-04-15", p("input", 8), p("output", 16)),
            # Known only on 03-11, and listed before the record it follows.
            rec("n", "2026-05-01", None, p("input", 6), p("output", 12)) | {"checked": "2026-03-11"},
            rec("n", "2026-04-15", "2026-05-01", p("input", 7), p("output", 14)),
            # A repricing in yuan of a model the dollar list prices.
            rec("u", "2026-03-05", None, p("input", 7), p("cached_input", 0.7), p("cache_write", 9))]},
        {"currency": "EUR", "records": [rec("u", "2026-01-01", None, p("input", 1), p("output", 1))]}]}),
        "sources/prices/acme.yaml"),
    "bravo": Sourced(PriceFile.model_validate({"provider": "bravo", "name": "Bravo", "lists": [
        {"currency": "GBP", "records": [
            rec("g", "2026-01-01", "2026-03-05", p("input", 2), p("output", 4)),
            rec("g", "2026-03-05", "2026-04-01", p("input", 1), p("output", 4)),
            rec("g", "2026-04-01", None, p("input", 0.5), p("output", 4)) | {"checked": "2026-03-10"},
            # The same move as g's, listed after it.
            rec("f", "2026-01-01", "2026-03-05", p("input", 2), p("output", 4)),
            rec("f", "2026-03-05", None, p("input", 1), p("output", 4)),
            # A new model without input and output prices.
            rec("h", "2026-03-05", "2026-03-15", p("cache_write", 0.3)),
            rec("h", "2026-03-15", None, p("cache_write", 0.25))]}]}),
        "sources/prices/bravo.yaml"),
    "carol": Sourced(PriceFile.model_validate({"provider": "carol", "name": "Carol", "lists": [
        {"currency": "USD", "records": [
            # In force from the last instant of 03-31: not ahead of that day's edition.
            rec("c", "2026-03-31T23:59:59.999999Z", None, p("input", 1), p("output", 1)),
            # A new batch price beside unchanged ones: a price change, not a new model.
            rec("d", "2026-01-01", "2026-03-05", p("input", 9), p("output", 9)),
            rec("d", "2026-03-05", None, p("input", 9), p("output", 9), p("output", 4.5, mode="batch")),
            # Cut, new and removed prices at once; then rise, new and removed.
            rec("k", "2026-01-01", "2026-03-05", p("input", 2), p("cached_input", 1), p("output", 8)),
            rec("k", "2026-03-05", None, p("input", 1), p("cache_write", 3), p("output", 8)),
            rec("r", "2026-01-01", "2026-03-05", p("input", 1), p("cached_input", 1), p("output", 4)),
            rec("r", "2026-03-05", None, p("input", 2), p("cache_write", 3), p("output", 4)),
            rec("w", "2026-03-05", None, p("cached_input", 0.5), p("cache_write", 1))]}]}),
        "sources/prices/carol.yaml"),
}


INPUT = WorkloadProfile(id="input", title="input only", input_share=1.0)
MARCH_10 = (dt.date(2026, 3, 10), dt.date(2026, 3, 2))
"""The edition of 03-10 after that of 03-02: its window holds every move of 03-05."""


def cite(provider: str, ref: str) -> Citation:
    return Citation(f"{provider.title()} pricing", "https://example.com/pricing",
                    f"sources/prices/{provider}.yaml", ref)


def test_each_move_of_a_list_in_words_with_its_conversion_and_the_own_dollar_price() -> None:
    figures = price_figures(FILES, RATES, [CHAT], *MARCH_10)
    listed = {f.id: (f.label, f.text_md) for f in figures if f.id.startswith("price-")}
    # Provider by provider, list by list, model by model in the file's order.
    assert list(listed) == [
        "price-acme-usd-u-2026-03-05", "price-acme-usd-z-2026-03-05", "price-acme-cny-m-2026-03-05",
        "price-acme-cny-n-2026-03-05", "price-acme-cny-u-2026-03-05", "price-bravo-gbp-g-2026-03-05",
        "price-bravo-gbp-f-2026-03-05", "price-bravo-gbp-h-2026-03-05", "price-carol-usd-d-2026-03-05",
        "price-carol-usd-k-2026-03-05", "price-carol-usd-r-2026-03-05", "price-carol-usd-w-2026-03-05"]
    # A dollar price is not converted; 1.4 / 1.5 - 1 = -6.7 %; a rise from free has no "was".
    assert listed["price-acme-usd-u-2026-03-05"] == (
        "Acme u (USD list): price change from 2026-03-05",
        "input: $1.40 per Mtok (was $1.50, -7%); output: $0.15 per Mtok.")
    # m's dollar list did not move on 03-05, so its yuan move is one no blend shows: each moved
    # tier beside the dollar list's price of the same tier then (its record of 01-01), in
    # reading order (input first, then cached input, cache write, output). By hand, at 0.125
    # USD a yuan (the ECB rate of 03-04, the last before 03-05): input 8 -> 4 = $0.500 against
    # $1.00, -50 %; its 32,000-token band 24 -> 12 = $1.50 against the dollar band over 32,000
    # (not the one over 32,001), $3.00, -50 %; peak 16 -> 20 = $2.50 against $2.00, +25 %;
    # cached input 0 went; cache write 5 min 0 -> 1.5 = 0.1875 ($0.188 to three figures) against
    # $0.50, -62.5 % (-62 %, rounded half to even); 60 min 6.4 -> 8 = $1.00 against $0.80,
    # +25 %; batch output 16 -> 0 against $2.00, -100 %. Output stayed 32: not a move. Cuts and
    # rises against the dollar list: a price change.
    assert listed["price-acme-cny-m-2026-03-05"] == (
        "Acme m (CNY list): price change from 2026-03-05",
        "input: $1.00 (USD list) → ¥4.00 ≈ $0.500 (CNY list), ≈ −50 %; was ¥8.00 in the CNY list; "
        "input, prompts over 32,000 tokens: $3.00 (USD list) → ¥12.00 ≈ $1.50 (CNY list), ≈ −50 %; "
        "was ¥24.00 in the CNY list; "
        "input, peak: $2.00 (USD list) → ¥20.00 ≈ $2.50 (CNY list), ≈ +25 %; was ¥16.00 in the "
        "CNY list; "
        "cached input: ¥0.00 (CNY list) no longer listed; "
        "cache write (5 min): $0.50 (USD list) → ¥1.50 ≈ $0.188 (CNY list), ≈ −62 %; was ¥0.00 in "
        "the CNY list; "
        "cache write (60 min): $0.80 (USD list) → ¥8.00 ≈ $1.00 (CNY list), ≈ +25 %; was ¥6.40 in "
        "the CNY list; "
        "output, batch: $2.00 (USD list) → ¥0.00 ≈ $0.00 (CNY list), ≈ −100 %; was ¥16.00 in the "
        "CNY list, at the ECB rate of 2026-03-04 (8.0000 CNY per USD). No blended price comes from "
        "it: the blends quote Acme's USD list, unchanged since 2026-01-01.")
    # n is not in the dollar list: no own price to give.
    assert listed["price-acme-cny-n-2026-03-05"] == (
        "Acme n (CNY list): rise from 2026-03-05",
        "cached input: ¥2.00 per Mtok no longer listed; output: ¥16.00 per Mtok (was ¥8.00, +100%), "
        "≈ $2.00 at the ECB rate of 2026-03-04 (8.0000 CNY per USD).")
    assert listed["price-bravo-gbp-g-2026-03-05"] == (
        "Bravo g (GBP list): cut from 2026-03-05",
        "input: £1.00 per Mtok (was £2.00, -50%), no ECB rate to convert it.")


def test_the_verb_of_a_list_figure_and_what_its_record_lacks() -> None:
    figures = price_figures(FILES, RATES, [CHAT], *MARCH_10)
    listed = {f.id: (f.label, f.text_md, f.citations) for f in figures}
    assert listed["price-acme-usd-z-2026-03-05"] == (
        "Acme z (USD list): new model from 2026-03-05",
        "input: $3.00 per Mtok; output: $3.00 per Mtok.", (cite("acme", "usd-z-202603050000"),))
    # 9, 0.7 and 7 yuan at 0.125: 1.125 ($1.12, two decimals from $1), 0.0875, 0.875; only the
    # input has a dollar price of u (1.4). The dollar and euro lists priced u before.
    rate = " at the ECB rate of 2026-03-04 (8.0000 CNY per USD)"
    assert listed["price-acme-cny-u-2026-03-05"] == (
        "Acme u (CNY list): new CNY prices from 2026-03-05",
        f"cache write: ¥9.00 per Mtok, ≈ $1.12{rate}; cached input: ¥0.70 per Mtok, ≈ $0.0875{rate}; "
        f"input: ¥7.00 per Mtok, ≈ $0.875{rate}; Acme's own USD list: $1.40. A repricing, not a new "
        "model: no earlier CNY price of u is recorded, and the USD and EUR prices beside are Acme's "
        "USD and EUR list, another list. This record gives only cache write, cached input and input "
        "prices (no output price), so no blended price comes from it.",
        (cite("acme", "cny-u-202603050000"),))
    assert listed["price-bravo-gbp-h-2026-03-05"] == (
        "Bravo h (GBP list): new model from 2026-03-05",
        "cache write: £0.30 per Mtok, no ECB rate to convert it. This record gives only cache write "
        "prices (no input or output price), so no blended price comes from it.",
        (cite("bravo", "gbp-h-202603050000"),))
    assert [listed[f"price-carol-usd-{m}-2026-03-05"][:2] for m in "dkrw"] == [
        # Only new prices, but the model was priced before: not a new model.
        ("Carol d (USD list): price change from 2026-03-05", "output, batch: $4.50 per Mtok."),
        ("Carol k (USD list): cut from 2026-03-05",
         "cache write: $3.00 per Mtok; cached input: $1.00 per Mtok no longer listed; "
         "input: $1.00 per Mtok (was $2.00, -50%)."),
        ("Carol r (USD list): rise from 2026-03-05",
         "cache write: $3.00 per Mtok; cached input: $1.00 per Mtok no longer listed; "
         "input: $2.00 per Mtok (was $1.00, +100%)."),
        ("Carol w (USD list): new model from 2026-03-05",
         "cache write: $1.00 per Mtok; cached input: $0.50 per Mtok. This record gives only cache "
         "write and cached input prices (no input or output price), so no blended price comes from it.")]


def test_cheapest_per_profile_and_the_blends_that_moved_biggest_first() -> None:
    figures = price_figures(FILES, RATES, [CHAT, INPUT], *MARCH_10)
    assert [f.id for f in figures][-3:] == ["cheapest-chat-3-1", "cheapest-input", "blend-moves"]
    chat, inputs, blend = figures[-3:]
    # 3:1 blends in USD at the end of 03-10: u 0.75 x 1.4 + 0.25 x 0.15 = 1.0875 (919,540 tokens
    # a dollar); n 0.75 x 8 + 0.25 x 16 = 10 yuan = 1.25; m 0.75 x (0.875 x 1 + 0.125 x 2, its 3
    # peak hours a day) + 0.25 x 4 = 1.84375; k 2.75, r 2.5, z 3, d 9; g and f have no rate.
    assert (chat.label, chat.text_md, chat.citations) == (
        "Cheapest tokens per dollar, chat",
        "Acme u: 920 k tokens per US dollar ($1.09 per Mtok blended).",
        (cite("acme", "usd-u-202603050000"),))
    # Input only: n 8 yuan = 1.00 USD ties with k's 1.00: the first by provider.
    assert (inputs.label, inputs.text_md, inputs.citations) == (
        "Cheapest tokens per dollar, input only",
        "Acme n: 1.00 M tokens per US dollar ($1.00 per Mtok blended, from the CNY list at the ECB "
        "rate of 2026-03-04).", (cite("acme", "cny-n-202603050000"),))
    # The first profile's blends in each list's currency, of the models priced at both ends: m,
    # u, n, g, f, d, k, r (z and w are new). r 0.75 x 1 + 0.25 x 4 = 1.75 -> 2.5 (+42.9 %); g and
    # f 2.5 -> 1.75 pounds (-30 %, a tie: by model); n 8 -> 10 (+25 %); k 3.5 -> 2.75 (-21.4 %);
    # u 1.125 ($1.12) -> 1.0875 ($1.09, -3.3 %); m and d did not move.
    assert blend.label == "Blended prices since 2026-03-02: 6 of 8 tracked models moved"
    assert blend.text_md == (
        "chat, each in its list's currency: Carol r (USD list) $1.75 → $2.50 per Mtok (+42.9%, from "
        "2026-03-05); Bravo f (GBP list) £2.50 → £1.75 per Mtok (-30.0%, from 2026-03-05); Bravo g "
        "(GBP list) £2.50 → £1.75 per Mtok (-30.0%, from 2026-03-05); Acme n (CNY list) ¥8.00 → "
        "¥10.00 per Mtok (+25.0%, from 2026-03-05); Carol k (USD list) $3.50 → $2.75 per Mtok "
        "(-21.4%, from 2026-03-05); Acme u (USD list) $1.12 → $1.09 per Mtok (-3.3%, from "
        "2026-03-05).")
    assert blend.citations == tuple(cite(p, r) for p, r in (
        ("carol", "usd-r-202603050000"), ("bravo", "gbp-f-202603050000"),
        ("bravo", "gbp-g-202603050000"), ("acme", "cny-n-202603050000"),
        ("carol", "usd-k-202603050000"), ("acme", "usd-u-202603050000")))


def test_the_tables_given_are_the_ones_read() -> None:
    start, end = day_end(dt.date(2026, 3, 2)), day_end(dt.date(2026, 3, 10))
    table = quotes(FILES, RATES, [CHAT, INPUT], [start, end])
    moved = meter_moves({"acme": FILES["acme"].model}, [(start, end)])
    # No rates given, so only the table's blends are in dollars; only Acme's moves given.
    figures = price_figures(FILES, table_from_eur_rates({}), [CHAT, INPUT], *MARCH_10,
                            table=table, moved=moved)
    assert [f.id for f in figures if not f.id.startswith("price-acme-")] == [
        "cheapest-chat-3-1", "cheapest-input", "blend-moves"]
    assert figures[-2].text_md.startswith("Acme n: 1.00 M tokens per US dollar")


def test_windows_without_moves_and_the_first_edition_looking_back_a_week() -> None:
    # From the end of 03-10 to the end of 03-20 only h moved (0.25 / 0.3 - 1 = -17 %), a record
    # without a blend; nine models priced at both ends (w and h have no blend).
    h_cut = price_figures(FILES, RATES, [CHAT], dt.date(2026, 3, 20), dt.date(2026, 3, 10))
    assert [f.id for f in h_cut][0] == "price-bravo-gbp-h-2026-03-15"
    assert (h_cut[-1].label, h_cut[-1].text_md, h_cut[-1].citations) == (
        "Blended prices since 2026-03-10", "No blended price moved across the 9 tracked models "
        "(chat): the moves above are in tiers that no blend quotes.", ())
    quiet = price_figures(FILES, RATES, [CHAT], dt.date(2026, 3, 25), dt.date(2026, 3, 20))
    assert [(f.id, f.label, f.text_md) for f in quiet][1:] == [
        ("blend-moves", "Blended prices since 2026-03-20",
         "No blended price moved across the 9 tracked models (chat).")]
    # The first edition, 03-12, looks back to the end of 03-05: the moves of 03-05 00:00 are
    # before it. No edition was dated 03-05, so its window is named by its length, not "since".
    first = price_figures(FILES, RATES, [CHAT], dt.date(2026, 3, 12), None)
    assert [f.id for f in first] == ["cheapest-chat-3-1", "blend-moves"]
    assert first[1].label == "Blended prices in the 7 days to 2026-03-12 (first edition)"
    # A day earlier, 03-11 looks back to the end of 03-04: they are in its window.
    assert len([f for f in price_figures(FILES, RATES, [CHAT], dt.date(2026, 3, 11), None)
                if f.id.startswith("price-")]) == 12
    # Before any price: no cheapest model; no profile: no cheapest and no blend figure.
    assert [(f.id, f.text_md) for f in price_figures(FILES, RATES, [CHAT], dt.date(2025, 12, 1), None)] == [
        ("blend-moves", "No blended price moved across the 0 tracked models (chat).")]
    assert [f.id for f in price_figures(FILES, RATES, [], dt.date(2026, 3, 25), None)] == []


def test_radar_has_the_records_ahead_known_by_the_edition_with_the_prices_they_replace() -> None:
    m = RadarItem(
        "Acme m: new prices",
        # Each price beside the one of its tier now: the peak window, the 32,000-token band (not
        # the one over 32,001), the 60-minute cache write, batch output; no cached input now.
        "Per Mtok: input $0.90 (now $1.00), input $1.80 (now $2.00), input $2.50 (now $3.00), "
        "cache write $0.70 (now $0.80), output $1.50 (now $2.00), cached input $0.10.",
        (cite("acme", "usd-m-202604010000"),), due=dt.date(2026, 4, 1), id="radar-acme-m-2026-04-01",
        known=dt.date(2026, 3, 5), provider="acme")
    n = RadarItem("Acme n: new prices", "Per Mtok: input ¥7.00 (now ¥8.00), output ¥14.00 (now ¥16.00).",
                  (cite("acme", "cny-n-202604150000"),), due=dt.date(2026, 4, 15),
                  id="radar-acme-n-2026-04-15", known=dt.date(2026, 3, 5), provider="acme")
    later = RadarItem("Acme n: new prices", "Per Mtok: input ¥6.00 (now ¥8.00), output ¥12.00 (now ¥16.00).",
                      (cite("acme", "cny-n-202605010000"),), due=dt.date(2026, 5, 1),
                      id="radar-acme-n-2026-05-01", known=dt.date(2026, 3, 11), provider="acme")
    h = RadarItem("Bravo h: new prices", "Per Mtok: cache write £0.25 (now £0.30).",
                  (cite("bravo", "gbp-h-202603150000"),), due=dt.date(2026, 3, 15),
                  id="radar-bravo-h-2026-03-15", known=dt.date(2026, 3, 5), provider="bravo")
    g = RadarItem("Bravo g: new prices", "Per Mtok: input £0.50 (now £1.00), output £4.00 (now £4.00).",
                  (cite("bravo", "gbp-g-202604010000"),), due=dt.date(2026, 4, 1),
                  id="radar-bravo-g-2026-04-01", known=dt.date(2026, 3, 10), provider="bravo")
    c = RadarItem("Carol c: new prices", "Per Mtok: input $1.00, output $1.00.",
                  (cite("carol", "usd-c-202603312359"),), due=dt.date(2026, 3, 31),
                  id="radar-carol-c-2026-03-31", known=dt.date(2026, 3, 5), provider="carol")
    # g's record was checked on the edition's day: known by it; n's of 05-01 only the day after.
    # Within a list by start: h (03-15) before g (04-01), n's 04-15 before the 05-01 listed first.
    assert price_radar(FILES, dt.date(2026, 3, 10)) == [m, n, h, g, c]
    assert price_radar(FILES, dt.date(2026, 3, 11)) == [m, n, later, h, g, c]
    # c is in force at the last instant of 03-31: ahead of the edition of 03-30 only.
    assert price_radar(FILES, dt.date(2026, 3, 30)) == [m, n, later, g, c]
    assert price_radar(FILES, dt.date(2026, 3, 31)) == [m, n, later, g]
    assert price_radar(FILES, dt.date(2026, 4, 1)) == [n, later]
