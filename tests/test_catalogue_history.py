"""A catalogue's price history: a snapshot's table, the file's bytes, one snapshot's update (the
20-fold rule), and the history read back: its moves between snapshots, and its base prices.

The histories here are written row by row, as a history file holds them, so each expected row
below is read off the rows, not computed by the module."""

from __future__ import annotations

import datetime as dt
import math
import os
import warnings
from zoneinfo import ZoneInfo

import pandas as pd
import pytest

from pipeline.formats.price_map import ImportedPrice
from pipeline.models.catalogues import Catalogue, HeldPrice
from pipeline.tables.catalogue_history import (
    CHANGE_COLUMNS,
    COLUMNS,
    KEY,
    base_prices,
    catalogue_changes,
    empty_history,
    history_changes,
    history_csv,
    read_history_csv,
    snapshot_table,
    snapshot_time,
    update_history,
)
from pipeline.tables.market import catalogue_rows

T1, T2, T3 = "2026-09-01T06:00Z", "2026-09-02T06:00Z", "2026-09-03T06:00Z"


def period(model: str, usd: float, first_seen: str, gone_seen: str = "", *, provider: str = "acme",
           catalogue_provider: str | None = None, meter: str = "input", ttl: str = "",
           above: str = "0", mode: str = "realtime", window: str = "") -> dict:
    return {"provider": provider, "catalogue_provider": catalogue_provider or provider,
            "model": model, "meter": meter, "ttl_minutes": ttl, "context_above_tokens": above,
            "mode": mode, "window_utc": window, "from_date": "", "to_date": "",
            "usd_per_mtok": usd, "first_seen": first_seen, "gone_seen": gone_seen,
            "checked": first_seen[:10], "context_window_tokens": "", "commit": "",
            "dated_by": "fetch"}


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


def test_several_catalogues_moves_are_in_time_order_then_by_catalogue_each_from_its_whole_snapshot():
    histories = {  # z before a on purpose
        "z": history(period("m", 1.0, T1, T2), period("m", 0.5, T2),
                     period("n", 2.0, T2)),  # in z's first whole snapshot (T2): not a move
        "a": history(period("x", 3.0, T1, T2), period("y", 4.0, T3))}  # a has no whole snapshot
    got = catalogue_changes(histories, {"z": pd.Timestamp(T2).to_pydatetime()})
    assert list(got.columns) == list(CHANGE_COLUMNS) and list(got.index) == [0, 1, 2]
    assert [(r.catalogue, *m) for r, m in zip(got.itertuples(), moves(got), strict=True)] == [
        ("a", "x", "removed", 3.0, None, T2), ("z", "m", "cut", 1.0, 0.5, T2),
        ("a", "y", "new", None, 4.0, T3)]
    none = catalogue_changes({}, {})
    assert none.empty and list(none.columns) == list(CHANGE_COLUMNS)


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


# --- A snapshot's table, the history file's bytes, and one snapshot's update ---------------------

D1 = dt.datetime(2026, 9, 1, 6, 0, tzinfo=dt.UTC)
D2 = dt.datetime(2026, 9, 2, 6, 0, tzinfo=dt.UTC)


def test_a_snapshot_table_writes_every_key_part_as_text_and_the_own_name_wins():
    prices = [
        # An alias first in the file: the entry under the model's own name still wins.
        ImportedPrice("together_ai", "m", "cached_input", 0.7, ttl_minutes=60,
                      from_date=dt.date(2026, 1, 1), to_date=dt.date(2026, 12, 31),
                      entry="together_ai/m"),
        ImportedPrice("together_ai", "m", "cached_input", 0.5, ttl_minutes=60,
                      from_date=dt.date(2026, 1, 1), to_date=dt.date(2026, 12, 31),
                      entry="m", context_window_tokens=128000),
        ImportedPrice("acme", "a", "input", 1.0, window_utc=(dt.time(16, 30), dt.time(0, 30)),
                      checked=dt.date(2026, 8, 1)),
    ]
    got = snapshot_table(prices, {"together_ai": "together"}, dt.date(2026, 9, 1))
    expected = pd.DataFrame([
        ["acme", "acme", "a", "input", "", "0", "realtime", "16:30-00:30", "", "", 1.0,
         "2026-08-01", ""],
        ["together", "together_ai", "m", "cached_input", "60", "0", "realtime", "",
         "2026-01-01", "2026-12-31", 0.5, "2026-09-01", "128000"],
    ], columns=[*KEY, "usd_per_mtok", "checked", "context_window_tokens"])
    # Numbered 0, 1 in key order, not by the rows' places in the file (2, 1).
    pd.testing.assert_frame_equal(got, expected, check_index_type=True)


HEADER = ("provider,catalogue_provider,model,meter,ttl_minutes,context_above_tokens,mode,"
          "window_utc,from_date,to_date,usd_per_mtok,first_seen,gone_seen,checked,"
          "context_window_tokens,commit,dated_by\n")


def test_the_history_file_is_these_bytes_on_every_platform_and_reads_back_the_same(monkeypatch):
    rows = [period("b", 0.3, T1), period("a", 1.5, T2), period("a", 2.0, T1, T2),
            period("a", 0.0, T1, ttl="5", meter="cached_input")]
    # Columns out of order and rows numbered 7, 3, 9, 1: the file has neither.
    table = pd.DataFrame(rows, columns=list(reversed(COLUMNS)), index=[7, 3, 9, 1])
    expected = (HEADER
                + "acme,acme,a,cached_input,5,0,realtime,,,,0.0,2026-09-01T06:00Z,,2026-09-01,,,fetch\n"
                + "acme,acme,a,input,,0,realtime,,,,2.0,2026-09-01T06:00Z,2026-09-02T06:00Z,"
                  "2026-09-01,,,fetch\n"
                + "acme,acme,a,input,,0,realtime,,,,1.5,2026-09-02T06:00Z,,2026-09-02,,,fetch\n"
                + "acme,acme,b,input,,0,realtime,,,,0.3,2026-09-01T06:00Z,,2026-09-01,,,fetch\n").encode()
    monkeypatch.setattr(os, "linesep", "\r\n")  # as on Windows: the file must not follow it
    data = history_csv(table)
    assert data == expected
    assert history_csv(read_history_csv(data)) == data


def row_line(model: str, usd: str) -> str:
    return f"acme,acme,{model},input,,0,realtime,,,,{usd},{T1},,2026-09-01,,,fetch\n"


def test_a_history_missing_columns_names_each_one_but_the_context_window():
    # No first_seen, no gone_seen and no context window: the context window is a later column
    # that an older history lacks (read as empty); the other two make it no history at all.
    header = HEADER.replace("first_seen,gone_seen,", "").replace(",context_window_tokens", "")
    data = (header + "acme,acme,a,input,,0,realtime,,,,1.0,2026-09-01\n").encode()
    with pytest.raises(ValueError) as err:
        read_history_csv(data)
    assert str(err.value) == "not a price history: no column first_seen, gone_seen"


@pytest.mark.parametrize("usd", ["abc", "-0.5", "inf", ""])
def test_a_price_that_is_not_a_finite_number_of_zero_or_more_is_refused_with_its_line(usd):
    # One bad row, the third: the file's line 4 (the header is line 1).
    data = (HEADER + row_line("a", "1.0") + row_line("b", "2.0") + row_line("c", usd)
            + row_line("d", "3.0")).encode()
    with pytest.raises(ValueError) as err:
        read_history_csv(data)
    assert str(err.value) == (f"line 4: usd_per_mtok {usd!r} is not a finite price of zero "
                              "or more")


def test_prices_read_back_as_floats_even_when_written_as_whole_numbers():
    # A hand-edited history may say 1 for 1.0: still a float price, written back as 1.0.
    data = (HEADER + row_line("a", "1") + row_line("b", "0")).encode()
    read = read_history_csv(data)
    assert read["usd_per_mtok"].dtype == "float64"
    assert [type(v) for v in read["usd_per_mtok"].tolist()] == [float, float]
    assert history_csv(read) == (HEADER + row_line("a", "1.0") + row_line("b", "0.0")).encode()


def test_a_history_without_rows_is_text_but_the_price_and_gives_no_market_rows():
    # Ingest starts a catalogue's history from empty_history; the market table compares its
    # columns with snapshot times and dates, which a float column would refuse.
    empty = empty_history()
    assert list(empty.columns) == COLUMNS and empty.empty
    assert [c for c in COLUMNS if pd.api.types.is_float_dtype(empty[c])] == ["usd_per_mtok"]
    catalogue = Catalogue(id="c", name="Cat", url="https://c.example/m.json",
                          page="https://c.example/", format="litellm", licence="MIT",
                          attribution="a", use="published")
    assert catalogue_rows(empty, catalogue, dt.date(2026, 9, 1)).empty


def test_a_snapshot_time_is_written_in_utc_whatever_the_machines_zone(machine_zone):
    # The machine in Pago Pago (UTC-11), the snapshot taken at 08:00 in Berlin (UTC+2 in
    # September): 06:00 UTC, not 19:00 the day before, the machine's time then.
    machine_zone("Pacific/Pago_Pago")
    berlin = dt.datetime(2026, 9, 1, 8, tzinfo=ZoneInfo("Europe/Berlin"))
    assert snapshot_time(berlin) == "2026-09-01T06:00Z"
    assert snapshot_time(dt.datetime(2026, 9, 1, 6, 0, 59, tzinfo=dt.UTC)) == "2026-09-01T06:00Z"


def snapshot(*rows: dict) -> pd.DataFrame:
    """A snapshot_table of periods' keys, prices, checked dates and context windows."""
    return pd.DataFrame(rows)[[*KEY, "usd_per_mtok", "checked", "context_window_tokens"]]


def together(model: str, usd: float, first_seen: str = T1, window: str = "") -> dict:
    row = period(model, usd, first_seen, provider="together", catalogue_provider="together_ai")
    row["context_window_tokens"] = window
    return row


def test_a_move_above_twentyfold_is_held_a_zero_price_is_free_not_a_ratio():
    old = [together("a-again", 1.0), together("exact-rise", 1.0), together("exact-cut", 20.0),
           together("over", 1.0), together("small", 0.01), together("to-free", 3.0),
           together("from-free", 0.0), together("still-free", 0.0),
           together("kept-window", 1.0, window="128000"), together("new-window", 1.0),
           together("gone", 2.0)]
    now = [together("a-again", 30.0, T2), together("exact-rise", 20.0, T2),
           together("exact-cut", 1.0, T2), together("over", 21.0, T2),
           together("small", 0.5, T2), together("to-free", 0.0, T2),
           together("from-free", 2.0, T2), together("still-free", 0.0, T2),
           together("kept-window", 1.0, T2), together("new-window", 1.0, T2, window="200000"),
           together("fresh", 4.0, T2)]
    # Numbered out of order, as a history filtered or joined from pieces would be.
    before = history(*old)
    before.index = [50, 40, 30, 20, 10, 0, 5, 15, 25, 35, 45]
    shown_before = HeldPrice(key=[together("a-again", 0.0)[c] for c in KEY], usd_per_mtok=30.0,
                             was_usd_per_mtok=1.0, first_seen=D1)
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # no division warning reaches the command's output
        got = update_history(before, snapshot(*now), D2, held=[shown_before])

    # 20-fold exactly is not a jump; 21-fold and 50-fold are; to or from 0 (free) is no ratio.
    assert [(h.key[2], h.usd_per_mtok, h.was_usd_per_mtok) for h in got.held] == [
        ("over", 21.0, 1.0), ("small", 0.5, 0.01)]
    assert got.problems == [
        "together over input: 1 → 21 USD per Mtok is a 21-fold move; held back until the next "
        "snapshot shows it again, or an editor confirms it in sources/catalogues.yaml",
        "together small input: 0.01 → 0.5 USD per Mtok is a 50-fold move; held back until the "
        "next snapshot shows it again, or an editor confirms it in sources/catalogues.yaml"]
    assert list(got.changes.columns) == [*KEY, "kind", "old", "new", "at"]
    assert list(got.changes.index) == list(range(len(got.changes)))
    assert sorted(moves_of(got.changes)) == [
        ("a-again", "rise", 1.0, 30.0), ("exact-cut", "cut", 20.0, 1.0),
        ("exact-rise", "rise", 1.0, 20.0), ("fresh", "new", None, 4.0),
        ("from-free", "rise", 0.0, 2.0), ("gone", "removed", 2.0, None),
        ("to-free", "cut", 3.0, 0.0)]
    assert set(got.changes["at"]) == {T2}

    after = got.history
    assert list(after.columns) == COLUMNS and list(after.index) == list(range(len(after)))
    # The held ones keep their open period; a window comes in, and is not taken away.
    assert sorted((r.model, r.usd_per_mtok, r.first_seen, r.gone_seen, r.context_window_tokens)
                  for r in after.itertuples()) == [
        ("a-again", 1.0, T1, T2, ""), ("a-again", 30.0, T2, "", ""),
        ("exact-cut", 1.0, T2, "", ""), ("exact-cut", 20.0, T1, T2, ""),
        ("exact-rise", 1.0, T1, T2, ""), ("exact-rise", 20.0, T2, "", ""),
        ("fresh", 4.0, T2, "", ""),
        ("from-free", 0.0, T1, T2, ""), ("from-free", 2.0, T2, "", ""),
        ("gone", 2.0, T1, T2, ""),
        ("kept-window", 1.0, T1, "", "128000"), ("new-window", 1.0, T1, "", "200000"),
        ("over", 1.0, T1, "", ""), ("small", 0.01, T1, "", ""),
        ("still-free", 0.0, T1, "", ""),
        ("to-free", 0.0, T2, "", ""), ("to-free", 3.0, T1, T2, "")]


def moves_of(changes: pd.DataFrame) -> list[tuple]:
    return [(r.model, r.kind, None if math.isnan(r.old) else r.old,
             None if math.isnan(r.new) else r.new) for r in changes.itertuples()]
