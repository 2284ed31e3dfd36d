"""`brief price MODEL --at DATE` on the bundled sources: each provider's price of a model on a
past date, from the catalogues' replayed histories, with the snapshot and commit it comes from."""

from __future__ import annotations

import datetime as dt
from pathlib import Path

import pytest
from click.testing import CliRunner

from pipeline.cli.main import main
from pipeline.load.sources import load_sources
from pipeline.models.prices import DEFAULT_PROFILES
from pipeline.tables.price_at import price_at

ROOT = Path(__file__).resolve().parents[1]


@pytest.fixture(scope="module")
def sources():
    return load_sources(ROOT)


def test_a_past_date_sees_only_what_a_snapshot_had_shown_by_then(sources):
    chat = DEFAULT_PROFILES[0]
    early = price_at(sources, "openai/gpt-4o", dt.date(2025, 6, 1), chat)
    later = price_at(sources, "gpt-4o", dt.date(2026, 1, 15), chat)
    # models.dev's providers of gpt-4o arrive with its commits of late 2025.
    assert len(later) > len(early)
    row = later[later["provider"] == "azure"].iloc[0]
    assert (row.input_usd_per_mtok, row.output_usd_per_mtok) == (2.5, 10.0)
    assert row.workload_usd_per_mtok == pytest.approx(0.75 * 2.5 + 0.25 * 10.0)
    assert row.source == "models.dev" and len(row.commit) == 40
    assert row.snapshot <= "2026-01-15T23:59Z"
    assert list(later["workload_usd_per_mtok"].dropna()) == sorted(
        later["workload_usd_per_mtok"].dropna())


def test_the_command_prints_each_price_with_its_commit_link_and_refuses_an_unlisted_model():
    runner = CliRunner()
    done = runner.invoke(main, ["price", "gpt-4o", "--at", "2026-01-15", "--root", str(ROOT)])
    assert done.exit_code == 0, done.output
    assert "gpt-4o on 2026-01-15, Chat" in done.output
    assert "https://github.com/anomalyco/models.dev/commit/" in done.output
    gone = runner.invoke(main, ["price", "no-such-model-9", "--at", "2026-01-15",
                                "--root", str(ROOT)])
    assert gone.exit_code == 1
    assert "no provider listed no-such-model-9 by the end of 2026-01-15" in gone.output
    bad = runner.invoke(main, ["price", "gpt-4o", "--at", "2026-01-15", "--profile", "x",
                               "--root", str(ROOT)])
    assert bad.exit_code == 2 and "no profile 'x'" in bad.output
