"""A file written whole is the old one or the new one, never half, and leaves nothing beside it."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from pipeline.whole_files import write_whole


def test_a_file_is_written_and_replaced_whole_in_a_new_folder(tmp_path: Path) -> None:
    path = tmp_path / "new" / "folder" / "stamp.json"
    write_whole(path, b"first")
    write_whole(path, b"second", durable=True)
    assert path.read_bytes() == b"second"
    assert os.listdir(path.parent) == ["stamp.json"]


def test_a_failed_write_leaves_the_old_file_and_no_scratch(tmp_path: Path,
                                                           monkeypatch: pytest.MonkeyPatch) -> None:
    path = tmp_path / "rates.zip"
    path.write_bytes(b"old")

    def full_disk(src: str, dst: str) -> None:
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(os, "replace", full_disk)
    with pytest.raises(OSError):
        write_whole(path, b"new")
    assert path.read_bytes() == b"old"
    assert os.listdir(tmp_path) == ["rates.zip"]
