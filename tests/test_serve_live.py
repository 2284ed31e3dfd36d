"""`brief serve` as a live preview (issue 40): each save rebuilds, open pages reload, a file with
problems shows them on the page until a save fixes it, and the server outlives every bad file.

The rebuild thread with a build function of the test's; the live preview server over a
hand-made site; and the acceptance test: the real `brief serve` on 127.0.0.1 and the page in
headless Chromium (as test_browser.py starts it: skipped, or failing under CI=true, when Chromium
or playwright is missing).
"""

from __future__ import annotations

import os
import queue
import socket
import subprocess
import sys
import threading
import time
import urllib.error
import urllib.request
from collections.abc import Iterator
from pathlib import Path

import pytest
from conftest import REPO, stop, tiny_tree, write_entry
from test_browser import _missing, browser  # noqa: F401  (browser: a fixture)

from pipeline.orchestrate.watch import Rebuilds, watch
from pipeline.publish.live import RELOAD_PATH, LiveSite
from pipeline.publish.preview import preview_server

# The rebuilds ------------------------------------------------------------------------------------


def _wait(predicate, timeout_s: float = 10.0) -> None:
    deadline = time.monotonic() + timeout_s
    while not predicate():
        assert time.monotonic() < deadline, "timed out"
        time.sleep(0.01)


def test_a_save_during_a_build_is_built_right_after_it_once() -> None:
    started, release = threading.Event(), threading.Event()
    builds: list[int] = []
    outcomes: list[tuple[object, object]] = []

    def build() -> int:
        builds.append(len(builds) + 1)
        started.set()
        release.wait(10)
        return builds[-1]

    rebuilds = Rebuilds(build, lambda result, err: outcomes.append((result, err)))
    rebuilds.start()
    try:
        rebuilds.want()
        assert started.wait(10)
        # Three saves while the first build runs: one more build, with all of them.
        for _ in range(3):
            rebuilds.want()
        assert rebuilds.is_building()
        release.set()
        _wait(lambda: not rebuilds.is_building())
        assert builds == [1, 2] and outcomes == [(1, None), (2, None)]
    finally:
        release.set()
        rebuilds.stop()


def test_a_build_that_raises_is_reported_and_the_next_save_builds_again() -> None:
    outcomes: list[tuple[object, object]] = []
    results = iter([ValueError("a fault"), "good"])

    def build() -> str:
        result = next(results)
        if isinstance(result, Exception):
            raise result
        return result

    rebuilds = Rebuilds(build, lambda result, err: outcomes.append((result, err)))
    rebuilds.start()
    try:
        rebuilds.want()
        _wait(lambda: len(outcomes) == 1 and not rebuilds.is_building())
        rebuilds.want()
        _wait(lambda: len(outcomes) == 2 and not rebuilds.is_building())
    finally:
        rebuilds.stop()
    (none, err), good = outcomes
    assert none is None and isinstance(err, ValueError) and good == ("good", None)


def test_a_save_under_a_watched_folder_is_reported(tmp_path: Path) -> None:
    saves = threading.Event()
    stop = threading.Event()
    thread = watch([tmp_path], saves.set, stop)
    try:
        deadline = time.monotonic() + 20
        # Saved again until seen: the watcher may not be set up yet when the thread starts.
        while not saves.wait(0.5):
            assert time.monotonic() < deadline, "no change reported"
            (tmp_path / "entry.yaml").write_text(f"saved: {time.monotonic()}\n", encoding="utf-8")
    finally:
        stop.set()
        thread.join(10)
    assert not thread.is_alive()


# The live preview server -------------------------------------------------------------------------

PAGE = b"<!doctype html><html><head><title>A</title></head><body><p>Page A</p></body></html>"


@pytest.fixture
def live_served(tmp_path: Path) -> Iterator[tuple[str, LiveSite, Path]]:
    site = tmp_path / "public"
    (site / "a").mkdir(parents=True)
    (site / "a" / "index.html").write_bytes(PAGE)
    (site / "extra.css").write_bytes(b"p { color: red }")
    (site / "404.html").write_bytes(b"<html><body>Not here</body></html>")
    live = LiveSite()
    live.built()
    server = preview_server(site, 0, site_path="/brief/", live=live)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}", live, site
    finally:
        server.shutdown()
        server.server_close()


def _get(url: str) -> tuple[int, dict[str, str], bytes]:
    try:
        with urllib.request.urlopen(url, timeout=10) as r:
            return r.status, dict(r.headers), r.read()
    except urllib.error.HTTPError as err:
        return err.code, dict(err.headers), err.read()


def test_live_pages_carry_the_reload_script_and_the_files_on_disk_do_not(live_served) -> None:
    base, live, site = live_served
    for path in ("/a/", "/brief/a/", "/a/index.html"):
        status, headers, body = _get(base + path)
        assert status == 200 and headers["Cache-Control"] == "no-cache"
        script = (f'const served = "{live.build_id}"; const builds = new EventSource('
                  f'"{RELOAD_PATH}");')
        assert body.startswith(PAGE.removesuffix(b"</body></html>") + b"<script>")
        assert script.encode() in body and body.endswith(b"</script></body></html>")
        assert headers["Content-Length"] == str(len(body))
    assert (site / "a" / "index.html").read_bytes() == PAGE
    # Not a page: as it is, revalidated on each reload.
    status, headers, body = _get(base + "/extra.css")
    assert (status, body, headers["Cache-Control"]) == (200, b"p { color: red }", "no-cache")
    assert _get(base + "/nothing/")[:1] == (404,)


def test_a_failed_build_shows_its_problems_escaped_on_every_page_until_a_good_one(live_served) -> None:
    base, live, _ = live_served
    line = "sources/entries/2026/09-12-x.yaml: headline: <script>alert(1)</script> & more"
    live.built([line, "1 problem(s) found; nothing was written."])
    for path in ("/a/", "/brief/a/", "/no/such/page/"):
        status, headers, body = _get(base + path)
        assert status == 500 and headers["Content-Type"] == "text/html; charset=utf-8"
        text = body.decode("utf-8")
        assert ('<pre id="brief-problems">sources/entries/2026/09-12-x.yaml: headline: '
                "&lt;script&gt;alert(1)&lt;/script&gt; &amp; more\n"
                "1 problem(s) found; nothing was written.</pre>") in text
        assert "<script>alert" not in text and f'"{live.build_id}"' in text
    assert _get(base + "/extra.css")[:1] == (200,)  # assets stay as the last good build left them
    live.built()
    assert _get(base + "/a/")[0] == 200


def test_the_reload_stream_sends_the_build_then_each_new_one(live_served) -> None:
    base, live, _ = live_served
    first = live.build_id
    with urllib.request.urlopen(base + RELOAD_PATH, timeout=10) as stream:
        assert stream.headers["Content-Type"] == "text/event-stream"
        assert stream.readline() == b"retry: 500\n" and stream.readline() == b"\n"
        assert stream.readline() == f"data: {first}\n".encode()
        stream.readline()
        live.built(["a problem"])
        second = stream.readline().decode()
        assert second == f"data: {live.build_id}\n" and live.build_id != first


# `brief serve` in Chromium -----------------------------------------------------------------------

def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _lines(stream, into: queue.Queue) -> None:
    for line in stream:
        into.put(line)


LOCAL = """\
date: 2026-09-12
section: {section}
headline: {headline}
summary: A short paragraph about the local story.
links:
  - url: https://example.org/local-story
    publisher: Example News
"""


def test_brief_serve_reloads_the_page_shows_a_problem_and_brings_the_page_back(
        browser, tmp_path: Path) -> None:  # noqa: F811
    root = tiny_tree(tmp_path / "repo")
    port = _free_port()
    process = subprocess.Popen(
        [sys.executable, "-m", "pipeline.cli.main", "serve", "--root", str(root), "--port",
         str(port)], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
        env={**os.environ, "PYTHONPATH": str(REPO)})
    out: queue.Queue = queue.Queue()
    err: queue.Queue = queue.Queue()
    threading.Thread(target=_lines, args=(process.stdout, out), daemon=True).start()
    threading.Thread(target=_lines, args=(process.stderr, err), daemon=True).start()

    def printed(stream: queue.Queue, wanted: str, timeout_s: float = 240) -> list[str]:
        """The lines printed until one that contains `wanted`."""
        seen = []
        deadline = time.monotonic() + timeout_s
        while not seen or wanted not in seen[-1]:
            try:
                seen.append(stream.get(timeout=max(0.1, deadline - time.monotonic())))
            except queue.Empty:
                raise AssertionError(f"no {wanted!r} in {seen} (exit: {process.poll()})") from None
        return seen

    try:
        printed(out, f"serving {root / 'public'} on http://127.0.0.1:{port}/ and under /brief/")
        pg = browser.new_page()
        pg.goto(f"http://127.0.0.1:{port}/brief/briefings/2026-09-12/")
        story = pg.locator("h3", has_text="Local story")
        story.wait_for()
        # Marks this very page: a reload by hand (or by the test) would lose the mark, so the
        # page seen after each save is the reload the page did itself.
        pg.evaluate("window.brief_marked = true")
        entry = write_entry(root, "2026-09-12", "local-story",
                            body=LOCAL.format(section="local", headline="Local story rewritten"))
        pg.locator("h3", has_text="Local story rewritten").wait_for(timeout=120_000)
        assert pg.evaluate("window.brief_marked") is None  # reloaded, by the page itself
        printed(out, "built 2 editions in")

        entry.write_text(LOCAL.format(section="nowhere", headline="Local story"), encoding="utf-8")
        # As `brief check` prints it: the line of the field (LOCAL's second), for an editor to jump to.
        problem = ("sources/entries/2026/09-12-local-story.yaml:2:1: section: unknown section "
                   "'nowhere'; editions.yaml has: local, numbers, radar, top")
        pg.locator("#brief-problems").wait_for(timeout=120_000)
        assert problem in pg.locator("#brief-problems").inner_text()
        assert problem + "\n" in printed(err, "1 problem(s) found; nothing was written.")
        assert process.poll() is None  # the server lives on

        entry.write_text(LOCAL.format(section="local", headline="Local story fixed"),
                         encoding="utf-8")
        pg.locator("h3", has_text="Local story fixed").wait_for(timeout=120_000)
        assert pg.locator("#brief-problems").count() == 0
        # Nothing of the preview is written into the site.
        page = (root / "public" / "briefings" / "2026-09-12" / "index.html").read_text("utf-8")
        assert "Local story fixed" in page and "brief serve" not in page
    finally:
        stop(process)


def test_a_failed_build_is_told_as_brief_build_tells_it(tmp_path: Path) -> None:
    from pipeline.cli.serve import _failure_lines
    from pipeline.problems import BuildError, Problem, SourceError

    problem = Problem("sources/entries/2026/09-12-x.yaml", "section", "unknown section 'x'", 2)
    assert _failure_lines(SourceError([problem]), tmp_path) == [
        "sources/entries/2026/09-12-x.yaml:2:1: section: unknown section 'x'",
        "1 problem(s) found; nothing was written."]
    assert _failure_lines(BuildError("the site would be too big"), tmp_path) == [
        "error: the site would be too big"]
    assert _failure_lines(PermissionError(13, "Permission denied", "/x/public"), tmp_path) == [
        "error: /x/public: Permission denied"]
    try:
        raise ValueError("unexpected")
    except ValueError as err:
        lines = _failure_lines(err, tmp_path)
    assert lines[0] == "error: the build failed unexpectedly (a template, or a fault of ours):"
    assert lines[1] == "Traceback (most recent call last):" and lines[-1] == "ValueError: unexpected"
