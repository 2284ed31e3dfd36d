"""Parsed source files kept between builds, by content hash (`.cache/parsed/`).

Parsing YAML is most of loading the sources: at a year's scale (sources/prices/ alone is ~30 MB of
YAML) it took seconds, and a rebuild after one new edition would pay it again for files that did
not change. What a file parses to (load/parse.py: a validated model with its line map, a table) is
kept under the digest of its Parse (bytes, what it was read as, what else the parse reads) and of
the code that reads it, so an edited file, a changed model or parser is parsed afresh. Only what
parsed without problems is kept: an editor always sees every problem again.
Entries are written whole (temporary file, then rename); entries no build used are pruned after a
good build. This module is I/O at the edge: the pure core never sees it.
"""

from __future__ import annotations

import hashlib
import io
import pickle
from collections.abc import Callable, Iterator, Mapping
from pathlib import Path
from typing import Any

from pipeline.cache.code import stage_code
from pipeline.cache.stamp import CHECKOUT
from pipeline.load.parse import Parse, parse_file
from pipeline.models.sourced import Sourced
from pipeline.problems import Problem
from pipeline.whole_files import write_whole


class _LazyLines(Mapping[tuple, int]):
    """A kept file's line map, unpickled when first read: a kept file has passed its own checks,
    so most builds never ask for a line, and the year's price files have 5 MB of them (0.07 s
    a build to unpickle)."""

    def __init__(self, blob: bytes) -> None:
        self._blob = blob
        self._lines: dict[tuple, int] | None = None

    def _read(self) -> dict[tuple, int]:
        if self._lines is None:
            self._lines = pickle.loads(self._blob)
        return self._lines

    def __getitem__(self, loc: tuple) -> int:
        return self._read()[loc]

    def __contains__(self, loc: object) -> bool:
        return loc in self._read()

    def __iter__(self) -> Iterator[tuple]:
        return iter(self._read())

    def __len__(self) -> int:
        return len(self._read())

    def __reduce__(self) -> tuple:
        return type(self), (self._blob,)


class _Pickler(pickle.Pickler):
    """Pickles a sourced value's line map as a blob read back on first use (_LazyLines)."""

    def reducer_override(self, obj: object) -> object:
        if type(obj) is Sourced and not isinstance(obj.lines, _LazyLines):
            blob = pickle.dumps(dict(obj.lines), protocol=pickle.HIGHEST_PROTOCOL)
            return Sourced, (obj.model, obj.path, _LazyLines(blob))
        return NotImplemented


def _dumps(value: Any) -> bytes:
    out = io.BytesIO()
    _Pickler(out, protocol=pickle.HIGHEST_PROTOCOL).dump(value)
    return out.getvalue()


class ParseCache:
    """Parsed files under `folder`, or nothing kept when `folder` is None. `code` is the
    digest of the code that reads them (cache/code.py, the load stage's), part of every key."""

    def __init__(self, folder: Path | None, code: str | None = None) -> None:
        self.folder = folder
        self.code = code if code is not None else stage_code(CHECKOUT).load
        self._file_keys: dict[str, str] = {}
        self.used: set[str] = set()
        self.hits = 0
        self.misses = 0

    def key(self, job: Parse) -> str:
        """Return the key of a parse: the code, what the bytes are read as, the file's name, the
        other values the parse reads (by their repr, the same in every process) and the bytes."""
        head = f"{self.code}\0{job.kind}\0{job.name}\0{job.context!r}\0"
        key = hashlib.sha256(head.encode() + job.data).hexdigest()
        self._file_keys[job.name] = key
        return key

    def file_key(self, name: str) -> str | None:
        """Return the key the file `name` was last read under by this cache, if it was."""
        return self._file_keys.get(name)

    def files_key(self) -> str:
        """Return the digest of every file this cache read, each by its key."""
        return hashlib.sha256(repr(sorted(self._file_keys.items())).encode()).hexdigest()

    def derived(self, name: str, what: str, compute: Callable[[], Any]) -> Any:
        """Return `compute()`, a value derived from the file `name` as this cache read it, kept
        beside the file's entry under `what` (none is kept for a file it did not read)."""
        key = self._file_keys.get(name)
        if key is None:
            return compute()
        kept = self.get(f"{key}-{what}")
        if kept is not None:
            return kept
        value = compute()
        self.put(f"{key}-{what}", value)
        return value

    def get(self, key: str) -> Any | None:
        if self.folder is None:
            return None
        try:
            value = pickle.loads((self.folder / f"{key}.pickle").read_bytes())
        except (OSError, pickle.UnpicklingError, EOFError, AttributeError, ImportError,
                TypeError, ValueError):
            self.misses += 1
            return None
        self.used.add(key)
        self.hits += 1
        return value

    def parse(self, job: Parse) -> tuple[Any, list[Problem]]:
        """Return what parse_file gives for `job`, or the value kept from an earlier run (with no
        problems: only a value parsed without any is kept, so an editor sees every problem
        again). A parse that raises keeps nothing."""
        key = self.key(job)
        kept = self.get(key)
        if kept is not None:
            return kept, []
        value, problems = parse_file(job)
        if value is not None and not problems:
            self.put(key, value)
        return value, problems

    def put(self, key: str, value: Any) -> None:
        if self.folder is None:
            return
        self.used.add(key)
        try:
            write_whole(self.folder / f"{key}.pickle", _dumps(value))
        except OSError:
            pass  # a read-only checkout still builds; it only parses every time

    def prune(self) -> None:
        """Delete the entries this run did not use (call after loading every source)."""
        if self.folder is None or not self.folder.is_dir():
            return
        try:
            for path in self.folder.glob("*.pickle"):
                if path.stem not in self.used:
                    path.unlink(missing_ok=True)
        except OSError:
            pass  # a read-only cache keeps what it has


NO_CACHE = ParseCache(None)
