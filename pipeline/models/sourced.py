"""Value types of loaded sources: a validated model with the file it came from, and an entry with
its resolved id. Every stage reads these; only load/ makes them."""

from __future__ import annotations

from collections.abc import Mapping
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
    """The line of each value (load/yaml_lines.Lines), for problems."""


@dataclass(frozen=True)
class CuratedEntry:
    """An entry with its resolved id and its file."""

    id: str
    entry: Entry
    path: str
    lines: Mapping[tuple, int] = field(default_factory=dict, repr=False, compare=False)
    """The line of each value of its file (load/yaml_lines.Lines), for problems."""


def line_of(lines: Mapping[tuple, int], loc: tuple) -> int | None:
    """Return the line of the deepest known value on the way to `loc` (a path of keys and
    list positions into the file, as `Sourced.lines` holds them)."""
    for n in range(len(loc), -1, -1):
        if loc[:n] in lines:
            return lines[loc[:n]]
    return None
