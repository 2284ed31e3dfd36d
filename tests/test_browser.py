"""The built site in headless Chromium: reading path, search, charts, console, and axe-core.

Debian's chromium driven by playwright (which downloads no browser here: ARCHITECTURE.md), against
the bundled site served on 127.0.0.1. Skipped when chromium, playwright or axe-core is missing,
failing instead under CI=true. `make screenshots` runs these tests with BRIEF_SCREENSHOTS=1, and
they save what they looked at in test-artifacts/screenshots/ for a reviewer.
"""

from __future__ import annotations

import csv
import functools
import http.server
import io
import math
import os
import re
import shutil
import subprocess
import threading
from collections.abc import Iterator
from pathlib import Path

import pytest
from conftest import IN_CI, REPO

CHROMIUM = Path("/usr/bin/chromium")
CHROMIUM_ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking",
                 "--disable-component-update", "--no-first-run"]
AXE = REPO / "node_modules" / "axe-core" / "axe.min.js"
SHOTS = REPO / "test-artifacts" / "screenshots"
SCREENSHOTS = os.environ.get("BRIEF_SCREENSHOTS") == "1"
"""Save screenshots (`make screenshots`). No test reads them, and taking them, in both schemes,
was a sixth of the browser tests' time (a full-page shot of a long page: seconds)."""
EDITIONS = ["2026-08-21", "2026-09-04", "2026-09-12", "2026-09-25", "2026-10-16", "2026-11-20"]


def _missing(what: str) -> None:
    if IN_CI:
        pytest.fail(f"{what} is missing and CI=true: the browser tests must run")
    pytest.skip(f"{what} is missing")


def _ensure_axe() -> Path | None:
    if not AXE.exists() and shutil.which("npm"):
        subprocess.run(["npm", "install", "--no-save", "--no-audit", "--no-fund", "axe-core"],
                       cwd=REPO, capture_output=True, timeout=120, check=False)
    return AXE if AXE.exists() else None


def serving(folder: Path) -> Iterator[str]:
    """Serve `folder` by a stdlib server on 127.0.0.1, on a free port; yield its URL."""
    class Quiet(http.server.SimpleHTTPRequestHandler):
        def log_message(self, *args: object) -> None:
            pass

    handler = functools.partial(Quiet, directory=str(folder))
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}/"
    finally:
        server.shutdown()
        server.server_close()


@pytest.fixture(scope="session")
def site_url(bundled_site: Path) -> Iterator[str]:
    """The bundled site, served on 127.0.0.1."""
    yield from serving(bundled_site)


@pytest.fixture(scope="session")
def few_url(few_models_site: Path) -> Iterator[str]:
    """The site of the few models' sources (conftest.few_models_site), served on 127.0.0.1."""
    yield from serving(few_models_site / "public")


@pytest.fixture(scope="module")
def browser():
    """One Chromium for this module. Not per session: Playwright's sync API keeps an event loop
    running while it is open, and other modules' tests call asyncio.run."""
    try:
        from playwright.sync_api import sync_playwright
    except ImportError:
        _missing("playwright")
    if not CHROMIUM.exists():
        _missing(str(CHROMIUM))
    with sync_playwright() as p:
        b = p.chromium.launch(executable_path=str(CHROMIUM), args=CHROMIUM_ARGS)
        yield b
        b.close()


@pytest.fixture(scope="module")
def reader(browser):
    """One browser profile for this module's pages (`page`, axe's), as one reader's browser:
    each test opens a page of its own in it, and leaves it (`leave`). A profile per test cost
    Chromium 0.5 s of CPU more a test, a renderer process and caches started cold (ten loads of
    the Archive: 10.1 s of CPU in a profile each, 5.3 s in one)."""
    context = browser.new_context(color_scheme="light", viewport={"width": 1280, "height": 900})
    yield context
    context.close()


def leave(pg) -> None:
    """Close a page of `reader`, with what the site stored on its origin (Material's palette
    choice) cleared first, so that the next test's page starts as a new reader's would."""
    if pg.url.startswith("http"):
        pg.evaluate("() => { localStorage.clear(); sessionStorage.clear(); }")
    pg.close()


@pytest.fixture
def page(reader):
    """A fresh page that records console errors and failed requests; asserts none at the end."""
    pg = reader.new_page()
    errors: list[str] = []
    pg.on("console", lambda m: errors.append(f"console: {m.text}") if m.type == "error" else None)
    pg.on("pageerror", lambda e: errors.append(f"page error: {e}"))
    # A request the browser itself cancels (ERR_ABORTED: the page navigated on while Material was
    # still fetching sitemap.xml or the favicon) is not a failure of the site; any other is.
    pg.on("requestfailed", lambda r: None if r.failure == "net::ERR_ABORTED" else errors.append(
        f"request failed: {r.url} ({r.failure})"))
    pg.errors = errors
    yield pg
    found = list(errors)  # before closing, which cancels whatever is still in flight
    leave(pg)
    assert found == []


def switch_scheme(page, scheme: str) -> None:
    """Show the loaded page in `scheme` as a load in that scheme would: the media query, and
    Material's palette (set from it by a script as the page loads, and not followed after)."""
    page.emulate_media(color_scheme=scheme)
    material = {"light": "default", "dark": "slate"}[scheme]
    if page.evaluate("() => typeof document$ !== 'undefined'"):  # Material's script ran
        page.evaluate(f"""() => {{
            const input = document.querySelector('input[data-md-color-scheme="{material}"]');
            if (input && document.body.dataset.mdColorScheme !== "{material}") input.click(); }}""")
        page.wait_for_function(f"() => document.body.dataset.mdColorScheme === '{material}'")


def market_rows(site: Path) -> list[dict[str, str]]:
    """The rows of a built site's data/market.csv: the Market page's table, row for row."""
    with (site / "data" / "market.csv").open(encoding="utf-8", newline="") as f:
        return list(csv.DictReader(f))


def resize(page, width: int, height: int, scripts: bool = True) -> None:
    """Make the viewport `width` × `height` and wait until the page's scripts have handled it:
    resize events go out before the next frame's animation callbacks (tables.js marks its
    boxes then). Without scripts there is nothing to wait for (nor any frame callback)."""
    page.set_viewport_size({"width": width, "height": height})
    if scripts:
        page.evaluate("() => new Promise(done => requestAnimationFrame(() => "
                      "requestAnimationFrame(done)))")


def shot(page, name: str, full_page: bool = True) -> None:
    """Save the page as a reviewer would look at it, when SCREENSHOTS."""
    if not SCREENSHOTS:
        return
    SHOTS.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=str(SHOTS / f"{name}.png"), full_page=full_page)


def test_reading_path_home_edition_chart_search_archive(page, site_url: str) -> None:
    page.goto(site_url)
    assert EDITIONS[-1] in page.locator("h1").first.inner_text()
    shot(page, "01-home")

    page.get_by_role("link", name="All editions").first.click()
    page.wait_for_url("**/archive/")
    latest = page.locator(f'a[href$="briefings/{EDITIONS[-1]}/"]').first
    latest.click()
    page.wait_for_url(f"**/briefings/{EDITIONS[-1]}/")
    assert "Context & numbers" in page.locator("article").inner_text()
    # Every image of the edition says what it shows (the figure lanes add charts here).
    for img in page.locator("article img").all():
        assert img.is_visible() and (img.get_attribute("alt") or "").strip()
    shot(page, "02-latest-edition")

    page.goto(site_url + "archive/")
    chart = page.locator("article img.chart").first
    chart.scroll_into_view_if_needed()
    assert chart.is_visible()
    assert chart.evaluate("img => img.complete && img.naturalWidth") > 0  # the SVG loaded
    assert chart.get_attribute("alt").startswith("Bar chart: Editions per month.")
    assert page.locator('a[href$="data/editions-per-month.csv"]').count() == 1
    listed = {a.get_attribute("href").rstrip("/").rsplit("/", 1)[-1]
              for a in page.locator("article li a").all()}
    assert set(EDITIONS) <= listed
    shot(page, "03-archive")

    page.goto(site_url)
    search = page.locator("input.md-search__input")
    search.click()
    # Typed key by key: Material's search listens to key events, which fill() does not send.
    search.press_sequentially("MLPerf", delay=20)
    results = page.locator(".md-search-result__item a")
    results.first.wait_for(timeout=10_000)
    hrefs = [a.get_attribute("href") for a in results.all()]
    # Every title says MLPerf; the edition whose story is about MLPerf v6.1 must be among them.
    assert any("briefings/2026-10-16/" in h for h in hrefs), hrefs
    shot(page, "04-search-mlperf")

    page.goto(site_url + "data/")
    shot(page, "05-data")


AXE_PAGES = ["", f"briefings/{EDITIONS[2]}/", "archive/", "about/", "data/", "prices/", "market/",
             "hardware/", "models/", "models/deepseek-deepseek-v4-flash/", "models/openai-o3/",
             "models/deepseek-r1-0528/", "discrepancies/", "changes/", "changes/2026-03/",
             "economics/", "providers/", "providers/wandb/", f"briefings/{EDITIONS[0]}/email.html"]
PHONE_AXE = ["market/", "discrepancies/", "models/deepseek-r1-0528/", "prices/", "economics/",
             "hardware/", "changes/2026-03/", "providers/wandb/",
             f"briefings/{EDITIONS[0]}/email.html"]
"""The pages axe also checks at 390 px: issue 39 changed what they show on a phone, issue 52
how their tables scroll (a box of its own, focusable and named) and how an e-mail fits."""


REPEATS = 20
"""Of a run of siblings of one kind, how many at each end axe checks."""


@pytest.mark.parametrize("path", AXE_PAGES)
def test_no_serious_accessibility_violations(reader, site_url: str, path: str,
                                            request: pytest.FixtureRequest) -> None:
    """Every rule in the light scheme, and contrast again in the dark one, on one load: at
    1280 px, then at 390 px for PHONE_AXE. The dark scheme changes colours and nothing else
    (Material's palette, extra.css); a page made narrower lays out as one loaded narrow (a
    phone's layout is CSS media queries; tables.js marks its scrolling boxes again on resize).
    The Market of the few models' site (few_url): axe reads 40 of its rows either way (below),
    and the bundled one's 6,460 take 10 s to load."""
    axe = _ensure_axe()
    if axe is None:
        _missing(f"axe-core ({AXE}; `npm install --no-save axe-core`)")
    pg = reader.new_page()
    pg.goto((request.getfixturevalue("few_url") if path == "market/" else site_url) + path)
    pg.add_script_tag(path=str(axe))
    # Of a long run of siblings of one kind (a table's rows, a list's items, the Models page's
    # links, the Discrepancies page's groups), the first and last REPEATS are kept and the rest
    # taken out before axe runs: each comes from the same code as its neighbours. axe over the
    # Market page's 3,140 rows took 100 s a scheme (excluding them by selector, half of that);
    # over the Models page's 7,500 links, 9 s with only rows and list items cut to 200, 1.4 s so.
    pg.evaluate("""repeats => {
        document.querySelectorAll('table').forEach(table => [  // over all its row groups
            ...table.querySelectorAll(':scope > tbody > tr')].slice(repeats, -repeats).forEach(
                row => row.remove()));
        for (const parent of document.querySelectorAll('body, body *')) {
            const kinds = {};
            for (const child of parent.children) (kinds[child.tagName] ??= []).push(child);
            for (const same of Object.values(kinds))
                same.slice(repeats, -repeats).forEach(el => el.remove());
        } }""", REPEATS)
    # resultTypes: the passing nodes, which we do not read, are not collected and sent back
    # (axe over a month of changes: 20 s with them, 6 s without).
    every = "{resultTypes: ['violations']}"
    contrast = "{resultTypes: ['violations'], runOnly: ['color-contrast']}"
    runs = [(1280, "light", every), (1280, "dark", contrast)]
    if path in PHONE_AXE:  # dark first: one scheme switch fewer
        runs += [(390, "dark", contrast), (390, "light", every)]
    bad = {}
    for width, scheme, rules in runs:
        if pg.viewport_size["width"] != width:
            resize(pg, width, 900)
        switch_scheme(pg, scheme)
        result = pg.evaluate(f"async () => await axe.run(document, {rules})")
        bad[width, scheme] = [(v["id"], v["impact"], len(v["nodes"]), v["nodes"][0]["target"])
                              for v in result["violations"]
                              if v["impact"] in ("serious", "critical")]
    leave(pg)
    assert bad == {run[:2]: [] for run in runs}


# The Market's mechanisms (sorts, filters, the calculator, a past date) are tried on the site of
# the few models' sources (conftest.few_models_site): its 666 rows come from the same code as the
# bundled site's 6,460, which take Chromium 10 s to lay out at each load and each re-sort. The
# bundled Market itself is loaded by test_browser_layout.py's test of its table.


def test_market_page_sorts_filters_and_fits_a_phone(page, few_url: str,
                                                    few_models_site: Path) -> None:
    listed = market_rows(few_models_site / "public")
    page.goto(few_url + "market/")
    rows = page.locator("#market-table tbody tr")
    total = rows.count()
    # Every row of data/market.csv: each plausible text model with a token price, curated and
    # from the catalogues (issue 36: implausible listings held back, image, embedding and audio
    # listings left out, by the build).
    assert total == len(listed) > 600
    count = page.locator("#market-count")
    assert count.inner_text() == f"{total} of {total} models"

    def column(n: int) -> list[str]:
        return page.locator(f"#market-table tbody tr:not([hidden]) td:nth-child({n})").evaluate_all(
            "cells => cells.map(c => c.getAttribute('data-value') ?? c.textContent)")

    def ranks(n: int) -> list[tuple[int, float | None]]:
        """Each row's place in a price's order: priced (0), unpriced (1), free (2 and 3)."""
        return [(2 * free + (v == ""), float(v) if v else None) for v, free in rows.evaluate_all(
            f"rs => rs.map(r => [r.cells[{n - 1}].getAttribute('data-value'), "
            "r.hasAttribute('data-free')])")]

    def priced(n: int) -> list[float]:
        return [v for r, v in ranks(n) if r == 0]

    # market.js puts the calculator's Cost and Tokens per $ after Model: Input is the 5th column.
    assert page.locator("#market-table th").nth(2).inner_text() == "Cost, $"
    # Without a click the order is the build's: output price ascending, free models last.
    # Input and Output: the columns a reader needs first come first (issue 39).
    free = rows.evaluate_all("rs => rs.map(r => [r.cells[4], r.cells[6]].some("
                             "c => c.textContent === 'free'))")
    assert free == sorted(free) and 0 < sum(free) < total
    outputs = [float(v) for v, f in zip(column(7), free) if v and not f]
    assert outputs == sorted(outputs) and outputs[0] > 0
    shot(page, "20-market-by-output", full_page=False)
    # Input's heading links to the table sorted by input (market/by-input/, for a reader
    # without JavaScript): market.js sorts in place instead, each click the other way.
    page.locator("#market-table th").nth(4).locator("a").click()  # Input, ascending
    assert page.url == few_url + "market/"
    assert priced(5) == sorted(priced(5))
    page.locator("#market-table th").nth(4).locator("a").click()  # and descending
    assert priced(5) == sorted(priced(5), reverse=True)
    assert page.locator("#market-table th").nth(4).get_attribute("aria-sort") == "descending"
    # Batch input, beside Batch output: a button (no page of its own), the rows with a batch
    # input price first, cheapest first, free ones after them, then the rest.
    batch = page.locator("#market-table th").nth(9)
    assert batch.inner_text() == "Batch input"
    batch.locator("button").click()
    assert batch.get_attribute("aria-sort") == "ascending"
    assert page.locator("#market-table th[aria-sort]").count() == 1
    ranked = ranks(10)
    assert [r for r, _ in ranked] == sorted(r for r, _ in ranked)
    values = [v for r, v in ranked if r == 0]
    assert values == sorted(values) and len(values) == sum(
        r["batch_input_usd_per_mtok"] != "" and r["free"] == "False" for r in listed) > 3

    page.select_option("#market-provider", "deepseek")
    providers = set(column(1))
    assert providers == {"deepseek"}
    page.locator("#market-search").fill("v4-flash")
    assert column(2) == ["deepseek-v4-flash"]
    assert count.inner_text() == f"1 of {total} models"
    # The curated record wins over the catalogues for the same model, and links its source.
    source = page.locator("#market-table tbody tr:not([hidden]) td:nth-child(13) a")
    assert source.inner_text() == "DeepSeek (curated)"
    assert source.get_attribute("href").startswith("https://")

    page.set_viewport_size({"width": 390, "height": 844})
    page.locator("#market-search").fill("")
    page.select_option("#market-provider", "")
    # The table scrolls inside its box; the page itself does not scroll sideways.
    assert page.evaluate("document.documentElement.scrollWidth") <= 390
    shot(page, "21-market-390px", full_page=False)


# Each row as the calculator left it: model, provider, the JS figures (Cost's and Tokens per $'s
# data-value and text), the build's figures of a preset (`data-build-<id>`), and `data-free`.
_CALCULATED = """(rows, id) => rows.map(r => ({
  model: r.cells[1].textContent, provider: r.getAttribute('data-provider'),
  usd: r.cells[2].getAttribute('data-value'), usd_text: r.cells[2].textContent,
  tokens: r.cells[3].getAttribute('data-value'), tokens_text: r.cells[3].textContent,
  build: id === null ? null : r.getAttribute('data-build-' + id),
  free: r.hasAttribute('data-free'), hourly: r.hasAttribute('data-peak'),
  cached: r.cells[5].getAttribute('data-value') !== ''}))"""


def test_market_calculator_matches_the_build_for_every_preset(page, few_url: str,
                                                             few_models_site: Path) -> None:
    """The page's figures (market.js) against the build's (tables/market.py), row by row, for
    each preset of editions.yaml's profiles; then a workload of our own against a hand sum."""
    listed = market_rows(few_models_site / "public")
    page.goto(few_url + "market/")
    form = page.locator("#market-calculator")
    assert form.is_visible()
    select = page.locator("#market-preset")
    presets = [o.get_attribute("value") for o in select.locator("option").all()]
    assert presets == ["", "chat-3-1", "cached-agent"]  # your own, then editions.yaml's profiles
    assert select.input_value() == "chat-3-1"  # the fields start as the first profile
    rows = page.locator("#market-table tbody tr")
    priced = {}
    for n, profile in enumerate(presets[:0:-1]):  # the last first: each is picked, not defaulted
        select.select_option(profile)
        assert page.locator("#market-input-tokens").input_value() == {
            "chat-3-1": "750000", "cached-agent": "900000"}[profile]
        got = rows.evaluate_all(_CALCULATED, profile)
        checked = []
        for r in got:
            if r["build"] is None:  # free or unpriced: no figure, and nothing to rank
                assert (r["usd"], r["tokens"], r["tokens_text"]) == ("", "", "")
                assert r["usd_text"] == ("free" if r["free"] else ""), r
                continue
            usd, _, tokens = r["build"].partition(" ")
            assert math.isclose(float(r["usd"]), float(usd), rel_tol=1e-9, abs_tol=0), r
            assert r["tokens"] == "" if not tokens else math.isclose(
                float(r["tokens"]), float(tokens), rel_tol=1e-9, abs_tol=0), r
            checked.append(r)
        # Every priced row, among them DeepSeek's v4-pro (peak and off-peak prices) and models
        # with a cached-input price (which the second preset's cache hits bill at).
        # A preset with cache hits leaves out a model whose list has no cached-input price.
        priced[profile] = len(checked)
        if profile == "cached-agent":
            assert all(r["cached"] or r["hourly"] for r in checked)
        else:  # every row of data/market.csv with an input and an output price, not free
            assert len(checked) == sum(r["input_usd_per_mtok"] != "" and r["free"] == "False"
                                       and r["output_usd_per_mtok"] != "" for r in listed)
        assert any(r["free"] for r in got)
        assert ("deepseek", "deepseek-v4-pro") in {(r["provider"], r["model"]) for r in checked
                                                   if r["hourly"]}
        assert sum(r["cached"] and not r["hourly"] for r in checked) > 100
        if n == 0:
            shot(page, "22-market-calculator", full_page=False)
    assert priced["cached-agent"] < priced["chat-3-1"]

    # A workload of our own: 2,000,000 input tokens, half of them cache hits, 500,000 output,
    # a quarter of the traffic off-peak. By hand from the curated files' prices:
    #   DeepSeek v4-pro, off-peak (the rest of the week) 0.66 / 0.022 cached / 1.98 output,
    #   peak 1.32 / 0.044 / 3.96: off-peak 2 × (0.66 + 0.022) / 2 + 0.5 × 1.98 = 1.672,
    #   peak 2 × (1.32 + 0.044) / 2 + 0.5 × 3.96 = 3.344; 0.25 × 1.672 + 0.75 × 3.344 = 2.926.
    #   OpenAI gpt-5.5, one price all week, 5 / 0.5 / 30: 2 × (5 + 0.5) / 2 + 0.5 × 30 = 20.5.
    page.locator("#market-input-tokens").fill("2000000")
    page.locator("#market-output-tokens").fill("500000")
    page.locator("#market-cache-hit").fill("50")
    page.locator("#market-offpeak").fill("25")
    assert select.input_value() == ""
    assert "2,000,000 input tokens (50 % cache hits)" in page.locator("#market-workload").inner_text()
    mine = {(r["provider"], r["model"]): r for r in rows.evaluate_all(_CALCULATED, None)}
    for key, usd in ((("deepseek", "deepseek-v4-pro"), 2.926), (("openai", "gpt-5.5"), 20.5)):
        assert math.isclose(float(mine[key]["usd"]), usd, rel_tol=1e-9), mine[key]
        assert math.isclose(float(mine[key]["tokens"]), 2_500_000 / usd, rel_tol=1e-9)
    assert mine[("deepseek", "deepseek-v4-pro")]["usd_text"] == "2.93"
    assert mine[("openai", "gpt-5.5")]["tokens_text"] == "121,951"

    # Sortable like the other columns; free and unpriced rows last either way.
    page.locator("#market-table th").nth(2).locator("button").click()
    costs = rows.evaluate_all("rs => rs.map(r => r.cells[2].getAttribute('data-value'))")
    priced = [float(v) for v in costs if v]
    assert priced == sorted(priced) and costs[:len(priced)] == [v for v in costs if v]
    # The sort holds as the workload changes, and each row keeps its own prices. No output now:
    # DeepSeek v4-pro 0.25 × 2 × (0.66 + 0.022) / 2 + 0.75 × 2 × (1.32 + 0.044) / 2 = 1.1935.
    page.locator("#market-output-tokens").fill("0")
    costs = [float(v) for v in rows.evaluate_all(
        "rs => rs.map(r => r.cells[2].getAttribute('data-value'))") if v]
    assert costs == sorted(costs)
    mine = {(r["provider"], r["model"]): r for r in rows.evaluate_all(_CALCULATED, None)}
    assert math.isclose(float(mine[("deepseek", "deepseek-v4-pro")]["usd"]), 1.1935, rel_tol=1e-9)
    assert math.isclose(float(mine[("openai", "gpt-5.5")]["usd"]), 5.5, rel_tol=1e-9)

    page.set_viewport_size({"width": 390, "height": 844})
    form.scroll_into_view_if_needed()
    assert page.evaluate("document.documentElement.scrollWidth") <= 390
    for box in (page.locator(f"#market-{f}").bounding_box()
                for f in ("input-tokens", "output-tokens", "cache-hit", "offpeak")):
        assert box["x"] >= 0 and box["x"] + box["width"] <= 390
    shot(page, "23-market-calculator-390px", full_page=False)


def test_market_calculator_prices_a_past_date_as_brief_price_does(page, few_url: str,
                                                                   few_models_site: Path) -> None:
    """"Prices on" a past quarter's end: the table becomes the market of that day (the rows of
    data/market-on/<day>.json, which `brief price --at` reads too), each preset's Cost is the
    build's blend of those prices, each Source names its snapshot and links to its commit; back
    to the newest edition, the page's own rows."""
    import datetime as dt
    import json

    from pipeline.load.sources import load_sources
    from pipeline.tables.market import calculator_profiles, preset_figures
    from pipeline.tables.price_at import price_at

    day = "2025-09-30"
    doc = json.loads((few_models_site / "public" / "data" / "market-on" / f"{day}.json"
                      ).read_text("utf-8"))
    page.goto(few_url + "market/")
    rows = page.locator("#market-table tbody tr")
    total = rows.count()
    page.select_option("#market-on", day)
    status = page.locator("#market-on-status")
    page.wait_for_function("document.getElementById('market-on-status').textContent"
                           ".indexOf('as they stood') !== -1")
    assert f"at the end of {day}" in status.inner_text()
    assert rows.count() == len(doc["rows"]) and 50 < len(doc["rows"]) < total
    assert page.locator("#market-count").inner_text() == f"{len(doc['rows'])} of " \
        f"{len(doc['rows'])} models"

    sources = load_sources(few_models_site)
    profile = calculator_profiles(sources.series.profiles)[0]
    page.select_option("#market-preset", profile.id)
    got = {(r["provider"], r["model"]): r for r in rows.evaluate_all(_CALCULATED, None)}
    assert len(got) == len(doc["rows"])
    # The build's blend of that day's prices, model by model, from the histories themselves.
    from pipeline.tables.market import market_table_of

    past = market_table_of(sources, dt.date.fromisoformat(day))
    figures = preset_figures(past, [profile])[f"{profile.id}_usd_per_mtok"]
    checked = 0
    for (provider, model), usd_per_mtok in zip(zip(past["provider"], past["model"]), figures):
        r = got[(provider, model)]
        if math.isnan(usd_per_mtok):
            assert r["usd"] == "", r
            continue
        assert math.isclose(float(r["usd"]), usd_per_mtok, rel_tol=1e-9), r  # 1 Mtok: USD/Mtok
        checked += 1
    assert checked > 50

    # One model as `brief price` gives it: each provider's workload price, snapshot and commit.
    answer = price_at(sources, "deepseek-r1-0528", dt.date.fromisoformat(day), profile)
    assert len(answer) >= 5
    links = page.locator("#market-table tbody tr").evaluate_all(
        """rs => rs.map(r => { const a = r.cells[12].querySelector('a');  // Source
                 return [r.getAttribute('data-provider'), r.cells[1].textContent,
                         r.cells[12].textContent, a ? a.href : null]; })""")
    shown = {(p, m): (text, href) for p, m, text, href in links}
    for a in answer.itertuples(index=False):
        text, href = shown[(a.provider, a.model)]
        assert text == f"{a.source}, {a.snapshot[:10]}"
        if a.commit:
            assert href.endswith(f"/commit/{a.commit}"), (text, href)
        if not math.isnan(a.workload_usd_per_mtok):
            assert math.isclose(float(got[(a.provider, a.model)]["usd"]),
                                a.workload_usd_per_mtok, rel_tol=1e-9)
    # Each model with a page of its own is linked to it, as on the page's own rows.
    at = {c: i for i, c in enumerate(doc["columns"])}
    pages = {(r[at["provider"]], r[at["model"]]): r[at["page"]] for r in doc["rows"]}
    model_links = page.locator("#market-table tbody tr").evaluate_all(
        """rs => rs.map(r => { const a = r.cells[1].querySelector('a');
                 return [r.getAttribute('data-provider'), r.cells[1].textContent,
                         a ? a.getAttribute('href') : null]; })""")
    assert sum(1 for _, _, href in model_links if href) > 50
    assert {(p, m): href for p, m, href in model_links} == {
        key: f"../models/{name}/" if name else None for key, name in pages.items()}
    shot(page, "24-market-on-a-past-date", full_page=False)

    page.select_option("#market-on", "")
    assert rows.count() == total
    assert status.inner_text() == ""


def test_market_mode_batch_shows_the_rows_with_batch_prices_at_the_builds_batch_figures(
        page, few_url: str, few_models_site: Path) -> None:
    """Mode batch: exactly the rows of data/market.csv with a batch input and output price, each
    preset's Cost at batch prices as the build computes it (`data-build-batch-<id>`), with the
    provider filter on top; realtime again: every row, at the realtime figures."""
    batch = {(r["provider"], r["model"]) for r in market_rows(few_models_site / "public")
             if r["batch_input_usd_per_mtok"] and r["batch_output_usd_per_mtok"]}
    page.goto(few_url + "market/")
    rows = page.locator("#market-table tbody tr")
    shown = page.locator("#market-table tbody tr:not([hidden])")
    count = page.locator("#market-count")
    summary = page.locator("#market-workload")
    total = rows.count()
    assert page.locator("#market-mode").input_value() == "realtime"
    assert count.inner_text() == f"{total} of {total} models"
    assert 3 < len(batch) < total  # 7 of 666 here, 68 of 6,460 in the bundled sources

    page.select_option("#market-mode", "batch")
    assert count.inner_text() == f"{len(batch)} of {total} models"
    assert summary.inner_text().startswith("Priced at batch prices")
    for profile in ("cached-agent", "chat-3-1"):
        page.select_option("#market-preset", profile)
        got = shown.evaluate_all(_CALCULATED, f"batch-{profile}")
        assert {(r["provider"], r["model"]) for r in got} == batch
        checked = 0
        for r in got:
            if r["build"] is None:  # free, or cache hits (no cached-input batch price): no cost
                assert (r["usd"], r["tokens"]) == ("", ""), r
                assert r["usd_text"] == ("free" if r["free"] else ""), r
                continue
            usd, _, tokens = r["build"].partition(" ")
            assert math.isclose(float(r["usd"]), float(usd), rel_tol=1e-9, abs_tol=0), r
            assert math.isclose(float(r["tokens"]), float(tokens), rel_tol=1e-9, abs_tol=0), r
            checked += 1
        # Cache hits: no model has a batch cost; none: every priced batch row has one.
        assert checked == (0 if profile == "cached-agent" else sum(not r["free"] for r in got))
    # At batch prices, not the realtime ones: OpenAI's gpt-5.5 (sources/prices/openai.yaml)
    # 0.75 × 2.5 + 0.25 × 15 = 5.625 for chat-3-1's million tokens, against 0.75 × 5 + 0.25 × 30
    # = 11.25.
    gpt = {(r["provider"], r["model"]): r for r in got}[("openai", "gpt-5.5")]
    assert math.isclose(float(gpt["usd"]), 5.625, rel_tol=1e-9), gpt
    shot(page, "22-market-batch", full_page=False)

    # With the provider filter on top: its batch rows only, and the count says so.
    page.select_option("#market-provider", "openai")
    openai = {k for k in batch if k[0] == "openai"}
    assert {(r["provider"], r["model"]) for r in shown.evaluate_all(_CALCULATED, None)} == openai
    assert count.inner_text() == f"{len(openai)} of {total} models"
    page.select_option("#market-provider", "")

    # Realtime again: every row, each at its realtime figure.
    page.select_option("#market-mode", "realtime")
    assert count.inner_text() == f"{total} of {total} models" and shown.count() == total
    assert summary.inner_text().startswith("Priced: ")
    again = {(r["provider"], r["model"]): r for r in rows.evaluate_all(_CALCULATED, "chat-3-1")}
    assert math.isclose(float(again[("openai", "gpt-5.5")]["usd"]), 11.25, rel_tol=1e-9)
    for r in again.values():
        if r["build"] is not None:
            assert math.isclose(float(r["usd"]), float(r["build"].partition(" ")[0]),
                                rel_tol=1e-9, abs_tol=0), r


def test_market_calculator_is_hidden_and_input_sorts_without_javascript(
        browser, few_url: str, few_models_site: Path) -> None:
    context = browser.new_context(java_script_enabled=False, viewport={"width": 1280, "height": 900})
    pg = context.new_page()
    pg.goto(few_url + "market/")
    hidden = [pg.locator(f).is_hidden() for f in ("#market-calculator", ".market-filters")]
    heads = pg.locator("#market-table th").all_inner_texts()
    assert hidden == [True, True] and heads[:3] == ["Provider", "Model", "Input"]
    assert pg.locator("#market-table th").nth(4).get_attribute("aria-sort") == "ascending"
    # Input's heading is a link to the table sorted by input price, cheapest first: priced
    # rows, then those without an input price, then the free ones (never ranked).
    pg.locator("#market-table th").nth(2).get_by_role("link", name="Input").click()
    pg.wait_for_url(few_url + "market/by-input/")
    assert pg.locator("#market-table th").nth(2).get_attribute("aria-sort") == "ascending"
    ranked = [(2 * free + (v == ""), float(v) if v else None)
              for v, free in pg.locator("#market-table tbody tr").evaluate_all(
                  "rs => rs.map(r => [r.cells[2].getAttribute('data-value'), "
                  "r.hasAttribute('data-free')])")]
    context.close()
    assert [r for r, _ in ranked] == sorted(r for r, _ in ranked)
    inputs = [v for r, v in ranked if r == 0]
    assert inputs == sorted(inputs) and len(inputs) == sum(
        r["input_usd_per_mtok"] != "" and r["free"] == "False"
        for r in market_rows(few_models_site / "public")) > 600


_MODEL_HEADS = ["From", "Input", "Cached input", "Output", "Source"]


# (path, screenshot name, the header cells of its first table, whether every table has them)
@pytest.mark.parametrize(("path", "name", "heads", "every_table"), [
    ("models/deepseek-deepseek-v4-flash/", "24-model-deepseek-v4-flash", _MODEL_HEADS, True),
    ("models/openai-o3/", "24-model-openai-o3", _MODEL_HEADS, True),
    ("models/", "24-models", ["Model", "Input", "Cached input", "Output", "Since"], False),
    # First the listings held back as implausible (issue 36), then the disagreements.
    ("discrepancies/", "25-discrepancies", ["Catalogue", "Provider", "Model", "Price", "Listed",
                                            "Other providers", "Since", "Why"], False),
    # Since issue 49, an index of the months and a page per month grouped by commit.
    ("changes/", "26-changes", ["Month", "Moves", "Cuts", "Rises", "New", "No longer listed",
                                "By catalogue"], True),
    ("changes/2026-03/", "26-changes-month", ["Provider", "Model", "Price", "Was", "Now",
                                              "Change"], True),
])
def test_model_discrepancy_and_change_pages_load_and_fit_a_phone(
        page, site_url: str, path: str, name: str, heads: list[str], every_table: bool) -> None:
    """The models, discrepancies and changes pages at a desktop's and a phone's width: images
    loaded, the tables' columns, links out or within the site, no sideways scroll at 390 px."""
    page.goto(site_url + path)
    # The Discrepancies and Changes pages fold their rows by model (issue 39): all opened.
    page.evaluate("document.querySelectorAll('article details').forEach(d => d.open = true)")
    tables = page.locator("article table")
    assert tables.count() >= 1
    for n in range(tables.count() if every_table else 1):  # a model page: one per price list
        assert tables.nth(n).locator("thead th").all_inner_texts() == heads, (path, n)
        assert tables.nth(n).locator("tbody tr").count() >= 1, (path, n)
    if path.startswith("models/") and path != "models/":  # a tracked model: its price history
        assert page.locator("article img").count() >= 1
    # Resolved against the page: an internal link starts with the site's URL.
    # A month of changes links each commit from its group's heading, a <th>.
    hrefs = page.locator("article :is(td, tbody th) a").evaluate_all("as => as.map(a => a.href)")
    assert hrefs, path
    outside = [h for h in hrefs if not h.startswith((site_url, "https://", "http://"))]
    assert outside == [], outside
    for href in sorted({h.split("#")[0] for h in hrefs if h.startswith(site_url)}):
        assert page.request.get(href).ok, href  # within the site, and there
    for width, height in ((1280, 900), (390, 844)):
        page.set_viewport_size({"width": width, "height": height})
        for img in page.locator("article img").all():
            img.scroll_into_view_if_needed()
            assert img.evaluate("img => img.complete && img.naturalWidth") > 0, (
                path, img.get_attribute("src"))
        page.evaluate("window.scrollTo(0, 0)")
        if width == 390:
            # Material wraps each table in a box that scrolls; the page itself does not.
            assert page.evaluate("document.documentElement.scrollWidth") <= width, path
        assert page.errors == [], (path, width)
        shot(page, f"{name}-{width}px", full_page=False)


# Each table of the page wider than the box it scrolls in (Material wraps each table in one).
_SCROLLING_TABLES = """() => [...document.querySelectorAll('article table')].filter(t => {
    const box = t.closest('.md-typeset__scrollwrap') ?? t.parentElement;
    return box.scrollWidth > box.clientWidth;
}).length"""


@pytest.mark.parametrize("scheme", ["light", "dark"])
def test_discrepancies_page_is_folded_by_model_and_fits_a_desktop_and_a_phone(
        browser, site_url: str, scheme: str) -> None:
    """Issue 39: the page was 31,000 px of three tables whose last columns were cut off at
    1280 px. Now one closed group per model; opened, every table fits its column at 1280 px
    and at 390 px, and the page never scrolls sideways, in either scheme."""
    context = browser.new_context(color_scheme=scheme, viewport={"width": 1280, "height": 900})
    pg = context.new_page()
    errors: list[str] = []
    pg.on("pageerror", lambda e: errors.append(str(e)))
    pg.goto(site_url + "discrepancies/")
    # Material follows the reader's preference: its dark scheme is `slate`.
    assert pg.evaluate("document.body.dataset.mdColorScheme") == (
        "slate" if scheme == "dark" else "default")
    groups = pg.locator("article details.model-group")
    assert groups.count() > 50
    assert pg.evaluate("[...document.querySelectorAll('article details')].every(d => !d.open)")
    assert pg.evaluate("document.documentElement.scrollHeight") < 10_000
    # A reader opens a group by its summary, which names the model.
    first = groups.first
    first.locator("summary").click()
    assert first.evaluate("d => d.open") and first.locator("tbody tr").first.is_visible()
    model = first.locator("summary h3").inner_text()
    assert model and model in first.locator("tbody").inner_text().casefold()
    pg.evaluate("document.querySelectorAll('article details').forEach(d => d.open = true)")
    for width, height in ((1280, 900), (390, 844)):
        pg.set_viewport_size({"width": width, "height": height})
        assert pg.evaluate("document.documentElement.scrollWidth") <= width
        assert pg.evaluate("document.documentElement.scrollWidth <= window.innerWidth")
        assert pg.evaluate(_SCROLLING_TABLES) == 0, (scheme, width)
        first.scroll_into_view_if_needed()
        shot(pg, f"27-discrepancies-open-{width}px-{scheme}", full_page=False)
    context.close()
    assert errors == []


# The smallest text of an SVG chart as shown: font size × the width it is shown at ÷ the width it
# was drawn at (matplotlib writes font sizes in the drawing's own units).
SMALLEST_TEXT_PX = """async img => {
    const svg = await (await fetch(img.src)).text();
    const drawn = new DOMParser().parseFromString(svg, 'image/svg+xml').documentElement;
    const sizes = [...svg.matchAll(/font-size: ([\\d.]+)px/g)].map(m => parseFloat(m[1]));
    return Math.min(...sizes) * img.getBoundingClientRect().width / drawn.viewBox.baseVal.width;
}"""


def _mean_luminance(png: bytes) -> float:
    from PIL import Image, ImageStat

    with Image.open(io.BytesIO(png)) as im:
        return ImageStat.Stat(im.convert("L")).mean[0]


@pytest.mark.parametrize("scheme", ["light", "dark"])
def test_prices_page_and_edition_chart_read_on_a_phone(browser, site_url: str, scheme: str) -> None:
    context = browser.new_context(color_scheme=scheme, viewport={"width": 390, "height": 844})
    pg = context.new_page()
    pg.goto(site_url + "prices/")
    assert pg.evaluate("document.documentElement.scrollWidth") <= 390
    tables = pg.locator("article .prices-table table")
    assert tables.count() == 3  # list prices, then one table per workload profile
    assert tables.nth(0).locator("thead th").all_inner_texts() == ["Model", "Input", "Cached input",
                                                                   "Output"]
    assert tables.nth(1).locator("thead th").all_inner_texts() == ["Model", "USD per Mtok",
                                                                   "Tokens per USD"]
    for n in range(3):
        # Every column fits: nothing to scroll to inside the table's box, no cell past the screen.
        assert tables.nth(n).evaluate("t => t.scrollWidth <= t.clientWidth"), n
        right = tables.nth(n).locator("td").evaluate_all(
            "tds => Math.max(...tds.map(td => td.getBoundingClientRect().right))")
        assert right <= 390, (n, right)
    # A model id is never broken across lines.
    codes = pg.locator("article .prices-table code")
    assert codes.count() > 20
    assert codes.evaluate_all("cs => cs.filter(c => c.getClientRects().length > 1).length") == 0
    # Each row links to where its price was read; each blended figure to its record's line.
    for row in tables.nth(0).locator("tbody tr").all():
        assert row.locator("a[href^='https://']").count() == 1
    for row in tables.nth(1).locator("tbody tr").all():
        href = row.locator("td").nth(1).locator("a").get_attribute("href")
        assert "/sources/prices/" in href and re.search(r"\.yaml#L\d+$", href), href
    charts = pg.locator("article img.chart")
    assert charts.count() == 3
    for img in charts.all():
        img.scroll_into_view_if_needed()
        assert img.evaluate("img => img.complete && img.naturalWidth") > 0
        assert re.search(r"\d", img.get_attribute("alt")), img.get_attribute("alt")  # its data
        assert img.evaluate(SMALLEST_TEXT_PX) >= 11, img.get_attribute("src")
        assert ("invert" in img.evaluate("i => getComputedStyle(i).filter")) == (scheme == "dark")
    captions = pg.locator("article p:has(img.chart) + p small")
    assert [("UTC" in c) for c in captions.all_inner_texts()[:2]] == [True, True]
    csv_link = pg.locator("article a[href$='data/blended-history.csv']")
    assert csv_link.count() == 1 and pg.request.get(csv_link.evaluate("a => a.href")).ok
    shot(pg, f"30-prices-390px-{scheme}")

    pg.goto(site_url + f"briefings/{EDITIONS[0]}/")
    assert pg.evaluate("document.documentElement.scrollWidth") <= 390
    chart = pg.locator("article img.chart").first
    chart.scroll_into_view_if_needed()
    # The first edition's window is the week before it: DeepSeek's V4 promotion ended in it.
    assert ("Moved in the 7 days to 2026-08-21 (first edition): DeepSeek deepseek-v4-flash from "
            "5.714 to 2.508") in (
        chart.get_attribute("alt"))
    assert chart.evaluate(SMALLEST_TEXT_PX) >= 11
    # The drawing has no background of its own: the page's shows through, dark in dark mode.
    light = _mean_luminance(chart.screenshot())
    assert light < 110 if scheme == "dark" else light > 180, light
    shot(pg, f"31-edition-chart-390px-{scheme}", full_page=False)

    pg.goto(site_url + "archive/")  # the one column chart of the site reads on a phone too
    chart = pg.locator("article img.chart").first
    chart.scroll_into_view_if_needed()
    assert chart.evaluate(SMALLEST_TEXT_PX) >= 11
    context.close()


@pytest.mark.parametrize(("query", "found"), [
    ("wandb", "providers/wandb/"),  # a provider: its page (issue 52: the search found nothing)
    ("llama 3.3", "models/llama-3-3-70b/"),
    ("DeepSeek V3.2", "models/deepseek-v3-2/"),
])
def test_search_finds_a_provider_and_a_model_by_name(page, site_url: str, query: str,
                                                    found: str) -> None:
    page.goto(site_url)
    search = page.locator("input.md-search__input")
    search.click()
    search.press_sequentially(query, delay=20)  # key by key: Material listens to key events
    hit = page.locator(f'.md-search-result__item a[href^="{site_url}{found}?"]').first
    hit.wait_for(timeout=10_000)
    hit.click()
    page.wait_for_url(f"{site_url}{found}*")
    if found.startswith("providers/"):
        assert page.locator("article h1").inner_text() == "wandb (provider)"
        shot(page, "32-search-wandb-provider", full_page=False)


@pytest.mark.parametrize("scheme", ["light", "dark"])
def test_a_provider_page_reads_on_a_desktop_and_a_phone(browser, site_url: str,
                                                        scheme: str) -> None:
    """A provider's page, reached from the index of providers (the Market's cells link to it
    too: test_provider_pages.py; the Market's 6,000 rows are slow to load here): its listings,
    moves, held-back prices and catalogues as tables that scroll in their own box, never the
    page sideways."""
    context = browser.new_context(color_scheme=scheme, viewport={"width": 1280, "height": 900})
    pg = context.new_page()
    errors: list[str] = []
    pg.on("pageerror", lambda e: errors.append(str(e)))
    pg.on("console", lambda m: errors.append(m.text) if m.type == "error" else None)
    pg.goto(site_url + "providers/")
    pg.locator('article a[href="wandb/"]').click()
    pg.wait_for_url(f"{site_url}providers/wandb/")
    assert [h.strip() for h in pg.locator("article h2").all_inner_texts()] == [
        "Listings", "Price moves", "Held back", "Where its prices come from"]
    assert pg.locator("article table").count() >= 3  # listings, held back, catalogues
    for width, height in ((1280, 900), (390, 844)):
        pg.set_viewport_size({"width": width, "height": height})
        assert pg.evaluate("document.documentElement.scrollWidth") <= width, (scheme, width)
        shot(pg, f"33-provider-{width}px-{scheme}", full_page=False)
    context.close()
    assert errors == []
