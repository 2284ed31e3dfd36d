"""Pure: what the Sources page shows as of the newest edition: every feed with its snapshot and
how many of its items fall in the edition's window, then the price catalogues with their health
and how many of their listings are held back as implausible."""

from __future__ import annotations

import datetime as dt
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from pipeline.compose.rank import window_items
from pipeline.models.catalogues import CatalogueHealth, CataloguesFile
from pipeline.models.feeds import Feed, Snapshot
from pipeline.models.sources import Sources
from pipeline.tables.plausibility import held_per_catalogue


@dataclass(frozen=True, eq=False)
class SourcesShown:
    """The `feeds` (None: no feeds file) with their `snapshots`, the newest edition's `date` and
    the one before (`previous`), and each feed's items in the window (previous, date] by feed
    id (`items`); the `catalogues` (None: none followed) with their `healths` and the listings
    each has `held` back as implausible, by catalogue id."""

    feeds: Sequence[Feed] | None
    snapshots: Mapping[str, Snapshot]
    date: dt.date
    previous: dt.date | None
    items: dict[str, int]
    catalogues: CataloguesFile | None
    healths: Mapping[str, CatalogueHealth]
    held: dict[str, int]


def items_in_window(feeds: Sequence[Feed], snapshots: Mapping[str, Snapshot], date: dt.date,
                    previous: dt.date | None) -> dict[str, int]:
    """Return how many items of each feed were published in (previous, date], by feed id (none
    for a feed with none)."""
    counts: dict[str, int] = {}
    for feed, _ in window_items(feeds, snapshots, date, previous):
        counts[feed.id] = counts.get(feed.id, 0) + 1
    return counts


def sources_shown(sources: Sources, as_of: dt.date, previous: dt.date | None) -> SourcesShown:
    """Return what the Sources page shows as of the newest edition, of date `as_of` (the one
    before it of date `previous`)."""
    feeds = sources.feeds.feeds if sources.feeds is not None else None
    return SourcesShown(
        feeds, sources.snapshots, as_of, previous,
        items_in_window(feeds, sources.snapshots, as_of, previous) if feeds else {},
        sources.catalogues, sources.catalogue_health, held_per_catalogue(sources.held_prices))
