"""Issues 39 and 52's layout acceptance in headless Chromium, at 1280 and 390 px, with
JavaScript and without: no page scrolls sideways (wide content only inside a scroller of its
own, such as a table's); with JavaScript, no number of a table's cell is split over two lines
("$0.1 / 26" read as $0.1), no word of a cell that holds figures is broken inside ("unchang /
ed"), and a table wider than its column scrolls in a box of its own that a keyboard reaches and a
screen reader names; and the Market page (checked on its own: 6,460 rows, 10 s a load) shows
every column at 1280 px and model, input and output at 390 px. Layout is checked in the light
scheme only: the dark one changes colours and nothing else (extra.css, Material's palette), and
axe checks its contrast (test_browser.py).
With BRIEF_SCREENSHOTS=1, screenshots in both schemes go to test-artifacts/screenshots/."""

from __future__ import annotations

from pathlib import Path

import pytest
from test_browser import (  # noqa: F401  (browser, few_url, site_url: fixtures)
    EDITIONS,
    SCREENSHOTS,
    browser,
    few_url,
    resize,
    shot,
    site_url,
    switch_scheme,
)

PAGES = ["", f"briefings/{EDITIONS[2]}/", "prices/", "changes/", "discrepancies/",
         "models/", "models/deepseek-r1-0528/", "models/deepseek-deepseek-v4-flash/",
         "hardware/", "sources/", "data/", "archive/"]

SHOWN = {"models/deepseek-r1-0528/", "models/deepseek-deepseek-v4-flash/", "hardware/",
         "discrepancies/"}

SAMPLED = {"models": 6, "providers": 3, "changes": 1, "market": 0}
"""Of the pages one renderer makes many of (a page a model, a provider, a month of changes, a
sorted copy of the Market), the ones checked, those with the most table rows: 1,762 model pages
of two renderers (a model across its providers, a tracked model) and 157 provider pages at two
widths took minutes. tests/test_table_numbers.py checks the markup of every model and provider
page; a month of changes puts its figures in cells and dates that nowrap keeps whole (market.css),
and the largest month has the longest commit lines and names. Twice these numbers (three months)
took the sweep 20 s more, at the same renderers and style sheets."""

# Each element drawn past the viewport's right edge that no scroller of its own holds: an
# element inside a box that scrolls sideways (overflow-x auto or scroll) and itself fits is a
# table's scroller, which a reader scrolls on purpose. Material's off-canvas drawer sits left,
# and its search panel is transparent until opened.
OUTSIDE = """() => {
  const width = document.documentElement.clientWidth;
  const held = el => {  // inside a box that scrolls sideways and fits (Material's wrapper)
    for (let p = el.parentElement; p && p !== document.body; p = p.parentElement) {
      const x = getComputedStyle(p).overflowX;
      if ((x === 'auto' || x === 'scroll') && p.getBoundingClientRect().right <= width + 1)
        return true;
    }
    return false;
  };
  return [...document.querySelectorAll('body *')].filter(el => {
    const r = el.getBoundingClientRect();
    if (r.width === 0 || r.height === 0 || r.right <= width + 1) return false;
    // Drawn: not hidden, transparent or clipped away (Material's closed search panel).
    if (!el.checkVisibility({opacityProperty: true, visibilityProperty: true})) return false;
    return !held(el);
  }).slice(0, 5).map(el => el.tagName + '.' + el.className + ' ' +
    Math.round(el.getBoundingClientRect().right));
}"""


# Each number (a date, or a figure with its sign, currency and unit) and each word of letters
# of a cell with a digit, that the browser drew on more than one line; then the boxes that
# scroll sideways without being focusable and named.
SPLIT = r"""() => {
  const NUMBER = /^[~≈<>≤≥]?[−+\-]?[$€¥£]?\d[\d,.]*%?$|^\d{4}-\d{2}(-\d{2})?$/;
  const WORD = /^\p{L}+$/u;
  // Lines a range's boxes take: a box that starts below the last line's bottom starts a line.
  const lines = rects => {
    let n = 0, bottom = -Infinity;
    for (const r of [...rects].filter(r => r.width > 0).sort((a, b) => a.top - b.top)) {
      if (r.top >= bottom - 2) { n++; bottom = r.bottom; } else bottom = Math.max(bottom, r.bottom);
    }
    return n;
  };
  const split = [];
  for (const cell of document.querySelectorAll('article :is(td, th)')) {
    if (!/\d/.test(cell.textContent) || !cell.checkVisibility()) continue;
    const whole = document.createRange();
    whole.selectNodeContents(cell);
    if (lines(whole.getClientRects()) < 2) continue;  // on one line: nothing in it is split
    const walker = document.createTreeWalker(cell, NodeFilter.SHOW_TEXT);
    for (let t = walker.nextNode(); t; t = walker.nextNode()) {
      for (const m of t.data.matchAll(/\S+/g)) {
        const token = m[0].replace(/^[(\[]+/, '').replace(/[)\],;:.]+$/, '');
        if (!NUMBER.test(token) && !WORD.test(token)) continue;
        const range = document.createRange();
        range.setStart(t, m.index + m[0].indexOf(token));
        range.setEnd(t, m.index + m[0].indexOf(token) + token.length);
        if (lines(range.getClientRects()) > 1) split.push(token);
      }
    }
  }
  const unreachable = [...document.querySelectorAll('article *')].filter(box => {
    const x = getComputedStyle(box).overflowX;
    return (x === 'auto' || x === 'scroll') && box.scrollWidth > box.clientWidth + 1 &&
      box.checkVisibility() && !(box.tabIndex === 0 && box.getAttribute('role') === 'region' &&
                                 box.getAttribute('aria-label'));
  }).map(box => box.tagName + '.' + box.className);
  const root = document.documentElement;
  return {split: split.slice(0, 8), count: split.length, unreachable,
          wide: root.scrollWidth - root.clientWidth};
}"""


def table_pages(site: Path) -> list[str]:
    """Return the paths of the pages with a table: each page of its own, and SAMPLED of the
    pages of a renderer that makes many."""
    pages, many = [], {family: [] for family in SAMPLED}
    for page in sorted(site.rglob("index.html")):
        html = page.read_text("utf-8")
        if "<table" not in html:
            continue
        path = page.parent.relative_to(site).as_posix()
        path = "" if path == "." else f"{path}/"
        family = path.split("/")[0]
        if family in SAMPLED and path.count("/") > 1:
            many[family].append((-html.count("<tr"), path))
        else:
            pages.append(path)
    return pages + [path for family, rows in many.items()
                    for _, path in sorted(rows)[:SAMPLED[family]]]


@pytest.fixture(scope="module")
def checked_pages(bundled_site: Path) -> list[str]:
    """The pages the sweep checks: PAGES and table_pages, but the Market, which its own test
    below checks on the load it looks at (its 6,460 rows take Chromium 10 s a load)."""
    tables = table_pages(bundled_site)
    assert {"economics/", "prices/", "market/", "hardware/", "changes/2026-06/"} <= set(tables)
    assert sum(path.startswith("providers/") for path in tables) > SAMPLED["providers"]
    return PAGES + [path for path in tables if path not in PAGES and path != "market/"]


def problems(page, js: bool) -> dict:
    """What the loaded page shows wrong, each kind empty when nothing: elements past the right
    edge, the page's sideways scroll, and with JavaScript the numbers split and the boxes that
    scroll unreachable (SPLIT)."""
    got = {"outside": page.evaluate(OUTSIDE),
           "wide": page.evaluate("document.documentElement.scrollWidth - "
                                 "document.documentElement.clientWidth")}
    if js:
        tables = page.evaluate(SPLIT)
        got |= {"split": tables["split"], "count": tables["count"],
                "unreachable": tables["unreachable"]}
    return {kind: found for kind, found in got.items() if found}


PARTS = 2
"""The sweep's pages are checked in this many tests of each kind (with and without JavaScript),
so that two workers share them."""


@pytest.mark.parametrize("part", range(PARTS))
@pytest.mark.parametrize("js", [True, False], ids=["js", "nojs"])
def test_no_page_scrolls_sideways_and_no_table_splits_a_number(
        browser, site_url: str, checked_pages: list[str], js: bool, part: int) -> None:  # noqa: F811
    """Each page loaded once, checked at 1280 px and again made 390 px wide: a phone's layout
    is CSS media queries, and tables.js marks its scrolling boxes again on resize."""
    context = browser.new_context(viewport={"width": 1280, "height": 900},
                                  java_script_enabled=js)
    page = context.new_page()
    found = {}
    for path in checked_pages[part::PARTS]:
        page.set_viewport_size({"width": 1280, "height": 900})  # this load's, from the last 390
        page.goto(site_url + path)
        for width in (1280, 390):
            if page.viewport_size["width"] != width:
                resize(page, width, 900, scripts=js)
            if got := problems(page, js):
                found[path, width] = got
            if SCREENSHOTS and js and path in SHOWN:  # for the closing note
                for scheme in ("light", "dark"):
                    switch_scheme(page, scheme)
                    shot(page, f"32-{path.strip('/').replace('/', '-')}-{width}-{scheme}",
                         full_page=False)
                switch_scheme(page, "light")
    context.close()
    assert found == {}


@pytest.mark.parametrize("js", [True, False], ids=["js", "nojs"])
def test_the_market_table_shows_what_a_reader_needs_first(
        browser, request: pytest.FixtureRequest, js: bool) -> None:  # noqa: F811
    """Without JavaScript on the bundled Market, every row (its longest names and figures:
    6 s a load); with it on the few models' Market (few_url), whose 666 rows the same code
    makes with the calculator's two columns added, instead of 15 s a load of 6,460."""
    context = browser.new_context(viewport={"width": 1280, "height": 900},
                                  java_script_enabled=js)
    page = context.new_page()
    page.goto(request.getfixturevalue("few_url" if js else "site_url") + "market/")
    found = {1280: problems(page, js)}  # the sweep's checks, at both widths
    heads = page.locator("#market-table thead th")
    names = heads.all_inner_texts()
    expected = ["Provider", "Model", *(["Cost, $", "Tokens per $"] if js else []), "Input",
                "Cached input", "Output", "Context", "Cache write", "Batch input", "Batch output",
                "List", "Source", "Since", "First seen", "Released"]
    assert [n.strip() for n in names] == expected
    # Every column inside the viewport at 1280 px, and no navigation or contents column.
    rights = heads.evaluate_all("hs => hs.map(h => h.getBoundingClientRect().right)")
    assert max(rights) <= 1280
    assert not page.locator(".md-sidebar--primary").is_visible()
    # Sorted as the page says, by output price (free last), without JavaScript too.
    output = 7 if js else 5  # after the calculator's two columns, with JavaScript
    outputs = page.locator(f"#market-table tbody tr:nth-child(-n+200) td:nth-child({output})"
                           ).evaluate_all("cs => cs.map(c => c.getAttribute('data-value'))")
    prices = [float(v) for v in outputs if v]
    assert prices == sorted(prices) and len(prices) > 150
    for scheme in ("light", "dark") if SCREENSHOTS else ():
        switch_scheme(page, scheme)
        shot(page, f"30-market-1280-{scheme}-{'js' if js else 'nojs'}", full_page=False)
    resize(page, 390, 844, scripts=js)
    page.locator("#market-table").scroll_into_view_if_needed()
    for scheme in ("dark", "light") if SCREENSHOTS else ():  # back to light, which layout is checked in
        switch_scheme(page, scheme)
        shot(page, f"31-market-390-{scheme}-{'js' if js else 'nojs'}", full_page=False)
    found[390] = problems(page, js)
    assert found == {1280: {}, 390: {}}
    visible = [h.strip() for h, shown in zip(heads.all_inner_texts(), heads.evaluate_all(
        "hs => hs.map(h => h.offsetWidth > 0)"), strict=True) if shown]
    assert visible == ["Provider", "Model", "Input", "Output"]
    # The rest of a row is one tap away: its model links to the model's page.
    href = page.locator("#market-table tbody tr td:nth-child(2) a").first.get_attribute("href")
    assert href.startswith("../models/")
    context.close()

