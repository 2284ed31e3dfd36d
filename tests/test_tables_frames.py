"""The bytes of the data files (tables/frames.py), from a small frame made for each rule."""

from __future__ import annotations

import math
import os

import pandas as pd
import pytest

from pipeline.tables.frames import csv_bytes, json_bytes, records

FRAME = pd.DataFrame({
    "name": ["Ünïcode €", "b"],
    "share": [0.1, float("nan")],
    "ratio": [float("inf"), 1 / 3],
    "count": pd.array([7, None], dtype="Int64"),
    "plain": [1, 2],
    "unused": ["x", "y"],
})
COLUMNS = ("plain", "name", "share", "ratio", "count")


def test_csv_in_the_columns_asked_with_empty_cells_and_newline_ends(monkeypatch):
    # `\n` wherever the build runs: pandas would end lines with the platform's separator.
    monkeypatch.setattr(os, "linesep", "\r\n")
    # Python's shortest float text (0.1, 0.3333333333333333), pandas' inf, no index column.
    assert csv_bytes(FRAME, COLUMNS) == ("plain,name,share,ratio,count\n"
                                         "1,Ünïcode €,0.1,inf,7\n"
                                         "2,b,,0.3333333333333333,\n").encode()
    with pytest.raises(ValueError) as raised:
        csv_bytes(FRAME, ("plain", "gone", "lost"))
    assert str(raised.value) == ("the table has no column ['gone', 'lost'], the file has "
                                 "['plain', 'gone', 'lost']")


def test_records_are_plain_values_in_column_order_none_where_missing_or_not_finite():
    rows = records(FRAME, COLUMNS)
    assert rows == [{"plain": 1, "name": "Ünïcode €", "share": 0.1, "ratio": None, "count": 7},
                    {"plain": 2, "name": "b", "share": None, "ratio": 1 / 3, "count": None}]
    assert [list(r) for r in rows] == [list(COLUMNS)] * 2
    assert [type(v) for v in rows[0].values()] == [int, str, float, type(None), int]
    finite = records(pd.DataFrame({"x": [0.5, 2.0]}), ("x",))
    assert finite == [{"x": 0.5}, {"x": 2.0}] and all(type(r["x"]) is float for r in finite)
    assert records(FRAME.iloc[:0], COLUMNS) == []


def test_json_is_compact_utf8_with_a_final_newline_and_refuses_nan():
    doc = records(FRAME, COLUMNS)
    assert json_bytes(doc) == ('[{"plain":1,"name":"Ünïcode €","share":0.1,"ratio":null,"count":7},'
                               '{"plain":2,"name":"b","share":null,"ratio":0.3333333333333333,'
                               '"count":null}]\n').encode()
    with pytest.raises(ValueError):
        json_bytes({"x": math.nan})
