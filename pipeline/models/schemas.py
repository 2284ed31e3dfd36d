"""JSON Schemas of the source kinds, and the comment line that points editors' tools at them.

The schemas are generated from the pydantic models (their field docstrings become `description`), so
an editor's YAML plugin shows the same documentation and catches the same misspelt keys as
`brief check`. They are committed under `schemas/`; a test fails when they fall behind the models.
"""

from __future__ import annotations

import json
import posixpath

from pipeline.models import SourceKind

JSON_SCHEMA_DIALECT = "https://json-schema.org/draft/2020-12/schema"


def schema_of(kind: SourceKind) -> dict:
    """Return the JSON Schema of one kind, with the dialect it is written in."""
    return {"$schema": JSON_SCHEMA_DIALECT, **kind.model.model_json_schema()}


def schema_files(kinds: dict[str, SourceKind]) -> dict[str, str]:
    """Return {path relative to the root: text} of every kind's schema, byte-stable across runs."""
    # sort_keys and a trailing newline: the same models always give the same bytes, so the
    # "schemas are up to date" test can compare files, and diffs stay small.
    return {kind.schema_file: json.dumps(schema_of(kind), indent=2, sort_keys=True,
                                         ensure_ascii=False) + "\n"
            for kind in sorted(kinds.values(), key=lambda k: k.name)}


def schema_comment(kind: SourceKind, file_path: str) -> str:
    """Return the `# yaml-language-server: $schema=…` line for a file at `file_path` (from root)."""
    # The YAML language server resolves a relative $schema against the file's own folder.
    folder = posixpath.dirname(file_path) or "."
    return f"# yaml-language-server: $schema={posixpath.relpath(kind.schema_file, folder)}"
