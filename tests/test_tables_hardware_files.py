"""The public/data/hardware.csv and .json contracts."""

from __future__ import annotations

import csv
import datetime as dt
import io
import json
from pathlib import Path

from pipeline.load.hardware import load_hardware
from pipeline.tables.hardware import is_public
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
