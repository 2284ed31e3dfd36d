"""Parsed sources are kept between builds by content, and never hide a problem."""

from __future__ import annotations

import copy
import pickle
import shutil
from pathlib import Path

import pytest

from pipeline.build.parse_cache import ParseCache
from pipeline.load.sources import load_sources
from pipeline.problems import SourceError
from pipeline.tables.hardware import summarize_rows

ROOT = Path(__file__).resolve().parents[1]


@pytest.fixture
def tree(tmp_path: Path) -> Path:
    shutil.copytree(ROOT / "sources", tmp_path / "sources")
    return tmp_path


def test_a_second_load_reads_every_file_from_the_cache_and_gets_the_same_sources(tree):
    cold = ParseCache(tree / ".cache" / "parsed")
    first = load_sources(tree, cold)
    assert cold.hits == 0 and cold.misses > 30
    warm = ParseCache(tree / ".cache" / "parsed")
    second = load_sources(tree, warm)
    # Every file from the cache; a benchmark file's rows are not read yet (below).
    assert warm.misses == 0 and warm.hits == cold.misses - len(second.hardware.files)
    assert second.entries == first.entries and second.prices == first.prices
    # The benchmark rows are read when first used, from the cache too (hardware_source.LazyRows).
    hits = warm.hits
    assert second.hardware_rows == first.hardware_rows and len(first.hardware_rows) > 5
    assert warm.misses == 0 and warm.hits == hits + len(second.hardware.files)
    assert second.hardware == first.hardware  # with the rows' summary
    assert second.hardware.rows_summary == summarize_rows(list(first.hardware_rows))
    assert copy.copy(second.hardware_rows) == first.hardware_rows
    assert pickle.loads(pickle.dumps(load_sources(tree, warm).hardware_rows)) == first.hardware_rows


def test_an_edited_file_is_parsed_again_and_its_problem_reported_every_time(tree):
    load_sources(tree, ParseCache(tree / ".cache" / "parsed"))
    path = tree / "sources" / "prices" / "openai.yaml"
    path.write_text(path.read_text(encoding="utf-8").replace("currency: USD",
                                                             "currency: usd", 1),
                    encoding="utf-8")
    for _ in range(2):
        with pytest.raises(SourceError) as err:
            load_sources(tree, ParseCache(tree / ".cache" / "parsed"))
        assert any(p.path == "sources/prices/openai.yaml" and "currency" in p.field
                   for p in err.value.problems)


def test_a_file_failing_a_data_quality_gate_is_never_kept(tree):
    # The gates run on a fresh parse only; a file that fails one must be parsed, and fail, again.
    load_sources(tree, ParseCache(tree / ".cache" / "parsed"))
    path = tree / "sources" / "prices" / "openai.yaml"
    path.write_text(path.read_text(encoding="utf-8").replace("price: 2.50}", "price: -2.50}", 1),
                    encoding="utf-8")
    path.rename(path.with_name("other.yaml"))
    for _ in range(2):
        cache = ParseCache(tree / ".cache" / "parsed")
        with pytest.raises(SourceError) as err:
            load_sources(tree, cache)
        found = {p.field.split(".")[-1] for p in err.value.problems
                 if p.path == "sources/prices/other.yaml"}
        assert found == {"price", "provider"}
        assert cache.misses == 1


def test_entries_no_load_used_are_pruned(tree):
    folder = tree / ".cache" / "parsed"
    load_sources(tree, ParseCache(folder))
    before = set(folder.glob("*.pickle"))
    (tree / "sources" / "prices" / "zhipu.yaml").unlink()
    cache = ParseCache(folder)
    load_sources(tree, cache)
    cache.prune()
    assert len(set(folder.glob("*.pickle"))) == len(before) - 1


def test_a_kept_file_reports_its_lines_when_another_file_makes_it_wrong(tree):
    # A kept file's line map is read only when asked for (sources.PickledLines): an entry whose
    # section editions.yaml drops must still be reported at its `section:` line.
    load_sources(tree, ParseCache(tree / ".cache" / "parsed"))
    series = tree / "sources" / "editions.yaml"
    series.write_text(series.read_text(encoding="utf-8").replace(
        "  - id: local\n    title: Local view\n    quota: 3\n", ""), encoding="utf-8")
    cache = ParseCache(tree / ".cache" / "parsed")
    with pytest.raises(SourceError) as err:
        load_sources(tree, cache)
    assert cache.hits > 30
    path = "sources/entries/2026/08-16-deepseek-peak-hours-beijing.yaml"
    [problem] = [p for p in err.value.problems if p.path == path]
    assert problem.field == "section" and problem.line == 3
