"""Pure: the next state of a feed's snapshot after one fetch attempt.

The rules that make state in git trustworthy live here, away from the network: a failure never
drops stored items, a success merges new items (first-seen times kept) and prunes to the window,
validators change only with a full response.
"""

from __future__ import annotations

import datetime as dt
from dataclasses import dataclass
from typing import TYPE_CHECKING

from pipeline.models.feeds import Feed, Health, Snapshot, SnapshotItem, Validators
from pipeline.normalize.items import cut_at_word, normalize_item, plain_text

if TYPE_CHECKING:
    # A type only: the build reads feed health without importing feedparser (~0.03 s).
    from pipeline.formats.feeds import ParsedFeed

RETENTION_DAYS = 90
"""Items older than this (by publication time) are pruned on a successful fetch."""
MAX_ITEMS = 400
"""At most this many items per feed are kept, newest first (a feed dumping its archive)."""
FLAG_AFTER_FAILURES = 3
"""A feed failing this many runs in a row is flagged on the Sources page."""


@dataclass(frozen=True)
class Attempt:
    """What one fetch gave: a parsed feed, "unchanged", or an error, with what the server said."""

    status: int | None
    error: str | None = None
    """Why the attempt failed, for people; None when it succeeded."""
    parsed: ParsedFeed | None = None
    unchanged: bool = False
    """The server answered 304 Not Modified to our validators."""
    gone: bool = False
    retry_after: dt.datetime | None = None
    etag: str | None = None
    last_modified: str | None = None


def record_attempt(feed: Feed, previous: Snapshot | None, attempt: Attempt, now: dt.datetime,
                   retention_days: int = RETENTION_DAYS) -> Snapshot:
    """Return the snapshot after `attempt` at `now`, starting from `previous` (None: first run)."""
    old = previous or Snapshot(feed_id=feed.id, url=str(feed.url))
    h = old.health
    if attempt.error is not None:
        health = Health(last_attempt=now, last_success=h.last_success, status=attempt.status,
                        consecutive_failures=h.consecutive_failures + 1,
                        last_error=attempt.error, gone=attempt.gone,
                        retry_after=attempt.retry_after)
        # A failed fetch never loses stored items, and keeps the validators that still match them.
        return old.model_copy(update={"url": str(feed.url), "health": health})
    health = Health(last_attempt=now, last_success=now, status=attempt.status,
                    last_warning=attempt.parsed.problem if attempt.parsed else
                    h.last_warning if attempt.unchanged else None)
    if attempt.unchanged or attempt.parsed is None:
        return old.model_copy(update={"url": str(feed.url), "health": health})
    parsed = attempt.parsed
    known = {item.id: item for item in old.items}
    merged = dict(known)
    for raw in parsed.items:
        item = normalize_item(raw, feed_url=str(feed.url), feed_language=parsed.language
                              or feed.language, first_seen=now, now=now)
        before = known.get(item.id)
        if before is not None:
            item = _keep_first_seen(item, before)
        merged[item.id] = item
    cutoff = now - dt.timedelta(days=retention_days)
    items = sorted((i for i in merged.values() if i.published >= cutoff),
                   key=lambda i: (i.published, i.id), reverse=True)[:MAX_ITEMS]
    return Snapshot(feed_id=feed.id, url=str(feed.url),
                    title=cut_at_word(plain_text(parsed.title), 200) or old.title,
                    language=parsed.language or old.language,
                    validators=Validators(etag=attempt.etag, last_modified=attempt.last_modified),
                    health=health, items=items)


def _keep_first_seen(item: SnapshotItem, before: SnapshotItem) -> SnapshotItem:
    """Return `item` with the first-seen time (and, if it had no date, the date) seen before."""
    update: dict = {"first_seen": before.first_seen}
    if item.date_flag == "missing":
        update["published"] = before.published
    elif item.date_flag == "future" and before.date_flag == "future":
        update["published"] = before.published  # keep the clamp stable across runs
    return item.model_copy(update=update)


def is_flagged(snapshot: Snapshot | None) -> bool:
    """Has the feed failed FLAG_AFTER_FAILURES runs or more in a row?"""
    return snapshot is not None and snapshot.health.consecutive_failures >= FLAG_AFTER_FAILURES


def skip_reason(feed: Feed, snapshot: Snapshot | None, now: dt.datetime) -> str | None:
    """Return why ingest should not ask the server now (gone, asked to wait), or None."""
    if snapshot is None:
        return None
    h = snapshot.health
    if h.gone and snapshot.url == str(feed.url):
        return "skipped: the server said the feed is gone (410); change its url to try again"
    if h.retry_after and h.retry_after > now:
        return f"skipped: the server asked us to wait until {h.retry_after:%Y-%m-%d %H:%M} UTC"
    return None
