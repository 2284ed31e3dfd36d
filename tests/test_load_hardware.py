"""Loading sources/hardware and sources/benchmarks: bundled files, problems people see."""

from __future__ import annotations

import datetime as dt
import json
import shutil
from pathlib import Path

import pytest
from conftest import ecb_fixing

from pipeline.cache.parse_cache import ParseCache
from pipeline.cache.store import Store
from pipeline.formats.benchmark_record import is_defect
from pipeline.load.hardware import load_hardware, undated_round_quotes
from pipeline.load.parse import read_benchmark
from pipeline.models.entries import Entry
from pipeline.models.sourced import CuratedEntry
from pipeline.normalize.accelerators import accelerator_patterns
from pipeline.tables.hardware import FileInfo

ROOT = Path(__file__).resolve().parents[1]


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    shutil.copytree(ROOT / "sources" / "hardware", tmp_path / "sources" / "hardware")
    shutil.copytree(ROOT / "sources" / "benchmarks", tmp_path / "sources" / "benchmarks")
    return tmp_path


def test_bundled_sources_load_clean():
    hw, rows, problems = load_hardware(ROOT)
    # The whole v5.1 summary: rows we do not follow are listed on the page, not warned about.
    assert problems == []
    assert {a.name for a in hw.accelerators} == {"H100", "H200", "B200", "B300", "GB200",
                                                 "GB300", "MI300X", "MI325X", "MI355X", "TPU v7"}
    by_key = {(r.citation_id, r.model, r.accuracy_target, r.scenario): r for r in rows}
    assert by_key["5.1-0069", "llama2-70b", "99", "Offline"].value == 101527.0
    assert by_key["5.1-0026", "llama2-70b", "99", "Offline"].value == 35316.7
    assert by_key["5.1-0002", "llama2-70b", "99", "Offline"].value == 34520.4
    gb200 = by_key["5.1-0071", "deepseek-r1", "99", "Server"]
    assert (gb200.value, gb200.accelerator_count) == (167578.0, 72)
    assert by_key["v6.1#307", "deepseek-r1", "99", "Offline"].accelerator_count == 72
    assert by_key["v6.1#298", "deepseek-r1", "99", "Server"].value == 395940.0
    # 1,448 rows: 877 CPU-only, 27 latency, 8 mixed systems, 108 on accelerators we do not
    # follow; the 428 left are in the table, with the two v6.1 results.
    (report, _) = hw.reports
    assert (report.total_rows, report.table_rows) == (1448, 428)
    assert len(rows) == 430
    placeholders = {c.accelerator for c in hw.costs if c.placeholder}
    assert placeholders == {"B300", "GB300"}
    b300 = next(c for c in hw.costs if c.accelerator == "B300" and c.scenario == "hyperscaler")
    assert b300.amount_per_hour == pytest.approx(1.2 * 1.95)


def test_missing_cost_is_an_error(repo):
    costs = repo / "sources/hardware/costs.yaml"
    text = costs.read_text()
    head, *items = text.split("\n  - accelerator: ")
    kept = [i for i in items if not i.startswith("MI325X")]
    costs.write_text(head + "".join("\n  - accelerator: " + i for i in kept))
    _, _, problems = load_hardware(repo)
    assert [str(p) for p in problems] == [
        "sources/benchmarks/mlperf-inference/v5.1/summary_results.json: 8: no hourly cost for "
        "MI325X in sources/hardware/costs.yaml, but result 5.1-0002 needs one for tokens per "
        "dollar (a missing cost is never $0); add a cost with its source"]


def test_missing_cost_is_an_error_when_the_rows_come_from_the_cache(repo):
    # The rows stay unread on a cached load unless a problem needs one of them.
    cache = ParseCache(Store(repo / ".cache", {"load": "code"}))
    load_hardware(repo, cache.parse)
    cache.store.keep()
    costs = repo / "sources/hardware/costs.yaml"
    head, *items = costs.read_text().split("\n  - accelerator: ")
    costs.write_text(head + "".join("\n  - accelerator: " + i for i in items
                                    if not i.startswith("MI325X")))
    _, rows, problems = load_hardware(repo, ParseCache(Store(repo / ".cache", {"load": "code"})).parse)
    assert [p.message.split(",")[0] for p in problems] == [
        "no hourly cost for MI325X in sources/hardware/costs.yaml"]
    assert rows == load_hardware(repo)[1]


def test_unknown_accelerator_in_costs(repo):
    costs = repo / "sources/hardware/costs.yaml"
    costs.write_text(costs.read_text().replace("accelerator: H100", "accelerator: H1OO", 1))
    _, _, problems = load_hardware(repo)
    assert str(problems[0]).startswith("sources/hardware/costs.yaml: costs.0.accelerator: "
                                       "unknown accelerator 'H1OO'; sources/hardware/"
                                       "accelerators.yaml has: B200, B300, GB200")
    # The line of the first `accelerator:` in the file, found here rather than typed.
    lines = costs.read_text().splitlines()
    assert problems[0].line == 1 + next(i for i, t in enumerate(lines) if "accelerator: H1OO" in t)


def test_placeholder_needs_a_note(repo):
    costs = repo / "sources/hardware/costs.yaml"
    lines = costs.read_text().splitlines(keepends=True)
    first_note = next(i for i, line in enumerate(lines) if line.startswith("    note: Estimate"))
    costs.write_text("".join(lines[:first_note] + lines[first_note + 1:]))
    _, _, problems = load_hardware(repo)
    assert [(p.field, p.message) for p in problems] == [
        ("costs.9", "a placeholder cost needs a `note` saying how it was derived")]


def test_misspelt_key(repo):
    costs = repo / "sources/hardware/costs.yaml"
    costs.write_text(costs.read_text().replace("    note: Estimate", "    notes: Estimate", 1))
    _, _, problems = load_hardware(repo)
    assert [(p.field, p.message) for p in problems] == [
        ("costs.9.notes", "unknown key; did you mean `note`?")]


def test_unlisted_and_unreadable_files(repo):
    bench = repo / "sources/benchmarks"
    (bench / "stray.json").write_text("[]")
    (bench / "mlperf-inference/v6.1/summary.json").write_text('{"a": 1}')
    _, rows, problems = load_hardware(repo)
    assert [str(p) for p in problems] == [
        "sources/benchmarks/mlperf-inference/v6.1/summary.json: warning: not read as "
        "mlperf-inference: a JSON object, but not keyed \"0\", \"1\", … with `Result` rows: "
        "not an MLPerf v6.1 summary.json; its results are left out (the Hardware page lists the "
        "file)",
        "sources/benchmarks/stray.json: not listed in sources/benchmarks/index.yaml; add it "
        "with its suite, round and publication date"]
    assert {r.round for r in rows} == {"v5.1"}


def test_real_v51_every_row_accounted_for(real_data):
    hw, _, _ = load_hardware(ROOT)
    data = (real_data / "mlperf-inference/v5.1/summary_results.json").read_bytes()
    assert data == (ROOT / "sources/benchmarks/mlperf-inference/v5.1/summary_results.json"
                    ).read_bytes()  # the bundled file is the published one, unchanged
    rows, report = read_benchmark(data, "mlperf-inference", "v5.1",
                                  FileInfo("real", dt.date(2025, 9, 9), "https://x"),
                                  accelerator_patterns(hw.accelerators))
    left_out = dict(report.skipped)
    assert report.total_rows == 1448
    assert len(rows) + sum(left_out.values()) == 1448
    assert left_out["no accelerator named (CPU-only system)"] == 877
    assert left_out["several accelerator types in one system"] == 8
    # The Intel Arc rows without a count are left out for their accelerator, not as defects.
    assert not any(is_defect(reason) for reason in left_out)
    llama = {r.citation_id for r in rows if (r.model, r.scenario) == ("llama2-70b", "Offline")}
    assert {"5.1-0069", "5.1-0026", "5.1-0002"} <= llama


def test_a_defect_in_a_publishers_file_is_a_warning_a_row_we_do_not_follow_is_not(repo):
    path = repo / "sources/benchmarks/mlperf-inference/v5.1/summary_results.json"
    path.write_text(json.dumps([
        {"ID": "5.1-0001", "Category": "closed", "Availability": "available",
         "Model": "llama2-70b-99", "Scenario": "Offline", "Accelerator": "NVIDIA B200-SXM-180GB",
         "a#": 8, "Nodes": 1, "version": "v5.1", "Performance_Result": 100000.0,
         "Performance_Units": "Tokens/s"},
        {"ID": "5.1-0002", "Model": "resnet", "Scenario": "Offline", "Accelerator": "",
         "Performance_Result": 5.0, "Performance_Units": "Samples/s"},
        {"ID": "5.1-0003", "Model": "llama2-70b-99", "Scenario": "Offline",
         "Accelerator": "NVIDIA L40S", "a#": 8, "Performance_Result": 1.0,
         "Performance_Units": "Tokens/s"},
        {"ID": "5.1-0004", "Model": "llama2-70b-99", "Scenario": "Offline",
         "Accelerator": "NVIDIA B200-SXM-180GB", "a#": "", "Performance_Result": 1.0,
         "Performance_Units": "Tokens/s"}]))
    _, rows, problems = load_hardware(repo)
    assert [r.citation_id for r in rows if r.round == "v5.1"] == ["5.1-0001"]
    assert [str(p) for p in problems] == [
        "sources/benchmarks/mlperf-inference/v5.1/summary_results.json: warning: 1 of 4 rows "
        "not in the table: accelerator count missing or not a whole number"]


def _entry(summary: str) -> CuratedEntry:
    return CuratedEntry("x", Entry(date=dt.date(2026, 10, 2), section="top", headline="h",
                                   summary=summary,
                                   links=[{"url": "https://example.com/", "publisher": "p"}]),
                        "sources/entries/2026/10-02-x.yaml")


def test_an_entry_quoting_a_round_without_a_date_is_warned(repo):
    hw, rows, _ = load_hardware(repo)
    quoting = _entry("GB300 NVL72 did 679,740 tokens/s; GB200 NVL72 went from 167,578 to 395940.")
    assert [str(p) for p in undated_round_quotes([quoting], hw, rows)] == [
        "sources/entries/2026/10-02-x.yaml: summary: warning: states 679,740 and 395940 from "
        "MLPerf Inference v6.1 (v6.1#307, v6.1#298), whose publication date is not set in "
        "sources/benchmarks/index.yaml (files.1.published): set the date the round's results "
        "became public, or leave the figures out until it is known (until then no page compares "
        "them)"]
    # 167,578 is a v5.1 figure (published), and "72 GPUs" or "679" are not results.
    assert undated_round_quotes([_entry("167,578 on 72 GPUs, 679 and 6,797,400")], hw, rows) == []
    # Once the round has its date, the same entry is fine.
    index = repo / "sources/benchmarks/index.yaml"
    index.write_text(index.read_text().replace("published: null", "published: 2026-09-09"))
    hw, rows, _ = load_hardware(repo)
    assert undated_round_quotes([quoting], hw, rows) == []


def test_bundled_check_is_strict_clean_and_fails_on_an_entry_quoting_v61(tmp_path):
    from pipeline.load.sources import load_sources
    from pipeline.problems import SourceError

    load_sources(ROOT, strict=True)  # raises on any warning
    shutil.copytree(ROOT / "sources", tmp_path / "sources")
    entry = tmp_path / "sources/entries/2026/10-02-mlperf-v6-1-deepseek-r1.yaml"
    entry.write_text(entry.read_text().replace(
        "a GB300 NVL72 rack in the Offline scenario", "a GB300 NVL72 rack at 679,740 tokens/s"))
    assert [p.field for p in load_sources(tmp_path).warnings] == ["summary"]
    with pytest.raises(SourceError) as err:
        load_sources(tmp_path, strict=True)
    assert [(p.path, p.field) for p in err.value.problems] == [
        ("sources/entries/2026/10-02-mlperf-v6-1-deepseek-r1.yaml", "summary")]


@pytest.fixture
def full_repo(tmp_path: Path) -> Path:
    shutil.copytree(ROOT / "sources", tmp_path / "sources")
    return tmp_path


def _cost_in(repo: Path, currency: str) -> None:
    costs = repo / "sources" / "hardware" / "costs.yaml"
    text = costs.read_text(encoding="utf-8")
    b200 = text.index("  - accelerator: B200\n    basis: owner_tco\n    scenario: hyperscaler")
    at = text.index("currency: USD", b200)
    costs.write_text(text[:at] + f"currency: {currency}" + text[at + len("currency: USD"):],
                     encoding="utf-8")


def test_a_cost_in_euros_is_converted_at_the_ecb_rate_of_its_date(full_repo):
    repo = full_repo
    import csv
    import io

    from pipeline.compose.hardware import hardware_shown
    from pipeline.load.sources import load_sources
    from pipeline.render.hardware_page import hardware_files

    _cost_in(repo, "EUR")
    sources = load_sources(repo)
    # The cost is dated 2026-04-03, Good Friday: no fixing, so the one of the day before.
    fixed, eur = ecb_fixing("EUR", "2026-04-03")
    assert fixed == "2026-04-02"
    files = hardware_files(hardware_shown(sources, dt.date(2026, 11, 30)))
    rows = [r for r in csv.DictReader(io.StringIO(files["data/hardware.csv"].decode()))
            if r["result_id"] == "5.1-0069" and r["cost_basis_label"] == "owner TCO (hyperscaler)"]
    assert rows and float(rows[0]["usd_per_accelerator_hour"]) == pytest.approx(
        1.95 * eur)
    assert rows[0]["fx_rate_date"] == fixed


def test_a_cost_in_a_currency_without_ecb_rates_names_the_field(full_repo):
    repo = full_repo
    from pipeline.load.sources import load_sources
    from pipeline.problems import SourceError

    _cost_in(repo, "XYZ")
    with pytest.raises(SourceError) as err:
        load_sources(repo)
    assert [(p.path, p.field) for p in err.value.problems] == [
        ("sources/hardware/costs.yaml", "costs.6.currency")]
