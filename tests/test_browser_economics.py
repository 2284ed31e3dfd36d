"""The Market economics page in Chromium (issue 41): at 1280 and 390 px, light and dark, its
figures are those of its data files, its charts load, and the editions' lines lead to it."""

from __future__ import annotations

import csv
import datetime as dt
import io
import re
from pathlib import Path

import pytest
from test_browser import _SCROLLING_TABLES, EDITIONS, browser, shot, site_url  # noqa: F401
from test_browser_charts import _assert_readable, _laid_out
from test_browser_layout import SPLIT

from pipeline.tables.cost_to_serve import COLUMNS as COST_COLUMNS
from pipeline.tables.index_readings import CONTRIBUTION_COLUMNS
from pipeline.tables.launch_prices import LAUNCH_COLUMNS
from pipeline.tables.price_index import INDEX_COLUMNS, year_before


def _csv(site: Path, name: str) -> list[dict]:
    return list(csv.DictReader(io.StringIO((site / "data" / name).read_text("utf-8"))))


def _blend(site: Path) -> list[dict]:
    return [r for r in _csv(site, "index.csv")
            if r["segment"] == "all" and r["meter"] == "blend_3_1"]


def _percent(change: float) -> str:
    return "unchanged" if round(change * 100, 1) == 0 else f"{change * 100:+.1f} %".replace("-", "−")


@pytest.mark.parametrize("scheme", ["light", "dark"])
def test_economics_page_shows_its_files_figures_and_fits_a_desktop_and_a_phone(
        browser, site_url: str, bundled_site: Path, scheme: str) -> None:  # noqa: F811
    blend = _blend(bundled_site)
    costs = _csv(bundled_site, "cost-to-serve.csv")
    assert blend and costs
    context = browser.new_context(color_scheme=scheme, viewport={"width": 1280, "height": 900})
    pg = context.new_page()
    errors: list[str] = []
    pg.on("pageerror", lambda e: errors.append(str(e)))
    pg.goto(site_url + "economics/")
    assert pg.evaluate("document.body.dataset.mdColorScheme") == (
        "slate" if scheme == "dark" else "default")
    assert pg.locator("#same-model-index").count() == 1
    assert pg.locator("#cost-to-serve").count() == 1
    text = pg.locator("article").inner_text()
    first, last = blend[0], blend[-1]
    # The summary's figures are the file's: the change since the first date (which rests on a
    # first step of a few listings, mostly o3's cut: said as that listing), the listings now.
    since_first = float(last["index"]) / float(first["index"]) - 1
    assert (f"since {first['date']} ({len(blend) - 1} steps), one listing's move rather than "
            "the market's") in text
    assert f"of the index's {_percent(since_first)} is LiteLLM model price map's openai o3" in text
    # Each catalogue's last read, and the steps that moved the index most with their movers.
    assert "Catalogues last read: models.dev on 2026-07-01" in text
    moved = pg.locator("article table:has(th:has-text('Share of the step')) tbody tr")
    assert moved.count() >= 10
    assert pg.locator("#price-of-capability").count() == 1
    assert pg.locator("a[href='https://a16z.com/llmflation-llm-inference-cost/']").count() == 1
    assert pg.locator("a[href='https://epoch.ai/data-insights/llm-inference-price-trends']"
                      ).count() == 1
    assert f"{int(last['listed']):,} listed on {last['date']}" in text
    # One table row per cost-to-serve row, each with its result's link out.
    rows = pg.locator("article table:has(th:has-text('Cheapest ÷ hardware')) tbody tr")
    assert rows.count() == len(costs)
    for r in costs[:3]:
        assert pg.locator(f"a[href='{r['details_url']}']").count() >= 1
    # Every chart is drawn and shown.
    charts = pg.locator("article img[src*='economics-']")
    assert charts.count() == 4
    assert pg.evaluate("[...document.querySelectorAll('article img')].every("
                       "i => i.complete && i.naturalWidth > 0)")
    for width, height in ((1280, 900), (390, 844)):
        pg.set_viewport_size({"width": width, "height": height})
        assert pg.evaluate("document.documentElement.scrollWidth") <= width
        # Every table fits at 1280 px; on a phone a wide one scrolls in a box a keyboard
        # reaches, and none splits a number (issue 52).
        if width == 1280:
            assert pg.evaluate(_SCROLLING_TABLES) == 0, scheme
        laid = pg.evaluate(SPLIT)
        assert (laid["split"], laid["unreachable"]) == ([], []), (scheme, width)
        for n in range(charts.count()):
            box = charts.nth(n).bounding_box()
            assert box and box["x"] >= 0 and box["x"] + box["width"] <= width
        shot(pg, f"40-economics-{width}px-{scheme}", full_page=False)
        # The segments' table: its figures whole, the table in its own box on a phone.
        pg.locator("article table").first.scroll_into_view_if_needed()
        shot(pg, f"40-economics-table-{width}px-{scheme}", full_page=False)
    context.close()
    assert errors == []


def test_data_files_are_published_with_their_columns(browser, site_url: str) -> None:  # noqa: F811
    context = browser.new_context()
    pg = context.new_page()
    pg.goto(site_url + "data/")
    for name, columns in (("index.csv", INDEX_COLUMNS), ("cost-to-serve.csv", COST_COLUMNS),
                          ("index-contributions.csv", CONTRIBUTION_COLUMNS),
                          ("launch-prices.csv", LAUNCH_COLUMNS)):
        link = pg.locator(f"a[href$='{name}']").first
        assert link.count() == 1, name
        body = pg.evaluate("async u => await (await fetch(u)).text()",
                           link.evaluate("a => a.href"))
        assert body.splitlines()[0] == ",".join(columns)
        for column in columns:  # each column is explained on the Data page
            assert pg.locator(f"text={column}").count() >= 1, column
    context.close()


@pytest.mark.parametrize("path", ["", f"briefings/{EDITIONS[-1]}/"])
def test_an_editions_same_model_line_states_the_files_figures_and_links_the_page(
        browser, site_url: str, bundled_site: Path, path: str) -> None:  # noqa: F811
    """The home page and the newest edition carry the line; its label leads to the page."""
    blend = {r["date"]: r for r in _blend(bundled_site)}
    day, previous = EDITIONS[-1], EDITIONS[-2]
    dates = [dt.date.fromisoformat(d) for d in blend]
    year = year_before(dates, dt.date.fromisoformat(day)).isoformat()
    since = float(blend[day]["index"]) / float(blend[previous]["index"]) - 1
    over_year = float(blend[day]["index"]) / float(blend[year]["index"]) - 1
    context = browser.new_context(viewport={"width": 390, "height": 844})
    pg = context.new_page()
    pg.goto(site_url + path)
    item = pg.locator("li", has=pg.locator("a:has-text('Same-model prices')")).first
    line = item.inner_text()
    # No catalogue was read after 2026-08-21: the line says when each was instead.
    assert _percent(since) == "unchanged"
    assert "no catalogue was read again since the last edition" in line
    assert "genai-prices last read on 2026-08-21" in line
    assert re.search(re.escape(_percent(over_year)) + " over the last 12 months", line), line
    item.locator("a:has-text('Same-model prices')").click()
    pg.wait_for_load_state()
    assert pg.url.endswith("economics/#same-model-index")
    assert pg.locator("#same-model-index").is_visible()
    context.close()


@pytest.mark.parametrize("name", ["economics-index", "economics-segments", "economics-cost-to-serve",
                                  "economics-launch-prices"])
def test_economics_charts_show_every_label_inside_and_apart(browser, site_url: str,  # noqa: F811
                                                            name: str) -> None:
    drawn = _laid_out(browser, f"{site_url}charts/{name}.svg")
    labels = {"economics-index": ["same listings (chained index)", "everything listed (average)",
                                  "index (first date = 100)"],
              "economics-segments": ["All listings", "index (first date = 100)"],
              "economics-cost-to-serve": ["hardware cost, lowest (full load)", "cheapest listing",
                                          "median listing", "USD per million output tokens (log scale)",
                                          "llama2-70b"],
              "economics-launch-prices": ["median launch price of the quarter's new models",
                                          "USD per Mtok, 3:1 blend (log)"]}[name]
    _assert_readable(drawn, labels)
