"""A catalogue's price history read back: its moves between snapshots, and its base prices.

The histories here are written row by row, as a history file holds them, so each expected row
below is read off the rows, not computed by the module."""

from __future__ import annotations

import math

import pandas as pd

from pipeline.tables.catalogue_history import (
    CHANGE_COLUMNS,
    COLUMNS,
    base_prices,
    empty_history,
    history_changes,
)

T1, T2, T3 = "2026-09-01T06:00Z", "2026-09-02T06:00Z", "2026-09-03T06:00Z"


def period(model: str, usd: float, first_seen: str, gone_seen: str = "", *, provider: str = "acme",
           catalogue_provider: str | None = None, meter: str = "input", ttl: str = "",
           above: str = "0", mode: str = "realtime", window: str = "") -> dict:
    return {"provider": provider, "catalogue_provider": catalogue_provider or provider,
            "model": model, "meter": meter, "ttl_minutes": ttl, "context_above_tokens": above,
            "mode": mode, "window_utc": window, "from_date": "", "to_date": "",
            "usd_per_mtok": usd, "first_seen": first_seen, "gone_seen": gone_seen,
            "checked": first_seen[:10], "context_window_tokens": ""}


def history(*periods: dict) -> pd.DataFrame:
    return pd.DataFrame(list(periods), columns=COLUMNS)


def moves(table: pd.DataFrame) -> list[tuple]:
    return [(r.model, r.kind, None if math.isnan(r.old_usd_per_mtok) else r.old_usd_per_mtok,
             None if math.isnan(r.new_usd_per_mtok) else r.new_usd_per_mtok, r.at)
            for r in table.itertuples()]


# Out of key order on purpose: the moves are read in key order, then time order.
HISTORY = history(
    period("d", 4.0, T3),  # back after a gap
    period("b", 1.5, T2),
    period("c", 3.0, T1, T3),  # gone
    period("a", 1.0, T2),  # first in key order, first seen after the history starts
    period("e", 1.0, T1),  # held all along: no move
    period("b", 2.0, T1, T2),  # cut where the next period begins
    period("d", 1.0, T1, T2))


def test_the_moves_of_a_history_are_read_off_its_periods_in_time_order():
    got = history_changes(HISTORY, "cat")
    assert list(got.columns) == list(CHANGE_COLUMNS)
    assert moves(got) == [
        ("a", "new", None, 1.0, T2), ("b", "cut", 2.0, 1.5, T2), ("d", "removed", 1.0, None, T2),
        ("c", "removed", 3.0, None, T3), ("d", "new", None, 4.0, T3)]
    assert set(got["catalogue"]) == {"cat"} and set(got["provider"]) == {"acme"}
    assert list(got.index) == [0, 1, 2, 3, 4]
    # Prices are numbers, NaN for none, so a caller can take the size of a move.
    assert (got["old_usd_per_mtok"].dtype, got["new_usd_per_mtok"].dtype) == ("float64", "float64")
    # From the first whole snapshot (T3) on, a is where its history starts; d came back.
    since = history_changes(HISTORY, "cat", whole_since=pd.Timestamp(T3).to_pydatetime())
    assert moves(since) == [
        ("b", "cut", 2.0, 1.5, T2), ("d", "removed", 1.0, None, T2),
        ("c", "removed", 3.0, None, T3), ("d", "new", None, 4.0, T3)]


def test_a_history_without_rows_has_no_moves_but_the_columns():
    got = history_changes(empty_history(), "cat")
    assert got.empty and list(got.columns) == list(CHANGE_COLUMNS)


def test_base_prices_are_realtime_all_day_base_band_default_cache_one_catalogue_provider():
    rows = [
        # google's model as two of the catalogue's providers: gemini, first in key order, stands.
        period("g", 2.0, T1, provider="google", catalogue_provider="vertex_ai"),
        period("g", 9.0, T1, provider="google", catalogue_provider="vertex_ai", meter="output"),
        period("g", 1.0, T1, provider="google", catalogue_provider="gemini"),
        period("g", 4.0, T1, provider="google", catalogue_provider="gemini", meter="output"),
        period("m", 3.0, T1, T2), period("m", 2.5, T2),  # every period, not only the open one
        period("m", 0.3, T1, meter="cached_input", ttl="5"),  # the default cache lifetime
        period("m", 0.6, T1, meter="cached_input", ttl="60"),
        period("m", 6.0, T1, above="200000"),  # a long-context band
        period("m", 1.5, T1, mode="batch"),
        period("m", 1.0, T1, window="16:30-00:30"),  # a daily window
        period("m", 7.0, T1, meter="image"),  # a meter not asked for
    ]
    got = base_prices(history(*rows), ("input", "cached_input", "output"))
    assert list(got.columns) == COLUMNS
    assert sorted((r.catalogue_provider, r.model, r.meter, r.ttl_minutes, r.usd_per_mtok,
                   r.first_seen) for r in got.itertuples()) == [
        ("acme", "m", "cached_input", "5", 0.3, T1), ("acme", "m", "input", "", 2.5, T2),
        ("acme", "m", "input", "", 3.0, T1),
        ("gemini", "g", "input", "", 1.0, T1), ("gemini", "g", "output", "", 4.0, T1)]
