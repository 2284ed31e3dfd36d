"""The editions' economics figures (compose/economics.py) on the bundled sources: what each
edition says is computed from the index and the cost table as of its date, and what the lane is
kept by (cache/keys.py) does not change with an entry."""

from __future__ import annotations

import datetime as dt
import re
from pathlib import Path

import pytest

from pipeline.cache.keys import InputDigests
from pipeline.compose.economics import (
    cost_table,
    economics_figures,
    headline_costs,
    market_economics,
    ratio,
)
from pipeline.compose.edition_tables import EditionTables
from pipeline.compose.lanes import LANES
from pipeline.compose.numbers import change_words
from pipeline.load.parse import parse_file
from pipeline.load.sources import load_sources
from pipeline.normalize.items import md_text
from pipeline.tables import price_index as pi

ROOT = Path(__file__).resolve().parents[1]


@pytest.fixture(scope="module")
def bundled():
    sources = load_sources(ROOT, parse_file)
    editions = sorted(sources.series.edition_dates(dt.date(2026, 12, 5)))
    return sources, editions, market_economics(sources, editions)


def test_percent_prints_a_minus_sign_and_says_unchanged():
    assert change_words(-0.0312) == "−3.1 %"
    assert change_words(0.004) == "+0.4 %"
    assert change_words(0.0004) == "unchanged"


def test_the_same_model_line_is_the_index_between_its_dates(bundled):
    sources, editions, econ = bundled
    day, previous = editions[-1], editions[-2]
    figure = economics_figures(sources, econ, day, previous)[0]
    assert figure.label == "Same-model prices"
    assert figure.page == "economics/#same-model-index"
    assert figure.citations[0].url.endswith("/economics/")
    year = pi.year_before(econ.dates, day)
    since = pi.change_between(econ.index, previous, day)
    over_year = pi.change_between(econ.index, year, day)
    # No catalogue was read after 2026-08-21: the line says when each was, not "unchanged".
    assert change_words(since) == "unchanged" and econ.read_between(previous, day) == []
    assert "no catalogue was read again since the last edition" in figure.text_md
    assert "unchanged since the last edition" not in figure.text_md
    for name, read in econ.last_read(day).items():
        assert f"{md_text(name)} last read on {read}" in figure.text_md
    assert econ.last_read(day)["genai-prices"] == "2026-08-21"
    # The year's figure, with the listings its thinnest step matched.
    steps = econ.blend.loc[[d for d in econ.dates if year < d <= day], "matched"]
    assert steps.min() >= 30
    assert (f"{change_words(over_year)} over the last 12 months (since {year}; {len(steps)} steps, "
            f"each matching {int(steps.min()):,} listings or more at both ends)") in figure.text_md
    # The catalogues became whole within the year: the line says the average's gap is that.
    assert "first whole snapshots" in figure.text_md


def test_the_index_starts_where_the_first_catalogue_history_is_whole(bundled):
    sources, editions, econ = bundled
    whole = min(h.whole_since for h in sources.catalogue_health.values() if h.whole_since)
    assert econ.dates[0] == whole.date() == dt.date(2025, 6, 4)
    # Its first step rests on a handful of listings, mostly one: the page says which.
    from pipeline.tables import index_readings as ir
    r = ir.reading(econ.blend, econ.moves, econ.dates[0], editions[-1])
    assert r.too_thin and r.one_listing and not r.is_market_figure
    assert r.top["model"].tolist() == ["o3"]


def test_the_first_edition_has_no_since_the_last_and_every_cost_to_serve(bundled):
    sources, editions, econ = bundled
    figures = {f.label: f for f in economics_figures(sources, econ, editions[0], None)}
    assert "since the last edition" not in figures["Same-model prices"].text_md
    costs = figures["Cost to serve"].text_md.replace("\\", "")  # Markdown escapes
    head = headline_costs(cost_table(sources, econ, editions[0]))
    assert set(re.findall(r"(?:: |; )(\S+): cheapest", costs)) == set(head["mlperf_model"])
    # The headline's hardware cost is a measured one where there is one (GB300's is a placeholder).
    assert not head["cost_placeholder"].any()


def test_a_cost_to_serve_line_only_where_a_ratio_moved(bundled):
    sources, editions, econ = bundled
    for previous, day in zip(editions, editions[1:]):
        now = headline_costs(cost_table(sources, econ, day)).set_index("mlperf_model")
        was = headline_costs(cost_table(sources, econ, previous)).set_index("mlperf_model")
        # Moved as printed: three significant digits.
        moved = {m for m in now.index
                 if ratio(now.at[m, "cheapest_ratio"]) != ratio(was.at[m, "cheapest_ratio"])}
        figures = {f.label: f for f in economics_figures(sources, econ, day, previous)}
        text = figures["Cost to serve"].text_md.replace("\\", "") if "Cost to serve" in figures else ""
        said = set(re.findall(r"(?:: |; )(\S+): cheapest", text))
        assert said == moved, day


def test_an_edition_reads_only_its_own_date(bundled):
    """The figures of an edition are the same whether the later editions exist or not."""
    sources, editions, econ = bundled
    day = editions[2]
    alone = market_economics(sources, editions[:3])
    assert ([f.text_md for f in economics_figures(sources, alone, day, editions[1])]
            == [f.text_md for f in economics_figures(sources, econ, day, editions[1])])


def test_the_lane_key_ignores_entries_and_follows_prices(bundled, tmp_path):
    sources, editions, _ = bundled
    lane = next(lane for lane in LANES if lane.name == "economics")
    keys = InputDigests(sources, editions, EditionTables(sources, editions))
    before = keys.lane(lane, editions[-1], editions[-2])
    sources.entries = sources.entries[:-1]  # an entry edited away
    assert InputDigests(sources, editions, EditionTables(sources, editions)).lane(
        lane, editions[-1], editions[-2]) == before
    history = next(iter(sources.price_histories))
    sources.price_histories[history] = sources.price_histories[history].iloc[:-1]
    assert InputDigests(sources, editions, EditionTables(sources, editions)).lane(
        lane, editions[-1], editions[-2]) != before
