"""Every generated file of the site's docs, in memory: each page family's files (families.py) and
the Data page, reusing what an earlier build made of them where what it was made from is unchanged."""

from __future__ import annotations

import datetime as dt
from collections.abc import Callable
from pathlib import Path

from pipeline.cache.keys import InputDigests
from pipeline.cache.store import Store
from pipeline.compose.charts import ChartSpec
from pipeline.compose.edition_tables import EditionTables
from pipeline.compose.types import Edition
from pipeline.models.sources import Sources
from pipeline.orchestrate.charts import ChartCache
from pipeline.orchestrate.families import FAMILIES, Site, family_files, sources_view, tables_view
from pipeline.paths import TEMPLATES
from pipeline.problems import BuildError
from pipeline.publish import output
from pipeline.render.chart_figures import draw
from pipeline.render.chart_image import IN_PROCESS, ChartImage
from pipeline.render.charts import Chart
from pipeline.render.datasets import DATA_FILES, DataFile, data_page, published_data
from pipeline.render.datasets_lanes import LANE_DATA_FILES
from pipeline.render.prices_page import cheapest_chart_data, history_chart_data


def edition_charts(sources: Sources, editions: list[Edition],
                   chart: Callable[[ChartSpec], Chart] | None = None,
                   spec_of: Callable[[dt.date, dt.date | None], ChartSpec] | None = None
                   ) -> dict[dt.date, list[Chart]]:
    """Return the charts of each edition's Context & numbers, by edition date.

    Each chart is computed as of its edition's date, so a later source never changes an earlier
    edition. `spec_of` gives an edition's chart spec when composing already knows it
    (compose.parts.EditionTables.cheapest_spec).
    """
    charts: dict[dt.date, list[Chart]] = {e.date: [] for e in editions}
    if not sources.prices or sources.rates is None or chart is None:
        return charts
    # Without the composition's parts, one table of blended prices for all the editions.
    spec_of = spec_of or EditionTables(sources, [e.date for e in editions]).cheapest_spec
    specs = [spec_of(e.date, e.previous) for e in editions]
    for e, spec in zip(editions, specs):
        charts[e.date].append(chart(spec))
    return charts


def edition_chart_data(sources: Sources) -> tuple[DataFile, ...]:
    """Return the Data page entries of the CSVs behind the editions' charts: one family per
    workload profile, each listed only when this build wrote files of it (edition_charts draws
    the first profile's)."""
    if not sources.prices or sources.rates is None:
        return ()
    return (*(cheapest_chart_data(p) for p in sources.series.profiles), history_chart_data())


def site_files(sources: Sources, editions: list[Edition], store: Store | None = None,
               charts: ChartCache | None = None, parts: EditionTables | None = None,
               keys: InputDigests | None = None, templates: Path = TEMPLATES,
               ) -> dict[str, bytes | output.DiskBody | ChartImage]:
    """Return every generated file of the site's docs (pages as Markdown), by path in the docs;
    large data files kept from an earlier build stay on disk until published (output.DiskBody),
    and charts may still be being drawn (drawing.ChartImage).

    Each page family (families.py) is composed and rendered in turn, then the Data page.
    `store` keeps what an earlier build rendered and drew (nothing kept without one); `charts`
    keeps chart drawings between builds, and hands the missing ones to its drawer (without one
    every chart is drawn here); `parts` and `keys` are the editions' tables and what their parts
    read (orchestrate/compose.py); `templates` is the folder of templates to render with.
    """
    store = store if store is not None else Store(None, {})
    if not editions:
        raise BuildError("no editions to build: editions.yaml lists no date up to today")
    parts = parts if parts is not None else EditionTables(sources, [e.date for e in editions])
    keys = keys if keys is not None else InputDigests(sources, [e.date for e in editions], parts)
    site = Site(editions, store, keys, charts.drawer if charts else IN_PROCESS,
                charts.chart if charts else draw, templates)
    files: dict[str, str | bytes] = {}
    for family in FAMILIES:
        files.update(family_files(family, sources_view(sources, family),
                                  tables_view(parts, family), site))
    # Popped as they are encoded, so the text and its bytes are not both held for every file.
    # Drawings stay as they are: mkdocs builds the pages while the worker finishes them, and
    # they are written last (mkdocs_site._Publish).
    encoded = {path: body.encode() if isinstance(body, str) else body
               for path, body in ((p, files.pop(p)) for p in list(files))}
    # Last, so it sees every data file the families wrote (and refuses undeclared ones).
    declared = DATA_FILES + LANE_DATA_FILES + edition_chart_data(sources)
    encoded["data.md"] = data_page(published_data(encoded, declared)).encode()
    return encoded
