"""The Hardware page: Markdown, bar charts naming the cost basis, InferenceX scatter."""

from __future__ import annotations

import datetime as dt
import json
from pathlib import Path

from pipeline.build.drawer import Drawer
from pipeline.formats.inferencex import read_inferencex_rows
from pipeline.load.hardware import load_hardware
from pipeline.normalize.accelerators import compiled_patterns
from pipeline.render.drawing import NOW, Draws
from pipeline.render.hardware_page import hardware_page, md_text
from pipeline.tables.hardware import FileInfo, normalize_records
from pipeline.tables.hardware_costs import costed_table, rows_table

ROOT = Path(__file__).resolve().parents[1]


def build(drawer: Draws = NOW):
    hw, rows, _ = load_hardware(ROOT)
    ix = read_inferencex_rows(json.dumps([
        {"hw": "b200", "conc": c, "infmax_model_prefix": "dsr1", "isl": 8192, "osl": 1024,
         "tp": 8, "tput_per_gpu": 100.0 * c, "median_intvty": 200.0 / c} for c in (4, 16)]
        + [{"hw": "h200", "conc": 4, "infmax_model_prefix": "dsr1", "isl": 8192, "osl": 1024,
            "tp": 8, "tput_per_gpu": 90.0, "median_intvty": 30.0}]).encode(), "test")
    more, _ = normalize_records(ix.records, FileInfo("t.json", None, "https://x"),
                                compiled_patterns(hw.accelerators))
    rows = rows + more
    return hardware_page(costed_table(rows_table(rows), hw.costs, dt.date(2026, 9, 12)), rows,
                         [("t.json", 4, "no throughput", 1)], drawer=drawer)


def test_page_lists_groups_bases_and_placeholders():
    md, charts = build()
    assert "## llama2-70b · Offline · closed (MLPerf Inference)" in md
    assert ("| B200 | 5.1-0069 (NVIDIA) | 12,690.9 | owner TCO (hyperscaler) | 1.950 | "
            "23,429,308 | 0.0427 |") in md
    assert "rental contract (3-year) (placeholder)" in md
    assert "## InferenceX dsr1 8192/1024: throughput per GPU against interactivity" in md
    assert "| t.json | 4 | no throughput | 1 |" in md
    assert sorted(charts) == [
        "hardware-inferencex-dsr1-8192-1024.svg",
        "hardware-mlperf-inference-deepseek-r1-offline-closed.svg",
        "hardware-mlperf-inference-deepseek-r1-server-closed.svg",
        "hardware-mlperf-inference-llama2-70b-offline-closed.svg"]
    svg = charts["hardware-mlperf-inference-llama2-70b-offline-closed.svg"].result().decode()
    assert "owner TCO (hyperscaler)" in svg and "rental contract (3-year)" in svg


def test_charts_are_byte_identical_across_builds():
    assert build() == build()


def test_charts_drawn_by_a_worker_are_the_charts_drawn_here():
    with Drawer(1) as drawer:
        assert build(drawer) == build()


def test_third_party_text_is_escaped():
    assert md_text("<img src=x onerror=alert(1)> | x") == \
        "&lt;img src=x onerror=alert(1)&gt; &#124; x"
