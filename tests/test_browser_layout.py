"""Issue 39's layout acceptance in headless Chromium: at 1280 and 390 px, light and dark, with
JavaScript and without, no page scrolls sideways (wide content only inside a scroller of its
own, such as a table's), and the Market page shows every column at 1280 px and model, input and
output at 390 px. Screenshots go to test-artifacts/screenshots/."""

from __future__ import annotations

import pytest
from test_browser import EDITIONS, browser, shot, site_url  # noqa: F401  (fixtures)

PAGES = ["", f"briefings/{EDITIONS[2]}/", "prices/", "market/", "changes/", "discrepancies/",
         "models/", "models/deepseek-r1-0528/", "models/deepseek-deepseek-v4-flash/",
         "hardware/", "sources/", "data/", "archive/"]

SHOWN = {"models/deepseek-r1-0528/", "models/deepseek-deepseek-v4-flash/", "hardware/",
         "discrepancies/"}

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


@pytest.mark.parametrize("js", [True, False], ids=["js", "nojs"])
@pytest.mark.parametrize("scheme", ["light", "dark"])
@pytest.mark.parametrize("width", [1280, 390])
def test_no_page_scrolls_sideways(browser, site_url: str, width: int, scheme: str,  # noqa: F811
                                  js: bool) -> None:
    context = browser.new_context(viewport={"width": width, "height": 900},
                                  color_scheme=scheme, java_script_enabled=js)
    page = context.new_page()
    found = {}
    for path in PAGES:
        page.goto(site_url + path)
        outside = page.evaluate(OUTSIDE)
        wide = page.evaluate("document.documentElement.scrollWidth - "
                             "document.documentElement.clientWidth")
        if outside or wide > 0:
            found[path] = (wide, outside)
        if js and path in SHOWN:  # for the closing note
            shot(page, f"32-{path.strip('/').replace('/', '-')}-{width}-{scheme}",
                 full_page=False)
    context.close()
    assert found == {}


@pytest.mark.parametrize("js", [True, False], ids=["js", "nojs"])
@pytest.mark.parametrize("scheme", ["light", "dark"])
def test_the_market_table_shows_what_a_reader_needs_first(browser, site_url: str,  # noqa: F811
                                                          scheme: str, js: bool) -> None:
    context = browser.new_context(viewport={"width": 1280, "height": 900},
                                  color_scheme=scheme, java_script_enabled=js)
    page = context.new_page()
    page.goto(site_url + "market/")
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
    shot(page, f"30-market-1280-{scheme}-{'js' if js else 'nojs'}", full_page=False)
    page.set_viewport_size({"width": 390, "height": 844})
    visible = [h.strip() for h, shown in zip(heads.all_inner_texts(), heads.evaluate_all(
        "hs => hs.map(h => h.offsetWidth > 0)"), strict=True) if shown]
    assert visible == ["Provider", "Model", "Input", "Output"]
    # The rest of a row is one tap away: its model links to the model's page.
    href = page.locator("#market-table tbody tr td:nth-child(2) a").first.get_attribute("href")
    assert href.startswith("../models/")
    page.locator("#market-table").scroll_into_view_if_needed()
    shot(page, f"31-market-390-{scheme}-{'js' if js else 'nojs'}", full_page=False)
    context.close()

