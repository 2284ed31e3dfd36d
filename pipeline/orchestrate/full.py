"""A build with something to do: load → compose → render → publish, reusing what `.cache/` keeps.

Everything is gathered and computed first; files are written only when all of it succeeded, into a
scratch folder that replaces the output in one rename (publish/output.py).
"""

from __future__ import annotations

import calendar
import datetime as dt
import gc
import os
import shutil
from collections.abc import Iterator
from contextlib import ExitStack, contextmanager
from pathlib import Path

from pipeline.cache import stamp as build_stamp
from pipeline.cache.charts import ChartCache
from pipeline.cache.code import stage_code
from pipeline.cache.keys import ModelDigests
from pipeline.cache.memo_store import close_files, load_memo, save_memo
from pipeline.cache.page_cache import PageStore, ReusePages, site_key
from pipeline.cache.parse_cache import ParseCache
from pipeline.compose.edition import compose_editions
from pipeline.compose.types import Edition
from pipeline.limits import MAX_EDITIONS
from pipeline.load.sources import load_sources
from pipeline.orchestrate.drawer import Drawer, workers_for
from pipeline.orchestrate.files import site_files
from pipeline.orchestrate.parts import ReusedParts
from pipeline.orchestrate.result import BuildResult
from pipeline.paths import (
    CHART_DRAWINGS,
    DATA_FILE_BODIES,
    MKDOCS_CONFIG,
    PAGE_HTML,
    PARSED_FILES,
    SERIES,
    SITE_DOCS,
    TEMPLATE_BYTECODE,
    THEME_OVERRIDES,
    memo_path,
)
from pipeline.problems import BuildError
from pipeline.publish import output
from pipeline.publish.mkdocs_site import build_mkdocs
from pipeline.render.drawing import Drawing
from pipeline.render.pages import environment, template_cache


def write_docs(docs: Path, files: dict[str, bytes | output.DiskBody | Drawing]) -> None:
    """Write the docs folder mkdocs builds from: site/docs and the generated files."""
    shutil.copytree(SITE_DOCS, docs, dirs_exist_ok=True)
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


def build_full(root: Path, out: Path, today: dt.date, cache: Path | None, inputs: str,
               kept: dict[str, list], code: build_stamp.Code = build_stamp.CHECKOUT,
               files_apart_from: int | None = None, strict: bool = False) -> BuildResult:
    """Build the site of `root` into `out`, reusing what `cache` keeps; return what was built
    (build_site says what the arguments are)."""
    # Each stage's kept values under the digest of that stage's own code (cache/code.py).
    digests = stage_code(code)
    parsed = ParseCache(cache / PARSED_FILES if cache else None, digests.load)
    # Kept apart: computed edition parts and each edition's HTML (small, many) and the data
    # files (few, large), so a new edition does not rewrite the large ones.
    memo_files = {name: memo_path(cache, name) if cache else None
                  for name in ("edition-parts", "edition-html", "data-files")}
    files_dir = cache / DATA_FILE_BODIES if cache else None
    charts = ChartCache(cache / CHART_DRAWINGS if cache else None, code=digests.charts)
    # Compiled templates depend on the code that sets up their environments (settings,
    # filters) and on library versions, not only on their source: kept apart per render code.
    templates = cache / TEMPLATE_BYTECODE / digests.render[:16] if cache else None
    environment(code.templates).bytecode_cache = template_cache(templates) if templates else None
    # Started first, while this process is small to fork: its worker imports matplotlib while
    # the sources load. One worker when most drawings are kept; a cold build draws them all.
    # Open until the site is swapped in: mkdocs writes the charts last, as they are drawn.
    with Drawer(workers_for(cold=charts.is_empty())) as charts.drawer, ExitStack() as opened:
        with long_lived_objects():
            sources = load_sources(root, parsed.parse, strict=strict)
            parsed.prune()
            memos = {name: load_memo(path, files_dir if name == "data-files" else None)
                     for name, path in memo_files.items()}
            opened.callback(close_files, memos["data-files"])
            dates = sorted(sources.series.edition_dates(today))
            if len(dates) > MAX_EDITIONS:  # a cadence from long ago: `dates` are checked on load
                raise BuildError(f"{SERIES.as_posix()}: its cadence gives {len(dates):,} "
                                 f"editions by {today}, more than the {MAX_EDITIONS:,} a series "
                                 "may have (pipeline/limits.py): start a new series")
            parts = ReusedParts(sources, dates, memos["edition-parts"], digests.compose,
                                ModelDigests(sources, parsed.derived), parsed.file_key)
            editions = compose_editions(sources, dates, parts)
        files = site_files(sources, editions, charts, parts, memos["data-files"],
                           memos["edition-html"], templates=code.templates,
                           code=(digests.render, digests.charts))
        output.refuse_oversized(files)
        output.kill_point("after-render")
        with output.build_lock(out):
            scratch = output.scratch_dir(out)
            try:
                if keep := os.environ.get("BRIEF_KEEP_DOCS"):
                    # For benchmarks/run.py: the same Markdown, for a plain `mkdocs build`.
                    write_docs(Path(keep) / "docs", files)
                built = scratch / "site"
                site_url = str(sources.series.site_url)
                store = PageStore(cache / PAGE_HTML if cache else None)
                # Each page's head links the topic feeds: they are part of every page's key.
                topic_feeds = [{"title": t.title, "path": f"feed-{t.id}"}
                               for t in sources.series.topics]
                site = site_key(MKDOCS_CONFIG, [THEME_OVERRIDES],
                                site_url=site_url, extra=f"{digests.publish} {topic_feeds!r}")
                reuse = ReusePages(store, site, files, published=out,
                                   bytecode_dir=templates)
                build_mkdocs(files, built, site_url=site_url, epoch=epoch_of(editions),
                             published=out, kept=kept, plugins={"brief-page-cache": reuse},
                             extra={"topic_feeds": topic_feeds})
                store.save()
                kept_digests: dict[str, str] = {}
                for name, path in memo_files.items():
                    # The data files' large bytes go to files/, opened by the next build.
                    kept_digests |= save_memo(
                        path, memos[name], files_dir if name == "data-files" else None,
                        **({} if files_apart_from is None else {"apart_from": files_apart_from}))
                output.refuse_oversized_site(built)
                output.kill_point("before-swap")
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
