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
    assert lines[1].split() == ["B200", "5.1-0069", "12,690.9", "1.950", "23,429,308", "0.0427",
                                "owner", "TCO", "(hyperscaler)"]
