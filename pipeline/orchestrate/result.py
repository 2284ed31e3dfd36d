"""What a build reports back."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from pipeline.problems import Problem


@dataclass(frozen=True)
class BuildResult:
    """How many editions and files a build made, where it put them, and the warnings about its
    sources (as `brief check` gives them)."""

    editions: int
    files: int
    out: Path
    warnings: tuple[Problem, ...] = ()
