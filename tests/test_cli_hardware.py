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


def test_a_date_before_the_results_says_when_they_were_published():
    group = click.Group("brief")
    register(group)
    result = CliRunner().invoke(group, ["hardware", "--root", str(ROOT), "--as-of", "2025-06-01"])
    assert result.exit_code == 1
    # The bundled v5.1 round: 80 llama2-70b Offline closed results, published 2025-09-09.
    assert result.output == ("Error: no results for llama2-70b Offline (closed) published by "
                             "2025-06-01; 80 were published later, the first on 2025-09-09\n")
    result = CliRunner().invoke(group, ["hardware", "--root", str(ROOT), "--as-of", "2025-06-01",
                                        "--model", "no-such-model"])
    assert (result.exit_code, result.output) == (1, "Error: no results for no-such-model Offline "
                                                    "(closed)\n")
