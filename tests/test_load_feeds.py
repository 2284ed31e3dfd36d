"""Loading feeds.yaml strictly and snapshots tolerantly; the bundled sources load clean."""

from __future__ import annotations

import datetime as dt
from pathlib import Path

from pipeline.compose.rank import feed_stories
from pipeline.load.feeds import load_feeds
from pipeline.problems import Problem

REPO = Path(__file__).resolve().parents[1]

FEEDS = """topics:
  pricing: [price]
feeds:
  - id: one
    url: https://one.example/feed
    title: One
    wieght: 2
  - id: two
    url: javascript:alert(1)
    title: Two
"""


def write(root: Path, rel: str, text: str) -> None:
    path = root / rel
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")


def test_feeds_yaml_problems_name_file_field_and_line(tmp_path: Path) -> None:
    write(tmp_path, "sources/feeds.yaml", FEEDS)
    feeds, snaps, problems = load_feeds(tmp_path)
    assert feeds is None and snaps == {}
    assert problems == [
        Problem("sources/feeds.yaml", "feeds.0.wieght", "unknown key; did you mean `weight`?",
                line=7),
        Problem("sources/feeds.yaml", "feeds.1.url", "link must start with http:// or https://",
                line=9),
    ]


def test_a_bad_snapshot_is_a_warning_not_an_error(tmp_path: Path) -> None:
    write(tmp_path, "sources/feeds.yaml", FEEDS.replace("    wieght: 2\n", "").replace(
        "javascript:alert(1)", "https://two.example/feed"))
    write(tmp_path, "sources/snapshots/feeds/one.json", "{not json")
    write(tmp_path, "sources/snapshots/feeds/two.json", '{"feed_id": "two", "url": "x", '
          '"items": [{"id": "a"}]}')
    write(tmp_path, "sources/snapshots/feeds/three.json", "{}")
    feeds, snaps, problems = load_feeds(tmp_path)
    assert feeds is not None and snaps == {}
    assert [p.severity for p in problems] == ["warning"] * 4
    assert [str(p) for p in problems] == [
        "sources/snapshots/feeds/one.json: warning: not a readable JSON snapshot (Expecting "
        "property name enclosed in double quotes: line 1 column 2 (char 1)); the next ingest "
        "rewrites it",
        "sources/snapshots/feeds/three.json: warning: snapshot of a feed that is not in "
        "sources/feeds.yaml; delete it or add the feed",
        "sources/snapshots/feeds/two.json: items.0.published: warning: required field is "
        "missing; the snapshot is ignored until the next ingest rewrites it",
        "sources/snapshots/feeds/two.json: items.0.first_seen: warning: required field is "
        "missing; the snapshot is ignored until the next ingest rewrites it",
    ]


def test_no_feeds_yaml_means_no_feeds(tmp_path: Path) -> None:
    assert load_feeds(tmp_path) == (None, {}, [])


def test_bundled_feeds_and_sample_snapshots_load_and_fill_the_2026_09_12_edition() -> None:
    feeds, snaps, problems = load_feeds(REPO)
    assert problems == []
    assert feeds is not None and len(feeds.feeds) == 9 and len(snaps) == 5
    assert all(s.note for s in snaps.values())
    args = (feeds.feeds, snaps, feeds.topics, dt.date(2026, 9, 12), dt.date(2026, 9, 5))
    top = feed_stories(*args, local=False, limit=4, exclude_urls=set())
    local = feed_stories(*args, local=True, limit=4, exclude_urls=set())
    # Sample snapshots, labelled so wherever their items appear.
    assert [s.citations[0].label for s in top] == ["MLCommons (sample item, not fetched)",
                                                   "SemiAnalysis (sample item, not fetched)"]
    assert all(s.sample for s in top)
    # NVIDIA's copy of the story is sample data too: it adds no "also reported by".
    assert top[0].also_reported_by == ()
    assert [s.citations[0].label for s in local] == ["36氪 (36Kr) (sample item, not fetched)"]
    assert local[0].also_reported_by == ()
