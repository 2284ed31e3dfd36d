"""Pure: read a feed's bytes (RSS 0.9x/1.0/2.0, Atom, JSON Feed 1.0/1.1) into raw records.

feedparser reads the XML kinds but never fetches here: it has no timeout and no size cap, so the
network edge (`pipeline.ingest.feeds`) hands it bytes and headers. feedparser 6.0.14 has no JSON
Feed support, hence the small parser below. Nothing here is safe to render yet: `normalize.items`
cleans and escapes what these records hold.
"""

from __future__ import annotations

import calendar
import codecs
import datetime as dt
import json
import re
from dataclasses import dataclass, field

import feedparser

_JSON_TYPES = ("application/feed+json", "application/json")
_XML_DECL = re.compile(rb"^\s*<\?xml[^>]*?encoding\s*=\s*[\"']([A-Za-z0-9._:-]+)[\"']")
_CHARSET = re.compile(r";\s*charset\s*=\s*\"?([^\";\s]+)", re.IGNORECASE)


@dataclass(frozen=True)
class RawItem:
    """One entry as the publisher wrote it (text may hold HTML; nothing is trusted)."""

    guid: str | None
    link: str | None
    title: str
    summary: str
    """HTML or text of the summary, or of the content when there is no summary."""
    published: dt.datetime | None
    """The publication (or else update) time in UTC, when the feed gave one we could read."""
    language: str | None
    author: str | None


@dataclass(frozen=True)
class ParsedFeed:
    """What a feed's bytes held: its title, language, items and whether it looked broken."""

    kind: str
    """`rss20`, `atom10`, `json1.1` … as detected; empty when the bytes were not a feed."""
    title: str
    language: str | None
    items: list[RawItem] = field(default_factory=list)
    problem: str | None = None
    """Why the bytes were odd (malformed XML read loosely, not a feed), for the feed's health."""


def parse_feed(data: bytes, headers: dict[str, str], url: str) -> ParsedFeed:
    """Return the feed in `data`, read with the response `headers`, links relative to `url`."""
    headers = {k.lower(): v for k, v in headers.items()}
    content_type = headers.get("content-type", "")
    stripped = data.lstrip(b"\xef\xbb\xbf \t\r\n")
    if not stripped:
        return ParsedFeed("", "", None, [], "the response body is empty")
    if content_type.split(";")[0].strip().lower() in _JSON_TYPES or stripped[:1] == b"{":
        return parse_json_feed(data)
    return _parse_xml(data, headers, url)


def _parse_xml(data: bytes, headers: dict[str, str], url: str) -> ParsedFeed:
    headers = dict(headers)
    headers["content-location"] = url
    declared = _declared_encoding(data)
    header_charset = _CHARSET.search(headers.get("content-type", ""))
    if declared and header_charset and not _same_codec(declared, header_charset.group(1)) \
            and _decodes(data, declared):
        # A wrong charset in the Content-Type header is common (servers default to ISO-8859-1);
        # RFC 3023 would make it win and garble the text, so trust the document's own
        # declaration when the bytes really are in that encoding.
        headers["content-type"] = _CHARSET.sub("", headers["content-type"])
    try:
        d = feedparser.parse(data, response_headers=headers, sanitize_html=False,
                             resolve_relative_uris=True)
    except Exception as err:  # noqa: BLE001 - feedparser promises not to raise; keep it for it
        return ParsedFeed("", "", None, [], f"unreadable feed ({type(err).__name__}: {err})")
    feed = d.get("feed", {})
    items = [_raw_item_xml(e) for e in d.get("entries", [])]
    problem = None
    if not d.get("version") and not items:
        kind = headers.get("content-type", "").split(";")[0] or "unknown type"
        return ParsedFeed("", "", None, [], f"the response is not a feed ({kind})")
    exc = d.get("bozo_exception")
    # NonXMLContentType only says the server's Content-Type was not an XML one: not a fault
    # of the feed, and the bytes are still read as XML.
    if d.get("bozo") and not isinstance(exc, feedparser.NonXMLContentType):
        problem = f"malformed feed read loosely ({type(exc).__name__ if exc else 'bozo'})"
    return ParsedFeed(d.get("version", "") or "unknown", feed.get("title", "") or "",
                      feed.get("language") or None, items, problem)


def _raw_item_xml(e: dict) -> RawItem:
    summary = e.get("summary") or ""
    contents = e.get("content") or []
    if not summary and contents:
        summary = contents[0].get("value", "") or ""
    when = e.get("published_parsed") or e.get("updated_parsed") or e.get("created_parsed")
    published = _slashed_date(e.get("published") or e.get("updated") or "")
    if when and published is None:
        try:
            published = dt.datetime.fromtimestamp(calendar.timegm(when), dt.UTC)
        except (OverflowError, ValueError, OSError):
            published = None
    lang = None
    detail = e.get("title_detail") or {}
    if isinstance(detail, dict):
        lang = detail.get("language")
    return RawItem(guid=e.get("id") or None, link=e.get("link") or None,
                   title=e.get("title", "") or "", summary=summary, published=published,
                   language=lang or None, author=e.get("author") or None)


_SLASHED = re.compile(r"^\s*(\d{4})/(\d{1,2})/(\d{1,2})(?:\s+(\d{1,2}):(\d{2})(?::(\d{2}))?)?\s*$")


def _slashed_date(text: str) -> dt.datetime | None:
    """Return `2020/1/10 14:33:00` as a UTC time, or None for any other shape.

    Chinese forum software writes dates this way; feedparser 6.0.14 silently misreads them
    (2020/1/10 becomes 2020-11-01, see data/real/feeds/README.md). No zone is given: UTC.
    """
    match = _SLASHED.match(text)
    if not match:
        return None
    y, mo, d, h, mi, s = (int(g) if g else 0 for g in match.groups())
    try:
        return dt.datetime(y, mo, d, h, mi, s, tzinfo=dt.UTC)
    except ValueError:
        return None


def _declared_encoding(data: bytes) -> str | None:
    match = _XML_DECL.match(data[:512].lstrip(b"\xef\xbb\xbf"))
    return match.group(1).decode("ascii") if match else None


def _same_codec(a: str, b: str) -> bool:
    try:
        return codecs.lookup(a).name == codecs.lookup(b).name
    except LookupError:
        return False


def _decodes(data: bytes, encoding: str) -> bool:
    enc = "gb18030" if encoding.lower().replace("-", "") == "gb2312" else encoding
    try:
        data.decode(enc)
    except (LookupError, UnicodeDecodeError):
        return False
    return True


def parse_json_feed(data: bytes) -> ParsedFeed:
    """Return the JSON Feed (1.0 or 1.1) in `data`; anything else gives a feed with a problem."""
    try:
        doc = json.loads(data.decode("utf-8-sig"))
    except (UnicodeDecodeError, json.JSONDecodeError) as err:
        return ParsedFeed("", "", None, [], f"not a JSON Feed: invalid JSON ({err})")
    version = doc.get("version", "") if isinstance(doc, dict) else ""
    if not isinstance(version, str) or "jsonfeed.org/version/" not in version:
        return ParsedFeed("", "", None, [], "not a JSON Feed: no jsonfeed.org version")
    kind = "json" + version.rstrip("/").rsplit("/", 1)[-1]
    language = _text(doc.get("language")) or None
    items = []
    for raw in doc.get("items") or []:
        if not isinstance(raw, dict):
            continue
        summary = _text(raw.get("summary")) or _text(raw.get("content_html")) \
            or _text(raw.get("content_text"))
        authors = raw.get("authors") if isinstance(raw.get("authors"), list) else \
            [raw.get("author")] if isinstance(raw.get("author"), dict) else []
        author = next((_text(a.get("name")) for a in authors
                       if isinstance(a, dict) and _text(a.get("name"))), None)
        items.append(RawItem(
            guid=_text(raw.get("id")) or None,
            link=_text(raw.get("url")) or _text(raw.get("external_url")) or None,
            title=_text(raw.get("title")), summary=summary,
            published=_json_date(raw.get("date_published")) or _json_date(raw.get("date_modified")),
            language=_text(raw.get("language")) or language, author=author))
    return ParsedFeed(kind, _text(doc.get("title")), language, items, None)


def _text(value: object) -> str:
    # JSON Feed ids may be numbers in the wild; other non-strings are treated as absent.
    if isinstance(value, (int, float)) and not isinstance(value, bool):
        return str(value)
    return value if isinstance(value, str) else ""


def _json_date(value: object) -> dt.datetime | None:
    if not isinstance(value, str) or not value:
        return None
    try:
        when = dt.datetime.fromisoformat(value)  # 3.11 reads a trailing Z
    except ValueError:
        return None
    if when.tzinfo is None:
        when = when.replace(tzinfo=dt.UTC)  # RFC 3339 requires an offset; assume UTC
    return when.astimezone(dt.UTC)
