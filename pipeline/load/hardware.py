"""Load `sources/hardware/` and `sources/benchmarks/`: the edge where hardware files are read.

Our own YAML (accelerators, costs, the benchmark index) is checked strictly: every problem is an
error with file, field and line. Benchmark files are the publishers' formats: a row that cannot be
read is counted by reason and reported as a warning, and the build goes on (DESIGN.md). A headline
result on an accelerator with no cost is an error: a figure would need it, and $0 is never assumed.
"""

from __future__ import annotations

import datetime as dt
import hashlib
from collections import Counter, UserList
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path

from pipeline.formats.benchmark_record import ReadResult
from pipeline.formats.inferencex import read_inferencex_rows
from pipeline.formats.mlperf import FormatError, read_mlperf_summary
from pipeline.load.read import FRESH, Parses, read_model, rel
from pipeline.load.yaml_lines import line_of
from pipeline.models.hardware import (
    Accelerator,
    AcceleratorsFile,
    BenchmarkFile,
    BenchmarksIndex,
    CostsFile,
    HourlyCost,
)
from pipeline.normalize.accelerators import compiled_patterns
from pipeline.problems import Problem
from pipeline.tables.hardware import (
    ACCELERATORS,
    BENCHMARKS,
    COSTS,
    INDEX,
    FileInfo,
    FileReport,
    Hardware,
    HardwareRow,
    RowsSummary,
    costs_in_force,
    normalize_records,
    rows_missing_cost,
    summarize_rows,
)


def read_benchmark(data: bytes, suite: str, round_: str, info: FileInfo,
                   accelerators: tuple[Accelerator, ...]) -> tuple[list[HardwareRow], FileReport]:
    """Return the table rows of one benchmark file's bytes and what became of every row.

    Raises FormatError when the bytes are not the suite's format at all."""
    read: ReadResult = (read_mlperf_summary(data) if suite == "mlperf-inference"
                        else read_inferencex_rows(data, round_))
    rows, left_out = normalize_records(read.records, info, compiled_patterns(accelerators))
    skipped = read.skipped + left_out
    report = FileReport(info.path, read.schema, read.total_rows, len(rows),
                        tuple(sorted(skipped.items(), key=lambda kv: (-kv[1], kv[0]))))
    return rows, report


def load_hardware(root: Path, cache: Parses = FRESH,
                  ) -> tuple[Hardware | None, Sequence[HardwareRow], list[Problem]]:
    """Return (hardware sources, normalized benchmark rows, problems) for the repository `root`.

    `cache` keeps parsed files and each benchmark file's rows, by content (parse_cache.py)."""
    problems: list[Problem] = []
    accs, found = read_model(root / ACCELERATORS, AcceleratorsFile, root, cache)
    problems += found
    costs, found = read_model(root / COSTS, CostsFile, root, cache)
    problems += found
    index, found = read_model(root / INDEX, BenchmarksIndex, root, cache)
    problems += found
    if accs is None or costs is None or index is None:
        return None, [], problems
    accelerators = tuple(accs.model.accelerators)
    problems += _check_costs(costs.model.costs, {a.name for a in accelerators}, costs.lines)
    parts: list[Sequence[HardwareRow] | Callable[[], Sequence[HardwareRow]]] = []  # by file
    summary = RowsSummary()
    reports: list[FileReport] = []
    read_from: list[str] = []  # the cache keys of the files read: what the rows depend on
    listed: set[Path] = set()
    for i, entry in enumerate(index.model.files):
        path = root / BENCHMARKS / entry.path
        listed.add(path.resolve())
        name = rel(path, root)
        try:
            data = path.read_bytes()
        except OSError as err:
            problems.append(Problem(INDEX, f"files.{i}.path", f"cannot read {name}: "
                                    f"{err.strerror}; fix the path or remove the entry",
                                    line=line_of(index.lines, ("files", i, "path"))))
            continue
        info = FileInfo(name, entry.published, str(entry.source_url), entry.official)
        # The rows depend on the file, how the index describes it and the accelerator names.
        key = cache.key(f"benchmark {entry.suite} {entry.round} {info!r} {accelerators!r}",
                        name, data)
        read_from.append(key)

        def read(data: bytes = data, key: str = key, entry: BenchmarkFile = entry,
                 info: FileInfo = info) -> tuple[Sequence[HardwareRow], FileReport]:
            return cache.get(key) or read_benchmark(data, entry.suite, entry.round, info,
                                                    accelerators)

        # The rows are read only if the build asks for them (LazyRows); the summary and the
        # report, kept beside them, are what every build reads. `read` holds the file's bytes
        # until then, so rows read late are those of this build's bytes even if the cache
        # entry was pruned or the file edited meanwhile.
        kept = cache.get(f"{key}-summary")
        if kept is not None and cache.keep(key):
            report, file_summary = kept
            parts.append(lambda read=read: read()[0])
        else:
            try:
                found_rows, report = read()
            except FormatError as err:
                problems.append(Problem(name, "", f"not read as {entry.suite}: {err}",
                                        severity="warning"))
                continue
            file_summary = summarize_rows(found_rows)
            if not cache.keep(key):
                cache.put(key, (found_rows, report))
            cache.put(f"{key}-summary", (report, file_summary))
            parts.append(found_rows)
        summary |= file_summary
        reports.append(report)
        problems += [Problem(name, "", f"{n} of {report.total_rows} rows not in the table: "
                             f"{reason}", severity="warning") for reason, n in report.skipped]
    for path in sorted((root / BENCHMARKS).rglob("*")):
        if path.is_file() and path.suffix in (".json", ".csv") and path.resolve() not in listed:
            problems.append(Problem(rel(path, root), "", f"not listed in {INDEX}; add it with "
                                    "its suite, round and publication date"))
    rows = LazyRows.of(parts)
    in_force = costs_in_force(costs.model.costs, dt.date.max)
    needed = any(a not in in_force for a in summary.costed_accelerators)
    for row in rows_missing_cost(rows, costs.model.costs, dt.date.max) if needed else ():
        problems.append(Problem(row.source_file, row.row_ref, f"no hourly cost for "
                                f"{row.accelerator} in {COSTS}, but result {row.citation_id} "
                                "needs one for tokens per dollar (a missing cost is never $0); "
                                "add a cost with its source"))
    hardware = Hardware(accelerators, tuple(costs.model.costs), tuple(index.model.files),
                        tuple(reports), hashlib.sha256(" ".join(read_from).encode()).hexdigest(),
                        summary)
    return hardware, rows, problems


class LazyRows(UserList):
    """The benchmark rows: a list whose files' rows are read (from the parse cache, or parsed
    again from the bytes they were loaded from) the first time it is used; until then only the
    files' summaries are in memory (Hardware.rows_summary)."""

    _parts: list | None = None

    @classmethod
    def of(cls, parts: list[Sequence[HardwareRow] | Callable[[], Sequence[HardwareRow]]],
           ) -> LazyRows:
        """Return the rows of `parts`, each a file's rows or what reads them."""
        rows = cls()
        rows._parts = parts
        return rows

    @property  # type: ignore[override]
    def data(self) -> list[HardwareRow]:
        if self._parts is not None:
            self._rows = [row for part in self._parts
                          for row in (part() if callable(part) else part)]
            self._parts = None
        return self._rows

    @data.setter
    def data(self, rows: list[HardwareRow]) -> None:
        self._parts, self._rows = None, rows

    # UserList copies and pickles through its instance dict, where `data` is not.
    def __copy__(self) -> LazyRows:
        return type(self)(self.data)

    def __reduce__(self) -> tuple:
        return type(self), (self.data,)


def _check_costs(costs: list[HourlyCost], known: set[str],
                 lines: Mapping[tuple, int]) -> list[Problem]:
    problems = []
    seen: Counter[tuple] = Counter()
    for i, cost in enumerate(costs):
        line = line_of(lines, ("costs", i, "accelerator"))
        if cost.accelerator not in known:
            problems.append(Problem(COSTS, f"costs.{i}.accelerator", f"unknown accelerator "
                                    f"{cost.accelerator!r}; {ACCELERATORS} has: "
                                    f"{', '.join(sorted(known))}", line=line))
        key = (cost.accelerator, cost.basis, cost.scenario, cost.date)
        seen[key] += 1
        if seen[key] == 2:
            problems.append(Problem(COSTS, f"costs.{i}", f"a second {cost.basis} "
                                    f"({cost.scenario or 'no scenario'}) cost for "
                                    f"{cost.accelerator} on {cost.date.isoformat()}; keep one",
                                    line=line))
    return problems
