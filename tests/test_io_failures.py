"""OS errors are one line naming the path, exit 1, and leave the output as it was (issue 18).

Tested for real: a read-only mount, a small tmpfs filled up, a mount point as the output. Tests
run as root, so permissions would not stop a write; mounting needs root and mount(8), which CI
has (without them the tests skip, and fail under CI=true)."""

from __future__ import annotations

import contextlib
import marshal
import os
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest
from conftest import IN_CI, REPO, copy_sources, tree_digest, write_entry

from pipeline.cache.append_log import Log, frame, read_log, save_log
from tests.feed_server import FeedServer


def _mount(*args: str) -> None:
    done = subprocess.run(["mount", *args], capture_output=True, text=True)
    if done.returncode != 0:
        message = f"cannot mount ({done.stderr.strip()}): these tests need root and mount(8)"
        if IN_CI:
            pytest.fail(message)
        pytest.skip(message)


@contextlib.contextmanager
def tmpfs(folder: Path, size: str) -> Iterator[Path]:
    folder.mkdir(parents=True, exist_ok=True)
    _mount("-t", "tmpfs", "-o", f"size={size}", "tmpfs", str(folder))
    try:
        yield folder
    finally:
        subprocess.run(["umount", "-l", str(folder)], check=True)


def read_only(folder: Path) -> None:
    subprocess.run(["mount", "-o", "remount,ro", str(folder)], check=True)


def fill(folder: Path) -> None:
    """Leave no free space on the file system of `folder`."""
    with open(folder / "filler", "wb", buffering=0) as f:
        for size in (1 << 20, 1 << 12, 1):
            with contextlib.suppress(OSError):
                while True:
                    f.write(b"\0" * size)


def brief(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "pipeline.cli", *args], capture_output=True,
                          text=True, cwd=REPO, timeout=300,
                          env={**os.environ, "PYTHONPATH": str(REPO), "NO_MKDOCS_2_WARNING": "1"})


def one_line_error(done: subprocess.CompletedProcess) -> str:
    assert done.returncode == 1, done.stdout + done.stderr
    assert "Traceback" not in done.stderr, done.stderr
    lines = done.stderr.strip().splitlines()
    assert len(lines) == 1, done.stderr
    return lines[0]


TODAY = "2026-11-30"


def repo_on(mount: Path) -> Path:
    """A copy of the bundled sources on `mount`, with the bundled build's cache."""
    return copy_sources(mount / "repo")


def test_build_into_a_read_only_folder(tmp_path: Path) -> None:
    with tmpfs(tmp_path / "ro", "200m") as mount:
        out = mount / "public"
        assert brief("build", "--root", str(REPO), "--out", str(out), "--today", TODAY
                     ).returncode == 0
        before = tree_digest(out)
        read_only(mount)
        line = one_line_error(brief("build", "--root", str(REPO), "--out", str(out),
                                    "--today", "2026-12-01"))
        assert line == f"error: {mount}/.public.lock: Read-only file system"
        assert tree_digest(out) == before


def test_build_on_a_full_disk_keeps_the_published_site(tmp_path: Path, bundled_site: Path) -> None:
    # Room for the repository, one site (about 115 MB: a page for each of 1,750 models and 157
    # providers, every month of the catalogues' moves) and its cache, seeded from the bundled
    # build's; the disk is then filled.
    with tmpfs(tmp_path / "full", "600m") as mount:
        root = repo_on(mount)
        out = root / "public"
        today = ["--today", TODAY]
        assert brief("build", "--root", str(root), *today).returncode == 0
        before = tree_digest(out)
        write_entry(root, "2026-11-25", "needs-a-build", headline="A change to build")
        fill(mount)
        line = one_line_error(brief("build", "--root", str(root), *today))
        assert line.startswith("error: ") and line.endswith(": No space left on device")
        path = line.removeprefix("error: ").removesuffix(": No space left on device")
        assert Path(path).is_relative_to(root), line
        assert tree_digest(out) == before
        assert [p.name for p in root.iterdir() if p.name.startswith(".public-")] == []


def test_build_into_a_mount_point(tmp_path: Path) -> None:
    out = tmp_path / "site" / "public"
    with tmpfs(out, "60m"):
        line = one_line_error(brief("build", "--root", str(REPO), "--out", str(out),
                                    "--today", TODAY))
        assert line == (f"error: {out}: Device or resource busy; the site is not replaced (is "
                        "the folder a mount point? build into a folder inside it)")
        assert list(out.iterdir()) == []


@pytest.mark.parametrize("fault", ["read-only", "full"])
def test_ingest_into_a_repository_that_cannot_be_written(tmp_path: Path, fault: str) -> None:
    with FeedServer() as server, tmpfs(tmp_path / fault, "20m") as mount:
        root = mount / "repo"
        (root / "sources").mkdir(parents=True)
        (root / "sources" / "feeds.yaml").write_text(
            "topics:\n  pricing: [price]\nfeeds:\n"
            f"  - id: normal\n    url: {server.url('/normal.xml')}\n    title: Normal\n",
            encoding="utf-8")
        (root / "sources" / "snapshots" / "feeds").mkdir(parents=True)
        if fault == "read-only":
            read_only(mount)
        else:
            fill(mount)
        done = brief("ingest", "feeds", "--root", str(root), "--allow-network", "127.0.0.0/8")
        assert done.returncode == 1 and "Traceback" not in done.stderr, done.stderr
        errors = [line for line in done.stderr.splitlines() if line.startswith("error: ")]
        why = "Read-only file system" if fault == "read-only" else "No space left on device"
        assert errors == [f"error: {root}/sources/snapshots/feeds/normal.json: {why}"]
        assert list((root / "sources" / "snapshots" / "feeds").iterdir()) == []


def test_an_append_cut_short_by_a_full_disk_is_a_torn_frame(tmp_path: Path) -> None:
    # cache/append_log: a frame written in part (the disk filled up during it) reads as torn,
    # never as values; the next build rewrites the file once there is room again.
    with tmpfs(tmp_path / "full", "2m") as mount:
        path = mount / "pages.marshal"
        first = {"a": ("<p>a</p>", [])}
        save_log(path, read_log(path, marshal.loads), first, marshal.dumps)
        fill(mount)
        filler = mount / "filler"
        os.truncate(filler, filler.stat().st_size - 8192)  # room for part of the next frame
        both = {**first, "b": ("x" * 100_000, [])}
        save_log(path, read_log(path, marshal.loads), both, marshal.dumps)
        assert path.stat().st_size > len(b"".join(frame(marshal.dumps(first))))  # cut short
        torn = read_log(path, marshal.loads)
        assert torn == Log(first, whole=False)
        filler.unlink()
        save_log(path, torn, both, marshal.dumps)
        assert read_log(path, marshal.loads) == Log(both, whole=True)
