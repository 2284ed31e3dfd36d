"""A build with something to do: load → tables → compose → render → publish, once each, in order.

What `.cache/` keeps is opened before the stages and kept again after them by `BuildCache` (build_cache.py);
the stages never see it: the editions' tables and the site's files are computed through its store
(compose.py, files.py). Everything is gathered and computed first; files are written only when
all of it succeeded, into a scratch folder that replaces the output in one rename
(publish/output.py).
"""

from __future__ import annotations

import calendar
import dataclasses
import datetime as dt
import gc
import os
import shutil
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path

from pipeline.cache import stamp as build_stamp
from pipeline.compose.edition import compose_editions
from pipeline.compose.edition_tables import EditionTables
from pipeline.compose.types import Edition
from pipeline.limits import MAX_EDITIONS
from pipeline.models.sources import Sources
from pipeline.orchestrate.build_cache import BuildCache
from pipeline.orchestrate.chart_workers import ChartWorkers, workers_for
from pipeline.orchestrate.charts import ChartCache
from pipeline.orchestrate.compose import edition_inputs
from pipeline.orchestrate.files import site_files
from pipeline.orchestrate.result import BuildResult
from pipeline.paths import SERIES, SITE_DOCS
from pipeline.problems import BuildError
from pipeline.publish import output
from pipeline.publish.mkdocs_site import build_mkdocs
from pipeline.render.chart_image import ChartImage
from pipeline.render.shell_page import SearchEntry, ShellPage, shell_page_md

Files = dict[str, bytes | output.DiskBody | ChartImage | ShellPage | SearchEntry]


def write_docs(docs: Path, files: Files) -> None:
    """Write the docs folder mkdocs builds from: site/docs and the generated files."""
    shutil.copytree(SITE_DOCS, docs, dirs_exist_ok=True)
    for path, body in files.items():
        if isinstance(body, SearchEntry):
            continue
        if isinstance(body, ShellPage):
            # As a page of its own, so plain mkdocs renders every page the site has.
            path, body = path.removesuffix("/index.html") + ".md", shell_page_md(body)
        (docs / path).parent.mkdir(parents=True, exist_ok=True)
        (docs / path).write_bytes(output.body_bytes(body))


def epoch_of(editions: list[Edition]) -> int:
    """Return the build time we stamp on the site: midnight UTC of the newest edition."""
    newest = max(e.date for e in editions)
    return calendar.timegm(newest.timetuple())


@contextmanager
def long_lived_objects() -> Iterator[None]:
    """Load and compose without the cyclic garbage collector, then exempt what was made from it.

    At a year's scale loading makes millions of objects (price records, entries, kept values) that all
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


def build_full(root: Path, out: Path, today: dt.date, cache: Path | None, inputs: str,
               kept: dict[str, list], code: build_stamp.Code = build_stamp.CHECKOUT,
               files_apart_from: int | None = None, strict: bool = False,
               published: Callable[[], None] | None = None) -> BuildResult:
    """Build the site of `root` into `out`, reusing what `cache` keeps; return what was built
    (build_site says what the arguments are)."""
    with BuildCache(cache, code, files_apart_from) as build_cache, \
            ChartWorkers(workers_for(cold := build_cache.store.is_empty("charts")),
                         ready_to_draw=cold) as workers:
        # The chart workers start first, while this process is small to fork, and stay until
        # the site is swapped in (mkdocs writes the charts last, as they are drawn).
        with long_lived_objects():
            sources = build_cache.load(root, strict=strict)
            dates = edition_dates(sources, today)
            tables = EditionTables(sources, dates)  # each built when first read
            keys = build_cache.keys(sources, dates, tables)
            editions = compose_editions(sources, dates,
                                        edition_inputs(tables, dates, build_cache.store, keys))
        files = site_files(sources, editions, build_cache.store,
                           ChartCache(build_cache.store, workers), tables, keys,
                           templates=code.templates)
        publish(files, sources, editions, out, build_cache, kept, inputs, published)
    return BuildResult(editions=len(editions), files=len(files), out=out,
                       warnings=tuple(sources.warnings))


def edition_dates(sources: Sources, today: dt.date) -> list[dt.date]:
    """Return the series' edition dates up to `today`, oldest first."""
    dates = sorted(sources.series.edition_dates(today))
    if len(dates) > MAX_EDITIONS:  # a cadence from long ago: `dates` are checked on load
        raise BuildError(f"{SERIES.as_posix()}: its cadence gives {len(dates):,} "
                         f"editions by {today}, more than the {MAX_EDITIONS:,} a series "
                         "may have (pipeline/limits.py): start a new series")
    return dates


def publish(files: Files, sources: Sources, editions: list[Edition], out: Path, build_cache: BuildCache,
            kept: dict[str, list], inputs: str,
            published: Callable[[], None] | None = None) -> None:
    """Build the site of `files` with mkdocs aside, swap it in for `out`, keep what the next
    build reuses and stamp it. `kept`: the data files the last build published from bytes kept
    on disk; `inputs`: the signature of this build's inputs (stamp.py); `published`: called
    once the new site is in place, before the old one is removed and the cache written."""
    output.refuse_oversized(files)
    output.kill_point("after-render")
    with output.build_lock(out):
        scratch = output.scratch_dir(out)
        try:
            if keep := os.environ.get("BRIEF_KEEP_DOCS"):
                # For benchmarks/run.py: the same Markdown, for a plain `mkdocs build`.
                write_docs(Path(keep) / "docs", files)
            built = scratch / "site"
            topic_feeds = [{"title": t.title, "path": f"feed-{t.id}"}
                           for t in sources.series.topics]
            build_mkdocs(files, built, site_url=str(sources.series.site_url),
                         epoch=epoch_of(editions), published=out, kept=kept,
                         plugins={"brief-page-cache": build_cache.page_plugin(
                             sources, files, out, topic_feeds)},
                         extra={"topic_feeds": topic_feeds})
            output.refuse_oversized_site(built)
            output.kill_point("before-swap")
            output.swap_in(built, out, scratch)
            if published is not None:
                published()  # the new pages are in place: a preview reloads them now
            kept_digests = build_cache.keep()
            build_cache.prune()
        finally:
            shutil.rmtree(scratch, ignore_errors=True)
        build_stamp.write_stamp(build_cache.cache, out, build_stamp.Stamp(
            inputs=inputs, output=build_stamp.output_signature(out),
            editions=len(editions), files=len(files),
            warnings=[dataclasses.asdict(p) for p in sources.warnings],
            kept={path: output.published_state(out / path, digest)
                  for path, digest in kept_digests.items()
                  if path in files and output.holds(files[path], digest)}))
