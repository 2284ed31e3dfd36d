"""The schemas of every kind of source file, one module per kind, and the registry of kinds.

The registry is what `brief new`, `brief schema` and the schema tests walk: adding a kind of source
file (prices, hardware, benchmarks …) means adding one `SourceKind` to `KINDS`, nothing else.
"""

from __future__ import annotations

from dataclasses import dataclass

from pipeline.models.base import SourceModel
from pipeline.models.entries import Entry
from pipeline.models.series import Series


@dataclass(frozen=True)
class SourceKind:
    """One kind of source file: its schema, where its files live, where `brief new` puts one."""

    name: str
    """The word used on the command line and in `schemas/<name>.schema.json`."""
    model: type[SourceModel]
    """The pydantic model every file of this kind must satisfy."""
    glob: str
    """Where the files are, relative to the repository root (`Path.glob` syntax)."""
    new_path: str
    """Where `brief new` writes a file, relative to the root; may use `{date}` (a date, format
    codes allowed: `{date:%Y}`) and `{slug}`."""
    prefill: tuple[str, ...] = ()
    """Top-level fields `brief new` fills from its options (`date`), instead of leaving empty."""

    @property
    def schema_file(self) -> str:
        """Return the path of this kind's JSON Schema, relative to the repository root."""
        return f"schemas/{self.name}.schema.json"


KINDS: dict[str, SourceKind] = {kind.name: kind for kind in (
    SourceKind("entry", Entry, "sources/entries/**/*.yaml",
               "sources/entries/{date:%Y}/{date:%m-%d}-{slug}.yaml", prefill=("date",)),
    SourceKind("series", Series, "sources/editions.yaml", "sources/editions.yaml"),
)}

__all__ = ["KINDS", "SourceKind", "SourceModel"]
