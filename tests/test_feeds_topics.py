"""The feeds as a feed reader sees them (feedparser): titles that tell editions apart, no
relative link anywhere in their content, per-topic feeds that hold only their topic, pages that
announce them, and the Subscribe page."""

from __future__ import annotations

import datetime as dt
import json
import re
from pathlib import Path

import feedparser

from pipeline.compose.edition import compose_editions
from pipeline.compose.topics import belongs, entry_tags, topic_edition
from pipeline.compose.types import Story
from pipeline.load.sources import load_sources

REPO = Path(__file__).resolve().parents[1]
SITE = "https://inference-brief.github.io/inference-brief/"
FEEDS = ["feed", "feed-prices", "feed-hardware", "feed-local"]


def links(html: str) -> list[str]:
    return re.findall(r'(?:href|src)\s*=\s*"([^"]*)"', html)


def test_every_feed_has_distinct_titles_and_only_absolute_links(bundled_site: Path) -> None:
    for name in FEEDS:
        atom = feedparser.parse((bundled_site / f"{name}.xml").read_bytes())
        assert not atom.bozo, (name, atom.get("bozo_exception"))
        titles = [e.title for e in atom.entries]
        assert titles and len(set(titles)) == len(titles), name
        assert all(re.match(r"^2026-\d\d-\d\d: \S", t) for t in titles), titles
        ids = [e.id for e in atom.entries]
        assert len(set(ids)) == len(ids), name
        for entry in atom.entries:
            found = links(entry.content[0].value)
            assert found and all(u.startswith(("https://", "mailto:")) for u in found), (
                name, [u for u in found if not u.startswith(("https://", "mailto:"))][:5])
        doc = json.loads((bundled_site / f"{name}.json").read_text(encoding="utf-8"))
        assert [i["title"] for i in doc["items"]] == titles
        assert doc["feed_url"] == f"{SITE}{name}.json"
        for item in doc["items"]:
            assert all(u.startswith(("https://", "mailto:")) for u in links(item["content_html"]))
    whole = feedparser.parse((bundled_site / "feed.xml").read_bytes())
    # The edition's own title: its date and its lead story, read from the bundled entry.
    assert "2026-09-12: DeepSeek takes Flash prices close to zero" in [
        e.title for e in whole.entries]
    # Ids never change: the edition's address, in the whole editions' feed.
    assert f"{SITE}briefings/2026-09-12/" in [e.id for e in whole.entries]


def test_a_topic_feed_holds_only_its_topic() -> None:
    sources = load_sources(REPO)
    editions = compose_editions(sources, sources.series.edition_dates(dt.date(2026, 11, 30)))
    tags = entry_tags(sources.entries)
    topics = {t.id: t for t in sources.series.topics}
    assert set(topics) == {"prices", "hardware", "local"}
    for topic in topics.values():
        for edition in editions:
            cut = topic_edition(edition, topic, tags)
            whole = [(s.id, i) for s in edition.sections for i in s.items]
            kept = [] if cut is None else [(s.id, i) for s in cut.sections for i in s.items]
            assert kept == [(s, i) for s, i in whole if belongs(i, s, topic, tags)]
    sept = next(e for e in editions if e.date == dt.date(2026, 9, 12))
    local = topic_edition(sept, topics["local"], tags)
    assert local is not None
    assert [s.id for s in local.sections if s.items] == ["local"]
    prices = topic_edition(sept, topics["prices"], tags)
    heads = [i.headline for s in prices.sections for i in s.items if isinstance(i, Story)]
    # The price stories stay; d-Matrix (hardware, economics) and the MLPerf feed item go.
    assert "DeepSeek takes Flash prices close to zero" in heads
    assert not any("d-Matrix" in h or "MLPerf" in h for h in heads)
    # Its sources are numbered again from 1, only those it cites.
    cited = {c.key for s in prices.sections for i in s.items for c in i.citations}
    assert {c.key for c in prices.sources} == cited


def test_pages_announce_every_feed_and_the_subscribe_page_lists_them(bundled_site: Path) -> None:
    page = (bundled_site / "prices" / "index.html").read_text(encoding="utf-8")
    announced = re.findall(r'<link rel="alternate" type="application/(?:atom\+xml|feed\+json)"'
                           r'[^>]*href="\.\./([^"]+)"', page)
    assert sorted(announced) == sorted(f"{n}.{ext}" for n in FEEDS for ext in ("xml", "json"))
    subscribe = (bundled_site / "subscribe" / "index.html").read_text(encoding="utf-8")
    for name in FEEDS:
        for ext in ("xml", "json"):
            assert f'href="../{name}.{ext}"' in subscribe, name
            assert (bundled_site / f"{name}.{ext}").is_file()
    assert 'href="../radar.ics"' in subscribe
    assert "mailto:subscribe@inference-brief.github.io?subject=subscribe" in subscribe


def test_a_built_topic_feed_carries_the_cut_not_the_whole_edition(bundled_site: Path) -> None:
    """The built feeds, as a reader gets them: each topic's entry of 2026-09-12 holds that
    topic's items only (a build once keyed a cut's rendering by its date alone, and so carried
    the whole edition's text and HTML in every topic feed)."""
    whole = json.loads((bundled_site / "feed.json").read_text(encoding="utf-8"))
    hardware = json.loads((bundled_site / "feed-hardware.json").read_text(encoding="utf-8"))
    prices = feedparser.parse((bundled_site / "feed-prices.xml").read_bytes())

    def entry(items: list[dict]) -> dict:
        return next(i for i in items if "2026-09-12" in i["title"])

    assert "DeepSeek takes Flash prices close to zero" in entry(whole["items"])["content_text"]
    cut = entry(hardware["items"])["content_text"]
    assert "DeepSeek takes Flash prices close to zero" not in cut
    assert "Cheapest tokens per dollar" not in cut and "d-Matrix" in cut
    html = next(e for e in prices.entries if "2026-09-12" in e.title).content[0].value
    assert "DeepSeek takes Flash prices close to zero" in html and "d-Matrix" not in html
