"""The market table: catalogue histories as of a date, curated files winning, free kept apart."""

from __future__ import annotations

import datetime as dt
from pathlib import Path

import pandas as pd

from pipeline.formats.price_map import ImportedPrice
from pipeline.load.fx import load_rate_table
from pipeline.load.prices import load_prices
from pipeline.models.catalogues import Catalogue
from pipeline.tables.catalogue_history import empty_history, snapshot_table, update_history
from pipeline.tables.market import catalogue_rows, curated_rows, market_table

ROOT = Path(__file__).resolve().parents[1]
CATALOGUE = Catalogue(id="c", name="Cat", url="https://c.example/m.json",
                      page="https://c.example/", format="litellm", licence="MIT",
                      attribution="a", use="published")


def history_of(*snapshots: tuple[dt.datetime, list[ImportedPrice]]) -> pd.DataFrame:
    history = empty_history()
    for at, prices in snapshots:
        history = update_history(history, snapshot_table(prices, {}, at.date()), at).history
    return history


def p(model: str, meter: str, usd: float, provider: str = "openai", **kw) -> ImportedPrice:
    return ImportedPrice(provider, model, meter, usd, **kw)


def test_a_catalogue_price_counts_from_the_snapshot_that_first_showed_it():
    t1 = dt.datetime(2026, 9, 1, 6, tzinfo=dt.UTC)
    t2 = dt.datetime(2026, 9, 10, 6, tzinfo=dt.UTC)
    history = history_of((t1, [p("m", "input", 1.0), p("m", "output", 4.0)]),
                         (t2, [p("m", "input", 0.5), p("m", "output", 4.0),
                               p("n", "input", 2.0), p("n", "output", 8.0),
                               p("m", "input", 9.0, context_above_tokens=200_000),
                               p("m", "output", 2.0, mode="batch")]))
    before = catalogue_rows(history, CATALOGUE, dt.date(2026, 9, 9))
    assert before[["model", "input_usd_per_mtok", "output_usd_per_mtok"]].values.tolist() == [
        ["m", 1.0, 4.0]]  # n and the cut are not known yet
    after = catalogue_rows(history, CATALOGUE, dt.date(2026, 9, 10))
    m = after[after["model"] == "m"].iloc[0]
    # The base band only; batch beside; the cut dated by its snapshot.
    assert (m["input_usd_per_mtok"], m["batch_output_usd_per_mtok"], m["last_change"]) == (
        0.5, 2.0, "2026-09-10")
    assert catalogue_rows(history, CATALOGUE, dt.date(2026, 8, 31)).empty


def test_curated_records_win_and_free_is_kept_but_never_ranked():
    files, _ = load_prices(ROOT)
    rates = load_rate_table(ROOT)
    at = dt.datetime(2026, 9, 1, tzinfo=dt.UTC)
    history = history_of((at, [p("gpt-5.5", "input", 99.0), p("gpt-5.5", "output", 99.0),
                               p("gratis", "input", 0.0), p("gratis", "output", 0.0),
                               p("cheap", "input", 0.01, provider="x"),
                               p("cheap", "output", 0.02, provider="x")]))
    day = dt.date(2026, 9, 12)
    table = market_table([curated_rows(files, rates, day), catalogue_rows(history, CATALOGUE, day)])
    gpt = table[(table["provider"] == "openai") & (table["model"] == "gpt-5.5")]
    assert len(gpt) == 1 and gpt.iloc[0]["source"] == "OpenAI (curated)"
    assert (gpt.iloc[0]["input_usd_per_mtok"], gpt.iloc[0]["output_usd_per_mtok"]) == (5.0, 30.0)
    assert table.iloc[0]["model"] == "cheap"  # the lowest output price first
    assert table.iloc[-1]["model"] == "gratis" and bool(table.iloc[-1]["free"])
    flash = table[table["model"] == "glm-4.5-air"].iloc[0]
    # From the CNY list at the ECB rate of the record's date, the list's own price beside.
    assert flash["currency"] == "CNY" and flash["list_input_per_mtok"] > flash["input_usd_per_mtok"]
