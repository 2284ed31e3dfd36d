"""Pure state transitions of a feed snapshot."""

from __future__ import annotations

import datetime as dt

from pipeline.formats.feeds import ParsedFeed, RawItem
from pipeline.models.feeds import Feed
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
