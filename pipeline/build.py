"""The whole build: sources → editions → pages and files in memory → mkdocs → swapped into place.

Everything is gathered and computed first; files are written only when all of it succeeded, into a
scratch folder that replaces the output in one rename (see render/output.py).
"""

from __future__ import annotations

import calendar
import datetime as dt
import os
import shutil
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from pipeline import build_stamp
from pipeline.problems import BuildError
from pipeline.render import output
from pipeline.render.mkdocs_site import SITE_DIR, build_mkdocs

if TYPE_CHECKING:
    from pipeline.compose import Edition
    from pipeline.sources import Sources


@dataclass(frozen=True)
class BuildResult:
    editions: int
    files: int
    out: Path


def site_files(sources: Sources, editions: list[Edition]) -> dict[str, bytes]:
    """Return every generated file of the docs folder, by path relative to it."""
    from pipeline.render.pages import archive_page, edition_page, text_edition

    if not editions:
        raise BuildError("no editions to build: editions.yaml lists no date up to today")
    series = sources.series
    files: dict[str, str | bytes] = {}
    for edition in editions:
        day = edition.date.isoformat()
        files[f"briefings/{day}.md"] = edition_page(edition, series, editions, home=False)
        files[f"briefings/{day}.txt"] = text_edition(edition)
    files["index.md"] = edition_page(editions[-1], series, editions, home=True)
    files["archive.md"] = archive_page(editions)
    return {path: body.encode() if isinstance(body, str) else body for path, body in files.items()}


def epoch_of(editions: list[Edition]) -> int:
    """Return the build time we stamp on the site: midnight UTC of the newest edition."""
    newest = max(e.date for e in editions)
    return calendar.timegm(newest.timetuple())


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

    from pipeline.compose import compose_editions
    from pipeline.render.page_cache import PageStore, ReusePages, site_key
    from pipeline.sources import load_sources

    sources = load_sources(root)
    editions = compose_editions(sources, sources.series.edition_dates(today))
    files = site_files(sources, editions)
    with output.build_lock(out):
        scratch = output.scratch_dir(out)
        try:
            docs = scratch / "docs"
            shutil.copytree(SITE_DIR / "docs", docs)
            for path, body in files.items():
                target = docs / path
                target.parent.mkdir(parents=True, exist_ok=True)
                target.write_bytes(body)
            if keep := os.environ.get("BRIEF_KEEP_DOCS"):
                # For benchmarks/run.py: the same Markdown, for a plain `mkdocs build` beside ours.
                shutil.copytree(docs, Path(keep) / "docs", dirs_exist_ok=True)
            built = scratch / "site"
            site_url = str(sources.series.site_url)
            store = PageStore(cache / "mkdocs-pages.marshal" if cache else None)
            reuse = ReusePages(store, site_key(SITE_DIR / "mkdocs.yml", [SITE_DIR / "overrides"],
                                               site_url=site_url), files,
                               bytecode_dir=cache / "jinja" if cache else None)
            build_mkdocs(docs, built, site_url=site_url, epoch=epoch_of(editions),
                         plugins={"brief-page-cache": reuse})
            store.save()
            output.swap_in(built, out, scratch)
        finally:
            shutil.rmtree(scratch, ignore_errors=True)
        result = BuildResult(editions=len(editions), files=len(files), out=out)
        build_stamp.write_stamp(cache, out, build_stamp.Stamp(
            inputs=inputs, output=build_stamp.output_signature(out),
            editions=result.editions, files=result.files))
    return result
