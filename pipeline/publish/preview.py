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

Live (issue 40: `brief serve` rebuilding on each save, given a `LiveSite`), it also streams the
id of each build at /__reload, serves every page with the script that reloads it on a new one,
marks every file to be revalidated, and while the last build failed answers a request for a page
with the page of its problems (publish/live.py).
"""

from __future__ import annotations

import functools
import http.server
import io
import os
from http import HTTPStatus
from pathlib import Path
from typing import BinaryIO
from urllib.parse import urlsplit

from pipeline.publish.live import RELOAD_PATH, LiveSite, problems_page, with_reload

# What the build writes as text besides text/*: all of it UTF-8.
_TEXT_TYPES = frozenset({"application/json", "application/feed+json", "application/atom+xml",
                         "application/xml", "application/javascript", "image/svg+xml"})
NOT_FOUND_PAGE = "404.html"
# The pages the stdlib serves for a folder, in its order (Python 3.11 has no index_pages).
_INDEX_PAGES = ("index.html", "index.htm")


class PreviewHandler(http.server.SimpleHTTPRequestHandler):
    """The stdlib file server of a built site, with its 404 page (for folders without an index
    too, never a listing), charsets and site path."""

    def __init__(self, *args, site_path: str = "/", live: LiveSite | None = None,
                 verbose: bool = False, **kwargs) -> None:
        self.site_path = site_path.rstrip("/")
        """The path of site_url without its last slash ("/inference-brief", or "" at a root)."""
        self.live = live
        """The builds of `brief serve` when it rebuilds on each save; None for a static preview."""
        self.verbose = verbose
        """Log every request; else only those answered with an error (`brief serve --verbose`)."""
        super().__init__(*args, **kwargs)

    def log_request(self, code: int | str = "-", size: int | str = "-") -> None:
        # A reload asks again for every file of the page: dozens of lines per save would bury
        # the rebuilds' lines. An error answer (a page linking to a file the site lacks) is kept.
        if self.verbose or (isinstance(code, int) and code >= 400):
            super().log_request(code, size)

    def log_error(self, fmt: str, *args: object) -> None:
        # The stdlib says "code 404, message File not found" before the request's own line,
        # which already carries the status.
        if self.verbose:
            super().log_error(fmt, *args)

    def do_GET(self) -> None:
        if self.live is not None and urlsplit(self.path).path == RELOAD_PATH:
            self._stream_builds(self.live)
            return
        super().do_GET()

    def end_headers(self) -> None:
        if self.live is not None:
            # A rebuilt site keeps its file names: the browser asks again on each reload, and
            # an unchanged file (same modification time: linked from the last build) is a 304.
            self.send_header("Cache-Control", "no-cache")
        super().end_headers()

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
        path = self.translate_path(self.path)
        if self.live is not None:
            served = self._live_page(self.live, path)
            if served is not None:
                return served
        # A folder without an index is a 404 at once, as on a host; the stdlib would first
        # redirect /briefings to /briefings/, then list it.
        if os.path.isdir(path) and not any(os.path.isfile(os.path.join(path, index))
                                           for index in _INDEX_PAGES):
            self.send_error(HTTPStatus.NOT_FOUND, "File not found")
            return None
        return super().send_head()

    def _live_page(self, live: LiveSite, path: str) -> BinaryIO | None:
        """Send the head of a page of the live preview and return its body: the page of the
        last build's problems for any page, or a missing path, while it failed; else the page
        with the reload script. None for what is served as it is (assets, redirects)."""
        page = _page_file(path, urlsplit(self.path).path.endswith("/"))
        build_id = live.build_id  # read before the page: a build meanwhile reloads it again
        problems = live.problems
        if problems is not None and (page is not None or not os.path.exists(path)):
            # 500: the preview has no page to give; the browser shows this one all the same.
            return self._send_page(HTTPStatus.INTERNAL_SERVER_ERROR, problems_page(problems, build_id))
        if page is None:
            return None
        try:
            with open(page, "rb") as f:
                body = f.read()
        except OSError:  # gone with a swap meanwhile: as the stdlib would answer
            return None
        return self._send_page(HTTPStatus.OK, with_reload(body, build_id))

    def _send_page(self, status: HTTPStatus, body: bytes) -> BinaryIO:
        self.send_response(status)
        self.send_header("Content-Type", "text/html; charset=utf-8")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        return io.BytesIO(body)

    def _stream_builds(self, live: LiveSite) -> None:
        """Send the id of the last build, then each new one, as Server-Sent Events, until the
        page goes away; a comment every 15 s finds out that it has."""
        self.send_response(HTTPStatus.OK)
        self.send_header("Content-Type", "text/event-stream")
        self.send_header("Cache-Control", "no-store")
        super().end_headers()
        seen = None
        try:
            self.wfile.write(b"retry: 500\n\n")
            while True:
                build_id = live.next_build(seen, timeout_s=15)
                self.wfile.write(b": still here\n\n" if build_id == seen
                                 else f"data: {build_id}\n\n".encode())
                self.wfile.flush()
                seen = build_id
        except OSError:  # the page was closed or reloaded
            return

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


def _page_file(path: str, as_folder: bool) -> str | None:
    """Return the HTML file a request for the file-system `path` is answered with, or None (not
    a page, or a folder asked for without its last slash, which the stdlib redirects first)."""
    if os.path.isdir(path):
        if not as_folder:
            return None
        return next((os.path.join(path, index) for index in _INDEX_PAGES
                     if os.path.isfile(os.path.join(path, index))), None)
    return path if path.endswith((".html", ".htm")) and os.path.isfile(path) else None


class PreviewServer(http.server.ThreadingHTTPServer):
    """The stdlib's threading server, knowing the path of site_url it also answers under."""

    site_path: str = "/"


def preview_server(site: Path, port: int, *, site_path: str = "/",
                   live: LiveSite | None = None, verbose: bool = False) -> PreviewServer:
    """Return a server of the built `site` on 127.0.0.1:`port` (0: any free port), answering at /
    and under `site_path`, live when given the builds of `brief serve`, logging every request when
    `verbose` (else only those answered with an error); the caller runs and closes it."""
    bound = functools.partial(PreviewHandler, directory=str(site), site_path=site_path, live=live,
                              verbose=verbose)
    server = PreviewServer(("127.0.0.1", port), bound)
    server.site_path = site_path
    return server
