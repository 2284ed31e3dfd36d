"""How a catalogue's files in one commit become one snapshot: what a fetch of the catalogue
would have read on that day. One file (genai-prices' data.json, which moved once), or a tree of
TOML files (models.dev's providers and models, merged as its own build merges them)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Protocol

from pipeline.formats.price_map import ImportResult
from pipeline.ingest.catalogues import read_catalogue
from pipeline.models.catalogues import Catalogue

Problems = list[tuple[str, str]]
"""(file, why) of each version of a file that did not read."""


class VersionReader(Protocol):
    """Reads a catalogue's files commit by commit, keeping what it read before."""

    def stage(self, changed: Mapping[str, bytes | None]) -> None:
        """Take a commit's changed files (None: deleted) without reading a snapshot."""

    def read(self, changed: Mapping[str, bytes | None]) -> tuple[ImportResult | None, Problems]:
        """Take a commit's changed files and return the snapshot they make (None when the
        file read is the one read before), and the files that did not read."""


class OneFile:
    """A catalogue published as one file, which may have moved: the first of `history_files`
    a commit's tree holds is the catalogue (newest layout first)."""

    def __init__(self, catalogue: Catalogue) -> None:
        self._catalogue = catalogue
        self._files: dict[str, bytes] = {}
        self._read: bytes | None = None

    def stage(self, changed: Mapping[str, bytes | None]) -> None:
        for path, data in changed.items():
            if data is None:
                self._files.pop(path, None)
            elif path in self._catalogue.history_files:
                self._files[path] = data

    def read(self, changed: Mapping[str, bytes | None]) -> tuple[ImportResult | None, Problems]:
        self.stage(changed)
        path = next((p for p in self._catalogue.history_files if p in self._files), None)
        if path is None or self._files[path] == self._read:
            return None, []
        self._read = self._files[path]
        try:
            return read_catalogue(self._catalogue, self._read), []
        except (ValueError, TypeError, KeyError, AttributeError, RecursionError,
                ArithmeticError) as err:
            return None, [(path, f"not read as {self._catalogue.format}: {str(err)[:200]}")]


def reader_for(catalogue: Catalogue) -> VersionReader:
    """Return the reader of the catalogue's versions."""
    return OneFile(catalogue)
