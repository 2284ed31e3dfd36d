"""Pure: turn publishers' free-text accelerator names into our canonical names."""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from pipeline.models.hardware import Accelerator

# "AMD Instinct MI300X 192GB HBM3 (x32), AMD Instinct MI325X 256GB HBM3e (x16)": a system mixing
# accelerator types lists each with its count (MLPerf v5.1, IDs 5.1-0065 and 5.1-0091).
_MIXED_PART = re.compile(r"\(x\s*\d+\)")


@dataclass(frozen=True)
class NameMatch:
    """What a free-text name maps to: one canonical name, several (mixed system) or none."""

    text: str
    names: tuple[str, ...]

    @property
    def canonical(self) -> str | None:
        """The canonical name when exactly one accelerator type is named."""
        return self.names[0] if len(self.names) == 1 else None

    @property
    def is_heterogeneous(self) -> bool:
        """Does the text name more than one accelerator type (or list parts with counts)?"""
        return len(self.names) > 1 or len(_MIXED_PART.findall(self.text)) > 1


def accelerator_patterns(accelerators: Sequence[Accelerator]) -> tuple[tuple[str, str], ...]:
    """Return (canonical name, pattern) pairs in file order: all that matching a publisher's
    names reads of the accelerators."""
    return tuple((a.name, p) for a in accelerators for p in a.patterns)


def compile_patterns(patterns: Iterable[tuple[str, str]]) -> list[tuple[str, re.Pattern]]:
    """Return (canonical name, compiled pattern) pairs, in the order given (any letter case)."""
    return [(name, re.compile(p, re.IGNORECASE)) for name, p in patterns]


def compiled_patterns(accelerators: Sequence[Accelerator]) -> list[tuple[str, re.Pattern]]:
    """Return (canonical name, compiled pattern) pairs in file order."""
    return compile_patterns(accelerator_patterns(accelerators))


def match_accelerator(text: str, patterns: list[tuple[str, re.Pattern]]) -> NameMatch:
    """Return the canonical names a free-text accelerator name matches, in order of appearance."""
    found: dict[str, int] = {}
    for name, pattern in patterns:
        hit = pattern.search(text)
        if hit and (name not in found or hit.start() < found[name]):
            found[name] = hit.start()
    return NameMatch(text, tuple(sorted(found, key=found.__getitem__)))
