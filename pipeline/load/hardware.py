"""Load `sources/hardware/` and `sources/benchmarks/`: the edge where hardware files are read.

Our own YAML (accelerators, costs, the benchmark index) is checked strictly: every problem is an
error with file, field and line. Benchmark files are the publishers' formats: a row that cannot be
read is counted by reason; a reason that points at a defect in the file is a warning, and the
build goes on (ARCHITECTURE.md, "Our files and the world's"); rows we do not follow (CPU-only
systems, accelerators not in accelerators.yaml) are only listed on the Hardware page. A headline
result on an accelerator with no cost is an error: a figure would need it, and $0 is never assumed.
"""

from __future__ import annotations

import datetime as dt
from collections import Counter
from collections.abc import Mapping, Sequence
from pathlib import Path

from pipeline.formats.benchmark_record import is_defect
from pipeline.formats.mlperf import FormatError
from pipeline.load.parse import Parse, Parser, parse_file, read_model
from pipeline.load.read import rel
from pipeline.models.hardware import AcceleratorsFile, BenchmarksIndex, CostsFile, HourlyCost
from pipeline.models.hardware_results import FileReport, Hardware, HardwareRow
from pipeline.models.sourced import CuratedEntry, line_of
from pipeline.normalize.accelerators import accelerator_patterns
from pipeline.paths import ACCELERATORS, BENCHMARK_INDEX, BENCHMARKS, HARDWARE_COSTS
from pipeline.problems import Problem
from pipeline.tables.hardware import (
    FileInfo,
    rows_missing_cost,
)
from pipeline.tables.round_quotes import left_out_quotes, stated


def load_hardware(root: Path, parse: Parser = parse_file,
                  ) -> tuple[Hardware | None, Sequence[HardwareRow], list[Problem]]:
    """Return (hardware sources, normalized benchmark rows, problems) for the repository `root`."""
    problems: list[Problem] = []
    accs, found = read_model(root / ACCELERATORS, AcceleratorsFile, root, parse)
    problems += found
    costs, found = read_model(root / HARDWARE_COSTS, CostsFile, root, parse)
    problems += found
    index, found = read_model(root / BENCHMARK_INDEX, BenchmarksIndex, root, parse)
    problems += found
    if accs is None or costs is None or index is None:
        return None, [], problems
    accelerators = tuple(accs.model.accelerators)
    patterns = accelerator_patterns(accelerators)
    problems += _check_costs(costs.model.costs, {a.name for a in accelerators}, costs.lines)
    rows: list[HardwareRow] = []
    reports: list[FileReport] = []
    unreadable: list[tuple[str, str]] = []
    listed: set[Path] = set()
    for i, entry in enumerate(index.model.files):
        path = root / BENCHMARKS / entry.path
        listed.add(path.resolve())
        name = rel(path, root)
        try:
            data = path.read_bytes()
        except OSError as err:
            problems.append(Problem(str(BENCHMARK_INDEX), f"files.{i}.path",
                                    f"cannot read {name}: {err.strerror}; fix the path or "
                                    "remove the entry",
                                    line=line_of(index.lines, ("files", i, "path"))))
            continue
        info = FileInfo(name, entry.published, str(entry.source_url), entry.official)
        # The rows depend on the file, how the index describes it and the accelerators'
        # patterns: all of them in the Parse, so a key made of it changes when any does.
        try:
            (found_rows, report), _ = parse(Parse("benchmark", name, data,
                                                  (entry.suite, entry.round, info, patterns)))
        except FormatError as err:
            problems.append(Problem(name, "", f"not read as {entry.suite}: {err}; its results "
                                    "are left out (the Hardware page lists the file)",
                                    severity="warning"))
            unreadable.append((name, f"not read as {entry.suite}: {err}"))
            continue
        rows += found_rows
        reports.append(report)
        problems += [Problem(name, "", f"{n} of {report.total_rows} rows not in the table: "
                             f"{reason}", severity="warning")
                     for reason, n in report.skipped if is_defect(reason)]
    for path in sorted((root / BENCHMARKS).rglob("*")):
        if path.is_file() and path.suffix in (".json", ".csv") and path.resolve() not in listed:
            problems.append(Problem(rel(path, root), "", f"not listed in {BENCHMARK_INDEX}; add "
                                    "it with its suite, round and publication date"))
    for row in rows_missing_cost(rows, costs.model.costs, dt.date.max):
        problems.append(Problem(row.source_file, row.row_ref, f"no hourly cost for "
                                f"{row.accelerator} in {HARDWARE_COSTS}, but result "
                                f"{row.citation_id} needs one for tokens per dollar (a missing "
                                "cost is never $0); add a cost with its source"))
    hardware = Hardware(accelerators, tuple(costs.model.costs), tuple(index.model.files),
                        tuple(reports), tuple(unreadable))
    return hardware, rows, problems


def _check_costs(costs: list[HourlyCost], known: set[str],
                 lines: Mapping[tuple, int]) -> list[Problem]:
    problems = []
    seen: Counter[tuple] = Counter()
    for i, cost in enumerate(costs):
        line = line_of(lines, ("costs", i, "accelerator"))
        if cost.accelerator not in known:
            problems.append(Problem(str(HARDWARE_COSTS), f"costs.{i}.accelerator",
                                    f"unknown accelerator {cost.accelerator!r}; {ACCELERATORS} has: "
                                    f"{', '.join(sorted(known))}", line=line))
        key = (cost.accelerator, cost.basis, cost.scenario, cost.date)
        seen[key] += 1
        if seen[key] == 2:
            problems.append(Problem(str(HARDWARE_COSTS), f"costs.{i}", f"a second {cost.basis} "
                                    f"({cost.scenario or 'no scenario'}) cost for "
                                    f"{cost.accelerator} on {cost.date.isoformat()}; keep one",
                                    line=line))
    return problems


def undated_round_quotes(entries: Sequence[CuratedEntry], hardware: Hardware,
                         rows: Sequence[HardwareRow]) -> list[Problem]:
    """Return a warning for each curated entry that states a result of a round whose publication
    date is not set in the benchmark index: the index promises that no figure or comparison uses
    such a round, so the entry asks for the date (`brief check --strict` fails). The edition
    says so beside such figures too (compose/round_notes.py); the warning asks for the date."""
    undated = [r for r in rows if r.published is None]
    if not undated:
        return []
    fields = {f"{BENCHMARKS}/{f.path}": i for i, f in enumerate(hardware.files)}
    problems = []
    for c in entries:
        for field in ("headline", "summary"):
            quotes = left_out_quotes(getattr(c.entry, field), undated)
            if not quotes:
                continue
            rounds = "; ".join(
                f"{q.suite} {q.round} ({', '.join(q.citation_ids)}), whose publication date is "
                f"not set in {BENCHMARK_INDEX} (files.{fields.get(q.source_file, '?')}.published)"
                for q in quotes)
            problems.append(Problem(
                c.path, field, f"states {' and '.join(stated(quotes))} from {rounds}: "
                "set the date the round's results became public, or leave the figures out until "
                "it is known (until then no page compares them)", severity="warning"))
    return problems
