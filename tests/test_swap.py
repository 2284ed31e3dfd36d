"""The swap into `public/` on its own: the system's exchange of two paths, what happens when the C
library has none or the exchange fails, and `holds`, which tells the stamp a published file's bytes.
(tests/test_build.py runs the swap inside whole builds.)"""

from __future__ import annotations

import ctypes
import errno
import hashlib
import os
from pathlib import Path

import pytest

from pipeline.disk_bodies import DiskBody
from pipeline.publish import output
from pipeline.render.chart_image import ChartImage


def folder(path: Path, name: str) -> int:
    path.mkdir()
    (path / name).write_text(name)
    return path.stat().st_ino


def test_exchange_swaps_two_folders_named_relative_to_the_working_folder(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    # `brief build --out public` passes relative paths: they resolve against the working folder
    # (AT_FDCWD), as a rename would.
    a_ino, b_ino = folder(tmp_path / "a", "from-a"), folder(tmp_path / "b", "from-b")
    monkeypatch.chdir(tmp_path)
    assert output.exchange(Path("a"), Path("b")) is True
    assert ((tmp_path / "a").stat().st_ino, (tmp_path / "b").stat().st_ino) == (b_ino, a_ino)
    assert sorted(os.listdir(tmp_path / "a")) == ["from-b"]


def test_an_exchange_the_system_refuses_raises_its_error_naming_the_first_path(
        tmp_path: Path) -> None:
    folder(tmp_path / "b", "from-b")
    missing = tmp_path / "missing"
    # The error number must be this call's: ctypes keeps its own copy of errno per thread, which
    # an earlier call (or the process this one was forked from) may have left at ENOENT.
    ctypes.set_errno(0)
    with pytest.raises(OSError) as info:
        output.exchange(missing, tmp_path / "b")
    assert (info.value.errno, info.value.strerror, info.value.filename) == (
        errno.ENOENT, "No such file or directory", str(missing))
    assert sorted(os.listdir(tmp_path)) == ["b"]  # nothing moved


@pytest.mark.parametrize("library", ["without renameat2", "that cannot be loaded"])
def test_without_renameat2_in_the_c_library_there_is_no_exchange(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, library: str) -> None:
    # An old glibc or musl without the symbol, or no loadable C library: the caller falls back.
    def cdll(*args: object, **kwargs: object) -> object:
        if library == "that cannot be loaded":
            raise OSError("libc.so.6: cannot open shared object file")
        return object()
    monkeypatch.setattr(ctypes, "CDLL", cdll)
    a_ino, b_ino = folder(tmp_path / "a", "from-a"), folder(tmp_path / "b", "from-b")
    assert output.exchange(tmp_path / "a", tmp_path / "b") is False
    assert ((tmp_path / "a").stat().st_ino, (tmp_path / "b").stat().st_ino) == (a_ino, b_ino)


BYTES = b"<svg>chart</svg>"
DIGEST = hashlib.sha256(b"<svg>another chart</svg>").hexdigest()


def test_holds_compares_a_kept_file_by_its_known_digest_without_reading_it(
        tmp_path: Path) -> None:
    kept = tmp_path / "prices.json"
    kept.write_bytes(b"[1, 2]")  # the digest the memo recorded is trusted, not recomputed
    body = DiskBody(kept, "recorded-digest", 6)
    try:
        assert output.holds(body, "recorded-digest")
        assert not output.holds(body, hashlib.sha256(b"[1, 2]").hexdigest())
    finally:
        body.close()


def test_holds_hashes_bytes_and_what_a_drawing_drew() -> None:
    sha = hashlib.sha256(BYTES).hexdigest()
    assert output.holds(BYTES, sha) and not output.holds(BYTES, DIGEST)
    assert output.holds(ChartImage(value=BYTES), sha)
    assert not output.holds(ChartImage(value=BYTES), DIGEST)
    # What a drawing drew that is not bytes (a batch's tuple, nothing) is no file's content.
    assert not output.holds(ChartImage(value=None), hashlib.sha256(b"").hexdigest())
