"""The whole build, for real: mkdocs-material into a folder swapped in whole; failures write nothing."""

from __future__ import annotations

import calendar
import contextlib
import ctypes
import datetime as dt
import errno
import os
import re
import shutil
import signal
import subprocess
import sys
from pathlib import Path

import pytest
from conftest import REPO, tree_digest, write_entry

from pipeline.orchestrate.site import build_site
from pipeline.problems import SourceError
from pipeline.publish import output

TODAY = dt.date(2026, 11, 30)
BRIEF = [sys.executable, "-m", "pipeline.cli.main"]


def run_brief(*args: str, cwd: Path = REPO) -> subprocess.CompletedProcess:
    return subprocess.run([*BRIEF, *args], cwd=cwd, capture_output=True, text=True,
                          env={**os.environ, "PYTHONPATH": str(REPO)})


def test_tiny_site_builds(tiny: Path, tmp_path: Path) -> None:
    out = tmp_path / "public"
    result = build_site(tiny, out, today=TODAY)
    assert result.editions == 2
    page = (out / "briefings" / "2026-09-12" / "index.html").read_text()
    for text in ("Top developments", "Local view", "Context &amp; numbers", "On the radar",
                 "After Boundary", "Local story", "Price figure"):
        assert text in page
    assert "Too Late" not in page  # dated after the last edition
    home = (out / "index.html").read_text()
    assert "2026-09-12: After Boundary" in home and 'href="briefings/2026-09-05/"' in home
    archive = (out / "archive" / "index.html").read_text()
    assert "September 2026" in archive and "2026-09-05" in archive
    assert (out / "briefings" / "2026-09-12.txt").read_text().startswith("Test Brief — 2026-09-12")
    assert (out / "search" / "search_index.json").exists()
    assert (out / "about" / "index.html").exists()
    assert not list(tmp_path.glob(".public-*"))  # the scratch folder is gone


def test_nav_does_not_list_editions(tiny: Path, tmp_path: Path) -> None:
    # The default nav lists every page on every page; a page must not grow with the archive.
    for day in range(13, 28):
        write_entry(tiny, f"2026-09-{day}", f"story-{day}")
    series = tiny / "sources" / "editions.yaml"
    few = build_site(tiny, tmp_path / "few", today=TODAY)
    series.write_text(series.read_text().replace(
        "dates: [2026-09-05, 2026-09-12]",
        "dates: [" + ", ".join(f"2026-09-{d:02d}" for d in range(5, 28)) + "]"))
    many = build_site(tiny, tmp_path / "many", today=TODAY)
    assert (few.editions, many.editions) == (2, 23)
    size = lambda out: (out / "briefings" / "2026-09-05" / "index.html").stat().st_size
    # Only the neighbour links differ; nothing scales with the number of editions.
    assert abs(size(tmp_path / "many") - size(tmp_path / "few")) < 200


def test_two_builds_are_identical(tiny: Path, tmp_path: Path) -> None:
    build_site(tiny, tmp_path / "a", today=TODAY)
    build_site(tiny, tmp_path / "b", today=TODAY)
    assert tree_digest(tmp_path / "a") == tree_digest(tmp_path / "b")


def test_site_is_what_plain_mkdocs_makes_of_the_same_docs(tiny: Path, tmp_path: Path,
                                                           monkeypatch: pytest.MonkeyPatch) -> None:
    # The build hands mkdocs its files from memory; the pages, sitemap and search index must
    # come out as a plain `mkdocs build` of the same files written to a docs folder would have
    # them (the sitemap and the index list pages in mkdocs' order of that folder).
    monkeypatch.setenv("BRIEF_KEEP_DOCS", str(tmp_path / "kept"))
    build_site(tiny, tmp_path / "ours", today=TODAY)
    project = tmp_path / "kept"
    config = (REPO / "site" / "mkdocs.yml").read_text(encoding="utf-8")
    config = re.sub(r"(?m)^site_url: .*$", "site_url: https://example.org/brief/", config)
    (project / "mkdocs.yml").write_text(config, encoding="utf-8")  # the series' site_url
    shutil.copytree(REPO / "site" / "overrides", project / "overrides")
    epoch = str(calendar.timegm(dt.date(2026, 9, 12).timetuple()))  # the newest edition's day
    proc = subprocess.run([sys.executable, "-m", "mkdocs", "build", "-q", "-d",
                           str(tmp_path / "plain")], cwd=project, capture_output=True, text=True,
                          check=False, env={**os.environ, "SOURCE_DATE_EPOCH": epoch,
                               "NO_MKDOCS_2_WARNING": "1"})
    assert proc.returncode == 0, proc.stderr
    for name in ("sitemap.xml", "search/search_index.json", "index.html",
                 "briefings/2026-09-12/index.html"):
        assert (tmp_path / "ours" / name).read_bytes() == (tmp_path / "plain" / name).read_bytes(), name


def test_bad_entry_fails_and_leaves_public_untouched(tiny: Path) -> None:
    assert run_brief("build", "--root", str(tiny), "--today", "2026-11-30").returncode == 0
    before = tree_digest(tiny / "public")
    write_entry(tiny, "2026-09-10", "bad", body="date: 2026-02-30\nsection: top\n"
                "sumary: x\nlinks: [{url: 'https://e.org', publisher: X}]\n")
    for command in ("check", "build"):
        extra = ("--today", "2026-11-30") if command == "build" else ()
        proc = run_brief(command, "--root", str(tiny), *extra)
        assert proc.returncode == 1, proc
        assert "Traceback" not in proc.stderr + proc.stdout
        lines = proc.stderr.splitlines()
        assert lines[:4] == [
            "sources/entries/2026/09-10-bad.yaml:1:1: date: expected a date as YYYY-MM-DD: "
            "day value is outside expected range (got '2026-02-30')",
            "sources/entries/2026/09-10-bad.yaml:1:1: headline: required field is missing",
            "sources/entries/2026/09-10-bad.yaml:1:1: summary: required field is missing",
            "sources/entries/2026/09-10-bad.yaml:3:1: sumary: unknown key; did you mean "
            "`summary`?",
        ]
    assert tree_digest(tiny / "public") == before


def test_failing_mkdocs_leaves_public_untouched(tiny: Path) -> None:
    # A broken link to a page that doesn't exist fails the strict mkdocs build after it started.
    out = tiny / "public"
    build_site(tiny, out, today=TODAY)
    before = tree_digest(out)
    write_entry(tiny, "2026-09-10", "broken-link", body="date: 2026-09-10\nsection: top\n"
                "headline: H\nsummary: See [this](missing-page.md).\n"
                "links: [{url: 'https://e.org/x', publisher: X}]\n")
    proc = run_brief("build", "--root", str(tiny), "--today", "2026-11-30")
    assert proc.returncode == 1 and "mkdocs build failed" in proc.stderr
    assert "Traceback" not in proc.stderr
    assert tree_digest(out) == before
    assert not list(tiny.glob(".public-*"))


def old_and_new_site(tiny: Path, tmp_path: Path) -> tuple[dict, dict]:
    """Build the tiny site into tiny/public, then add an entry; return the published site's
    digest and that of the site the entry makes, built whole into another folder."""
    build_site(tiny, tiny / "public", today=TODAY)
    old = tree_digest(tiny / "public")
    write_entry(tiny, "2026-09-10", "late-news", headline="Late News")
    build_site(tiny, tmp_path / "new", today=TODAY)
    new = tree_digest(tmp_path / "new")
    assert new != old
    return old, new


def leftovers(tiny: Path) -> list[Path]:
    return sorted(tiny.glob(".public-*"))


@pytest.mark.parametrize("stage", ["after-render", "mid-write", "before-swap", "after-swap"])
def test_a_build_killed_at_any_stage_leaves_the_old_site_or_the_new_one(
        tiny: Path, tmp_path: Path, stage: str) -> None:
    out = tiny / "public"
    old, new = old_and_new_site(tiny, tmp_path)
    # The build kills itself at the stage (output.kill_point); its own session, so its chart
    # workers die with it as they would when the machine stops a build.
    proc = subprocess.Popen([*BRIEF, "build", "--root", str(tiny), "--today", "2026-11-30"],
                            cwd=REPO, env={**os.environ, "PYTHONPATH": str(REPO),
                                           "BRIEF_KILL_AT": stage},
                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                            start_new_session=True)
    assert proc.wait(timeout=300) == -signal.SIGKILL  # it reached the stage
    with contextlib.suppress(ProcessLookupError):
        os.killpg(proc.pid, signal.SIGKILL)
    # What the killed build left beside public/: nothing before its scratch folder existed;
    # a site without its charts mid-write; the whole new site before the swap; after it, the
    # old site, exchanged into the place of the site built aside, not yet deleted.
    aside = {"after-render": None, "mid-write": "part of new", "before-swap": new,
             "after-swap": old}[stage]
    if aside is None:
        assert leftovers(tiny) == []
    else:
        [scratch] = leftovers(tiny)
        left = tree_digest(scratch / "site")
        if aside == "part of new":  # the same files as the new site, but for its charts
            assert left.items() <= new.items()
            assert sorted(new.keys() - left.keys()) == ["charts/editions-per-month.svg"]
        else:
            assert left == aside
    assert tree_digest(out) == (new if stage == "after-swap" else old)
    build_site(tiny, out, today=TODAY)
    assert tree_digest(out) == new
    assert leftovers(tiny) == []  # the next build removed what the killed one left


@pytest.fixture
def swaps(monkeypatch: pytest.MonkeyPatch) -> dict:
    """Record each call of output.exchange (its paths, their inodes before and after, whether it
    exchanged them), and the inodes of what the scratch folder holds right after each swap of
    one site for another, before it is deleted (at the "after-swap" kill point)."""
    seen: dict = {"exchanges": [], "aside": []}
    real = output.exchange

    def exchange(a: Path, b: Path) -> bool:
        before = (a.stat().st_ino, b.stat().st_ino)
        done = real(a, b)
        seen["exchanges"].append({"paths": (a, b), "before": before, "done": done,
                                  "after": (a.stat().st_ino, b.stat().st_ino) if done else None})
        return done

    def kill_point(stage: str) -> None:
        if stage == "after-swap" and seen["exchanges"]:  # a swap of one site for another
            scratch = seen["exchanges"][-1]["paths"][0].parent
            seen["aside"].append([p.stat().st_ino for p in scratch.iterdir()])
    monkeypatch.setattr(output, "exchange", exchange)
    monkeypatch.setattr(output, "kill_point", kill_point)
    return seen


def test_the_new_site_is_exchanged_with_the_old_one(tiny: Path, tmp_path: Path,
                                                     swaps: dict) -> None:
    out = tiny / "public"
    old, new = old_and_new_site(tiny, tmp_path)
    old_tree = os.open(out, os.O_RDONLY | os.O_DIRECTORY)  # to see what becomes of it
    try:
        build_site(tiny, out, today=TODAY)
        [call] = swaps["exchanges"]
        built, target = call["paths"]
        built_tree, published_tree = call["before"]
        assert target == out and published_tree == os.fstat(old_tree).st_ino
        assert call["done"] and call["after"] == (published_tree, built_tree)  # one exchange
        assert swaps["aside"] == [[published_tree]]  # the old tree went aside whole
        assert out.stat().st_ino == built_tree  # public/ is the folder built aside
        assert os.fstat(old_tree).st_nlink == 0  # and the old tree is deleted
    finally:
        os.close(old_tree)
    assert tree_digest(out) == new
    assert leftovers(tiny) == []


def failing_renameat2(code: int):
    def renameat2(*args: object) -> int:
        ctypes.set_errno(code)
        return -1
    return renameat2


@pytest.mark.parametrize("cannot", [None, errno.EINVAL, errno.ENOSYS, errno.ENOTSUP],
                         ids=["no renameat2", "EINVAL", "ENOSYS", "ENOTSUP"])
def test_without_an_atomic_exchange_the_site_is_replaced_by_two_renames(
        tiny: Path, tmp_path: Path, swaps: dict, monkeypatch: pytest.MonkeyPatch,
        cannot: int | None) -> None:
    # Not Linux, an old C library, or a file system without RENAME_EXCHANGE: the fallback.
    monkeypatch.setattr(output, "_renameat2",
                        lambda: None if cannot is None else failing_renameat2(cannot))
    out = tiny / "public"
    old, new = old_and_new_site(tiny, tmp_path)
    old_tree = os.open(out, os.O_RDONLY | os.O_DIRECTORY)
    try:
        build_site(tiny, out, today=TODAY)
        [call] = swaps["exchanges"]
        assert not call["done"]
        # Renamed aside whole (not deleted in place, which leaves public/ missing longer), then
        # the folder built aside renamed to public/, then the old tree deleted.
        assert swaps["aside"] == [[os.fstat(old_tree).st_ino]]
        assert out.stat().st_ino == call["before"][0]
        assert os.fstat(old_tree).st_nlink == 0
    finally:
        os.close(old_tree)
    assert tree_digest(out) == new  # the whole new site, not part of it
    assert leftovers(tiny) == []


@pytest.mark.parametrize(("code", "message"), [
    (errno.EPERM, "Operation not permitted"),
    (errno.EBUSY, "Device or resource busy; the site is not replaced (is the folder a mount "
                  "point? build into a folder inside it)")])
def test_an_exchange_that_fails_otherwise_fails_the_build_and_keeps_the_site(
        tiny: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, code: int,
        message: str) -> None:
    monkeypatch.setattr(output, "_renameat2", lambda: failing_renameat2(code))
    out = tiny / "public"
    old, _ = old_and_new_site(tiny, tmp_path)
    with pytest.raises(OSError) as info:
        build_site(tiny, out, today=TODAY)
    assert (info.value.errno, info.value.strerror, info.value.filename) == (code, message, str(out))
    assert tree_digest(out) == old
    assert leftovers(tiny) == []


def test_source_error_names_every_problem(tiny: Path, tmp_path: Path) -> None:
    (tiny / "sources" / "editions.yaml").write_text("title: x\n")
    with pytest.raises(SourceError) as info:
        build_site(tiny, tmp_path / "out", today=TODAY)
    assert {p.field for p in info.value.problems} >= {"description", "site_url", "sections"}
    assert not (tmp_path / "out").exists()
