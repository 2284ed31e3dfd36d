"""What a move of the same-model index rests on (tables/index_readings.py), on tiny listings:
the fewer-than-30 rule, the one-listing rule, each listing's contribution and share of a step,
a catalogue catching up with a price another source had first; and the launch prices beside
today's (tables/launch_prices.py), per quarter."""

from __future__ import annotations

import datetime as dt
import math

import numpy as np
import pandas as pd
import pytest

from pipeline.compose.economics import reading_text
from pipeline.tables import index_readings as ir
from pipeline.tables import price_index as pi
from pipeline.tables.launch_prices import launch_prices, quarter, quarterly

D0, D1, D2, D3 = (dt.date(2026, 1, 1) + dt.timedelta(days=7 * k) for k in range(4))
DATES = [D0, D1, D2, D3]
NAMES = {"curated": "curated files", "cat-a": "Catalogue A", "cat-b": "Catalogue B"}
NO_MAKERS = pd.DataFrame(columns=["model", "maker", "open_weight"])


def row(model: str, date: dt.date, blend_usd: float, provider: str = "host",
        source: str = "cat-a") -> dict:
    """A listing whose input and output are both `blend_usd`, so its 3:1 blend is too."""
    return {"date": date, "source": source, "provider": provider, "catalogue_provider": provider,
            "model": model, "input_usd_per_mtok": blend_usd, "cached_input_usd_per_mtok": np.nan,
            "output_usd_per_mtok": blend_usd, "source_url": "https://example.org/"}


def market(listings: int, cuts: dict[str, tuple[dt.date, float]]) -> pd.DataFrame:
    """`listings` models m0, m1, … at $1 on every date, each of `cuts` (model → day, new price)
    at its new price from that day on."""
    rows = []
    for k in range(listings):
        model = f"m{k}"
        for d in DATES:
            day, new = cuts.get(model, (None, 1.0))
            rows.append(row(model, d, new if day is not None and d >= day else 1.0))
    return pi.listed_prices([pd.DataFrame(rows)])


def blend_rows(prices: pd.DataFrame) -> pd.DataFrame:
    index = pi.price_index(prices, pi.segments(prices, NO_MAKERS), DATES)
    return index[(index["segment"] == pi.OVERALL)
                 & (index["meter"] == "blend_3_1")].set_index("date")


def test_a_step_of_29_matched_listings_is_no_market_figure_and_30_is():
    # Ten of the listings cut by 10 % at D2: no one listing carries the move.
    cuts = {f"m{k}": (D2, 0.9) for k in range(10)}
    for count, market_figure in ((29, False), (30, True)):
        prices = market(count, cuts)
        moves = ir.contributions(prices, DATES)
        r = ir.reading(blend_rows(prices), moves, D1, D2)
        assert (r.fewest, r.steps, r.thinnest) == (count, 1, D2)
        assert r.too_thin is not market_figure
        assert r.is_market_figure is market_figure
        assert r.change == pytest.approx(0.9 ** (10 / count) - 1)
    text = reading_text(ir.reading(blend_rows(market(29, cuts)), ir.contributions(
        market(29, cuts), DATES), D1, D2), NAMES, "since the last edition")
    assert "no market figure: its step to 2026-01-15 matched only 29 listings" in text


def test_a_move_mostly_of_one_listing_is_said_as_that_listing():
    # 40 listings: m0 halves at D2 (ln 0.5), m1 cut 1 % (ln 0.99): m0 is 98.6 % of the step.
    prices = market(40, {"m0": (D2, 0.5), "m1": (D2, 0.99)})
    moves = ir.contributions(prices, DATES)
    r = ir.reading(blend_rows(prices), moves, D0, D3)
    assert r.fewest == 40 and not r.too_thin
    assert r.one_listing and not r.is_market_figure
    assert r.top_share == pytest.approx(math.log(0.5) / (math.log(0.5) + math.log(0.99)))
    assert r.top["model"].tolist() == ["m0"] and r.movers == 2
    text = reading_text(r, NAMES, "since 2026-01-01")
    assert text == ("since 2026-01-01 (3 steps), one listing's move rather than the market's: "
                    "99 % of the index's −1.7 % is Catalogue A's host m0, $1.00 → $0.500 per "
                    "million tokens on 2026-01-15")
    # Two listings cut alike: neither is more than half, the change is the market's.
    even = market(40, {"m0": (D2, 0.5), "m1": (D2, 0.5)})
    r = ir.reading(blend_rows(even), ir.contributions(even, DATES), D0, D3)
    assert r.is_market_figure and r.top_share == pytest.approx(0.5)
    assert reading_text(r, NAMES, "since 2026-01-01").startswith(
        "−3.4 % since 2026-01-01 (3 steps, each matching 40 listings or more at both ends)")


def test_contributions_are_each_move_with_its_share_of_the_step():
    prices = market(4, {"m0": (D1, 0.5), "m1": (D1, 2.0), "m2": (D1, 0.25), "m3": (D3, 0.8)})
    moves = ir.contributions(prices, DATES)
    step = moves[moves["date"] == D1]
    # Largest move first; ln 0.25 + ln 0.5 + ln 2 = ln 0.25: shares 1, 0.5, −0.5.
    assert step["model"].tolist() == ["m2", "m0", "m1"]
    assert step["share_of_step"].tolist() == pytest.approx([1.0, 0.5, -0.5])
    assert step["log_contribution"].tolist() == pytest.approx(
        [math.log(0.25) / 4, math.log(0.5) / 4, math.log(2) / 4])
    assert step["matched"].tolist() == [4, 4, 4]
    assert step["step_change"].iloc[0] == pytest.approx(0.25 ** 0.25 - 1)
    assert step["previous_date"].tolist() == [D0] * 3
    # The contributions add up to the index's log-change.
    rows = blend_rows(prices)
    assert moves["log_contribution"].sum() == pytest.approx(
        math.log(rows.at[D3, "index"] / rows.at[D0, "index"]))
    assert moves[moves["date"] == D3][["model", "share_of_step"]].values.tolist() == [["m3", 1.0]]
    assert set(ir.CONTRIBUTION_COLUMNS) <= set(moves.columns)


def test_a_catalogue_catching_up_with_a_price_another_source_listed_first():
    # Catalogue B lists the cut at D1; catalogue A only in the step from D3 to D4, whose start
    # is two weeks after B's.
    dates = [*DATES, D3 + dt.timedelta(days=7)]
    rows = [row("x", d, 2.0 if d < D1 else 1.0, provider="maker", source="cat-b") for d in dates]
    rows += [row("X", d, 2.0 if d < dates[4] else 1.0, provider="maker", source="cat-a")
             for d in dates]
    rows += [row(f"m{k}", d, 1.0) for k in range(3) for d in dates]
    # The market keeps one listing a provider and model: B's where both list it, A's after
    # B stops listing it at D2; B's price shows in `every`.
    every = pd.DataFrame(rows)
    prices = pi.listed_prices([every[(every["source"] == "cat-b") & (every["date"] < D2)],
                               every[every["source"] != "cat-b"]])
    moves = ir.contributions(prices, dates, every=every)
    late = moves[moves["source"] == "cat-a"].iloc[0]
    assert (late["elsewhere_source"], late["elsewhere_since"]) == ("cat-b", D1.isoformat())
    early = moves[moves["source"] == "cat-b"].iloc[0]
    assert early["elsewhere_source"] == ""  # nobody had it before B
    # A step starting less than CATCH_UP_DAYS after B's price is no catching up.
    assert ir.contributions(prices, DATES, every=every)["elsewhere_source"].tolist() == [""]
    from pipeline.compose.economics import listing_move
    assert listing_move(moves[moves["source"] == "cat-a"], NAMES).endswith(
        "catching up in January 2026 with the price Catalogue B had listed since January 2026 "
        "(2026-01-08)")
    assert "on 2026-01-29" in listing_move(moves[moves["source"] == "cat-a"], NAMES)


def test_launch_prices_leave_out_what_was_already_listed_and_coverage_arriving():
    weeks = [dt.date(2025, 6, 4) + dt.timedelta(days=7 * k) for k in range(20)]
    rows = [row("old", d, 4.0, provider="acme") for d in weeks]  # listed on the first date
    rows += [row("new-1", d, 2.0 if d < weeks[15] else 1.0, provider="acme")
             for d in weeks[3:]]  # launched 2025-06-25 at $2, cut to $1
    rows += [row("new-2", d, 8.0, provider="acme") for d in weeks[16:]]  # 2025-09-24, Q3
    rows += [row("new-3", d, 0.5, provider="acme") for d in weeks[18:]]  # 2025-10-08, Q4
    rows += [row("host-copy", d, 9.0, provider="host") for d in weeks[5:]]  # not the maker's
    rows += [row("late-cover", d, 3.0, provider="zeta") for d in weeks[10:]]  # zeta's first
    rows += [row("zeta-2", d, 6.0, provider="zeta") for d in weeks[12:]]
    prices = pi.listed_prices([pd.DataFrame(rows)])
    makers = {"old": "acme", "new-1": "acme", "new-2": "acme", "new-3": "acme",
              "host-copy": "acme", "late-cover": "zeta", "zeta-2": "zeta"}
    facts = pd.DataFrame(columns=["provider", "model", "release_date"])
    table = launch_prices(prices, makers, weeks, facts, {})
    assert table["model"].tolist() == ["new-3", "new-2", "zeta-2", "new-1"]
    new_1 = table.set_index("model").loc["new-1"]
    assert (new_1["launch_date"], new_1["quarter"]) == ("2025-06-25", "2025-Q2")
    assert new_1["launch_blend_3_1_usd_per_mtok"] == 2.0
    assert new_1["today_blend_3_1_usd_per_mtok"] == 1.0 and new_1["change"] == -0.5
    # A release date wins as the launch date; one 90 days before the first price is too late.
    facts = pd.DataFrame([("acme", "new-2", "2025-09-20"), ("acme", "new-3", "2025-06-01")],
                         columns=["provider", "model", "release_date"])
    table = launch_prices(prices, makers, weeks, facts, {}).set_index("model")
    assert "new-3" not in table.index
    assert table.at["new-2", "launch_date"] == "2025-09-20"
    assert table.at["new-2", "first_priced"] == "2025-09-24"
    # A source's first whole snapshot is coverage: nothing first seen then is a launch.
    arrived = launch_prices(prices, makers, weeks, facts.iloc[:0], {"cat-a": weeks[3]})
    assert "new-1" not in set(arrived["model"])


def test_the_median_launch_price_per_quarter():
    launches = pd.DataFrame({
        "quarter": ["2025-Q3", "2025-Q3", "2025-Q3", "2025-Q4"],
        "launch_blend_3_1_usd_per_mtok": [1.0, 3.0, 10.0, 0.4],
        "today_blend_3_1_usd_per_mtok": [0.5, 3.0, np.nan, 0.4],
        "change": [-0.5, 0.0, np.nan, 0.0]})
    q = quarterly(launches)
    assert q["quarter"].tolist() == ["2025-Q3", "2025-Q4"]
    assert q["models"].tolist() == [3, 1]
    assert q["median_launch_blend_3_1_usd_per_mtok"].tolist() == [3.0, 0.4]
    assert q["listed_today"].tolist() == [2, 1]
    assert q["median_today_blend_3_1_usd_per_mtok"].tolist() == [1.75, 0.4]
    assert q["median_change"].tolist() == [-0.25, 0.0]
    assert q["repriced"].tolist() == [1, 0]
    assert quarter(dt.date(2026, 3, 31)) == "2026-Q1" and quarter(dt.date(2026, 4, 1)) == "2026-Q2"
