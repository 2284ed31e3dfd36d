"""Every generated file of the site's docs, in memory: edition pages, text editions, channels,
the Prices, Market, Market economics, Changes, Discrepancies, Hardware, Sources and Data pages,
charts and data files, reusing what an earlier build made of them where what it was made from is unchanged."""

from __future__ import annotations

import datetime as dt
import itertools
from collections.abc import Callable
from pathlib import Path

import pandas as pd

from pipeline.cache.charts import ChartCache
from pipeline.cache.keys import LaneKeys, hardware_files_key
from pipeline.cache.store import Store
from pipeline.compose.charts import ChartSpec
from pipeline.compose.parts import Parts, curated_models
from pipeline.compose.types import Edition
from pipeline.models.sources import Sources
from pipeline.orchestrate.compose import chart_spec
from pipeline.orchestrate.editions import edition_files
from pipeline.orchestrate.models import market_model_files
from pipeline.orchestrate.prices import price_files
from pipeline.paths import TEMPLATES
from pipeline.problems import BuildError
from pipeline.publish import output
from pipeline.render.changes_page import changes_files
from pipeline.render.channels import editions_per_month
from pipeline.render.chart_figures import draw
from pipeline.render.charts import Chart
from pipeline.render.datasets import DATA_FILES, DataFile, data_page, published_data
from pipeline.render.datasets_lanes import LANE_DATA_FILES
from pipeline.render.discrepancies_page import discrepancies_page_md
from pipeline.render.drawing import NOW, Drawing
from pipeline.render.economics_page import economics_files
from pipeline.render.hardware_page import hardware_files
from pipeline.render.pages import archive_page
from pipeline.render.prices_page import cheapest_chart_data, history_chart_data
from pipeline.render.sources_page import sources_page
from pipeline.render.subscribe_page import subscribe_page
from pipeline.tables.catalogue_records import committed_moves


def edition_charts(sources: Sources, editions: list[Edition],
                   chart: Callable[[ChartSpec], Chart] | None = None,
                   spec_of: Callable[[dt.date, dt.date | None], ChartSpec] | None = None
                   ) -> dict[dt.date, list[Chart]]:
    """Return the charts of each edition's Context & numbers, by edition date.

    Each chart is computed as of its edition's date, so a later source never changes an earlier
    edition. `spec_of` gives an edition's chart spec when composing already knows it
    (compose.parts.Parts.cheapest_spec).
    """
    charts: dict[dt.date, list[Chart]] = {e.date: [] for e in editions}
    if not sources.prices or sources.rates is None or chart is None:
        return charts
    # Without the composition's parts, one table of blended prices for all the editions.
    spec_of = spec_of or Parts(sources, [e.date for e in editions]).cheapest_spec
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
               charts: ChartCache | None = None, parts: Parts | None = None,
               keys: LaneKeys | None = None, templates: Path = TEMPLATES,
               ) -> dict[str, bytes | output.DiskBody | Drawing]:
    """Return every generated file of the site's docs (pages as Markdown), by path in the docs;
    large data files kept from an earlier build stay on disk until published (output.DiskBody),
    and charts may still be being drawn (drawing.Drawing).

    `store` keeps what an earlier build rendered and drew (nothing kept without one); `charts`
    keeps chart drawings between builds, and hands the missing ones to its drawer (without one
    every chart is drawn here); `parts` and `keys` are the editions' tables and what their parts
    read (orchestrate/compose.py); `templates` is the folder of templates to render with.
    """
    store = store if store is not None else Store(None, {})
    if not editions:
        raise BuildError("no editions to build: editions.yaml lists no date up to today")
    parts = parts if parts is not None else Parts(sources, [e.date for e in editions])
    keys = keys if keys is not None else LaneKeys(sources, [e.date for e in editions], parts)
    drawer = charts.drawer if charts else NOW
    chart = charts.chart if charts else draw
    charts_of = edition_charts(sources, editions, chart,
                               lambda d, p: chart_spec(parts, store, keys, d, p))
    archive_charts = [chart(editions_per_month(editions))]
    files: dict[str, str | bytes] = {}
    files.update(edition_files(sources, editions, charts_of, store, templates))
    files["archive.md"] = archive_page(editions, archive_charts, templates)
    files["subscribe.md"] = subscribe_page(sources.series)
    as_of = editions[-1].date
    files.update(store.cached("render", lambda: hardware_files(sources, as_of, drawer),
                              (hardware_files_key(sources, as_of, keys.hardware),)))
    files.update(price_files(sources, [e.date for e in editions], store, parts, keys, drawer))
    files["sources.md"] = sources_page(sources, editions[-1])
    # Every move with the commit that made it: data/changes.csv and the Changes pages.
    changes = committed_moves(parts.catalogue_changes(), sources.catalogue_commits)
    files.update(market_model_files(sources, as_of, changes, store, drawer))
    # Each page in the navigation is written, saying so where the repository has nothing for it.
    files.update(changes_files(changes, sources.published_catalogues(),
                               curated_models(sources, as_of), as_of))
    files["discrepancies.md"] = discrepancies_page_md(sources, as_of)
    previous = editions[-2].date if len(editions) > 1 else None
    # By what the index and the cost to serve read and the edition dates: an entry's edit
    # keeps the page, its charts and data files.
    files.update(store.cached(
        "render", lambda: economics_files(parts.market_economics(), parts.cost_table(as_of)
                                          if parts.market_economics() else pd.DataFrame(),
                                          as_of, previous, drawer),
        ("economics-page", keys.economics, [e.date for e in editions])))
    for c in itertools.chain(archive_charts, *charts_of.values()):
        files.update(c.files())
    # Popped as they are encoded, so the text and its bytes are not both held for every file.
    # Drawings stay as they are: mkdocs builds the pages while the worker finishes them, and
    # they are written last (mkdocs_site._Publish).
    encoded = {path: body.encode() if isinstance(body, str) else body
               for path, body in ((p, files.pop(p)) for p in list(files))}
    # Last, so it sees every data file the lanes above wrote (and refuses undeclared ones).
    declared = DATA_FILES + LANE_DATA_FILES + edition_chart_data(sources)
    encoded["data.md"] = data_page(published_data(encoded, declared)).encode()
    return encoded
