"""How a catalogue's files in one commit become one snapshot: what a fetch of the catalogue
would have read on that day. One file (genai-prices' data.json, which moved once), or a tree of
TOML files (models.dev's providers and models, merged as its own build merges them)."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Protocol

from pipeline.formats.models_dev import (
    link_target,
    read_models_dev_doc,
    toml_document,
    tree_document,
)
from pipeline.formats.price_map import ImportResult
from pipeline.ingest.catalogues import read_catalogue, without_skipped
from pipeline.models.catalogues import Catalogue

Problems = list[tuple[str, str]]
"""(file, why) of each version of a file that did not read."""
READ_ERRORS = (ValueError, TypeError, KeyError, AttributeError, RecursionError, ArithmeticError)
"""What a reader raises for a version that is not its format (a fetch's run fails on each)."""


@dataclass(frozen=True)
class Version:
    """One version of a file: its bytes, or the path a symbolic link holds."""

    data: bytes
    link: bool = False


Changed = Mapping[str, Version | None]
"""A commit's changed files: each one's new version, None when deleted."""


class VersionReader(Protocol):
    """Reads a catalogue's files commit by commit, keeping what it read before."""

    def stage(self, changed: Changed) -> None:
        """Take a commit's changed files without reading a snapshot."""

    def read(self, changed: Changed, commit: str = "") -> tuple[ImportResult | None, Problems,
                                                                bool]:
        """Take a commit's changed files and return the snapshot they make (None when there
        is none to read), the files that did not read, and whether any price may have moved
        since the snapshot read before (a replay takes an unmoved one only to confirm a jump
        it holds back, as a fetch of a changed file would)."""

    def file_of(self, provider: str, model: str, commit: str) -> str:
        """Return the file of the repository a listing's prices were read from at `commit`."""


class OneFile:
    """A catalogue published as one file, which may have moved: the first of `history_files`
    a commit's tree holds is the catalogue (newest layout first)."""

    def __init__(self, catalogue: Catalogue) -> None:
        self._catalogue = catalogue
        self._files: dict[str, bytes] = {}
        self._read: bytes | None = None
        self._read_at: dict[str, str] = {}
        """The file read at each commit that read one."""

    def stage(self, changed: Changed) -> None:
        for path, version in changed.items():
            if version is None:
                self._files.pop(path, None)
            elif path in self._catalogue.history_files and not version.link:
                self._files[path] = version.data

    def file_of(self, provider: str, model: str, commit: str) -> str:
        return self._read_at.get(commit) or self._catalogue.history_files[0]

    def read(self, changed: Changed, commit: str = "") -> tuple[ImportResult | None, Problems,
                                                                bool]:
        self.stage(changed)
        path = next((p for p in self._catalogue.history_files if p in self._files), None)
        if path is None or self._files[path] == self._read:
            return None, [], False  # the same bytes confirm nothing
        self._read, self._read_at[commit] = self._files[path], path
        try:
            return read_catalogue(self._catalogue, self._read), [], True
        except READ_ERRORS as err:
            return None, [(path, f"not read as {self._catalogue.format}: {str(err)[:200]}")], False


class TomlTree:
    """models.dev's repository: a TOML file per provider and per model, and makers' metadata
    a model file may take as its `base_model`. Each version of a file is parsed once; a
    snapshot reads again only the providers a commit touched (all of them when a maker's
    metadata changed), so a replay of 2,300 commits of 5,000 files each takes minutes, not an
    hour. A file that does not parse keeps its last good version (models.dev's build would
    have failed, and its published api.json stayed as it was) and is said once per version."""

    def __init__(self, catalogue: Catalogue) -> None:
        self._catalogue = catalogue
        self._parsed: dict[str, object] = {}
        self._links: dict[str, str] = {}
        self._results: dict[str, ImportResult] = {}
        self._dirty: set[str] = set()
        self._unresolved: set[tuple[str, str]] = set()
        self._problems: Problems = []

    def stage(self, changed: Changed) -> None:
        for path, version in changed.items():
            self._dirty.add(_owner(path))
            if version is None or version.link:
                self._parsed.pop(path, None)
            self._links.pop(path, None)
            if version is None:
                continue
            if version.link:
                target = link_target(path, version.data)
                if target is None:
                    self._problems.append((path, "a link out of the repository"))
                else:
                    self._links[path] = target
                continue
            try:
                self._parsed[path] = toml_document(version.data)
            except ValueError as err:
                self._problems.append((path, str(err)[:200]))
        # A link's provider reads again when what it points to changed.
        self._dirty |= {_owner(link) for link, target in self._links.items() if target in changed}

    def file_of(self, provider: str, model: str, commit: str) -> str:
        return f"providers/{provider}/models/{model}.toml"

    def read(self, changed: Changed, commit: str = "") -> tuple[ImportResult | None, Problems,
                                                                bool]:
        self.stage(changed)
        problems, self._problems = self._problems, []
        dirty, self._dirty = self._dirty, set()
        if "" in dirty:  # a maker's metadata: any provider's model may take it
            dirty = {_owner(p) for p in (*self._parsed, *self._links)} - {""}
        if not dirty:
            return None, problems, False
        files: dict[str, object] = {}
        wanted = dirty | {""}
        for path, parsed in self._parsed.items():
            if _owner(path) in wanted:
                files[path] = parsed
        for link, target in self._links.items():
            if _owner(link) in dirty and target in self._parsed:
                files[link] = self._parsed[target]
        doc, unresolved = tree_document(files)
        now = set(unresolved)
        problems += sorted(now - self._unresolved)
        self._unresolved = {u for u in self._unresolved if _owner(u[0]) not in dirty} | now
        moved = False
        for owner in dirty:
            before = self._results.pop(owner, None)
            if owner in doc:
                after = without_skipped(read_models_dev_doc({owner: doc[owner]}),
                                        self._catalogue.skip_providers)
                self._results[owner] = after
                # Most commits change what a model says of itself (a name, its modalities),
                # not a price: the snapshot is then the one read before, and nothing moves.
                moved = moved or before is None or after.prices != before.prices
            else:
                moved = moved or before is not None
        if not self._results:
            return None, problems, False
        return _joined(self._results.values()), problems, moved


def _owner(path: str) -> str:
    """Return the provider a repository path belongs to; "" for a maker's metadata."""
    parts = path.split("/")
    if parts[0] == "models":
        return ""
    return parts[1] if parts[0] == "providers" and len(parts) > 1 else parts[0]


def _joined(results) -> ImportResult:
    """Return one result of several providers' results."""
    out = ImportResult()
    for r in results:
        out.prices += r.prices
        out.models += r.models
        out.unrepresented.update(r.unrepresented)
        out.skipped.update(r.skipped)
        out.invalid += r.invalid
        out.refused_ids += r.refused_ids
        out.repeated_keys += r.repeated_keys
        out.facts += r.facts
    return out


def reader_for(catalogue: Catalogue) -> VersionReader:
    """Return the reader of the catalogue's versions."""
    return TomlTree(catalogue) if catalogue.format == "models-dev" else OneFile(catalogue)
