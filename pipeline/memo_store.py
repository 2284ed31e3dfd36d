"""The memos' files under `.cache/`.

A memo (memo.py) is kept between builds as one pickle. The data files' memo holds the largest
values of the build, ~170 MB at a year's scale (hardware.json alone is 94 MB), and unpickling it
whole took 0.4 s of every build, and any change rewrote all of it. Large files are therefore kept
apart, each once, under `.cache/files/` by the digest of its bytes; the pickle names them, and
loading reads them back (a plain read, cheaper than unpickling the same bytes).
"""

from __future__ import annotations

import hashlib
import os
import pickle
import tempfile
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from pipeline.memo import Memo
from pipeline.render.drawing import drawn

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
    try:
        found = pickle.loads(path.read_bytes()) if path else {}
    except (OSError, pickle.UnpicklingError, EOFError, AttributeError, ImportError, TypeError,
            ValueError):
        found = {}
    if not isinstance(found, dict):
        return Memo()
    located = {key: _located(value, files_dir) for key, value in found.items()}
    return Memo({key: value for key, value in located.items() if value is not None})


def _located(value: Any, files_dir: Path | None) -> Any:
    """Return `value` with its kept files read back, or None if one cannot be."""
    if not (isinstance(value, dict) and any(isinstance(v, _Kept) for v in value.values())):
        return value
    out = {}
    for name, body in value.items():
        if isinstance(body, _Kept):
            kept = body
            try:
                body = (files_dir / kept.digest).read_bytes() if files_dir else b""
            except OSError:
                return None
            if len(body) != kept.size:
                return None
        out[name] = body
    return out


def save_memo(path: Path | None, memo: Memo, files_dir: Path | None = None) -> None:
    """Keep the values this build used for the next, when they changed (written aside, then
    renamed, so a killed build leaves the old file or the new one).

    With `files_dir`, a value that maps paths to bytes has each large file kept there by digest,
    and files no kept value names any more are deleted."""
    if path is None or not memo.changed:
        return
    try:
        used = memo.used
        if files_dir is not None:
            used = {key: _stored(value, files_dir) for key, value in used.items()}
            _prune(files_dir, used)
        path.parent.mkdir(parents=True, exist_ok=True)
        scratch = path.with_suffix(f".{os.getpid()}.tmp")
        with scratch.open("wb") as f:  # streamed: a large memo is not held twice in memory
            pickle.dump(used, f, protocol=pickle.HIGHEST_PROTOCOL)
        os.replace(scratch, path)
    except OSError:
        pass  # a read-only cache: this build still succeeds, the next computes again


def _stored(value: Any, files_dir: Path) -> Any:
    # A chart drawn by the build's worker is kept as its bytes, like any other file.
    if not isinstance(value, dict):
        return drawn(value)
    bodies = {name: drawn(body) for name, body in value.items()}
    return {name: store_file(files_dir, body)
            if isinstance(body, bytes) and len(body) >= STORE_MIN_BYTES else body
            for name, body in bodies.items()}



def store_file(files_dir: Path, body: bytes) -> _Kept:
    """Return `body` kept under `files_dir` by its digest (written once, whole, then renamed)."""
    kept = _Kept(hashlib.sha256(body).hexdigest(), len(body))
    target = files_dir / kept.digest
    if not (target.is_file() and target.stat().st_size == len(body)):
        files_dir.mkdir(parents=True, exist_ok=True)
        fd, tmp = tempfile.mkstemp(dir=files_dir, prefix=".tmp-")
        with os.fdopen(fd, "wb") as f:
            f.write(body)
        os.replace(tmp, target)
    return kept


def _prune(files_dir: Path, kept: dict[str, Any]) -> None:
    names = {v.digest for value in kept.values() if isinstance(value, dict)
             for v in value.values() if isinstance(v, _Kept)}
    for stale in files_dir.glob("*") if files_dir.is_dir() else ():
        if stale.name not in names:
            stale.unlink(missing_ok=True)
