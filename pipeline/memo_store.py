"""The memos' files under `.cache/`, and the writing of generated files into the docs folder.

A memo (memo.py) is kept between builds as one pickle. The data files' memo holds the largest
values of the build, ~170 MB at a year's scale (hardware.json alone is 94 MB), and unpickling it
whole took 0.4 s of every build. Large files are therefore kept apart, each once, under
`.cache/files/` by the digest of its bytes; the pickle names them (`StoredFile` once loaded), and
they are read only to be compared with the published file, which is then hard-linked into the
docs folder (mkdocs links it on into the site, render/mkdocs_site.py): unchanged, nothing is
written or copied.
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
from pipeline.problems import BuildError

LINK_MIN_BYTES = 64 * 1024
"""Smaller values stay in the memo's pickle: a file each would cost more than it saves."""


@dataclass(frozen=True)
class _Kept:
    """A stored file as the memo's pickle names it: by digest, so the cache folder can move."""

    digest: str
    size: int


@dataclass(frozen=True)
class StoredFile:
    """A generated file's bytes, kept in the cache folder rather than in memory."""

    path: Path
    size: int

    def read_bytes(self) -> bytes:
        try:
            return self.path.read_bytes()
        except OSError as err:
            raise _gone(self, err) from None

    def head(self, size: int) -> bytes:
        """Return the first `size` bytes (a CSV's header, without reading 40 MB)."""
        try:
            with self.path.open("rb") as f:
                return f.read(size)
        except OSError as err:
            raise _gone(self, err) from None


def _gone(stored: StoredFile, err: OSError) -> BuildError:
    # Another build pruned it between loading the memo and writing (builds take the lock only
    # to write), or the cache was cleared by hand: nothing is half-written, building again works.
    return BuildError(f"the build cache changed while this build ran ({stored.path.name}: "
                      f"{err.strerror}); run the build again")


def is_large(path: str, body: bytes) -> bool:
    """Is this generated file kept and linked rather than written? Pages never are: their
    published form is HTML, not their Markdown."""
    return len(body) >= LINK_MIN_BYTES and not path.endswith(".md")


def load_memo(path: Path | None, files_dir: Path | None = None) -> Memo:
    """Return the values an earlier build kept in `path` (none when absent or unreadable).

    Stored files are found in `files_dir`; a value naming one that is gone (the cache was
    pruned by hand) is dropped, so it is computed again."""
    try:
        found = pickle.loads(path.read_bytes()) if path else {}
    except (OSError, pickle.UnpicklingError, EOFError, AttributeError, ImportError, TypeError,
            ValueError):
        found = {}
    if not isinstance(found, dict):
        return Memo()
    if files_dir is None:
        return Memo({k: v for k, v in found.items() if not _names_stored(v)})
    located = {key: _located(value, files_dir) for key, value in found.items()}
    return Memo({key: value for key, value in located.items() if value is not None})


def _names_stored(value: Any) -> bool:
    return isinstance(value, dict) and any(isinstance(v, _Kept) for v in value.values())


def _located(value: Any, files_dir: Path) -> Any:
    """Return `value` with its kept files as `StoredFile`s, or None if one is missing."""
    if not _names_stored(value):
        return value
    out = {}
    for name, body in value.items():
        if isinstance(body, _Kept):
            body = StoredFile(files_dir / body.digest, body.size)
            try:
                if body.path.stat().st_size != body.size:
                    return None
            except OSError:
                return None
        out[name] = body
    return out


def save_memo(path: Path | None, memo: Memo, files_dir: Path | None = None) -> None:
    """Keep the values this build used for the next, when they changed (written aside, then
    renamed, so a killed build leaves the old file or the new one).

    With `files_dir`, a value that maps paths to bytes has each large file stored there by
    digest (`StoredFile`), and files no kept value names any more are deleted."""
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
    if not isinstance(value, dict):
        return value
    out = {}
    for name, body in value.items():
        if isinstance(body, bytes) and is_large(name, body):
            body = store_file(files_dir, body)
        out[name] = _Kept(body.path.name, body.size) if isinstance(body, StoredFile) else body
    return out


def store_file(files_dir: Path, body: bytes) -> StoredFile:
    """Return `body` kept under `files_dir` by its digest (written once, whole, then renamed)."""
    target = files_dir / hashlib.sha256(body).hexdigest()
    if not (target.is_file() and target.stat().st_size == len(body)):
        files_dir.mkdir(parents=True, exist_ok=True)
        fd, tmp = tempfile.mkstemp(dir=files_dir, prefix=".tmp-")
        with os.fdopen(fd, "wb") as f:
            f.write(body)
        os.replace(tmp, target)
    return StoredFile(target, len(body))


def _prune(files_dir: Path, kept: dict[str, Any]) -> None:
    names = {v.digest for value in kept.values() if isinstance(value, dict)
             for v in value.values() if isinstance(v, _Kept)}
    for stale in files_dir.glob("*") if files_dir.is_dir() else ():
        if stale.name not in names:
            stale.unlink(missing_ok=True)


def write_or_link(target: Path, body: bytes | StoredFile, published: Path) -> None:
    """Write a generated file into the docs folder, linking the published one when it holds
    these very bytes.

    Any file but a page is published at its own path. On this kind of disk writing is what
    costs: 1,500 files of 20 KB took a second to write and 10 ms to read back, so comparing first
    is cheap. A `StoredFile` is read, not linked: a file of the cache never becomes a file of the
    site, so nothing done to `public/` can change what a later build reuses. Linking fails
    across file systems; then the bytes are written."""
    if isinstance(body, StoredFile):
        body = body.read_bytes()
    if not target.name.endswith(".md"):  # a page is published as HTML, not as its Markdown
        try:
            if published.stat().st_size == len(body) and published.read_bytes() == body:
                os.link(published, target)
                return
        except OSError:
            pass  # not published yet, or another file system: write it
    target.write_bytes(body)
