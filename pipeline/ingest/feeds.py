"""The network edge for feeds: fetch politely, within limits, and write each feed's snapshot.

httpx does the HTTP, never feedparser (it has no timeout and no size cap). Per feed: one
User-Agent naming the project, a connect timeout and a total deadline, a cap on the body after
decompression (we inflate ourselves so a gzip bomb is cut off at the cap, not after expanding),
redirects followed by hand so every hop's address is checked, conditional GET, and 410 / 429 /
Retry-After honoured. What the answer means for the stored state is decided in `feed_state`.
"""

from __future__ import annotations

import asyncio
import contextlib
import datetime as dt
import email.utils
import ipaddress
import json
import multiprocessing
import socket
import time
import zlib
from collections.abc import Callable, Iterator
from concurrent.futures import Executor, ProcessPoolExecutor
from concurrent.futures.process import BrokenProcessPool
from dataclasses import dataclass, field
from pathlib import Path
from urllib.parse import urljoin, urlsplit

import httpx

from pipeline.formats.feeds import parse_feed
from pipeline.ingest.addresses import address_allowed, address_kind
from pipeline.models.feeds import Feed, Snapshot
from pipeline.normalize.feed_state import RETENTION_DAYS, Attempt, record_attempt, skip_reason
from pipeline.paths import snapshot_path
from pipeline.whole_files import write_whole

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
    max_retry_after_s: int = 7 * 24 * 3600
    """A Retry-After longer than this is shortened to it (a typo should not mute a feed forever)."""


@dataclass(frozen=True)
class Outcome:
    """How one feed's fetch went, for the progress display and the run's summary."""

    feed_id: str
    status: int | None
    message: str
    ok: bool
    new_items: int = 0
    sent_validators: bool = False
    body_bytes: int = 0
    """Bytes of body read (after decompression); 0 for 304 and errors before the body."""
    seconds: float = 0.0
    skipped: bool = False


@dataclass
class RunReport:
    outcomes: list[Outcome] = field(default_factory=list)
    seconds: float = 0.0

    @property
    def failed(self) -> list[Outcome]:
        return [o for o in self.outcomes if not o.ok and not o.skipped]


class _Refused(Exception):
    """A fetch stopped on purpose (limit, address, protocol); the message is for people."""

    def __init__(self, message: str, status: int | None = None):
        super().__init__(message)
        self.status = status


async def _check_url(url: str, settings: FetchSettings) -> None:
    """Raise _Refused unless `url` is http(s) and every address its host resolves to is allowed."""
    parts = urlsplit(url)
    if parts.scheme not in ("http", "https") or not parts.hostname:
        raise _Refused(f"refused: {url[:100]!r} is not an http(s) address")
    host = parts.hostname
    port = parts.port or (443 if parts.scheme == "https" else 80)
    try:
        infos = await asyncio.get_running_loop().getaddrinfo(host, port, type=socket.SOCK_STREAM)
    except socket.gaierror as err:
        raise _Refused(f"cannot resolve {host}: {err.strerror}") from None
    allowed = [ipaddress.ip_network(n) for n in settings.allowed_networks]
    for info in infos:
        ip = ipaddress.ip_address(info[4][0].split("%")[0])
        if not address_allowed(ip, allowed):
            raise _Refused(f"refused: {host} is at {ip}, a {address_kind(ip)} address "
                           "(not fetched, to protect internal services)")


def _check_peer(resp: httpx.Response, url: str, settings: FetchSettings) -> None:
    """Raise _Refused unless the address that answered is allowed.

    httpx resolves the name again when it connects, so a DNS answer that changed after
    `_check_url` (rebinding: public when checked, internal when connecting) would reach an
    internal service. The request has then been sent, but nothing of the answer is read or kept.
    (The client uses no proxy, so the peer is the server itself.)"""
    stream = resp.extensions.get("network_stream")
    peer = stream.get_extra_info("server_addr") if stream is not None else None
    host = urlsplit(url).hostname
    if not peer:
        raise _Refused(f"refused: cannot tell which address answered for {host}")
    ip = ipaddress.ip_address(str(peer[0]).split("%")[0])
    if not address_allowed(ip, [ipaddress.ip_network(n) for n in settings.allowed_networks]):
        raise _Refused(f"refused: {host} answered from {ip}, a {address_kind(ip)} address, though it "
                       "resolved to an allowed one when checked (not read, to protect internal "
                       "services)")


class _Inflater:
    """Decode a body by its Content-Encoding without ever holding more than the cap."""

    def __init__(self, encoding: str):
        enc = encoding.strip().lower()
        self._z: zlib._Decompress | None = None
        if enc in ("gzip", "x-gzip"):
            self._z = zlib.decompressobj(wbits=31)
        elif enc == "deflate":
            self._z = zlib.decompressobj(wbits=47)  # zlib-wrapped (the standard) or gzip
        elif enc not in ("", "identity"):
            raise _Refused(f"unsupported Content-Encoding {enc!r}")

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
                raise _Refused(f"the compressed body is corrupt ({err})") from None
            data = self._z.unconsumed_tail
            if self._z.eof and self._z.unused_data:  # gzip allows several members in a row
                data = self._z.unused_data + data
                self._z = zlib.decompressobj(wbits=31)
        return out


def _retry_after(value: str | None, now: dt.datetime, settings: FetchSettings) -> dt.datetime:
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
    seconds = min(max(seconds, 0.0), float(settings.max_retry_after_s))
    return now + dt.timedelta(seconds=seconds)


@dataclass
class _Fetch:
    attempt: Attempt
    sent_validators: bool = False
    body_bytes: int = 0
    body: bytes | None = None
    """A 200's body, still to be parsed (by `fetch_one`, in the parsing worker)."""
    headers: dict[str, str] = field(default_factory=dict)
    url: str = ""


async def _fetch(client: httpx.AsyncClient, feed: Feed, snapshot: Snapshot | None,
                 settings: FetchSettings, now: dt.datetime) -> _Fetch:
    url = str(feed.url)
    headers = {"Accept": "application/rss+xml, application/atom+xml, application/feed+json, "
                         "application/xml;q=0.9, text/xml;q=0.9, */*;q=0.5",
               "Accept-Encoding": "gzip, deflate"}
    sent = False
    if snapshot is not None and snapshot.url == url:
        if snapshot.validators.etag:
            headers["If-None-Match"] = snapshot.validators.etag
            sent = True
        if snapshot.validators.last_modified:
            headers["If-Modified-Since"] = snapshot.validators.last_modified
            sent = True
    result = _Fetch(Attempt(status=None, error="not fetched"), sent)
    seen = [url]
    for _hop in range(settings.max_redirects + 1):
        await _check_url(url, settings)
        async with client.stream("GET", url, headers=headers) as resp:
            _check_peer(resp, url, settings)
            status = resp.status_code
            if status in (301, 302, 303, 307, 308):
                location = resp.headers.get("location")
                if not location:
                    raise _Refused(f"HTTP {status} redirect without a Location", status)
                url = urljoin(url, location)
                if url in seen:
                    raise _Refused(f"redirect loop ({len(seen)} addresses, back to {url})", status)
                seen.append(url)
                continue
            if status == 304:
                if not sent:  # nothing was asked about, so nothing is known to be unchanged
                    raise _Refused("HTTP 304 Not Modified to a request that sent no "
                                   "validators (no If-None-Match or If-Modified-Since)", status)
                result.attempt = Attempt(status=304, unchanged=True)
                return result
            if status == 410:
                result.attempt = Attempt(status=410, gone=True,
                                         error="the feed is gone (HTTP 410); not asked again")
                return result
            if status in (429, 503):
                wait = _retry_after(resp.headers.get("retry-after"), now, settings)
                result.attempt = Attempt(status=status, retry_after=wait,
                                         error=f"HTTP {status} {resp.reason_phrase}; asked to "
                                               f"wait until {wait:%Y-%m-%d %H:%M} UTC")
                return result
            if status != 200:
                raise _Refused(f"HTTP {status} {resp.reason_phrase}", status)
            result.body = await _read_body(resp, settings)
            result.body_bytes = len(result.body)
            result.headers, result.url = dict(resp.headers), url
            return result
    raise _Refused(f"too many redirects (more than {settings.max_redirects})")


async def _read_body(resp: httpx.Response, settings: FetchSettings) -> bytes:
    cap = settings.max_body_bytes
    length = resp.headers.get("content-length", "")
    encoding = resp.headers.get("content-encoding", "")
    if length.isdigit() and not encoding and int(length) > cap:
        raise _Refused(f"the body is {int(length) / MIB:.1f} MiB, over the "
                       f"{cap / MIB:.0f} MiB cap; not downloaded", resp.status_code)
    inflater = _Inflater(encoding)
    parts: list[bytes] = []
    total = 0
    async for chunk in resp.aiter_raw():
        out = inflater.feed(chunk, cap - total)
        total += len(out)
        if total > cap:
            raise _Refused(f"the body is over the {cap / MIB:.0f} MiB cap after "
                           "decompression; stopped reading", resp.status_code)
        parts.append(out)
    return b"".join(parts)


def _describe(err: BaseException, settings: FetchSettings) -> str:
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


async def _parsed(fetched: _Fetch, parser: Executor | None) -> Attempt:
    """Return the attempt of a 200: its body parsed by `parser` (a worker process), so that a
    huge feed's parsing (13.5 s of CPU for 50,000 items) neither holds up the fetches of the
    other feeds in this event loop nor counts against its own deadline."""
    assert fetched.body is not None
    if parser is None:
        parsed = parse_feed(fetched.body, fetched.headers, fetched.url)
    else:
        parsed = await asyncio.get_running_loop().run_in_executor(
            parser, parse_feed, fetched.body, fetched.headers, fetched.url)
    if not parsed.kind:
        return Attempt(status=200, error=parsed.problem or "not a feed")
    return Attempt(status=200, parsed=parsed, etag=fetched.headers.get("etag"),
                   last_modified=fetched.headers.get("last-modified"))


async def fetch_one(client: httpx.AsyncClient, feed: Feed, snapshot: Snapshot | None,
                    settings: FetchSettings, now: dt.datetime,
                    parser: Executor | None = None) -> tuple[Snapshot, Outcome]:
    """Return the feed's next snapshot and what happened; never raises for a feed's fault.
    `parser` parses bodies (see `_parsed`); without one they are parsed here."""
    start = time.monotonic()
    why_not = skip_reason(feed, snapshot, now)
    if why_not and snapshot is not None:
        return snapshot, Outcome(feed.id, snapshot.health.status, why_not, ok=False, skipped=True)
    sent = bool(snapshot and snapshot.url == str(feed.url)
                and (snapshot.validators.etag or snapshot.validators.last_modified))
    body_bytes = 0
    try:
        async with asyncio.timeout(settings.deadline_s):
            fetched = await _fetch(client, feed, snapshot, settings, now)
        attempt, body_bytes = fetched.attempt, fetched.body_bytes
        if fetched.body is not None:
            attempt = await _parsed(fetched, parser)
    except _Refused as err:
        attempt = Attempt(status=err.status, error=str(err))
    except (TimeoutError, httpx.HTTPError, OSError) as err:
        attempt = Attempt(status=None, error=_describe(err, settings))
    except BrokenProcessPool:
        attempt = Attempt(status=200, error="the feed parser stopped while reading this feed "
                                            "(out of memory, or killed); nothing was kept")
    new = record_attempt(feed, snapshot, attempt, now, settings.retention_days)
    before = {i.id for i in snapshot.items} if snapshot else set()
    added = sum(1 for i in new.items if i.id not in before)
    if attempt.error:
        message = attempt.error
    elif attempt.unchanged:
        message = "unchanged (304)"
    else:
        message = f"{len(new.items)} items, {added} new"
        if attempt.parsed and attempt.parsed.problem:
            message += f"; {attempt.parsed.problem}"
    return new, Outcome(feed.id, attempt.status, message, ok=attempt.error is None,
                        new_items=added, sent_validators=sent, body_bytes=body_bytes,
                        seconds=time.monotonic() - start)


def write_snapshot(path: Path, snapshot: Snapshot) -> None:
    """Write `snapshot` to `path` atomically: a temporary file beside it, fsync, rename."""
    text = json.dumps(snapshot.model_dump(mode="json"), ensure_ascii=False, indent=1,
                      allow_nan=False) + "\n"
    write_whole(path, text.encode("utf-8"), durable=True)


Progress = Callable[[int, int, Outcome], None]


async def _run(root: Path, feeds: list[Feed], snapshots: dict[str, Snapshot],
               settings: FetchSettings, now: dt.datetime, progress: Progress | None,
               parser: Executor | None) -> RunReport:
    report = RunReport()
    gate = asyncio.Semaphore(settings.concurrency)
    timeout = httpx.Timeout(settings.deadline_s, connect=settings.connect_timeout_s)
    limits = httpx.Limits(max_connections=settings.concurrency * 2, max_keepalive_connections=0)
    # trust_env=False: no proxy from the environment, so the address we check is the one we reach.
    async with httpx.AsyncClient(timeout=timeout, limits=limits, follow_redirects=False,
                                 trust_env=False,
                                 headers={"User-Agent": settings.user_agent}) as client:
        async def one(feed: Feed) -> None:
            async with gate:
                snap, outcome = await fetch_one(client, feed, snapshots.get(feed.id),
                                                settings, now, parser)
            if not outcome.skipped:
                write_snapshot(snapshot_path(root, feed.id), snap)
                snapshots[feed.id] = snap
            report.outcomes.append(outcome)
            if progress:
                progress(len(report.outcomes), len(feeds), outcome)

        await asyncio.gather(*(one(f) for f in feeds))
    order = {f.id: i for i, f in enumerate(feeds)}
    report.outcomes.sort(key=lambda o: order[o.feed_id])
    return report


def ingest_feeds(root: Path, feeds: list[Feed], snapshots: dict[str, Snapshot], *,
                 now: dt.datetime, settings: FetchSettings = FetchSettings(),
                 progress: Progress | None = None) -> RunReport:
    """Fetch every feed (bounded concurrency), write its snapshot, return what happened.

    `snapshots` is updated in place with the new state of each fetched feed.
    """
    start = time.monotonic()
    with _parser() as parser:
        report = asyncio.run(_run(root, feeds, snapshots, settings, now, progress, parser))
    report.seconds = time.monotonic() - start
    return report


@contextlib.contextmanager
def _parser() -> Iterator[Executor | None]:
    """A worker process for parsing feeds, forked before the event loop and its resolver
    threads start (a fork with threads running can inherit a held lock); none where processes
    cannot be made, and then feeds are parsed in the loop."""
    try:
        pool = ProcessPoolExecutor(1, multiprocessing.get_context("fork"))
        pool.submit(int).result()  # started now, while this process has one thread
    except (OSError, NotImplementedError):
        yield None
        return
    try:
        yield pool
    finally:
        pool.shutdown(wait=True, cancel_futures=True)
