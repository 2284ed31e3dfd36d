"""The public/data/hardware.csv and .json contracts."""

from __future__ import annotations

import csv
import datetime as dt
import io
import json
from dataclasses import replace
from pathlib import Path

import pandas as pd

from pipeline.formats.benchmark_record import BenchmarkRecord
from pipeline.load.hardware import load_hardware
from pipeline.models.hardware import Accelerator, HourlyCost
from pipeline.normalize.accelerators import compiled_patterns
from pipeline.tables.hardware import FileInfo, is_public, normalize_records
from pipeline.tables.hardware_costs import costed_table, rows_table
from pipeline.tables.hardware_files import COLUMNS, hardware_csv, hardware_json, hardware_table

ROOT = Path(__file__).resolve().parents[1]


def costed():
    hw, rows, _ = load_hardware(ROOT)
    public = [r for r in rows if is_public(r, dt.date(2026, 9, 12))]
    return costed_table(rows_table(public), hw.costs, dt.date(2026, 9, 12))


def test_csv_has_cost_columns_per_basis():
    lines = list(csv.DictReader(io.StringIO(hardware_csv(hardware_table(costed())).decode())))
    assert list(lines[0]) == list(COLUMNS)
    b200 = [r for r in lines if (r["citation_id"], r["model"], r["accuracy_target"],
                                 r["scenario"]) == ("5.1-0069", "llama2-70b", "99", "Offline")]
    assert [r["cost_basis"] for r in b200] == ["owner_tco/hyperscaler", "owner_tco/neocloud",
                                               "rental_contract/3-year"]
    assert (b200[0]["usd_per_accelerator_hour"], b200[0]["tokens_per_usd"],
            b200[0]["usd_per_mtok"]) == ("1.95", "23429300.0", "0.0426816")
    assert b200[0]["details_url"] == (
        "https://github.com/mlcommons/inference_results_v5.1/tree/main/closed/NVIDIA/results/"
        "B200-SXM-180GBx8_TRT/llama2-70b-99/Offline")
    gb300 = [r for r in lines if r["accelerator"] == "GB300" and r["cost_basis"]]
    assert gb300 and {r["cost_placeholder"] for r in gb300} == {"True"}
    # v6.1 has no publication date: none of its results is in the data files.
    assert {r["round"] for r in lines} == {"v5.1"}


def test_json_matches_csv_value_for_value_and_is_stable():
    data = costed()
    doc = json.loads(hardware_json(hardware_table(data)))
    assert doc["columns"] == list(COLUMNS)
    rows = list(csv.DictReader(io.StringIO(hardware_csv(hardware_table(data)).decode())))
    assert len(doc["rows"]) == len(rows) > 0
    for from_json, from_csv in zip(doc["rows"], rows, strict=True):
        assert list(from_json) == list(COLUMNS)
        # CSV writes None as an empty cell and every value as text.
        assert {k: "" if v is None else str(v) for k, v in from_json.items()} == from_csv
    assert hardware_json(hardware_table(data)) == hardware_json(hardware_table(costed()))


def small_costed():
    """Two B200 rows, one costed (8 accelerators, $1.95 an hour), one before any cost."""
    patterns = compiled_patterns([Accelerator(name="B200", vendor="v", patterns=["b200"],
                                              source_url="https://example.com")])
    record = BenchmarkRecord(
        suite="MLPerf Inference", round="v5.1", result_id="5.1-0069", row_ref="0",
        submitter="NVIDIA", system="DGX B200", accelerator_text="NVIDIA B200", accelerator_count=8,
        nodes=1, model="llama2-70b", accuracy_target="99", scenario="Offline", division="closed",
        availability="available", inferred=False, metric="throughput", value=101527.0,
        units="Tokens/s", osl=1024)
    info = FileInfo("sources/benchmarks/x.json", dt.date(2025, 9, 9), "https://example.com/x")
    rows, _ = normalize_records([record, replace(record, units="Queries/s")], info, patterns)
    day = dt.date(2026, 4, 3)
    b200 = HourlyCost(accelerator="B200", basis="owner_tco", scenario="hyperscaler",
                      amount_per_hour=1.95, date=day, checked=day, source="s",
                      source_url="https://example.com/c")
    return costed_table(rows_table(rows), [b200], day)


def test_the_table_of_the_files_column_by_column():
    table = hardware_table(small_costed().iloc[::-1])  # any index: the table's is 0, 1
    assert list(table.columns) == list(COLUMNS) and list(table.index) == [0, 1]
    assert table["units"].tolist() == ["Queries/s", "Tokens/s"]
    assert table["accelerator_count"].tolist() == [8, 8]
    assert table["osl"].tolist() == [1024, 1024] and table["isl"].isna().all()
    assert table["published"].tolist() == ["2025-09-09", "2025-09-09"]
    assert pd.isna(table["fx_rate_date"][0]) and table["fx_rate_date"][1] == "2026-04-03"
    # 101,527 / 8 × 3600 / 1.95 = 23,429,307.69 tokens per dollar and 1.95 × 10^6 / (101,527 /
    # 8 × 3600) = 0.04268159 USD per million, to six significant figures.
    assert table["tokens_per_usd"].tolist()[1] == 23429300.0
    assert table["usd_per_mtok"].tolist()[1] == 0.0426816
    assert table[["tokens_per_usd", "usd_per_mtok", "usd_per_accelerator_hour"]].iloc[0].isna().all()

    lines = hardware_csv(table).decode().splitlines()
    assert lines[0] == ",".join(COLUMNS) and len(lines) == 3
    cells = dict(zip(COLUMNS, lines[2].split(",")))
    assert (cells["accelerator_count"], cells["isl"], cells["osl"], cells["tokens_per_usd"],
            cells["usd_per_mtok"], cells["usd_per_accelerator_hour"], cells["fx_rate_date"]) == (
        "8", "", "1024", "23429300.0", "0.0426816", "1.95", "2026-04-03")
    doc = json.loads(hardware_json(table))
    assert list(doc) == ["columns", "rows"] and doc["columns"] == list(COLUMNS)
    uncosted, costed_row = doc["rows"]
    assert list(costed_row) == list(COLUMNS)
    assert (costed_row["accelerator_count"], costed_row["isl"], costed_row["tokens_per_usd"],
            costed_row["usd_per_accelerator_hour"]) == (8, None, 23429300.0, 1.95)
    assert (uncosted["tokens_per_usd"], uncosted["usd_per_mtok"], uncosted["fx_rate_date"],
            uncosted["cost_basis"]) == (None, None, None, "")
