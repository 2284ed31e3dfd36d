"""A page per provider (issue 52): its listings at the Market's figures with their sources, its
held-back prices with why, each page named from the provider's id alone, and everything a
catalogue wrote escaped."""

from __future__ import annotations

import csv
import html
import json
import re
from pathlib import Path

import pytest

from pipeline.compose.provider_pages import (
    CatalogueListing,
    HeldListing,
    ProviderListing,
    ProviderMove,
    ProviderPage,
    provider_slug,
)
from pipeline.limits import MAX_FILE_NAME_BYTES
from pipeline.render.provider_pages import provider_page
from pipeline.tables.frames import text_cell

HOSTILE = "</title><img src=x onerror=alert(9)>"

LISTING_ROW = re.compile(
    r'<tr><th scope="row"><a href="../../models/[^"]+/">([^<]*)</a></th>'
    r'<td class="brief-num" data-value="([^"]*)">[^<]*</td>'
    r'<td class="brief-num" data-value="([^"]*)">[^<]*</td>'
    r'<td class="brief-num" data-value="([^"]*)">[^<]*</td>'
    r'<td>[^<]*</td><td class="brief-date">([^<]*)</td><td class="brief-date">[^<]*</td>'
    r'<td>(?:<a href="([^"]*)">)?([^<]*)')


def _number(text: str) -> float | None:
    return float(text) if text else None


def test_provider_page_names_are_distinct_safe_and_short() -> None:
    ids = ["wandb", "huggingface-together", "A.B", "a-b", "a.b", "a_b", "", "---", HOSTILE,
           "x" * 200, "x" * 199 + "y", "ünïcode", "a--b"]
    slugs = [provider_slug(p) for p in ids]
    assert len(set(slugs)) == len(ids)
    assert slugs[:2] == ["wandb", "huggingface-together"]  # a slug already: the page's name
    assert slugs[3] == "a-b" and slugs[2].startswith("a-b--") and slugs[4].startswith("a-b--")
    for s in slugs:
        assert re.fullmatch(r"[a-z0-9]+(-{1,2}[a-z0-9]+)*", s), s
        assert len(s.encode()) <= MAX_FILE_NAME_BYTES


def test_a_providers_page_escapes_what_the_catalogues_wrote() -> None:
    page = ProviderPage(
        HOSTILE, provider_slug(HOSTILE), HOSTILE, (f'"{HOSTILE}',),
        (ProviderListing(HOSTILE, "m", (1.0, None, 0.0), "USD", HOSTILE,
                         "javascript:alert(1)", "2026-01-01", "2026-02-01"),),
        (ProviderMove("2026-03-01T00:00Z", HOSTILE, HOSTILE, HOSTILE, 1.0, 2.0),), 0, 0,
        (HeldListing(HOSTILE, "javascript:alert(3)", HOSTILE, "output", 99.0, 1.0, "2026-01-01T00:00Z", "", HOSTILE),),
        (CatalogueListing(HOSTILE, "javascript:alert(2)", True, 3, "", ""),), "")
    shell = provider_page(page, "2026-11-20")
    assert "<img" not in shell.body_html and "javascript:" not in shell.body_html
    assert html.escape(HOSTILE) in shell.body_html
    assert shell.title == f"{HOSTILE} (provider)"  # plain text: the shell escapes it (fill)


@pytest.fixture(scope="module")
def market(bundled_site: Path) -> dict[tuple[str, str], dict[str, str]]:
    with (bundled_site / "data" / "market.csv").open(encoding="utf-8") as f:
        return {(r["provider"], r["model"]): r for r in csv.DictReader(f)}


def test_every_listing_on_a_providers_page_is_at_the_markets_figures(
        bundled_site: Path, market) -> None:
    found = {}
    # A page is named from its provider's id alone.
    providers = {provider_slug(p): p for p, _ in market}
    for page in (bundled_site / "providers").glob("*/index.html"):
        text = page.read_text(encoding="utf-8")
        provider = providers.get(page.parent.name, "")
        for model, *prices, first_seen, url, source in LISTING_ROW.findall(text):
            # As the data file writes an id (a leading @ or = quoted for spreadsheets).
            found[(provider, text_cell(html.unescape(model)))] = (
                [_number(p) for p in prices], first_seen, html.unescape(url or ""),
                html.unescape(source))
    assert found.keys() == market.keys()  # every Market row on its provider's page, once
    for key, (prices, first_seen, url, source) in found.items():
        row = market[key]
        assert prices == [_number(row[f"{m}_usd_per_mtok"]) for m in
                          ("input", "cached_input", "output")], key
        assert (first_seen, source) == (row["first_seen"], row["source"]), key
        assert url in ("", row["source_url"]), key  # linked when the site allows the link


HELD_ROW = re.compile(r"<tr>\s*<td>(?:<a [^>]*>)?([^<]*)(?:</a>)?</td>\s*"
                      r'<td><a href="\.\./providers/([^"]+)/">[^<]*</a></td>\s*'
                      r"<td>([^<]*)</td>\s*<td>([^<]*)</td>\s*<td>[^<]*</td>\s*<td>[^<]*</td>\s*"
                      r"<td>([^<]*)</td>\s*<td>([^<]*)</td>\s*</tr>")
"""A row of the Discrepancies page's table of held-back prices."""


def unspanned(page: str) -> str:
    """Return `page` without the spans that keep a table's numbers whole (table_numbers.py)."""
    return re.sub(r'<span class="brief-nobr">([^<]*)</span>', r"\1", page)
PAGE_HELD_ROW = re.compile(r"<tr><td>(?:<a [^>]*>)?([^<]*)(?:</a>)?</td><td>([^<]*)</td>"
                           r'<td class="brief-words">([^<]*)</td>'
                           r'<td class="brief-num" data-value="[^"]*">[^<]*</td>'
                           r'<td class="brief-num">[^<]*</td><td class="brief-date">([^<]*)</td>'
                           r'<td class="brief-words">([^<]*)</td></tr>')


def test_each_held_back_price_is_on_its_providers_page_with_its_reason(
        bundled_site: Path) -> None:
    page = unspanned((bundled_site / "discrepancies" / "index.html").read_text(encoding="utf-8"))
    held = HELD_ROW.findall(page[page.index('id="held-back-as-implausible'):])
    assert len(held) > 50
    for catalogue, slug, *shown in held:
        text = unspanned((bundled_site / "providers" / slug / "index.html").read_text(
            encoding="utf-8"))
        rows = {tuple(html.unescape(c) for c in row) for row in PAGE_HELD_ROW.findall(text)}
        assert tuple(html.unescape(c) for c in (catalogue, *shown)) in rows, (slug, shown)


def test_the_market_model_pages_and_discrepancies_link_to_pages_that_exist(
        bundled_site: Path) -> None:
    pages = {"market/index.html": "../", "discrepancies/index.html": "../",
             **{f"models/{p.parent.name}/index.html": "../../" for p in
                sorted((bundled_site / "models").glob("*/index.html"))[::50]}}
    linked = set()
    for path, up in pages.items():
        text = (bundled_site / path).read_text(encoding="utf-8")
        slugs = set(re.findall(rf'href="{re.escape(up)}providers/([^"/]+)/"', text))
        assert slugs, path
        linked |= slugs
    missing = {s for s in linked if not (bundled_site / "providers" / s / "index.html").is_file()}
    assert missing == set()
    index = (bundled_site / "providers" / "index.html").read_text(encoding="utf-8")
    listed = set(re.findall(r'<a href="([^"/]+)/">', index))
    assert listed == {p.parent.name for p in (bundled_site / "providers").glob("*/index.html")}



def test_the_search_index_has_one_entry_per_provider_and_none_of_its_rows(
        bundled_site: Path) -> None:
    docs = json.loads((bundled_site / "search" / "search_index.json").read_text("utf-8"))["docs"]
    entries = {d["location"]: d for d in docs if d["location"].startswith("providers/")}
    pages = {p.parent.name for p in (bundled_site / "providers").glob("*/index.html")}
    assert entries.keys() == {f"providers/{slug}/" for slug in pages}  # the index left out
    assert entries["providers/wandb/"]["title"] == "wandb (provider)"
    assert "bedrock" in entries["providers/aws/"]["text"].split()  # as a catalogue lists it
    assert not [loc for loc, d in entries.items() if "$" in d["text"] or len(d["text"]) > 1_000]
    market = next(d for d in docs if d["location"] == "market/")
    assert "wandb" in market["text"]
