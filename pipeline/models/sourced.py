"""Value types of loaded sources: a validated model with the file it came from, and an entry with
its resolved id. Every stage reads these; only load/ makes them."""

from __future__ import annotations

import pickle
from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field
from typing import Generic, TypeVar

from pydantic import BaseModel

from pipeline.models.entries import Entry

M = TypeVar("M", bound=BaseModel)


@dataclass(frozen=True)
class Sourced(Generic[M]):
    """A validated model with where it came from."""

    model: M
    path: str
    """Path relative to the repository root, as links to the source entry use it."""
    lines: Mapping[tuple, int] = field(default_factory=dict, repr=False, compare=False)
    """The line of each value (yamlio.Lines), for problems."""

    def __reduce__(self) -> tuple:
        # The parse cache keeps the line map as bytes read on first use: a kept file has passed
        # its own checks, so most builds never ask for a line, and the year's price files have
        # 5 MB of them (0.07 s a build to unpickle).
        lines = self.lines if isinstance(self.lines, PickledLines) else PickledLines.of(self.lines)
        return type(self), (self.model, self.path, lines)


class PickledLines(Mapping[tuple, int]):
    """A line map kept as its pickle until first read."""

    def __init__(self, blob: bytes) -> None:
        self._blob = blob
        self._lines: dict[tuple, int] | None = None

    @classmethod
    def of(cls, lines: Mapping[tuple, int]) -> PickledLines:
        return cls(pickle.dumps(dict(lines), protocol=pickle.HIGHEST_PROTOCOL))

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


@dataclass(frozen=True)
class CuratedEntry:
    """An entry with its resolved id and its file."""

    id: str
    entry: Entry
    path: str
