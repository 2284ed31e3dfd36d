"""Pure: when a named time window applies, in UTC, from its local spans and IANA time zone.

A span is written in local time and may cross midnight; its weekdays are the days it starts on
(DeepSeek's peak hours are weekdays only). Converting through the zone per local day keeps
daylight-saving shifts right.
"""

from __future__ import annotations

import datetime as dt
import zoneinfo
from collections.abc import Iterable

from pipeline.models.prices import WEEKDAYS, PriceList, PriceRecord, Window

WEEK = dt.timedelta(days=7)
Interval = tuple[dt.datetime, dt.datetime]


def window_intervals(window: Window, start: dt.datetime, end: dt.datetime) -> list[Interval]:
    """Return the UTC intervals [a, b) of `window` that meet [start, end), clipped and sorted."""
    zone = zoneinfo.ZoneInfo(window.timezone or "UTC")
    first = start.astimezone(zone).date() - dt.timedelta(days=1)
    last = end.astimezone(zone).date() + dt.timedelta(days=1)
    found: list[Interval] = []
    day = first
    while day <= last:
        weekday = WEEKDAYS[day.weekday()]
        for span in window.spans:
            if span.weekdays and weekday not in span.weekdays:
                continue
            end_day = day + dt.timedelta(days=1) if span.end <= span.start else day
            a = dt.datetime.combine(day, span.start, zone).astimezone(dt.UTC)
            b = dt.datetime.combine(end_day, span.end, zone).astimezone(dt.UTC)
            a, b = max(a, start), min(b, end)
            if a < b:
                found.append((a, b))
        day += dt.timedelta(days=1)
    return _merge(sorted(found))


def _merge(intervals: list[Interval]) -> list[Interval]:
    merged: list[Interval] = []
    for a, b in intervals:
        if merged and a <= merged[-1][1]:
            merged[-1] = (merged[-1][0], max(b, merged[-1][1]))
        else:
            merged.append((a, b))
    return merged


def is_in_window(window: Window, at: dt.datetime) -> bool:
    """Is the UTC instant `at` inside `window`?"""
    return bool(window_intervals(window, at, at + dt.timedelta(microseconds=1)))


def record_windows(plist: PriceList, record: PriceRecord) -> list[Window]:
    """Return the windows a record's prices use, in the list's order."""
    used = {p.window for p in record.prices if p.window}
    return [w for w in plist.windows if w.name in used]


def window_at(windows: Iterable[Window], at: dt.datetime) -> Window | None:
    """Return the first of `windows` that holds `at`, or None for the rest of the week."""
    return next((w for w in windows if is_in_window(w, at)), None)


def overlap(a: Window, b: Window, start: dt.datetime) -> list[Interval]:
    """Return where two windows overlap during the two weeks after `start` (DST shifts included)."""
    end = start + 2 * WEEK
    out = []
    ia, ib = window_intervals(a, start, end), window_intervals(b, start, end)
    for x0, x1 in ia:
        for y0, y1 in ib:
            lo, hi = max(x0, y0), min(x1, y1)
            if lo < hi:
                out.append((lo, hi))
    return out


def week_shares(windows: list[Window], week_start: dt.datetime) -> dict[str | None, float]:
    """Return each window's share of the week from `week_start` (None: the rest of the week).

    A window listed earlier wins where windows overlap, as `window_at` decides, so the shares
    add up to 1.
    """
    end = week_start + WEEK
    total = WEEK.total_seconds()
    taken: list[Interval] = []
    shares: dict[str | None, float] = {}
    for w in windows:
        own = window_intervals(w, week_start, end)
        seconds = sum((b - a).total_seconds() for a, b in own)
        seconds -= sum((min(b, d) - max(a, c)).total_seconds()
                       for a, b in own for c, d in taken if max(a, c) < min(b, d))
        shares[w.name] = seconds / total
        taken = _merge(sorted(taken + own))
    shares[None] = 1.0 - sum(shares.values())
    return shares
