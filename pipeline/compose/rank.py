"""Pure: feed items of an edition window, deduplicated across feeds and ranked for editors.

Ranking is a plain formula so an editor can predict it:
    score = feed weight × (1 + topic hits, title hits counted twice) × recency × (1 + ¼ per
    other feed that reported the same story), recency halving every 7 days before the edition.
"""

from __future__ import annotations

import dataclasses
import datetime as dt
import re
from bisect import bisect_right
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass

from pipeline.compose.story_groups import dedupe
from pipeline.compose.types import Citation, Story
from pipeline.models.feeds import Feed, Snapshot, SnapshotItem
from pipeline.normalize.items import canonical_url, md_text
from pipeline.paths import FEED_SNAPSHOTS as SNAPSHOT_DIR

HALF_LIFE_DAYS = 7.0
FIRST_EDITION_DAYS = 7
"""The first edition has no previous one: it looks back this many days."""


@dataclass(frozen=True)
class Candidate:
    """A feed item worth an editor's look, with who else reported it and why it ranks."""

    feed: Feed
    item: SnapshotItem
    score: float
    topics: tuple[str, ...]
    """Ids of the topics whose keywords it mentions."""
    also: tuple[tuple[Feed, SnapshotItem], ...] = ()
    """The same story from other feeds."""

    @property
    def source_path(self) -> str:
        return (SNAPSHOT_DIR / f"{self.feed.id}.json").as_posix()

    @property
    def also_reported_by(self) -> tuple[str, ...]:
        names: list[str] = []
        for feed, _ in self.also:
            if feed.title not in names and feed.id != self.feed.id:
                names.append(feed.title)
        return tuple(names)


@dataclass(frozen=True)
class FeedItems:
    """Every item of some feeds, by UTC day of publication: each edition's window in a look-up.

    Composing a year of editions asks for 365 windows; scanning every item for each took longer
    than ranking them. Build it once (`feed_items`) for the feeds and snapshots it is asked about.
    """

    days: tuple[dt.date, ...]
    """The days with items, in order."""
    by_day: tuple[tuple[tuple[int, Feed, SnapshotItem], ...], ...]
    """Per day, (position in feed then snapshot order, feed, item)."""

    def window(self, date: dt.date, previous: dt.date | None) -> list[tuple[Feed, SnapshotItem]]:
        """Return (feed, item) for items published (UTC day) in the window (previous, date], in
        feed order, then snapshot order."""
        start = previous or date - dt.timedelta(days=FIRST_EDITION_DAYS)
        days = self.by_day[bisect_right(self.days, start):bisect_right(self.days, date)]
        found = sorted((entry for day in days for entry in day), key=lambda e: e[0])
        return [(feed, item) for _, feed, item in found]


def feed_items(feeds: Sequence[Feed], snapshots: Mapping[str, Snapshot]) -> FeedItems:
    """Return the items of `feeds` (from their `snapshots`) indexed by day."""
    by_day: dict[dt.date, list[tuple[int, Feed, SnapshotItem]]] = {}
    position = 0
    for feed in feeds:
        snap = snapshots.get(feed.id)
        for item in snap.items if snap else []:
            by_day.setdefault(item.published.date(), []).append((position, feed, item))
            position += 1
    days = sorted(by_day)
    return FeedItems(tuple(days), tuple(tuple(by_day[d]) for d in days))


def window_items(feeds: Sequence[Feed], snapshots: Mapping[str, Snapshot], date: dt.date,
                 previous: dt.date | None) -> list[tuple[Feed, SnapshotItem]]:
    """Return (feed, item) for items published (UTC day) in the window (previous, date]."""
    return feed_items(feeds, snapshots).window(date, previous)


def _keyword_pattern(keyword: str) -> str:
    word = re.escape(keyword.strip().casefold())
    # Word boundaries for alphabetic scripts; none for CJK, which has no spaces between words.
    if keyword.isascii():
        return rf"(?<!\w){word}(?!\w)"
    return word


Matchers = tuple[tuple[str, re.Pattern[str] | None], ...]
"""Per topic id, one pattern matching any of its keywords (None: it has none)."""


def topic_matchers(topics: Mapping[str, Sequence[str]]) -> Matchers:
    """Return `topics` compiled once per ranking rather than once per item and keyword.

    One alternation per topic finds a match where any keyword's own pattern would.
    """
    out = []
    for topic, words in topics.items():
        patterns = [f"(?:{_keyword_pattern(w)})" for w in words if w.strip()]
        out.append((topic, re.compile("|".join(patterns)) if patterns else None))
    return tuple(out)


def topic_hits(text: str, topics: Mapping[str, Sequence[str]] | Matchers) -> tuple[str, ...]:
    """Return the ids of topics with a keyword in `text` (case-insensitive)."""
    compiled = topic_matchers(topics) if isinstance(topics, Mapping) else topics
    folded = text.casefold()
    return tuple(t for t, pattern in compiled if pattern and pattern.search(folded))


def score(feed: Feed, item: SnapshotItem, topics: Mapping[str, Sequence[str]] | Matchers,
          date: dt.date, others: int = 0) -> tuple[float, tuple[str, ...]]:
    """Return (score, matched topic ids) of `item` for the edition of `date`."""
    in_title = topic_hits(item.title, topics)
    anywhere = topic_hits(f"{item.title} {item.summary_text}", topics)
    end = dt.datetime.combine(date, dt.time(23, 59, 59), dt.UTC)
    age_days = max((end - item.published).total_seconds() / 86400, 0.0)
    recency = 0.5 ** (age_days / HALF_LIFE_DAYS)
    value = feed.weight * (1 + len(anywhere) + len(in_title)) * recency * (1 + 0.25 * others)
    return round(value, 6), anywhere


def rank_candidates(feeds: Sequence[Feed], snapshots: Mapping[str, Snapshot],
                    topics: Mapping[str, Sequence[str]], date: dt.date,
                    previous: dt.date | None, exclude_urls: Iterable[str] = ()) -> list[Candidate]:
    """Return the window's stories, one per group of duplicates, best first.

    `exclude_urls` are pages already used by curated entries; a story citing one is left out.
    """
    return ranked(window_items(feeds, snapshots, date, previous), topics, date, exclude_urls)


def ranked(pairs: Sequence[tuple[Feed, SnapshotItem]], topics: Mapping[str, Sequence[str]],
           date: dt.date, exclude_urls: Iterable[str] = ()) -> list[Candidate]:
    """Return the stories of the window's (feed, item) `pairs`, as `rank_candidates` does."""
    if not pairs:  # most windows of a year of daily editions have no items
        return []
    excluded = {canonical_url(u, "about:blank") or u for u in exclude_urls}
    compiled = topic_matchers(topics)
    out = []
    for group in dedupe(pairs):
        if any(item.url in excluded for _, item in group):
            continue
        feed, item = group[0]
        others = len({f.id for f, _ in group[1:]} - {feed.id})
        value, hits = score(feed, item, compiled, date, others)
        out.append(Candidate(feed, item, value, hits, tuple(group[1:])))
    out.sort(key=lambda c: (-c.score, -c.item.published.timestamp(), c.item.id))
    return out


def feed_stories(feeds: Sequence[Feed], snapshots: Mapping[str, Snapshot],
                 topics: Mapping[str, Sequence[str]], date: dt.date, previous: dt.date | None,
                 *, local: bool, limit: int, exclude_urls: set[str],
                 index: FeedItems | None = None) -> list[Story]:
    """Return up to `limit` ranked feed stories for Top developments (global feeds) or Local view.

    Only items that mention a topic and have a link qualify. Headlines stay plain text (the
    template escapes them with `md_text`); summaries are `md_text`-escaped Markdown already.
    `index` is `feed_items(feeds, snapshots)` when the caller composes many editions.
    """
    if limit <= 0:
        return []
    if index is None:
        index = feed_items(feeds, snapshots)
    # The window in feed order, keeping the section's feeds: as if only those were indexed.
    pairs = [(f, i) for f, i in index.window(date, previous) if (f.region != "global") == local]
    # Sample snapshots (bundled, never fetched) are labelled, and never add a source to a story.
    samples = {feed_id for feed_id, s in snapshots.items() if s.note}
    stories = []
    for c in ranked(pairs, topics, date, exclude_urls):
        if not c.topics or not c.item.url:
            continue
        c = dataclasses.replace(c, also=tuple((f, i) for f, i in c.also if f.id not in samples))
        sample = c.feed.id in samples
        title = f"{c.feed.title} (sample item, not fetched)" if sample else c.feed.title
        cites = [Citation(title, c.item.url, c.source_path, c.item.id)]
        cites += [Citation(f.title, i.url, (SNAPSHOT_DIR / f"{f.id}.json").as_posix(), i.id)
                  for f, i in c.also if i.url and i.url != c.item.url]
        language = c.item.language or c.feed.language
        original = c.item.title if local and not language.startswith("en") else None
        stories.append(Story(id=f"feed-{c.item.id}", headline=c.item.title,
                             summary_md=md_text(c.item.summary_text), citations=tuple(cites),
                             origin="feed", original_headline=original,
                             also_reported_by=c.also_reported_by,
                             sample=sample))
        if len(stories) == limit:
            break
    return stories
