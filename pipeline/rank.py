"""Pure: feed items of an edition window, deduplicated across feeds and ranked for editors.

Ranking is a plain formula so an editor can predict it:
    score = feed weight × (1 + topic hits, title hits counted twice) × recency × (1 + ¼ per
    other feed that reported the same story), recency halving every 7 days before the edition.
"""

from __future__ import annotations

import datetime as dt
import difflib
import re
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass

from pipeline.compose import Citation, Story
from pipeline.feeds_source import SNAPSHOT_DIR
from pipeline.models.feeds import Feed, Snapshot, SnapshotItem
from pipeline.normalize.items import canonical_url, md_text, title_key

SAME_STORY_WITHIN = dt.timedelta(hours=48)
TITLE_SIMILARITY = 0.9
"""difflib ratio of reduced titles above which two items are the same story."""
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


def window_items(feeds: Sequence[Feed], snapshots: Mapping[str, Snapshot], date: dt.date,
                 previous: dt.date | None) -> list[tuple[Feed, SnapshotItem]]:
    """Return (feed, item) for items published (UTC day) in the window (previous, date]."""
    start = previous or date - dt.timedelta(days=FIRST_EDITION_DAYS)
    out = []
    for feed in feeds:
        snap = snapshots.get(feed.id)
        for item in snap.items if snap else []:
            if start < item.published.date() <= date:
                out.append((feed, item))
    return out


def same_story(a: SnapshotItem, b: SnapshotItem) -> bool:
    """Are `a` and `b` one story: the same canonical URL, or near-identical titles within 48 h?"""
    if a.url and a.url == b.url:
        return True
    if abs(a.published - b.published) > SAME_STORY_WITHIN:
        return False
    ka, kb = title_key(a.title), title_key(b.title)
    if not ka or not kb:
        return False
    matcher = difflib.SequenceMatcher(None, ka, kb, autojunk=False)
    return matcher.quick_ratio() >= TITLE_SIMILARITY and matcher.ratio() >= TITLE_SIMILARITY


def dedupe(pairs: Sequence[tuple[Feed, SnapshotItem]]) -> list[list[tuple[Feed, SnapshotItem]]]:
    """Return groups of the same story; each group's first member is the one to show."""
    parent = list(range(len(pairs)))

    def root(i: int) -> int:
        while parent[i] != i:
            parent[i] = parent[parent[i]]
            i = parent[i]
        return i

    for i in range(len(pairs)):
        for j in range(i + 1, len(pairs)):
            if root(i) != root(j) and same_story(pairs[i][1], pairs[j][1]):
                parent[root(j)] = root(i)
    groups: dict[int, list[tuple[Feed, SnapshotItem]]] = {}
    for i, pair in enumerate(pairs):
        groups.setdefault(root(i), []).append(pair)
    # Show the report from the feed we trust most; among equals, the earliest.
    return [sorted(g, key=lambda p: (-p[0].weight, p[1].published, p[0].id)) for g in
            groups.values()]


def _matcher(keyword: str) -> re.Pattern[str]:
    word = re.escape(keyword.strip().casefold())
    # Word boundaries for alphabetic scripts; none for CJK, which has no spaces between words.
    if keyword.isascii():
        return re.compile(rf"(?<!\w){word}(?!\w)")
    return re.compile(word)


def topic_hits(text: str, topics: Mapping[str, Sequence[str]]) -> tuple[str, ...]:
    """Return the ids of topics with a keyword in `text` (case-insensitive)."""
    folded = text.casefold()
    return tuple(t for t, words in topics.items()
                 if any(_matcher(w).search(folded) for w in words if w.strip()))


def score(feed: Feed, item: SnapshotItem, topics: Mapping[str, Sequence[str]], date: dt.date,
          others: int = 0) -> tuple[float, tuple[str, ...]]:
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
    excluded = {canonical_url(u, "about:blank") or u for u in exclude_urls}
    out = []
    for group in dedupe(window_items(feeds, snapshots, date, previous)):
        if any(item.url in excluded for _, item in group):
            continue
        feed, item = group[0]
        others = len({f.id for f, _ in group[1:]} - {feed.id})
        value, hits = score(feed, item, topics, date, others)
        out.append(Candidate(feed, item, value, hits, tuple(group[1:])))
    out.sort(key=lambda c: (-c.score, -c.item.published.timestamp(), c.item.id))
    return out


def feed_stories(feeds: Sequence[Feed], snapshots: Mapping[str, Snapshot],
                 topics: Mapping[str, Sequence[str]], date: dt.date, previous: dt.date | None,
                 *, local: bool, limit: int, exclude_urls: set[str]) -> list[Story]:
    """Return up to `limit` ranked feed stories for Top developments (global feeds) or Local view.

    Only items that mention a topic and have a link qualify. Headlines stay plain text (the
    template escapes them with `md_text`); summaries are `md_text`-escaped Markdown already.
    """
    if limit <= 0:
        return []
    chosen = [f for f in feeds if (f.region != "global") == local]
    stories = []
    for c in rank_candidates(chosen, snapshots, topics, date, previous, exclude_urls):
        if not c.topics or not c.item.url:
            continue
        cites = [Citation(c.feed.title, c.item.url, c.source_path, c.item.id)]
        cites += [Citation(f.title, i.url, (SNAPSHOT_DIR / f"{f.id}.json").as_posix(), i.id)
                  for f, i in c.also if i.url and i.url != c.item.url]
        language = c.item.language or c.feed.language
        original = c.item.title if local and not language.startswith("en") else None
        stories.append(Story(id=f"feed-{c.item.id}", headline=c.item.title,
                             summary_md=md_text(c.item.summary_text), citations=tuple(cites),
                             origin="feed", original_headline=original,
                             also_reported_by=c.also_reported_by))
        if len(stories) == limit:
            break
    return stories
