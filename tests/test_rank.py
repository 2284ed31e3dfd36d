"""Pure dedupe and ranking, and the feed stories an edition gets."""

from __future__ import annotations

import datetime as dt

from pipeline.compose.rank import feed_stories, rank_candidates
from pipeline.compose.story_groups import dedupe, same_story
from pipeline.models.feeds import Feed, Snapshot, SnapshotItem

U = dt.UTC
TOPICS = {"pricing": ["price", "降价"], "benchmarks": ["MLPerf"]}


def it(i: str, title: str, when: str, url: str | None = None, summary: str = "") -> SnapshotItem:
    t = dt.datetime.fromisoformat(when).replace(tzinfo=U)
    return SnapshotItem(id=i, url=url or f"https://e.org/{i}", title=title, summary_text=summary,
                        published=t, first_seen=t)


def feed(fid: str, region: str = "global", weight: float = 1.0, language: str = "en") -> Feed:
    return Feed(id=fid, url=f"https://{fid}.example/feed", title=fid.upper(), region=region,
                weight=weight, language=language)


def test_same_story_by_url_or_near_identical_title_within_48_hours() -> None:
    a = it("a", "DeepSeek cuts Flash prices", "2026-09-10T08:00:00")
    assert same_story(a, it("b", "DeepSeek cuts Flash prices!", "2026-09-11T08:00:00"))
    assert not same_story(a, it("c", "DeepSeek cuts Flash prices", "2026-09-13T09:00:00"))
    assert same_story(a, it("d", "Other", "2026-10-30T00:00:00", url=a.url))
    assert not same_story(a, it("e", "DeepSeek raises Pro prices", "2026-09-10T09:00:00"))


def test_dedupe_shows_the_heaviest_feed_and_lists_the_others() -> None:
    light, heavy = feed("light"), feed("heavy", weight=2)
    groups = dedupe([(light, it("a", "Same title", "2026-09-10T08:00:00")),
                     (heavy, it("b", "Same title", "2026-09-10T10:00:00"))])
    assert [[f.id for f, _ in g] for g in groups] == [["heavy", "light"]]


def test_ranking_uses_topics_weight_recency_and_also_reported() -> None:
    f, g = feed("f"), feed("g")
    snaps = {"f": Snapshot(feed_id="f", url="https://f.example/feed", items=[
        it("old", "Price cut", "2026-09-06T08:00:00"),
        it("new", "Price cut again", "2026-09-11T08:00:00"),
        it("off", "Unrelated gardening", "2026-09-11T09:00:00"),
        it("mlperf", "MLPerf price", "2026-09-11T08:00:00")]),
        "g": Snapshot(feed_id="g", url="https://g.example/feed", items=[
            it("dup", "MLPerf price", "2026-09-11T10:00:00")])}
    ranked = rank_candidates([f, g], snaps, TOPICS, dt.date(2026, 9, 12), dt.date(2026, 9, 5))
    assert [c.item.id for c in ranked] == ["mlperf", "new", "old", "off"]
    assert ranked[0].also_reported_by == ("G",) and ranked[0].topics == ("pricing", "benchmarks")
    excluded = rank_candidates([f, g], snaps, TOPICS, dt.date(2026, 9, 12), dt.date(2026, 9, 5),
                               {"https://e.org/dup?utm_source=x"})
    assert "mlperf" not in [c.item.id for c in excluded]


def test_feed_stories_split_global_and_local_and_keep_original_titles() -> None:
    glob, cn = feed("glob"), feed("cn", region="cn", language="zh")
    snaps = {"glob": Snapshot(feed_id="glob", url="https://glob.example/feed",
                              items=[it("g1", "Price cut", "2026-09-11T08:00:00")]),
             "cn": Snapshot(feed_id="cn", url="https://cn.example/feed",
                            items=[it("c1", "DeepSeek 降价", "2026-09-11T08:00:00", summary="0.02元")])}
    args = ([glob, cn], snaps, TOPICS, dt.date(2026, 9, 12), dt.date(2026, 9, 5))
    top = feed_stories(*args, local=False, limit=4, exclude_urls=set())
    local = feed_stories(*args, local=True, limit=4, exclude_urls=set())
    assert [s.id for s in top] == ["feed-g1"] and top[0].origin == "feed"
    assert top[0].citations[0].label == "GLOB"
    assert top[0].citations[0].source_path == "sources/snapshots/feeds/glob.json"
    assert local[0].original_headline == "DeepSeek 降价" and local[0].summary_md == "0\\.02元"
    assert feed_stories(*args, local=False, limit=0, exclude_urls=set()) == []


def test_a_sample_snapshot_is_labelled_and_never_adds_a_source() -> None:
    real, sample = feed("real"), feed("sample")
    snaps = {"real": Snapshot(feed_id="real", url="https://r.example/feed", items=[
        it("r", "MLPerf price", "2026-09-11T08:00:00", url="https://r.example/a")]),
        "sample": Snapshot(feed_id="sample", url="https://s.example/feed", note="bundled sample",
                           items=[it("s", "MLPerf price", "2026-09-11T10:00:00",
                                     url="https://s.example/b"),
                                  it("t", "Another price cut", "2026-09-11T09:00:00",
                                     url="https://s.example/c")])}
    stories = feed_stories([real, sample], snaps, TOPICS, dt.date(2026, 9, 12),
                           dt.date(2026, 9, 5), local=False, limit=5, exclude_urls=set())
    by_id = {s.id: s for s in stories}
    # The fetched story: the sample's copy of it is neither "also reported by" nor a source.
    assert by_id["feed-r"].also_reported_by == () and not by_id["feed-r"].sample
    assert [c.url for c in by_id["feed-r"].citations] == ["https://r.example/a"]
    # A story only the sample has: there, and labelled as sample in its story and its source.
    assert by_id["feed-t"].sample
    assert by_id["feed-t"].citations[0].label == "SAMPLE (sample item, not fetched)"


def test_the_bundled_mlperf_story_is_labelled_as_sample(bundled_site) -> None:
    out = bundled_site
    page = (out / "briefings" / "2026-09-12" / "index.html").read_text(encoding="utf-8")
    text = (out / "briefings" / "2026-09-12.txt").read_text(encoding="utf-8")
    assert "also reported by" not in page and "From the feeds" not in page
    assert page.count("Sample item: bundled with the project") == 1
    assert "(Sample item: bundled with the project" in text
    assert "MLCommons (sample item, not fetched)" in text
