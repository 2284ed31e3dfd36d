"""The network edge for feeds: fetch politely, within limits, and write each feed's snapshot.

httpx does the HTTP (ingest/http.py), never feedparser (it has no timeout and no size cap). Per
feed: a connect timeout and a total deadline, conditional GET, and 410 / 429 / Retry-After
honoured. What the answer means for the stored state is decided in `feed_state`.
"""

from __future__ import annotations

import asyncio
import contextlib
import datetime as dt
import json
import multiprocessing
import time
from collections.abc import Callable, Iterator
from concurrent.futures import Executor, ProcessPoolExecutor
from concurrent.futures.process import BrokenProcessPool
from dataclasses import dataclass, field
from pathlib import Path

import httpx

from pipeline.formats.feeds import parse_feed
from pipeline.ingest.http import FetchSettings, Refused, describe, get
from pipeline.models.feeds import Feed, Snapshot
from pipeline.normalize.feed_state import Attempt, record_attempt, skip_reason
from pipeline.paths import snapshot_path
from pipeline.whole_files import write_whole


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


@dataclass
class _Fetch:
    attempt: Attempt
    sent_validators: bool = False
    body_bytes: int = 0
    body: bytes | None = None
    """A 200's body, still to be parsed (by `fetch_one`, in the parsing worker)."""
    headers: dict[str, str] = field(default_factory=dict)
    url: str = ""


FEED_TYPES = ("application/rss+xml, application/atom+xml, application/feed+json, "
              "application/xml;q=0.9, text/xml;q=0.9, */*;q=0.5")


async def _fetch(client: httpx.AsyncClient, feed: Feed, snapshot: Snapshot | None,
                 settings: FetchSettings, now: dt.datetime) -> _Fetch:
    url = str(feed.url)
    known = snapshot is not None and snapshot.url == url
    etag = snapshot.validators.etag if known and snapshot else None
    modified = snapshot.validators.last_modified if known and snapshot else None
    answer = await get(client, url, settings, now, accept=FEED_TYPES, etag=etag,
                       last_modified=modified)
    result = _Fetch(Attempt(status=answer.status), bool(etag or modified))
    if answer.unchanged:
        result.attempt = Attempt(status=304, unchanged=True)
    elif answer.gone:
        result.attempt = Attempt(status=410, gone=True,
                                 error="the feed is gone (HTTP 410); not asked again")
    elif answer.retry_after is not None:
        wait = answer.retry_after
        result.attempt = Attempt(status=answer.status, retry_after=wait,
                                 error=f"HTTP {answer.status} {answer.reason}; asked to "
                                       f"wait until {wait:%Y-%m-%d %H:%M} UTC")
    else:
        result.body, result.headers, result.url = answer.body, answer.headers, answer.url
        result.body_bytes = len(answer.body or b"")
    return result


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
    except Refused as err:
        attempt = Attempt(status=err.status, error=str(err))
    except (TimeoutError, httpx.HTTPError, OSError) as err:
        attempt = Attempt(status=None, error=describe(err, settings))
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
