"""Hardware figures and radar items for an edition window."""

from __future__ import annotations

import datetime as dt
from dataclasses import replace
from pathlib import Path

from pipeline.compose.hardware import figure_index, hardware_figures, hardware_radar
from pipeline.load.hardware import load_hardware

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
