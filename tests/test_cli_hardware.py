"""`brief hardware`, registered on a click group."""

from __future__ import annotations

from pathlib import Path

import click
from click.testing import CliRunner

from pipeline.cli.hardware import register

ROOT = Path(__file__).resolve().parents[1]


def test_hardware_command_prints_the_table():
    group = click.Group("brief")
    register(group)
    result = CliRunner().invoke(group, ["hardware", "--root", str(ROOT), "--as-of", "2026-09-12"])
    assert result.exit_code == 0, result.output
    lines = result.output.splitlines()
    # One table per round and accuracy target; 102,909 / 8 × 3600 / 1.95 = 23,748,231.
    assert lines[0] == "MLPerf Inference v5.1, llama2-70b Offline closed, accuracy target 99"
    assert lines[2].split() == ["B200", "5.1-0061", "12,863.6", "1.950", "23,748,231", "0.0421",
                                "owner", "TCO", "(hyperscaler)"]
    assert "MLPerf Inference v5.1, llama2-70b Offline closed, accuracy target 99.9" in lines


def test_a_round_without_a_date_is_left_out():
    group = click.Group("brief")
    register(group)
    result = CliRunner().invoke(group, ["hardware", "--root", str(ROOT), "--as-of", "2026-09-12",
                                        "--model", "deepseek-r1", "--scenario", "Offline"])
    assert result.exit_code == 0, result.output
    assert "v6.1" not in result.output
    assert result.output.splitlines()[0] == ("MLPerf Inference v5.1, deepseek-r1 Offline closed, "
                                             "accuracy target 99")
