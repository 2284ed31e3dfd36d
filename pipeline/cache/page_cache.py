"""BuildCache the HTML of edition pages whose Markdown did not change, inside one mkdocs build.

mkdocs has no incremental build of its own (`--dirty` goes by file times and warns that links go
stale), and at a year of editions the pages themselves are most of its time: Markdown conversion,
Material's page template and the search plugin's HTML parsing, page by page (see the profile in
benchmarks/README.md). Editions are not in the navigation, and the navigation is static (every
entry titled in site/mkdocs.yml), so the HTML of a generated page, an edition's or the Prices
page's, depends only on its own Markdown, its path, which of the Markdown files it links the site
has (mkdocs rewrites those links, `linked_pages`), the mkdocs configuration and the theme; that is
the key under which its HTML and its search-index entries are kept.

The plugin below leaves every page in mkdocs' file list (so the sitemap, the search index and link
checks see the whole site) but hands mkdocs a stub for each page it has: front matter choosing a
one-line template, so there is nothing to convert or render; after rendering, it swaps the stub's
output for the cached HTML and the search plugin's stub entries for the cached ones, in place, so
the index keeps mkdocs' page order. The output is byte-identical to a cold build (tests/test_page_cache.py).
"""

from __future__ import annotations

import hashlib
import posixpath
import re
import sys
from collections.abc import Callable, Collection
from pathlib import Path
from typing import Any

import jinja2
from mkdocs.plugins import BasePlugin, event_priority

from pipeline.cache.store import Store

STUB_TEMPLATE = "brief-cached-page.html"
STUB_SOURCE = f"---\ntemplate: {STUB_TEMPLATE}\n---\n"
STORE_VERSION = 1
MKDOCS = "pipeline.publish.mkdocs_site"
"""What runs mkdocs over the pages: a page's HTML is kept by its code (and the mkdocs project's)."""


def site_key(config_file: Path, theme_dirs: list[Path], *, site_url: str, extra: str = "") -> str:
    """Return the digest of what every page's HTML depends on besides its own Markdown."""
    import material
    import mkdocs

    digest = hashlib.sha256(f"{STORE_VERSION}\n{sys.version}\n{mkdocs.__version__}\n"
                            f"{getattr(material, '__version__', '')}\n{site_url}\n{extra}\n".encode())
    digest.update(config_file.read_bytes())
    for folder in theme_dirs:
        for path in sorted(p for p in folder.rglob("*") if p.is_file()):
            digest.update(f"{path.relative_to(folder).as_posix()}\n".encode())
            digest.update(path.read_bytes())
    return digest.hexdigest()


def page_key(site: str, src_uri: str, markdown: bytes, links: list[tuple] | None = None) -> str:
    """Return the cache key of one page: the site's key, the page's path, the pages it links
    (linked_pages) and its Markdown."""
    return hashlib.sha256(f"{site}\n{src_uri}\n{links or []!r}\n".encode()
                          + markdown).hexdigest()


_MD_END = re.compile(rb"\.md(?=[#)\s\"'>?]|$)")
"""Where a link to a Markdown file may end (`2026-09-05.md`, `../models/x.md#top`)."""
_LINK_START = re.compile(rb"[\s()\[\]<>\"'`][^\s()\[\]<>\"'`]*\Z")
"""The character before a link, and the link up to its end."""


def linked_pages(markdown: bytes, src_uri: str, site_files: Collection[str]) -> list[tuple]:
    """Return each Markdown file `markdown` may link, as the docs path it resolves to from the
    page `src_uri`, with whether the site has it: mkdocs rewrites a link to a page of the site
    into that page's address and leaves any other as written, so a page's HTML depends on its
    Markdown, its path and these, not on the rest of the site."""
    folder = posixpath.dirname(src_uri)
    found = set()
    for end in _MD_END.finditer(markdown):
        # Back from each `.md` to the character before the link: found forwards, a pattern
        # tried every long run of text from each of its characters (5 s on the Market's page).
        head = markdown[max(0, end.start() - 2048):end.start()]
        start = _LINK_START.search(head)
        target = head[start.start() + 1:] if start else head
        if not target:
            continue
        path = posixpath.normpath(posixpath.join(folder, (target + b".md").decode("utf-8", "replace")))
        found.add((path, path in site_files))
    return sorted(found)


class PageStore:
    """Rendered pages by key (HTML and search entries), the publish stage's values in the store
    (store.py)."""

    def __init__(self, store: Store) -> None:
        self.store = store

    def get(self, key: str) -> tuple[str, list[dict[str, Any]]] | None:
        return self.store.get("publish", (key,), by=MKDOCS)

    def put(self, key: str, html: str, entries: list[dict[str, Any]]) -> None:
        self.store.put("publish", (key,), (html, entries), by=MKDOCS)


def _render_nothing(page: Any) -> Any:
    """Return a stand-in for `page.render` of a reused page: empty content, anchors unknown."""
    def render(config: Any, files: Any) -> None:
        page.content = ""
        # None tells mkdocs' anchor check the page was not rendered, so links into it are not
        # checked against an empty page (they were checked when it was rendered).
        page.present_anchor_ids = None
    return render


class ReusePages(BasePlugin):
    """An mkdocs plugin, added in-process, that reuses the cached HTML of unchanged pages."""

    def __init__(self, store: PageStore, site: str, markdown: dict[str, bytes],
                 bytecode: jinja2.BytecodeCache | None = None,
                 published: Path | None = None,
                 link: Callable[[Path, Path, bytes], bool] | None = None) -> None:
        super().__init__()
        self.store = store
        self.published = published
        """The site as the last build published it: a reused page whose HTML is there already
        is hard-linked from it rather than written again (see `_link_published`)."""
        self.link = link
        """What links a published file holding exactly some bytes (publish/output.py's
        `link_published`), handed in: the cache knows no stage."""
        self.bytecode = bytecode
        """Where jinja2 keeps the theme's compiled templates: compiling them took ~0.5 s a build."""
        self.site = site
        self.markdown = markdown
        """The Markdown the build generated, by path in the docs: mkdocs reads it from memory."""
        self.site_files: set[str] = set()
        """Every file of the docs, by path: what a page's links resolve against."""
        self.keys: dict[str, str] = {}
        self.reused: dict[str, tuple[str, list[dict[str, Any]]]] = {}
        self.entries_before = 0
        self.rendered = 0

    def _search_entries(self, config: Any) -> list[dict[str, Any]] | None:
        search = config.plugins.get("search") or config.plugins.get("material/search")
        index = getattr(search, "search_index", None)
        return getattr(index, "entries", None)

    def on_page_read_source(self, *, page: Any, config: Any) -> str | None:
        src = page.file.src_uri
        md = self.markdown.get(src)
        if md is None:
            return None
        key = page_key(self.site, src, md, linked_pages(md, src, self.site_files))
        self.keys[src] = key
        cached = self.store.get(key)
        if cached is None:
            return None
        self.reused[src] = cached
        page.render = _render_nothing(page)  # mkdocs would set up a Markdown converter per page
        return STUB_SOURCE

    def on_files(self, files: Any, *, config: Any) -> Any:
        self.site_files = {f.src_uri for f in files}
        return files

    def on_env(self, env: jinja2.Environment, *, config: Any, files: Any) -> jinja2.Environment:
        # Non-empty: mkdocs writes nothing for an empty page, and the stub's output is replaced.
        env.loader = jinja2.ChoiceLoader([jinja2.DictLoader({STUB_TEMPLATE: "stub"}), env.loader])
        if self.bytecode is not None:
            env.bytecode_cache = self.bytecode
        return env

    @event_priority(100)  # before the search plugin indexes the page
    def on_page_context(self, context: Any, *, page: Any, config: Any, nav: Any) -> Any:
        entries = self._search_entries(config)
        self.entries_before = len(entries) if entries is not None else 0
        return context

    @event_priority(-100)  # after every other plugin has seen the page
    def on_post_page(self, output: str, *, page: Any, config: Any) -> str:
        src = page.file.src_uri
        entries = self._search_entries(config)
        if src in self.reused:
            html, cached_entries = self.reused[src]
            if entries is not None:
                del entries[self.entries_before:]
                entries.extend(dict(e) for e in cached_entries)
            # Empty output: mkdocs then writes nothing, the link stands in for its write.
            return "" if self._link_published(page, html) else html
        self.rendered += 1
        key = self.keys.get(src)
        if key is not None:
            new = [dict(e) for e in entries[self.entries_before:]] if entries is not None else []
            self.store.put(key, output, new)
        return output

    def _link_published(self, page: Any, html: str) -> bool:
        """Hard-link the published HTML of a reused page into the site, when it holds exactly the
        bytes mkdocs would write (a year of pages is ~25 MB a build); return whether it did."""
        if self.published is None or self.link is None:
            return False
        target = Path(page.file.abs_dest_path)
        target.parent.mkdir(parents=True, exist_ok=True)  # a page is a folder of its own
        return self.link(self.published / page.file.dest_uri, target,
                              html.encode("utf-8", errors="xmlcharrefreplace"))  # as mkdocs does
