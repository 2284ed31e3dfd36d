"""Load `sources/feeds.yaml` (strict: ours) and the feed snapshots (tolerant: the world's)."""

from __future__ import annotations

import functools
import json
from pathlib import Path

from pydantic import ValidationError

from pipeline.load.read import FRESH, Parses, read_model, rel, validation_problems
from pipeline.models.feeds import Feed, FeedsFile, Snapshot
from pipeline.paths import FEED_SNAPSHOTS, FEEDS
from pipeline.problems import Problem


def parse_snapshot(data: bytes, name: str) -> tuple[Snapshot | None, list[Problem]]:
    """Return the snapshot in `data`, or warnings saying why it cannot be used."""
    try:
        doc = json.loads(data.decode("utf-8"))
    except (UnicodeDecodeError, json.JSONDecodeError) as err:
        return None, [Problem(name, "", f"not a readable JSON snapshot ({err}); the next "
                              "ingest rewrites it", severity="warning")]
    try:
        return Snapshot.model_validate(doc), []
    except ValidationError as err:
        found = validation_problems(err, Snapshot, name, {})
        return None, [Problem(p.path, p.field, f"{p.message}; the snapshot is ignored until the "
                              "next ingest rewrites it", severity="warning") for p in found]


def load_snapshots(root: Path, feeds: list[Feed], cache: Parses = FRESH,
                   ) -> tuple[dict[str, Snapshot], list[Problem]]:
    """Return the snapshot of every feed that has a usable one, and warnings for the rest.

    `cache` keeps each usable snapshot by its bytes (cache/parse_cache.py)."""
    snapshots: dict[str, Snapshot] = {}
    problems: list[Problem] = []
    known = {f.id for f in feeds}
    folder = root / FEED_SNAPSHOTS
    for path in sorted(folder.glob("*.json")) if folder.is_dir() else []:
        name = rel(path, root)
        if path.stem not in known:
            problems.append(Problem(name, "", "snapshot of a feed that is not in "
                                    "sources/feeds.yaml; delete it or add the feed",
                                    severity="warning"))
            continue
        data = path.read_bytes()
        snap, found = cache.checked("Snapshot", name, data,
                                    functools.partial(parse_snapshot, data, name))
        problems += found
        if snap is None:
            continue
        if snap.feed_id != path.stem:
            problems.append(Problem(name, "feed_id", f"says {snap.feed_id!r} but the file is "
                                    f"named for {path.stem!r}; the snapshot is ignored",
                                    severity="warning"))
            continue
        snapshots[snap.feed_id] = snap
    return snapshots, problems


def load_feeds(root: Path, cache: Parses = FRESH,
               ) -> tuple[FeedsFile | None, dict[str, Snapshot], list[Problem]]:
    """Return (feeds file, snapshots by feed id, problems); no feeds.yaml means no feeds."""
    path = root / FEEDS
    if not path.exists():
        return None, {}, []
    sourced, problems = read_model(path, FeedsFile, root, cache)
    if sourced is None:
        return None, {}, problems
    snapshots, found = load_snapshots(root, sourced.model.feeds, cache)
    return sourced.model, snapshots, problems + found
