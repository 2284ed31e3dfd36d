"""The schemas of every kind of source file, one module per kind, and the registry of kinds.

The registry is what `brief new`, `brief schema` and the schema tests walk: adding a kind of source
file (prices, hardware, benchmarks …) means adding one `SourceKind` to `KINDS`, nothing else.
"""

from __future__ import annotations

from dataclasses import dataclass

from pipeline.models.base import SourceModel
from pipeline.models.entries import Entry
from pipeline.models.hardware import BenchmarksIndex, CostsFile
from pipeline.models.prices import PriceFile
from pipeline.models.series import Series
from pipeline.paths import BENCHMARK_INDEX, ENTRIES, HARDWARE_COSTS, PRICES, SCHEMAS, SERIES


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
    prefill: tuple[tuple[str, str], ...] = ()
    """Fields `brief new` fills from its options instead of leaving empty: (the field's dotted
    key as the file spells it, `date` or `slug`); keys inside a list name no position."""
    appends_to: str | None = None
    """For a single file that holds a list of records (`costs`): `brief new` adds one record at
    the end of that list instead of writing a new file, and prefill keys start with it."""

    @property
    def schema_file(self) -> str:
        """Return the path of this kind's JSON Schema, relative to the repository root."""
        return (SCHEMAS / f"{self.name}.schema.json").as_posix()


KINDS: dict[str, SourceKind] = {kind.name: kind for kind in (
    SourceKind("entry", Entry, (ENTRIES / "**" / "*.yaml").as_posix(),
               (ENTRIES / "{date:%Y}" / "{date:%m-%d}-{slug}.yaml").as_posix(),
               prefill=(("date", "date"),)),
    SourceKind("series", Series, SERIES.as_posix(), SERIES.as_posix()),
    SourceKind("price", PriceFile, (PRICES / "*.yaml").as_posix(), (PRICES / "{slug}.yaml").as_posix(),
               prefill=(("provider", "slug"), ("lists.records.from", "date"),
                        ("lists.records.checked", "date"))),
    SourceKind("cost", CostsFile, HARDWARE_COSTS.as_posix(), HARDWARE_COSTS.as_posix(),
               prefill=(("costs.date", "date"), ("costs.checked", "date")), appends_to="costs"),
    SourceKind("benchmark", BenchmarksIndex, BENCHMARK_INDEX.as_posix(), BENCHMARK_INDEX.as_posix(),
               appends_to="files"),
)}

__all__ = ["KINDS", "SourceKind", "SourceModel"]
