"""Hardware figures and radar items for an edition window."""

from __future__ import annotations

import datetime as dt
from dataclasses import replace
from pathlib import Path

import pytest

from pipeline.compose.hardware import figure_index, hardware_figures, hardware_radar, window_slice
from pipeline.compose.types import Citation, Figure, RadarItem
from pipeline.formats.benchmark_record import BenchmarkRecord
from pipeline.load.hardware import load_hardware
from pipeline.models.hardware import Accelerator, BenchmarkFile, HourlyCost
from pipeline.models.hardware_results import Hardware
from pipeline.normalize.accelerators import compiled_patterns
from pipeline.tables.hardware import CostError, FileInfo, normalize_records

ROOT = Path(__file__).resolve().parents[1]


def test_first_edition_cites_published_results_only():
    hw, rows, _ = load_hardware(ROOT)
    figures = hardware_figures(hw, rows, dt.date(2026, 9, 12), None)
    # The comparisons of the most accelerators, one per model and scenario.
    assert [f.id for f in figures] == ["hardware-v5-1-llama2-70b-99-offline",
                                       "hardware-v5-1-llama2-70b-99-server",
                                       "hardware-v5-1-llama2-70b-99-interactive"]
    llama = figures[0]
    # By hand, tokens/s ÷ accelerators × 3600 ÷ owner TCO (hyperscaler) per hour:
    # B200 102,909 / 8 × 3600 / 1.95 = 23.75 M; GB200 52,061.6 / 4 × 3600 / 2.21 = 21.20 M;
    # MI325X 34,555 / 8 × 3600 / 1.28 = 12.15 M; H200 35,316.7 / 8 × 3600 / 1.41 = 11.27 M;
    # MI300X 27,854.4 / 8 × 3600 / 1.12 = 11.19 M; H100 124,879 / 32 × 3600 / 1.30 = 10.81 M.
    assert llama.text_md == (
        "Tokens per US dollar on llama2-70b (99 % accuracy target) Offline (MLPerf Inference "
        "v5.1, closed division), at owner TCO (hyperscaler) hourly costs: B200 23.7 M "
        "(5.1-0061); GB200 21.2 M (5.1-0008); MI325X 12.1 M (5.1-0003); H200 11.3 M (5.1-0026); "
        "MI300X 11.2 M (5.1-0066); H100 10.8 M (5.1-0016).")
    assert [c.ref for c in llama.citations][:2] == ["5.1-0061", "5.1-0008"]
    assert llama.citations[0].url == (
        "https://github.com/mlcommons/inference_results_v5.1/tree/main/closed/Lenovo/results/"
        "SR680a_V3_B200SXMx8_TRT/llama2-70b-99/Offline")  # the row's Location
    cited = {c.ref for f in figures for c in f.citations}
    assert not any(ref.startswith("v6.1") for ref in cited)  # v6.1 has no confirmed date


def test_a_round_without_a_date_makes_no_figure_whatever_the_edition():
    hw, rows, _ = load_hardware(ROOT)
    v61 = [r for r in rows if r.round == "v6.1"]
    assert len(v61) == 2
    assert hardware_figures(hw, v61, dt.date(2099, 1, 1), None) == []


def test_figures_only_in_the_window_that_publishes_them():
    hw, rows, _ = load_hardware(ROOT)
    assert hardware_figures(hw, rows, dt.date(2026, 9, 12), dt.date(2026, 9, 5)) == []
    assert hardware_figures(hw, rows, dt.date(2025, 9, 8), None) == []  # before publication


def test_an_index_built_once_gives_the_same_figures_as_the_rows():
    hw, rows, _ = load_hardware(ROOT)
    # Publication dates spread out, so several windows each have fresh groups.
    spread = [replace(r, published=dt.date(2026, 4, 1) + dt.timedelta(days=7 * (i % 20)))
              for i, r in enumerate(rows)]
    index = figure_index(spread)
    previous = None
    for week in range(24):
        date = dt.date(2026, 3, 25) + dt.timedelta(days=7 * week)
        assert hardware_figures(hw, index, date, previous) == \
            hardware_figures(hw, spread, date, previous)
        previous = date


def test_no_cost_in_force_means_no_figure():
    hw, rows, _ = load_hardware(ROOT)
    # Costs are dated 2026-04-03: an edition in 2025 has none, so no $0 figure.
    assert hardware_figures(hw, rows, dt.date(2025, 9, 10), dt.date(2025, 9, 1)) == []


def test_radar_lists_results_due_after_the_edition():
    hw, _, _ = load_hardware(ROOT)
    later = replace(hw, files=tuple(f.model_copy(update={"published": dt.date(2026, 9, 30)})
                                    if f.round == "v6.1" else f for f in hw.files))
    (item,) = hardware_radar(later, dt.date(2026, 9, 12))
    assert (item.label, item.due) == ("MLPerf Inference v6.1 results", dt.date(2026, 9, 30))
    assert hardware_radar(later, dt.date(2026, 10, 1)) == []


# --- small hand-made tables: every word and number of a figure (issue 23) -----------------

ACCS = [Accelerator(name=n, vendor="v", patterns=[p], source_url="https://example.com")
        for n, p in [("B200", r"(?<![a-z0-9])b200"), ("H200", r"(?<![a-z0-9])h200"),
                     ("MI325X", "mi325x"), ("MI300X", "mi300x"), ("TPU v7", "tpu")]]
PATTERNS = compiled_patterns(ACCS)
D1, D2 = dt.date(2026, 9, 10), dt.date(2026, 9, 17)


def rec(**over) -> BenchmarkRecord:
    base = dict(suite="MLPerf Inference", round="v5.1", result_id="5.1-0069", row_ref="0",
                submitter="NVIDIA", system="DGX B200", accelerator_text="NVIDIA B200-SXM-180GB",
                accelerator_count=8, nodes=1, model="llama2-70b", accuracy_target="99",
                scenario="Offline", division="closed", availability="available",
                inferred=False, metric="throughput", value=101527.0, units="Tokens/s")
    return BenchmarkRecord(**(base | over))


def cost(acc, amount, basis="owner_tco", scenario="hyperscaler", **over) -> HourlyCost:
    fields = dict(source=f"{acc} source", source_url=f"https://example.com/{acc[:2]}") | over
    return HourlyCost(accelerator=acc, basis=basis, scenario=scenario, amount_per_hour=amount,
                      date=dt.date(2026, 4, 3), checked=dt.date(2026, 4, 3), **fields)


def small_lane():
    """Seven groups (numbered in sorted order): 0 a-model (no cost), 1 b-model (a cost only for
    its marked result), 2 deepseek-r1 (2 accelerators), 3 gpt-j (1), 4 llama2-70b 99 (3),
    5 llama2-70b 99.9 (1), 6 mixtral (1, no owner TCO)."""
    h200, mi300x, mi325x, tpu = ("NVIDIA H200-SXM-141GB", "AMD Instinct MI300X",
                                 "AMD Instinct MI325X", "Google TPU v7")
    records = [
        rec(details_url="https://example.com/0069"),
        rec(result_id="5.1-0026", accelerator_text=h200, value=40000.0),
        rec(result_id="5.1-0066", accelerator_text=mi300x, value=16000.0),
        rec(result_id="5.1-0001", model="deepseek-r1", value=8000.0),
        rec(result_id="5.1-0002", model="deepseek-r1", accelerator_text=h200, value=8000.0),
        rec(result_id="5.1-0004", model="a-model", accelerator_text=tpu),
        rec(result_id="5.1-0005", model="b-model", accelerator_text=tpu),
        rec(result_id="5.1-0006", model="b-model", availability="preview"),
        rec(result_id="5.1-0007", model="gpt-j"),
        rec(result_id="5.1-0009", accuracy_target="99.9"),
        rec(result_id="5.1-0003", model="mixtral", accuracy_target="", accelerator_text=mi325x,
            scenario="Server (TTFT ≤ 2 s)", value=8000.0)]
    info = FileInfo("sources/benchmarks/x.json", D1, "https://example.com/x")
    rows, _ = normalize_records(records, info, PATTERNS)
    later, _ = normalize_records([rec(result_id="5.1-0200", model="deepseek-r1", value=800000.0)],
                                 replace(info, path="sources/benchmarks/y.json", published=D2),
                                 PATTERNS)
    undated, _ = normalize_records([rec(result_id="v6.1#1")], replace(info, published=None),
                                   PATTERNS)
    costs = (cost("B200", 2.0, placeholder=True, note="an estimate"),
             cost("B200", 4.0, basis="cloud_on_demand", scenario=""),
             cost("H200", 2.0), cost("MI300X", 1.0),
             cost("MI325X", 3.0, basis="cloud_on_demand", scenario=""),
             cost("MI325X", 2.0, basis="rental_contract", scenario="3-year"))
    return Hardware(accelerators=tuple(ACCS), costs=costs, files=()), rows + later + undated


def test_each_figure_word_for_word_and_which_groups_make_one():
    hw, rows = small_lane()
    figures = hardware_figures(hw, rows, D1, None, max_figures=10)
    # Most accelerators first, one per model and scenario (llama2-70b at 99.9 % repeats the
    # 99 % one); no figure for a group without a cost or with costs only for marked results.
    assert [f.id for f in figures] == ["hardware-v5-1-llama2-70b-99-offline",
                                       "hardware-v5-1-deepseek-r1-99-offline",
                                       "hardware-v5-1-gpt-j-99-offline",
                                       "hardware-v5-1-mixtral-server-ttft-2-s"]
    assert [f.id for f in hardware_figures(hw, rows, D1, None)] == [f.id for f in figures[:3]]
    llama, deepseek, _, mixtral = figures
    # Tokens per dollar = tokens/s ÷ accelerators × 3600 ÷ USD per hour: B200 101,527 / 8 ×
    # 3600 / 2 = 22.84 M; H200 40,000 / 8 × 3600 / 2 = 9.00 M; MI300X 16,000 / 8 × 3600 / 1 =
    # 7.20 M. Owner TCO, the preferred basis, though cloud on-demand sorts first.
    results = "sources/benchmarks/x.json"
    assert llama == Figure(
        label="Tokens per dollar: llama2-70b Offline, 99 % accuracy target",
        text_md="Tokens per US dollar on llama2-70b (99 % accuracy target) Offline (MLPerf "
                "Inference v5.1, closed division), at owner TCO (hyperscaler) hourly costs: B200 "
                "22.8 M (placeholder cost) (5.1-0069); H200 9.00 M (5.1-0026); MI300X 7.20 M "
                "(5.1-0066).",
        citations=(
            Citation("MLPerf Inference v5.1 (5.1-0069)", "https://example.com/0069", results,
                     "5.1-0069"),
            Citation("MLPerf Inference v5.1 (5.1-0026)", "https://example.com/x", results,
                     "5.1-0026"),
            Citation("MLPerf Inference v5.1 (5.1-0066)", "https://example.com/x", results,
                     "5.1-0066"),
            Citation("B200 source", "https://example.com/B2", "sources/hardware/costs.yaml",
                     "B200 owner_tco/hyperscaler"),
            Citation("H200 source", "https://example.com/H2", "sources/hardware/costs.yaml",
                     "H200 owner_tco/hyperscaler"),
            Citation("MI300X source", "https://example.com/MI", "sources/hardware/costs.yaml",
                     "MI300X owner_tco/hyperscaler")),
        id="hardware-v5-1-llama2-70b-99-offline")
    # Without owner TCO, the first basis in sorted order: MI325X 8,000 / 8 × 3600 / 3 = 1.20 M.
    assert mixtral.label == "Tokens per dollar: mixtral Server (TTFT ≤ 2 s), accuracy target not stated"
    assert mixtral.text_md == (
        "Tokens per US dollar on mixtral (accuracy target not stated) Server (TTFT ≤ 2 s) (MLPerf "
        "Inference v5.1, closed division), at cloud on-demand list price hourly costs: MI325X "
        "1.20 M (5.1-0003).")
    # Costs in another currency are converted by the conversion given: €2 at $1.50 = $3.
    euros = replace(hw, costs=tuple(c.model_copy(update={"amount_per_hour": 2.0, "currency": "EUR"})
                                    if c.accelerator == "MI325X" and c.basis == "cloud_on_demand"
                                    else c for c in hw.costs))
    at_150 = hardware_figures(euros, rows, D1, None, lambda cur, day: (1.5 if cur == "EUR" else 1.0, day),
                              max_figures=10)
    assert at_150[3].text_md == mixtral.text_md
    with pytest.raises(CostError, match="cost in EUR on 2026-04-03 needs an exchange rate"):
        hardware_figures(euros, rows, D1, None, max_figures=10)
    # The later deepseek-r1 result is not yet public on D1 ...
    assert "5.1-0200" not in deepseek.text_md
    # ... and is the only fresh one a week later: its group is compared afresh, with the rest.
    index = figure_index(rows)
    (fresh,) = hardware_figures(hw, index, D2, D1)
    assert fresh.text_md.endswith("B200 180 M (placeholder cost) (5.1-0200); H200 1.80 M (5.1-0002).")
    assert hardware_figures(hw, index, D2, D2) == []


def test_figure_index_lists_fresh_rows_by_date_in_table_order():
    _, rows = small_lane()
    index = figure_index(rows)
    assert len(index.table) == len(rows) - 1  # the undated row is left out
    # Same-day rows keep their order; the preview (b-model on B200) cannot make a group fresh.
    assert index.fresh_dates == (D1,) * 10 + (D2,)
    assert index.fresh_groups == (4, 4, 4, 2, 2, 0, 1, 3, 5, 6, 2)


def test_window_slice_is_previous_exclusive_date_inclusive():
    days = [dt.date(2026, 9, d) for d in (1, 5, 5, 12)]
    assert window_slice(days, dt.date(2026, 9, 5), None) == (0, 3)
    assert window_slice(days, dt.date(2026, 9, 12), dt.date(2026, 9, 1)) == (1, 4)
    assert window_slice(days, dt.date(2026, 9, 5), dt.date(2026, 9, 5)) == (3, 3)


def test_radar_items_word_for_word_in_order_of_due_date():
    def benchmark(suite, round_, path, published):
        return BenchmarkFile(path=path, suite=suite, round=round_, published=published,
                             source_url=f"https://example.com/{round_}")

    hw = Hardware(accelerators=(), costs=(), files=(
        benchmark("mlperf-inference", "v5.1", "mlperf/v5.1.json", dt.date(2026, 9, 12)),  # today: not ahead
        benchmark("mlperf-inference", "v6.1", "mlperf/v6.1.json", dt.date(2026, 9, 30)),
        benchmark("mlperf-inference", "v7.0", "mlperf/v7.0.json", None),  # no date: not due
        benchmark("inferencex", "V2", "ix/v2.json", dt.date(2026, 9, 20))))
    assert hardware_radar(hw, dt.date(2026, 9, 12)) == [
        RadarItem(label="InferenceX V2 results",
                  text_md="InferenceX V2 results are due on 2026-09-20.",
                  citations=(Citation("InferenceX V2", "https://example.com/V2",
                                      "sources/benchmarks/ix/v2.json", "V2"),),
                  due=dt.date(2026, 9, 20), id="hardware-inferencex-v2"),
        RadarItem(label="MLPerf Inference v6.1 results",
                  text_md="MLPerf Inference v6.1 results are due on 2026-09-30.",
                  citations=(Citation("MLPerf Inference v6.1", "https://example.com/v6.1",
                                      "sources/benchmarks/mlperf/v6.1.json", "v6.1"),),
                  due=dt.date(2026, 9, 30), id="hardware-mlperf-inference-v6.1")]
