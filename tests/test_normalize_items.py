"""Pure item normalization: URLs, ids, sanitizing, escaping, summaries and dates."""

from __future__ import annotations

import datetime as dt

import markdown
from hypothesis import given
from hypothesis import strategies as st

from pipeline.normalize.items import (
    canonical_url,
    clean_html,
    cut_at_word,
    item_id,
    md_link,
    md_text,
    plain_text,
    utc_date,
)

NOW = dt.datetime(2026, 9, 12, 6, tzinfo=dt.UTC)


def test_canonical_url_is_absolute_and_drops_tracking_parameters() -> None:
    assert canonical_url("/a b?utm_source=x&id=3&fbclid=9&gclid=1#top",
                         "https://Example.ORG:443/feed") == "https://example.org/a%20b?id=3"
    assert canonical_url("javascript:alert(1)", "https://e.org/") is None
    assert canonical_url("  java\tscript:alert(1)", "https://e.org/") is None
    assert canonical_url("mailto:a@b.c", "https://e.org/") is None
    assert canonical_url("http://e.org:8080/x", "https://e.org/") == "http://e.org:8080/x"


def test_item_id_prefers_guid_then_url_then_text() -> None:
    assert item_id("g", "https://e.org/1", "t", "s") == item_id("g", None, "x", "y")
    assert item_id(None, "https://e.org/1", "t", "s") == item_id(None, "https://e.org/1", "x", "")
    assert item_id(None, None, "<b>t</b>", "s") == item_id(None, None, "t", "s")
    assert len(item_id("g", None, "", "")) == 20


def test_clean_html_keeps_a_small_allow_list() -> None:
    out = clean_html('<p onclick="x">a <a href="javascript:1">j</a> <a href="https://e.org">'
                     'ok</a><svg><p>eaten</svg><form><input></form><style>p{}</style>'
                     '<img src=x onerror=alert(1)><math><mi>x</mi></math></p>')
    assert "onclick" not in out and "javascript" not in out and "<img" not in out
    assert "<svg" not in out and "<form" not in out and "<style" not in out and "<math" not in out
    assert '<a href="https://e.org" rel="noopener noreferrer nofollow ugc">ok</a>' in out


def test_md_text_survives_markdown_as_the_same_text() -> None:
    s = '<script>alert("1")</script> *x* it\'s [a](javascript:1) {: onclick=x} a_b & | 1. #'
    html = markdown.markdown(md_text(s), extensions=["toc", "tables", "attr_list", "md_in_html",
                                                     "admonition"])
    assert html == ("<p>&lt;script&gt;alert(&quot;1&quot;)&lt;/script&gt; *x* it&#x27;s "
                    "[a](javascript:1) {: onclick=x} a_b &amp; | 1. #</p>")


@given(st.text(max_size=80))
def test_md_text_never_lets_markup_through(s: str) -> None:
    html = markdown.markdown(md_text(s), extensions=["attr_list", "md_in_html", "tables"])
    assert "<" not in html.removeprefix("<p>").removesuffix("</p>").replace("<br />", "")


def test_md_link_only_links_http() -> None:
    assert md_link("A (b)", "https://e.org/a_(b)") == "[A \\(b\\)](https://e.org/a_%28b%29)"
    assert md_link("x", "javascript:alert(1)") == "x"


def test_plain_text_and_cut_at_word() -> None:
    assert plain_text("Blog &#8211; <b>Influx</b><script>bad()</script>") == "Blog – Influx"
    assert cut_at_word("one two three four", 12) == "one two…"
    assert cut_at_word("价格下调" * 10, 9) == "价格下调价格下调…"


def test_dates_are_utc_missing_takes_first_seen_future_is_clamped() -> None:
    seen = NOW - dt.timedelta(hours=1)
    assert utc_date(None, seen, NOW) == (seen, "missing")
    assert utc_date(NOW + dt.timedelta(days=3), seen, NOW) == (NOW, "future")
    plus8 = dt.datetime(2026, 9, 12, 14, tzinfo=dt.timezone(dt.timedelta(hours=8)))
    assert utc_date(plus8, seen, NOW) == (NOW, None)
