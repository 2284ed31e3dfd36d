"""The preview server of `brief serve`: the built site on 127.0.0.1, served as a host serves it.

Four things the standard library's file server does differently from a host such as GitHub
Pages, each of which a reader of the preview would take for a fault of the site (issues 21, 39):
- a missing path gets its plain error page, not the site's 404.html;
- a folder without an index.html (/briefings/, /search/, /assets/) gets a listing of its files,
  where a host answers with the 404 page;
- text files go out without a charset, so a browser reads the UTF-8 text edition as Windows-1252
  ("â€”" for "—");
- the site is only at /, while the pages mkdocs renders with absolute links (404.html) point
  under the path of site_url (/inference-brief/): here the site answers at both.
"""

from __future__ import annotations

import functools
import http.server
import os
from http import HTTPStatus
from pathlib import Path
from typing import BinaryIO

# What the build writes as text besides text/*: all of it UTF-8.
_TEXT_TYPES = frozenset({"application/json", "application/feed+json", "application/atom+xml",
                         "application/xml", "application/javascript", "image/svg+xml"})
NOT_FOUND_PAGE = "404.html"
# The pages the stdlib serves for a folder, in its order (Python 3.11 has no index_pages).
_INDEX_PAGES = ("index.html", "index.htm")


class PreviewHandler(http.server.SimpleHTTPRequestHandler):
    """The stdlib file server of a built site, with its 404 page (for folders without an index
    too, never a listing), charsets and site path."""

    def __init__(self, *args, site_path: str = "/", **kwargs) -> None:
        self.site_path = site_path.rstrip("/")
        """The path of site_url without its last slash ("/inference-brief", or "" at a root)."""
        super().__init__(*args, **kwargs)

    def translate_path(self, path: str) -> str:
        prefix = self.site_path
        if prefix and (path == prefix or path.startswith((prefix + "/", prefix + "?"))):
            path = path[len(prefix):] or "/"
        return super().translate_path(path)

    def guess_type(self, path: str | Path) -> str:
        kind = super().guess_type(path)
        if kind.startswith("text/") or kind in _TEXT_TYPES:
            return f"{kind}; charset=utf-8"
        return kind

    def send_head(self) -> BinaryIO | None:
        # A folder without an index is a 404 at once, as on a host; the stdlib would first
        # redirect /briefings to /briefings/, then list it.
        path = self.translate_path(self.path)
        if os.path.isdir(path) and not any(os.path.isfile(os.path.join(path, index))
                                           for index in _INDEX_PAGES):
            self.send_error(HTTPStatus.NOT_FOUND, "File not found")
            return None
        return super().send_head()

    def list_directory(self, path: str | os.PathLike[str]) -> None:
        # Never a listing: reached only if the index went between send_head's look and the
        # stdlib's (a build swapping public/ meanwhile).
        self.send_error(HTTPStatus.NOT_FOUND, "File not found")

    def send_error(self, code: int, message: str | None = None, explain: str | None = None) -> None:
        page = Path(self.directory) / NOT_FOUND_PAGE
        if code != HTTPStatus.NOT_FOUND or not page.is_file():
            super().send_error(code, message, explain)
            return
        self.log_error("code %d, message %s", code, message)
        body = page.read_bytes()
        self.send_response(code, message)
        self.send_header("Content-Type", "text/html; charset=utf-8")
        self.send_header("Content-Length", str(len(body)))
        self.send_header("Connection", "close")  # as the stdlib's error reply does
        self.end_headers()
        if self.command != "HEAD":
            self.wfile.write(body)


def preview_server(site: Path, port: int, *, site_path: str = "/") -> http.server.ThreadingHTTPServer:
    """Return a server of the built `site` on 127.0.0.1:`port` (0: any free port), answering at /
    and under `site_path`; the caller runs and closes it."""
    bound = functools.partial(PreviewHandler, directory=str(site), site_path=site_path)
    return http.server.ThreadingHTTPServer(("127.0.0.1", port), bound)
