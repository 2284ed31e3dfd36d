"""Synthetic sources trees at a scale factor, written to a scratch folder (never into sources/).

Scale `1` is a copy of the bundled sources. `year` is 365 daily editions at about the bundled
density (five entries an edition); `<N>d` is N daily editions, so doubling can be measured
(`365d`, `730d`). One function per source kind; the kinds whose format has not landed on main yet
raise `KindNotAvailable`, and the harness skips them and says so.
"""

from __future__ import annotations

import datetime as dt
import hashlib
import json
import random
import re
import shutil
from dataclasses import dataclass
from pathlib import Path

import yaml

from benchmarks.catalogue_tree import write_catalogue
from pipeline.normalize.feed_state import RETENTION_DAYS

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
    # No claims: they check figures against the bundled curated prices, which a synthetic tree
    # does not have (its providers are synthetic-provider-NN).
    doc = {k: v for k, v in model.items()
           if k not in ("id", "corrections", "event_date", "claims")}
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


def _until(root: Path) -> dt.date:
    """Return the last edition day of a generated tree (the cadence's `until`)."""
    series = yaml.safe_load((root / "sources" / "editions.yaml").read_text(encoding="utf-8"))
    return series["cadence"]["until"]


def _bundled_feed_items() -> list[dict]:
    """Return the items of the bundled feed snapshots, the model texts of the synthetic ones."""
    items = []
    for path in sorted((BUNDLED / "snapshots" / "feeds").glob("*.json")):
        items += json.loads(path.read_text(encoding="utf-8")).get("items", [])
    return items


def write_feeds(root: Path, feeds: int = 200, items: int = 100) -> None:
    """Write sources/feeds.yaml and feed snapshots: `feeds` feeds × `items` items in the window."""
    bundled = yaml.safe_load((BUNDLED / "feeds.yaml").read_text(encoding="utf-8"))
    topics = list(bundled["topics"])
    models = _bundled_feed_items()
    until = _until(root)
    end = dt.datetime(until.year, until.month, until.day, 12, tzinfo=dt.UTC)
    # Spread each feed's items over the 90-day retention window before the last edition.
    step = dt.timedelta(days=RETENTION_DAYS - 1) / items
    entries = []
    folder = root / "sources" / "snapshots" / "feeds"
    folder.mkdir(parents=True, exist_ok=True)
    for f in range(feeds):
        feed_id = f"synthetic-feed-{f + 1:03d}"
        cn = f % 4 == 3
        url = f"https://feeds.example.com/{feed_id}.xml"
        entries.append({"id": feed_id, "url": url, "title": f"Synthetic feed {f + 1}",
                        "region": "cn" if cn else "global", "language": "zh" if cn else "en",
                        "topics": [topics[f % len(topics)]], "weight": 1.0})
        snap_items = []
        for n in range(items):
            model = models[(f * items + n) % len(models)]
            when = (end - step * n - dt.timedelta(minutes=f)).strftime("%Y-%m-%dT%H:%M:%SZ")
            snap_items.append({
                "id": hashlib.sha1(f"{feed_id}/{n}".encode()).hexdigest()[:20],
                "url": f"https://news.example.com/{feed_id}/{n + 1}",
                "title": f"{model['title']} ({feed_id} #{n + 1})",
                "summary_html": model.get("summary_html", ""),
                "summary_text": model.get("summary_text", ""),
                "published": when, "date_flag": None, "first_seen": when,
                "language": model.get("language"), "author": None})
        snapshot = {"feed_id": feed_id, "url": url, "title": f"Synthetic feed {f + 1}",
                    "language": "zh" if cn else "en",
                    "validators": {"etag": None, "last_modified": None},
                    "health": {"last_attempt": end.strftime("%Y-%m-%dT%H:%M:%SZ"),
                               "last_success": end.strftime("%Y-%m-%dT%H:%M:%SZ"),
                               "status": 200, "consecutive_failures": 0, "last_error": None,
                               "gone": False, "retry_after": None},
                    "items": snap_items}
        (folder / f"{feed_id}.json").write_text(
            json.dumps(snapshot, ensure_ascii=False, indent=1) + "\n", encoding="utf-8")
    doc = {"topics": bundled["topics"], "feeds": entries}
    (root / "sources" / "feeds.yaml").write_text(
        yaml.dump(doc, Dumper=_DUMPER, sort_keys=False, allow_unicode=True), encoding="utf-8")


PRICE_MONTHS = 12
"""A year of monthly price changes per model, from YEAR_START."""


def _price_records(rng: random.Random, model: str, base: float, currency: str) -> list[dict]:
    records = []
    price = base
    for month in range(PRICE_MONTHS):
        start = dt.date(YEAR_START.year + (YEAR_START.month - 1 + month) // 12,
                        (YEAR_START.month - 1 + month) % 12 + 1, 1)
        record: dict = {"model": model, "from": start}
        if month < PRICE_MONTHS - 1:
            nxt = month + 1
            record["to"] = dt.date(YEAR_START.year + (YEAR_START.month - 1 + nxt) // 12,
                                   (YEAR_START.month - 1 + nxt) % 12 + 1, 1)
        record["source_url"] = f"https://prices.example.com/{currency.lower()}/{model}"
        record["checked"] = start
        record["prices"] = [{"meter": "input", "price": round(price, 4)},
                            {"meter": "cached_input", "price": round(price / 10, 4)},
                            {"meter": "output", "price": round(price * 4, 4)}]
        records.append(record)
        price *= rng.choice((0.8, 0.9, 0.95, 1.0, 1.05, 1.1))
    return records


def write_prices(root: Path, providers: int = 60, models: int = 20) -> None:
    """Write sources/prices/: `providers` × `models` price histories with monthly changes."""
    rng = random.Random(8)
    folder = root / "sources" / "prices"
    folder.mkdir(parents=True, exist_ok=True)
    for p in range(providers):
        provider = f"synthetic-provider-{p + 1:02d}"
        lists = []
        usd = []
        for m in range(models):
            usd += _price_records(rng, f"model-{p + 1:02d}-{m + 1:02d}",
                                  rng.choice((0.1, 0.5, 1.0, 2.5, 5.0, 15.0)), "USD")
        lists.append({"currency": "USD", "unit": "per_1m_tokens", "records": usd})
        if p == 0:
            # One provider also publishes a list in yuan, as DeepSeek does.
            cny = []
            for m in range(models):
                cny += _price_records(rng, f"model-{p + 1:02d}-{m + 1:02d}",
                                      rng.choice((1.0, 2.0, 4.0, 8.0)), "CNY")
            lists.insert(0, {"currency": "CNY", "unit": "per_1m_tokens", "records": cny})
        doc = {"provider": provider, "name": f"Synthetic Provider {p + 1}", "lists": lists}
        (folder / f"{provider}.yaml").write_text(
            yaml.dump(doc, Dumper=_DUMPER, sort_keys=False, allow_unicode=True, width=100),
            encoding="utf-8")


# Accelerator texts as MLPerf submitters write them; each matches one accelerators.yaml pattern.
_ACCELERATOR_TEXT = {
    "H100": "NVIDIA H100-SXM-80GB", "H200": "NVIDIA H200-SXM-141GB",
    "B200": "NVIDIA B200-SXM-180GB", "B300": "NVIDIA B300-SXM-270GB", "GB200": "NVIDIA GB200",
    "GB300": "NVIDIA GB300", "MI300X": "AMD Instinct MI300X 192GB HBM3",
    "MI325X": "AMD Instinct MI325X 256GB HBM3e", "MI355X": "AMD Instinct MI355X",
    "TPU v7": "Google TPU v7 (Ironwood)"}
_BENCH = (("llama2-70b-99", "Offline"), ("llama2-70b-99", "Server"),
          ("llama2-70b-99.9", "Interactive"), ("deepseek-r1", "Server"),
          ("deepseek-r1", "Offline"), ("llama3.1-405b", "Server"))


def write_benchmark_rows(root: Path, rows: int = 20_000) -> None:
    """Write sources/benchmarks/ result files holding `rows` benchmark rows in all."""
    rng = random.Random(20_000)
    hardware = root / "sources" / "hardware"
    if not hardware.exists():
        shutil.copytree(BUNDLED / "hardware", hardware)
    # Only accelerators with an hourly cost: a result on one without is a check error.
    costed = {c["accelerator"] for c in yaml.safe_load(
        (hardware / "costs.yaml").read_text(encoding="utf-8"))["costs"]}
    names = [a["name"] for a in yaml.safe_load(
        (hardware / "accelerators.yaml").read_text(encoding="utf-8"))["accelerators"]
             if a["name"] in costed]
    texts = [_ACCELERATOR_TEXT.get(n, n) for n in names]
    out = []
    for i in range(rows):
        text = texts[i % len(texts)]
        model, scenario = _BENCH[(i // len(texts)) % len(_BENCH)]
        submitter = text.split()[0]
        out.append({
            "ID": f"5.1-{i + 1:05d}", "Submitter": submitter, "Availability": "available",
            "Category": "closed" if i % 5 else "open", "Suite": "datacenter",
            "System": f"Synthetic system {i % 97 + 1} (8x {text})", "Model": model,
            "Scenario": scenario, "Nodes": 1, "Accelerator": text, "a#": 8, "version": "v5.1",
            "inferred": 0, "has_power": False,
            "Details": f"https://github.com/mlcommons/inference_results_v5.1/tree/main/closed/"
                       f"{submitter}/results/synthetic-{i + 1}",
            "Performance_Result": round(rng.uniform(1_000, 200_000), 1),
            "Performance_Units": "Tokens/s"})
    path = root / "sources" / "benchmarks" / "mlperf-inference" / "v5.1" / "summary_results.json"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(out, indent=1) + "\n", encoding="utf-8")
    index = {"files": [{
        "path": "mlperf-inference/v5.1/summary_results.json", "suite": "mlperf-inference",
        "round": "v5.1", "published": dt.date(2025, 9, 9),
        "source_url": "https://github.com/mlcommons/inference_results_v5.1/blob/main/"
                      "summary_results.json",
        "note": f"Synthetic: {rows} rows in the v5.1 array schema (benchmarks/generate.py)."}]}
    (root / "sources" / "benchmarks" / "index.yaml").write_text(
        yaml.dump(index, Dumper=_DUMPER, sort_keys=False, allow_unicode=True), encoding="utf-8")


def change_one_price(root: Path) -> None:
    """Change one price in a generated tree (the "one changed price" rebuild)."""
    folder = root / "sources" / "prices"
    path = next(iter(sorted(folder.glob("*.yaml"))), None)
    if path is None:
        raise KindNotAvailable("prices: this tree has no price files")
    text = path.read_text(encoding="utf-8")
    # The last `price:` of the file: the output price of a model's current record. Edit the text,
    # as an editor would, and lower it by a tenth.
    match = list(re.finditer(r"price: ([0-9.]+)", text))[-1]
    new = f"price: {round(float(match[1]) * 0.9, 4)}"
    path.write_text(text[:match.start()] + new + text[match.end():], encoding="utf-8")


# The kinds beyond entries and the series, in the order they are generated.
OPTIONAL_KINDS = {"feeds": write_feeds, "prices": write_prices, "benchmarks": write_benchmark_rows,
                  "catalogues": lambda root: write_catalogue(root, YEAR_START)}


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
