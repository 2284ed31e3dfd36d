"""Values kept in an append-only file: a build appends what it added, rewrites once mostly dead."""

from __future__ import annotations

import marshal
import pickle
from pathlib import Path

import pytest

from pipeline.append_log import Log, read_log, save_log


def pickled(path: Path) -> Log:
    return read_log(path, pickle.load, (pickle.UnpicklingError,))


def save(path: Path, before: Log, used: dict) -> None:
    save_log(path, before, used, lambda value, f: pickle.dump(value, f))


def test_a_build_appends_only_what_it_added(tmp_path: Path) -> None:
    path = tmp_path / "memo.pickle"
    values = {f"k{i}": f"value {i}" for i in range(8)}
    save(path, pickled(path), values)
    first = path.read_bytes()
    save(path, pickled(path), {**values, "new": "added"})
    # The file is the first build's bytes and one frame more: nothing was rewritten.
    assert path.read_bytes().startswith(first) and path.stat().st_size > len(first)
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
    assert path.read_bytes() == pickle.dumps({**kept, "new": 1})


@pytest.mark.parametrize("cut", [1, 7, 20])
def test_a_torn_last_frame_keeps_the_whole_ones_and_is_rewritten(tmp_path: Path,
                                                                  cut: int) -> None:
    # A build killed while appending leaves part of its frame.
    path = tmp_path / "memo.pickle"
    save(path, pickled(path), {"a": "A" * 40, "b": "B"})
    save(path, pickled(path), {"a": "A" * 40, "b": "B", "c": "C" * 40})
    path.write_bytes(path.read_bytes()[:-cut])
    torn = pickled(path)
    assert torn == Log({"a": "A" * 40, "b": "B"}, whole=False)
    save(path, torn, {"a": "A" * 40, "b": "B", "c": "C" * 40})
    assert path.read_bytes() == pickle.dumps({"a": "A" * 40, "b": "B", "c": "C" * 40})


def test_marshal_frames_and_unreadable_files(tmp_path: Path) -> None:
    path = tmp_path / "pages.marshal"
    save_log(path, read_log(path, marshal.load), {"a": ("<p>a</p>", [])}, marshal.dump)
    save_log(path, read_log(path, marshal.load), {"a": ("<p>a</p>", []), "b": ("<p>b</p>", [])},
             marshal.dump)
    assert read_log(path, marshal.load).values == {"a": ("<p>a</p>", []), "b": ("<p>b</p>", [])}
    path.write_bytes(b"not marshal data")
    assert read_log(path, marshal.load) == Log({}, whole=False)
    assert read_log(tmp_path / "missing", marshal.load) == Log({}, whole=False)


def test_a_read_only_cache_is_no_error(tmp_path: Path) -> None:
    blocked = tmp_path / "file"
    blocked.write_text("a file where the cache folder should be")
    save(blocked / "memo.pickle", Log(), {"a": 1})
    assert blocked.read_text().startswith("a file")
