"""Issue 39: a page for every model across its providers, put into the site's theme through a
shell page (render/shell_page.py), in the search index and the sitemap; the index of models by
family and provider; the Market's rows and the model pages linked both ways."""

from __future__ import annotations

import gzip
import json
import re
from pathlib import Path

import pytest

from pipeline.compose.model_groups import group_page_slugs
from pipeline.normalize.model_identity import identity_key
from pipeline.normalize.model_ids import canonical_model
from pipeline.render.shell_page import BODY, TITLE, ShellPage, fill


def _shell(url: str = "models/_shell/") -> str:
    return (f"<html><head><title>{TITLE} - Site</title><link rel=canonical "
            f'href="https://x.example/{url}"><meta property="og:title" content="{TITLE}">'
            f"</head><body><h1>{TITLE}</h1>{BODY}</body></html>")


def test_a_page_takes_the_shells_chrome_with_its_own_title_body_and_url() -> None:
    page = ShellPage('<img src=x onerror="alert(1)"> & co', "<p>body</p>")
    out = fill(_shell(), "models/_shell/", "models/x/index.html", page)
    title = "&lt;img src=x onerror=&quot;alert(1)&quot;&gt; &amp; co"
    assert out == (f"<html><head><title>{title} - Site</title><link rel=canonical "
                   'href="https://x.example/models/x/"><meta property="og:title" '
                   f'content="{title}"></head><body><h1>{title}</h1><p>body</p></body></html>')


def test_a_body_is_never_rewritten_by_the_fill() -> None:
    # A body naming the placeholder or the shell's URL keeps them as written.
    page = ShellPage("t", f"<p>{TITLE} models/_shell/</p>")
    out = fill(_shell(), "models/_shell/", "models/x/index.html", page)
    assert f"<p>{TITLE} models/_shell/</p>" in out


def test_a_shell_without_its_placeholders_is_refused() -> None:
    with pytest.raises(ValueError, match="lost its placeholders"):
        fill("<html></html>", "models/_shell/", "models/x/index.html", ShellPage("t", ""))


def _market(site: Path) -> list[dict]:
    return json.loads((site / "data" / "market.json").read_text())


def test_every_market_model_has_its_page_and_the_shell_is_not_published(bundled_site: Path):
    canonical = {canonical_model(r["model"]) for r in _market(bundled_site)}
    keys = {identity_key(r["model"]) for r in _market(bundled_site)}
    assert len(keys) > 1500
    pages = {p.parent.name for p in (bundled_site / "models").glob("*/index.html")}
    tracked = {p.parent.name for p in (bundled_site / "models").glob("*/index.html")
               if "Every dated base price of" in p.read_text()}
    assert len(tracked) >= 20
    # A model's page is named by its identity key (a slug); a tracked model's by provider too,
    # and a model whose slug is a tracked page's takes `-model`.
    slugs = {re.sub(r"[^a-z0-9]+", "-", k).strip("-") for k in keys}
    assert pages - tracked == {s + "-model" if s in tracked else s for s in slugs}
    # `jamba-1.5-large` and `jamba-1-5-large`, `llama-3.3-70b-versatile` and
    # `meta.llama3-3-70b-instruct`: one page each.
    assert len(pages - tracked) < len(canonical) * 0.8
    assert not (bundled_site / "models" / "_shell").exists()
    sitemap = (bundled_site / "sitemap.xml").read_text()
    assert "_shell" not in sitemap and "/models/deepseek-r1-0528/</loc>" in sitemap
    assert gzip.decompress((bundled_site / "sitemap.xml.gz").read_bytes()).decode() == sitemap


def test_a_model_page_is_in_the_sites_theme(bundled_site: Path) -> None:
    """The same stylesheets, scripts, header and tabs as a page mkdocs rendered at its depth."""
    def chrome(path: Path) -> list[str]:
        text = path.read_text()
        return re.findall(r'<link rel="stylesheet" href="[^"]+"|<script src="[^"]+"|'
                          r'class="md-tabs__link"', text)

    mkdocs_page = bundled_site / "models" / "deepseek-deepseek-v4-flash" / "index.html"
    shell_page = bundled_site / "models" / "deepseek-r1-0528" / "index.html"
    assert chrome(shell_page) == chrome(mkdocs_page) and len(chrome(shell_page)) > 10
    text = shell_page.read_text()
    assert "<title>DeepSeek-R1-0528 - Inference Brief</title>" in text
    assert ('<link rel="canonical" href="https://inference-brief.github.io/inference-brief/'
            'models/deepseek-r1-0528/">') in text
    assert "<h1>DeepSeek-R1-0528</h1>" in text


def test_search_finds_models_by_name_and_id_and_the_market_page(bundled_site: Path) -> None:
    index = bundled_site / "search" / "search_index.json"
    docs = json.loads(index.read_text())["docs"]
    by_location = {d["location"]: d for d in docs}
    assert by_location["models/deepseek-r1-0528/"]["title"] == "DeepSeek-R1-0528"
    assert "deepseek-r1-0528" in by_location["models/deepseek-r1-0528/"]["text"]
    assert by_location["market/"]["title"] == "Market: every model with a token price"
    # Small enough for a phone: no prices, no tables.
    size = index.stat().st_size
    print(f"search index: {size:,} bytes, {len(gzip.compress(index.read_bytes())):,} gzipped")
    assert size < 600_000


def test_every_page_with_two_dated_prices_has_a_chart_and_none_without(bundled_site: Path):
    pages = [p for p in sorted((bundled_site / "models").glob("*/index.html"))
             if "Listed as:" in p.read_text()]
    charted = [p for p in pages if '<img src="../../charts/models/' in p.read_text()]
    uncharted = [p for p in pages if "Fewer than two dated prices" in p.read_text()]
    assert len(charted) > 700 and len(charted) + len(uncharted) == len(pages)
    for page in charted:
        src = re.search(r'<img src="\.\./\.\./(charts/models/[^"]+)"', page.read_text())[1]
        svg = (bundled_site / src).read_bytes()
        assert svg.startswith(b"<?xml") and b"<path d=\"M" in svg
    # A page without a chart lists no more than one first-seen date: one dated price at most.
    for page in uncharted[::50]:
        body = page.read_text().split("Listed as:", 1)[1]
        assert len(re.findall(r'<td class="brief-date">\d{4}-\d\d-\d\d</td><td class="brief-date">',
                              body)) <= 1


def test_the_index_lists_every_model_by_family_and_by_provider(bundled_site: Path) -> None:
    text = (bundled_site / "models" / "index.html").read_text()
    for heading in ("Tracked models", "By family", "By provider"):
        assert f">{heading}<" in text
    family = text[text.index(">By family<"):text.index(">By provider<")]
    provider = text[text.index(">By provider<"):]
    pages = {p.parent.name for p in (bundled_site / "models").glob("*/index.html")
             if "Every dated base price of" not in p.read_text()}
    for part in (family, provider):
        assert set(re.findall(r'href="([^"/]+)/"', part)) == pages
    assert "<strong>deepseek</strong>" in family and "<strong>fireworks</strong>" in provider


def test_market_rows_and_model_pages_link_both_ways(bundled_site: Path) -> None:
    market = (bundled_site / "market" / "index.html").read_text()
    rows = re.findall(r'<tr id="([^"]+)" data-provider="([^"]+)".*?<a href="\.\./models/'
                      r'([^"]+)/">([^<]+)</a>', market, re.S)
    assert len(rows) == len(_market(bundled_site))
    assert len({anchor for anchor, *_ in rows}) == len(rows)  # every id once
    for anchor, provider, slug, _model in rows[::97]:
        page = (bundled_site / "models" / slug / "index.html").read_text()
        row = re.search(rf'<tr><th scope="row"><a href="../../providers/([^"]+)/">'
                        rf'{re.escape(provider)}</a></th><td><a href="../../market/#'
                        rf'{re.escape(anchor)}">', page)
        assert row is not None, (anchor, slug)
        assert (bundled_site / "providers" / row.group(1) / "index.html").is_file()



def test_a_model_page_moves_aside_from_a_tracked_page_to_a_name_nothing_else_has() -> None:
    # Catalogue ids are theirs to spell (issue 50): `acme-x` is a tracked model's page, and the
    # catalogues also list models whose pages are `acme-x-model` and `acme-x-model-2`.
    assert group_page_slugs(["acme-x-model", "acme-x", "b", "acme-x-model-2"],
                            ["acme-x", "c-d"]) == {
        "acme-x": "acme-x-model-3", "acme-x-model": "acme-x-model",
        "acme-x-model-2": "acme-x-model-2", "b": "b"}
    assert group_page_slugs(["acme-x"], ["acme-x"]) == {"acme-x": "acme-x-model"}
