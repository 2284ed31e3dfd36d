"""The mkdocs build: site/docs and the generated files, from memory → a static site folder."""

from __future__ import annotations

import functools
import logging
import os
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from pathlib import Path
from typing import Any
from urllib.parse import urljoin

from pipeline.paths import MKDOCS_CONFIG, SITE_DOCS
from pipeline.problems import BuildError
from pipeline.publish.output import DiskBody, kill_point, link_unchanged, write_or_link
from pipeline.publish.shell_pages import ShellPages
from pipeline.render.chart_image import ChartImage
from pipeline.render.shell_page import SearchEntry, ShellPage


@contextmanager
def _env(name: str, value: str) -> Iterator[None]:
    old = os.environ.get(name)
    os.environ[name] = value
    try:
        yield
    finally:
        if old is None:
            os.environ.pop(name, None)
        else:
            os.environ[name] = old


class _Collect(logging.Handler):
    def __init__(self) -> None:
        super().__init__(logging.WARNING)
        self.messages: list[str] = []

    def emit(self, record: logging.LogRecord) -> None:
        self.messages.append(record.getMessage())


class _Publish:
    """Hand mkdocs the build's files from memory, and put every file but a page into the site by
    `output.write_or_link`.

    The build's ~2,000 files were written into a docs folder for mkdocs to read back, then linked
    or copied into the site: on these disks creating a file is what costs (publish/output.py). Now
    each is a generated file of mkdocs' list (so link checks, the sitemap and search see it), and
    mkdocs' copy of a static file (ours, the docs folder's or the theme's) becomes one link from
    the published site when the bytes are the same, or one write. No file of the site is a second
    name of a file outside it (the repository, the theme), so editing the site changes nothing
    else."""

    def __init__(self, files: Mapping[str, bytes | DiskBody | ShellPage | SearchEntry],
                 published: Path | None,
                 kept: Mapping[str, list] | None = None) -> None:
        self.shell = ShellPages({p: b for p, b in files.items() if isinstance(b, ShellPage)},
                                {p: b for p, b in files.items() if isinstance(b, SearchEntry)})
        self.files = {p: b for p, b in files.items()
                      if not isinstance(b, ShellPage | SearchEntry)}
        self.files.update({p: md.encode() for p, md in self.shell.sources().items()})
        self.published = published
        self.kept = kept or {}
        """What the last build published from DiskBody files, by path (output.published_state)."""
        self.made: set[str] = set()
        self.drawings: list[tuple[Path, ChartImage, Path | None]] = []

    def finish(self) -> None:
        """Write the charts, after mkdocs built everything else: the drawer's workers draw them
        meanwhile (a cold build of the bundled sources waited 0.6 s for its charts before
        mkdocs could start). Nothing in mkdocs reads a chart's bytes before this."""
        kill_point("mid-write")  # every page and static file written, no chart yet
        for dest, drawing, published in self.drawings:
            write_or_link(dest, drawing.result(), published)
        if self.shell.pages or self.shell.entries:
            self.shell.write(self.site_dir, self.published, self.site_url)

    def on_page_context(self, context: Any, *, page: Any, config: Any, nav: Any) -> Any:
        # Material names the page's own URL as its canonical one, whatever its front matter
        # says: a copy of another page (the Market sorted otherwise, render/market_sorts.py)
        # names that page (`canonical:`, its path in the site) in its link and og:url. The
        # sitemap, made before the pages, lists the copy at its own URL.
        if page.meta.get("canonical") and config.site_url:
            page.canonical_url = urljoin(config.site_url, str(page.meta["canonical"]))
        return context

    def on_post_page(self, output: str, *, page: Any, config: Any) -> str:
        return self.shell.capture(page.file.src_uri, page.url, output)

    # After every other plugin, the page cache's too: it keeps the shell's HTML as any page's.
    on_post_page.mkdocs_priority = -200  # type: ignore[attr-defined]  # as event_priority sets

    def on_files(self, files: Any, *, config: Any) -> Any:
        from mkdocs.structure.files import File, Files

        self.site_dir, self.site_url = Path(config.site_dir), config.site_url or ""

        for path, body in self.files.items():
            if files.get_file_from_path(path) is not None:
                raise BuildError(f"the build generates {path}, which site/docs already holds")
            if isinstance(body, DiskBody):
                files.append(File.generated(config, path, abs_src_path=str(body.path)))
            elif isinstance(body, ChartImage):
                files.append(_drawing_file().generated(config, path, content=body))
            else:
                files.append(File.generated(config, path, content=body))
        for file in files:
            if not file.is_documentation_page():
                file.copy_file = self._publisher(file)
        # In the order mkdocs walks a docs folder, as if the files had been written there: the
        # sitemap and the search index list pages in this order. The theme's files stay last.
        docs, theme = [], []
        for f in files:
            ours = f.generated_by is not None or f.src_dir == config.docs_dir
            (docs if ours else theme).append(f)
        return Files(sorted(docs, key=_walk_order) + theme)

    def _publisher(self, file: Any) -> Any:
        def publish(dirty: bool = False) -> None:
            dest = file.abs_dest_path
            folder = os.path.dirname(dest)
            if folder not in self.made:  # ~2,000 files in a few folders: one mkdir per folder
                os.makedirs(folder, exist_ok=True)
                self.made.add(folder)
            published = self.published / file.dest_uri if self.published else None
            body = self.files.get(file.src_uri) if file.generated_by is not None else None
            if isinstance(body, ChartImage):  # written last: see `finish`
                self.drawings.append((Path(dest), body, published))
            elif isinstance(body, DiskBody):
                if published is not None and link_unchanged(
                        published, Path(dest), body, self.kept.get(file.dest_uri)):
                    return
                write_or_link(Path(dest), body.read(), published)
            else:
                write_or_link(Path(dest), file.content_bytes, published)
        return publish


@functools.cache
def _drawing_file() -> type:
    """Return mkdocs' File for a chart still being drawn: listed at once, its bytes waited for
    only if something reads them (made here: mkdocs is imported only when a build needs it)."""
    from mkdocs.structure.files import File

    class DrawingFile(File):
        @property
        def content_bytes(self) -> bytes:
            return self._content.result()

        @property
        def content_string(self) -> str:
            return self.content_bytes.decode("utf-8-sig")

    return DrawingFile


def _walk_order(file: Any) -> tuple:
    # mkdocs.structure.files.get_files: folders top-down in name order, a folder's files before
    # its subfolders', `index` or `README` first among them.
    *folders, name = file.src_uri.split("/")
    return tuple(folders), (os.path.splitext(name)[0] not in ("index", "README"), name)


def build_mkdocs(files: Mapping[str, bytes | DiskBody | ShellPage | SearchEntry], site_dir: Path,
                 *, site_url: str,
                 epoch: int, published: Path | None = None,
                 kept: Mapping[str, list] | None = None, docs_dir: Path = SITE_DOCS,
                 config_file: Path = MKDOCS_CONFIG,
                 plugins: dict[str, object] | None = None,
                 extra: Mapping[str, object] | None = None) -> None:
    """Build the site of `docs_dir` and the generated `files` (by path in the docs) with mkdocs
    (strict: a warning fails the build) at a fixed build time.

    `published`: the site as the last build left it, whose unchanged files are linked (see
    `_Publish`); `kept`: what the last build published there from DiskBody files. `plugins`:
    plugin instances to add in-process, by name (the page cache, cache/page_cache.py);
    `extra`: values for the theme's templates beside mkdocs.yml's `extra` (the topic feeds).
    """
    # Imported here: mkdocs and its theme take a noticeable time to import, and `brief check`
    # never needs them.
    from mkdocs.commands.build import build
    from mkdocs.config import load_config
    from mkdocs.exceptions import MkDocsException
    from mkdocs.plugins import BasePlugin

    log = logging.getLogger("mkdocs")
    collect = _Collect()
    log.addHandler(collect)
    level = log.level
    log.setLevel(logging.WARNING)
    try:
        with _env("SOURCE_DATE_EPOCH", str(epoch)), _env("NO_MKDOCS_2_WARNING", "1"):
            config = load_config(config_file=str(config_file), docs_dir=str(docs_dir),
                                 site_dir=str(site_dir), site_url=site_url, strict=True)
            config.extra.update(extra or {})
            publish = type("Publish", (_Publish, BasePlugin), {})(files, published, kept)
            plugins = {"brief-publish": publish, **(plugins or {})}
            for name, plugin in plugins.items():
                config.plugins[name] = plugin  # registers its events, like a configured plugin
            build(config)
            publish.finish()
    except (MkDocsException, SystemExit) as err:
        detail = "; ".join(collect.messages) or str(err)
        raise BuildError(f"mkdocs build failed: {detail}") from None
    finally:
        log.removeHandler(collect)
        log.setLevel(level)
