"""What `.cache/` keeps for one build, opened before the stages run and kept or pruned after the
site is swapped in: the one place that knows where each kept thing lives and under which code.

Each kind of kept value sits in the one store under the digest of the code that makes it (the
module of the function and what it imports, cache/code.py): parsed files (load), the editions'
computed parts (compose), each edition's HTML and the data files (render), chart drawings
(charts), each page's HTML from mkdocs (publish).
"""

from __future__ import annotations

import datetime as dt
from contextlib import ExitStack
from pathlib import Path
from typing import Any, Self

from pipeline.cache import stamp as build_stamp
from pipeline.cache.bytecode import StoreBytecode
from pipeline.cache.code import CodeDigests
from pipeline.cache.keys import InputDigests, RecordDigests
from pipeline.cache.page_cache import MKDOCS, PageStore, ReusePages, site_key
from pipeline.cache.parse_cache import ParseCache
from pipeline.cache.store import Store
from pipeline.compose.edition_tables import EditionTables
from pipeline.load.sources import load_sources
from pipeline.models.sources import Sources
from pipeline.paths import MKDOCS_CONFIG, STORE, THEME_OVERRIDES
from pipeline.publish.output import link_published
from pipeline.render.pages import environment


class BuildCache:
    """The kept values of one build of `code`'s checkout under `cache` (nothing kept when None).

    Use it as a context manager around the stages: leaving it closes the kept files it opened."""

    def __init__(self, cache: Path | None, code: build_stamp.Code,
                 files_apart_from: int | None = None) -> None:
        self.cache, self.templates = cache, code.templates
        self.code = CodeDigests(code)
        off = build_stamp.reuse_off()
        self.store = Store(cache / STORE if cache else None, self.code, ignored=off,
                           **({} if files_apart_from is None
                              else {"blob_min_bytes": files_apart_from}))
        self.parsed = ParseCache(self.store)
        compiled = cache is not None and "bytecode" not in off
        env = environment(code.templates)  # one a process: it must not hold on to this store
        env.bytecode_cache = (StoreBytecode(self.store, "render", environment.__module__)
                              if compiled else None)
        self._theme = StoreBytecode(self.store, "publish", MKDOCS) if compiled else None
        self._pages: PageStore | None = None
        self._opened = ExitStack()
        self._opened.callback(self.store.close)
        self._opened.callback(setattr, env, "bytecode_cache", None)

    def __enter__(self) -> Self:
        return self

    def __exit__(self, *exc: object) -> None:
        self._opened.close()

    def load(self, root: Path, *, strict: bool = False) -> Sources:
        """Return the sources under `root`, each file parsed, and each value derived from
        several (the held-back listings) computed, or as an earlier build did from the same
        bytes."""
        return load_sources(root, self.parsed.parse, strict=strict, derive=self.parsed.derive)

    def keys(self, sources: Sources, dates: list[dt.date], parts: EditionTables) -> InputDigests:
        """Return what each computed part of the editions of `dates` reads, as digests
        (cache/keys.py), from what the parse cache read (call once the sources are loaded)."""
        return InputDigests(sources, dates, parts, RecordDigests(sources, self.parsed.derived),
                        self.parsed.file_key)

    def page_plugin(self, sources: Sources, files: dict[str, Any], published: Path,
                    topic_feeds: list[dict[str, str]]) -> ReusePages:
        """Return the mkdocs plugin that reuses the HTML of unchanged pages."""
        self._pages = PageStore(self.store)
        # Each page's head links the topic feeds: they are part of every page's key.
        site = site_key(MKDOCS_CONFIG, [THEME_OVERRIDES], site_url=str(sources.series.site_url),
                        extra=f"{self.code('publish', MKDOCS)} {topic_feeds!r}")
        return ReusePages(self._pages, site, files, published=published,
                          link=link_published, bytecode=self._theme)

    def keep(self) -> dict[str, str]:
        """Keep what this build used for the next one; return the digest of each data file
        kept on disk, by its path in the site (the next build links those)."""
        return self.store.keep()

    def prune(self) -> None:
        """Delete what no build of this code needs (call once the site is swapped in)."""
        self.store.prune()
