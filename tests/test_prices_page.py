"""The Prices page changes only with the prices it shows, and its charts are drawn again only
when the numbers they plot change (issue 8: a new edition must not rebuild an unchanged page)."""

from __future__ import annotations

import datetime as dt
import math
import os
import subprocess
import sys
from pathlib import Path

import pytest
from conftest import REPO

from pipeline.cache.store import Store
from pipeline.compose import prices_page as compose_prices_page
from pipeline.compose.prices import money
from pipeline.compose.prices_page import current_tables, newest_in_force
from pipeline.load.sources import load_sources
from pipeline.models.prices import PriceFile, WorkloadProfile
from pipeline.models.sourced import Sourced
from pipeline.normalize.fx import table_from_eur_rates
from pipeline.orchestrate.prices import price_files
from pipeline.render import prices_page
from pipeline.render.chart_image import finished
from pipeline.render.prices_page import prices_page_md
from pipeline.tables.cost import day_end
from pipeline.tables.quotes import quotes

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
# The yuan list's alpha (05-01) is not in the page's tables (alpha is quoted from the dollar
# list), but it is the newest record in force from then, and the page says so.
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


def newest(as_of: str):
    return newest_in_force(current_tables(FILES, RATES, [CHAT], day(as_of)))


def test_newest_in_force_names_the_newest_record_the_page_quotes() -> None:
    assert newest("2025-12-31") is None
    assert newest("2026-01-01") == (dt.datetime(2026, 1, 1, tzinfo=UTC), ["Acme alpha"])
    assert newest("2026-02-09") == (dt.datetime(2026, 1, 5, tzinfo=UTC), ["Acme gamma"])
    # A record starting at midday is in force by the end of its day.
    assert newest("2026-02-10") == (dt.datetime(2026, 2, 10, 12, tzinfo=UTC), ["Acme beta"])
    assert newest("2026-03-20") == (dt.datetime(2026, 3, 1, tzinfo=UTC), ["Acme alpha"])
    # beta has ended: its record is no longer in force, so alpha's cut is the newest one.
    assert newest("2026-04-15") == (dt.datetime(2026, 3, 1, tzinfo=UTC), ["Acme alpha"])
    # alpha's yuan price of 05-01 is in a list the page does not quote.
    assert newest("2026-06-01") == (dt.datetime(2026, 3, 1, tzinfo=UTC), ["Acme alpha"])


def test_page_is_the_same_while_the_prices_in_force_are() -> None:
    def page(as_of: str) -> str:
        return prices_page_md(FILES, RATES, [CHAT], day(as_of))

    march = page("2026-03-20")
    assert march.startswith("# Prices\n\nThe prices in force. The newest of them took effect on "
                            "2026-03-01 (UTC): Acme alpha.")
    assert "`beta`" in march and "2026-03-20" not in march
    assert page("2026-04-14") == march
    assert page("2026-02-10") != march  # alpha's cut
    assert "on 2026-02-10T12:00:00Z (UTC): Acme beta." in page("2026-02-10")
    april = page("2026-04-15")
    assert april != march and "`beta`" not in april  # beta's end
    assert page("2026-04-30") == april
    # alpha's yuan record of 05-01 is in force from then: the newest, told with why the tables
    # do not show it. At 1.2 / 8.4 USD a yuan (7 yuan a dollar, the ECB rate of 01-02): input 5
    # yuan = 0.714 USD against the dollar list's 0.80 (-10.7 %), output 20 = 2.857 against 3.20
    # (-10.7 %): a cut. The text is escaped as Markdown.
    may = page("2026-05-01")
    assert may.split("\n")[2] == (
        "The prices in force. The newest of them took effect on 2026-05-01 (UTC): Acme alpha "
        "\\(CNY list\\). Acme alpha: CNY list cut on 2026\\-05\\-01 \\(input: $0\\.80 \\(USD list\\) → "
        "¥5\\.00 ≈ $0\\.714 \\(CNY list\\), ≈ −11 %; output: $3\\.20 \\(USD list\\) → ¥20\\.00 ≈ "
        "$2\\.86 \\(CNY list\\), ≈ −11 %, at the ECB rate of 2026\\-01\\-02 \\(7\\.0000 CNY per "
        "USD\\)\\); no blended price comes from it: the blends quote Acme's USD list, unchanged "
        "since 2026\\-03\\-01\\. Every price and its history: [prices.csv](data/prices.csv), "
        "[blended.csv](data/blended.csv).")
    # Only that sentence differs: the tables are April's.
    assert may.split("\n")[3:] == april.split("\n")[3:]
    assert page("2026-06-01") == may
    assert page("2025-12-31").startswith("# Prices\n\nNo prices are in force yet.")


def test_page_columns_per_meter_and_each_figure_links_to_its_record() -> None:
    page = prices_page_md(FILES, RATES, [CHAT], day("2026-03-20"), source_url="https://r.org/b/")
    # List prices: per meter, in the list's currency; the model links to the record's page.
    assert "| Model | Input | Cached input | Output |" in page
    url = "https://example.com/pricing"
    assert f"| Acme<br>[`alpha`]({url}) | $0.80 |  | $3.20 |" in page
    assert f"| Acme<br>[`gamma`]({url}) | ¥3.00 |  | ¥12.00 |" in page
    # Blended for 3:1 by hand: alpha 0.75 × 0.8 + 0.25 × 3.2 = 1.4 USD, 714,286 tokens per USD
    # (three figures: 714 k); gamma 0.75 × 3 + 0.25 × 12 = 5.25 CNY at 1.2 / 8.4 USD a yuan
    # = 0.75 USD (a computed price below $1: $0.750), 1,333,333 (1.33 M).
    # Without line numbers (a file not read from disk) the link is to the file.
    assert ("| Acme<br>`alpha` | [$1.40](https://r.org/b/sources/prices/acme.yaml) "
            "| 714 k |") in page
    assert ("| Acme<br>`gamma` | [$0.750](https://r.org/b/sources/prices/acme.yaml)"
            "<br><small>CNY at ECB 2026-01-02</small> | 1.33 M |") in page
    # Cheapest first.
    assert page.index("`gamma` | [") < page.index("`alpha` | [") < page.index("`beta` | [")


def test_bundled_figures_link_to_the_line_of_their_record() -> None:
    sources = load_sources(REPO)
    page = prices_page_md(sources.prices, sources.rates, sources.series.profiles,
                          day("2026-11-20"), source_url="https://r.org/b/")
    # deepseek-chat is quoted from the dollar list: its record of 2025-09-29 starts on line 79
    # of deepseek.yaml (read by hand), and was read from DeepSeek's pricing page.
    # Its blend is 0.315 USD per Mtok: 3,174,603 tokens per USD, 3.17 M to three figures.
    assert ("| DeepSeek<br>`deepseek-chat` | [$0.315]"
            "(https://r.org/b/sources/prices/deepseek.yaml#L79) | 3.17 M |") in page
    assert "[`deepseek-chat`](https://api-docs.deepseek.com/quick_start/pricing)" in page
    # The newest record in force, in any list: DeepSeek's CNY Flash cut of 2026-09-10 (Claude
    # Sonnet 5's price of 2026-09-01 is the newest of the quoted lists).
    # The names escaped as Markdown text (a model id is never markup): they read the same.
    assert ("took effect on 2026-09-10 (UTC): DeepSeek deepseek\\-v4\\-flash \\(CNY list\\). DeepSeek "
            "deepseek\\-v4\\-flash: CNY list cut on 2026\\-09\\-10 \\(input, peak: $0\\.44 \\(USD "
            "list\\) → ¥0\\.10 ≈ $0\\.0149 \\(CNY list\\), ≈ −97 %;") in page


def test_history_starts_with_the_data_and_shows_the_models_whose_price_changed() -> None:
    history = compose_prices_page.price_history(FILES, RATES, CHAT, day("2026-04-30"))
    assert history.end == dt.datetime(2026, 4, 30, 23, 59, 59, 999999, tzinfo=UTC)
    # Blends by hand: alpha 0.75 × 1 + 0.25 × 4 = 1.75, then 1.4; beta 0.75 × 2 + 0.25 × 8 = 3.5
    # until it ended. gamma never changed: not drawn.
    alpha, beta = history.lines
    assert alpha[0] == "Acme alpha"
    assert [at for at, _ in alpha[1]] == [dt.datetime(2026, 1, 1, tzinfo=UTC),
                                          dt.datetime(2026, 3, 1, tzinfo=UTC)]
    assert [usd for _, usd in alpha[1]] == pytest.approx([1.75, 1.4])
    assert beta[0] == "Acme beta" and beta[1][0] == (dt.datetime(2026, 2, 10, 12, tzinfo=UTC), 3.5)
    assert beta[1][1][0] == dt.datetime(2026, 4, 15, tzinfo=UTC) and math.isnan(beta[1][1][1])
    assert prices_page.history_csv(history) == (
        b"model,from_utc,usd_per_mtok\nAcme alpha,2026-01-01,1.75\nAcme alpha,2026-03-01,1.4\n"
        b"Acme beta,2026-02-10T12:00:00Z,3.5\nAcme beta,2026-04-15,\n")
    assert prices_page.history_alt(history).endswith(
        f"Acme alpha: {money(1.75, 'USD')} from 2026-01-01, {money(1.4, 'USD')} from 2026-03-01. "
        f"Acme beta: {money(3.5, 'USD')} from 2026-02-10T12:00:00Z, no price from 2026-04-15.")


def test_charts_section_gives_alt_text_time_zones_and_csv_links(copy_repo_sources) -> None:
    sources = load_sources(copy_repo_sources())
    files = price_files(sources, sources.series.edition_dates(day("2026-11-30")))
    page = files["prices.md"]
    assert "![Step chart: Blended price of the models whose price changed" in page
    assert "dates in UTC, each step a record taking effect: [the data behind this chart (CSV)]" \
           "(data/blended-history.csv)" in page
    assert "Effective price by hour of the week, in UTC" in page
    # The bundled history starts with deepseek-chat's first record, 2025-02-26, long before the
    # first edition (2026-08-21); Claude Sonnet 5's introductory price is one of its lines.
    history = files["data/blended-history.csv"].decode()
    assert history.splitlines()[1:3] == ["Anthropic claude-sonnet-5,2026-08-01,4.0",
                                         "Anthropic claude-sonnet-5,2026-09-01,6.0"]
    assert "DeepSeek deepseek-chat,2025-02-26," in history


def test_bundled_page_is_the_same_from_one_edition_to_the_next_without_a_price_change() -> None:
    sources = load_sources(REPO)
    prices, rates, profiles = sources.prices, sources.rates, sources.series.profiles

    def page(as_of: str) -> str:
        return prices_page_md(prices, rates, profiles, day(as_of))

    # Between the cuts of 09-01 and anything later, with DeepSeek's peak windows in force.
    assert page("2026-09-12") == page("2026-11-30")
    assert page("2026-08-31") != page("2026-09-01")


def test_charts_are_reused_while_what_they_plot_is_unchanged(copy_repo_sources,
                                                            tmp_path: Path) -> None:
    root = copy_repo_sources()
    sources = load_sources(root)
    dates = sources.series.edition_dates(day("2026-11-30"))
    store = tmp_path / "store"
    first = Store(store, {})
    before = price_files(sources, dates, first)
    # the price tables, the hour-of-week and cheapest charts
    assert first.computed == {"render": 1, "charts": 2}
    first.keep()

    # A new edition in another week, no price changed: only the price history gains a day, and
    # it is drawn every time, not kept.
    later = [*dates, dates[-1] + dt.timedelta(days=10)]
    again = Store(store, {})
    after = price_files(sources, later, again)
    assert again.computed == {"render": 0, "charts": 0}
    again.keep()
    assert after["charts/price-history.svg"] != before["charts/price-history.svg"]
    for path in ("prices.md", "charts/hour-of-week.svg", "charts/cheapest.svg"):
        assert finished(after[path]) == finished(before[path]), path

    # The cheapest model's price changes: the charts that plot it are drawn again, the
    # hour-of-week one (DeepSeek's windows) is not; all as a build without a memo draws them.
    zhipu = root / "sources" / "prices" / "zhipu.yaml"
    text = zhipu.read_text(encoding="utf-8")
    old = "- {meter: output, price: 2}\n      - model: glm-4.7"
    assert text.count(old) == 1
    zhipu.write_text(text.replace(old, old.replace("price: 2}", "price: 2.5}")), encoding="utf-8")
    changed = load_sources(root)
    third = Store(store, {})
    redrawn = price_files(changed, later, third)
    assert third.computed == {"render": 1, "charts": 1}  # the price tables, the cheapest chart
    # glm-4.5-air has one record: its price never changed, so the history has no line of it.
    assert finished(redrawn["charts/price-history.svg"]) == finished(after["charts/price-history.svg"])
    assert finished(redrawn["charts/cheapest.svg"]) != finished(after["charts/cheapest.svg"])
    assert finished(redrawn["charts/hour-of-week.svg"]) == finished(after["charts/hour-of-week.svg"])
    assert redrawn["prices.md"] != after["prices.md"]
    cold = price_files(changed, later)
    assert {p: finished(b) for p, b in redrawn.items()} == {p: finished(b) for p, b in cold.items()}


def test_prices_page_module_does_not_import_matplotlib() -> None:
    # A build that reuses every chart should not pay for importing matplotlib (~0.3 s).
    code = "import sys, pipeline.render.prices_page; print('matplotlib' in sys.modules)"
    out = subprocess.run([sys.executable, "-c", code], cwd=REPO, capture_output=True, text=True,
                         check=True, env={**os.environ, "PYTHONPATH": str(REPO)})
    assert out.stdout.strip() == "False"


def test_chart_text_stays_text_and_bytes_repeat() -> None:
    history = compose_prices_page.price_history(FILES, RATES, CHAT, day("2026-04-30"))
    svg = prices_page.svg(history)
    assert svg == prices_page.svg(history)
    # svg.fonttype none: labels are <text> elements, not glyph paths.
    assert b"<text" in svg and b"USD per Mtok (log)" in svg and b"<dc:date>" not in svg
    assert b"Date (UTC)" in svg
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


def test_edition_chart_is_its_date_with_the_moves_of_its_window() -> None:
    spec = compose_prices_page.cheapest_chart_spec(FILES, RATES, CHAT, day("2026-03-20"),
                                                   day("2026-02-09"), top=1)
    # By hand at the end of 03-20: gamma 0.75 USD a Mtok (1.333 M tokens per USD), alpha 1.4
    # (0.714), beta 3.5 (0.286). The top one is gamma; alpha (1.75 on 02-09: 0.571) and beta (no
    # price on 02-09) moved in the window, so they follow it.
    assert spec.kind == "hbar" and spec.since == "2026-02-09"
    assert spec.categories == ("Acme gamma", "Acme alpha", "Acme beta")
    assert spec.series[0].values == (1.333, 0.714, 0.286)
    assert spec.series[1].values == (1.333, 0.571, None)
    assert spec.title == "Most tokens per US dollar, chat, as of 2026-03-20"
    # A window with no move: the top only, each figure as at its start.
    quiet = compose_prices_page.cheapest_chart_spec(FILES, RATES, CHAT, day("2026-04-14"),
                                                    day("2026-03-20"), top=1)
    assert quiet.categories == ("Acme gamma",) and quiet.series[1].values == (1.333,)


def flat(model: str, price: float, start: str = "2026-01-01", end: str | None = None) -> dict:
    """A record whose input and output cost `price` a Mtok: its 3:1 blend is `price` too."""
    doc = {"model": model, "from": start, "prices": [{"meter": "input", "price": price},
                                                     {"meter": "output", "price": price}], **SRC}
    return doc | ({"to": end} if end else {})


# Eleven models in an order that is not their price order; m2 and m10 moved on 03-01.
MANY = {"many": Sourced(PriceFile.model_validate({"provider": "many", "name": "Many", "lists": [
    {"currency": "USD", "records": [
        flat("m1", 6), flat("m2", 0.001, end="2026-03-01"), flat("m2", 0.5, "2026-03-01"),
        flat("m3", 2), flat("m4", 9), flat("m5", 1), flat("m6", 5), flat("m7", 8), flat("m8", 3),
        flat("m9", 4), flat("m10", 10, end="2026-03-01"), flat("m10", 7, "2026-03-01"),
        flat("m0", 0.001)]}]}), "sources/prices/many.yaml")}


def test_edition_chart_ranks_cheapest_first_and_adds_the_moves_outside_its_top() -> None:
    # Million tokens per USD at the end of 03-20 is 1 / price: m0 1000 (0.001), m2 2 (0.5), m5 1,
    # m3 0.5, m8 0.333, m9 0.25, m6 0.2, m1 0.167 (1/6), then m10 0.143 (1/7), m7 0.125, m4 0.111.
    alone = compose_prices_page.cheapest_chart_spec(MANY, RATES, CHAT, day("2026-03-20"))
    assert alone.categories == ("Many m0", "Many m2", "Many m5", "Many m3", "Many m8", "Many m9",
                                "Many m6", "Many m1")  # the top 8 by default, no window: no moves
    assert alone.series == (compose_prices_page.ChartSeries(
        "Million tokens per USD", (1000.0, 2.0, 1.0, 0.5, 0.333, 0.25, 0.2, 0.167)),)
    assert (alone.name, alone.since) == ("tokens-per-dollar-chat-3-1-2026-03-20", "")
    assert (alone.x_label, alone.y_label, alone.unit) == (
        "Model", "Million tokens per USD, blended", "million tokens per USD")
    # The top 2, then the models outside it whose blend moved since 02-09: m2 (in the top, once)
    # and m10; each with its figure on 02-09: m2 1000 (0.001), m10 0.1 (1/10).
    window = compose_prices_page.cheapest_chart_spec(MANY, RATES, CHAT, day("2026-03-20"),
                                                     day("2026-02-09"), top=2)
    assert window.categories == ("Many m0", "Many m2", "Many m10")
    assert window.series == (
        compose_prices_page.ChartSeries("Million tokens per USD", (1000.0, 2.0, 0.143)),
        compose_prices_page.ChartSeries("Million tokens per USD at the window start",
                                        (1000.0, 1000.0, 0.1)))
    # A table already computed is what the chart is read from: the files are not read again.
    table = quotes(MANY, RATES, [CHAT], [day_end(day("2026-02-09")), day_end(day("2026-03-20"))])
    assert compose_prices_page.cheapest_chart_spec({}, RATES, CHAT, day("2026-03-20"),
                                                   day("2026-02-09"), top=2, table=table) == window
    # Fewer priced models than the top: all of them.
    few = compose_prices_page.cheapest_chart_spec(FILES, RATES, CHAT, day("2026-03-20"), top=5)
    assert few.categories == ("Acme gamma", "Acme alpha", "Acme beta")


# Two providers whose names sort unlike their models, and two models of one price listed
# against their order: rows of one price go by provider name, then model.
TIES = {"zed": Sourced(PriceFile.model_validate({"provider": "zed", "name": "Able", "lists": [
            {"currency": "USD", "records": [flat("b", 2)]}]}), "sources/prices/zed.yaml"),
        "acme": Sourced(PriceFile.model_validate({"provider": "acme", "name": "Zulu", "lists": [
            {"currency": "USD", "records": [flat("y", 2), flat("a", 2), flat("x", 1)]}]}),
            "sources/prices/acme.yaml")}


def test_current_rows_cheapest_first_then_by_provider_and_model() -> None:
    as_of = day("2026-03-20")
    rows = compose_prices_page.current_rows(TIES, RATES, CHAT, as_of)
    # Blends 1 (x) and 2 (the rest): 1,000,000 and 500,000 tokens per USD; a dollar list's
    # figures carry the record's own day as their fixing.
    assert [r[:6] for r in rows] == [
        ("Zulu", "x", "USD", 1.0, 1e6, day("2026-01-01")), ("Able", "b", "USD", 2.0, 5e5, day("2026-01-01")),
        ("Zulu", "a", "USD", 2.0, 5e5, day("2026-01-01")), ("Zulu", "y", "USD", 2.0, 5e5, day("2026-01-01"))]
    assert [r[6].record.model for r in rows] == ["x", "b", "a", "y"]
    # A table already computed is what they are read from.
    table = quotes(TIES, RATES, [CHAT], [day_end(as_of)])
    assert compose_prices_page.current_rows({}, RATES, CHAT, as_of, table) == rows
    assert compose_prices_page.current_tables({}, RATES, [CHAT], as_of, table) == {"chat-3-1": rows}
    assert compose_prices_page.current_tables(TIES, RATES, [CHAT], as_of) == {"chat-3-1": rows}
    # With a yuan list, converted at the rates given (gamma 0.75 USD, alpha 1.4, beta 3.5).
    assert [r[1] for r in compose_prices_page.current_rows(FILES, RATES, CHAT, as_of)] == [
        "gamma", "alpha", "beta"]
    assert [r[1] for r in current_tables(FILES, RATES, [CHAT], as_of)["chat-3-1"]] == [
        "gamma", "alpha", "beta"]


def test_cheapest_chart_has_the_top_per_profile_most_last() -> None:
    as_of = day("2026-03-20")
    # Million tokens per USD is 1 / blend (module MANY above): the top 3 m0, m2, m5, drawn
    # bottom up. Input only: the same prices, so the same bars.
    inputs = WorkloadProfile(id="input", title="input only", input_share=1.0)
    chart = compose_prices_page.cheapest(MANY, RATES, [CHAT, inputs], as_of, top=3)
    assert [(title, [label for label, _ in bars]) for title, bars in chart.panels] == [
        ("chat", ["Many m5", "Many m2", "Many m0"]), ("input only", ["Many m5", "Many m2", "Many m0"])]
    assert chart.panels[0][1][:2] == (("Many m5", 1.0), ("Many m2", 2.0))  # 1e6 / 1e6, 2e6 / 1e6
    assert chart.panels[0][1][2][1] == pytest.approx(1000.0)
    # gamma 1 / 0.75 = 1.333, alpha 1 / 1.4 = 0.714, beta 1 / 3.5 = 0.286 (a yuan list converted).
    (title, bars), = compose_prices_page.cheapest(FILES, RATES, [CHAT], as_of).panels
    assert [label for label, _ in bars] == ["Acme beta", "Acme alpha", "Acme gamma"]
    assert [v for _, v in bars] == pytest.approx([1 / 3.5, 1 / 1.4, 1 / 0.75])
    assert len(compose_prices_page.cheapest(MANY, RATES, [CHAT], as_of).panels[0][1]) == 8
    current = current_tables(MANY, RATES, [CHAT, inputs], as_of)
    assert compose_prices_page.cheapest({}, RATES, [CHAT, inputs], as_of, 3, current) == chart


def history_file() -> dict:
    """Thirteen models whose price changed, h06 the longest ago (its last point, an end, on
    01-20); h09's second point is the earliest change (01-05) but its last, an end, the latest
    (03-15); q has a gap between its records."""
    changes = {i: f"2026-02-{10 + i:02d}" for i in range(13)}
    records = []
    for i in range(13):
        if i == 6:
            records += [flat("h06", 1, end="2026-01-10"), flat("h06", 3, "2026-01-10", "2026-01-20")]
        elif i == 9:
            records += [flat("h09", 1, end="2026-01-05"), flat("h09", 3, "2026-01-05", "2026-03-15")]
        else:
            records += [flat(f"h{i:02d}", 1, end=changes[i]), flat(f"h{i:02d}", 2 + i, changes[i])]
    records += [flat("q", 1, end="2026-02-01"), flat("q", 2, "2026-03-01")]
    return {"hist": Sourced(PriceFile.model_validate({"provider": "hist", "name": "H", "lists": [
        {"currency": "USD", "records": records}]}), "sources/prices/hist.yaml")}


def test_history_keeps_the_twelve_models_changed_most_recently_and_draws_gaps() -> None:
    history = compose_prices_page.price_history(history_file(), RATES, CHAT, day("2026-03-31"))
    assert history.title == "Blended price of the models whose price changed, chat"
    # Fourteen lines; the two whose last point is oldest go: h06 (01-20) and h00 (02-10).
    assert [label for label, _ in history.lines] == [
        *(f"H h{i:02d}" for i in (1, 2, 3, 4, 5, 7, 8, 9, 10, 11, 12)), "H q"]
    q = dict(history.lines)["H q"]
    utc = dt.UTC
    assert [at for at, _ in q] == [dt.datetime(2026, 1, 1, tzinfo=utc), dt.datetime(2026, 2, 1, tzinfo=utc),
                                   dt.datetime(2026, 3, 1, tzinfo=utc)]
    assert q[0][1] == 1 and math.isnan(q[1][1]) and q[2][1] == 2
    # By 02-09 no price has changed; beta's record, after the end, stops the walk of its model.
    early = compose_prices_page.price_history(FILES, RATES, CHAT, day("2026-02-09"))
    assert early.lines == ()


def test_history_takes_a_record_starting_and_an_end_falling_at_the_last_instant_of_the_day() -> None:
    # The edition of 03-31 sees everything up to 23:59:59.999999 UTC. "starts" changes from 1 to
    # 2 at that very instant: the new price is a point. "ends" stops then: the gap is a point
    # too, and makes a line of a model that had one price (alone, it would be none).
    last = "2026-03-31T23:59:59.999999Z"
    edge = {"edge": Sourced(PriceFile.model_validate({"provider": "edge", "name": "E", "lists": [
        {"currency": "USD", "records": [flat("starts", 1, end=last), flat("starts", 2, last),
                                        flat("ends", 3, end=last)]}]}), "sources/prices/edge.yaml")}
    history = compose_prices_page.price_history(edge, RATES, CHAT, day("2026-03-31"))
    jan, at = dt.datetime(2026, 1, 1, tzinfo=UTC), dt.datetime(2026, 3, 31, 23, 59, 59, 999999, tzinfo=UTC)
    lines = {label: ([t for t, _ in points], ["gap" if math.isnan(v) else v for _, v in points])
             for label, points in history.lines}
    assert lines == {"E ends": ([jan, at], [3, "gap"]), "E starts": ([jan, at], [1, 2])}


def test_history_of_a_yuan_list_in_dollars_with_a_gap_where_no_blend_comes() -> None:
    # 8 then 16 yuan at 1.2 / 8.4 = 1/7 USD a yuan (the rate of 01-02): 8/7, 16/7; then cached input
    # only, which gives no blend.
    yuan = {"yuan": Sourced(PriceFile.model_validate({"provider": "yuan", "name": "Y", "lists": [
        {"currency": "CNY", "records": [
            flat("c1", 8, "2026-01-05", "2026-02-01"), flat("c1", 16, "2026-02-01", "2026-03-01"),
            {"model": "c1", "from": "2026-03-01", "prices": [{"meter": "cached_input", "price": 1}],
             **SRC}]}]}), "sources/prices/yuan.yaml")}
    ((label, points),) = compose_prices_page.price_history(yuan, RATES, CHAT, day("2026-03-31")).lines
    assert label == "Y c1" and [at.date() for at, _ in points] == [
        day("2026-01-05"), day("2026-02-01"), day("2026-03-01")]
    assert [v for _, v in points[:2]] == pytest.approx([8 / 7, 16 / 7]) and math.isnan(points[2][1])


def test_hour_of_week_has_the_models_whose_price_varies_in_the_week() -> None:
    # A minute-long window at 13:30: the hour of 13:00 is read at its middle.
    peak = [{"name": "peak", "tier": "peak", "timezone": "UTC",
             "spans": [{"start": "09:00", "end": "12:00"}]},
            {"name": "short", "tier": "off-peak", "timezone": "UTC",
             "spans": [{"start": "13:30", "end": "13:31"}]}]
    windowed = {"w": Sourced(PriceFile.model_validate({"provider": "w", "name": "W", "lists": [
        {"currency": "USD", "records": [flat("plain", 1)]},
        {"currency": "CNY", "windows": peak, "records": [
            # Peak input 2, short 0.5, else 1; its output does not vary.
            {"model": "p", "from": "2026-01-01", "prices": [
                {"meter": "input", "price": 1}, {"meter": "input", "price": 2, "window": "peak"},
                {"meter": "input", "price": 0.5, "window": "short"},
                {"meter": "output", "price": 4}], **SRC},
            # Priced from Wednesday 2026-03-04 on, 09:00 peak included.
            {"model": "late", "from": "2026-03-04", "prices": [
                {"meter": "input", "price": 3}, {"meter": "input", "price": 5, "window": "peak"}],
             **SRC},
            flat("flat", 7)]}]}), "sources/prices/w.yaml")}
    week = compose_prices_page.hour_of_week(windowed, day("2026-03-02"))
    assert week.meter == "input"
    # 168 hours from Monday 00:00 UTC: 09:00-11:59 of each day are peak.
    p = tuple(2.0 if h % 24 in (9, 10, 11) else 0.5 if h % 24 == 13 else 1.0 for h in range(168))
    late = tuple(math.nan if h < 48 else 5.0 if h % 24 in (9, 10, 11) else 3.0 for h in range(168))
    ((p_label, p_values), (late_label, late_values)) = week.lines
    assert (p_label, p_values) == ("p (CNY)", p)
    assert late_label == "late (CNY)" and all(
        (math.isnan(a) and math.isnan(b)) or a == b for a, b in zip(late_values, late, strict=True))
    # The output of p is the same all week; a meter nobody prices: no lines.
    assert compose_prices_page.hour_of_week(windowed, day("2026-03-02"), "output").lines == ()
    assert compose_prices_page.hour_of_week(windowed, day("2026-03-02"), "cache_write").lines == ()
