"""Pure: the lanes, each a kind of item an edition computes from data, registered here.

A lane is a function from the editions' tables (`EditionTables`) and an edition window (previous, date]
to the lane's items: (Context & numbers, On the radar). It runs only when the sources hold its
data; each of its items carries the lane's name, which the per-topic feeds select by. Adding a
lane is its module and one line below (ARCHITECTURE.md, "Adding a lane").
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Callable
from dataclasses import dataclass
from typing import Protocol

from pipeline.compose.edition_tables import EditionTables, LaneItems
from pipeline.models.sources import Sources


class ReadDigests(Protocol):
    """The digests a lane's key is made of (cache/keys.py InputDigests computes them; compose/ knows
    only their names)."""

    hardware: str

    def prices_by(self, date: dt.date) -> str: ...

    def catalogue_window(self, date: dt.date, previous: dt.date | None) -> str: ...

    def economics_to(self, date: dt.date, previous: dt.date | None) -> str: ...


@dataclass(frozen=True)
class Lane:
    name: str
    present: Callable[[Sources], bool]
    """Do the sources hold this lane's data?"""
    items: Callable[[EditionTables, dt.date, dt.date | None], LaneItems]
    key: Callable[[ReadDigests, dt.date, dt.date | None], str]
    """The digest of what `items` reads for the window (previous, date]: its items are kept
    under it, so an edit of anything else keeps them."""


LANES = (
    # The records known by the edition's date and the rates up to it.
    Lane("prices", lambda s: bool(s.prices) and s.rates is not None, EditionTables.prices,
         key=lambda k, date, previous: k.prices_by(date)),
    Lane("catalogues", lambda s: bool(s.published_catalogues()), EditionTables.catalogues,
         key=lambda k, date, previous: k.catalogue_window(date, previous)),
    # All hardware sources and the rates their costs are converted at.
    Lane("hardware", lambda s: s.hardware is not None, EditionTables.hardware,
         key=lambda k, date, previous: k.hardware),
    Lane("economics", lambda s: bool(s.published_catalogues())
         or (bool(s.prices) and s.rates is not None), EditionTables.economics,
         key=lambda k, date, previous: k.economics_to(date, previous)),
)
"""In the order their items appear in a section."""


def present_lanes(sources: Sources) -> list[Lane]:
    """Return the lanes whose data the sources hold, in order."""
    return [lane for lane in LANES if lane.present(sources)]
