"""Flat rows as JSON: the bytes json.dumps(indent=1) writes, by the C encoder."""

from __future__ import annotations

import json
import math

from hypothesis import given
from hypothesis import strategies as st

from pipeline.tables.json_rows import row_json, rows_json

SCALARS = (st.none() | st.booleans() | st.integers() | st.text()
           | st.floats(allow_nan=True, allow_infinity=True))
ROWS = st.lists(st.dictionaries(st.text(), SCALARS, max_size=6), max_size=5)


def strict(rows: list[dict]) -> list[dict]:
    """The rows as strict JSON holds them: a non-finite number is null (issue 18)."""
    return [{k: None if isinstance(v, float) and not math.isfinite(v) else v
             for k, v in row.items()} for row in rows]


def no_constants(name: str) -> None:
    raise AssertionError(f"{name} is not strict JSON")


@given(ROWS)
def test_rows_are_written_as_json_dumps_with_indent_writes_them(rows: list[dict]) -> None:
    text = rows_json(rows)
    assert text == json.dumps(strict(rows), indent=1, ensure_ascii=False)
    assert json.loads(text, parse_constant=no_constants) == strict(rows)


@given(ROWS, st.integers(min_value=0, max_value=3))
def test_rows_nested_deeper_are_indented_as_json_dumps_indents_them(rows: list[dict],
                                                                    level: int) -> None:
    doc: object = strict(rows)
    for _ in range(level):
        doc = {"rows": doc}
    text = rows_json(rows, level)
    for depth in reversed(range(level)):  # the objects around it, as json.dumps writes them
        text = "{\n" + " " * (depth + 1) + '"rows": ' + text + "\n" + " " * depth + "}"
    assert text == json.dumps(doc, indent=1, ensure_ascii=False)


def test_a_row_holding_a_list_falls_back_to_json_dumps() -> None:
    row = {"a": [1, 2], "b": "x"}
    assert rows_json([row]) == json.dumps([row], indent=1, ensure_ascii=False)
    assert row_json(row, 0) == json.dumps(row, indent=1, ensure_ascii=False)
