"""Pure: the lanes, each a kind of item an edition computes from data, registered here.

A lane is a function from the editions' tables (`Parts`) and an edition window (previous, date]
to the lane's items: (Context & numbers, On the radar). It runs only when the sources hold its
data; each of its items carries the lane's name, which the per-topic feeds select by. Adding a
lane is its module and one line below (ARCHITECTURE.md, "Adding a lane").
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Callable
from dataclasses import dataclass

from pipeline.compose.parts import LaneItems, Parts
from pipeline.models.sources import Sources


@dataclass(frozen=True)
class Lane:
    name: str
    present: Callable[[Sources], bool]
    """Do the sources hold this lane's data?"""
    items: Callable[[Parts, dt.date, dt.date | None], LaneItems]


LANES = (
    Lane("prices", lambda s: bool(s.prices) and s.rates is not None, Parts.prices),
    Lane("catalogues", lambda s: bool(s.published_catalogues()), Parts.catalogues),
    Lane("hardware", lambda s: s.hardware is not None, Parts.hardware),
    Lane("economics", lambda s: bool(s.published_catalogues())
         or (bool(s.prices) and s.rates is not None), Parts.economics),
)
"""In the order their items appear in a section."""


def present_lanes(sources: Sources) -> list[Lane]:
    """Return the lanes whose data the sources hold, in order."""
    return [lane for lane in LANES if lane.present(sources)]
