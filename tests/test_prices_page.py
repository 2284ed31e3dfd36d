"""The Prices page changes only with the prices it shows, and its charts are drawn again only
when the numbers they plot change (issue 8: a new edition must not rebuild an unchanged page)."""

from __future__ import annotations

import datetime as dt
import os
import subprocess
import sys

from conftest import REPO

from pipeline.build.memo import Memo
from pipeline.build.prices import price_files
from pipeline.compose import prices_page as compose_prices_page
from pipeline.compose.prices_page import in_force_since
from pipeline.load.sources import load_sources
from pipeline.models.prices import PriceFile, WorkloadProfile
from pipeline.models.sourced import Sourced
from pipeline.normalize.fx import table_from_eur_rates
from pipeline.render import prices_page
from pipeline.render.prices_page import prices_page_md

UTC = dt.UTC
SRC = {"source_url": "https://example.com/pricing", "checked": "2026-01-01"}
CHAT = WorkloadProfile(id="chat-3-1", title="chat", input_share=0.75)
RATES = table_from_eur_rates({"USD": {dt.date(2026, 1, 2): 1.2},
                              "CNY": {dt.date(2026, 1, 2): 8.4}})


def record(model: str, start: str, end: str | None = None, usd_per_mtok: float = 1.0) -> dict:
    doc = {"model": model, "from": start, "prices": [
        {"meter": "input", "price": usd_per_mtok}, {"meter": "output", "price": 4 * usd_per_mtok}],
        **SRC}
    return doc | ({"to": end} if end else {})


# alpha: cut on 03-01; beta: from midday 02-10 until 04-15, then gone; gamma: yuan list only.
# The yuan list's alpha (05-01) is not on the page: alpha is quoted from the dollar list.
ACME = Sourced(PriceFile.model_validate({"provider": "acme", "name": "Acme", "lists": [
    {"currency": "USD", "records": [
        record("alpha", "2026-01-01", "2026-03-01", 1.0), record("alpha", "2026-03-01", None, 0.8),
        record("beta", "2026-02-10T12:00:00Z", "2026-04-15", 2.0)]},
    {"currency": "CNY", "records": [
        record("gamma", "2026-01-05", None, 3.0), record("alpha", "2026-05-01", None, 5.0)]},
]}), "sources/prices/acme.yaml")
FILES = {"acme": ACME}


def day(text: str) -> dt.date:
    return dt.date.fromisoformat(text)


def test_in_force_since_is_the_newest_start_or_end_the_page_shows() -> None:
    assert in_force_since(FILES, day("2025-12-31")) is None
    assert in_force_since(FILES, day("2026-01-01")) == dt.datetime(2026, 1, 1, tzinfo=UTC)
    assert in_force_since(FILES, day("2026-02-09")) == dt.datetime(2026, 1, 5, tzinfo=UTC)
    # A record starting at midday is in force by the end of its day.
    assert in_force_since(FILES, day("2026-02-10")) == dt.datetime(2026, 2, 10, 12, tzinfo=UTC)
    assert in_force_since(FILES, day("2026-03-20")) == dt.datetime(2026, 3, 1, tzinfo=UTC)
    # beta's end is a change too: its row leaves the table.
    assert in_force_since(FILES, day("2026-04-15")) == dt.datetime(2026, 4, 15, tzinfo=UTC)
    # alpha's yuan price of 05-01 is in a list the page does not quote.
    assert in_force_since(FILES, day("2026-06-01")) == dt.datetime(2026, 4, 15, tzinfo=UTC)


def test_page_is_the_same_while_the_prices_in_force_are() -> None:
    def page(as_of: str) -> str:
        return prices_page_md(FILES, RATES, [CHAT], day(as_of))

    march = page("2026-03-20")
    assert march.startswith("# Prices\n\nThe prices in force since 2026-03-01, when the newest "
                            "change among them took effect.")
    assert "| Acme | `beta` | USD |" in march and "2026-03-20" not in march
    assert page("2026-04-14") == march
    assert page("2026-02-10") != march  # alpha's cut
    assert "since 2026-02-10T12:00:00Z" in page("2026-02-10")
    april = page("2026-04-15")
    assert april != march and "`beta`" not in april  # beta's end
    assert page("2026-06-01") == april
    assert page("2025-12-31").startswith("# Prices\n\nNo prices are in force yet.")


def test_bundled_page_is_the_same_from_one_edition_to_the_next_without_a_price_change() -> None:
    sources = load_sources(REPO)
    prices, rates, profiles = sources.prices, sources.rates, sources.series.profiles

    def page(as_of: str) -> str:
        return prices_page_md(prices, rates, profiles, day(as_of))

    # Between the cuts of 09-01 and anything later, with DeepSeek's peak windows in force.
    assert page("2026-09-12") == page("2026-11-30")
    assert page("2026-08-31") != page("2026-09-01")


def test_charts_are_reused_while_what_they_plot_is_unchanged(copy_repo_sources) -> None:
    root = copy_repo_sources()
    sources = load_sources(root)
    dates = sources.series.edition_dates(day("2026-11-30"))
    first = Memo()
    before = price_files(sources, dates, first)
    assert first.computed == 3  # the price tables, the hour-of-week and cheapest charts

    # A new edition in another week, no price changed: only the price history gains a day, and
    # it is not kept (the memo, ~170 MB at year scale, is rewritten only when it changes).
    later = [*dates, dates[-1] + dt.timedelta(days=10)]
    again = Memo(first.used)
    after = price_files(sources, later, again)
    assert again.computed == 0 and not again.changed
    assert after["charts/price-history.svg"] != before["charts/price-history.svg"]
    for path in ("prices.md", "charts/hour-of-week.svg", "charts/cheapest.svg"):
        assert after[path] == before[path], path

    # The cheapest model's price changes: the charts that plot it are drawn again, the
    # hour-of-week one (DeepSeek's windows) is not; all as a build without a memo draws them.
    zhipu = root / "sources" / "prices" / "zhipu.yaml"
    text = zhipu.read_text(encoding="utf-8")
    old = "- {meter: output, price: 2}\n      - model: glm-4.7"
    assert text.count(old) == 1
    zhipu.write_text(text.replace(old, old.replace("price: 2}", "price: 2.5}")), encoding="utf-8")
    changed = load_sources(root)
    third = Memo(again.used)
    redrawn = price_files(changed, later, third)
    assert third.computed == 2  # the price tables and the cheapest chart
    assert redrawn["charts/price-history.svg"] != after["charts/price-history.svg"]
    assert redrawn["charts/cheapest.svg"] != after["charts/cheapest.svg"]
    assert redrawn["charts/hour-of-week.svg"] == after["charts/hour-of-week.svg"]
    assert redrawn["prices.md"] != after["prices.md"]
    assert redrawn == price_files(changed, later, Memo())


def test_prices_page_module_does_not_import_matplotlib() -> None:
    # A build that reuses every chart should not pay for importing matplotlib (~0.3 s).
    code = "import sys, pipeline.render.prices_page; print('matplotlib' in sys.modules)"
    out = subprocess.run([sys.executable, "-c", code], cwd=REPO, capture_output=True, text=True,
                         check=True, env={**os.environ, "PYTHONPATH": str(REPO)})
    assert out.stdout.strip() == "False"


def test_chart_text_stays_text_and_bytes_repeat() -> None:
    dates = [day("2026-01-01") + dt.timedelta(days=i) for i in range(120)]
    svg = prices_page.svg(compose_prices_page.price_history(FILES, RATES, CHAT, dates))
    assert svg == prices_page.svg(compose_prices_page.price_history(FILES, RATES, CHAT, dates))
    # svg.fonttype none: labels are <text> elements, not glyph paths.
    assert b"<text" in svg and b"USD per Mtok (log scale)" in svg and b"<dc:date>" not in svg
    assert b"Acme alpha" in svg
    assert b"gamma" in prices_page.svg(compose_prices_page.cheapest(FILES, RATES, [CHAT],
                                                           day("2026-03-20")))


def test_cheapest_chart_keeps_two_providers_of_one_model_apart() -> None:
    """Two providers may quote the same model id: each gets its own bar, labelled with its
    provider (bars given by label would merge even if two labels were the same)."""
    same = prices_page.svg(compose_prices_page.Cheapest((("Chat", (("Same m", 1.0), ("Same m", 2.0))),)))
    assert same.count(b">Same m<") == 2  # two bars, two ticks: not one category
    svg = prices_page.svg(compose_prices_page.Cheapest((("Chat", (("Alpha m", 1.0), ("Beta m", 2.0))),)))
    assert b"Alpha m" in svg and b"Beta m" in svg
    sources = load_sources(REPO)
    chart = compose_prices_page.cheapest(sources.prices, sources.rates, sources.series.profiles,
                                 dt.date(2026, 11, 30))
    names = {s.model.name for s in sources.prices.values()}
    assert all(label.rsplit(" ", 1)[0] in names for _, bars in chart.panels for label, _ in bars)
