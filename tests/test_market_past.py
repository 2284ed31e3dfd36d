"""The Market on a past date (render/market_past.py): the quarters offered, and each file's rows
as `brief price --at` reads the same day."""

from __future__ import annotations

import datetime as dt
import json
import math

import pytest
from conftest import REPO

from pipeline.compose.market import quarter_ends
from pipeline.load.sources import load_sources
from pipeline.render.market_past import past_market_json
from pipeline.tables.market import market_table_of
from pipeline.tables.price_at import price_at, with_snapshots

D = dt.date


@pytest.fixture(scope="module")
def sources():
    return load_sources(REPO)


def test_quarter_ends_from_the_first_quarter_to_the_last_before_the_day() -> None:
    assert quarter_ends(D(2025, 6, 4), D(2026, 11, 20)) == [
        D(2026, 9, 30), D(2026, 6, 30), D(2026, 3, 31), D(2025, 12, 31), D(2025, 9, 30),
        D(2025, 6, 30)]
    assert quarter_ends(D(2025, 6, 4), D(2025, 6, 30)) == []  # the day itself: its own table
    assert quarter_ends(D(2025, 12, 31), D(2026, 1, 1)) == [D(2025, 12, 31)]
    assert quarter_ends(D(2026, 1, 1), D(2026, 1, 2)) == []


def test_a_days_file_holds_its_market_with_each_prices_snapshot_and_commit(sources) -> None:
    day = D(2025, 12, 31)
    table = with_snapshots(market_table_of(sources, day), sources, day)
    # A hostile address in a source's link never reaches the page.
    table.loc[0, ["commit", "source_url"]] = ["", "javascript:alert(1)"]
    doc = json.loads(past_market_json(table, day, {"gpt-4o": "gpt-4o"},
                                      sources.published_catalogues()))
    at = {c: i for i, c in enumerate(doc["columns"])}
    assert doc["as_of"] == "2025-12-31" and len(doc["rows"]) == len(table)
    assert doc["providers"] == table["provider"].nunique()
    assert doc["links"][doc["rows"][0][at["link"]]] == ""
    assert all(link == "" or link.startswith("https://") for link in doc["links"])
    rows = {(r[at["provider"]], r[at["model"]]): r for r in doc["rows"]}
    answer = price_at(sources, "gpt-4o", day, sources.series.profiles[0])
    assert len(answer) >= 2
    repositories = {c.name: str(c.repository).rstrip("/") for c in sources.published_catalogues()
                    if c.repository is not None}
    for a in answer.itertuples(index=False):
        r = rows[(a.provider, a.model)]
        for column in ("input_usd_per_mtok", "cached_input_usd_per_mtok", "output_usd_per_mtok"):
            value = getattr(a, column)
            assert (r[at[column]] is None) if math.isnan(value) else r[at[column]] == value
        assert r[at["snapshot"]] == a.snapshot[:10] and r[at["source"]] == a.source
        if a.commit:
            assert doc["links"][r[at["link"]]] == f"{repositories[a.source]}/commit/{a.commit}"
        assert r[at["page"]] == ("gpt-4o" if a.model == "gpt-4o" else "")
    # Hourly prices ride along for the calculator; every number is finite or null.
    assert any(r[at["tiers"]] for r in doc["rows"]) or not any(
        table["offpeak_week_share"].notna())
    numbers = [v for r in doc["rows"] for v in r if isinstance(v, float)]
    assert numbers and all(math.isfinite(v) for v in numbers)


def test_the_built_site_offers_each_quarter_the_histories_cover(bundled_site) -> None:
    page = (bundled_site / "market" / "index.html").read_text("utf-8")
    files = sorted(p.stem for p in (bundled_site / "data" / "market-on").glob("*.json"))
    assert files[0] == "2025-06-30" and len(files) >= 6  # from the first replayed version
    for day in files:
        assert f'<option value="{day}">{day}</option>' in page
    data = (bundled_site / "data" / "index.html").read_text("utf-8")
    assert "data/market-on/&lt;quarter-end&gt;.json" in data or \
        "data/market-on/<quarter-end>.json" in data
