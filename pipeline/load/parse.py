"""What one source file parses to: `Parse` (the file's bytes and what they are read as) and
`parse_file`, the pure function from it to (value, problems), by kind.

A Parse holds everything its parse depends on besides the code (kind, name, bytes, and any other
values it reads, in `context`), so its digest is a complete key: the build keeps values by it
(cache/parse_cache.py) and hands the loaders a function of the same shape as parse_file; the
loaders call whichever they are given, and `brief check` gives them parse_file itself.
"""

from __future__ import annotations

import functools
import json
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, TypeVar

from pydantic import BaseModel, ValidationError

from pipeline.formats.benchmark_record import ReadResult
from pipeline.formats.ecb import parse_ecb_history
from pipeline.formats.inferencex import read_inferencex_rows
from pipeline.formats.mlperf import read_mlperf_summary
from pipeline.load.price_checks import file_problems
from pipeline.load.read import parse_model, rel, validation_problems
from pipeline.load.series import date_order_problems
from pipeline.models.catalogues import CataloguesFile
from pipeline.models.entries import Entry
from pipeline.models.feeds import FeedsFile, Snapshot
from pipeline.models.hardware import AcceleratorsFile, BenchmarksIndex, CostsFile
from pipeline.models.hardware_results import FileReport, HardwareRow
from pipeline.models.prices import PriceFile
from pipeline.models.series import Series
from pipeline.models.sourced import Sourced
from pipeline.normalize.accelerators import compile_patterns
from pipeline.normalize.fx import table_from_eur_rates
from pipeline.problems import Problem
from pipeline.tables.hardware import FileInfo, normalize_records

M = TypeVar("M", bound=BaseModel)


@dataclass(frozen=True)
class Parse:
    """One file to parse: its bytes, what they are read as, and what else the parse reads."""

    kind: str
    """What the bytes are read as: a model's name (`PriceFile`), or `Snapshot`, `ecb-rates`,
    `price-history`, `benchmark` (PARSERS)."""
    name: str
    """The file, relative to the repository root: problems name it."""
    data: bytes = field(repr=False)
    context: tuple = ()
    """The other values the parse reads, as plain data whose repr is the same in every process
    (a key digests it): a benchmark file's suite, round, index entry and accelerator patterns."""


Parser = Callable[[Parse], tuple[Any, list[Problem]]]
"""What a loader parses with: parse_file, or a function that may return a value kept from an
earlier build for the same Parse."""
Deriver = Callable[[Sequence[str], Callable[[], Any]], Any]
"""What a loader computes a value of several parsed files with, `derive(names, compute)`:
`derive_now`, or a function that may return the value an earlier build computed from the same
files (as parsed) with the same code."""


def derive_now(names: Sequence[str], compute: Callable[[], Any]) -> Any:
    """Return `compute()`, a value of the parsed files `names`."""
    return compute()


def parse_file(job: Parse) -> tuple[Any, list[Problem]]:
    """Return (value, problems) of one file's bytes read as `job.kind` (value None when they do
    not read as it).

    Raises what the kind's reader raises on bytes that are not its format at all (a benchmark
    file's FormatError, a price history's ValueError): the loader says what that means."""
    return PARSERS[job.kind](job)


def read_model(path: Path, model: type[M], root: Path, parse: Parser = parse_file,
               ) -> tuple[Sourced[M] | None, list[Problem]]:
    """Read one YAML file as `model` (a kind of PARSERS); return it or the problems found."""
    name = rel(path, root)
    try:
        data = path.read_bytes()
    except OSError as err:
        return None, [Problem(name, "", f"cannot read the file: {err.strerror}")]
    return parse(Parse(model.__qualname__, name, data))


def _yaml_model(model: type[BaseModel], job: Parse) -> tuple[Sourced | None, list[Problem]]:
    return parse_model(job.data, job.name, model)


def _price_file(job: Parse) -> tuple[Sourced[PriceFile] | None, list[Problem]]:
    """A price file with the gates that read it alone (price_checks.py), and the indexes the
    cost core uses filled: a value kept from this parse keeps them, and skips the gates."""
    sourced, problems = parse_model(job.data, job.name, PriceFile, file_problems)
    if sourced is not None:
        _ = sourced.model.quote_lists  # fills each list's periods too
    return sourced, problems


def _snapshot(job: Parse) -> tuple[Snapshot | None, list[Problem]]:
    """A feed snapshot, or warnings saying why it cannot be used."""
    try:
        doc = json.loads(job.data.decode("utf-8"))
    except (UnicodeDecodeError, json.JSONDecodeError) as err:
        return None, [Problem(job.name, "", f"not a readable JSON snapshot ({err}); the next "
                              "ingest rewrites it", severity="warning")]
    try:
        return Snapshot.model_validate(doc), []
    except ValidationError as err:
        found = validation_problems(err, Snapshot, job.name, {})
        return None, [Problem(p.path, p.field, f"{p.message}; the snapshot is ignored until the "
                              "next ingest rewrites it", severity="warning") for p in found]


def _ecb_rates(job: Parse) -> tuple[Any, list[Problem]]:
    """The ECB reference rates (`name` is where they come from, recorded with them)."""
    return table_from_eur_rates(parse_ecb_history(job.data), origin=job.name), []


def _price_history(job: Parse) -> tuple[Any, list[Problem]]:
    """A catalogue's price history, a table."""
    # pandas, imported when a history is read: the loaders of YAML alone (load/catalogues.py,
    # the commands that read only our files) stay without it.
    from pipeline.tables.catalogue_history import read_history_csv

    return read_history_csv(job.data), []


def read_benchmark(data: bytes, suite: str, round_: str, info: FileInfo,
                   patterns: Sequence[tuple[str, str]],
                   ) -> tuple[list[HardwareRow], FileReport]:
    """Return the table rows of one benchmark file's bytes and what became of every row;
    `patterns`: the accelerators' (normalize/accelerators.accelerator_patterns).

    Raises FormatError when the bytes are not the suite's format at all."""
    read: ReadResult = (read_mlperf_summary(data) if suite == "mlperf-inference"
                        else read_inferencex_rows(data, round_))
    rows, left_out = normalize_records(read.records, info, compile_patterns(patterns))
    skipped = read.skipped + left_out
    report = FileReport(info.path, read.schema, read.total_rows, len(rows),
                        tuple(sorted(skipped.items(), key=lambda kv: (-kv[1], kv[0]))))
    return rows, report


def _benchmark(job: Parse) -> tuple[tuple[list[HardwareRow], FileReport], list[Problem]]:
    """A benchmark file's rows and report; `context`: (suite, round, FileInfo, patterns)."""
    suite, round_, info, patterns = job.context
    return read_benchmark(job.data, suite, round_, info, patterns), []


PARSERS: dict[str, Parser] = {
    **{model.__qualname__: functools.partial(_yaml_model, model)
       for model in (Entry, FeedsFile, CataloguesFile, AcceleratorsFile, CostsFile,
                     BenchmarksIndex)},
    "PriceFile": _price_file,
    "Series": lambda job: parse_model(job.data, job.name, Series, date_order_problems),
    "Snapshot": _snapshot,
    "ecb-rates": _ecb_rates,
    "price-history": _price_history,
    "benchmark": _benchmark,
}
"""The parser of each kind of file."""
