"""The price histories we ship: they load clean and say what facts.md says."""

from __future__ import annotations

import datetime as dt
from pathlib import Path

import pytest

from pipeline.load.prices import load_prices
from pipeline.normalize.windows import record_windows, week_shares
from pipeline.tables.cost import effective_price, record_at, week_start

ROOT = Path(__file__).resolve().parents[1]


@pytest.fixture(scope="module")
def files():
    loaded, problems = load_prices(ROOT)
    assert problems == []
    return {k: v.model for k, v in loaded.items()}


def test_every_provider_of_the_issue_is_shipped(files):
    assert sorted(files) == ["anthropic", "deepseek", "google", "openai", "zhipu"]
    assert [p.currency for p in files["deepseek"].lists] == ["CNY", "USD"]


def test_deepseek_peak_is_35_of_168_hours(files):
    usd = files["deepseek"].lists[1]
    at = dt.datetime(2026, 9, 9, tzinfo=dt.UTC)
    record = record_at(usd, "deepseek-v4-flash", at)
    shares = week_shares(record_windows(usd, record), week_start(at))
    assert shares["peak-2026"] * 168 == pytest.approx(35)


def test_deepseek_flash_cut_of_2026_09_10(files):
    cny = files["deepseek"].lists[0]
    idle = dt.datetime(2026, 9, 10, 12, 0, tzinfo=dt.UTC)   # 20:00 in Beijing
    peak = dt.datetime(2026, 9, 10, 2, 0, tzinfo=dt.UTC)    # 10:00 in Beijing, a Thursday
    cached = effective_price(cny, "deepseek-v4-flash", "cached_input", idle)
    assert (cached.per_mtok, cached.tier) == (0.02, "off-peak")
    assert effective_price(cny, "deepseek-v4-flash", "input", peak).per_mtok == 0.10
    assert effective_price(cny, "deepseek-v4-flash", "cached_input", dt.datetime(
        2026, 9, 9, 12, tzinfo=dt.UTC)) is None
