"""The series: `sources/editions.yaml`, what every edition has in common and when editions appear."""

from __future__ import annotations

import datetime as dt
from typing import Annotated, Literal

from pydantic import Field, model_validator

from pipeline.limits import MAX_EDITIONS
from pipeline.models.base import SourceModel
from pipeline.models.entries import HttpUrl
from pipeline.models.prices import DEFAULT_PROFILES, WorkloadProfile

SectionId = Literal["top", "local", "numbers", "radar"]


class Section(SourceModel):
    """One section of every edition, in the order the series lists them."""

    id: SectionId
    """What the section holds: `top` (top developments), `local` (regional view), `numbers`
    (context and figures), `radar` (what to watch)."""
    title: str = Field(min_length=1)
    """The heading readers see."""
    quota: int = Field(default=4, ge=0, le=50)
    """How many items the section shows at most."""


class Cadence(SourceModel):
    """Editions at a regular interval, instead of a list of dates."""

    start: dt.date
    """The first edition."""
    every_days: int = Field(ge=1, le=366)
    """Days between editions: 1 for daily, 7 for weekly."""
    until: dt.date | None = None
    """The last edition; when absent, the build stops at the day it runs."""


Address = Annotated[str, Field(pattern=r"^[^@\s<>]+@[^@\s<>]+\.[^@\s<>]+$")]


class Mail(SourceModel):
    """How the e-mail edition is sent: who it is from and how a reader leaves the list."""

    sender: str = Field(min_length=3, pattern=r"@")
    """The From header: `Inference Brief <briefing@example.org>`."""
    subscribe: Address | None = None
    """The address a reader writes to to join the list (the Subscribe page gives it)."""
    unsubscribe: Address
    """The address a reader writes to to leave the list (List-Unsubscribe mailto, RFC 2369);
    it must be read, by a person or a script, and the address added to the suppression file."""
    unsubscribe_url: HttpUrl | None = None
    """An https page that unsubscribes with one POST (RFC 8058), only where one exists: a static
    site cannot take the POST, so without it the mailto address is the only way."""

    @model_validator(mode="after")
    def _https(self) -> Mail:
        if self.unsubscribe_url is not None and self.unsubscribe_url.scheme != "https":
            raise ValueError("`unsubscribe_url` must be https (RFC 8058 one-click)")
        return self


LaneName = Literal["prices", "catalogues", "hardware", "economics", "feeds"]


class Topic(SourceModel):
    """A feed of one topic: each edition with only the items that belong to it, which are
    those of its `sections`, the figures its `lanes` compute, and the editors' entries that carry
    one of its `tags`."""

    id: str = Field(pattern=r"^[a-z0-9]+(-[a-z0-9]+)*$", max_length=80)
    """The feed's file name: feed-<id>.xml and feed-<id>.json (at most 80 characters: a longer
    one passed `brief check` and failed the build on its file name, issue 50)."""
    title: str = Field(min_length=1)
    """What the feed is called in a feed reader: the series name, then this."""
    tags: list[str] = []
    """Editors' entries with any of these tags belong to it."""
    lanes: list[LaneName] = []
    """Computed items of these lanes belong to it: prices, catalogues, hardware, economics,
    feeds."""
    sections: list[SectionId] = []
    """Every item of these sections belongs to it."""

    @model_validator(mode="after")
    def _selects(self) -> Topic:
        if not (self.tags or self.lanes or self.sections):
            raise ValueError("a topic needs `tags`, `lanes` or `sections` to select its items")
        return self


class Series(SourceModel):
    """The briefing series."""

    title: str = Field(min_length=1)
    """Title of each edition; `{date}` is replaced by the edition's date (YYYY-MM-DD)."""
    description: str = Field(min_length=1)
    """One sentence saying what the series covers, for feeds and page metadata."""
    site_url: HttpUrl
    """Where the site is published; used for absolute links in feeds and e-mail."""
    source_url: HttpUrl
    """Base address of the repository's files, so a figure can link to its source entry."""
    dates: list[dt.date] = []
    """The edition dates, when they are not on a cadence."""
    cadence: Cadence | None = None
    """A regular schedule of editions, instead of `dates`."""
    mail: Mail | None = None
    """Sender and unsubscribe addresses of the e-mail edition (`brief send` needs them)."""
    topics: list[Topic] = []
    """Per-topic feeds beside the feed of whole editions."""
    sections: list[Section] = Field(min_length=1)
    """The sections of every edition, in order."""
    profiles: list[WorkloadProfile] = list(DEFAULT_PROFILES)
    """Workload profiles that blended prices are computed for; defaults to chat-3-1 and
    cached-agent."""

    @model_validator(mode="after")
    def _one_schedule(self) -> Series:
        if bool(self.dates) == bool(self.cadence):
            raise ValueError("give either `dates` or `cadence`, not both and not neither")
        ids = [s.id for s in self.sections]
        if len(set(ids)) != len(ids):
            raise ValueError("a section id appears twice in `sections`")
        if len(self.dates) > MAX_EDITIONS:
            raise ValueError(f"{len(self.dates):,} edition dates, more than the {MAX_EDITIONS:,} "
                             "a series may have (pipeline/limits.py): start a new series")
        topic_ids = [t.id for t in self.topics]
        if len(set(topic_ids)) != len(topic_ids):
            raise ValueError("a topic id appears twice in `topics`")
        profile_ids = [p.id for p in self.profiles]
        if len(set(profile_ids)) != len(profile_ids):
            raise ValueError("a profile id appears twice in `profiles`")
        return self

    def edition_dates(self, today: dt.date) -> list[dt.date]:
        """Return the edition dates in order; a cadence without `until` stops at `today`."""
        if self.dates:
            return sorted(self.dates)
        c = self.cadence
        assert c is not None
        end = c.until or today
        n = (end - c.start).days // c.every_days + 1 if end >= c.start else 0
        return [c.start + dt.timedelta(days=i * c.every_days) for i in range(n)]

    @property
    def last_edition(self) -> dt.date | None:
        """Return the date of the last edition; None when a cadence has no `until` (the editions
        go on, so every entry will have one)."""
        if self.cadence is not None and self.cadence.until is None:
            return None
        dates = self.edition_dates(dt.date.min)
        return dates[-1] if dates else None

    def edition_title(self, date: dt.date) -> str:
        """Return the title of the edition of `date`."""
        return self.title.replace("{date}", date.isoformat())
