"""Values kept in an append-only file: a build appends what it added, rewrites once mostly dead."""

from __future__ import annotations

import marshal
import pickle
from pathlib import Path

import pytest

from pipeline.cache.append_log import Log, frame, read_log, save_log


def framed(payload: bytes) -> bytes:
    return b"".join(frame(payload))


def pickled(path: Path) -> Log:
    return read_log(path, pickle.loads)


def save(path: Path, before: Log, used: dict) -> None:
    save_log(path, before, used, pickle.dumps)


def test_a_build_appends_only_what_it_added(tmp_path: Path) -> None:
    path = tmp_path / "memo.pickle"
    values = {f"k{i}": f"value {i}" for i in range(8)}
    save(path, pickled(path), values)
    first = path.read_bytes()
    save(path, pickled(path), {**values, "new": "added"})
    # The file is the first build's bytes and one frame more: nothing was rewritten.
    assert path.read_bytes() == first + framed(pickle.dumps({"new": "added"}))
    assert pickled(path) == Log({**values, "new": "added"}, whole=True)
    # Nothing added, nothing dead: nothing written.
    size = path.stat().st_size
    save(path, pickled(path), {**values, "new": "added"})
    assert path.stat().st_size == size


def test_later_frames_win_and_dead_values_are_dropped_once_they_pass_a_quarter(
        tmp_path: Path) -> None:
    path = tmp_path / "memo.pickle"
    live = {f"k{i}": i for i in range(8)}
    save(path, pickled(path), {**live, "old": 0})
    # One dead of ten on file: appended, and the dead value is still there.
    save(path, pickled(path), {**live, "new": 1})
    assert set(pickled(path).values) == {*live, "old", "new"}
    # Four dead of ten: the file is rewritten with what this build used.
    kept = {k: live[k] for k in ("k0", "k1", "k2", "k3", "k4")}
    save(path, pickled(path), {**kept, "new": 1})
    assert pickled(path) == Log({**kept, "new": 1}, whole=True)
    assert path.read_bytes() == framed(pickle.dumps({**kept, "new": 1}))


def two_frames(tmp_path: Path) -> tuple[Path, dict, dict]:
    path = tmp_path / "memo.pickle"
    first = {"a": "A" * 40, "b": "B"}
    save(path, pickled(path), first)
    save(path, pickled(path), {**first, "c": "C" * 40})
    return path, first, {**first, "c": "C" * 40}


@pytest.mark.parametrize("cut", [1, 7, 16, 20, 40])
def test_a_torn_last_frame_keeps_the_whole_ones_and_is_rewritten(tmp_path: Path,
                                                                  cut: int) -> None:
    # A build killed while appending leaves part of its frame.
    path, first, both = two_frames(tmp_path)
    path.write_bytes(path.read_bytes()[:-cut])
    torn = pickled(path)
    assert torn == Log(first, whole=False)
    save(path, torn, both)
    assert path.read_bytes() == framed(pickle.dumps(both))


@pytest.mark.parametrize("cut", [1, 8, 10, 16, 30])
def test_a_torn_frame_followed_by_another_builds_frame_is_where_reading_stops(
        tmp_path: Path, cut: int) -> None:
    # Two builds share .cache/ (two --out folders): one is killed mid-append, the other then
    # appends after the torn bytes. Nothing after the tear may be read as a value.
    path, first, _ = two_frames(tmp_path)
    data = path.read_bytes()
    later = framed(pickle.dumps({"d": "D" * 40, "a": "not A"}))
    path.write_bytes(data[:-cut] + later)
    assert pickled(path) == Log(first, whole=False)
    for loads in (marshal.loads, pickle.loads):  # whatever the payload, the frame is refused
        assert read_log(path, loads).whole is False


def test_unreadable_files_and_the_old_format(tmp_path: Path) -> None:
    path = tmp_path / "pages.marshal"
    save_log(path, read_log(path, marshal.loads), {"a": ("<p>a</p>", [])}, marshal.dumps)
    save_log(path, read_log(path, marshal.loads), {"a": ("<p>a</p>", []), "b": ("<p>b</p>", [])},
             marshal.dumps)
    assert read_log(path, marshal.loads).values == {"a": ("<p>a</p>", []), "b": ("<p>b</p>", [])}
    for junk in (b"not marshal data", marshal.dumps({"a": 1}), pickle.dumps({"a": 1}),
                 framed(b"\x00garbage")):  # the last one: a whole frame its loader refuses
        path.write_bytes(junk)
        assert read_log(path, marshal.loads) == Log({}, whole=False)
    assert read_log(tmp_path / "missing", marshal.loads) == Log({}, whole=False)


def test_a_read_only_cache_is_no_error(tmp_path: Path) -> None:
    blocked = tmp_path / "file"
    blocked.write_text("a file where the cache folder should be")
    save(blocked / "memo.pickle", Log(), {"a": 1})
    assert blocked.read_text().startswith("a file")
