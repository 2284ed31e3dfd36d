"""Load `sources/feeds.yaml` (strict: ours) and the feed snapshots (tolerant: the world's)."""

from __future__ import annotations

from pathlib import Path

from pipeline.load.parse import Parse, Parser, parse_file, read_model
from pipeline.load.read import rel
from pipeline.models.feeds import Feed, FeedsFile, Snapshot
from pipeline.paths import FEED_SNAPSHOTS, FEEDS
from pipeline.problems import Problem


def load_snapshots(root: Path, feeds: list[Feed], parse: Parser = parse_file,
                   ) -> tuple[dict[str, Snapshot], list[Problem]]:
    """Return the snapshot of every feed that has a usable one, and warnings for the rest."""
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
        snap, found = parse(Parse("Snapshot", name, path.read_bytes()))
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


def load_feeds(root: Path, parse: Parser = parse_file,
               ) -> tuple[FeedsFile | None, dict[str, Snapshot], list[Problem]]:
    """Return (feeds file, snapshots by feed id, problems); no feeds.yaml means no feeds."""
    path = root / FEEDS
    if not path.exists():
        return None, {}, []
    sourced, problems = read_model(path, FeedsFile, root, parse)
    if sourced is None:
        return None, {}, problems
    snapshots, found = load_snapshots(root, sourced.model.feeds, parse)
    return sourced.model, snapshots, problems + found
