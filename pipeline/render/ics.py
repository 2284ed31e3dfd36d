"""The dated items of On the radar, across editions → an iCalendar file (RFC 5545) to subscribe to.

Written with the `icalendar` library: RFC 5545's escaping of text values, its folding at 75
octets (never inside a UTF-8 character or an escape) and its value types (an all-day DATE, a UTC
DATE-TIME) are the library's, and the tests read the file back with its parser.

Deterministic: UIDs come from entry ids, DTSTAMP from the date of the edition that announced the
item (never the build time), events are sorted and properties written in the order given here,
so the file changes only when the radar does.
"""

from __future__ import annotations

import datetime as dt
from urllib.parse import urlsplit

from icalendar import Calendar, Event, vText, vUri

from pipeline.compose.types import Edition, RadarItem
from pipeline.models.series import Series
from pipeline.render.escape import plain_text
from pipeline.render.feeds import edition_url, series_name


def radar_events(editions: list[Edition]) -> list[tuple[str, RadarItem, Edition]]:
    """Return (key, item, announcing edition) of every dated radar item, by due date then key."""
    events: dict[str, tuple[RadarItem, Edition]] = {}
    for edition in sorted(editions, key=lambda e: e.date):
        for section in edition.sections:
            for item in section.items:
                if isinstance(item, RadarItem) and item.due is not None:
                    key = item.id or f"{item.due.isoformat()}-{item.label}"
                    # The first edition that announced it owns the event: later ones may repeat it.
                    events.setdefault(key, (item, edition))
    ordered = sorted(events.items(), key=lambda kv: (kv[1][0].due, kv[0]))
    return [(key, item, edition) for key, (item, edition) in ordered]


def radar_calendar(editions: list[Edition], series: Series) -> bytes:
    """Return the iCalendar file of every dated radar item, one all-day event each."""
    host = urlsplit(str(series.site_url)).hostname or "localhost"
    calendar = Calendar()
    calendar.add("version", "2.0")
    calendar.add("prodid", "-//inference-brief//radar//EN")
    calendar.add("calscale", "GREGORIAN")
    calendar.add("method", "PUBLISH")
    # TEXT said outright: the library writes an X- property it does not know as it is, unescaped.
    calendar.add("x-wr-calname", vText(series_name(series) + ": on the radar"))
    for key, item, edition in radar_events(editions):
        assert item.due is not None
        sources = " ".join(c.url or c.text for c in item.citations)
        event = Event()
        event.add("uid", f"{key}@{host}")
        # The announcing edition's midnight, UTC: a build on another day writes the same stamp.
        event.add("dtstamp", dt.datetime.combine(edition.date, dt.time(), dt.UTC))
        event.add("dtstart", item.due)
        event.add("dtend", item.due + dt.timedelta(days=1))
        event.add("summary", plain_text(item.label))
        event.add("description", plain_text(item.text_md) + " Sources: " + sources)
        event.add("url", vUri(edition_url(series, edition.date)))
        event.add("transp", "TRANSPARENT")
        calendar.add_component(event)
    # Unsorted: the properties in the order above, as RFC 5545's examples write them.
    return calendar.to_ical(sorted=False)
