"""The benchmarks' synthetic trees are sources a build accepts: `make bench` measures nothing when
its year tree fails to load (it did, with 4,024 problems, once bundled entries had claims that
checked curated prices the synthetic tree does not have)."""

from __future__ import annotations

from pathlib import Path

from benchmarks.generate import (
    ENTRIES_PER_EDITION,
    _bundled_entries,
    write_entries,
    write_prices,
    write_series,
)
from pipeline.load.sources import load_sources


def test_generated_entries_load_without_an_error(tmp_path: Path) -> None:
    # Days enough for the synthetic entries to go through every bundled entry once (they take
    # them in turn, ENTRIES_PER_EDITION a day), beside synthetic prices (of 2 providers: a
    # year's 60 take 15 s to load): what an entry of a year's tree meets, without the feeds,
    # catalogues and benchmark rows it does not read.
    days = -(-len(_bundled_entries()) // ENTRIES_PER_EDITION) + 1
    write_series(tmp_path, days)
    write_entries(tmp_path, days)
    write_prices(tmp_path, providers=2, models=2)
    sources = load_sources(tmp_path)  # raises SourceError, naming each problem, on any error
    assert len(sources.entries) == days * ENTRIES_PER_EDITION
