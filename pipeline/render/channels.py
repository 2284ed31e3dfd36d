"""One edition, every channel: the files beside the web pages, from the same composed editions.

Feeds (Atom, JSON Feed), the e-mail edition, the radar calendar and the editions table are all
rendered from the edition's own Markdown page with absolute links, so a reader gets the same
edition by web, feed or mail.
"""

from __future__ import annotations

import csv
import datetime as dt
import io
import itertools
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Literal

from pipeline.compose.charts import ChartSeries, ChartSpec
from pipeline.compose.topics import topic_edition
from pipeline.compose.types import Edition, Figure, RadarItem, Story
from pipeline.models.series import Series, Topic
from pipeline.paths import TEMPLATES
from pipeline.render.chart_figures import png
from pipeline.render.charts import Chart
from pipeline.render.escape import plain_text
from pipeline.render.feeds import (
    FEED_LIMIT,
    FeedMeta,
    atom_feed,
    edition_updated,
    edition_url,
    feed_item,
    json_feed,
)
from pipeline.render.ics import radar_calendar
from pipeline.render.mail import email_html, email_message
from pipeline.render.markdown_html import markdown_html
from pipeline.render.pages import edition_page, headline_of, text_edition
from pipeline.tables.frames import text_cell


def editions_per_month(editions: Sequence[Edition]) -> ChartSpec:
    """Return the chart of how many editions appeared each month, every month in the span."""
    counts = {month: len(list(group)) for month, group in itertools.groupby(
        sorted(e.date for e in editions), key=lambda d: (d.year, d.month))}
    months: list[tuple[int, int]] = []
    if counts:
        (y, m), last = min(counts), max(counts)
        while (y, m) <= last:
            months.append((y, m))
            y, m = (y + 1, 1) if m == 12 else (y, m + 1)
    return ChartSpec(
        name="editions-per-month", kind="bar", title="Editions per month", x_label="Month",
        y_label="Editions", unit="editions", unit_one="edition",
        categories=tuple(f"{y:04d}-{m:02d}" for y, m in months),
        series=(ChartSeries("Editions", tuple(float(counts.get(k, 0)) for k in months)),))


def _count(edition: Edition, kind: type) -> int:
    return sum(isinstance(i, kind) for s in edition.sections for i in s.items)


def editions_csv(editions: Sequence[Edition], series: Series) -> bytes:
    """Return data/editions.csv: one row per edition, oldest first (columns in datasets.py)."""
    out = io.StringIO()
    w = csv.writer(out, lineterminator="\n")
    w.writerow(["date", "title", "url", "text_url", "email_url", "updated", "stories", "figures",
                "radar_items"])
    for e in sorted(editions, key=lambda e: e.date):
        url = edition_url(series, e.date)
        w.writerow([e.date.isoformat(), text_cell(e.title), url,
                    f"{series.site_url}briefings/{e.date.isoformat()}.txt", f"{url}email.html",
                    edition_updated(e).isoformat(), _count(e, Story), _count(e, Figure),
                    _count(e, RadarItem)])
    return out.getvalue().encode()


def edition_body_html(edition: Edition, series: Series, charts: Sequence[Chart] = (),
                      image: Literal["svg", "png"] = "svg") -> str:
    """Return an edition as HTML for feeds and e-mail: every link absolute, charts as the
    site's SVGs (`image="png"`: as the PNGs a sent e-mail carries).

    It links the edition before it, not the one after: a feed entry or a mail, once out, must
    not change when a later edition appears.
    """
    return markdown_html(edition_body_md(edition, series, charts, image=image))


def edition_body_md(edition: Edition, series: Series, charts: Sequence[Chart] = (),
                    image: Literal["svg", "png"] = "svg", templates: Path = TEMPLATES) -> str:
    """Return the Markdown `edition_body_html` converts."""
    return edition_page(edition, series, following=None, home=False, charts=charts,
                        base_url=str(series.site_url), image=image, templates=templates)


@dataclass(frozen=True)
class ChannelHtml:
    """An edition, or its cut to a topic, as the feeds and the e-mail carry it: its body as HTML
    (every link absolute), its text edition and, for a whole edition, its e-mail HTML."""

    body_html: str
    text: str
    email_html: bytes | None = None


def channel_html(edition: Edition, series: Series, charts: Sequence[Chart] = (),
                 templates: Path = TEMPLATES, *, email: bool = False) -> ChannelHtml:
    """Return an edition as the channels carry it (`email`: with its e-mail HTML), linked to the
    edition before it only (edition_body_html says why)."""
    body = markdown_html(edition_body_md(edition, series, charts, templates=templates))
    mail = email_html(edition, series, body, templates).encode() if email else None
    return ChannelHtml(body, text_edition(edition, templates), mail)


@dataclass(frozen=True)
class MailParts:
    """What every message of an edition shares: its e-mail HTML, its text edition and the PNGs of
    its charts by the URL the HTML names them by (each sent as an inline part: render/mail.py);
    `message` adds one recipient's headers."""

    edition: Edition
    series: Series
    html: str
    text: str
    images: Mapping[str, bytes]

    def message(self, *, sender: str | None = None, to: str | None = None,
                sent_at: dt.datetime | None = None) -> bytes:
        return email_message(self.edition, self.series, self.html, self.text, sender=sender,
                             to=to, images=self.images, sent_at=sent_at)


def mail_parts(edition: Edition, series: Series, charts: Sequence[Chart] = ()) -> MailParts:
    """Return the parts of an edition's messages (the HTML inlined once for every recipient),
    each chart's PNG drawn now: the site publishes only their SVGs, which mail clients do not
    show."""
    html = email_html(edition, series, edition_body_html(edition, series, charts, image="png"))
    images = {f"{series.site_url}{c.png_path}": png(c.spec) for c in charts}
    return MailParts(edition, series, html, text_edition(edition), images)


def channel_files(editions: list[Edition], series: Series,
                  charts_of: Mapping[dt.date, Sequence[Chart]] | None = None,
                  tags: Mapping[str, frozenset[str]] | None = None,
                  html: Mapping[dt.date, ChannelHtml] | None = None,
                  cut_html: Mapping[tuple[str, dt.date], ChannelHtml] | None = None,
                  templates: Path = TEMPLATES) -> dict[str, bytes]:
    """Return the feeds (whole editions, and one per topic), e-mail editions, radar calendar
    and editions table, by site path.

    `tags`: each curated entry's tags by id, which the topics select by; `html`: each edition
    as the channels carry it, by date, and `cut_html` each cut of `topic_cuts`, by topic and date
    (rendered here when not given: a build hands in those an earlier build rendered)."""
    charts_of = charts_of or {}
    if html is None:
        html = {e.date: channel_html(e, series, charts_of.get(e.date, ()), templates, email=True)
                for e in editions}
    files: dict[str, bytes] = {}
    items = []
    for edition in editions:
        day = edition.date.isoformat()
        made = html[edition.date]
        files[f"briefings/{day}/email.html"] = made.email_html or b""
        items.append(feed_item(edition, series, made.body_html, made.text,
                               summary=plain_text(headline_of(edition))))
    files["feed.xml"] = atom_feed(series, items)
    files["feed.json"] = json_feed(series, items)
    for topic in series.topics:
        cuts = topic_cuts(topic, editions, tags or {})
        made_cuts = [cut_html[(topic.id, c.date)] if cut_html is not None else channel_html(
            c, series, topic_charts(topic, charts_of, c.date), templates)
            for c in cuts]
        files.update(topic_feeds(topic, series, cuts, made_cuts))
    files["radar.ics"] = radar_calendar(editions, series)
    files["data/editions.csv"] = editions_csv(editions, series)
    return files


def topic_cuts(topic: Topic, editions: list[Edition],
               tags: Mapping[str, frozenset[str]]) -> list[Edition]:
    """Return the newest editions that have items of `topic`, each cut to them, newest first,
    as many as a feed carries."""
    cuts = (topic_edition(e, topic, tags) for e in sorted(editions, key=lambda e: e.date,
                                                          reverse=True))
    return list(itertools.islice((c for c in cuts if c is not None), FEED_LIMIT))


def topic_charts(topic: Topic, charts_of: Mapping[dt.date, Sequence[Chart]],
                 date: dt.date) -> Sequence[Chart]:
    """Return the charts a topic's cut of an edition carries: its charts when the topic takes
    the price figures."""
    return charts_of.get(date, ()) if "prices" in topic.lanes else ()


def topic_feeds(topic: Topic, series: Series, cuts: Sequence[Edition],
                made: Sequence[ChannelHtml]) -> dict[str, bytes]:
    """Return feed-<topic>.xml and .json of the topic's `cuts`, as `made` for the channels."""
    items = [feed_item(cut, series, m.body_html, m.text, summary=plain_text(headline_of(cut)),
                       topic=topic.id) for cut, m in zip(cuts, made, strict=True)]
    # Beside feed.xml, not in a folder: Material fetches sitemap.xml beside every
    # rel="alternate" link of a page, which a folder would answer with a 404.
    meta = FeedMeta(f"feed-{topic.id}", topic.title)
    return {f"{meta.path}.xml": atom_feed(series, items, meta),
            f"{meta.path}.json": json_feed(series, items, meta)}
