"""Parsed source files kept between builds, by content hash (`.cache/parsed/`).

Parsing YAML is most of loading the sources: at a year's scale (sources/prices/ alone is ~30 MB of
YAML) it took seconds, and a rebuild after one new edition would pay it again for files that did
not change. A file's validated model (with its line map) is kept under the digest of its bytes,
what it was read as and the code that reads it, so an edited file, a changed model or parser is
parsed afresh. Only files without problems are kept: an editor always sees every problem again.
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
from pipeline.models.sourced import Sourced
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

    def key(self, kind: str, name: str, data: bytes) -> str:
        """Return the key of a file's bytes read as `kind` (a model's or format's name)."""
        key = hashlib.sha256(f"{self.code}\0{kind}\0{name}\0".encode() + data).hexdigest()
        self._file_keys[name] = key
        return key

    def file_key(self, name: str) -> str | None:
        """Return the key the file `name` was last read under by this cache, if it was."""
        return self._file_keys.get(name)

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

    def checked(self, kind: str, name: str, data: bytes,
                parse: Callable[[], tuple[Any, list]],
                prepare: Callable[[Any], object] | None = None) -> tuple[Any, list]:
        """Return (value, problems) that `parse()` gives for these bytes, or the value kept from
        an earlier run (no problems: only a value parsed without any is kept, so an editor sees
        every problem again). `prepare` is called on a fresh value before it is kept, to fill
        cached properties worth keeping with it."""
        key = self.key(kind, name, data)
        kept = self.get(key)
        if kept is not None:
            return kept, []
        value, problems = parse()
        if value is not None and not problems:
            if prepare is not None:
                prepare(value)
            self.put(key, value)
        return value, problems

    def parsed(self, kind: str, name: str, data: bytes, parse: Callable[[], Any]) -> Any:
        """Return what `parse()` gives for these bytes, kept from an earlier run when there.
        A parse that raises keeps nothing."""
        return self.checked(kind, name, data, lambda: (parse(), []))[0]

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
