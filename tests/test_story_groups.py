"""The fast dedupe and the day index give what the plain loops they replace gave.

`dedupe` skips pairs by bounds (sorted neighbours, trigram blocking, letters and lengths); these
tests hold it to the pairwise loop of `same_story`, on hypothesis windows and on seeded random
windows of near-duplicate titles, short titles, empty titles, shared URLs and the 48-hour edge.
"""

from __future__ import annotations

import datetime as dt
import random

from hypothesis import given, settings
from hypothesis import strategies as st

from pipeline.compose.rank import FIRST_EDITION_DAYS, feed_items
from pipeline.compose.story_groups import dedupe, same_story
from pipeline.models.feeds import Feed, Snapshot, SnapshotItem

U = dt.UTC
START = dt.datetime(2026, 9, 10, tzinfo=U)
FEEDS = [Feed(id=f"f{i}", url=f"https://f{i}.example/feed", title=f"F{i}", weight=1 + i % 3)
         for i in range(4)]


def pairwise(pairs: list[tuple[Feed, SnapshotItem]]) -> list[list[tuple[Feed, SnapshotItem]]]:
    """The dedupe this module replaced: `same_story` on every pair, union-find, same order."""
    parent = list(range(len(pairs)))

    def root(i: int) -> int:
        while parent[i] != i:
            i = parent[i]
        return i

    for i in range(len(pairs)):
        for j in range(i + 1, len(pairs)):
            if root(i) != root(j) and same_story(pairs[i][1], pairs[j][1]):
                parent[root(j)] = root(i)
    groups: dict[int, list[tuple[Feed, SnapshotItem]]] = {}
    for i, pair in enumerate(pairs):
        groups.setdefault(root(i), []).append(pair)
    return [sorted(g, key=lambda p: (-p[0].weight, p[1].published, p[0].id)) for g in
            groups.values()]


def ids(groups: list[list[tuple[Feed, SnapshotItem]]]) -> list[list[str]]:
    return [[item.id for _, item in g] for g in groups]


def item(n: int, title: str, hours: int, url: int | None) -> SnapshotItem:
    when = START + dt.timedelta(hours=hours)
    return SnapshotItem(id=f"i{n}", url=f"https://e.org/{url}" if url is not None else None,
                        title=title, summary_text="", published=when, first_seen=when)


BASES = ["DeepSeek cuts Flash prices", "MLPerf Inference v6.1 results: rack scale",
         "DeepSeek宣布Flash模型降价", "ab", "", "TPUv7 Ironwood: 50% more per dollar than B200"]
titles = st.builds(lambda pre, base, post: pre + base + post, st.text("ab1 降-", max_size=3),
                   st.sampled_from(BASES), st.text("ab1 降-!", max_size=4))
entries = st.lists(st.tuples(titles, st.sampled_from([0, 1, 24, 47, 48, 49, 96]),
                             st.none() | st.integers(0, 6), st.integers(0, 3)), max_size=25)


@settings(max_examples=150, deadline=None)
@given(entries)
def test_dedupe_equals_the_pairwise_loop(window: list[tuple[str, int, int | None, int]]) -> None:
    pairs = [(FEEDS[f], item(n, title, hours, url))
             for n, (title, hours, url, f) in enumerate(window)]
    assert ids(dedupe(pairs)) == ids(pairwise(pairs))


def edited(rng: random.Random, title: str, alphabet: str) -> str:
    chars = list(title)
    for _ in range(rng.randint(0, 3)):
        at = rng.randint(0, len(chars))
        if rng.random() < 0.4 or not chars:
            chars.insert(at, rng.choice(alphabet))
        elif rng.random() < 0.5:
            chars.pop(min(at, len(chars) - 1))
        else:
            chars[min(at, len(chars) - 1)] = rng.choice(alphabet)
    return "".join(chars)


def test_dedupe_equals_the_pairwise_loop_on_random_windows() -> None:
    # Small alphabets make many titles near each other, including pairs whose difflib ratio
    # differs by argument order, which dedupe must take in the order same_story does.
    for seed in range(120):
        rng = random.Random(seed)
        alphabet = rng.choice(["ab", "abc ", "abcdefgh ", "ab1 ", "降价ab "])
        found: list[str] = []
        pairs = []
        for n in range(rng.randint(0, 60)):
            if found and rng.random() < 0.6:
                title = edited(rng, rng.choice(found), alphabet)
            else:
                size = rng.choice([0, 1, 2, 3, 5, 8, 12, 20, 40, 80])
                title = "".join(rng.choice(alphabet) for _ in range(size))
            found.append(title)
            url = rng.randint(0, 90) if rng.random() < 0.8 else None
            pairs.append((rng.choice(FEEDS), item(n, title, rng.randint(0, 60), url)))
        assert ids(dedupe(pairs)) == ids(pairwise(pairs)), seed


def scanned(feeds: list[Feed], snapshots: dict[str, Snapshot], date: dt.date,
            previous: dt.date | None) -> list[tuple[Feed, SnapshotItem]]:
    """The window as it was found before the index: a pass over every item."""
    start = previous or date - dt.timedelta(days=FIRST_EDITION_DAYS)
    return [(feed, i) for feed in feeds for i in snapshots[feed.id].items
            if start < i.published.date() <= date]


@settings(max_examples=60, deadline=None)
@given(st.lists(st.lists(st.integers(0, 20 * 24), max_size=8), min_size=1, max_size=4),
       st.integers(0, 20), st.none() | st.integers(0, 20))
def test_the_day_index_gives_each_window_in_feed_then_snapshot_order(
        hours: list[list[int]], day: int, previous: int | None) -> None:
    feeds = FEEDS[: len(hours)]
    snapshots = {f.id: Snapshot(feed_id=f.id, url=str(f.url),
                                items=[item(n, "t", h, n) for n, h in enumerate(hs)])
                 for f, hs in zip(feeds, hours)}
    date = START.date() + dt.timedelta(days=day)
    before = None if previous is None else date - dt.timedelta(days=previous)
    assert (feed_items(feeds, snapshots).window(date, before)
            == scanned(feeds, snapshots, date, before))
