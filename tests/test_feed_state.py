"""Pure state transitions of a feed snapshot."""

from __future__ import annotations

import datetime as dt

from pipeline.formats.feeds import ParsedFeed, RawItem
from pipeline.models.feeds import Feed, Health, Snapshot, SnapshotItem, Validators
from pipeline.normalize.feed_state import Attempt, record_attempt, skip_reason

U = dt.UTC
T0 = dt.datetime(2026, 9, 1, tzinfo=U)
FEED = Feed(id="f", url="https://f.example/feed", title="F")


def parsed(*items: RawItem) -> ParsedFeed:
    return ParsedFeed("rss20", "F <b>feed</b>", "en", list(items))


def raw(guid: str, published: dt.datetime | None) -> RawItem:
    return RawItem(guid, f"https://f.example/{guid}", guid, "", published, None, None)


def test_first_seen_and_missing_dates_are_kept_across_runs() -> None:
    first = record_attempt(FEED, None, Attempt(200, parsed=parsed(raw("a", None)), etag='"1"'), T0)
    later = T0 + dt.timedelta(days=1)
    second = record_attempt(FEED, first, Attempt(200, parsed=parsed(raw("a", None), raw("b", T0))),
                            later)
    a = next(i for i in second.items if i.title == "a")
    assert (a.first_seen, a.published, a.date_flag) == (T0, T0, "missing")
    assert second.title == "F feed" and second.validators.etag is None


def test_failures_count_up_keep_items_and_validators_and_a_success_resets() -> None:
    ok = record_attempt(FEED, None, Attempt(200, parsed=parsed(raw("a", T0)), etag='"1"'), T0)
    bad = ok
    for n in range(3):
        bad = record_attempt(FEED, bad, Attempt(500, error="HTTP 500"), T0 + dt.timedelta(hours=n))
    assert bad.health.consecutive_failures == 3 and bad.items == ok.items
    assert bad.validators.etag == '"1"' and bad.health.last_success == T0
    back = record_attempt(FEED, bad, Attempt(304, unchanged=True), T0 + dt.timedelta(days=1))
    assert back.health.consecutive_failures == 0 and back.validators.etag == '"1"'


def test_gone_and_retry_after_skip_the_next_run() -> None:
    gone = record_attempt(FEED, None, Attempt(410, gone=True, error="gone"), T0)
    assert skip_reason(FEED, gone, T0).startswith("skipped: the server said the feed is gone")
    moved = Feed(id="f", url="https://f.example/new", title="F")
    assert skip_reason(moved, gone, T0) is None
    wait = record_attempt(FEED, None, Attempt(429, retry_after=T0 + dt.timedelta(hours=1),
                                              error="429"), T0)
    assert skip_reason(FEED, wait, T0) is not None
    assert skip_reason(FEED, wait, T0 + dt.timedelta(hours=1)) is None  # the time asked for: ask
    assert skip_reason(FEED, wait, T0 + dt.timedelta(hours=2)) is None


def test_a_date_in_the_future_stays_clamped_to_when_it_was_first_seen_so() -> None:
    # "a" is a month ahead in both runs: clamped to the first run's time, and kept there.
    # "b" was ahead, then the feed corrected it to two days before T0: the correction is taken.
    # "c" was dated a day before T0, then moved a month ahead: clamped to the second run's time.
    ahead, later = T0 + dt.timedelta(days=30), T0 + dt.timedelta(days=1)
    first = record_attempt(FEED, None, Attempt(200, parsed=parsed(
        raw("a", ahead), raw("b", ahead), raw("c", T0 - dt.timedelta(days=1)))), T0)
    second = record_attempt(FEED, first, Attempt(200, parsed=parsed(
        raw("a", ahead), raw("b", T0 - dt.timedelta(days=2)), raw("c", ahead))), later)
    assert {i.title: (i.published, i.date_flag, i.first_seen) for i in second.items} == {
        "a": (T0, "future", T0), "b": (T0 - dt.timedelta(days=2), None, T0),
        "c": (later, "future", T0)}


# --- The whole snapshot after each kind of attempt, built by hand. Ids are the first 20 hex
# digits of `printf 'guid:%s' GUID | sha256sum` (normalize/items.py item_id).
ID = {"a": "a5e344386ba87cb65302", "b": "34b3438d3e1784d7e9f9", "c": "5283cb57bf7e6e7616eb",
      "edge": "dee0c1f2d6f0ea244ee9"}
GERMAN = Feed(id="f", url="https://f.example/feed", title="F", language="de")
DAY, HOUR = dt.timedelta(days=1), dt.timedelta(hours=1)
T1 = T0 + DAY


def item(guid: str, published: dt.datetime, first_seen: dt.datetime, language: str) -> SnapshotItem:
    return SnapshotItem(id=ID[guid], url=f"https://f.example/{guid}", title=guid, published=published,
                        first_seen=first_seen, language=language)


def first_and_second_success() -> tuple[Snapshot, Snapshot]:
    # First run: the feed declares no language (its items take the feed list's "de"), one link
    # is relative to the feed's address, and "edge" is exactly 90 days old (kept) and "old" a
    # microsecond older (dropped). Its 201-character title is cut to 200.
    first = record_attempt(GERMAN, None, Attempt(200, parsed=ParsedFeed("rss20", "x" * 201, None, [
        RawItem("a", "/a", "a", "", T0 - 2 * DAY, None, None),
        raw("edge", T0 - 90 * DAY), raw("old", T0 - 90 * DAY - dt.timedelta(microseconds=1)),
        raw("b", T0 - DAY)]), etag='"1"', last_modified="Mon, 31 Aug 2026 00:00:00 GMT"), T0)
    # Second run, a day later: the feed now says "ja"; "a" comes again (first seen kept), "c" is
    # new, "b" is no longer in the feed (kept as stored), "edge" is now past the 90 days.
    second = record_attempt(GERMAN, first, Attempt(200, parsed=ParsedFeed("rss20", "F <b>feed</b>", "ja", [
        raw("c", T1 - HOUR), RawItem("a", "/a", "a", "", T0 - 2 * DAY, None, None)]), etag='"2"'), T1)
    return first, second


def test_a_first_and_a_second_success_give_these_snapshots() -> None:
    first, second = first_and_second_success()
    assert first == Snapshot(
        feed_id="f", url="https://f.example/feed", title="x" * 199 + "…", language=None,
        validators=Validators(etag='"1"', last_modified="Mon, 31 Aug 2026 00:00:00 GMT"),
        health=Health(last_attempt=T0, last_success=T0, status=200),
        items=[item("b", T0 - DAY, T0, "de"), item("a", T0 - 2 * DAY, T0, "de"),
               item("edge", T0 - 90 * DAY, T0, "de")])
    assert second == Snapshot(
        feed_id="f", url="https://f.example/feed", title="F feed", language="ja",
        validators=Validators(etag='"2"'), health=Health(last_attempt=T1, last_success=T1, status=200),
        items=[item("c", T1 - HOUR, T1, "ja"), item("b", T0 - DAY, T0, "de"),
               item("a", T0 - 2 * DAY, T0, "ja")])


def test_failures_change_only_the_health() -> None:
    _, ok = first_and_second_success()
    wait = T1 + 3 * HOUR
    busy = record_attempt(GERMAN, ok, Attempt(503, error="HTTP 503 busy", retry_after=wait), T1 + HOUR)
    assert busy == ok.model_copy(update={"health": Health(
        last_attempt=T1 + HOUR, last_success=T1, status=503, consecutive_failures=1,
        last_error="HTTP 503 busy", retry_after=wait)})
    bad = ok
    for n, attempt in enumerate([Attempt(None, error="timed out"), Attempt(500, error="HTTP 500"),
                                 Attempt(410, error="gone (410)", gone=True)], start=1):
        bad = record_attempt(GERMAN, bad, attempt, T1 + n * HOUR)
    assert bad == ok.model_copy(update={"health": Health(
        last_attempt=T1 + 3 * HOUR, last_success=T1, status=410, consecutive_failures=3,
        last_error="gone (410)", gone=True)})


def test_a_warning_is_kept_by_a_304_and_cleared_by_a_success_without_one() -> None:
    _, ok = first_and_second_success()
    t6 = T1 + 6 * HOUR
    loose = record_attempt(GERMAN, ok, Attempt(200, parsed=ParsedFeed(
        "rss20", "F", "ja", [raw("c", T1 - HOUR)], problem="malformed XML, read loosely"),
        etag='"3"', last_modified="Tue, 01 Sep 2026 05:00:00 GMT"), t6)
    assert loose == Snapshot(
        feed_id="f", url="https://f.example/feed", title="F", language="ja",
        validators=Validators(etag='"3"', last_modified="Tue, 01 Sep 2026 05:00:00 GMT"),
        health=Health(last_attempt=t6, last_success=t6, status=200,
                      last_warning="malformed XML, read loosely"),
        items=ok.items)
    same = record_attempt(GERMAN, loose, Attempt(304, unchanged=True), t6 + HOUR)
    assert same == loose.model_copy(update={"health": Health(
        last_attempt=t6 + HOUR, last_success=t6 + HOUR, status=304,
        last_warning="malformed XML, read loosely")})
    # An attempt with neither a feed nor a 304 (ingest always gives one of them) keeps the items
    # and validators, and is no read that could carry a warning.
    bare = record_attempt(GERMAN, same, Attempt(200), t6 + 2 * HOUR)
    assert bare == loose.model_copy(update={"health": Health(
        last_attempt=t6 + 2 * HOUR, last_success=t6 + 2 * HOUR, status=200)})


def test_a_moved_feed_keeps_its_state_under_its_new_address() -> None:
    _, ok = first_and_second_success()
    moved = Feed(id="f", url="https://f.example/new", title="F", language="de")
    failed = record_attempt(moved, ok, Attempt(500, error="HTTP 500"), T1 + HOUR)
    assert (failed.url, failed.items) == ("https://f.example/new", ok.items)
    same = record_attempt(moved, ok, Attempt(304, unchanged=True), T1 + HOUR)
    assert (same.url, same.items) == ("https://f.example/new", ok.items)
