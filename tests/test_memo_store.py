"""The memos' files: large values kept once under .cache/files and linked, never re-read."""

from __future__ import annotations

from pathlib import Path

import pytest

from pipeline.memo import Memo
from pipeline.memo_store import LINK_MIN_BYTES, StoredFile, load_memo, save_memo, write_or_link
from pipeline.problems import BuildError

BIG = b"x" * LINK_MIN_BYTES


def test_large_files_are_stored_apart_and_linked(tmp_path: Path) -> None:
    memo, files = Memo(), tmp_path / "files"
    memo.get("hardware 1", lambda: {"data/hardware.json": BIG, "hardware.md": BIG,
                                    "data/small.csv": b"a,b\n"})
    save_memo(tmp_path / "memo.pickle", memo, files)

    again = load_memo(tmp_path / "memo.pickle", files)
    value = again.get("hardware 1", lambda: None)
    stored = value["data/hardware.json"]
    assert isinstance(stored, StoredFile) and stored.read_bytes() == BIG
    # Pages stay bytes (their Markdown is rendered), and so do small files.
    assert value["hardware.md"] == BIG and value["data/small.csv"] == b"a,b\n"
    assert again.computed == 0 and not again.changed

    # Written out as bytes, never as a second name of the cache's file: an edit to public/
    # could otherwise change what later builds reuse.
    docs = tmp_path / "docs"
    docs.mkdir()
    write_or_link(docs / "hardware.json", stored, tmp_path / "public" / "hardware.json")
    assert (docs / "hardware.json").read_bytes() == BIG
    assert (docs / "hardware.json").stat().st_ino != stored.path.stat().st_ino


def test_a_published_file_edited_in_place_is_not_carried_forward(tmp_path: Path) -> None:
    memo, files = Memo(), tmp_path / "files"
    memo.get("k", lambda: {"data/big.csv": BIG})
    save_memo(tmp_path / "memo.pickle", memo, files)
    stored = load_memo(tmp_path / "memo.pickle", files).get("k", lambda: None)["data/big.csv"]
    published = tmp_path / "public" / "big.csv"
    published.parent.mkdir()
    write_or_link(published, stored, tmp_path / "nothing-published")
    with published.open("r+b") as f:  # an editor saving in place
        f.write(b"y")
    target = tmp_path / "big.csv"
    write_or_link(target, stored, published)
    assert target.read_bytes() == BIG and stored.read_bytes() == BIG


def test_a_stored_file_gone_mid_build_is_an_error_for_people(tmp_path: Path) -> None:
    memo, files = Memo(), tmp_path / "files"
    memo.get("k", lambda: {"data/big.csv": BIG})
    save_memo(tmp_path / "memo.pickle", memo, files)
    stored = load_memo(tmp_path / "memo.pickle", files).get("k", lambda: None)["data/big.csv"]
    stored.path.unlink()  # another build pruned it after this one loaded the memo
    with pytest.raises(BuildError, match="the build cache changed while this build ran"):
        write_or_link(tmp_path / "big.csv", stored, tmp_path / "public" / "big.csv")


def test_a_read_only_cache_does_not_fail_the_build(tmp_path: Path) -> None:
    memo = Memo()
    memo.get("k", lambda: {"data/big.csv": BIG})
    (tmp_path / "files").write_text("not a folder")  # storing into it fails with an OSError
    save_memo(tmp_path / "memo.pickle", memo, tmp_path / "files")
    assert not (tmp_path / "memo.pickle").exists()


def test_a_missing_stored_file_is_computed_again(tmp_path: Path) -> None:
    memo, files = Memo(), tmp_path / "files"
    memo.get("k", lambda: {"data/big.csv": BIG})
    save_memo(tmp_path / "memo.pickle", memo, files)
    for f in files.iterdir():
        f.unlink()
    again = load_memo(tmp_path / "memo.pickle", files)
    assert again.get("k", lambda: {"data/big.csv": BIG + b"!"}) == {"data/big.csv": BIG + b"!"}
    assert again.computed == 1


def test_files_no_value_names_are_deleted(tmp_path: Path) -> None:
    files = tmp_path / "files"
    first = Memo()
    first.get("old", lambda: {"data/a.csv": BIG})
    save_memo(tmp_path / "memo.pickle", first, files)
    second = load_memo(tmp_path / "memo.pickle", files)
    second.get("new", lambda: {"data/a.csv": BIG + b"2"})  # "old" is not used by this build
    save_memo(tmp_path / "memo.pickle", second, files)
    kept = [f.read_bytes() for f in files.iterdir()]
    assert kept == [BIG + b"2"]


def test_a_file_already_published_is_linked_not_written(tmp_path: Path) -> None:
    published = tmp_path / "public" / "prices.json"
    published.parent.mkdir()
    published.write_bytes(BIG)
    target = tmp_path / "prices.json"
    write_or_link(target, BIG, published)
    assert target.stat().st_ino == published.stat().st_ino
    other = tmp_path / "other.json"
    write_or_link(other, BIG + b"changed", published)
    assert other.read_bytes() == BIG + b"changed" and other.stat().st_nlink == 1


def test_the_cache_folder_can_move(tmp_path: Path) -> None:
    memo = Memo()
    memo.get("k", lambda: {"data/big.csv": BIG})
    save_memo(tmp_path / "a" / "memo.pickle", memo, tmp_path / "a" / "files")
    (tmp_path / "a").rename(tmp_path / "b")
    moved = load_memo(tmp_path / "b" / "memo.pickle", tmp_path / "b" / "files")
    stored = moved.get("k", lambda: None)["data/big.csv"]
    assert stored.path == tmp_path / "b" / "files" / stored.path.name
    assert stored.read_bytes() == BIG and moved.computed == 0


def test_a_small_file_is_linked_too_but_never_a_page(tmp_path: Path) -> None:
    (tmp_path / "public").mkdir()
    for name in ("feed.xml", "about.md"):
        (tmp_path / "public" / name).write_bytes(b"same")
        write_or_link(tmp_path / name, b"same", tmp_path / "public" / name)
    assert (tmp_path / "feed.xml").stat().st_nlink == 2
    assert (tmp_path / "about.md").stat().st_nlink == 1  # its published form is HTML
