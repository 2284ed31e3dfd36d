"""Value types of a composed edition: its items (stories, figures, radar items), each with its
citations, in sections. Compose makes them; render and build read them."""

from __future__ import annotations

import datetime as dt
from dataclasses import dataclass, field


@dataclass(frozen=True)
class Citation:
    """Where an item or figure comes from: the outside page and our source file."""

    label: str
    """Who published it: `DeepSeek API docs`, `MLPerf Inference v5.1 (5.1-0069)`."""
    url: str
    """The outside page (http/https); empty when no page is known (then `published` is set)."""
    source_path: str
    """Our source file, relative to the repository root."""
    ref: str = ""
    """The id inside that file (entry id, record, result id), for an anchor."""
    published: dt.date | None = None
    """For a source without a page: the day the publisher stated it."""

    @property
    def text(self) -> str:
        """Return how a Sources list names it: the label, with the day when there is no page."""
        if self.url or self.published is None:
            return self.label
        return f"{self.label}, {self.published.isoformat()}"

    @property
    def key(self) -> str:
        """Return what tells sources apart in an edition's list: the page, else the name and day."""
        return self.url or self.text


@dataclass(frozen=True)
class Story:
    """A headline and a paragraph (Top developments, Local view)."""

    id: str
    headline: str
    """Plain text; escaped when rendered."""
    summary_md: str
    """Markdown safe to render: the editor's own, or third-party text already sanitized."""
    citations: tuple[Citation, ...]
    origin: str = "curated"
    """`curated` (an editor's entry) or `feed` (a ranked feed item)."""
    original_headline: str | None = None
    also_reported_by: tuple[str, ...] = ()
    corrections: tuple[tuple[dt.date, str], ...] = ()
    sample: bool = False
    """A feed story from sample data bundled for the offline build, not fetched news."""
    lane: str = ""
    """Where it was computed (`feeds`); "" for an editor's entry."""


@dataclass(frozen=True)
class Figure:
    """One bullet of Context & numbers: a label and a sentence, with its sources."""

    label: str
    text_md: str
    """Markdown safe to render."""
    citations: tuple[Citation, ...]
    id: str = ""
    lane: str = ""
    """The lane that computed it (`prices`, `catalogues`, `hardware`); "" for an editor's entry."""
    page: str = ""
    """A page of this site that states the figure and how it is computed, as a path under the
    site's URL (`economics/#same-model-index`): its label links there; "" for none."""


@dataclass(frozen=True)
class RadarItem:
    """One bullet of On the radar: something due, with the day when known. `known`: the day
    it became known (a price record's checked date), from which `since` is the first edition
    that carried it, set on the editions after that one."""

    label: str
    text_md: str
    citations: tuple[Citation, ...]
    due: dt.date | None = None
    id: str = ""
    known: dt.date | None = None
    since: dt.date | None = None
    provider: str = ""
    """The provider whose prices it announces, for a computed item."""
    lane: str = ""
    """The lane that computed it (`prices`, `hardware`); "" for an editor's entry."""

    @property
    def when(self) -> str:
        """The item's dates in words, each once: `due 2027-01-01; on the radar since …`."""
        words = [f"due {self.due.isoformat()}"] if self.due else []
        if self.since:
            words.append(f"on the radar since {self.since.isoformat()}")
        return "; ".join(words)


Item = Story | Figure | RadarItem


@dataclass(frozen=True)
class SectionContent:
    id: str
    title: str
    items: tuple[Item, ...]


@dataclass(frozen=True)
class Edition:
    """The briefing of one date."""

    date: dt.date
    title: str
    previous: dt.date | None
    """The date of the edition before it; the window is (previous, date]."""
    sections: tuple[SectionContent, ...]
    corrections: tuple[tuple[dt.date, str, str], ...] = ()
    """(date, entry id, note) for entries corrected after publication."""
    sources: tuple[Citation, ...] = field(default=())
    """Every outside page the edition cites, once each, in order of first use."""

    def section(self, section_id: str) -> SectionContent | None:
        return next((s for s in self.sections if s.id == section_id), None)


def in_window(day: dt.date, previous: dt.date | None, date: dt.date) -> bool:
    """Is `day` in the edition window (previous, date]? The first edition takes all before it."""
    return day <= date and (previous is None or day > previous)
