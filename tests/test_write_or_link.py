"""Generated files go into the docs folder as links to the published ones when unchanged."""

from __future__ import annotations

from pathlib import Path

from pipeline.render.output import write_or_link

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


def test_a_small_file_is_linked_too_but_never_a_page(tmp_path: Path) -> None:
    (tmp_path / "public").mkdir()
    for name in ("feed.xml", "about.md"):
        (tmp_path / "public" / name).write_bytes(b"same")
        write_or_link(tmp_path / name, b"same", tmp_path / "public" / name)
    assert (tmp_path / "feed.xml").stat().st_nlink == 2
    assert (tmp_path / "about.md").stat().st_nlink == 1  # its published form is HTML


def test_a_published_file_edited_in_place_is_not_carried_forward(tmp_path: Path) -> None:
    published = tmp_path / "public" / "big.csv"
    published.parent.mkdir()
    write_or_link(published, BODY, tmp_path / "nothing-published")
    with published.open("r+b") as f:  # an editor saving in place
        f.write(b"y")
    target = tmp_path / "big.csv"
    write_or_link(target, BODY, published)
    assert target.read_bytes() == BODY and target.stat().st_nlink == 1
