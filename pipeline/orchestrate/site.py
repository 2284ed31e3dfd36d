"""`build_site`: the build, from the sources of a repository to its site; `read_sources`: the
sources as a build reads them, and `one_edition` an edition as it composes it, for the commands
that read them without building.

A tree whose inputs and output are as the last good build left them has nothing to do (stamp.py);
finding that out imports nothing heavy. Otherwise orchestrate/full.py does the work.
"""

from __future__ import annotations

import datetime as dt
import gc
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING

from pipeline.cache import stamp as build_stamp
from pipeline.orchestrate.result import BuildResult
from pipeline.problems import BuildError, Problem
from pipeline.publish import output

if TYPE_CHECKING:
    from pipeline.compose.edition_tables import EditionTables
    from pipeline.compose.types import Edition
    from pipeline.models.sources import Sources

__all__ = ["BuildResult", "build_site", "one_edition", "read_sources"]


def read_sources(root: Path, *, strict: bool = False) -> Sources:
    """Return the sources under `root` (`brief check`), each file parsed and each
    value derived from them (the held-back listings) as the last build did from the same bytes
    when `.cache/` keeps it: the bundled sources then load in 0.3 s, not 1.9. The cache is read,
    never written, so these commands may run beside a build (a torn value is computed again)."""
    from pipeline.orchestrate.build_cache import BuildCache

    with BuildCache(build_stamp.cache_dir(root), build_stamp.CHECKOUT) as cache:
        return cache.load(root, strict=strict)


def one_edition(root: Path, day: dt.date) -> tuple[Sources, Edition, EditionTables]:
    """Return the sources under `root`, the edition of `day` and the tables of the editions up
    to it it was composed from (`brief email`), as a build composes it: its parts as the last
    build kept them when `.cache/` keeps them (read, never written, as read_sources), else
    computed now; the editions before it are not composed."""
    from pipeline.compose.edition import compose_edition
    from pipeline.compose.edition_tables import EditionTables
    from pipeline.orchestrate.build_cache import BuildCache
    from pipeline.orchestrate.compose import edition_inputs

    with BuildCache(build_stamp.cache_dir(root), build_stamp.CHECKOUT) as cache:
        sources = cache.load(root)
        dates = [d for d in sources.series.edition_dates(max(day, dt.date.today())) if d <= day]
        if day not in dates:
            known = ", ".join(d.isoformat() for d in dates[-5:]) or "none"
            raise BuildError(f"{day} is not an edition date (latest editions up to it: {known})")
        # The tables of every edition up to it: the price index runs over their dates, as the
        # site's copy of it was composed.
        tables = EditionTables(sources, dates)
        keys = cache.keys(sources, dates, tables)
        inputs = edition_inputs(tables, dates, cache.store, keys, only=day)
        previous = dates[-2] if len(dates) > 1 else None
        return sources, compose_edition(sources, day, previous, inputs[day]), tables


def build_site(root: Path, out: Path, *, today: dt.date, code: build_stamp.Code = build_stamp.CHECKOUT,
               files_apart_from: int | None = None, strict: bool = False,
               published: Callable[[], None] | None = None) -> BuildResult:
    """Build the site of `root`'s sources into `out`; on any failure `out` stays as it was.

    `code` is the checkout whose code and templates shape the output (this one); data files of
    `files_apart_from` bytes or more are kept apart in `.cache/store/blobs/` (default: the store's);
    `strict` makes every warning about the sources an error; `published` is called once a new
    site is in place, before the old one is removed (`brief serve` reloads its pages then)."""
    # Incremental builds (issue 8): nothing to do when inputs and output are as the last good
    # build left them; this check imports nothing heavy, so the imports below come after it.
    cache = build_stamp.cache_dir(root)
    inputs = build_stamp.inputs_signature(root, out, today, code, strict=strict)
    with output.build_lock(out):
        stamp = build_stamp.read_stamp(cache, out)
        if "stamp" not in build_stamp.reuse_off() and build_stamp.is_up_to_date(
                stamp, inputs, out):
            assert stamp is not None
            return BuildResult(editions=stamp.editions, files=stamp.files, out=out,
                               warnings=tuple(Problem(**w) for w in stamp.warnings))
    frozen_by_caller = gc.get_freeze_count() > 0
    try:
        # Imported only now: the models, tables and renderers take ~0.3 s to import, several
        # times an unchanged build.
        from pipeline.orchestrate.full import build_full

        return build_full(root, out, today, cache, inputs, stamp.kept if stamp else {}, code,
                          files_apart_from, strict, published)
    finally:
        if not frozen_by_caller:  # see full.long_lived_objects: a caller may build again
            gc.unfreeze()
