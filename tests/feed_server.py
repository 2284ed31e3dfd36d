"""A real HTTP server on 127.0.0.1 that serves a good feed and every fault ingest must survive.

Started by the `feed_server` fixture in test_ingest_feeds.py; no mocks, real sockets.
"""

from __future__ import annotations

import gzip
import hashlib
import threading
import zlib
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

RSS = """<?xml version="1.0" encoding="utf-8"?>
<rss version="2.0"><channel><title>{title}</title><link>http://example.org/</link>
<language>{lang}</language>
<item><title>{item}</title><link>/posts/{slug}?utm_source=rss&amp;id=1</link>
<guid isPermaLink="false">{slug}</guid><pubDate>Thu, 10 Sep 2026 08:00:00 GMT</pubDate>
<description>&lt;p&gt;Off-peak prices per million tokens fell.&lt;/p&gt;</description></item>
</channel></rss>"""

JSON_FEED = """{"version": "https://jsonfeed.org/version/1.1", "title": "JSON sample",
"items": [{"id": "j1", "url": "https://example.org/j1", "title": "Tokens per dollar rise",
"content_text": "MLPerf results.", "date_published": "2026-09-09T10:00:00Z"}]}"""


def rss(title: str = "Normal feed", item: str = "Price cut", slug: str = "p1",
        lang: str = "en") -> bytes:
    return RSS.format(title=title, item=item, slug=slug, lang=lang).encode("utf-8")


def _bomb(expanded_bytes: int) -> bytes:
    """Return a gzip body of `expanded_bytes` zeros (about 1 KB on the wire per MiB expanded)."""
    comp = zlib.compressobj(1, zlib.DEFLATED, 31)
    block = bytes(1 << 20)
    parts = [comp.compress(block) for _ in range(expanded_bytes >> 20)]
    parts.append(comp.flush())
    return b"".join(parts)


class FeedServer:
    """Routes by path; records the requests it saw so tests can check validators and bodies."""

    def __init__(self) -> None:
        self.requests: list[tuple[str, dict[str, str]]] = []
        self.bodies_sent: dict[str, int] = {}
        self.stalls: list[tuple[str, str]] = []
        """("open" or "closed", path) of each /stall request, in the order they happened."""
        self.stop = threading.Event()
        self.bomb = _bomb(1100 << 20)  # > 1 GiB expanded
        server = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def log_message(self, *args: object) -> None:
                pass

            def do_GET(self) -> None:
                server.requests.append((self.path, {k.lower(): v for k, v in self.headers.items()}))
                try:
                    server.route(self)
                except (BrokenPipeError, ConnectionResetError):
                    pass

        self.httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.httpd.daemon_threads = True
        # Clients that hang up mid-response (the point of several cases) are not errors here.
        self.httpd.handle_error = lambda request, client_address: None  # type: ignore[method-assign]
        self.httpd.request_queue_size = 64
        self.port = self.httpd.server_address[1]
        self.thread = threading.Thread(target=self.httpd.serve_forever, daemon=True)

    def url(self, path: str) -> str:
        return f"http://127.0.0.1:{self.port}{path}"

    def __enter__(self) -> FeedServer:
        self.thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.stop.set()
        self.httpd.shutdown()
        self.httpd.server_close()

    # -- responses ---------------------------------------------------------------------------

    def send(self, h: BaseHTTPRequestHandler, status: int, body: bytes = b"",
             ctype: str = "application/rss+xml", extra: dict[str, str] | None = None) -> None:
        h.send_response(status)
        h.send_header("Content-Type", ctype)
        h.send_header("Content-Length", str(len(body)))
        for k, v in (extra or {}).items():
            h.send_header(k, v)
        h.end_headers()
        h.wfile.write(body)
        if body:
            self.bodies_sent[h.path] = self.bodies_sent.get(h.path, 0) + 1

    def conditional(self, h: BaseHTTPRequestHandler, body: bytes, ctype: str) -> None:
        """Serve `body` with an ETag and Last-Modified; 304 when the request's validators match."""
        etag = '"' + hashlib.sha256(body).hexdigest()[:16] + '"'
        modified = "Wed, 09 Sep 2026 12:00:00 GMT"
        if h.headers.get("If-None-Match") == etag or (
                not h.headers.get("If-None-Match") and h.headers.get("If-Modified-Since") == modified):
            h.send_response(304)
            h.send_header("ETag", etag)
            h.send_header("Content-Length", "0")
            h.end_headers()
            return
        self.send(h, 200, body, ctype, {"ETag": etag, "Last-Modified": modified})

    def route(self, h: BaseHTTPRequestHandler) -> None:
        path = h.path.split("?")[0]
        if path == "/normal.xml":
            self.conditional(h, rss(), "application/rss+xml")
        elif path == "/feed.json":
            self.conditional(h, JSON_FEED.encode(), "application/feed+json")
        elif path.startswith("/status/"):
            code = int(path.rsplit("/", 1)[1])
            extra = {"Retry-After": "120"} if code == 429 else {}
            self.send(h, code, b"<html>error</html>", "text/html", extra)
        elif path.startswith("/hop/"):
            n = int(path.rsplit("/", 1)[1])
            if n == 0:
                self.conditional(h, rss("Hop feed", slug="hop"), "application/rss+xml")
            else:
                self.send(h, 302, b"", "text/plain", {"Location": f"/hop/{n - 1}"})
        elif path == "/loop/a":
            self.send(h, 301, b"", "text/plain", {"Location": "/loop/b"})
        elif path == "/loop/b":
            self.send(h, 301, b"", "text/plain", {"Location": self.url("/loop/a")})
        elif path == "/stall":
            # Accept, read the request, never answer; note when the client came and when it
            # hung up (recv gives b"" then), so a test can tell which stalls overlapped.
            self.stalls.append(("open", h.path))
            try:
                h.connection.settimeout(60)
                while not self.stop.is_set() and h.connection.recv(1):
                    pass
            except OSError:
                pass
            self.stalls.append(("closed", h.path))
        elif path == "/drip":
            body = rss()
            h.send_response(200)
            h.send_header("Content-Type", "application/rss+xml")
            h.send_header("Content-Length", str(len(body)))
            h.end_headers()
            for i in range(len(body)):
                if self.stop.wait(1.0):
                    return
                h.wfile.write(body[i:i + 1])
                h.wfile.flush()
        elif path == "/big":
            # No Content-Length: the client must count what it reads.
            h.send_response(200)
            h.send_header("Content-Type", "application/rss+xml")
            h.send_header("Connection", "close")
            h.end_headers()
            chunk = b"<!-- " + b"x" * (1 << 20) + b" -->"
            for _ in range(20):
                h.wfile.write(chunk)
            h.close_connection = True
        elif path == "/bomb":
            self.send(h, 200, self.bomb, "application/rss+xml", {"Content-Encoding": "gzip"})
        elif path == "/truncated":
            body = rss()
            h.send_response(200)
            h.send_header("Content-Type", "application/rss+xml")
            h.send_header("Content-Length", str(len(body) + 5000))
            h.end_headers()
            h.wfile.write(body[:200])
            h.wfile.flush()
            h.close_connection = True
        elif path == "/html":
            self.send(h, 200, b"<!doctype html><html><head><title>Home</title></head>"
                      b"<body><p>Welcome</p></body></html>", "text/html; charset=utf-8")
        elif path == "/empty":
            self.send(h, 200, b"", "application/rss+xml")
        elif path == "/charset":
            # UTF-8 bytes, declared utf-8 in the document, but the header claims ISO-8859-1.
            body = rss("Überblick 价格", item="Preissenkung: 降价 für Tokens", slug="cs", lang="de")
            self.conditional(h, body, "application/rss+xml; charset=iso-8859-1")
        elif path == "/gzip.xml":
            self._gzip(h)
        elif path == "/to-link-local":
            self.send(h, 302, b"", "text/plain",
                      {"Location": "http://169.254.169.254/latest/meta-data/"})
        else:
            self.send(h, 404, b"not found", "text/plain")

    def _gzip(self, h: BaseHTTPRequestHandler) -> None:
        body = gzip.compress(rss("Gzip feed", slug="gz"), mtime=0)
        etag = '"gz1"'
        if h.headers.get("If-None-Match") == etag:
            h.send_response(304)
            h.send_header("Content-Length", "0")
            h.end_headers()
            return
        self.send(h, 200, body, "application/rss+xml", {"Content-Encoding": "gzip", "ETag": etag})

