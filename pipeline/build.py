"""The whole build: sources → editions → pages and files in memory → mkdocs → swapped into place.

Everything is gathered and computed first; files are written only when all of it succeeded, into a
scratch folder that replaces the output in one rename (see render/output.py).
"""

from __future__ import annotations

import calendar
import datetime as dt
import itertools
import shutil
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from pipeline.compose import Edition, compose_editions
from pipeline.problems import BuildError
from pipeline.render import output
from pipeline.render.channels import channel_files, editions_per_month
from pipeline.render.charts import Chart, ChartCache, ChartSpec, draw
from pipeline.render.datasets import data_page, published_data
from pipeline.render.mkdocs_site import SITE_DIR, build_mkdocs
from pipeline.render.pages import archive_page, edition_page, text_edition
from pipeline.sources import Sources, load_sources


@dataclass(frozen=True)
class BuildResult:
    editions: int
    files: int
    out: Path


def edition_charts(sources: Sources, editions: list[Edition],
                   chart: Callable[[ChartSpec], Chart] = draw) -> dict[dt.date, list[Chart]]:
    """Return the charts of each edition's Context & numbers, by edition date.

    Empty until the lanes with figures (prices, hardware) add theirs here; each chart must be
    computed as of its edition's date, so a later source never changes an earlier edition.
    """
    return {e.date: [] for e in editions}


def site_files(sources: Sources, editions: list[Edition],
               cache: ChartCache | None = None) -> dict[str, bytes]:
    """Return every generated file of the docs folder, by path relative to it.

    `cache` keeps chart drawings between builds; without one every chart is drawn.
    """
    if not editions:
        raise BuildError("no editions to build: editions.yaml lists no date up to today")
    series = sources.series
    chart = cache.chart if cache else draw
    charts_of = edition_charts(sources, editions, chart)
    archive_charts = [chart(editions_per_month(editions))]
    files: dict[str, str | bytes] = {}
    for edition in editions:
        day = edition.date.isoformat()
        files[f"briefings/{day}.md"] = edition_page(edition, series, editions, home=False,
                                                    charts=charts_of[edition.date])
        files[f"briefings/{day}.txt"] = text_edition(edition)
    files["index.md"] = edition_page(editions[-1], series, editions, home=True,
                                     charts=charts_of[editions[-1].date])
    files["archive.md"] = archive_page(editions, archive_charts)
    for c in itertools.chain(archive_charts, *charts_of.values()):
        files.update(c.files())
    files.update(channel_files(editions, series, charts_of))
    encoded = {path: body.encode() if isinstance(body, str) else body
               for path, body in files.items()}
    # Last, so it sees every data file the lanes above wrote (and refuses undeclared ones).
    encoded["data.md"] = data_page(published_data(encoded)).encode()
    return encoded


def epoch_of(editions: list[Edition]) -> int:
    """Return the build time we stamp on the site: midnight UTC of the newest edition."""
    newest = max(e.date for e in editions)
    return calendar.timegm(newest.timetuple())


def build_site(root: Path, out: Path, *, today: dt.date) -> BuildResult:
    """Build the site of `root`'s sources into `out`; on any failure `out` stays as it was."""
    sources = load_sources(root)
    editions = compose_editions(sources, sources.series.edition_dates(today))
    files = site_files(sources, editions, ChartCache(root / ".cache" / "charts"))
    with output.build_lock(out):
        scratch = output.scratch_dir(out)
        try:
            docs = scratch / "docs"
            shutil.copytree(SITE_DIR / "docs", docs)
            for path, body in files.items():
                target = docs / path
                target.parent.mkdir(parents=True, exist_ok=True)
                target.write_bytes(body)
            built = scratch / "site"
            build_mkdocs(docs, built, site_url=str(sources.series.site_url),
                         epoch=epoch_of(editions))
            output.swap_in(built, out, scratch)
        finally:
            shutil.rmtree(scratch, ignore_errors=True)
    return BuildResult(editions=len(editions), files=len(files), out=out)
