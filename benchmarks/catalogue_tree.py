"""The year tree's price catalogue: a year of a large public catalogue's history in the shape a
replay of its git repository leaves (`brief ingest prices --history`, issue 49): as many
listings as models.dev's (5,000 across 150 hosts), as many moves (about 26,000 a year), each
period with the commit that first showed it and a commit log beside the history
(benchmarks/generate.py calls it)."""

from __future__ import annotations

import datetime as dt
import hashlib
import json
import random
from pathlib import Path

import yaml

_DUMPER = getattr(yaml, "CSafeDumper", yaml.SafeDumper)


def write_catalogue(root: Path, first_day: dt.date, models: int = 5_000, days: int = 365) -> None:
    """Write one published catalogue of `models` chat models (input, cached input, output)
    with the history a year of daily commits leaves, with churn like models.dev's: on a day,
    each model's prices move with a chance of 1 in 300, one model in 500 is new and one in
    2,000 goes; written as a replay writes it (one row per price period, its commit, dated by
    the commit), with the commit log of the 365 commits."""
    rng = random.Random(20)
    folder = root / "sources" / "snapshots" / "prices"
    folder.mkdir(parents=True, exist_ok=True)
    start = dt.datetime.combine(first_day, dt.time(6), dt.UTC)

    def stamp(day: int) -> str:
        return (start + dt.timedelta(days=day)).strftime("%Y-%m-%dT%H:%MZ")

    def commit(day: int) -> str:
        return hashlib.sha1(f"synthetic {day}".encode()).hexdigest()

    rows: list[list[str]] = []
    live: dict[str, tuple[int, float]] = {}  # model → (first day of its prices, input price)
    names = iter(range(1, 10**6))

    def open_model(day: int) -> None:
        model = f"synthetic-chat-{next(names):05d}"
        live[model] = (day, rng.choice((0.05, 0.15, 0.5, 1.0, 3.0, 10.0)))

    def close(model: str, day: int) -> None:
        first, price = live.pop(model)
        provider = f"synthetic-host-{int(model[-5:]) % 150 + 1:03d}"
        for meter, factor in (("input", 1.0), ("cached_input", 0.1), ("output", 4.0)):
            rows.append([provider, provider, model, meter, "", "0", "realtime", "", "", "",
                         repr(round(price * factor, 6)), stamp(first),
                         "" if day < 0 else stamp(day), first_day.isoformat(), "131072",
                         commit(first), "commit"])

    for _ in range(models):
        open_model(0)
    for day in range(1, days):
        for model in list(live):
            roll = rng.random()
            if roll < 1 / 300:  # repriced: the old periods close, new ones open
                first, price = live[model]
                close(model, day)
                live[model] = (day, round(price * rng.choice((0.5, 0.8, 0.9, 1.25)), 6))
            elif roll < 1 / 300 + 1 / 2_000:
                close(model, day)
        for _ in range(max(1, models // 500)):
            open_model(day)
    for model in list(live):
        close(model, -1)
    header = ["provider", "catalogue_provider", "model", "meter", "ttl_minutes",
              "context_above_tokens", "mode", "window_utc", "from_date", "to_date",
              "usd_per_mtok", "first_seen", "gone_seen", "checked", "context_window_tokens",
              "commit", "dated_by"]
    rows.sort()
    (folder / "synthetic.csv").write_text(
        "\n".join(",".join(r) for r in [header, *rows]) + "\n", encoding="utf-8")
    log = ["commit,at,subject,moves,file,problem",
           *(f"{commit(day)},{stamp(day)},Update prices (day {day}),0,," for day in range(days))]
    (folder / "synthetic.commits.csv").write_text("\n".join(log) + "\n", encoding="utf-8")
    health = {"catalogue_id": "synthetic", "url": "https://catalogue.example/map.json",
              "last_success": stamp(days - 1).replace("Z", ":00Z"),
              "whole_since": stamp(0).replace("Z", ":00Z"), "checked": first_day.isoformat(),
              "prices": 3 * len(live)}
    (folder / "synthetic.health.json").write_text(json.dumps(health, indent=1) + "\n",
                                                  encoding="utf-8")
    (root / "sources" / "catalogues.yaml").write_text(yaml.dump({
        "catalogues": [{"id": "synthetic", "name": "Synthetic catalogue",
                        "url": "https://catalogue.example/map.json",
                        "page": "https://catalogue.example/", "format": "litellm",
                        "licence": "MIT", "attribution": "Synthetic prices.",
                        "use": "published",
                        "repository": "https://github.com/example/synthetic-catalogue",
                        "history_files": ["data.json"]}]}, Dumper=_DUMPER, sort_keys=False),
        encoding="utf-8")
