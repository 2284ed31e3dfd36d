"""The Sources page: health, last success, items in the window, repeated failures flagged."""

from __future__ import annotations

import datetime as dt

from pipeline.models.feeds import Feed, Health, Snapshot, SnapshotItem
from pipeline.render.sources_page import sources_page_md

U = dt.UTC
T = dt.datetime(2026, 9, 11, 6, tzinfo=U)


def test_sources_page_lists_every_feed_and_flags_three_failures() -> None:
    feeds = [Feed(id="ok", url="https://ok.example/feed", title="Ok | feed"),
             Feed(id="bad", url="https://bad.example/feed", title="Bad", region="cn",
                  language="zh"),
             Feed(id="new", url="https://new.example/feed", title="New")]
    item = SnapshotItem(id="a", url="https://e.org/a", title="t", published=T, first_seen=T)
    snaps = {"ok": Snapshot(feed_id="ok", url="https://ok.example/feed", items=[item],
                            health=Health(last_attempt=T, last_success=T, status=200)),
             "bad": Snapshot(feed_id="bad", url="https://bad.example/feed",
                             health=Health(last_attempt=T, consecutive_failures=3, status=500,
                                           last_error="HTTP 500 <Internal>"))}
    page = sources_page_md(feeds, snaps, dt.date(2026, 9, 12), dt.date(2026, 9, 5))
    assert "| [Ok \\| feed](https://ok.example/feed) | global | en | ok | 2026-09-11 06:00 UTC | 1 |" \
        in page
    assert "| [Bad](https://bad.example/feed) | cn | zh | ⚠ failing \\(3 runs in a row\\) | never | 0 |" \
        in page
    assert "| [New](https://new.example/feed) | global | en | not fetched yet | never | 0 |" in page
    assert "- **Bad**: HTTP 500 &lt;Internal&gt; (last attempt 2026-09-11 06:00 UTC)" in page
