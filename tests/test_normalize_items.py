"""Pure item normalization: URLs, ids, sanitizing, escaping, summaries and dates."""

from __future__ import annotations

import datetime as dt

import markdown
from hypothesis import given
from hypothesis import strategies as st

from pipeline.formats.feeds import RawItem
from pipeline.models.feeds import SnapshotItem
from pipeline.normalize.items import (
    canonical_url,
    clean_html,
    cut_at_word,
    item_id,
    md_link,
    md_text,
    normalize_item,
    plain_text,
    title_key,
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


def test_canonical_url_drops_invisible_characters_inside_a_link() -> None:
    # A zero-width space or a NUL pasted into a link is no part of it: the same URL as without.
    assert canonical_url("https://e.org/pri\u200bces\x00?id=3", "https://e.org/") \
        == "https://e.org/prices?id=3"


def test_canonical_url_writes_the_host_one_way() -> None:
    base = "https://e.org/"
    # A fully qualified name's trailing dot is the same host: one URL for both.
    assert canonical_url("http://Example.COM./a", base) == "http://example.com/a"
    # An IPv6 host keeps its brackets, or the URL would not read back.
    assert canonical_url("http://[2001:DB8::1]/a", base) == "http://[2001:db8::1]/a"
    assert canonical_url("https://[::1]:8443/a", base) == "https://[::1]:8443/a"


def test_canonical_url_drops_only_the_schemes_own_default_port() -> None:
    base = "https://e.org/"
    assert canonical_url("http://e.org:80/a", base) == "http://e.org/a"
    assert canonical_url("https://e.org:443/a", base) == "https://e.org/a"
    # Another port, or the other scheme's default, is a different server: kept.
    assert canonical_url("http://e.org:81/a", base) == "http://e.org:81/a"
    assert canonical_url("http://e.org:443/a", base) == "http://e.org:443/a"
    assert canonical_url("https://e.org:80/a", base) == "https://e.org:80/a"


def test_canonical_url_keeps_blank_query_values_and_quotes_spaces_as_percent_20() -> None:
    base = "https://e.org/"
    # `a=` may be what the page needs (a flag): dropping it would be another URL.
    assert canonical_url("https://e.org/x?a=&b=1", base) == "https://e.org/x?a=&b=1"
    # %20, not `+`: a space the same way in the path and the query.
    assert canonical_url("https://e.org/x?q=a b", base) == "https://e.org/x?q=a%20b"
    assert canonical_url("https://e.org/x?q=a+b", base) == "https://e.org/x?q=a%20b"


def test_canonical_url_path_keeps_its_own_punctuation_and_quotes_the_rest() -> None:
    base = "https://e.org/"
    # RFC 3986 allows these in a path as they are; quoting them would make a second URL.
    assert canonical_url("https://e.org/@u/a:b!c'd~e*f+g,h;i=j$k&l", base) \
        == "https://e.org/@u/a:b!c'd~e*f+g,h;i=j$k&l"
    # A space, quotes and angle brackets would break out of an href: quoted.
    assert canonical_url('https://e.org/a b"<c>', base) == "https://e.org/a%20b%22%3Cc%3E"
    # No path at all is the root.
    assert canonical_url("https://e.org", base) == "https://e.org/"
    assert canonical_url("https://e.org?id=3", base) == "https://e.org/?id=3"


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


def test_an_item_without_a_summary_has_empty_summary_html() -> None:
    # A feed entry without a summary (None) or with an empty one: nothing, not a placeholder.
    assert clean_html(None) == "" and clean_html("") == ""


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


def test_md_text_of_nothing_is_nothing() -> None:
    # A feed entry without a title or author: an empty cell, not a placeholder.
    assert md_text("") == ""
    assert md_text(None) == ""


def test_md_link_quotes_brackets_and_spaces_a_host_may_carry() -> None:
    # urlsplit does not check a host, so "(", ")" or " " in one reach the href; unquoted, the
    # first ")" or space would end the Markdown link there.
    assert md_link("A", "http://a(b).example/x") == "[A](http://a%28b%29.example/x)"
    assert md_link("A", "http://a)b.example/x") == "[A](http://a%29b.example/x)"
    assert md_link("A", "http://a b.example/x") == "[A](http://a%20b.example/x)"
    html = markdown.markdown(md_link("A", "http://a(b) c.example/x"))
    assert html == '<p><a href="http://a%28b%29%20c.example/x">A</a></p>'


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


def test_item_ids_keep_their_stored_form() -> None:
    # Snapshots in git keep items by id and the next ingest merges by it (feed_state.py): an id
    # that came out differently would store every item twice and lose its first-seen time. The
    # expected ids are the first 20 hex digits of `printf '%s' KEY | sha256sum`.
    assert item_id(" tag:e.org,2026:1 ", "https://e.org/a", "t", "s") == "0656d4b6f2e49b2d24ce"
    assert item_id(None, "https://e.org/a", "t", "s") == "d9181c171abb5e7913fd"
    assert item_id(None, None, "<b>Price cut</b>", "<p>Cheaper &amp; faster</p>") == "9d82c7f1a7802291c0dc"


def test_cut_at_word_edges() -> None:
    assert cut_at_word("one two", 7) == "one two"  # exactly max_chars: not cut
    # A space at exactly half the room is too early a cut; one past half is taken.
    assert cut_at_word("abcde fghijk", 10) == "abcde fgh…"
    assert cut_at_word("abcde fghijklm", 12) == "abcde fghij…"
    assert cut_at_word("abcdefg hijklm", 12) == "abcdefg…"
    # Punctuation before the cut goes; a word's own last letter stays.
    assert cut_at_word("one two, three four", 12) == "one two…"
    assert cut_at_word("Built by SpaceX today", 16) == "Built by SpaceX…"


def test_dates_are_stored_in_utc_whatever_the_machines_zone(machine_zone) -> None:
    machine_zone("JST-9")  # UTC+9: a naive time must still be read as UTC
    seen = NOW - dt.timedelta(hours=1)
    naive = utc_date(dt.datetime(2026, 9, 12, 5), seen, NOW)
    assert naive == (dt.datetime(2026, 9, 12, 5, tzinfo=dt.UTC), None)
    plus8 = utc_date(dt.datetime(2026, 9, 12, 13, tzinfo=dt.timezone(dt.timedelta(hours=8))), seen, NOW)
    assert plus8[0].isoformat() == "2026-09-12T05:00:00+00:00"
    assert naive[0].utcoffset() == dt.timedelta(0)


def test_a_date_within_the_clock_slack_is_kept() -> None:
    slack = dt.timedelta(minutes=15)
    assert utc_date(NOW + slack, NOW, NOW) == (NOW + slack, None)
    assert utc_date(NOW + slack + dt.timedelta(seconds=1), NOW, NOW) == (NOW, "future")


def raw_item(**fields) -> RawItem:
    return RawItem(**{"guid": None, "link": None, "title": "Price cut",
                      "summary": "<p>Cheaper &amp; faster</p>", "published": NOW, "language": None,
                      "author": None, **fields})


def normalized(raw: RawItem, feed_language: str | None = None) -> SnapshotItem:
    return normalize_item(raw, feed_url="https://e.org/feed", feed_language=feed_language,
                          first_seen=NOW, now=NOW)


def test_normalize_item_fills_every_field() -> None:
    published = NOW - dt.timedelta(hours=2)
    raw = raw_item(guid="tag:e.org,2026:1", link="/a?utm_source=x", title="<b>Price</b> cut",
                   published=published, language="de", author="<i>Jane</i>  Doe")
    assert normalized(raw, feed_language="en") == SnapshotItem(
        id="0656d4b6f2e49b2d24ce", url="https://e.org/a", title="Price cut",
        summary_html="<p>Cheaper &amp; faster</p>", summary_text="Cheaper & faster", cut=[],
        published=published, date_flag=None, first_seen=NOW, language="de", author="Jane Doe")


def test_normalize_item_id_language_and_author_fall_back() -> None:
    by_url = normalized(raw_item(link="https://e.org/a"), feed_language="en_US")
    assert (by_url.id, by_url.language, by_url.author) == ("d9181c171abb5e7913fd", "en-us", None)
    by_text = normalized(raw_item(title="<b>Price cut</b>", language="English"), feed_language="en")
    assert (by_text.id, by_text.url, by_text.language) == ("9d82c7f1a7802291c0dc", None, None)
    assert normalized(raw_item(language="EN-GB")).language == "en-gb"
    assert normalized(raw_item(author="x" * 130)).author == "x" * 119 + "…"


def test_normalize_item_caps_a_huge_summary_and_link() -> None:
    cap = 64 * 1024
    exact = "<p>" + "a" * (cap - 7) + "</p>"
    at_cap = normalized(raw_item(summary=exact))
    assert (at_cap.summary_html, at_cap.cut) == (exact, [])
    # Past the cap the HTML keeps its first 63 KiB (64 KiB less 1 KiB for closing tags) ...
    plain = normalized(raw_item(summary="a" * 70_000))
    assert (plain.summary_html, plain.cut) == ("a" * 63 * 1024, ["summary_html"])
    tagged = normalized(raw_item(summary="<p>x</p><p>" + "a" * 70_000 + "</p>"))
    assert tagged.summary_html == "<p>x</p><p>" + "a" * (63 * 1024 - 11) + "</p>"
    # ... less a tag the cut went through (here right after its "</") ...
    inside = "<p>x</p><p>" + "a" * (63 * 1024 - 13) + "</p><p>" + "b" * 2000 + "</p>"
    assert normalized(raw_item(summary=inside)).summary_html \
        == "<p>x</p><p>" + "a" * (63 * 1024 - 13) + "</p>"
    # ... or a character it went through (3 bytes each, after 1: the cut falls in the 21,504th).
    assert normalized(raw_item(summary="a" + "价" * 30_000)).summary_html == "a" + "价" * 21_503
    link = "https://e.org/" + "a" * (cap - 14)
    longest = normalized(raw_item(link=link))
    assert (longest.url, longest.cut) == (link, [])
    too_long = normalized(raw_item(link=link + "a"))
    assert (too_long.url, too_long.cut) == (None, ["url"])


def test_title_key_keeps_letters_and_digits_folded() -> None:
    assert title_key("Ｇｏｏｇｌｅ cuts Straße-Pricing, 50%!") == "googlecutsstrassepricing50"
