"""The network edge's HTTP: fetch one address politely, within limits.

httpx does the HTTP. Per request: one User-Agent naming the project (the client's), a cap on the
body after decompression (we inflate ourselves so a gzip bomb is cut off at the cap, not after
expanding), redirects followed by hand so every hop's address is checked, conditional GET, and
410 / 429 / Retry-After reported. Feeds (ingest/feeds.py) and price catalogues
(ingest/catalogues.py) fetch through it; what an answer means for their stored state is theirs.
"""

from __future__ import annotations

import asyncio
import datetime as dt
import email.utils
import ipaddress
import socket
import zlib
from dataclasses import dataclass, field
from urllib.parse import urljoin, urlsplit

import httpx

from pipeline.ingest.addresses import address_allowed, address_kind
from pipeline.normalize.feed_state import RETENTION_DAYS

USER_AGENT = "inference-brief/0.1 (feed reader for a briefing on AI inference economics)"
MIB = 1024 * 1024


@dataclass(frozen=True)
class FetchSettings:
    """The limits of one ingest run; the defaults are the issue's."""

    user_agent: str = USER_AGENT
    connect_timeout_s: float = 10.0
    deadline_s: float = 20.0
    """Total time for one feed: address checks, every redirect hop and the whole body."""
    max_body_bytes: int = 15 * MIB
    """Cap on the body after decompression."""
    max_redirects: int = 5
    concurrency: int = 8
    """Feeds fetched at the same time."""
    allowed_networks: tuple[str, ...] = ()
    """Non-public networks we may still connect to (tests: `127.0.0.0/8`); none by default."""
    retention_days: int = RETENTION_DAYS
    maxretry_after_s: int = 7 * 24 * 3600
    """A Retry-After longer than this is shortened to it (a typo should not mute a feed forever)."""

class Refused(Exception):
    """A fetch stopped on purpose (limit, address, protocol); the message is for people."""

    def __init__(self, message: str, status: int | None = None):
        super().__init__(message)
        self.status = status


async def check_url(url: str, settings: FetchSettings) -> None:
    """Raise Refused unless `url` is http(s) and every address its host resolves to is allowed."""
    parts = urlsplit(url)
    if parts.scheme not in ("http", "https") or not parts.hostname:
        raise Refused(f"refused: {url[:100]!r} is not an http(s) address")
    host = parts.hostname
    port = parts.port or (443 if parts.scheme == "https" else 80)
    try:
        infos = await asyncio.get_running_loop().getaddrinfo(host, port, type=socket.SOCK_STREAM)
    except socket.gaierror as err:
        raise Refused(f"cannot resolve {host}: {err.strerror}") from None
    allowed = [ipaddress.ip_network(n) for n in settings.allowed_networks]
    for info in infos:
        ip = ipaddress.ip_address(info[4][0].split("%")[0])
        if not address_allowed(ip, allowed):
            raise Refused(f"refused: {host} is at {ip}, a {address_kind(ip)} address "
                           "(not fetched, to protect internal services)")


def check_peer(resp: httpx.Response, url: str, settings: FetchSettings) -> None:
    """Raise Refused unless the address that answered is allowed.

    httpx resolves the name again when it connects, so a DNS answer that changed after
    `check_url` (rebinding: public when checked, internal when connecting) would reach an
    internal service. The request has then been sent, but nothing of the answer is read or kept.
    (The client uses no proxy, so the peer is the server itself.)"""
    stream = resp.extensions.get("network_stream")
    peer = stream.get_extra_info("server_addr") if stream is not None else None
    host = urlsplit(url).hostname
    if not peer:
        raise Refused(f"refused: cannot tell which address answered for {host}")
    ip = ipaddress.ip_address(str(peer[0]).split("%")[0])
    if not address_allowed(ip, [ipaddress.ip_network(n) for n in settings.allowed_networks]):
        raise Refused(f"refused: {host} answered from {ip}, a {address_kind(ip)} address, though it "
                       "resolved to an allowed one when checked (not read, to protect internal "
                       "services)")


class Inflater:
    """Decode a body by its Content-Encoding without ever holding more than the cap."""

    def __init__(self, encoding: str):
        enc = encoding.strip().lower()
        self._z: zlib._Decompress | None = None
        if enc in ("gzip", "x-gzip"):
            self._z = zlib.decompressobj(wbits=31)
        elif enc == "deflate":
            self._z = zlib.decompressobj(wbits=47)  # zlib-wrapped (the standard) or gzip
        elif enc not in ("", "identity"):
            raise Refused(f"unsupported Content-Encoding {enc!r}")

    def feed(self, chunk: bytes, room: int) -> bytes:
        """Return the decoded bytes of `chunk`, at most room + 1 (so going over shows)."""
        if self._z is None:
            return chunk[: room + 1]
        out = b""
        data = chunk
        while data and len(out) <= room:
            try:
                out += self._z.decompress(data, room + 1 - len(out))
            except zlib.error as err:
                raise Refused(f"the compressed body is corrupt ({err})") from None
            data = self._z.unconsumed_tail
            if self._z.eof and self._z.unused_data:  # gzip allows several members in a row
                data = self._z.unused_data + data
                self._z = zlib.decompressobj(wbits=31)
        return out


def retry_after(value: str | None, now: dt.datetime, settings: FetchSettings) -> dt.datetime:
    """Return when we may ask again: Retry-After (seconds or an HTTP date), else in an hour."""
    seconds = 3600.0
    if value:
        value = value.strip()
        if value.isdigit():
            seconds = float(value)
        else:
            try:
                when = email.utils.parsedate_to_datetime(value)
                if when.tzinfo is None:
                    when = when.replace(tzinfo=dt.UTC)
                seconds = (when - now).total_seconds()
            except (TypeError, ValueError):
                pass
    seconds = min(max(seconds, 0.0), float(settings.maxretry_after_s))
    return now + dt.timedelta(seconds=seconds)

@dataclass
class Answer:
    """What a server answered to one conditional GET, once redirects were followed: a body (200),
    `unchanged` (304 to our validators), `gone` (410), or `retry_after` (429 / 503)."""

    status: int
    url: str
    """The address that answered (after redirects)."""
    body: bytes | None = None
    headers: dict[str, str] = field(default_factory=dict)
    unchanged: bool = False
    gone: bool = False
    retry_after: dt.datetime | None = None
    reason: str = ""


async def get(client: httpx.AsyncClient, url: str, settings: FetchSettings, now: dt.datetime, *,
              accept: str, etag: str | None = None, last_modified: str | None = None) -> Answer:
    """GET `url` politely: every hop's address checked, redirects followed by hand, validators
    sent when given, the body read within the cap after decompression. Raises Refused for
    what is refused on purpose, httpx / OS errors for the network's faults."""
    headers = {"Accept": accept, "Accept-Encoding": "gzip, deflate"}
    if etag:
        headers["If-None-Match"] = etag
    if last_modified:
        headers["If-Modified-Since"] = last_modified
    sent = bool(etag or last_modified)
    seen = [url]
    for _hop in range(settings.max_redirects + 1):
        await check_url(url, settings)
        async with client.stream("GET", url, headers=headers) as resp:
            check_peer(resp, url, settings)
            status = resp.status_code
            if status in (301, 302, 303, 307, 308):
                location = resp.headers.get("location")
                if not location:
                    raise Refused(f"HTTP {status} redirect without a Location", status)
                url = urljoin(url, location)
                if url in seen:
                    raise Refused(f"redirect loop ({len(seen)} addresses, back to {url})", status)
                seen.append(url)
                continue
            if status == 304:
                if not sent:  # nothing was asked about, so nothing is known to be unchanged
                    raise Refused("HTTP 304 Not Modified to a request that sent no "
                                  "validators (no If-None-Match or If-Modified-Since)", status)
                return Answer(304, url, unchanged=True)
            if status == 410:
                return Answer(410, url, gone=True)
            if status in (429, 503):
                wait = retry_after(resp.headers.get("retry-after"), now, settings)
                return Answer(status, url, retry_after=wait, reason=resp.reason_phrase)
            if status != 200:
                raise Refused(f"HTTP {status} {resp.reason_phrase}", status)
            body = await read_body(resp, settings)
            return Answer(200, url, body=body, headers=dict(resp.headers))
    raise Refused(f"too many redirects (more than {settings.max_redirects})")


async def read_body(resp: httpx.Response, settings: FetchSettings) -> bytes:
    cap = settings.max_body_bytes
    length = resp.headers.get("content-length", "")
    encoding = resp.headers.get("content-encoding", "")
    if length.isdigit() and not encoding and int(length) > cap:
        raise Refused(f"the body is {int(length) / MIB:.1f} MiB, over the "
                       f"{cap / MIB:.0f} MiB cap; not downloaded", resp.status_code)
    inflater = Inflater(encoding)
    parts: list[bytes] = []
    total = 0
    async for chunk in resp.aiter_raw():
        out = inflater.feed(chunk, cap - total)
        total += len(out)
        if total > cap:
            raise Refused(f"the body is over the {cap / MIB:.0f} MiB cap after "
                           "decompression; stopped reading", resp.status_code)
        parts.append(out)
    return b"".join(parts)

def describe(err: BaseException, settings: FetchSettings) -> str:
    if isinstance(err, (TimeoutError, asyncio.TimeoutError)):
        return f"gave up after the {settings.deadline_s:g} s deadline per feed"
    if isinstance(err, httpx.ConnectTimeout):
        return f"no connection within {settings.connect_timeout_s:g} s"
    if isinstance(err, httpx.ReadTimeout):
        return "the server stopped sending"
    if isinstance(err, httpx.RemoteProtocolError):
        return f"the connection broke before the whole response arrived ({err})"
    if isinstance(err, httpx.ConnectError):
        return f"cannot connect ({err})"
    return f"{type(err).__name__}: {err}"
