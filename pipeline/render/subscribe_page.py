"""The Subscribe page: every way to follow the editions, from sources/editions.yaml."""

from __future__ import annotations

import html

from pipeline.models.series import Series
from pipeline.render.escape import md_code, md_text


def _selects(topic) -> str:
    """Return what a topic's feed takes, in words."""
    parts = []
    if topic.sections:
        parts.append("the section" + ("s " if len(topic.sections) > 1 else " ")
                     + ", ".join(f"“{s}”" for s in topic.sections))
    if topic.lanes:
        parts.append("the figures computed from " + ", ".join(topic.lanes))
    if topic.tags:
        parts.append("the entries tagged " + ", ".join(map(md_code, topic.tags)))
    return "; ".join(parts)


def subscribe_page(series: Series) -> str:
    """Return the Markdown of subscribe.md: the feeds (all and per topic), the radar calendar,
    the text editions and the e-mail edition."""
    lines = ["# Subscribe", "",
             "Every edition reaches readers the same way it reaches this site: the same figures "
             "and the same sources, however you read it.", "",
             "## Feeds", "",
             "| Feed | Atom | JSON Feed | What it holds |", "| --- | --- | --- | --- |",
             "| Every edition | [feed.xml](feed.xml) | [feed.json](feed.json) | "
             "each edition in full |"]
    for t in series.topics:
        lines.append(f"| {md_text(t.title)} | [feed-{t.id}.xml](feed-{t.id}.xml) | "
                     f"[feed-{t.id}.json](feed-{t.id}.json) | the editions that have some of "
                     f"{md_text(_selects(t))}, with only those items |")
    lines += ["", "Each feed entry is titled with its edition's date and lead story; an entry "
              "changes its update time only when a correction changes it.", "",
              "## Calendar", "",
              "[radar.ics](radar.ics): what is due (price changes announced ahead, results "
              "expected), one event per item of On the radar, for any calendar application.", "",
              "## Text", "",
              "Each edition also comes as plain text, a file beside its page, linked at the top "
              "of it.", "",
              "## E-mail", ""]
    mail = series.mail
    if mail is not None and mail.subscribe:
        address = html.escape(mail.subscribe)
        leave = html.escape(mail.unsubscribe)
        lines += [f"Each edition can come by e-mail, charts included, readable offline. To "
                  f"subscribe, write to <a href=\"mailto:{address}?subject=subscribe\">"
                  f"{address}</a>; every message says how to leave the list (or write to "
                  f"<a href=\"mailto:{leave}?subject=unsubscribe\">{leave}</a>). Addresses are "
                  "kept only for sending and are never published.", ""]
    else:
        lines += ["This copy of the site sends no e-mail; each edition's page links to the "
                  "page its e-mail would show.", ""]
    return "\n".join(lines)
