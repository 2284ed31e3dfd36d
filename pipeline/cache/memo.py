"""Pure: values computed once per key, reused from an earlier build when their key is the same.

A key is a digest of everything the value is computed from (keys.py), so a reused value
is the value a fresh computation would give. The build loads an earlier build's values from
`.cache/`, hands them in as `known`, and keeps `used` (what this build needed) for the next one;
values no build needs any more are dropped that way.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any


class Memo:
    """Values by key: from `known` when there, else computed (and counted)."""

    def __init__(self, known: Mapping[str, Any] | None = None, origin: object = None) -> None:
        self.known: Mapping[str, Any] = known or {}
        self.origin = origin
        """What the store that loaded `known` needs to save the memo again (memo_store.py)."""
        self.used: dict[str, Any] = {}
        self.computed = 0

    def get(self, key: str, compute: Callable[[], Any]) -> Any:
        if key not in self.used:
            if key in self.known:
                self.used[key] = self.known[key]
            else:
                self.used[key] = compute()
                self.computed += 1
        return self.used[key]

    @property
    def changed(self) -> bool:
        """Does `used` differ from `known` (something computed, or something no longer used)?"""
        return self.computed > 0 or len(self.used) != len(self.known)
