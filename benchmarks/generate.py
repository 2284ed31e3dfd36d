"""Synthetic sources trees at a scale factor, written to a scratch folder (never into sources/).

Scale `1` is a copy of the bundled sources. `year` is 365 daily editions at about the bundled
density (five entries an edition); `<N>d` is N daily editions, so doubling can be measured
(`365d`, `730d`). One function per source kind; the kinds whose format has not landed on main yet
raise `KindNotAvailable`, and the harness skips them and says so.
"""

from __future__ import annotations

import datetime as dt
import re
import shutil
from dataclasses import dataclass
from pathlib import Path

import yaml

_DUMPER = getattr(yaml, "CSafeDumper", yaml.SafeDumper)

REPO = Path(__file__).resolve().parents[1]
BUNDLED = REPO / "sources"
YEAR_START = dt.date(2025, 12, 1)
ENTRIES_PER_EDITION = 5
# The sections of one synthetic edition: two top stories, one local, one figure, one radar item.
SECTION_CYCLE = ("top", "top", "local", "numbers", "radar")


class KindNotAvailable(NotImplementedError):
    """A source kind whose format is not on main yet: its generator is a placeholder."""


@dataclass(frozen=True)
class Scale:
    """What a scale name stands for."""

    name: str
    editions: int | None
    """Daily editions to generate; None: copy the bundled sources as they are."""

    @property
    def bundled(self) -> bool:
        return self.editions is None


def parse_scale(name: str) -> Scale:
    """Return the scale a name stands for: `1`, `year`, or `<N>d` (N daily editions)."""
    if name == "1":
        return Scale(name, None)
    if name == "year":
        return Scale(name, 365)
    match = re.fullmatch(r"(\d+)d", name)
    if match and int(match[1]) > 0:
        return Scale(name, int(match[1]))
    raise ValueError(f"unknown scale {name!r}: use 1, year, or a number of days like 730d")


def last_day(scale: Scale) -> dt.date:
    """Return the `--today` to build a generated tree with: the last edition's date."""
    if scale.editions is None:
        return dt.date(2026, 11, 30)
    return YEAR_START + dt.timedelta(days=scale.editions - 1)


def _bundled_entries() -> list[dict]:
    """Return the bundled entries as plain mappings, the model texts of the synthetic ones."""
    return [yaml.safe_load(p.read_text(encoding="utf-8"))
            for p in sorted((BUNDLED / "entries").rglob("*.yaml"))]


def write_series(root: Path, editions: int) -> None:
    """Write sources/editions.yaml: the bundled series on a daily cadence of `editions` days."""
    series = yaml.safe_load((BUNDLED / "editions.yaml").read_text(encoding="utf-8"))
    series.pop("dates", None)
    series["cadence"] = {"start": YEAR_START, "every_days": 1,
                         "until": YEAR_START + dt.timedelta(days=editions - 1)}
    (root / "sources").mkdir(parents=True, exist_ok=True)
    (root / "sources" / "editions.yaml").write_text(
        yaml.dump(series, Dumper=_DUMPER, sort_keys=False, allow_unicode=True), encoding="utf-8")


def entry_document(models: list[dict], day: dt.date, n: int) -> dict:
    """Return synthetic entry `n` of the edition of `day`, its text taken from a bundled entry."""
    model = models[(day.toordinal() * ENTRIES_PER_EDITION + n) % len(models)]
    doc = {k: v for k, v in model.items() if k not in ("id", "corrections", "event_date")}
    doc["date"] = day
    doc["section"] = SECTION_CYCLE[n % len(SECTION_CYCLE)]
    doc["headline"] = f"{model['headline']} ({day.isoformat()} #{n + 1})"
    if doc["section"] != "local":
        doc.pop("original_headline", None)
    if doc["section"] == "radar":
        doc["event_date"] = day + dt.timedelta(days=14)
    return doc


def write_entry(root: Path, doc: dict, slug: str) -> Path:
    """Write one entry file where the loader expects it (YYYY/MM-DD-slug.yaml); return its path."""
    day: dt.date = doc["date"]
    path = root / "sources" / "entries" / f"{day:%Y}" / f"{day:%m-%d}-{slug}.yaml"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(yaml.dump(doc, Dumper=_DUMPER, sort_keys=False, allow_unicode=True), encoding="utf-8")
    return path


def write_entries(root: Path, editions: int) -> int:
    """Write ENTRIES_PER_EDITION entries dated on each edition day; return how many."""
    models = _bundled_entries()
    count = 0
    for i in range(editions):
        day = YEAR_START + dt.timedelta(days=i)
        for n in range(ENTRIES_PER_EDITION):
            write_entry(root, entry_document(models, day, n), f"synthetic-{day:%Y%m%d}-{n + 1}")
            count += 1
    return count


def write_feeds(root: Path, feeds: int = 200, items: int = 100) -> None:
    """Write sources/feeds.yaml and feed snapshots: `feeds` feeds × `items` items in the window."""
    raise KindNotAvailable("feeds: the feeds format is not on main yet (lead: fill after merging)")


def write_prices(root: Path, providers: int = 60, models: int = 20) -> None:
    """Write sources/prices/: `providers` × `models` price histories with monthly changes."""
    raise KindNotAvailable("prices: the price format is not on main yet (lead: fill after merging)")


def write_benchmark_rows(root: Path, rows: int = 20_000) -> None:
    """Write sources/benchmarks/ result files holding `rows` benchmark rows in all."""
    raise KindNotAvailable("benchmarks: the benchmark-row format is not on main yet "
                           "(lead: fill after merging)")


def change_one_price(root: Path) -> None:
    """Change one price in a generated tree (the "one changed price" rebuild)."""
    raise KindNotAvailable("prices: no price format on main yet, so no price to change")


# The kinds beyond entries and the series, in the order they are generated.
OPTIONAL_KINDS = {"feeds": write_feeds, "prices": write_prices, "benchmarks": write_benchmark_rows}


def generate(scale: Scale, root: Path) -> list[str]:
    """Write the sources tree of `scale` under root/sources; return the kinds that were skipped."""
    if (root / "sources").exists():
        raise FileExistsError(f"{root / 'sources'} exists; generate into an empty folder")
    if scale.bundled:
        shutil.copytree(BUNDLED, root / "sources")
        return []
    assert scale.editions is not None
    write_series(root, scale.editions)
    write_entries(root, scale.editions)
    skipped = []
    for kind, write in OPTIONAL_KINDS.items():
        try:
            write(root)
        except KindNotAvailable:
            skipped.append(kind)
    return skipped


def add_edition(root: Path, scale: Scale) -> dt.date:
    """Add the next day's edition and its entries to a tree; return the new `--today`."""
    if scale.bundled:
        series_path = root / "sources" / "editions.yaml"
        series = yaml.safe_load(series_path.read_text(encoding="utf-8"))
        day = max(series["dates"]) + dt.timedelta(days=3)
        text = series_path.read_text(encoding="utf-8")
        # Edit the text, not a re-dump, so the file stays as the editor wrote it.
        last = max(series["dates"]).isoformat()
        series_path.write_text(text.replace(f"  - {last}\n", f"  - {last}\n  - {day}\n", 1),
                               encoding="utf-8")
    else:
        series_path = root / "sources" / "editions.yaml"
        series = yaml.safe_load(series_path.read_text(encoding="utf-8"))
        day = series["cadence"]["until"] + dt.timedelta(days=1)
        series["cadence"]["until"] = day
        series_path.write_text(yaml.dump(series, Dumper=_DUMPER, sort_keys=False, allow_unicode=True),
                               encoding="utf-8")
    models = _bundled_entries()
    for n in range(ENTRIES_PER_EDITION):
        write_entry(root, entry_document(models, day, n), f"added-{day:%Y%m%d}-{n + 1}")
    return max(day, dt.date(2026, 11, 30)) if scale.bundled else day
