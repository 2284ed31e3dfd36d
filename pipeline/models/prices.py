"""Price histories: one provider per file, `sources/prices/<provider>.yaml`, and workload profiles.

A provider may publish several lists (DeepSeek: one in CNY, one in USD). Each list is kept as
published; nothing here derives one list from another. Data-quality gates that need more than one
record at a time (overlaps, 100x slips, window overlaps) live in `pipeline.load.prices`.
"""

from __future__ import annotations

import datetime as dt
import zoneinfo
from functools import cached_property
from typing import Annotated, Literal

from pydantic import (
    BeforeValidator,
    ConfigDict,
    Field,
    WithJsonSchema,
    field_validator,
    model_validator,
)

from pipeline.models.base import SourceModel
from pipeline.models.entries import HttpUrl, Slug
from pipeline.models.ids import Id

Meter = Literal["input", "cached_input", "cache_write", "output"]
Mode = Literal["realtime", "batch"]
Unit = Literal["per_token", "per_1k_tokens", "per_1m_tokens"]
Weekday = Literal["mon", "tue", "wed", "thu", "fri", "sat", "sun"]
TierName = Literal["standard", "peak", "off-peak"]
"""The time tiers (ARCHITECTURE.md, "Time tiers"): every window and every record's rest of the
week is one of them."""

WEEKDAYS: tuple[str, ...] = ("mon", "tue", "wed", "thu", "fri", "sat", "sun")


def _instant(value: object) -> object:
    """Read a date (`2026-09-10`, midnight UTC) or a datetime with its offset, as aware UTC."""
    if isinstance(value, dt.datetime):
        parsed = value
    elif isinstance(value, dt.date):
        return dt.datetime(value.year, value.month, value.day, tzinfo=dt.UTC)
    elif isinstance(value, str):
        text = value.strip()
        try:
            if "T" not in text and " " not in text:
                day = dt.date.fromisoformat(text)
                return dt.datetime(day.year, day.month, day.day, tzinfo=dt.UTC)
            parsed = dt.datetime.fromisoformat(text.replace("Z", "+00:00"))
        except ValueError:
            raise ValueError("expected a date as YYYY-MM-DD (2026-09-10) or a UTC time as "
                             "YYYY-MM-DDTHH:MM:SSZ (2026-05-31T15:59:00Z)") from None
    else:
        return value
    if parsed.tzinfo is None:
        raise ValueError("a datetime needs its offset; write it in UTC with a trailing Z")
    return parsed.astimezone(dt.UTC)


Instant = Annotated[dt.datetime, BeforeValidator(_instant), WithJsonSchema(
    {"type": "string", "anyOf": [{"format": "date"}, {"format": "date-time"}]})]
"""A moment in UTC; a plain date means 00:00 UTC of that day."""


def _clock(value: object) -> object:
    # YAML 1.1 reads 01:00 as a sexagesimal integer (60); our loader keeps it a string, but a
    # hand-built dict may not, so say what to write instead of failing obscurely.
    if isinstance(value, int):
        raise ValueError("write local times as quoted strings: \"01:00\"")
    return value


# The schema says what we read ("01:00"), not JSON Schema's `time` (which wants seconds and
# an offset), so an editor's YAML plugin does not underline a valid clock time.
Clock = Annotated[dt.time, BeforeValidator(_clock), WithJsonSchema(
    {"type": "string", "pattern": r"^([01]\d|2[0-3]):[0-5]\d(:[0-5]\d)?$"})]


class Span(SourceModel):
    """One stretch of local time that belongs to a window, repeated on the given weekdays."""

    start: Clock
    """Local start time, inclusive (`"01:00"`)."""
    end: Clock
    """Local end time, exclusive; at or before `start` means the span runs past midnight."""
    weekdays: list[Weekday] = []
    """Days the span starts on (`mon` … `sun`); empty means every day."""


class Window(SourceModel):
    """A named time window of a list: the hours when some prices differ."""

    name: Slug
    """How records refer to it: `peak-2026`, `offpeak-2025`."""
    tier: Literal["peak", "off-peak"]
    """Which time tier its hours are: `peak` or `off-peak` (the hours outside every window are the
    record's `rest_tier`)."""
    timezone: str | None = None
    """IANA time zone the spans are written in (`Asia/Shanghai`, `UTC`); required."""
    spans: list[Span] = Field(min_length=1)
    """The stretches of local time that make up the window."""

    @field_validator("timezone")
    @classmethod
    def _known_zone(cls, name: str | None) -> str | None:
        if name is not None:
            try:
                zoneinfo.ZoneInfo(name)
            except (zoneinfo.ZoneInfoNotFoundError, ValueError):
                raise ValueError(f"unknown IANA time zone {name!r}; write e.g. Asia/Shanghai "
                                 "or UTC") from None
        return name


class Price(SourceModel):
    """One unit price of one meter, for one window, context band and mode."""

    meter: Meter
    """What is billed: `input` (cache miss), `cached_input` (cache read), `cache_write`, `output`."""
    price: float
    """The price in the list's currency and unit, as published."""
    window: Slug | None = None
    """A window of the list where this price applies; absent for the rest of the week."""
    context_above_tokens: int = Field(default=0, ge=0)
    """The band: applies to the whole request when the prompt has more than this many tokens."""
    mode: Mode = "realtime"
    """`realtime`, or `batch` for an explicit batch price."""
    ttl_minutes: int | None = Field(default=None, gt=0)
    """For `cache_write` when the provider sells several cache lifetimes: 5, 60."""

    @model_validator(mode="after")
    def _ttl_only_for_cache_write(self) -> Price:
        if self.ttl_minutes is not None and self.meter != "cache_write":
            raise ValueError("ttl_minutes is only for the cache_write meter")
        return self


class PriceRecord(SourceModel):
    """The prices of one model over one period of one list."""

    model_config = ConfigDict(populate_by_name=True)

    model: Id
    """The model id as the provider's API spells it: `deepseek-v4-flash` (ASCII letters, digits
    and `._:/@+~-`)."""
    from_: Instant = Field(alias="from")
    """First moment the prices apply (inclusive): a date (00:00 UTC) or a UTC datetime."""
    to: Instant | None = None
    """First moment they no longer apply (exclusive); absent while they still do."""
    prices: list[Price] = Field(min_length=1)
    """The unit prices of the period."""
    rest_tier: TierName = "standard"
    """The time tier of the hours outside this record's windows (`off-peak` when only the peak
    hours are a named window)."""
    batch_discount: float | None = Field(default=None, gt=0, le=1)
    """Batch price as a factor of the realtime price (0.5 = half), when no explicit batch price."""
    source_url: HttpUrl
    """The page the prices were read from."""
    checked: dt.date
    """The day someone last checked them on that page."""
    jump_is_real: bool = False
    """Set when a price is over 100x or under 1/100 of the previous one on purpose."""
    outlier_is_real: bool = False
    """Set when a price is over 20x or under 1/20 of the catalogues' prices of the same model
    and the editor checked it at its source."""
    note: str | None = None
    """A short remark for editors (a promotion, a rounding the page makes)."""

    @cached_property
    def uses_windows(self) -> bool:
        """Does any price of the record apply in a named window only?"""
        return any(p.window for p in self.prices)

    @model_validator(mode="after")
    def _period(self) -> PriceRecord:
        if self.to is not None and self.to <= self.from_:
            raise ValueError("`to` must be after `from`")
        return self


class PriceList(SourceModel):
    """One price list as the provider publishes it, in one currency."""

    currency: str = Field(pattern=r"^[A-Z]{3}$")
    """ISO 4217 code of the list: `USD`, `CNY`, `EUR`."""
    unit: Unit = "per_1m_tokens"
    """What a price is for: `per_token`, `per_1k_tokens` or `per_1m_tokens`."""
    windows: list[Window] = []
    """Named time windows that records of this list refer to."""
    records: list[PriceRecord] = Field(min_length=1)
    """The periods of every model, in any order."""

    @model_validator(mode="after")
    def _windows_known(self) -> PriceList:
        names = [w.name for w in self.windows]
        if len(set(names)) != len(names):
            raise ValueError("a window name appears twice in `windows`")
        for i, record in enumerate(self.records):
            for price in record.prices:
                if price.window is not None and price.window not in names:
                    known = ", ".join(names) or "none"
                    raise ValueError(f"records.{i} ({record.model}) uses window "
                                     f"{price.window!r}; this list defines: {known}")
        return self

    def window(self, name: str) -> Window:
        """Return the window called `name`."""
        return next(w for w in self.windows if w.name == name)

    # Indexes for the cost core, computed once per loaded list (the model is frozen): a year of
    # editions asks which record was in force millions of times, and a scan per question made
    # composing take minutes (benchmarks/README.md).
    @cached_property
    def periods(self) -> dict[str, tuple[list[dt.datetime], list[PriceRecord]]]:
        """Each model's records sorted by start, with the starts alone (to bisect), in
        first-seen order of the models."""
        found: dict[str, list[PriceRecord]] = {}
        for record in self.records:
            found.setdefault(record.model, []).append(record)
        return {model: ([r.from_ for r in rs], rs)
                for model, rs in ((m, sorted(rs, key=lambda r: r.from_))
                                  for m, rs in found.items())}


class PriceFile(SourceModel):
    """A provider's price history."""

    provider: Slug
    """The provider id, equal to the file name: `deepseek`."""
    name: str = Field(min_length=1)
    """The provider as readers know it: `DeepSeek`."""
    lists: list[PriceList] = Field(min_length=1)
    """Its price lists, one per currency it publishes."""

    @cached_property
    def quote_lists(self) -> dict[str, PriceList]:
        """The list to quote each model from, models in first-seen order: the USD list when it
        prices the model, else the first list that does (converted at the ECB rate)."""
        quote: dict[str, PriceList] = {}
        for plist in sorted(self.lists, key=lambda p: p.currency != "USD"):
            for model in plist.periods:
                quote.setdefault(model, plist)
        order = dict.fromkeys(m for p in self.lists for m in p.periods)
        return {m: quote[m] for m in order}

    @model_validator(mode="after")
    def _one_list_per_currency(self) -> PriceFile:
        currencies = [p.currency for p in self.lists]
        if len(set(currencies)) != len(currencies):
            raise ValueError("two lists have the same currency; merge them")
        return self


class WorkloadProfile(SourceModel):
    """A traffic mix that turns tiered prices into one blended price."""

    id: Slug
    """Stable id used in tables: `chat-3-1`."""
    title: str = Field(min_length=1)
    """How readers see it: `Chat (3:1, no cache)`."""
    input_share: float = Field(ge=0, le=1)
    """Share of all tokens that are prompt tokens (cache hits included); the rest are output."""
    cache_hit_rate: float = Field(default=0, ge=0, le=1)
    """Share of prompt tokens read from the cache."""
    offpeak_share: float | None = Field(default=None, ge=0, le=1)
    """Share of traffic in off-peak hours; absent means spread evenly over the week's hours."""
    prompt_tokens: int = Field(default=2000, ge=0)
    """Typical prompt size, which picks the context band."""
    mode: Mode = "realtime"
    """`realtime` or `batch`."""


DEFAULT_PROFILES: tuple[WorkloadProfile, ...] = (
    WorkloadProfile(id="chat-3-1", title="Chat (3:1 input:output, no cache)", input_share=0.75),
    WorkloadProfile(id="cached-agent", title="Cached agent (90 % input, 80 % cache hits)",
                    input_share=0.9, cache_hit_rate=0.8),
)
"""The market's usual 3:1 blend, and an agent that re-reads a long cached prompt."""
