"""Pure: our provider id for a price catalogue's (one id per company that sells the tokens)."""

from __future__ import annotations

from collections.abc import Mapping


def our_provider(theirs: str, providers: Mapping[str, str]) -> str:
    """Return our id of a catalogue's provider id: the mapping's (`sources/catalogues.yaml`),
    else theirs lower-cased with `-` for `_` and spaces (`together_ai` → `together-ai`)."""
    return providers.get(theirs) or theirs.strip().lower().replace("_", "-").replace(" ", "-")
