"""The one store of what stages computed, kept between builds under `.cache/store/`.

Every value a build reuses goes through `Store.cached(stage, fn, inputs)`: its key (`key`) is
the digest of the stage's name, of the code `fn` runs (its module and what that imports, with the
files the stage reads besides code: cache/code.py) and of `inputs`, what the value is computed
from (digests, cache/keys.py), so a value found under its key is the value `fn()` would give.
Each stage's values sit in one append-only file (append_log.py) named by the stage and what it
reads besides code (templates, library versions): a new edition appends a few values to files of
tens of MB.

Large bytes (a data file of 94 MB at a year's scale) are kept apart, each once, by the digest
of their bytes under `blobs/`: a value that maps paths to bytes names them there, and loading
opens them, to be read only when the site needs their bytes (disk_bodies.py DiskBody).

`prune`, after a good build, is the one place that drops what no build needs: the files of
other code versions, the values this build did not use (a file is rewritten with only those once
a quarter of it is dead) and the blobs no value names. A read-only or full cache is no error:
the next build computes again. This module is I/O at the edge: the stages never see it.
"""

from __future__ import annotations

import functools
import hashlib
import pickle
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Protocol, TypeVar, runtime_checkable

from pipeline.cache.append_log import Log, read_log, save_log
from pipeline.disk_bodies import DiskBody
from pipeline.whole_files import write_whole

T = TypeVar("T")

BLOB_MIN_BYTES = 64 * 1024
"""Smaller bytes stay in their stage's file: a file each would cost more than it saves."""


@runtime_checkable
class Pending(Protocol):
    """A value still being made when it is handed to the store (a chart a worker is drawing,
    render/chart_image.py): kept as what `result()` gives, so the store needs to know no stage."""

    def result(self) -> Any: ...


def settled(value: Any) -> Any:
    """Return `value`, or what it stands for once made if it is still being made."""
    return value.result() if isinstance(value, Pending) else value


@dataclass(frozen=True)
class Blob:
    """Bytes kept under `blobs/`, as a stage's file names them: by digest, so the cache folder
    can move."""

    digest: str
    size: int


def key(stage: str, code: str, inputs: tuple) -> str:
    """Return the key of a value of `stage`, computed by code of digest `code` from `inputs`
    (digests or small values, by their repr, the same in every process)."""
    return hashlib.sha256(f"{stage}\0{code}\0{inputs!r}".encode()).hexdigest()


def module_of(fn: Callable[..., Any]) -> str:
    """Return the module of the function `fn` calls (through partials and bound methods)."""
    while isinstance(fn, functools.partial):
        fn = fn.func
    return getattr(fn, "__func__", fn).__module__


class Store:
    """The values of every stage under `folder` (nothing kept when None). `code` gives the
    digest of the code of a stage's value by the stage and the module computing it
    (cache/code.py CodeDigests), or is a digest by stage alone; `blob_min_bytes`: bytes this
    large or larger are kept apart."""

    def __init__(self, folder: Path | None,
                 code: Callable[[str, str], str] | Mapping[str, str],
                 blob_min_bytes: int = BLOB_MIN_BYTES,
                 ignored: frozenset[str] = frozenset()) -> None:
        self.folder = folder
        self._code = code
        self.ignored = ignored
        """Stages whose kept values are not read (stamp.reuse_off), each computed afresh."""
        self.blob_min_bytes = blob_min_bytes
        self._logs: dict[str, Log] = {}
        self._known: dict[str, dict[str, Any]] = {}
        self.used: dict[str, dict[str, Any]] = {}
        self.computed: dict[str, int] = {}

    def code(self, stage: str, module: str) -> str:
        """Return the digest of the code of a value of `stage` computed by `module`."""
        if isinstance(self._code, Mapping):
            return self._code.get(stage, "")
        return self._code(stage, module)

    def path(self, stage: str) -> Path | None:
        """Return the file of `stage`'s values (by what the stage reads besides code)."""
        if self.folder is None:
            return None
        files = (self._code.get(stage, "") if isinstance(self._code, Mapping)
                 else getattr(self._code, "files", lambda stage: "")(stage))
        return self.folder / f"{stage}-{files[:16]}.log"

    def known(self, stage: str) -> dict[str, Any]:
        """Return the values an earlier build kept for `stage`, read when first asked for."""
        if stage not in self._known:
            log = read_log(None if stage in self.ignored else self.path(stage), pickle.loads)
            self._logs[stage] = log
            located = {k: _located(v, self.folder / "blobs") for k, v in log.values.items()}
            self._known[stage] = {k: v for k, v in located.items() if v is not None}
            self.used[stage], self.computed[stage] = {}, 0
        return self._known[stage]

    def key(self, stage: str, inputs: tuple, by: str) -> str:
        """Return the key of the value of `stage` computed by module `by` from `inputs`."""
        return key(stage, self.code(stage, by), inputs)

    def has(self, stage: str, inputs: tuple, by: Callable[..., Any]) -> bool:
        """Is a value of `stage` computed by `by` from `inputs` kept?"""
        return self.key(stage, inputs, module_of(by)) in self.known(stage)

    def cached(self, stage: str, fn: Callable[[], T], inputs: tuple,
               by: Callable[..., Any] | None = None) -> T:
        """Return the value of `stage` computed from `inputs`: kept, or `fn()` now. It is kept
        by the code of `fn`'s module, or of `by`'s when `fn` only hands the work on (to a
        chart worker)."""
        known, k = self.known(stage), self.key(stage, inputs, module_of(by or fn))
        used = self.used[stage]
        if k not in used:
            if k in known:
                used[k] = known[k]
            else:
                used[k] = fn()
                self.computed[stage] += 1
        return used[k]

    def get(self, stage: str, inputs: tuple, by: str) -> Any | None:
        """Return the value of `stage` computed by module `by` from `inputs` if kept (None if
        not)."""
        known, k = self.known(stage), self.key(stage, inputs, by)
        if k in self.used[stage]:
            return self.used[stage][k]
        if k in known:
            self.used[stage][k] = known[k]
            return known[k]
        return None

    def put(self, stage: str, inputs: tuple, value: Any, by: str) -> None:
        """Keep `value` as `stage`'s value computed by module `by` from `inputs` (one computed
        elsewhere: a page mkdocs rendered)."""
        self.known(stage)
        self.used[stage][self.key(stage, inputs, by)] = value
        self.computed[stage] += 1

    def is_empty(self, stage: str) -> bool:
        """Is nothing kept for `stage` under its current code (a build that computes it all)?"""
        path = self.path(stage)
        return path is None or not path.is_file()

    def keep(self) -> dict[str, str]:
        """Keep the values this build used for the next one; return the digest of each blob a
        kept value names, by its path in the value (the site's): the next build links those."""
        if self.folder is None:
            return {}
        blobs = self.folder / "blobs"
        kept: dict[str, str] = {}
        for stage, used in self.used.items():
            try:
                stored = {k: _stored(v, blobs, self.blob_min_bytes) for k, v in used.items()}
            except OSError:
                continue  # a full or read-only cache: the next build computes again
            self.used[stage] = stored  # as kept: prune() keeps the blobs they name
            save_log(self.path(stage), self._logs[stage], stored, _dump)
            kept |= {name: blob.digest for value in stored.values() if isinstance(value, dict)
                     for name, blob in value.items() if isinstance(blob, Blob)}
        return kept

    def prune(self) -> None:
        """Delete what no build of this code needs: the files of stages this build did not
        use or of other code versions, and the blobs no value it used names (call after keep,
        once the site is swapped in)."""
        if self.folder is None or not self.folder.is_dir():
            return
        current = {self.path(stage).name for stage in self.used}
        named = {blob_name(v) for used in self.used.values() for value in used.values()
                 if isinstance(value, dict) for v in value.values()} - {None}
        try:
            for path in self.folder.glob("*.log"):
                if path.name not in current:
                    path.unlink(missing_ok=True)
            for path in (self.folder / "blobs").glob("*"):
                if path.name not in named:
                    path.unlink(missing_ok=True)
        except OSError:
            pass  # a read-only cache keeps what it has

    def close(self) -> None:
        """Close the blobs the kept values hold open (call when the build is done with them)."""
        for known in self._known.values():
            for value in known.values():
                for body in value.values() if isinstance(value, dict) else ():
                    if isinstance(body, DiskBody):
                        body.close()


def blob_name(value: Any) -> str | None:
    """Return the name under `blobs/` of a kept value's body, if it is kept there."""
    if isinstance(value, (Blob, DiskBody)):
        return value.digest
    return None


def _dump(values: dict[str, Any]) -> bytes:
    return pickle.dumps(values, protocol=pickle.HIGHEST_PROTOCOL)


def _located(value: Any, blobs: Path) -> Any:
    """Return `value` with its blobs opened, or None if one cannot be (pruned by hand, or by
    another build): the value is then computed again."""
    if not (isinstance(value, dict) and any(isinstance(v, Blob) for v in value.values())):
        return value
    out = {}
    for name, body in value.items():
        if isinstance(body, Blob):
            try:
                body = DiskBody(blobs / body.digest, body.digest, body.size)
            except OSError:
                return None
        out[name] = body
    return out


def _stored(value: Any, blobs: Path, apart_from: int) -> Any:
    # A chart drawn by the build's worker is kept as its bytes, like any other file.
    if not isinstance(value, dict):
        return settled(value)
    bodies = {name: settled(body) for name, body in value.items()}
    return {name: Blob(body.digest, body.size) if isinstance(body, DiskBody)
            else store_blob(blobs, body)
            if isinstance(body, bytes) and len(body) >= apart_from else body
            for name, body in bodies.items()}


def store_blob(blobs: Path, body: bytes) -> Blob:
    """Return `body` kept under `blobs` by its digest (written once, whole, then renamed)."""
    blob = Blob(hashlib.sha256(body).hexdigest(), len(body))
    target = blobs / blob.digest
    if not (target.is_file() and target.stat().st_size == len(body)):
        write_whole(target, body)
    return blob
