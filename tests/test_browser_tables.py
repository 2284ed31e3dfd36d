"""Issue 52's tables in headless Chromium, at 390 and 1280 px: on every page of the bundled site
that has a table, no number of a cell is split over two lines ("$0.1 / 26" read as $0.1), no
word of a cell that holds figures is broken inside ("unchang / ed"), the page never scrolls
sideways, and a table wider than its column scrolls in a box of its own that a keyboard reaches
and a screen reader names. One browser, one page per width, the pages in turn.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from test_browser import browser, site_url  # noqa: F401  (fixtures)

MODEL_PAGES = 12
"""The model pages checked, those with the most table rows: 1,762 pages of two renderers (a
model across its providers, a tracked model), every one at two widths took minutes."""

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
    """Return the paths of the pages with a table: every one but the model pages, and the
    MODEL_PAGES of those with the most rows."""
    pages, models = [], []
    for page in sorted(site.rglob("index.html")):
        html = page.read_text("utf-8")
        if "<table" not in html:
            continue
        path = page.parent.relative_to(site).as_posix()
        path = "" if path == "." else f"{path}/"
        if path.startswith("models/") and path != "models/":
            models.append((-html.count("<tr"), path))
        else:
            pages.append(path)
    return pages + [path for _, path in sorted(models)[:MODEL_PAGES]]


@pytest.mark.parametrize("width", [390, 1280])
def test_no_table_splits_a_number_and_no_page_scrolls_sideways(browser, site_url: str,  # noqa: F811
                                                               bundled_site: Path,
                                                               width: int) -> None:
    paths = table_pages(bundled_site)
    assert {"economics/", "prices/", "market/", "hardware/", "changes/2026-03/"} <= set(paths)
    context = browser.new_context(viewport={"width": width, "height": 900})
    page = context.new_page()
    # Charts and fonts take no part in a table's layout here (no font is fetched: font: false).
    page.route("**/*.{svg,png}", lambda route: route.abort())
    found = {}
    for path in paths:
        page.goto(site_url + path)
        got = page.evaluate(SPLIT)
        if got["count"] or got["unreachable"] or got["wide"] > 0:
            found[path] = got
    context.close()
    assert found == {}
