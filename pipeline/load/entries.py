"""Load the curated news entries, `sources/entries/YYYY/MM-DD-slug.yaml`."""

from __future__ import annotations

import re
from pathlib import Path

from pipeline.load.read import FRESH, Parses, read_model, rel
from pipeline.models.entries import Entry
from pipeline.models.sourced import CuratedEntry, line_of
from pipeline.problems import Problem

_ENTRY_NAME = re.compile(r"^(?P<month>\d\d)-(?P<day>\d\d)-(?P<slug>[a-z0-9][a-z0-9-]*)\.yaml$")


def load_entries(root: Path, section_ids: set[str] | None, cache: Parses = FRESH,
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
