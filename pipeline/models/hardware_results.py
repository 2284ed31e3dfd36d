"""Value types of the loaded hardware sources: the sources with what became of each benchmark
file, and the normalized result rows (one published result on one canonical accelerator). Made by
load/ (tables/hardware.normalize_records turns records into rows); read by every later stage."""

from __future__ import annotations

import datetime as dt
from dataclasses import dataclass

from pipeline.models.hardware import Accelerator, BenchmarkFile, HourlyCost


@dataclass(frozen=True)
class FileReport:
    """What became of one benchmark file's rows."""

    path: str
    schema: str
    total_rows: int
    table_rows: int
    skipped: tuple[tuple[str, int], ...]
    """(reason, rows) for the rows not in the table, most frequent first."""


@dataclass(frozen=True)
class Hardware:
    """The validated hardware sources."""

    accelerators: tuple[Accelerator, ...]
    costs: tuple[HourlyCost, ...]
    files: tuple[BenchmarkFile, ...]
    reports: tuple[FileReport, ...] = ()
    unreadable: tuple[tuple[str, str], ...] = ()
    """(file, why) for each listed benchmark file that could not be read at all."""


@dataclass(frozen=True)
class HardwareRow:
    """One row of the normalized table: a published result on one canonical accelerator."""

    suite: str
    round: str
    result_id: str
    submitter: str
    system: str
    accelerator: str
    accelerator_text: str
    accelerator_count: int
    model: str
    accuracy_target: str
    """`99` or `99.9` (% of the reference model's accuracy), empty when unknown."""
    scenario: str
    division: str
    availability: str
    inferred: bool
    official: bool
    metric: str
    value: float
    units: str
    value_per_accelerator: float
    power_w: float | None
    tokens_per_joule: float | None
    ttft_bound_ms: float | None
    tpot_bound_ms: float | None
    interactivity_tok_s_user: float | None
    isl: int | None
    osl: int | None
    concurrency: int | None
    precision: str
    source_file: str
    row_ref: str
    citation_id: str
    published: dt.date | None
    details_url: str
    platform: str = ""
    """The submitter's name for the system, stable across rounds (MLPerf `Platform`)."""

    @property
    def flags(self) -> tuple[str, ...]:
        """Why the row is not a closed, available, measured, official result (empty when it is)."""
        marks = []
        if self.availability not in ("available", ""):
            marks.append(self.availability)
        if self.division == "open":
            marks.append("open division")
        if self.inferred:
            marks.append("inferred")
        if not self.official:
            marks.append("unofficial")
        return tuple(marks)

    @property
    def is_headline(self) -> bool:
        """Closed (or divisionless), available, measured and official: fit for headline figures."""
        return not self.flags

    @property
    def group_key(self) -> tuple[str, str, str, str, str, str]:
        """(suite, round, model, accuracy target, scenario, division): figures are compared only
        within one group, so never across rounds or accuracy targets."""
        return (self.suite, self.round, self.model, self.accuracy_target, self.scenario,
                self.division)
