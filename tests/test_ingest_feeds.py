"""Ingest against a real HTTP server on 127.0.0.1: every fault case, state kept, time bounded."""

from __future__ import annotations

import dataclasses
import datetime as dt
import json
import socket
from pathlib import Path

import pytest

from pipeline.ingest.feeds import ingest_feeds, write_snapshot
from pipeline.ingest.http import USER_AGENT, FetchSettings
from pipeline.load.feeds import load_snapshots
from pipeline.models.feeds import Feed, Health, Snapshot, SnapshotItem
from pipeline.paths import snapshot_path
from tests.feed_server import FeedServer

NOW = dt.datetime(2026, 9, 12, 6, 0, tzinfo=dt.UTC)
LOOPBACK = FetchSettings(allowed_networks=("127.0.0.0/8",))

# feed id → path on the test server, and the start of the error its health must record.
FAULTS = {
    "not-found": ("/status/404", "HTTP 404"),
    "gone": ("/status/410", "the feed is gone (HTTP 410)"),
    "too-many": ("/status/429", "HTTP 429"),
    "server-error": ("/status/500", "HTTP 500"),
    "unavailable": ("/status/503", "HTTP 503"),
    "eleven-hops": ("/hop/11", "too many redirects (more than 5)"),
    "redirect-loop": ("/loop/a", "redirect loop"),
    "stall": ("/stall", "gave up after the 5 s deadline per feed"),
    "drip": ("/drip", "gave up after the 5 s deadline per feed"),
    "big-body": ("/big", "the body is over the 15 MiB cap"),
    "gzip-bomb": ("/bomb", "the body is over the 15 MiB cap after decompression"),
    "truncated": ("/truncated", "the connection broke before the whole response arrived"),
    "html-page": ("/html", "the response is not a feed (text/html)"),
    "empty-body": ("/empty", "the response body is empty"),
    "link-local": ("/to-link-local", "refused: 169.254.169.254 is at 169.254.169.254, "
                                     "a link-local address"),
}
GOOD = {"normal": "/normal.xml", "json-feed": "/feed.json", "three-hops": "/hop/3",
        "wrong-charset": "/charset", "gzipped": "/gzip.xml"}


@pytest.fixture(scope="module")
def server():
    with FeedServer() as s:
        yield s


def feed(fid: str, url: str) -> Feed:
    return Feed(id=fid, url=url, title=fid.replace("-", " ").title())


def seeded(fid: str, url: str) -> Snapshot:
    """A snapshot from an earlier, successful run: one item that must survive failures."""
    when = NOW - dt.timedelta(days=2)
    item = SnapshotItem(id=f"old-{fid}", url=f"https://example.org/{fid}", title="Earlier item",
                        published=when, first_seen=when)
    return Snapshot(feed_id=fid, url=url, health=Health(last_success=when, status=200),
                    items=[item])


def test_fault_run_records_each_failure_keeps_items_and_is_bounded_by_the_deadline(
        server: FeedServer, tmp_path: Path) -> None:
    feeds = [feed(fid, server.url(path)) for fid, (path, _) in FAULTS.items()]
    feeds += [feed(fid, server.url(path)) for fid, path in GOOD.items()]
    snapshots = {f.id: seeded(f.id, str(f.url)) for f in feeds}
    seen = []
    # The deadline shortened from the default 20 s: the bound is the same mechanism either way.
    settings = dataclasses.replace(LOOPBACK, deadline_s=5.0)
    report = ingest_feeds(tmp_path, feeds, snapshots, now=NOW, settings=settings,
                          progress=lambda done, total, o: seen.append((done, total)))
    # Two feeds hang for the whole deadline; with bounded concurrency the run still takes about
    # one deadline, not one per bad feed.
    assert report.seconds < 2 * settings.deadline_s, report.seconds
    assert len(seen) == len(feeds) and seen[-1] == (len(feeds), len(feeds))
    by_id = {o.feed_id: o for o in report.outcomes}
    passed = 0
    stored, problems = load_snapshots(tmp_path, feeds)
    assert problems == []
    for fid, (_, expected) in FAULTS.items():
        outcome = by_id[fid]
        health = stored[fid].health
        assert not outcome.ok, fid
        assert health.last_error is not None and health.last_error.startswith(expected), (
            fid, health.last_error)
        assert health.consecutive_failures == 1
        assert health.last_attempt == NOW
        assert [i.id for i in stored[fid].items] == [f"old-{fid}"], fid
        passed += 1
    assert stored["gone"].health.gone is True
    assert stored["too-many"].health.retry_after == NOW + dt.timedelta(seconds=120)
    for fid in GOOD:
        assert by_id[fid].ok, (fid, by_id[fid].message)
        assert stored[fid].health.consecutive_failures == 0
        assert len(stored[fid].items) == 2, fid  # the earlier item and the fetched one
        passed += 1
    charset = stored["wrong-charset"]
    assert charset.title == "Überblick 价格"
    assert charset.items[0].title == "Preissenkung: 降价 für Tokens"
    normal = next(i for i in stored["normal"].items if i.id != "old-normal")
    assert normal.url == server.url("/posts/p1?id=1")
    assert normal.published == dt.datetime(2026, 9, 10, 8, 0, tzinfo=dt.UTC)
    print(f"\nfault run: {passed} of {len(FAULTS) + len(GOOD)} cases passed in "
          f"{report.seconds:.1f} s")


def test_second_unchanged_run_sends_validators_and_downloads_no_body(
        server: FeedServer, tmp_path: Path) -> None:
    feeds = [feed(fid, server.url(path)) for fid, path in GOOD.items()]
    snapshots: dict[str, Snapshot] = {}
    first = ingest_feeds(tmp_path, feeds, snapshots, now=NOW, settings=LOOPBACK)
    assert all(o.ok for o in first.outcomes), [o.message for o in first.outcomes]
    later = NOW + dt.timedelta(hours=6)
    second = ingest_feeds(tmp_path, feeds, snapshots, now=later, settings=LOOPBACK)
    assert [o.sent_validators for o in second.outcomes] == [True] * len(feeds)
    assert [o.status for o in second.outcomes] == [304] * len(feeds)
    assert sum(o.body_bytes for o in second.outcomes) == 0
    for f in feeds:
        snap = snapshots[f.id]
        assert snap.health.last_success == later
        assert snap.items and all(i.first_seen == NOW for i in snap.items)
    print(f"\nsecond run: {sum(o.sent_validators for o in second.outcomes)}/{len(feeds)} with "
          f"validators, {sum(o.status == 200 for o in second.outcomes)} bodies re-downloaded")


def test_requests_name_the_project(server: FeedServer, tmp_path: Path) -> None:
    ingest_feeds(tmp_path, [feed("normal", server.url("/normal.xml?ua"))], {}, now=NOW,
                 settings=LOOPBACK)
    agents = [h.get("user-agent") for p, h in server.requests if p == "/normal.xml?ua"]
    assert agents == [USER_AGENT]
    assert "inference-brief" in USER_AGENT


def test_loopback_is_refused_unless_allowed(server: FeedServer, tmp_path: Path) -> None:
    f = feed("normal", server.url("/normal.xml"))
    report = ingest_feeds(tmp_path, [f], {}, now=NOW)
    assert report.outcomes[0].message == ("refused: 127.0.0.1 is at 127.0.0.1, a loopback "
                                          "address (not fetched, to protect internal services)")


def test_a_name_that_rebinds_to_a_refused_address_is_not_read(
        server: FeedServer, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    # DNS rebinding: the name resolves to an allowed address when checked, then to a refused
    # one when httpx resolves it again to connect. Both lookups go through socket.getaddrinfo.
    port = server.port
    answers = iter(["127.0.0.2", "127.0.0.1"])
    real = socket.getaddrinfo

    def rebinding(host, *args, **kwargs):
        if host not in ("rebind.test", b"rebind.test"):  # anyio passes the name encoded
            return real(host, *args, **kwargs)
        ip = next(answers, "127.0.0.1")
        return [(socket.AF_INET, socket.SOCK_STREAM, 6, "", (ip, port))]

    monkeypatch.setattr(socket, "getaddrinfo", rebinding)
    only_one = FetchSettings(allowed_networks=("127.0.0.2/32",))
    url = f"http://rebind.test:{port}/normal.xml?rebind"
    report = ingest_feeds(tmp_path, [feed("normal", url)], {}, now=NOW, settings=only_one)
    assert report.outcomes[0].message == (
        "refused: rebind.test answered from 127.0.0.1, a loopback address, though it resolved "
        "to an allowed one when checked (not read, to protect internal services)")
    assert [p for p, _ in server.requests].count("/normal.xml?rebind") == 1  # sent, not read
    f = feed("normal", url)
    assert not load_snapshots(tmp_path, [f])[0]["normal"].items


def test_gone_and_retry_after_are_honoured_on_the_next_run(server: FeedServer,
                                                           tmp_path: Path) -> None:
    feeds = [feed("gone", server.url("/status/410")), feed("too-many", server.url("/status/429"))]
    snapshots: dict[str, Snapshot] = {}
    ingest_feeds(tmp_path, feeds, snapshots, now=NOW, settings=LOOPBACK)
    asked = len(server.requests)
    report = ingest_feeds(tmp_path, feeds, snapshots, now=NOW + dt.timedelta(seconds=60),
                          settings=LOOPBACK)
    assert len(server.requests) == asked
    assert [o.skipped for o in report.outcomes] == [True, True]


def test_defaults_are_the_issues_limits() -> None:
    s = FetchSettings()
    assert (s.connect_timeout_s, s.deadline_s, s.max_body_bytes, s.max_redirects) == (
        10.0, 20.0, 15 * 1024 * 1024, 5)
    assert s.allowed_networks == ()


def test_success_prunes_to_the_window_but_failure_keeps_everything(
        server: FeedServer, tmp_path: Path) -> None:
    url = server.url("/normal.xml")
    old = seeded("normal", url)
    ancient = old.items[0].model_copy(update={"id": "ancient",
                                              "published": NOW - dt.timedelta(days=120)})
    snap = old.model_copy(update={"items": [*old.items, ancient]})
    snapshots = {"normal": snap, "down": snap.model_copy(update={"feed_id": "down",
                                                                 "url": server.url("/status/500")})}
    feeds = [feed("normal", url), feed("down", server.url("/status/500"))]
    ingest_feeds(tmp_path, feeds, snapshots, now=NOW, settings=LOOPBACK)
    assert "ancient" not in {i.id for i in snapshots["normal"].items}
    assert "ancient" in {i.id for i in snapshots["down"].items}


def test_snapshot_writes_are_atomic_and_leave_no_temporary_files(tmp_path: Path) -> None:
    path = snapshot_path(tmp_path, "x")
    write_snapshot(path, seeded("x", "https://example.org/feed"))
    write_snapshot(path, seeded("x", "https://example.org/feed2"))
    assert json.loads(path.read_text("utf-8"))["url"] == "https://example.org/feed2"
    assert [p.name for p in path.parent.iterdir()] == ["x.json"]


def test_stalling_feeds_wait_out_their_deadlines_side_by_side(
        server: FeedServer, tmp_path: Path) -> None:
    """Eight stalls at a concurrency of eight: each gives up at its deadline, and all eight are
    waiting on the server before the first gives up, so the run waits out one deadline, not
    eight (seen from the server, not from a clock). A deadline of 3 s: with 1.5 s, the eighth
    request once reached the server (in this process, beside the client) after the first had
    given up, in a suite run that kept both cores busy."""
    settings = FetchSettings(allowed_networks=("127.0.0.0/8",), deadline_s=3, concurrency=8)
    feeds = [feed(f"stall-{i}", server.url(f"/stall?{i}")) for i in range(8)]
    report = ingest_feeds(tmp_path, feeds, {}, now=NOW, settings=settings)
    assert [o.message for o in report.outcomes] == [
        "gave up after the 3 s deadline per feed"] * 8
    events = [event for event, path in server.stalls if path.startswith("/stall?")]
    assert events[:8] == ["open"] * 8, events
