"""Pure: what the Discrepancies page shows as of the newest edition, as one value: where a
catalogue disagrees with our curated price, or two catalogues with each other
(tables/discrepancies.py), and the catalogue prices held back as implausible."""

from __future__ import annotations

import datetime as dt
from dataclasses import dataclass

import pandas as pd

from pipeline.models.sources import Sources
from pipeline.tables.cost import day_end
from pipeline.tables.discrepancies import catalogue_periods, curated_periods, disagreements


@dataclass(frozen=True, eq=False)
class Discrepancies:
    """The disagreements up to the end of `as_of` (tables/discrepancies.COLUMNS) of a catalogue
    with our curated price (`against`) and between catalogues (`between`), the listings `held`
    back as implausible (Sources.held_prices), and each catalogue's name and page by its id."""

    as_of: dt.date
    against: pd.DataFrame
    between: pd.DataFrame
    held: pd.DataFrame | None
    names: dict[str, tuple[str, str]]


def discrepancies(sources: Sources, as_of: dt.date) -> Discrepancies:
    """Return the Discrepancies page's value as of the end of `as_of`."""
    listed = sources.catalogues.catalogues if sources.catalogues else []
    curated = curated_periods(sources.prices)
    others = [catalogue_periods(sources.price_histories[c.id], c.name, str(c.page))
              for c in listed if c.id in sources.price_histories]
    found = disagreements([curated, *others], day_end(as_of))
    against = found[found["source_a"].isin(set(curated["source"]))]
    return Discrepancies(as_of, against, found[~found.index.isin(against.index)],
                         sources.held_prices, {c.id: (c.name, str(c.page)) for c in listed})
