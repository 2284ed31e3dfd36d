"""Feeds: the list we follow (`sources/feeds.yaml`) and the state ingest keeps per feed
(`sources/snapshots/feeds/<feed-id>.json`)."""

from __future__ import annotations

import datetime as dt
from typing import Literal

from pydantic import Field, model_validator

from pipeline.models.base import SourceModel
from pipeline.models.entries import HttpUrl, Slug

Region = str
DateFlag = Literal["missing", "future"]


class Feed(SourceModel):
    """One feed we follow."""

    id: Slug
    """Stable id, lower-case with hyphens; names the snapshot file `snapshots/feeds/<id>.json`."""
    url: HttpUrl
    """The feed's address (RSS, Atom, RDF or JSON Feed), http or https."""
    title: str = Field(min_length=1, max_length=120)
    """The publisher's name as readers know it; shown as the citation of the feed's items."""
    region: Region = Field(default="global", pattern=r"^[a-z]{2,12}$")
    """Where the publisher writes from or for: `global`, `cn`, `us`, `eu` …; not `global` puts its
    items in Local view."""
    language: str = Field(default="en", pattern=r"^[a-z]{2,3}(-[A-Za-z0-9]+)*$")
    """Language of the feed as a BCP 47 tag, used when the feed does not declare one."""
    topics: list[Slug] = Field(default=[], max_length=20)
    """Ids from the top-level `topics` that this feed usually covers (a hint for editors)."""
    weight: float = Field(default=1.0, ge=0.0, le=5.0)
    """How much an item from this feed counts in ranking: 1 is neutral, 0 mutes the feed."""


class FeedsFile(SourceModel):
    """`sources/feeds.yaml`: the topics we rank by and the feeds we follow."""

    topics: dict[Slug, list[str]] = Field(min_length=1)
    """Topic id → keywords (case-insensitive, any language) that make an item about the topic."""
    feeds: list[Feed] = Field(min_length=1)
    """The feeds, in the order the Sources page lists them."""

    @model_validator(mode="after")
    def _unique_and_known(self) -> FeedsFile:
        ids = [f.id for f in self.feeds]
        twice = sorted({i for i in ids if ids.count(i) > 1})
        if twice:
            raise ValueError(f"feed id appears twice: {', '.join(twice)}")
        for topic, words in self.topics.items():
            if not [w for w in words if w.strip()]:
                raise ValueError(f"topic {topic!r} has no keywords")
        return self


class Validators(SourceModel):
    """What the server gave us to ask "has it changed?" next time (conditional GET)."""

    etag: str | None = None
    """The `ETag` of the last full response, sent back as `If-None-Match`."""
    last_modified: str | None = None
    """The `Last-Modified` of the last full response, sent back as `If-Modified-Since`."""


class Health(SourceModel):
    """How fetching this feed has gone."""

    last_attempt: dt.datetime | None = None
    """When ingest last tried the feed (UTC)."""
    last_success: dt.datetime | None = None
    """When the feed last answered with a feed or with 304 Not Modified (UTC)."""
    status: int | None = None
    """HTTP status of the last attempt; none when no response came (timeout, refused address)."""
    consecutive_failures: int = Field(default=0, ge=0)
    """Failed attempts since the last success; three or more flags the feed on the Sources page."""
    last_error: str | None = None
    """What went wrong last time, for people; cleared by a success."""
    last_warning: str | None = None
    """What was wrong with the last feed that was read (a truncated or malformed body read
    loosely), for people; cleared by a clean read."""
    gone: bool = False
    """The server said 410 Gone: ingest stops asking until the feed's url changes."""
    retry_after: dt.datetime | None = None
    """The server asked us (429/503 Retry-After) not to come back before this time (UTC)."""


class SnapshotItem(SourceModel):
    """One item of a feed as ingest stored it: already canonical and sanitized."""

    id: str = Field(min_length=1, max_length=80)
    """Stable id: a hash of the GUID, else of the canonical link, else of title and summary."""
    url: str | None = None
    """Canonical address of the item (absolute http/https, tracking parameters removed)."""
    title: str = ""
    """Plain-text title (no markup), in the item's own language."""
    summary_html: str = ""
    """Summary as HTML cleaned to a small allow-list (no script, svg, math, form, style)."""
    summary_text: str = ""
    """Plain-text summary cut at a word boundary."""
    published: dt.datetime
    """Publication time in UTC; the first-seen time when the feed gave none."""
    date_flag: DateFlag | None = None
    """`missing`: the feed gave no date; `future`: it gave a date ahead of the fetch, clamped."""
    first_seen: dt.datetime
    """When ingest first saw the item (UTC); kept across runs."""
    language: str | None = None
    """Language of the item (from the feed or xml:lang), when known."""
    author: str | None = None
    """Author name as plain text, when given."""
    cut: list[str] = []
    """The fields stored cut short because the feed gave more than a snapshot keeps of one
    (normalize/items.py: FIELD_CAP_BYTES); a link too long to keep is dropped."""


class Snapshot(SourceModel):
    """The state of one feed, written only by `brief ingest feeds` and committed."""

    feed_id: str
    """The feed's id in `feeds.yaml`."""
    url: str
    """The address that was fetched (a url change in feeds.yaml resets `gone`)."""
    title: str | None = None
    """The feed's own title as plain text."""
    language: str | None = None
    """The feed's declared language."""
    validators: Validators = Validators()
    """ETag / Last-Modified of the last full response."""
    health: Health = Health()
    """How the last attempts went."""
    items: list[SnapshotItem] = []
    """Items within the retention window, newest first."""
    note: str | None = None
    """Why the file exists without a fetch (bundled sample data); the first real fetch drops it."""
