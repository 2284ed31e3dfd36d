"""The whole build: sources → editions → pages and files in memory → mkdocs → swapped into place.

Everything is gathered and computed first; files are written only when all of it succeeded, into a
scratch folder that replaces the output in one rename (see render/output.py).
"""

from __future__ import annotations

import calendar
import datetime as dt
import gc
import itertools
import os
import shutil
from collections.abc import Callable, Iterator
from contextlib import ExitStack, contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from pipeline.build import stamp as build_stamp
from pipeline.build.memo_store import close_files, load_memo, save_memo
from pipeline.problems import BuildError
from pipeline.publish import output
from pipeline.publish.mkdocs_site import SITE_DIR, build_mkdocs

if TYPE_CHECKING:
    from pipeline.compose.edition import Edition, Parts
    from pipeline.build.memo import Memo
    from pipeline.render.charts import Chart, ChartCache, ChartSpec
    from pipeline.render.datasets import DataFile
    from pipeline.render.drawing import Drawer, Drawing
    from pipeline.render.prices_page import PricesChart
    from pipeline.load.sources import Sources


@dataclass(frozen=True)
class BuildResult:
    editions: int
    files: int
    out: Path


def edition_charts(sources: Sources, editions: list[Edition],
                   chart: Callable[[ChartSpec], Chart] | None = None,
                   spec_of: Callable[[dt.date], ChartSpec] | None = None
                   ) -> dict[dt.date, list[Chart]]:
    """Return the charts of each edition's Context & numbers, by edition date.

    Each chart is computed as of its edition's date, so a later source never changes an earlier
    edition. `spec_of` gives an edition's chart spec when composing already knows it
    (compose.Parts.cheapest_spec).
    """
    charts: dict[dt.date, list[Chart]] = {e.date: [] for e in editions}
    if not sources.prices or sources.rates is None or chart is None:
        return charts
    from pipeline.render.prices_page import cheapest_chart_spec

    profile = sources.series.profiles[0]
    specs = [spec_of(e.date) if spec_of else cheapest_chart_spec(
        sources.prices, sources.rates, profile, e.date) for e in editions]
    for e, spec in zip(editions, specs):
        charts[e.date].append(chart(spec))
    return charts


def edition_chart_data(sources: Sources) -> tuple[DataFile, ...]:
    """Return the Data page entries of the CSVs behind the editions' charts: one family per
    workload profile, each listed only when this build wrote files of it (edition_charts draws
    the first profile's)."""
    if not sources.prices or sources.rates is None:
        return ()
    from pipeline.render.prices_page import cheapest_chart_data

    return tuple(cheapest_chart_data(p) for p in sources.series.profiles)


def site_files(sources: Sources, editions: list[Edition], cache: ChartCache | None = None,
               parts: Parts | None = None, memo: Memo | None = None,
               html_memo: Memo | None = None) -> dict[str, bytes | output.DiskBody | Drawing]:
    """Return every generated file of the site's docs (pages as Markdown), by path in the docs;
    large data files kept from an earlier build stay on disk until published (output.DiskBody),
    and charts may still be being drawn (drawing.Drawing).

    `cache` keeps chart drawings between builds, and hands the missing ones to its drawer;
    without one every chart is drawn here. `parts` are the editions' computed parts (for their
    chart specs); `memo` holds data files of an earlier build by the digest of their inputs (see
    below), `html_memo` each edition's HTML.
    """
    from pipeline.build.memo import Memo

    memo = memo if memo is not None else Memo()
    code = parts.code if parts else ""
    # Imported here, not at the top: an unchanged rebuild returns before needing any of it.
    from pipeline.render.channels import channel_files, editions_per_month
    from pipeline.render.charts import draw
    from pipeline.render.datasets import DATA_FILES, data_page, published_data
    from pipeline.render.datasets_lanes import LANE_DATA_FILES
    from pipeline.render.pages import Rendered, archive_page

    if not editions:
        raise BuildError("no editions to build: editions.yaml lists no date up to today")
    series = sources.series
    rendered = Rendered(html_memo if html_memo is not None else Memo(), code, series)
    chart = cache.chart if cache else draw
    charts_of = edition_charts(sources, editions, chart, parts.cheapest_spec if parts else None)
    archive_charts = [chart(editions_per_month(editions))]
    files: dict[str, str | bytes] = {}
    for edition in editions:
        day = edition.date.isoformat()
        files[f"briefings/{day}.md"] = rendered.page(edition, editions, home=False,
                                                    charts=charts_of[edition.date])
        files[f"briefings/{day}.txt"] = rendered.text(edition)
    files["index.md"] = rendered.page(editions[-1], editions, home=True,
                                     charts=charts_of[editions[-1].date])
    files["archive.md"] = archive_page(editions, archive_charts)
    files.update(channel_files(editions, series, charts_of, html_memo, salt=code,
                               rendered=rendered))
    as_of = editions[-1].date
    files.update(memo.get(hardware_files_key(sources, as_of, parts),
                          lambda: hardware_files(sources, as_of, cache.drawer if cache else None)))
    files.update(price_files(sources, [e.date for e in editions], memo, parts,
                             cache.drawer if cache else None))
    files["sources.md"] = sources_page(sources, editions[-1])
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


def hardware_files(sources: Sources, as_of: dt.date,
                   drawer: Drawer | None = None) -> dict[str, str | bytes | Drawing]:
    """Return the Hardware page, its charts (drawn by `drawer`) and the hardware data files, as
    of the newest edition."""
    if sources.hardware is None:
        return {"hardware.md": "# Hardware\n\nNo hardware sources in this repository.\n"}
    from pipeline.tables.hardware import costed_rows, usd_at_ecb_rates
    from pipeline.tables.hardware_files import hardware_csv, hardware_json
    from pipeline.render.hardware_page import hardware_page

    public = [r for r in sources.hardware_rows if r.published is None or r.published <= as_of]
    costed = costed_rows(public, sources.hardware.costs, as_of, usd_at_ecb_rates(sources.rates))
    page, charts = hardware_page(costed, public, drawer=drawer)
    files: dict[str, str | bytes | Drawing] = {"hardware.md": page,
                                     "data/hardware.csv": hardware_csv(costed),
                                     "data/hardware.json": hardware_json(costed)}
    files.update({f"charts/{name}": svg for name, svg in charts.items()})
    return files


def hardware_files_key(sources: Sources, as_of: dt.date, parts: Parts | None) -> str:
    """Return the digest of what the hardware files read: all hardware sources (the key
    composing computed), and which results and costs are public by `as_of` (not `as_of` itself:
    most new editions leave the Hardware page as it was)."""
    from pipeline.build.keys import hardware_key
    from pipeline.tables.hardware import summarize_rows

    if sources.hardware is None:
        return "no hardware"
    summary = sources.hardware.rows_summary or summarize_rows(sources.hardware_rows)
    seen = [day for day in summary.published if day <= as_of]
    costs = sorted({c.date for c in sources.hardware.costs if c.date <= as_of})
    key = parts.hardware_key if parts else hardware_key(sources, "")
    return f"hardware-files {key} {seen} {costs}"


def price_files(sources: Sources, dates: list[dt.date], memo: Memo | None = None,
                parts: Parts | None = None,
                drawer: Drawer | None = None) -> dict[str, str | bytes | Drawing]:
    """Return the Prices page, its charts and the price data files, as of the newest edition.

    The full price tables do not depend on the editions: `memo` keeps them by the digest of
    every price record and rate (`parts.prices_key`), and the drawings of two of the charts by
    the digest of the numbers they plot (`prices_chart_key`); the parts' memo keeps each
    model's blended rows (price_tables). `drawer` draws the charts (render/drawing.py)."""
    from pipeline.build.memo import Memo
    from pipeline.render.drawing import Drawer

    memo = memo if memo is not None else Memo()
    drawer = drawer if drawer is not None else Drawer(0)
    if not sources.prices or sources.rates is None:
        return {"prices.md": "# Prices\n\nNo price histories in this repository.\n"}
    from pipeline.tables.prices import (
        PRICE_COLUMNS,
        blended_csv,
        blended_groups,
        csv_bytes,
        group_rows,
        json_bytes,
        price_rows,
    )
    from pipeline.render import prices_page

    files, rates, profiles = sources.prices, sources.rates, sources.series.profiles
    as_of = max(dates)
    monday = as_of - dt.timedelta(days=as_of.weekday())
    from pipeline.build.keys import price_keys

    code = parts.code if parts else ""
    every = parts.prices_key if parts else price_keys(sources, [dt.date.max], code)[0]

    def tables() -> dict[str, bytes]:
        rows = price_rows(files, rates)
        return {"data/prices.csv": csv_bytes(rows, PRICE_COLUMNS),
                "data/prices.json": json_bytes(rows, PRICE_COLUMNS)}

    groups = blended_groups(files, rates, profiles, dates, parts.memo if parts else None, code)
    blended = group_rows(groups)
    current = prices_page.current_tables(files, rates, profiles, as_of)
    # Drawn only when what they plot changed: the hour-of-week chart reads the windowed prices of
    # the week (the same from week to week but for DST), the cheapest one the rows in force.
    reused = {
        "charts/hour-of-week.svg": prices_page.hour_of_week(files, monday),
        "charts/cheapest.svg": prices_page.cheapest(files, rates, profiles, as_of,
                                                    current=current),
    }
    # The price history gains a day with every edition, so it is drawn every time; kept in
    # `memo` it would change the memo, whose file (~170 MB at year scale) is then rewritten.
    history = prices_page.price_history(files, rates, profiles[0], dates, blended,
                                        current[profiles[0].id])
    return {
        **memo.get(f"price-tables {every}", tables),
        "prices.md": prices_page.prices_page_md(files, rates, profiles, as_of, current),
        "charts/price-history.svg": drawer.submit(prices_page.svg, history),
        **{path: memo.get(prices_chart_key(chart, code),
                          lambda c=chart: drawer.submit(prices_page.svg, c))
           for path, chart in reused.items()},
        "data/blended.csv": blended_csv(groups, parts.memo if parts else None),
    }


def prices_chart_key(chart: PricesChart, code: str) -> str:
    """Return the digest of what a Prices-page chart plots (a frozen value whose repr holds every
    number, label and date drawn) and of the code and library versions that draw it."""
    import hashlib

    return "prices-chart " + hashlib.sha256(f"{code}\0{chart!r}".encode()).hexdigest()


def sources_page(sources: Sources, latest: Edition) -> str:
    """Return the Sources page: every feed with its health, as of the newest edition."""
    if sources.feeds is None:
        return "# Sources\n\nNo feeds in this repository.\n"
    from pipeline.render.sources_page import sources_page_md

    return sources_page_md(sources.feeds.feeds, sources.snapshots, latest.date, latest.previous)


def write_docs(docs: Path, files: dict[str, bytes | output.DiskBody | Drawing]) -> None:
    """Write the docs folder mkdocs builds from: site/docs and the generated files."""
    shutil.copytree(SITE_DIR / "docs", docs, dirs_exist_ok=True)
    for path, body in files.items():
        (docs / path).parent.mkdir(parents=True, exist_ok=True)
        (docs / path).write_bytes(output.body_bytes(body))


def epoch_of(editions: list[Edition]) -> int:
    """Return the build time we stamp on the site: midnight UTC of the newest edition."""
    newest = max(e.date for e in editions)
    return calendar.timegm(newest.timetuple())


@contextmanager
def long_lived_objects() -> Iterator[None]:
    """Load and compose without the cyclic garbage collector, then exempt what was made from it.

    At a year's scale loading makes millions of objects (price records, entries, memos) that all
    live until the build ends; every full collection walks them all, and seven ran while loading,
    half its time. Nothing made here is garbage, so the collector is held off, and the objects are
    then frozen (`gc.freeze`) so the collections of the rest of the build skip them; the build
    unfreezes them when it ends."""
    enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if not gc.get_freeze_count():  # a caller's own frozen objects are its business
            gc.freeze()
        if enabled:
            gc.enable()


def build_site(root: Path, out: Path, *, today: dt.date) -> BuildResult:
    """Build the site of `root`'s sources into `out`; on any failure `out` stays as it was."""
    # Incremental builds (issue 8): nothing to do when inputs and output are as the last good
    # build left them; this check imports nothing heavy, so the imports below come after it.
    cache = build_stamp.cache_dir(root)
    inputs = build_stamp.inputs_signature(root, out, today)
    with output.build_lock(out):
        stamp = build_stamp.read_stamp(cache, out)
        if build_stamp.is_up_to_date(stamp, inputs, out):
            assert stamp is not None
            return BuildResult(editions=stamp.editions, files=stamp.files, out=out)
    frozen_by_caller = gc.get_freeze_count() > 0
    try:
        return _build(root, out, today, cache, inputs, stamp.kept if stamp else {})
    finally:
        if not frozen_by_caller:  # see long_lived_objects: a caller may build again
            gc.unfreeze()


def _build(root: Path, out: Path, today: dt.date, cache: Path | None,
           inputs: str, kept: dict[str, list]) -> BuildResult:
    from pipeline.compose.edition import compose_reusing
    from pipeline.build.parse_cache import ParseCache
    from pipeline.render.charts import ChartCache
    from pipeline.render.drawing import Drawer, workers_for
    from pipeline.build.page_cache import PageStore, ReusePages, site_key
    from pipeline.render.pages import environment, template_cache
    from pipeline.load.sources import load_sources

    parsed = ParseCache(cache / "parsed" if cache else None)
    # Kept apart: computed edition parts and each edition's HTML (small, many) and the data
    # files (few, large), so a new edition does not rewrite the large ones.
    memo_files = {name: cache / f"{name}.pickle" if cache else None
                  for name in ("edition-parts", "edition-html", "data-files")}
    files_dir = cache / "files" if cache else None
    charts = ChartCache(cache / "charts" if cache else None)
    salt = build_stamp.render_salt()
    # Compiled templates depend on the code that sets up their environments (settings,
    # filters) and on library versions, not only on their source: kept apart per salt.
    templates = cache / "jinja" / salt[:16] if cache else None
    environment().bytecode_cache = template_cache(templates) if templates else None
    # Started first, while this process is small to fork: its worker imports matplotlib while
    # the sources load. One worker when most drawings are kept; a cold build draws them all.
    # Open until the site is swapped in: mkdocs writes the charts last, as they are drawn.
    with Drawer(workers_for(cold=charts.is_empty())) as charts.drawer, ExitStack() as opened:
        with long_lived_objects():
            sources = load_sources(root, parsed)
            parsed.prune()
            memos = {name: load_memo(path, files_dir if name == "data-files" else None)
                     for name, path in memo_files.items()}
            opened.callback(close_files, memos["data-files"])
            editions, parts = compose_reusing(sources, sources.series.edition_dates(today),
                                              memos["edition-parts"], salt)
        files = site_files(sources, editions, charts, parts, memos["data-files"],
                           memos["edition-html"])
        with output.build_lock(out):
            scratch = output.scratch_dir(out)
            try:
                if keep := os.environ.get("BRIEF_KEEP_DOCS"):
                    # For benchmarks/run.py: the same Markdown, for a plain `mkdocs build`.
                    write_docs(Path(keep) / "docs", files)
                built = scratch / "site"
                site_url = str(sources.series.site_url)
                store = PageStore(cache / "mkdocs-pages.marshal" if cache else None)
                site = site_key(SITE_DIR / "mkdocs.yml", [SITE_DIR / "overrides"],
                                site_url=site_url, extra=salt)
                reuse = ReusePages(store, site, files, published=out,
                                   bytecode_dir=templates)
                build_mkdocs(files, built, site_url=site_url, epoch=epoch_of(editions),
                             published=out, kept=kept, plugins={"brief-page-cache": reuse})
                store.save()
                kept_digests: dict[str, str] = {}
                for name, path in memo_files.items():
                    # The data files' large bytes go to files/, opened by the next build.
                    kept_digests |= save_memo(path, memos[name],
                                              files_dir if name == "data-files" else None)
                output.swap_in(built, out, scratch)
                charts.prune()
                if templates is not None:
                    build_stamp.prune_versions(templates)
            finally:
                shutil.rmtree(scratch, ignore_errors=True)
            result = BuildResult(editions=len(editions), files=len(files), out=out)
            build_stamp.write_stamp(cache, out, build_stamp.Stamp(
                inputs=inputs, output=build_stamp.output_signature(out),
                editions=result.editions, files=result.files,
                kept={path: output.published_state(out / path, digest)
                      for path, digest in kept_digests.items()
                      if path in files and output.holds(files[path], digest)}))
    return result
