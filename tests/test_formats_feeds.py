"""The parse step on real material: feedparser's own test files and 16 real feed snapshots."""

from __future__ import annotations

import datetime as dt
from pathlib import Path

import pytest

from pipeline.formats.feeds import parse_feed
from pipeline.normalize.items import normalize_item

NOW = dt.datetime(2026, 9, 12, tzinfo=dt.UTC)

# Entries per real snapshot, counted once with this parser and pinned (the README gives the
# counts it knows: HN 30, arXiv 10, Google Cloud 20, golem 40, heise 60, kc0011 20, qq 20,
# v2ex 50, meituan 10, Daring Fireball 48, jsonfeed.org 1, InfluxData 3, qemu 10, ty 10).
COUNTS = {
    "arxiv-api-query-testing.atom.xml": 10, "biorxiv-genomics.rss10.rdf.xml": 1,
    "cloudflare-blog.rss.xml": 1, "daringfireball.feed.json": 48,
    "github-releases-astral-ty.atom.xml": 10, "golem-de.iso-8859-1.rss.xml": 40,
    "google-cloud-blog.rss.xml": 20, "heise-online.rss090.rdf.xml": 60,
    "hn-frontpage-2025-12-13.rss.xml": 30, "influxdata-blog.jsonfeed11.json": 3,
    "jsonfeed-org.feed.json": 1, "kc0011-gb2312.rss.xml": 20, "meituan-tech.rss.xml": 10,
    "qemu-blog.atom.xml": 10, "qq-news-gb2312.rss.xml": 20, "v2ex.atom.xml": 50,
}


def test_every_feedparser_test_file_parses_without_raising(real_data: Path) -> None:
    files = sorted(p for p in (real_data / "feedparser-tests").rglob("*")
                   if p.suffix in (".xml", ".json"))
    assert len(files) == 1105
    raised = []
    for path in files:
        try:
            parsed = parse_feed(path.read_bytes(), {}, "http://example.org/feed.xml")
            for raw in parsed.items:
                normalize_item(raw, feed_url="http://example.org/feed.xml",
                               feed_language=parsed.language, first_seen=NOW, now=NOW)
        except Exception as err:  # noqa: BLE001 - the point is to count any raise
            raised.append(f"{path.name}: {err!r}")
    print(f"\nfeedparser-tests: {len(files)} parsed, {len(raised)} raised")
    assert raised == []


@pytest.mark.parametrize("name", sorted(COUNTS))
def test_real_snapshots_give_their_exact_entry_counts(real_data: Path, name: str) -> None:
    data = (real_data / "feeds" / name).read_bytes()
    parsed = parse_feed(data, {}, "https://example.org/feed")
    assert len(parsed.items) == COUNTS[name]
    items = [normalize_item(r, feed_url="https://example.org/feed", feed_language=parsed.language,
                            first_seen=NOW, now=NOW) for r in parsed.items]
    for item in items:
        assert "\ufffd" not in item.title + item.summary_text, name
        assert item.published.tzinfo is not None
    # No GUIDs in several of them: ids fall back to the link and stay distinct.
    assert len({i.id for i in items}) == len(items), name


def test_legacy_encodings_decode_to_the_right_text(real_data: Path) -> None:
    kc = parse_feed((real_data / "feeds" / "kc0011-gb2312.rss.xml").read_bytes(), {},
                    "http://www.kc0011.net/rss")
    assert kc.title == "投资资讯网交易在线--流通纪念币最新20篇论坛主题-全文"
    # feedparser alone misreads `2020/1/10 14:33:00` as 2020-11-01.
    assert kc.items[0].published == dt.datetime(2020, 1, 10, 14, 33, tzinfo=dt.UTC)
    golem = parse_feed((real_data / "feeds" / "golem-de.iso-8859-1.rss.xml").read_bytes(), {},
                       "https://www.golem.de/")
    assert any("ü" in i.title or "ä" in i.title or "ö" in i.title for i in golem.items)


def test_relative_links_resolve_against_the_feed_url(real_data: Path) -> None:
    parsed = parse_feed((real_data / "feeds" / "qemu-blog.atom.xml").read_bytes(), {},
                        "https://www.qemu.org/feed.xml")
    assert all(i.link and i.link.startswith("https://www.qemu.org/20") for i in parsed.items)


def test_heise_items_without_dates_take_the_first_seen_time(real_data: Path) -> None:
    parsed = parse_feed((real_data / "feeds" / "heise-online.rss090.rdf.xml").read_bytes(), {},
                        "https://www.heise.de/rss")
    item = normalize_item(parsed.items[0], feed_url="https://www.heise.de/rss",
                          feed_language=None, first_seen=NOW, now=NOW)
    assert (item.published, item.date_flag) == (NOW, "missing")


def test_json_feed_html_entity_in_a_text_field_is_decoded_once(real_data: Path) -> None:
    from pipeline.normalize.items import plain_text
    parsed = parse_feed((real_data / "feeds" / "influxdata-blog.jsonfeed11.json").read_bytes(),
                        {"Content-Type": "application/feed+json"}, "https://www.influxdata.com/")
    assert plain_text(parsed.title) == "Blog – InfluxData"
    assert parsed.kind == "json1.1"


def test_not_a_feed_and_empty_bodies_say_so() -> None:
    assert parse_feed(b"", {}, "https://e.org/").problem == "the response body is empty"
    html = parse_feed(b"<html><body>hi</body></html>", {"Content-Type": "text/html"},
                      "https://e.org/")
    assert (html.kind, html.problem) == ("", "the response is not a feed (text/html)")
    assert parse_feed(b"{\"a\": 1}", {}, "https://e.org/").problem == (
        "not a JSON Feed: no jsonfeed.org version")
