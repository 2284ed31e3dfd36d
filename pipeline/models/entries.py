"""Curated entries: one news item, written by an editor, in `sources/entries/YYYY/MM-DD-slug.yaml`."""

from __future__ import annotations

import datetime as dt
from typing import Annotated, Literal

from pydantic import AnyUrl, ConfigDict, Field, UrlConstraints, field_validator, model_validator

from pipeline.models.base import SourceModel
from pipeline.models.links import link_scheme, refused_links

HttpUrl = Annotated[AnyUrl, UrlConstraints(allowed_schemes=["http", "https"])]
"""A web address; only http and https, so no `javascript:` or `file:` link reaches a page."""

Slug = Annotated[str, Field(pattern=r"^[a-z0-9][a-z0-9-]*$", max_length=80)]


class Link(SourceModel):
    """A page an entry is based on; or, when no page is known, the publication and the day it
    stated the claim (the Sources list then names them, unlinked)."""

    # The rule `_page_or_day` enforces, for editors' YAML plugins too.
    model_config = ConfigDict(json_schema_extra={"anyOf": [{"required": ["url"]},
                                                           {"required": ["published"]}]})

    url: HttpUrl | None = None
    """The address of the page that states the claim (http or https), not the publisher's home
    page; leave it out when no such page is known, and give `published` instead."""
    site: bool = False
    """True when the link is the site itself, a dashboard or a catalogue (InferenceX, models.dev),
    so its home page is what the entry cites; `brief check` then accepts a `url` without a path."""
    publisher: str = Field(min_length=1)
    """Who published it, as readers know them: `SemiAnalysis`, `Sohu`, `DeepSeek API docs`."""
    published: dt.date | None = None
    """For a source with no `url`: the day the publisher stated the claim (YYYY-MM-DD), or, when
    only the coverage is known and not the article, the day it was known by."""
    title: str | None = None
    """The page's own title, in its own language, when it helps the reader."""
    region: str = "global"
    """Where the publisher writes from or for: `global`, `cn`, `us`, `eu` …"""
    language: str = Field(default="en", pattern=r"^[a-z]{2,3}(-[A-Za-z0-9]+)*$")
    """Language of the page, as a BCP 47 tag: `en`, `zh`, `zh-Hans`."""

    @model_validator(mode="after")
    def _page_or_day(self) -> Link:
        if self.url is None and self.published is None:
            raise ValueError("give the `url` of the page that states the claim; when no such "
                             "page is known, give the day the publisher stated it instead "
                             "(`published: YYYY-MM-DD`)")
        if self.url is None and self.site:
            raise ValueError("`site: true` marks a link to a site's home page; give its `url`")
        return self


class Correction(SourceModel):
    """A dated note that an entry was corrected after its edition was published."""

    date: dt.date
    """When the correction was made."""
    note: str = Field(min_length=1)
    """What changed, in a sentence readers will see on the edition."""


class Claim(SourceModel):
    """A price figure the entry's prose states, which `brief check` compares with the price
    record it cites: a price on a day, or a price's move between two days.

    Give exactly one stated figure: `stated_usd_per_mtok` (a price, converted to US dollars),
    `stated_per_mtok` (a price in the list's own currency) or `stated_change_percent` (a move,
    with `since`)."""

    provider: str
    """The price file the figure comes from (`deepseek` for sources/prices/deepseek.yaml)."""
    currency: str = Field(pattern=r"^[A-Z]{3}$")
    """The list the price is published in (ISO 4217: `CNY`, `USD`)."""
    model: str
    """The model as the price file names it."""
    # models/prices.py's Meter and Mode, spelt out: it imports this module.
    meter: Literal["input", "cached_input", "cache_write", "output", "blend"]
    """`input`, `cached_input`, `cache_write` or `output`; or `blend`, the blended price of a
    workload profile (`profile`), as the Prices page computes it."""
    profile: str | None = None
    """For `meter: blend`: the workload profile of sources/editions.yaml (`chat-3-1`)."""
    window: str | None = None
    """The named time window (`offpeak-2025`, `peak-2026`), where the price depends on the hour;
    absent for the rest of the week."""
    context_above_tokens: int = Field(default=0, ge=0)
    """The context band, as the price file gives it (`200000`: prompts above 200k tokens)."""
    mode: Literal["realtime", "batch"] = "realtime"
    """`realtime`, or `batch` for the batch price."""
    at: dt.date
    """The day the figure is for (the price in force at 12:00 UTC)."""
    since: dt.date | None = None
    """For `stated_change_percent`: the day the move is from (the price in force at 12:00 UTC)."""
    stated_usd_per_mtok: float | None = Field(default=None, gt=0)
    """The USD per million tokens the prose states, converted at the ECB rate of the record's
    day for a list in another currency; `brief check` refuses a figure beyond 2 % of ours."""
    stated_per_mtok: float | None = Field(default=None, gt=0)
    """The price per million tokens the prose states in the list's own currency (`0.02` for
    ¥0.02 in the CNY list); `brief check` refuses a figure beyond 2 % of ours."""
    stated_change_percent: float | None = Field(default=None, ge=-100)
    """The move from `since` to `at` the prose states, in per cent of the price on `since`
    (`-62` for a cut of 62 %, `50` for a rise of half), in the list's own currency; `brief
    check` refuses a figure more than one percentage point from ours."""

    @model_validator(mode="after")
    def _one_figure(self) -> Claim:
        stated = [name for name in ("stated_usd_per_mtok", "stated_per_mtok",
                                    "stated_change_percent") if getattr(self, name) is not None]
        if len(stated) != 1:
            raise ValueError("give exactly one of `stated_usd_per_mtok`, `stated_per_mtok` and "
                             f"`stated_change_percent` (it gives {' and '.join(stated) or 'none'})")
        if (self.since is None) != (self.stated_change_percent is None):
            raise ValueError("a move needs both `since` (the day it is from) and "
                             "`stated_change_percent`; a price on one day has neither")
        if self.since is not None and self.since >= self.at:
            raise ValueError(f"`since` ({self.since.isoformat()}) must be before `at` "
                             f"({self.at.isoformat()})")
        if (self.meter == "blend") != (self.profile is not None):
            raise ValueError("`meter: blend` needs the `profile` it blends for, and only a "
                             "blend has a profile")
        if self.meter == "blend" and (self.window or self.context_above_tokens
                                      or self.mode != "realtime"):
            raise ValueError("a blend weighs the windows, band and mode by its profile; give "
                             "no `window`, `context_above_tokens` or `mode`")
        return self


class Entry(SourceModel):
    """One curated item of an edition."""

    id: Slug | None = None
    """Stable id used in anchors and citations; defaults to the file name without its date."""
    date: dt.date
    """The editorial date of the news: the item goes into the first edition on or after it."""
    section: str
    """Which section of the edition it belongs to: `top`, `local`, `numbers` or `radar`."""
    headline: str = Field(min_length=1, max_length=200)
    """The headline, in our words."""
    original_headline: str | None = None
    """The headline in the source's own language, shown beside ours in Local view."""
    summary: str = Field(min_length=1)
    """A paragraph in Markdown, in our words; facts from the links, never their sentences."""
    links: list[Link] = Field(min_length=1)
    """The pages this entry is based on, the first the primary source: each the page that states
    the claim, or the publication and day when no page is known."""
    tags: list[Slug] = []
    """Topics, lower-case with hyphens: `pricing`, `deepseek`, `mlperf`."""
    event_date: dt.date | None = None
    """For `radar` items: the day the awaited thing is due, when it is known."""
    corrections: list[Correction] = []
    """Corrections made after publication, oldest first."""
    claims: list[Claim] = []
    """The price figures the headline and summary state, each against the record it cites:
    `brief check` compares them with ours (CONTRIBUTING.md, "Declare the figures you state")."""
    draft: bool = Field(default=False, exclude=True)  # exclude: not in `brief new`'s files
    """Set by `brief add` on an entry it pre-filled from a feed item; `brief check` refuses the
    entry until an editor has written it in our own words and deleted this line."""

    @field_validator("draft")
    @classmethod
    def _not_a_draft(cls, draft: bool) -> bool:
        if draft:
            raise ValueError("this entry is a draft pre-filled by `brief add`; write the "
                             "headline and summary in our own words, then delete the "
                             "`draft: true` line")
        return draft

    @field_validator("summary")
    @classmethod
    def _safe_links(cls, summary: str) -> str:
        refused = refused_links(summary)
        if refused:
            raise ValueError(f"a link uses the {link_scheme(refused[0])}: scheme; only http, "
                             "https and mailto links (or links within the site) may be used")
        return summary

    @field_validator("tags")
    @classmethod
    def _unique_tags(cls, tags: list[str]) -> list[str]:
        if len(set(tags)) != len(tags):
            raise ValueError("tags repeat; list each once")
        return tags
