"""Publish the pages put into a shell (render/shell_page.py): the shells go through mkdocs as
pages of their folders; once mkdocs is done, each page is written from its folder's shell, and
added to the search index and the sitemap in the shell's place."""

from __future__ import annotations

import gzip
import io
import json
import re
from collections.abc import Mapping
from html import escape
from pathlib import Path

from pipeline.publish.output import write_or_link
from pipeline.render.shell_page import SearchEntry, ShellPage, fill, page_url, shell_markdown, shell_source


class ShellPages:
    """The shell pages of one build, and the shells' HTML as mkdocs renders them."""

    def __init__(self, pages: Mapping[str, ShellPage],
                 entries: Mapping[str, SearchEntry] | None = None) -> None:
        self.pages = pages
        self.entries = entries or {}
        """Search entries of pages mkdocs renders without indexing them, by URL."""
        self.shells = {shell_source(path) for path in pages}
        self.html: dict[str, tuple[str, str]] = {}
        """Each shell's HTML and URL, by its Markdown path."""

    def sources(self) -> dict[str, str]:
        """Return the shells' Markdown, by path in the docs."""
        return {source: shell_markdown() for source in sorted(self.shells)}

    def capture(self, src_uri: str, url: str, output: str) -> str:
        """Keep a shell's HTML; return what mkdocs writes for the page (nothing for a shell)."""
        if src_uri not in self.shells:
            return output
        self.html[src_uri] = (output, url)
        return ""  # mkdocs writes no file for empty output

    def write(self, site_dir: Path, published: Path | None, site_url: str) -> None:
        """Write every page from its shell into `site_dir`, and list them where the shell was:
        in the search index (with `entries`), and in the sitemap."""
        made: set[Path] = set()
        for path, page in self.pages.items():
            shell, url = self.html[shell_source(path)]
            target = site_dir / path
            if target.parent not in made:
                target.parent.mkdir(parents=True, exist_ok=True)
                made.add(target.parent)
            body = fill(shell, url, path, page).encode("utf-8", errors="xmlcharrefreplace")
            write_or_link(target, body, published / path if published else None)
        self._index(site_dir / "search" / "search_index.json")
        self._sitemap(site_dir / "sitemap.xml", site_url)

    def _index(self, index: Path) -> None:
        if not index.exists():  # a site without the search plugin
            return
        data = json.loads(index.read_text(encoding="utf-8"))
        # Escaped as the search plugin escapes a page's text: the index is read as HTML.
        data["docs"].extend({"location": page_url(path), "title": escape(page.title),
                             "text": escape(page.search_text)}
                            for path, page in self.pages.items())
        data["docs"].extend({"location": url, "title": escape(entry.title),
                             "text": escape(entry.text)} for url, entry in self.entries.items())
        # As the search plugin writes it: compact, so the index stays small for a phone.
        _rewrite(index, json.dumps(data, separators=(",", ":"), default=str).encode("utf-8"))

    def _sitemap(self, sitemap: Path, site_url: str) -> None:
        if not sitemap.exists():
            return
        text = sitemap.read_text(encoding="utf-8")
        for src in sorted(self.shells):
            _, url = self.html[src]
            entry = re.search(r"\s*<url>\s*<loc>" + re.escape(site_url + url)
                              + r"</loc>.*?</url>", text, re.S)
            if entry is None:
                continue
            listed = "".join(entry.group(0).replace(site_url + url, site_url + page_url(path))
                             for path in sorted(self.pages) if shell_source(path) == src)
            text = text[:entry.start()] + listed + text[entry.end():]
        _rewrite(sitemap, text.encode("utf-8"))
        packed = sitemap.with_name("sitemap.xml.gz")
        if packed.exists():
            # The same time stamp mkdocs gave it (the build time): the gzip header holds it.
            mtime = int.from_bytes(packed.read_bytes()[4:8], "little")
            buffer = io.BytesIO()
            with gzip.GzipFile(fileobj=buffer, filename=str(packed), mode="wb",
                               mtime=mtime) as gz:
                gz.write(text.encode("utf-8"))
            _rewrite(packed, buffer.getvalue())


def _rewrite(path: Path, body: bytes) -> None:
    """Replace a file mkdocs wrote: a new file, never through a link to the published site."""
    path.unlink()
    path.write_bytes(body)
