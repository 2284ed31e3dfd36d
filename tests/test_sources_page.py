"""The Sources page: health, last success, items in the window, repeated failures flagged."""

from __future__ import annotations

import datetime as dt

from pipeline.compose.sources_page import items_in_window
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
    day, previous = dt.date(2026, 9, 12), dt.date(2026, 9, 5)
    page = sources_page_md(feeds, snaps, day, previous,
                           items_in_window(feeds, snaps, day, previous))
    assert "| [Ok \\| feed](https://ok.example/feed) | global | en | ok | 2026-09-11 06:00 UTC | 1 |" \
        in page
    assert "| [Bad](https://bad.example/feed) | cn | zh | ⚠ failing \\(3 runs in a row\\) | never | 0 |" \
        in page
    assert "| [New](https://new.example/feed) | global | en | not fetched yet | never | 0 |" in page
    assert "- **Bad**: HTTP 500 &lt;Internal&gt; (last attempt 2026-09-11 06:00 UTC)" in page


def test_catalogues_show_use_licence_health_and_repeated_failures() -> None:
    from pipeline.models.catalogues import CatalogueHealth, CataloguesFile
    from pipeline.render.sources_page import catalogues_md

    def catalogue(cid: str, use: str = "published") -> dict:
        return {"id": cid, "name": f"{cid} <map>", "url": f"https://{cid}.example/m.json",
                "page": f"https://{cid}.example/", "format": "litellm", "licence": "MIT",
                "attribution": f"Prices from {cid}.", "use": use}

    file = CataloguesFile.model_validate(
        {"catalogues": [catalogue("good"), catalogue("down"), catalogue("new", "cross-check")]})
    healths = {"good": CatalogueHealth(catalogue_id="good", url="u", last_attempt=T,
                                       last_success=T, status=200, prices=12,
                                       checked=dt.date(2026, 9, 10)),
               "down": CatalogueHealth(catalogue_id="down", url="u", last_attempt=T,
                                       last_success=T - dt.timedelta(days=3),
                                       consecutive_failures=3, prices=40,
                                       last_error="looks truncated: 3 prices <b>")}
    md = catalogues_md(file, healths)
    assert ("| [good &lt;map&gt;](https://good.example/) | published | MIT | ok | "
            "2026-09-11 06:00 UTC | 2026-09-10 | 12 |") in md
    assert ("| [down &lt;map&gt;](https://down.example/) | published | MIT | ⚠ failing \\(3 runs "
            "in a row\\) | 2026-09-08 06:00 UTC |  | 40 |") in md
    assert "| cross\\-check | MIT | not fetched yet | never |  | 0 |" in md
    assert ("- **down &lt;map&gt;**: looks truncated: 3 prices &lt;b&gt; (last attempt "
            "2026-09-11 06:00 UTC; its last good history is kept)") in md
    assert r"Credits: Prices from good\. Prices from down\. Prices from new\." in md
