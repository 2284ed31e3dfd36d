"""Pure: an edition's On the radar section: one item per change, each saying since when an
earlier edition has carried it."""

from __future__ import annotations

import bisect
import dataclasses
import datetime as dt
from collections.abc import Sequence

from pipeline.compose.types import Item, RadarItem
from pipeline.models.sourced import CuratedEntry


def radar_section(curated: Sequence[tuple[CuratedEntry, Item]], computed: Sequence[Item],
                  dates: Sequence[dt.date], date: dt.date) -> list[Item]:
    """Return the radar items of the edition of `date`: the curated ones in their order, then
    the computed ones. A curated entry and a computed item announce the same change when the
    entry's `event_date` is the item's due date and its tags name the item's provider: they
    become one item, the entry's words with the computed figures and both sources. A computed
    item known before an earlier edition of `dates` (sorted) says since when."""
    pending = list(computed)
    items: list[Item] = []
    for c, item in curated:
        twin = next((x for x in pending if isinstance(x, RadarItem) and x.provider
                     and x.due is not None and x.due == c.entry.event_date
                     and x.provider in c.entry.tags), None)
        if twin is not None and isinstance(item, RadarItem):
            pending.remove(twin)
            item = dataclasses.replace(
                item, text_md=f"{item.text_md} {twin.text_md}",
                citations=tuple(dict.fromkeys((*item.citations, *twin.citations))))
        items.append(item)
    for x in pending:
        if isinstance(x, RadarItem) and x.known is not None:
            first = bisect.bisect_left(dates, x.known)
            if first < len(dates) and dates[first] < date:
                x = dataclasses.replace(x, since=dates[first])
        items.append(x)
    return items
