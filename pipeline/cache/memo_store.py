"""The memos' files under `.cache/`.

A memo (memo.py) is kept between builds as an append-only file of pickled frames
(append_log.py): a new edition adds a few values to memos of tens of MB.

The data files' memo holds the largest values of the build, ~170 MB at a year's scale
(hardware.json alone is 94 MB); unpickling it whole took 0.4 s of every build, and any change
rewrote all of it. Its large files are therefore kept apart, each once, under `.cache/files/` by
the digest of their bytes; the pickle names them, and loading opens them, to be read only when
the site needs their bytes (render/bodies.py DiskBody). Its own file is rewritten whole: it is
small, changes rarely, and pruning the kept files needs every live value's file name.
"""

from __future__ import annotations

import hashlib
import pickle
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from pipeline.cache.append_log import Log, read_log, save_log
from pipeline.cache.memo import Memo
from pipeline.publish.output import DiskBody
from pipeline.render.drawing import drawn
from pipeline.whole_files import write_whole

STORE_MIN_BYTES = 64 * 1024
"""Smaller values stay in the memo's pickle: a file each would cost more than it saves."""


@dataclass(frozen=True)
class _Kept:
    """A stored file as the memo's pickle names it: by digest, so the cache folder can move."""

    digest: str
    size: int


def load_memo(path: Path | None, files_dir: Path | None = None) -> Memo:
    """Return the values an earlier build kept in `path` (none when absent or unreadable).

    Kept files are read back from `files_dir`; a value naming one that is gone (the cache was
    pruned by hand, or by another build) is dropped, so it is computed again."""
    log = read_log(path, pickle.loads)
    if files_dir is None:
        return Memo(log.values, origin=log)
    located = {key: _located(value, files_dir) for key, value in log.values.items()}
    return Memo({key: value for key, value in located.items() if value is not None})


def close_files(memo: Memo) -> None:
    """Close the kept files a loaded memo holds open (call when the build is done with them)."""
    for value in memo.known.values():
        for body in value.values() if isinstance(value, dict) else ():
            if isinstance(body, DiskBody):
                body.close()


def _located(value: Any, files_dir: Path) -> Any:
    """Return `value` with its kept files opened, or None if one cannot be."""
    if not (isinstance(value, dict) and any(isinstance(v, _Kept) for v in value.values())):
        return value
    out = {}
    for name, body in value.items():
        if isinstance(body, _Kept):
            try:
                body = DiskBody(files_dir / body.digest, body.digest, body.size)
            except OSError:
                return None
        out[name] = body
    return out


def save_memo(path: Path | None, memo: Memo, files_dir: Path | None = None,
              apart_from: int = STORE_MIN_BYTES) -> dict[str, str]:
    """Keep the values this build used for the next: appended to the memo's file, or the file
    rewritten (aside, then renamed) when it is mostly dead values (append_log.py).

    With `files_dir`, a value that maps paths to bytes has each large file kept there by digest,
    files no kept value names any more are deleted, and the file is rewritten whenever a value
    changed. Returns the digest of each file kept there, by its path in the value (the site's):
    the next build loads those as DiskBody."""
    if files_dir is None:
        save_log(path, memo.origin if isinstance(memo.origin, Log) else Log(), memo.used, _dump)
        return {}
    if path is None:
        return {}
    if not memo.changed:  # every large file was loaded, and is kept as it was
        return {name: body.digest for value in memo.used.values() if isinstance(value, dict)
                for name, body in value.items() if isinstance(body, DiskBody)}
    try:
        used = {key: _stored(value, files_dir, apart_from) for key, value in memo.used.items()}
        _prune(files_dir, used)
    except OSError:
        return {}  # a read-only cache: this build still succeeds, the next computes again
    save_log(path, Log(), used, _dump)  # a Log() read nothing whole: the file is rewritten
    return {name: kept.digest for value in used.values() if isinstance(value, dict)
            for name, kept in value.items() if isinstance(kept, _Kept)}


def _dump(values: dict[str, Any]) -> bytes:
    # A drawing among the values pickles as its bytes (render/drawing.py).
    return pickle.dumps(values, protocol=pickle.HIGHEST_PROTOCOL)


def _stored(value: Any, files_dir: Path, apart_from: int) -> Any:
    # A chart drawn by the build's worker is kept as its bytes, like any other file.
    if not isinstance(value, dict):
        return drawn(value)
    bodies = {name: drawn(body) for name, body in value.items()}
    return {name: _Kept(body.digest, body.size) if isinstance(body, DiskBody)
            else store_file(files_dir, body)
            if isinstance(body, bytes) and len(body) >= apart_from else body
            for name, body in bodies.items()}


def store_file(files_dir: Path, body: bytes) -> _Kept:
    """Return `body` kept under `files_dir` by its digest (written once, whole, then renamed)."""
    kept = _Kept(hashlib.sha256(body).hexdigest(), len(body))
    target = files_dir / kept.digest
    if not (target.is_file() and target.stat().st_size == len(body)):
        write_whole(target, body)
    return kept


def _prune(files_dir: Path, kept: dict[str, Any]) -> None:
    names = {v.digest for value in kept.values() if isinstance(value, dict)
             for v in value.values() if isinstance(v, _Kept)}
    for stale in files_dir.glob("*") if files_dir.is_dir() else ():
        if stale.name not in names:
            stale.unlink(missing_ok=True)
