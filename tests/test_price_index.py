"""The same-model price index (tables/price_index.py) against hand computations, and on the
bundled histories: the Market's listings, no look-ahead."""

from __future__ import annotations

import datetime as dt
import math
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from pipeline.load.parse import parse_file
from pipeline.load.sources import load_sources
from pipeline.tables import price_index as pi
from pipeline.tables.catalogue_history import COLUMNS as HISTORY_COLUMNS
from pipeline.tables.catalogue_history import snapshot_time
from pipeline.tables.cost import day_end
from pipeline.tables.market import market_table_of

ROOT = Path(__file__).resolve().parents[1]
D0, D1, D2 = dt.date(2026, 1, 1), dt.date(2026, 1, 8), dt.date(2026, 1, 15)
NO_MAKERS = pd.DataFrame(columns=["model", "maker", "open_weight"])


def listing(model: str, date: dt.date, input_usd: float, output_usd: float,
            provider: str = "host") -> dict:
    return {"date": date, "source": "curated", "provider": provider, "catalogue_provider": "",
            "model": model, "input_usd_per_mtok": input_usd, "cached_input_usd_per_mtok": np.nan,
            "output_usd_per_mtok": output_usd, "source_url": "https://example.org/"}


def three_listings() -> pd.DataFrame:
    """A repriced at D2 (input 1.00 → 0.50, output 4 throughout), B leaving after D1, C (cheap)
    entering at D1."""
    rows = [listing("a", D0, 1.0, 4.0), listing("a", D1, 1.0, 4.0), listing("a", D2, 0.5, 4.0),
            listing("b", D0, 2.0, 8.0), listing("b", D1, 2.0, 8.0),
            listing("c", D1, 0.1, 0.4), listing("c", D2, 0.1, 0.4)]
    return pi.listed_prices([pd.DataFrame(rows)])


def series(index: pd.DataFrame, meter: str, column: str, segment: str = pi.OVERALL) -> list:
    rows = index[(index["segment"] == segment) & (index["meter"] == meter)]
    return rows[column].tolist()


def test_three_listings_three_dates_input_index_by_hand():
    prices = three_listings()
    index = pi.price_index(prices, pi.segments(prices, NO_MAKERS), [D0, D1, D2])
    # D0 → D1: A 1.00/1.00 and B 2.00/2.00 match (C is not at D0): link 1.
    # D1 → D2: A 0.50/1.00 and C 0.10/0.10 match (B left): link √(0.5 × 1) = 0.70711.
    assert series(index, "input", "matched") == [0, 2, 2]
    assert series(index, "input", "link") == pytest.approx([1, 1, math.sqrt(0.5)])
    assert series(index, "input", "index") == pytest.approx([100, 100, 70.71068])
    # The unmatched average: the geometric mean of whatever is listed at each date.
    # D0 √(1 × 2) = 1.41421; D1 ∛(1 × 2 × 0.1) = 0.58480; D2 √(0.5 × 0.1) = 0.22361.
    assert series(index, "input", "listed") == [2, 3, 2]
    averages = [math.sqrt(2), 0.2 ** (1 / 3), math.sqrt(0.05)]
    assert series(index, "input", "average_usd_per_mtok") == pytest.approx(averages)
    assert series(index, "input", "average_index") == pytest.approx(
        [100, 100 * averages[1] / averages[0], 100 * averages[2] / averages[0]])
    # So the plain average fell 84 %, the same listings 29 %: the rest is C arriving and B leaving.


def test_the_3_to_1_blend_index_by_hand():
    prices = three_listings()
    index = pi.price_index(prices, pi.segments(prices, NO_MAKERS), [D0, D1, D2])
    # A's blend: (3 × 1.00 + 4) / 4 = 1.75 at D0 and D1, (3 × 0.50 + 4) / 4 = 1.375 at D2;
    # C's: (3 × 0.10 + 0.40) / 4 = 0.175 at D1 and D2. D1 → D2: √(1.375 / 1.75 × 1) = 0.88641.
    assert prices.loc[prices["model"] == "a", "blend_3_1_usd_per_mtok"].tolist() == [
        1.75, 1.75, 1.375]
    assert series(index, "blend_3_1", "link") == pytest.approx([1, 1, math.sqrt(1.375 / 1.75)])
    assert series(index, "blend_3_1", "index")[-1] == pytest.approx(88.64053)
    # No output change: the output index stays at 100.
    assert series(index, "output", "index") == pytest.approx([100, 100, 100])
    assert pi.change_between(index, D0, D2) == pytest.approx(math.sqrt(1.375 / 1.75) - 1)


def test_a_free_price_and_a_step_without_matches():
    rows = [listing("a", D0, 1.0, 4.0), listing("a", D1, 0.0, 0.0), listing("a", D2, 0.5, 2.0)]
    prices = pi.listed_prices([pd.DataFrame(rows)])
    index = pi.price_index(prices, pi.segments(prices, NO_MAKERS), [D0, D1, D2])
    # Free at D1: no relative into or out of it; the index holds, and says it matched none.
    assert series(index, "input", "matched") == [0, 0, 0]
    assert series(index, "input", "index") == pytest.approx([100, 100, 100])
    assert series(index, "input", "listed") == [1, 0, 1]


def test_segments_first_party_open_weight_at_hosts_and_bands_fixed_at_first_sight():
    rows = [listing("gpt-x", D0, 1.0, 4.0, provider="openai"),
            listing("gpt-x", D1, 0.5, 2.0, provider="openai"),
            listing("llama-y", D0, 0.2, 0.2, provider="together"),
            listing("llama-y", D1, 2.0, 2.0, provider="together"),
            listing("llama-y", D0, 0.3, 0.3, provider="meta"),
            listing("mystery", D0, 20.0, 80.0), listing("mystery", D1, 20.0, 80.0)]
    prices = pi.listed_prices([pd.DataFrame(rows)])
    makers = pd.DataFrame({"model": ["gpt-x", "llama-y"], "maker": ["openai", "meta"],
                           "open_weight": [False, True]})
    member = pi.segments(prices, makers)
    by = member.groupby("segment")["model"].apply(sorted).to_dict()
    assert by[pi.FIRST_PARTY] == ["gpt-x", "llama-y"]  # OpenAI's own, Meta's own
    assert by[pi.OPEN_AT_HOSTS] == ["llama-y"]  # at Together only
    assert member[(member["segment"] == pi.OPEN_AT_HOSTS)]["provider"].tolist() == ["together"]
    # Bands by the blend at first sight: gpt-x 1.75 ($1–10), llama-y at Together 0.2 (under $1,
    # and it stays there after its tenfold rise), mystery 35 ($10 and up).
    assert by["band-1-to-10"] == ["gpt-x"]
    assert by["band-under-1"] == ["llama-y", "llama-y"]
    assert by["band-10-and-up"] == ["mystery"]
    index = pi.price_index(prices, member, [D0, D1])
    assert series(index, "input", "index", pi.OPEN_AT_HOSTS) == pytest.approx([100, 1000])
    assert series(index, "input", "index", pi.FIRST_PARTY) == pytest.approx([100, 50])


def history(rows: list[tuple]) -> pd.DataFrame:
    """A history of (model, meter, price, first_seen, gone_seen) rows of one provider."""
    out = []
    for model, meter, usd, first, gone in rows:
        out.append({"provider": "p", "catalogue_provider": "p", "model": model, "meter": meter,
                    "ttl_minutes": "", "context_above_tokens": "0", "mode": "realtime",
                    "window_utc": "", "from_date": "", "to_date": "", "usd_per_mtok": usd,
                    "first_seen": first, "gone_seen": gone, "checked": "",
                    "context_window_tokens": ""})
    return pd.DataFrame(out, columns=HISTORY_COLUMNS)


def test_catalogue_prices_are_those_in_force_at_the_end_of_each_date():
    h = history([("m", "input", 1.0, "2026-01-01T10:00Z", "2026-01-08T23:59Z"),
                 ("m", "input", 0.8, "2026-01-08T23:59Z", ""),
                 ("m", "output", 4.0, "2026-01-01T10:00Z", ""),
                 ("late", "input", 3.0, "2026-01-09T00:00Z", ""),
                 ("gone", "input", 5.0, "2026-01-01T00:00Z", "2026-01-08T00:00Z")])
    prices = pi.catalogue_prices(h, "cat", "https://example.org/", [D0, D1, D2])
    got = {(r.model, r.date): (r.input_usd_per_mtok, r.output_usd_per_mtok)
           for r in prices.itertuples()}
    assert got[("m", D0)] == (1.0, 4.0)
    assert got[("m", D1)] == (0.8, 4.0)  # the cut seen at 23:59 of D1 is in force at its end
    assert ("gone", D1) not in got and ("gone", D0) in got
    assert ("late", D1) not in got and got[("late", D2)][0] == 3.0


def test_grid_is_weekly_from_the_start_with_the_editions():
    grid = pi.grid_dates(D0, [dt.date(2025, 12, 1), dt.date(2026, 1, 10)], D2)
    assert grid == [D0, D1, dt.date(2026, 1, 10), D2]
    assert pi.year_before(grid, D2) == D0  # under a year of history: since its start


@pytest.fixture(scope="module")
def bundled():
    sources = load_sources(ROOT, parse_file)
    histories = {c.id: sources.price_histories[c.id] for c in sources.published_catalogues()}
    return sources, histories


def bundled_prices(sources, histories, dates):
    return pi.listed_prices([pi.curated_prices(sources.prices, sources.rates, dates), *(
        pi.catalogue_prices(histories[c.id], c.id, str(c.page), dates)
        for c in sources.published_catalogues())])


def test_the_listings_of_a_date_are_the_markets(bundled):
    sources, histories = bundled
    day = dt.date(2026, 11, 20)
    prices = bundled_prices(sources, histories, [day])
    market = market_table_of(sources, day)
    ours = prices.set_index(["provider", "model"])[
        ["input_usd_per_mtok", "cached_input_usd_per_mtok", "output_usd_per_mtok"]].sort_index()
    theirs = market.set_index(["provider", "model"])[ours.columns].sort_index()
    pd.testing.assert_frame_equal(ours, theirs.astype(float), check_names=False)


def test_no_look_ahead_a_past_date_sees_only_what_was_known(bundled):
    sources, histories = bundled
    start = pi.history_start(histories, sources.prices)
    cut = dt.date(2026, 1, 20)
    dates = pi.grid_dates(start, [], cut)
    # Histories as a build on `cut` had them: periods not yet seen gone, later closings open.
    end = snapshot_time(day_end(cut))
    then = {}
    for name, h in histories.items():
        h = h[h["first_seen"] <= end].copy()
        h.loc[h["gone_seen"] > end, "gone_seen"] = ""
        then[name] = h
    early = bundled_prices(sources, then, dates)
    full = bundled_prices(sources, histories, pi.grid_dates(start, [], dt.date(2026, 11, 20)))
    full = full[full["date"] <= cut].reset_index(drop=True)
    # The listings' numbers count the listings of the whole span: the prices are what compare.
    pd.testing.assert_frame_equal(early.reset_index(drop=True).drop(columns="listing"),
                                  full.drop(columns="listing"))


def test_every_price_the_index_read_traces_to_its_source_row(bundled):
    """data/index-prices.csv: each run of a catalogue's prices is the history's rows of its key
    in force on its first date; each curated run is its file's record in force then."""
    sources, histories = bundled
    start = pi.history_start(histories, sources.prices)
    dates = pi.grid_dates(start, [], dt.date(2026, 11, 20))
    prices = bundled_prices(sources, histories, dates)
    files = {c: f"sources/snapshots/prices/{c}.csv" for c in histories}
    files |= {f"curated/{p}": s.path for p, s in sources.prices.items()}
    spells = pi.price_spells(prices, dates, files)
    assert (spells["source_file"] != "").all()
    # Runs cover exactly the index's inputs: one row per listing and date, none twice.
    days = {d.isoformat(): i for i, d in enumerate(dates)}
    covered = int(sum(days[b] - days[a] + 1 for a, b in zip(spells["from_date"], spells["to_date"])))
    assert covered == len(prices)
    catalogued = spells[spells["source"] != "curated"].sample(300, random_state=1)
    for s in catalogued.itertuples(index=False):
        end = snapshot_time(day_end(dt.date.fromisoformat(s.from_date)))
        h = histories[s.source]
        rows = h[(h["provider"] == s.provider) & (h["catalogue_provider"] == s.catalogue_provider)
                 & (h["model"] == s.model) & (h["first_seen"] <= end)
                 & ((h["gone_seen"] == "") | (h["gone_seen"] > end)) & (h["mode"] == "realtime")
                 & (h["context_above_tokens"] == "0") & (h["window_utc"] == "")]
        for meter in ("input", "output"):
            price = getattr(s, f"{meter}_usd_per_mtok")
            if not np.isnan(price):
                assert price in set(rows.loc[rows["meter"] == meter, "usd_per_mtok"]), (s, meter)
    curated = spells[spells["source"] == "curated"]
    assert set(curated["source_file"]) <= {s.path for s in sources.prices.values()}
