"""Editions → an Atom 1.0 feed (RFC 4287) and a JSON Feed 1.1, full content, deterministic bytes.

Written with xml.etree and json rather than feedgen: feedgen stamps the current time on anything
not given a date and reverses entries unless told otherwise (ARCHITECTURE.md); here every time comes
from an edition (its date, or its latest correction), so a feed changes only when an edition does.
"""

from __future__ import annotations

import datetime as dt
import json
import xml.etree.ElementTree as ET
from dataclasses import dataclass

from pipeline.compose.titles import edition_title
from pipeline.compose.types import Edition
from pipeline.models.series import Series

ATOM_NS = "http://www.w3.org/2005/Atom"
JSON_FEED_VERSION = "https://jsonfeed.org/version/1.1"
FEED_LIMIT = 20
"""How many editions the feeds carry, newest first."""


@dataclass(frozen=True)
class FeedItem:
    """One edition as the feeds carry it."""

    id: str
    """Stable for ever: the edition's URL."""
    url: str
    title: str
    published: dt.date
    updated: dt.date
    content_html: str
    content_text: str
    summary: str


def edition_updated(edition: Edition) -> dt.date:
    """Return when an edition last changed: its date, or the date of its latest correction."""
    return max([edition.date, *(when for when, _id, _note in edition.corrections)])


def edition_url(series: Series, day: dt.date) -> str:
    """Return the absolute URL of the edition of `day`."""
    return f"{series.site_url}briefings/{day.isoformat()}/"


def series_name(series: Series) -> str:
    """Return the series' name: its edition title without the date."""
    return series.title.replace("{date}", "").strip(" —–-:|")


@dataclass(frozen=True)
class FeedMeta:
    """Which feed: the whole editions' (`feed.xml`, `feed.json`) or one topic's."""

    path: str = "feed"
    """Its files without the extension, from the site root."""
    title: str = ""
    """After the series name in its title ("Prices"); "" for the whole editions."""


def feed_item(edition: Edition, series: Series, content_html: str, content_text: str,
              summary: str, topic: str = "") -> FeedItem:
    """Return the feed item of an edition, given its HTML and text renderings; `topic`: the
    id of the topic feed it is in ("" for the whole editions'), part of its id, which never
    changes."""
    url = edition_url(series, edition.date)
    return FeedItem(id=f"{url}#{topic}" if topic else url, url=url,
                    title=edition_title(edition), published=edition.date,
                    updated=edition_updated(edition), content_html=content_html,
                    content_text=content_text, summary=summary)


def _stamp(day: dt.date) -> str:
    # Editions are dated, not timed: midnight UTC of the day, in RFC 3339.
    return f"{day.isoformat()}T00:00:00Z"


def latest(items: list[FeedItem], limit: int = FEED_LIMIT) -> list[FeedItem]:
    """Return the newest `limit` items, newest first."""
    return sorted(items, key=lambda i: (i.published, i.id), reverse=True)[:limit]


def _feed_title(series: Series, meta: FeedMeta) -> str:
    return f"{series_name(series)}: {meta.title}" if meta.title else series_name(series)


def atom_feed(series: Series, items: list[FeedItem], meta: FeedMeta = FeedMeta()) -> bytes:
    """Return the Atom 1.0 document of the newest items."""
    items = latest(items)
    site = str(series.site_url)

    def sub(parent: ET.Element, tag: str, text: str | None = None, **attrs: str) -> ET.Element:
        el = ET.SubElement(parent, tag, attrs)
        if text is not None:
            el.text = text
        return el

    # Plain tag names under an xmlns attribute: ElementTree's default_namespace option refuses
    # the unqualified attributes (rel, href) that Atom uses.
    feed = ET.Element("feed", {"xmlns": ATOM_NS, "xml:lang": "en"})
    sub(feed, "id", site if not meta.title else f"{site}{meta.path}.xml")
    sub(feed, "title", _feed_title(series, meta))
    sub(feed, "subtitle", series.description)
    # The feed's own time is that of its newest change, never the build's.
    newest = max((i.updated for i in items), default=None)
    sub(feed, "updated", _stamp(newest) if newest else "1970-01-01T00:00:00Z")
    sub(feed, "link", rel="self", type="application/atom+xml", href=f"{site}{meta.path}.xml")
    sub(feed, "link", rel="alternate", type="text/html", href=site)
    author = sub(feed, "author")
    sub(author, "name", series_name(series))
    sub(author, "uri", site)
    sub(feed, "generator", "inference-brief")
    for item in items:
        entry = sub(feed, "entry")
        sub(entry, "id", item.id)
        sub(entry, "title", item.title)
        sub(entry, "published", _stamp(item.published))
        sub(entry, "updated", _stamp(item.updated))
        sub(entry, "link", rel="alternate", type="text/html", href=item.url)
        sub(entry, "summary", item.summary)
        # Every link in the content is absolute; xml:base says against what, for any reader
        # that resolves one anyway.
        sub(entry, "content", item.content_html, type="html", **{"xml:base": item.url})
    ET.indent(feed)
    return ET.tostring(feed, encoding="utf-8", xml_declaration=True) + b"\n"


def json_feed(series: Series, items: list[FeedItem], meta: FeedMeta = FeedMeta()) -> bytes:
    """Return the JSON Feed 1.1 document of the newest items."""
    site = str(series.site_url)
    doc = {
        "version": JSON_FEED_VERSION,
        "title": _feed_title(series, meta),
        "home_page_url": site,
        "feed_url": f"{site}{meta.path}.json",
        "description": series.description,
        "language": "en",
        "authors": [{"name": series_name(series), "url": site}],
        "items": [
            {
                "id": item.id,
                "url": item.url,
                "title": item.title,
                "summary": item.summary,
                "content_html": item.content_html,
                "content_text": item.content_text,
                "date_published": _stamp(item.published),
                "date_modified": _stamp(item.updated),
            }
            for item in latest(items)
        ],
    }
    return (json.dumps(doc, ensure_ascii=False, indent=2, allow_nan=False) + "\n").encode()
