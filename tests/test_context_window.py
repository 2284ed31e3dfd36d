"""A model's context window: read from the maps, kept on its open price periods as the newest
snapshot gives it, shown on the Market page for catalogue and curated models alike."""

from __future__ import annotations

import datetime as dt
import json

import pandas as pd

from pipeline.formats.genai_prices import read_genai_data
from pipeline.formats.litellm import read_litellm
from pipeline.tables.catalogue_history import (
    empty_history,
    history_csv,
    read_history_csv,
    snapshot_table,
    update_history,
)
from pipeline.tables.market import market_table

T1 = dt.datetime(2026, 9, 1, 6, tzinfo=dt.UTC)
T2 = dt.datetime(2026, 9, 2, 6, tzinfo=dt.UTC)


def litellm_map(window: object, price: float = 1e-06) -> bytes:
    return json.dumps({"m": {"litellm_provider": "openai", "mode": "chat",
                             "input_cost_per_token": price, "output_cost_per_token": price * 4,
                             "max_input_tokens": window}}).encode()


def test_the_maps_give_the_context_window_and_nonsense_is_none():
    assert {p.context_window_tokens for p in read_litellm(litellm_map(128000)).prices} == {128000}
    for nonsense in (None, 0, -5, 1.5, "128k", True, float("inf")):
        body = litellm_map(nonsense).replace(b"Infinity", b"1e999")
        assert {p.context_window_tokens for p in read_litellm(body).prices} == {None}, nonsense
    genai = json.dumps([{"id": "acme", "name": "Acme", "models": [
        {"id": "a-1", "name": "A 1", "context_window": 200000,
         "prices": {"input_mtok": 1.0, "output_mtok": 2.0}}]}]).encode()
    assert {p.context_window_tokens for p in read_genai_data(genai).prices} == {200000}


def test_a_new_window_updates_the_open_periods_and_opens_none():
    first = update_history(empty_history(),
                           snapshot_table(read_litellm(litellm_map(None)).prices, {}, T1.date()),
                           T1)
    assert set(first.history["context_window_tokens"]) == {""}
    second = update_history(first.history, snapshot_table(
        read_litellm(litellm_map(128000)).prices, {}, T2.date()), T2)
    assert second.changes.empty and len(second.history) == 2  # not a price move
    assert set(second.history["context_window_tokens"]) == {"128000"}
    # A snapshot without one leaves it; a price move opens a period with the snapshot's.
    third = update_history(second.history, snapshot_table(
        read_litellm(litellm_map(None, 2e-06)).prices, {}, T2.date()), T2 + dt.timedelta(1))
    assert list(third.history.sort_values("first_seen")["context_window_tokens"]) == [
        "128000", "128000", "", ""]
    # Read back, and a file from before the column reads as without one.
    back = read_history_csv(history_csv(third.history))
    assert sorted(back["context_window_tokens"]) == ["", "", "128000", "128000"]
    old = history_csv(first.history).decode().replace(",context_window_tokens", "")
    old = "\n".join(line.rsplit(",", 1)[0] if i else line
                    for i, line in enumerate(old.splitlines())) + "\n"
    assert set(read_history_csv(old.encode())["context_window_tokens"]) == {""}


def test_a_curated_row_takes_the_catalogues_window():
    curated = pd.DataFrame([{"provider": "acme", "model": "m", "output_usd_per_mtok": 2.0,
                             "input_usd_per_mtok": 1.0, "context_window_tokens": float("nan"),
                             "source": "Acme (curated)"}])
    catalogue = pd.DataFrame([{"provider": "acme", "model": "m", "output_usd_per_mtok": 3.0,
                               "input_usd_per_mtok": 1.0, "context_window_tokens": 65536.0,
                               "source": "Cat"},
                              {"provider": "acme", "model": "n", "output_usd_per_mtok": 3.0,
                               "input_usd_per_mtok": 1.0, "context_window_tokens": float("nan"),
                               "source": "Cat"}])
    table = market_table([curated, catalogue])
    assert list(table["source"]) == ["Acme (curated)", "Cat"]
    assert table["context_window_tokens"].tolist() == [65536, pd.NA]
