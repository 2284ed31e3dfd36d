"""What a build reports back."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path


@dataclass(frozen=True)
class BuildResult:
    """How many editions and files a build made, and where it put them."""

    editions: int
    files: int
    out: Path
