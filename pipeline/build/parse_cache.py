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
import pickle
from collections.abc import Callable
from functools import cache
from pathlib import Path
from typing import Any

from pipeline.build.stamp import content_digest
from pipeline.paths import PACKAGE
from pipeline.whole_files import write_whole

CODE = PACKAGE


@cache
def code_digest() -> str:
    """Return a digest of the package's code: a model or parser change invalidates every entry."""
    return content_digest(CODE).hexdigest()


class ParseCache:
    """Parsed files under `folder`, or nothing kept when `folder` is None."""

    def __init__(self, folder: Path | None) -> None:
        self.folder = folder
        self.used: set[str] = set()
        self.hits = 0
        self.misses = 0

    def key(self, kind: str, name: str, data: bytes) -> str:
        """Return the key of a file's bytes read as `kind` (a model's or format's name)."""
        return hashlib.sha256(f"{code_digest()}\0{kind}\0{name}\0".encode() + data).hexdigest()

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

    def keep(self, key: str) -> bool:
        """Mark an entry used without reading it (a later `get` may read it); return whether
        it is there."""
        if self.folder is None or not (self.folder / f"{key}.pickle").is_file():
            return False
        self.used.add(key)
        return True

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
            write_whole(self.folder / f"{key}.pickle",
                        pickle.dumps(value, protocol=pickle.HIGHEST_PROTOCOL))
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
