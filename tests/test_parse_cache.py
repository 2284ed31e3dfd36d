"""Parsed sources are kept between builds by content, and never hide a problem."""

from __future__ import annotations

import dataclasses
import shutil
from pathlib import Path

import pytest

from pipeline.cache.keys import hardware_key
from pipeline.cache.parse_cache import ParseCache
from pipeline.cache.store import Store
from pipeline.load.parse import Parse
from pipeline.load.sources import load_sources
from pipeline.problems import SourceError
from pipeline.tables.hardware import FileInfo

ROOT = Path(__file__).resolve().parents[1]
CODES = {"load": "load-code"}


def opened(folder: Path) -> ParseCache:
    """A parse cache over the store kept in `folder`, as a build opens it."""
    return ParseCache(Store(folder, CODES))


def loaded(tree: Path, **kw) -> ParseCache:
    """Load `tree`'s sources through a parse cache, kept after as a good build keeps it."""
    cache = opened(tree / ".cache" / "store")
    load_sources(tree, cache.parse, **kw)
    cache.store.keep()
    return cache


@pytest.fixture
def tree(tmp_path: Path) -> Path:
    shutil.copytree(ROOT / "sources", tmp_path / "sources")
    return tmp_path


def test_a_second_load_reads_every_file_from_the_cache_and_gets_the_same_sources(tree):
    cold = opened(tree / ".cache" / "store")
    first = load_sources(tree, cold.parse)
    cold.store.keep()
    assert cold.hits == 0 and cold.misses > 30
    warm = opened(tree / ".cache" / "store")
    second = load_sources(tree, warm.parse)
    # Every file from the cache, the benchmark files' rows too.
    assert warm.misses == 0 and warm.hits == cold.misses
    assert second.entries == first.entries and second.prices == first.prices
    assert second.hardware_rows == first.hardware_rows and len(first.hardware_rows) > 5
    assert second.hardware == first.hardware and second.snapshots == first.snapshots
    # A kept file still knows the line of each value.
    [sourced] = [s for s in second.prices.values() if s.path.endswith("deepseek.yaml")]
    assert sourced.lines == next(s for s in first.prices.values() if s.path == sourced.path).lines


def test_the_hardware_key_follows_the_result_files(tree):
    # Composed hardware parts are keyed by what the rows were read from (each benchmark file's
    # key in the parse cache), so an edited result must change the key, and an untouched tree
    # must not; without a cache the rows themselves are digested, to the same effect.
    def key(cache: ParseCache | None) -> tuple[str, list]:
        sources = load_sources(tree, cache.parse) if cache else load_sources(tree)
        if cache:
            cache.store.keep()
        return (hardware_key(sources, cache.file_key if cache else lambda name: None),
                list(sources.hardware_rows))

    first, rows = key(opened(tree / ".cache" / "store"))
    assert key(opened(tree / ".cache" / "store"))[0] == first
    uncached = key(None)[0]
    results = tree / "sources" / "benchmarks" / "mlperf-inference" / "v5.1" / "summary_results.json"
    results.write_text(results.read_text(encoding="utf-8").replace("101527.0", "101528.0", 1),
                       encoding="utf-8")
    edited, edited_rows = key(opened(tree / ".cache" / "store"))
    assert edited_rows != rows and edited != first
    assert key(None)[0] != uncached


def test_an_edited_file_is_parsed_again_and_its_problem_reported_every_time(tree):
    loaded(tree)
    path = tree / "sources" / "prices" / "openai.yaml"
    path.write_text(path.read_text(encoding="utf-8").replace("currency: USD",
                                                             "currency: usd", 1),
                    encoding="utf-8")
    for _ in range(2):
        with pytest.raises(SourceError) as err:
            loaded(tree)
        assert any(p.path == "sources/prices/openai.yaml" and "currency" in p.field
                   for p in err.value.problems)


def test_a_file_failing_a_data_quality_gate_is_never_kept(tree):
    # The gates run on a fresh parse only; a file that fails one must be parsed, and fail, again.
    loaded(tree)
    path = tree / "sources" / "prices" / "openai.yaml"
    path.write_text(path.read_text(encoding="utf-8").replace("price: 2.50}", "price: -2.50}", 1),
                    encoding="utf-8")
    path.rename(path.with_name("other.yaml"))
    for _ in range(2):
        cache = opened(tree / ".cache" / "store")
        with pytest.raises(SourceError) as err:
            load_sources(tree, cache.parse)
        found = {p.field.split(".")[-1] for p in err.value.problems
                 if p.path == "sources/prices/other.yaml"}
        assert found == {"price", "provider"}
        assert cache.misses == 1


def test_entries_no_load_used_are_pruned(tree):
    # The store keeps what a build used (dropping the rest once a quarter of its file is dead,
    # test_store.py): a deleted file's parse is no longer among them.
    before = len(loaded(tree).store.used["load"])
    (tree / "sources" / "prices" / "zhipu.yaml").unlink()
    assert len(loaded(tree).store.used["load"]) == before - 1


def test_a_kept_file_reports_its_lines_when_another_file_makes_it_wrong(tree):
    # A kept file's line map is read only when asked for (a lazy line map): an entry whose
    # section editions.yaml drops must still be reported at its `section:` line.
    loaded(tree)
    series = tree / "sources" / "editions.yaml"
    series.write_text(series.read_text(encoding="utf-8").replace(
        "  - id: local\n    title: Local view\n    quota: 3\n", ""), encoding="utf-8")
    cache = opened(tree / ".cache" / "store")
    with pytest.raises(SourceError) as err:
        load_sources(tree, cache.parse)
    assert cache.hits > 30
    path = "sources/entries/2026/08-16-deepseek-peak-hours-beijing.yaml"
    [problem] = [p for p in err.value.problems if p.path == path]
    assert problem.field == "section" and problem.line == 3


def test_what_else_a_parse_reads_is_part_of_its_key(tmp_path):
    # A benchmark file's rows depend on its index entry and the accelerators' patterns as much
    # as on its bytes: a Parse carries them in `context`, and the key digests them.
    data = (ROOT / "sources/benchmarks/mlperf-inference/v5.1/summary_results.json").read_bytes()
    info = FileInfo("sources/benchmarks/x.json", None, "https://example.com/x")
    job = Parse("benchmark", info.path, data, ("mlperf-inference", "v5.1", info,
                                               (("H100", "h100"),)))
    cache = opened(tmp_path)
    first, problems = cache.parse(job)
    assert problems == [] and cache.parse(job) == (first, [])
    assert (cache.hits, cache.misses) == (1, 1)
    wider = dataclasses.replace(job, context=(*job.context[:3],
                                              (("H100", "h100"), ("H200", "h200"))))
    (rows, _), _ = cache.parse(wider)
    assert cache.misses == 2 and len(rows) > len(first[0]) > 0
    assert cache.key(wider) != cache.key(job) == opened(tmp_path).key(job)


def test_a_parse_with_problems_is_never_kept(tmp_path):
    job = Parse("Snapshot", "sources/snapshots/feeds/x.json", b"{not json")
    for _ in range(2):
        cache = opened(tmp_path)
        value, [problem] = cache.parse(job)
        assert value is None and problem.severity == "warning"
        assert (cache.hits, cache.misses) == (0, 1)
        cache.store.keep()
    assert opened(tmp_path).store.known("load") == {}


def test_brief_check_reads_what_the_last_build_parsed_and_writes_nothing(copy_repo_sources,
                                                                          monkeypatch):
    """`brief check` of a tree a build left its cache in parses only the files changed since,
    prints exactly what a check without the cache prints (a problem, a warning), and leaves the
    cache as it was: it may run beside a build."""
    from click.testing import CliRunner
    from conftest import tree_digest

    from pipeline.cli.main import main

    root = copy_repo_sources()  # with the bundled build's cache
    entry = root / "sources" / "entries" / "2026" / "08-16-deepseek-peak-hours-beijing.yaml"
    entry.write_text(entry.read_text("utf-8").replace("section: ", "section: nowhere-", 1),
                     encoding="utf-8")
    results = root / "sources" / "benchmarks" / "mlperf-inference" / "v5.1" / "summary_results.json"
    results.write_bytes(results.read_bytes()[:5000])  # cut, as a failed download leaves it
    kept = tree_digest(root / ".cache")
    caches: list[ParseCache] = []
    made = ParseCache.__init__

    def spied(self, *args, **kwargs):
        made(self, *args, **kwargs)
        caches.append(self)

    monkeypatch.setattr(ParseCache, "__init__", spied)
    warm = CliRunner().invoke(main, ["check", "--root", str(root)])
    [cache] = caches
    assert cache.misses == 2 and cache.hits > 30  # the two files changed, the rest as kept
    assert tree_digest(root / ".cache") == kept
    monkeypatch.setenv("BRIEF_CACHE", "off")
    cold = CliRunner().invoke(main, ["check", "--root", str(root)])
    assert (warm.exit_code, warm.output) == (cold.exit_code, cold.output)
    assert warm.exit_code == 1 and "unknown section 'nowhere-" in warm.output
    assert "summary_results.json: warning: not read as mlperf-inference" in warm.output
