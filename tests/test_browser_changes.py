"""A month's page of the Changes in Chromium (issue 49): its form filters the moves by catalogue
and kind, each commit's heading links the commit in the catalogue's repository, and without
JavaScript every move shows."""

from __future__ import annotations

import re

from test_browser import browser, site_url  # noqa: F401

MONTH = "changes/2026-03/"


def _visible(pg) -> list[dict]:
    return pg.evaluate("""() => Array.from(document.querySelectorAll(
        '#changes-table tbody:not([hidden]) tr[data-kind]:not([hidden])')).map(r => ({
            catalogue: r.parentElement.dataset.catalogue, kind: r.dataset.kind,
            provider: r.dataset.provider}))""")


def test_a_month_of_changes_filters_by_catalogue_and_kind(browser, site_url: str) -> None:  # noqa: F811
    context = browser.new_context(viewport={"width": 1280, "height": 900})
    pg = context.new_page()
    errors: list[str] = []
    pg.on("pageerror", lambda e: errors.append(str(e)))
    pg.goto(site_url + MONTH)
    form = pg.locator("form.changes-filters")
    assert form.is_visible()
    everything = _visible(pg)
    total = pg.locator("#changes-table tr[data-kind]").count()
    assert len(everything) == total > 100
    assert pg.locator("form.changes-filters output").inner_text() == f"{total} of {total} moves shown"

    pg.locator("form.changes-filters select[name=catalogue]").select_option("genai-prices")
    pg.get_by_label("new listings", exact=True).uncheck()
    pg.get_by_label("no longer listed", exact=True).uncheck()
    pg.get_by_label("listed and withdrawn the same day", exact=True).uncheck()
    shown = _visible(pg)
    assert shown and {r["catalogue"] for r in shown} == {"genai-prices"}
    assert {r["kind"] for r in shown} <= {"cut", "rise"}
    expected = pg.evaluate("""() => Array.from(document.querySelectorAll(
        '#changes-table tbody[data-catalogue="genai-prices"] tr[data-kind]')).filter(
        r => r.dataset.kind === 'cut' || r.dataset.kind === 'rise').length""")
    assert len(shown) == expected
    assert pg.locator("form.changes-filters output").inner_text() == (
        f"{expected} of {total} moves shown")
    # A commit with no move left is hidden whole; each shown one links its commit.
    groups = pg.locator("#changes-table tbody:not([hidden])")
    assert groups.count() >= 1
    for n in range(groups.count()):
        href = groups.nth(n).locator("th a").get_attribute("href")
        assert re.fullmatch(r"https://github\.com/pydantic/genai-prices/commit/[0-9a-f]{40}",
                            href), href
        assert groups.nth(n).locator("tr[data-kind]:not([hidden])").count() >= 1
    # Only the rises (genai-prices cut nothing that month), then every kind of every catalogue.
    pg.get_by_label("cuts", exact=True).uncheck()
    rises = _visible(pg)
    assert rises and {r["kind"] for r in rises} == {"rise"} and len(rises) <= expected
    pg.locator("form.changes-filters select[name=catalogue]").select_option("")
    for label in ("cuts", "new listings", "no longer listed", "listed and withdrawn the same day"):
        pg.get_by_label(label, exact=True).check()
    assert len(_visible(pg)) == total
    context.close()
    assert errors == []


def test_without_javascript_a_month_shows_every_move_and_no_form(browser, site_url: str) -> None:  # noqa: F811
    context = browser.new_context(java_script_enabled=False)
    pg = context.new_page()
    pg.goto(site_url + MONTH)
    assert pg.locator("form.changes-filters").is_hidden()
    rows = pg.locator("#changes-table tr[data-kind]")
    assert rows.count() > 100 and rows.first.is_visible() and rows.last.is_visible()
    context.close()
