"""The Hardware page: Markdown, bar charts naming the cost basis, InferenceX scatter."""

from __future__ import annotations

import datetime as dt
import json
from dataclasses import replace
from pathlib import Path

from pipeline.formats.inferencex import read_inferencex_rows
from pipeline.load.hardware import load_hardware
from pipeline.normalize.accelerators import compiled_patterns
from pipeline.orchestrate.chart_workers import ChartWorkers
from pipeline.render.chart_image import IN_PROCESS, ChartDrawer, ChartImage
from pipeline.render.hardware_page import hardware_page, md_text
from pipeline.tables.hardware import FileInfo, is_public, normalize_records
from pipeline.tables.hardware_costs import costed_table, rows_table

ROOT = Path(__file__).resolve().parents[1]


class Undrawn:
    """Gives every chart as empty bytes: for the tests that read only the Markdown."""

    def submit(self, fn, *args, then=None) -> ChartImage:
        return ChartImage(value=b"")


def build(drawer: ChartDrawer = IN_PROCESS, models: tuple[str, ...] = ()):
    hw, rows, _ = load_hardware(ROOT)
    rows = [r for r in rows if is_public(r, dt.date(2026, 9, 12))
            and (not models or r.model in models)]
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
    md, charts = build(models=("llama2-70b", "deepseek-r1", "dsr1"))
    assert ("## llama2-70b, 99 % accuracy target · Offline · closed division "
            "(MLPerf Inference v5.1)") in md
    assert ("## llama2-70b, 99.9 % accuracy target · Offline · closed division "
            "(MLPerf Inference v5.1)") in md
    # 102,909 tokens/s on 8 B200 = 12,863.6 per GPU; × 3600 / $1.95 = 23,748,231 per dollar,
    # 23.7 M to three figures; 1e6 / 23,748,231 = $0.0421 per Mtok.
    assert ("| B200 | [5\\.1\\-0061](https://github.com/mlcommons/inference_results_v5.1/tree/main/"
            "closed/Lenovo/results/SR680a_V3_B200SXMx8_TRT/llama2-70b-99/Offline) (Lenovo) | "
            "12,863.6 | [owner TCO \\(hyperscaler\\)](https://github.com/SemiAnalysisAI/InferenceX-app/"
            "blob/77ca49a679198bbf593bd1a57fe26a27c9967bb3/packages/app/src/lib/constants.ts) | "
            "$1.95 | 23.7 M | $0.0421 |") in md
    assert "\\(3\\-year\\)](https://github.com/SemiAnalysisAI/" in md and ") (placeholder) |" in md
    assert "## InferenceX dsr1 8192/1024: throughput per GPU against interactivity" in md
    assert "| t.json | 4 | no throughput | 1 |" in md
    assert len(charts) == 9 and "hardware-inferencex-dsr1-8192-1024.svg" in charts
    assert "hardware-mlperf-inference-v5-1-deepseek-r1-99-offline-closed.svg" in charts
    svg = charts["hardware-mlperf-inference-v5-1-llama2-70b-99-offline-closed.svg"].result().decode()
    assert "owner TCO (hyperscaler)" in svg and "rental contract (3-year)" in svg


def deepseek_offline(md: str) -> list[str]:
    start = md.index("## deepseek-r1, 99 % accuracy target · Offline")
    return [line.split(" | ")[0].lstrip("| ") for line in md[start:].split("\n\n")[2].splitlines()[2:]]


def test_every_accelerator_with_a_cost_is_compared_and_v61_waits():
    md, charts = build(Undrawn())
    assert len(charts) == 16  # every MLPerf group with a costed result, and the InferenceX one
    # deepseek-r1 Offline, closed, owner TCO (hyperscaler) first: GB300 420,659 / 72 × 3600 /
    # 2.652 = 7.93 M (placeholder cost); B200 33,379 / 8 × 3600 / 1.95 = 7.70 M; GB200
    # 289,712 / 72 × 3600 / 2.21 = 6.55 M. Then the same three on the two other bases.
    assert deepseek_offline(md)[:3] == ["GB300", "B200", "GB200"]
    assert "5\\.1\\-0071](https://github.com/mlcommons/inference_results_v5.1/tree/main/closed/" \
           "NVIDIA/results/GB200-NVL72_GB200-186GB_aarch64x72_TRT/deepseek-r1/Server)" in md
    assert "v6.1#" not in md and "395,940" not in md
    assert "No system is in two rounds that both have a publication date yet" in md


def test_every_result_and_cost_on_the_page_is_a_link():
    md, _ = build(Undrawn())
    tables = [line for line in md.splitlines() if line.startswith("| ") and "---" not in line
              and not line.startswith(("| Accelerator |", "| Result |", "| File |", "| t.json"))]
    assert tables and all("](https://github.com/mlcommons/inference_results_v5.1/tree/main/"
                          in line for line in tables)
    costed = [line for line in tables if "owner TCO" in line or "rental contract" in line]
    assert costed and all("](https://github.com/SemiAnalysisAI/" in line for line in costed)


def test_round_over_round_once_both_rounds_have_a_date():
    hw, rows, _ = load_hardware(ROOT)
    dated = [replace(r, published=dt.date(2026, 9, 9)) if r.round == "v6.1" else r for r in rows]
    public = [r for r in dated if is_public(r, dt.date(2026, 9, 12))]
    md, _ = hardware_page(costed_table(rows_table(public), hw.costs, dt.date(2026, 9, 12)),
                          public, drawer=Undrawn())
    section = md[md.index("## Round over round"):].split("\n## ")[0]
    # 395,940 / 167,578 = 2.3627: the same GB200 NVL72 rack, v5.1 Server to v6.1 Server.
    assert ("| NVIDIA GB200-NVL72_GB200-186GB_aarch64x72_TRT | deepseek-r1, 99 % "
            "accuracy target · Server · closed | v5.1 [5\\.1\\-0071]") in section
    assert "| 167,578.0 | v6.1 [v6\\.1\\#298](" in section and "| 395,940.0 | ×2.36 |" in section
    # And the GB300 NVL72 rack, Offline: 679,740 / 420,659 (5.1-0072) = 1.6159.
    assert "| 420,659.0 | v6.1 [v6\\.1\\#307](" in section and "| 679,740.0 | ×1.62 |" in section
    # The v6.1 tables are their own groups, headed by their round.
    assert "(MLPerf Inference v6.1)" in md


def test_charts_are_byte_identical_across_builds():
    assert build(models=("deepseek-r1", "dsr1")) == build(models=("deepseek-r1", "dsr1"))


def test_charts_drawn_by_a_worker_are_the_charts_drawn_here():
    with ChartWorkers(1) as drawer:
        assert build(drawer, ("deepseek-r1", "dsr1")) == build(models=("deepseek-r1", "dsr1"))


def test_third_party_text_is_escaped():
    assert md_text("<img src=x onerror=alert(1)> | x") == \
        "&lt;img src=x onerror=alert(1)&gt; &#124; x"


def test_the_rendered_tables_link_every_row_and_keep_their_columns():
    # Rendered as the site renders Markdown: an escaping slip in a link (a pipe, a bracket)
    # would split a cell or lose the link.
    import re

    from pipeline.render.markdown_html import markdown_html

    md, _ = build(Undrawn(), ("llama2-70b", "deepseek-r1"))
    html = markdown_html(md)
    tables = re.findall(r"<table>.*?</table>", html, re.S)
    compared = [t for t in tables if re.match(r"<table>\s*<thead>\s*<tr>\s*<th>Accelerator</th>", t)]
    assert len(compared) == 8  # llama2-70b: 3 scenarios × 2 targets; deepseek-r1: 2 scenarios
    for table in compared:
        for row in re.findall(r"<tr>(.*?)</tr>", table, re.S)[1:]:
            cells = re.findall(r"<td[^>]*>(.*?)</td>", row, re.S)
            assert len(cells) == 7, row
            assert cells[1].startswith('<a href="https://github.com/mlcommons/inference_results_v5.1/')
            assert cells[3].startswith('<a href="https://github.com/SemiAnalysisAI/InferenceX-app/')
    (marked,) = [t for t in tables if re.match(r"<table>\s*<thead>\s*<tr>\s*<th>Result</th>", t)]
    rows = re.findall(r"<tr>(.*?)</tr>", marked, re.S)[1:]
    assert rows and all(re.findall(r"<td[^>]*>(.*?)</td>", r, re.S)[0].startswith(
        '<a href="https://github.com/mlcommons/inference_results_v5.1/tree/main/') for r in rows)


def test_a_chart_drawn_after_others_is_the_same():
    # Each kind is drawn on one figure a process (render/hardware_charts.py): what the last
    # chart drew must not show in the next.
    _, charts = build(models=("llama2-70b", "dsr1"))
    _, again = build(models=("dsr1", "llama2-70b"))
    assert {name: c.result() for name, c in charts.items()} == \
        {name: c.result() for name, c in again.items()}
