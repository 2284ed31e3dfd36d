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


def test_the_changes_a_history_records_are_the_moves_each_snapshot_made():
    """Two ways to the same moves: each update's own, and the final history read back."""
    from pipeline.tables.catalogue_history import history_changes

    snaps = [
        (dt.datetime(2026, 9, 1, 6, tzinfo=dt.UTC), [p("a", "input", 1.0), p("b", "input", 2.0)]),
        (dt.datetime(2026, 9, 2, 6, tzinfo=dt.UTC), [p("a", "input", 0.8), p("b", "input", 2.0),
                                                      p("c", "input", 3.0)]),
        (dt.datetime(2026, 9, 3, 6, tzinfo=dt.UTC), [p("a", "input", 0.8), p("c", "input", 3.5)]),
        (dt.datetime(2026, 9, 4, 6, tzinfo=dt.UTC), [p("a", "input", 0.8), p("b", "input", 2.0),
                                                      p("c", "input", 3.5)]),
    ]
    history, recorded = empty_history(), []
    for i, (at, prices) in enumerate(snaps):
        update = update_history(history, snapshot_table(prices, {}, at.date()), at)
        history = update.history
        if i:  # the first snapshot is where the history starts
            recorded.append(update.changes)
    want = pd.concat(recorded, ignore_index=True)
    got = history_changes(history, "c")
    as_rows = lambda t, old, new: sorted(  # noqa: E731
        (r.model, r.kind, None if pd.isna(getattr(r, old)) else getattr(r, old),
         None if pd.isna(getattr(r, new)) else getattr(r, new), r.at) for r in t.itertuples())
    assert as_rows(got, "old_usd_per_mtok", "new_usd_per_mtok") == as_rows(want, "old", "new")
    assert as_rows(got, "old_usd_per_mtok", "new_usd_per_mtok") == [
        ("a", "cut", 1.0, 0.8, "2026-09-02T06:00Z"), ("b", "new", None, 2.0, "2026-09-04T06:00Z"),
        ("b", "removed", 2.0, None, "2026-09-03T06:00Z"), ("c", "new", None, 3.0, "2026-09-02T06:00Z"),
        ("c", "rise", 3.0, 3.5, "2026-09-03T06:00Z")]
    # From the first snapshot of the whole catalogue on, a price first seen then is where its
    # history starts (c), not a new price; a price new later (b, back on 09-04) still is.
    since = history_changes(history, "c", whole_since=snaps[1][0])
    assert ("c", "new") not in {(r.model, r.kind) for r in since.itertuples()}
    assert ("b", "new") in {(r.model, r.kind) for r in since.itertuples()}


def test_a_model_priced_only_in_another_list_then_is_quoted_from_it():
    from pipeline.models.prices import PriceFile
    from pipeline.models.sourced import Sourced
    from pipeline.normalize.fx import table_from_eur_rates

    def record(start: str, end: str | None, price: float) -> dict:
        r = {"model": "m", "from": start, "source_url": "https://p.example/pricing",
             "checked": start, "prices": [{"meter": "input", "price": price},
                                           {"meter": "output", "price": price * 4}]}
        return r | ({"to": end} if end else {})

    file = PriceFile.model_validate({"provider": "p", "name": "P", "lists": [
        {"currency": "USD", "unit": "per_1m_tokens", "records": [record("2026-10-01", None, 2.0)]},
        {"currency": "EUR", "unit": "per_1m_tokens",
         "records": [record("2026-01-01", None, 1.0)]}]})
    rates = table_from_eur_rates({"USD": {dt.date(2026, 1, 1): 1.25}})
    table = curated_rows({"p": Sourced(file, "sources/prices/p.yaml")}, rates,
                         dt.date(2026, 6, 1))
    (row,) = table.itertuples()
    # The USD list is the quoted one but starts later: the EUR list, in force, is used.
    assert (row.currency, row.list_input_per_mtok, row.input_usd_per_mtok) == ("EUR", 1.0, 1.25)
