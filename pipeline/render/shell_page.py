"""Pure: pages put into the site's theme without passing each through mkdocs.

mkdocs-material takes about 45 ms a page here (its navigation, header and footer are rendered
for every page), and the catalogues name about 1,600 models: through mkdocs, their pages alone
would add over a minute to a cold build of the bundled sources. So mkdocs renders one page per
folder, the shell: a title and a body that are placeholders. Each page of that folder is then
the shell's HTML with its own title and body put in (`fill`). Relative links (stylesheets,
scripts, navigation) hold because every page of a folder sits at the shell's depth. The
publish step writes them, and adds them to the search index and the sitemap
(publish/mkdocs_site.py).
"""

from __future__ import annotations

import html
import posixpath
from dataclasses import dataclass

TITLE = "BriefShellTitle7f3a"
"""The shell's title: where it appears in the shell's HTML (<title>, the header, og:title, the
heading) a page's title goes. Not a word any page title holds."""
BODY = '<div class="brief-shell-body"></div>'
SHELL_NAME = "_shell"


@dataclass(frozen=True)
class ShellPage:
    """A page of the site rendered by `fill`: plain-text `title`, `body_html` already escaped,
    and `search_text` (plain) for the search index."""

    title: str
    body_html: str
    search_text: str = ""


@dataclass(frozen=True)
class SearchEntry:
    """An entry of the search index for a page mkdocs renders but does not index: the Market
    page's 3,000-row table would take the search plugin seconds to read and bloat the index,
    so the page is indexed by its title and what it is (`text`, plain)."""

    title: str
    text: str


def shell_source(page_path: str) -> str:
    """Return the Markdown file of the shell of a page at `page_path` (`models/x/index.html`):
    a sibling of the page's folder (`models/_shell.md`), so at the same depth once built."""
    folder = posixpath.dirname(posixpath.dirname(page_path))
    return posixpath.join(folder, f"{SHELL_NAME}.md")


def shell_markdown() -> str:
    """Return the shell page's Markdown: full width, without the navigation (its pages are
    not in it) or a table of contents (a body put in later has none); left out of the search
    index (each page is indexed on its own)."""
    return "\n".join(["---", f"title: {TITLE}", "search:", "  exclude: true", "hide:",
                      "  - navigation", "  - toc", "---", "", BODY, ""])


def page_url(page_path: str) -> str:
    """Return the site URL of a page's file: `models/x/index.html` → `models/x/`."""
    return page_path.removesuffix("index.html")


def fill(shell_html: str, shell_url: str, path: str, page: ShellPage) -> str:
    """Return the page at `path` (`models/x/index.html`): the shell's HTML (built at
    `shell_url`, `models/_shell/`) with the page's title, body and URL."""
    if BODY not in shell_html or TITLE not in shell_html:
        raise ValueError(f"the shell page {shell_url} lost its placeholders: is a plugin or "
                         "the theme rewriting page content?")
    # Title and URL first, the body last: nothing in a page's body is rewritten. The canonical
    # link and og:url name the shell's URL.
    out = shell_html.replace(TITLE, html.escape(page.title)).replace(shell_url, page_url(path))
    return out.replace(BODY, page.body_html, 1)


def shell_page_md(page: ShellPage) -> bytes:
    """Return a shell page as a Markdown page of its own, for a plain mkdocs build of the same
    pages (benchmarks/run.py compares with one)."""
    return f"# {html.escape(page.title)}\n\n{page.body_html}\n".encode()
