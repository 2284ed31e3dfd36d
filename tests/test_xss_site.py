"""XSS through the real site: payload feeds → snapshots → `build_site` (jinja2 + mkdocs-material) →
headless Chromium. test_xss_feeds.py covers every payload in every field through the same escaping
at the Markdown level; this test closes the gap to the published pages (templates, the theme,
mkdocs' Markdown) with the payloads feedparser's sanitizer was seen to leave executable, and more.
"""

from __future__ import annotations

import datetime as dt
import json
from pathlib import Path

import pytest
from test_xss_feeds import (  # noqa: F401
    CHECK_JS,
    NOW,
    browser,
    feed_xml,
    payloads,
    served_page,
    settle,
)

from pipeline.formats.feeds import parse_feed
from pipeline.ingest.feeds import write_snapshot
from pipeline.models.feeds import Feed
from pipeline.normalize.feed_state import Attempt, record_attempt
from pipeline.orchestrate.site import build_site

N_PAYLOADS = 40


def residuals_first(real_data: Path) -> list[str]:
    doc = json.loads((real_data / "xss-vectors" / "observed-feedparser-6.0.14-residual.json")
                     .read_text("utf-8"))
    first = [v.get("payload", v.get("input", "")) for v in doc.get("vectors") or doc.get("cases")]
    rest = [p for p in payloads(real_data) if p not in first]
    return (first + rest)[:N_PAYLOADS]


@pytest.fixture(scope="module")
def hostile_site(real_data: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("xss") / "repo"
    (root / "sources").mkdir(parents=True)
    (root / "sources" / "editions.yaml").write_text(
        "title: 'XSS test — {date}'\ndescription: d\nsite_url: https://example.org/\n"
        "source_url: https://example.org/r/\ndates: [2026-09-12]\nsections:\n"
        "  - {id: top, title: Top, quota: 50}\n  - {id: local, title: Local, quota: 50}\n"
        "  - {id: numbers, title: Numbers}\n  - {id: radar, title: Radar}\n", encoding="utf-8")
    lines = ["topics:\n  pricing: [price, pricing, inference]\nfeeds:\n"]
    for n, payload in enumerate(residuals_first(real_data)):
        region = "cn" if n % 2 else "global"
        feed = Feed(id=f"f{n}", url=f"https://example.org/{n}/feed.xml", title=f"Feed {n}",
                    region=region, language="zh" if n % 2 else "en")
        lines.append(f"  - {{id: f{n}, url: '{feed.url}', title: Feed {n}, region: {region}}}\n")
        parsed = parse_feed(feed_xml(payload, n), {"Content-Type": "application/rss+xml"},
                            str(feed.url))
        snapshot = record_attempt(feed, None, Attempt(status=200, parsed=parsed), NOW)
        write_snapshot(root / "sources" / "snapshots" / "feeds" / f"f{n}.json", snapshot)
    (root / "sources" / "feeds.yaml").write_text("".join(lines), encoding="utf-8")
    build_site(root, root / "public", today=dt.date(2026, 11, 30))
    return root / "public"


def test_payloads_stay_inert_on_the_built_pages(hostile_site: Path, browser) -> None:  # noqa: F811
    findings = []
    stories = 0
    with served_page(hostile_site, browser) as (page, base, dialogs):
        for path in ("briefings/2026-09-12/", "", "sources/"):
            page.goto(base + path, wait_until="load")
            settle(page)
            page.evaluate("() => document.querySelector('article').id = 'content'")
            findings += [f"{path}: {f}" for f in page.evaluate(CHECK_JS)]
            stories += page.locator("article h3").count() if path == "" else 0
    assert stories >= 10  # the payload items really are on the page
    assert dialogs == []
    assert findings == []
