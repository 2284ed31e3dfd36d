"""Parsed source files, kept between builds as the store's load stage (store.py), by content.

Parsing YAML is most of loading the sources: at a year's scale (sources/prices/ alone is ~30 MB of
YAML) it took seconds, and a rebuild after one new edition would pay it again for files that did
not change. What a file parses to (load/parse.py: a validated model with its line map, a table) is
kept under the digest of its Parse (bytes, what it was read as, what else the parse reads); the
store adds the load stage's code, so an edited file, a changed model or parser is parsed afresh.
Only what parsed without problems is kept: an editor always sees every problem again. The store
keeps and prunes these with every other stage's values. I/O at the edge: the pure core never
sees it.
"""

from __future__ import annotations

import hashlib
import io
import pickle
from collections.abc import Callable, Iterator, Mapping, Sequence
from typing import Any

from pipeline.cache.store import Store
from pipeline.load.parse import Parse, parse_file
from pipeline.models.sourced import Sourced
from pipeline.problems import Problem

STAGE = "load"
PARSER = "pipeline.load.parse"
"""The module whose parse_file makes every parsed value: they are kept by its code."""


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
    """Parsed files, kept in `store`'s load stage (nothing kept without a store's folder).

    A parsed value is kept as its pickle, unpickled only when a build reads that file: the store
    reads a stage's whole file at once, and a file's line map stays a blob until asked for."""

    def __init__(self, store: Store | None = None) -> None:
        self.store = store if store is not None else Store(None, {})
        self._file_keys: dict[str, str] = {}
        self.hits = 0
        self.misses = 0

    def key(self, job: Parse) -> str:
        """Return the key of a parse: the load stage's code, what the bytes are read as, the
        file's name, the other values the parse reads (by their repr, the same in every process)
        and the bytes."""
        # The code is part of this key, not only of the store's: the hardware part is keyed by
        # these keys (keys.hardware_key) in place of the rows a changed parser would change.
        code = self.store.code(STAGE, PARSER)
        head = f"{code}\0{job.kind}\0{job.name}\0{job.context!r}\0"
        key = hashlib.sha256(head.encode() + job.data).hexdigest()
        self._file_keys[job.name] = key
        return key

    def file_key(self, name: str) -> str | None:
        """Return the key the file `name` was last read under by this cache, if it was."""
        return self._file_keys.get(name)

    def derived(self, name: str, what: str, compute: Callable[[], Any]) -> Any:
        """Return `compute()`, a value derived from the file `name` as this cache read it, kept
        beside the file's value under `what` (none is kept for a file it did not read)."""
        key = self._file_keys.get(name)
        if key is None:
            return compute()
        return self.store.cached(STAGE, compute, (key, what))

    def derive(self, names: Sequence[str], compute: Callable[[], Any]) -> Any:
        """Return `compute()`, a value of the files `names` as this cache read them, kept by
        their keys and `compute`'s code (computed when one was not read through this cache)."""
        keys = [self._file_keys.get(name) for name in names]
        if None in keys:
            return compute()
        return self.store.cached(STAGE, compute, ("derived", keys))

    def parse(self, job: Parse) -> tuple[Any, list[Problem]]:
        """Return what parse_file gives for `job`, or the value kept from an earlier run (with no
        problems: only a value parsed without any is kept, so an editor sees every problem
        again). A parse that raises keeps nothing."""
        inputs = (self.key(job),)
        kept = self.store.get(STAGE, inputs, by=PARSER)
        if kept is not None:
            try:
                value = pickle.loads(kept)
            except (pickle.UnpicklingError, EOFError, AttributeError, ImportError, TypeError,
                    ValueError):
                value = None  # kept by other code: parsed again, and kept anew
            if value is not None:
                self.hits += 1
                return value, []
        self.misses += 1
        value, problems = parse_file(job)
        if value is not None and not problems:
            self.store.put(STAGE, inputs, _dumps(value), by=PARSER)
        return value, problems
