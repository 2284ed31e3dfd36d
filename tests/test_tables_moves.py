"""The price moves table (tables/moves.py) on a price file made for it: every move of every pair,
with its kind, figures, record and whether the whole model came or went, worked out by hand."""

from __future__ import annotations

import datetime as dt

import pytest

from pipeline.models.prices import PriceFile
from pipeline.tables.moves import meter_moves

UTC = dt.UTC
SRC = {"source_url": "https://p.example/pricing", "checked": "2026-03-01"}


def record(model, start, end, *prices):
    return {"model": model, "from": start, **({"to": end} if end else {}), **SRC, "prices": list(prices)}


def price(meter, value, **over):
    return {"meter": meter, "price": value, **over}


FILES = {
    # Written out of order: providers are taken by id.
    "q": PriceFile.model_validate({"provider": "q", "name": "Q", "lists": [{"currency": "USD", "records": [
        record("z", "2026-03-01", None, price("input", 7))]}]}),
    "p": PriceFile.model_validate({"provider": "p", "name": "P", "lists": [
        {"currency": "USD", "records": [
            record("a", "2026-03-01", "2026-03-05", price("input", 1), price("output", 4),
                   price("cache_write", 2, ttl_minutes=5), price("cache_write", 3, ttl_minutes=60)),
            record("a", "2026-03-05", None, price("input", 1), price("output", 5),
                   price("cache_write", 1.5, ttl_minutes=5), price("cached_input", 0.1),
                   price("input", 0.5, mode="batch")),
            record("b", "2026-03-03", None, price("input", 2))]},
        {"currency": "EUR", "unit": "per_1k_tokens", "records": [
            record("a", "2026-03-01", "2026-03-04", price("input", 0.001))]}]}),
}
T0 = dt.datetime(2026, 3, 2, tzinfo=UTC)
T1 = dt.datetime(2026, 3, 6, tzinfo=UTC)
T2 = dt.datetime(2026, 3, 4, 12, tzinfo=UTC)


def test_every_move_of_two_pairs_by_hand():
    moves = meter_moves(FILES, [(T0, T1), (T1, T0), (T0, T2), (T0, T1)])
    usd, eur = FILES["p"].lists
    later_a, b, eur_a = usd.records[1], usd.records[2], eur.records[0]
    got = [(m.provider, m.currency, m.model, m.key, m.kind, m.old_per_mtok, m.new_per_mtok, m.record,
            m.whole_model, m.change) for m in moves.between(T0, T1)]
    # Within a model, by the tier key as text: "cache_write" < "cached_input", and ttl "5" < "60".
    # A removed price cites the record in force at the end when the model still has one; q's z
    # has one record throughout and no move. EUR per 1k tokens: 0.001 is 1 per Mtok.
    assert got == [
        ("p", "USD", "a", ("cache_write", 5, None, 0, "realtime"), "cut", 2.0, 1.5, later_a, False,
         pytest.approx(1.5 / 2 - 1)),
        ("p", "USD", "a", ("cache_write", 60, None, 0, "realtime"), "removed", 3.0, None, later_a, False,
         None),
        ("p", "USD", "a", ("cached_input", None, None, 0, "realtime"), "new", None, 0.1, later_a, False,
         None),
        ("p", "USD", "a", ("input", None, None, 0, "batch"), "new", None, 0.5, later_a, False, None),
        ("p", "USD", "a", ("output", None, None, 0, "realtime"), "rise", 4.0, 5.0, later_a, False,
         pytest.approx(5 / 4 - 1)),
        ("p", "USD", "b", ("input", None, None, 0, "realtime"), "new", None, 2.0, b, True, None),
        ("p", "EUR", "a", ("input", None, None, 0, "realtime"), "removed", 1.0, None, eur_a, True, None)]
    # Until noon of the 4th USD a is in its first record: only b came and EUR a went (at 00:00).
    assert [(m.model, m.currency, m.kind, m.whole_model) for m in moves.between(T0, T2)] == [
        ("b", "USD", "new", True), ("a", "EUR", "removed", True)]
    # Backwards, the same prices move the other way; the first record of all (rid 0) is cited.
    assert [(m.key[0], m.kind, m.record is usd.records[0], m.whole_model) for m in moves.between(T1, T0)][:2] == [
        ("cache_write", "rise", True, False), ("cache_write", "new", True, False)]
    us = {t: int(t.timestamp()) * 1_000_000 for t in (T0, T1, T2)}
    assert moves.pairs == ((us[T0], us[T2]), (us[T0], us[T1]), (us[T1], us[T0]))
    # The table as its docstring gives it: pair, model key (p's USD a 0, b 1, EUR a 2, q's z 3), rid.
    assert moves.table[["pair", "key", "rid", "whole"]].values.tolist() == [
        [0, 1, 2, True], [0, 2, 3, True], *[[1, 0, 1, False]] * 5, [1, 1, 2, True], [1, 2, 3, True],
        *[[2, 0, 0, False]] * 5, [2, 1, 2, True], [2, 2, 3, True]]
    with pytest.raises(KeyError, match="the moves table has no pair 2026-03-04T12:00:00"
                                       r"\+00:00–2026-03-02T00:00:00\+00:00"):
        moves.between(T2, T0)
    assert meter_moves(FILES, []).table.empty


def test_a_record_that_changes_nothing_a_reader_sees_moves_nothing():
    """A new record with the same prices is no move; a price given twice counts its last value."""
    same = PriceFile.model_validate({"provider": "p", "name": "P", "lists": [{"currency": "USD", "records": [
        record("a", "2026-03-01", "2026-03-05", price("input", 1), price("input", 9)),
        record("a", "2026-03-05", None, price("input", 9))]}]})
    assert meter_moves({"p": same}, [(T0, T1)]).between(T0, T1) == []
    assert meter_moves({}, [(T0, T1)]).between(T0, T1) == []
