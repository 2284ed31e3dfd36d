"""The memos' files: large values kept once under .cache/files, read back by the next build."""

from __future__ import annotations

from pathlib import Path

from pipeline.cache.memo import Memo
from pipeline.cache.memo_store import STORE_MIN_BYTES, load_memo, save_memo
from pipeline.publish.output import DiskBody, body_bytes

BIG = b"x" * STORE_MIN_BYTES


def read_back(value: dict) -> dict:
    """A loaded value with its kept files read (they are loaded as open files, output.DiskBody)."""
    return {name: body_bytes(body) for name, body in value.items()}


def test_large_files_are_stored_apart_and_read_back(tmp_path: Path) -> None:
    memo, files = Memo(), tmp_path / "files"
    memo.get("hardware 1", lambda: {"data/hardware.json": BIG, "data/small.csv": b"a,b\n"})
    save_memo(tmp_path / "memo.pickle", memo, files)
    # The large value is a file of its own, not in the pickle; the small one stays in it.
    assert [f.read_bytes() for f in files.iterdir()] == [BIG]
    assert len((tmp_path / "memo.pickle").read_bytes()) < STORE_MIN_BYTES

    again = load_memo(tmp_path / "memo.pickle", files)
    value = again.get("hardware 1", lambda: None)
    assert isinstance(value["data/hardware.json"], DiskBody)
    assert read_back(value) == {"data/hardware.json": BIG, "data/small.csv": b"a,b\n"}
    assert again.computed == 0 and not again.changed


def test_a_file_pruned_after_loading_is_still_written(tmp_path: Path) -> None:
    """Another build may prune .cache/files while this one runs: what it loaded is in memory."""
    memo, files = Memo(), tmp_path / "files"
    memo.get("k", lambda: {"data/big.csv": BIG})
    save_memo(tmp_path / "memo.pickle", memo, files)
    value = load_memo(tmp_path / "memo.pickle", files).get("k", lambda: None)
    for f in files.iterdir():
        f.unlink()
    assert read_back(value) == {"data/big.csv": BIG}


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


def test_the_cache_folder_can_move(tmp_path: Path) -> None:
    memo = Memo()
    memo.get("k", lambda: {"data/big.csv": BIG})
    save_memo(tmp_path / "a" / "memo.pickle", memo, tmp_path / "a" / "files")
    (tmp_path / "a").rename(tmp_path / "b")
    moved = load_memo(tmp_path / "b" / "memo.pickle", tmp_path / "b" / "files")
    assert read_back(moved.get("k", lambda: None)) == {"data/big.csv": BIG}
    assert moved.computed == 0
