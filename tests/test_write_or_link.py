"""Files go into the new site as links to the published ones when unchanged, and only then."""

from __future__ import annotations

import datetime as dt
import os
from pathlib import Path

import pytest

from pipeline.orchestrate.site import build_site
from pipeline.paths import SITE_DOCS
from pipeline.publish import output
from pipeline.publish.output import write_or_link
from pipeline.render.chart_image import ChartImage

BODY = b"x" * 100_000


def test_a_file_already_published_is_linked_not_written(tmp_path: Path) -> None:
    published = tmp_path / "public" / "prices.json"
    published.parent.mkdir()
    published.write_bytes(BODY)
    target = tmp_path / "prices.json"
    write_or_link(target, BODY, published)
    assert target.stat().st_ino == published.stat().st_ino
    other = tmp_path / "other.json"
    write_or_link(other, BODY + b"changed", published)
    assert other.read_bytes() == BODY + b"changed" and other.stat().st_nlink == 1


def test_a_small_file_is_linked_too(tmp_path: Path) -> None:
    (tmp_path / "public").mkdir()
    (tmp_path / "public" / "feed.xml").write_bytes(b"same")
    write_or_link(tmp_path / "feed.xml", b"same", tmp_path / "public" / "feed.xml")
    assert (tmp_path / "feed.xml").stat().st_nlink == 2


def test_the_site_shares_no_file_with_the_repository_or_the_theme(tiny: Path) -> None:
    # Static files of site/docs and of the theme are copied on the first build, then linked from
    # the published site: an edit of the site in place must not reach the repository.
    for _ in range(2):
        build_site(tiny, tiny / "public", today=dt.date(2026, 9, 30))
        (tiny / "sources" / "editions.yaml").touch()  # not up to date: build again
    css = tiny / "public" / "assets" / "extra.css"
    assert css.read_bytes() == (SITE_DOCS / "assets" / "extra.css").read_bytes()
    assert css.stat().st_ino != (SITE_DOCS / "assets" / "extra.css").stat().st_ino
    theme_js = next((tiny / "public" / "assets" / "javascripts").glob("bundle.*.js"))
    assert theme_js.stat().st_nlink == 1  # the previous site's copy was deleted by the swap


def test_a_published_file_with_a_second_name_is_written_afresh(tmp_path: Path) -> None:
    published = tmp_path / "public" / "bundle.js"
    published.parent.mkdir()
    published.write_bytes(BODY)
    os.link(published, tmp_path / "venv-theme.js")  # as sites built by older versions had it
    target = tmp_path / "bundle.js"
    write_or_link(target, BODY, published)
    assert target.read_bytes() == BODY and target.stat().st_nlink == 1


def test_a_site_sharing_files_stops_sharing_them_at_the_next_build(tiny: Path) -> None:
    build_site(tiny, tiny / "public", today=dt.date(2026, 9, 30))
    theme_js = next((tiny / "public" / "assets" / "javascripts").glob("bundle.*.js"))
    outside = tiny / "outside.js"
    os.link(theme_js, outside)
    (tiny / "sources" / "editions.yaml").touch()
    build_site(tiny, tiny / "public", today=dt.date(2026, 9, 30))
    assert theme_js.read_bytes() == outside.read_bytes()
    assert theme_js.stat().st_ino != outside.stat().st_ino and outside.stat().st_nlink == 1


def test_a_published_file_edited_in_place_is_not_carried_forward(tmp_path: Path) -> None:
    published = tmp_path / "public" / "big.csv"
    published.parent.mkdir()
    write_or_link(published, BODY, tmp_path / "nothing-published")
    with published.open("r+b") as f:  # an editor saving in place
        f.write(b"y")
    target = tmp_path / "big.csv"
    write_or_link(target, BODY, published)
    assert target.read_bytes() == BODY and target.stat().st_nlink == 1


def test_kept_data_files_are_linked_without_reading_unless_touched(
        copy_few_models_sources, monkeypatch: pytest.MonkeyPatch) -> None:
    # Large data files stay on disk (output.DiskBody); once a build has published one, the next
    # links it without reading either copy, unless the published file was touched since.
    reads: list[str] = []
    read = output.DiskBody.read
    monkeypatch.setattr(output.DiskBody, "read", lambda self: reads.append(self.digest) or read(self))
    # Few catalogue models: the bundled sources' every data file (the Market's too) and model
    # pages, five builds of ~120 model pages instead of ~1,600.
    root = copy_few_models_sources()
    public, today = root / "public", dt.date(2026, 9, 30)

    def build() -> None:
        (root / "sources" / "editions.yaml").touch()  # not up to date: build again
        reads.clear()
        build_site(root, public, today=today, files_apart_from=1)  # every data file kept apart
        # The kept files are held open during a build only (a caller may build again and again).
        held = [os.readlink(f"/proc/self/fd/{fd}") for fd in os.listdir("/proc/self/fd")
                if os.path.exists(f"/proc/self/fd/{fd}")]
        assert not [h for h in held if "/.cache/files/" in h]

    build()  # computes the data files, keeps them in .cache/files and publishes them
    data = public / "data" / "prices.json"
    before = data.stat().st_ino
    for _ in range(2):  # the second: after a build that linked them (their ctime moved then)
        build()
        assert reads == [] and data.stat().st_ino == before and data.stat().st_nlink == 1

    good = data.read_bytes()
    with data.open("r+b") as f:  # edited in place: same inode, same size, new time
        f.write(b"X")
    build()
    assert reads and data.read_bytes() == good and data.stat().st_ino != before

    # Edited in place with its modification time set back (`touch -r`, `rsync -t --inplace`):
    # the change time still tells.
    st = data.stat()
    with data.open("r+b") as f:
        f.write(b"Y")
    os.utime(data, ns=(st.st_atime_ns, st.st_mtime_ns))
    build()
    assert reads and data.read_bytes() == good


def test_a_kept_file_is_linked_only_when_the_published_one_is_as_the_last_build_left_it(
        tmp_path: Path) -> None:
    # Unit level (the build-level test above reaches link_unchanged through too many frames
    # for `make mutate`): each case says by hand whether the published file may be linked.
    kept = tmp_path / "cache" / "prices.json"
    kept.parent.mkdir()
    kept.write_bytes(BODY)
    body = output.DiskBody(kept, "digest-of-body", len(BODY))
    public = tmp_path / "public"
    public.mkdir()
    published = public / "prices.json"
    published.write_bytes(BODY)
    recorded = output.published_state(published, "digest-of-body")

    def linked(name: str, state: list | None) -> bool:
        target = tmp_path / name
        done = output.link_unchanged(published, target, body, state)
        # Linked means the very file, a second name of it; not linked means nothing written.
        assert done == target.exists() and (not done or target.stat().st_ino == recorded[4])
        return done

    assert not linked("never-published.json", None)
    assert not linked("other-digest.json", ["digest-of-other", *recorded[1:]])
    assert linked("as-left.json", recorded)
    (tmp_path / "as-left.json").unlink()

    os.link(published, tmp_path / "elsewhere.json")  # a second name outside the site
    assert not linked("shared.json", output.published_state(published, "digest-of-body"))
    (tmp_path / "elsewhere.json").unlink()

    os.utime(published, ns=(0, 0))  # touched since: the modification time differs
    assert not linked("touched.json", recorded)
    published.unlink()
    assert not linked("gone.json", recorded)  # the stat fails: the caller writes
    body.close()


def test_body_bytes_reads_a_kept_file_and_waits_for_a_drawing(tmp_path: Path) -> None:
    kept = tmp_path / "prices.json"
    kept.write_bytes(b"[1, 2]")
    body = output.DiskBody(kept, "digest-of-body", 6)
    try:
        assert output.body_bytes(body) == b"[1, 2]"
    finally:
        body.close()
    assert output.body_bytes(b"bytes") == b"bytes"
    assert output.body_bytes(ChartImage(value=b"<svg/>")) == b"<svg/>"
