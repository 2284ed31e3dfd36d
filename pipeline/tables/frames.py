"""Pure: the bytes of the data files under `public/data/`, from tables, in one fixed format.

CSV: pandas' writer, a header row, `\\n` line ends, empty cells for missing values, floats as
Python writes them (the shortest text that reads back as the same number). A text cell a
spreadsheet would run as a formula is neutralized (`text_cell`); numbers are never touched.
JSON: compact (no whitespace), keys in column order, floats as Python writes them, missing
values and non-finite numbers as null (strict parsers refuse `NaN` and `Infinity`).
"""

from __future__ import annotations

import json

import numpy as np
import pandas as pd

FORMULA_STARTS = ("=", "+", "-", "@", "\t", "\r", "\uff1d", "\uff0b", "\uff0d", "\uff20")
"""What a spreadsheet reads a cell starting with as a formula (OWASP, CSV Injection), with the
full-width forms of the first four (＝＋－＠), which a spreadsheet may read as their ASCII kin
(issue 50)."""


def text_cell(value: str) -> str:
    """Return a text cell of a CSV we publish: one a spreadsheet would read as a formula
    (`=HYPERLINK(…)`, `@SUM(…)`, `-2+3`, `＝1+1`), also behind blanks (`  =1+1`: a spreadsheet
    that trims cells on import runs what is left), gets a single quote in front, as OWASP's
    guidance on CSV injection says, and is shown as the text it is. Only for text: a number's
    cell (a negative price change) is written as the number."""
    # lstrip() takes a leading tab or CR too, hence the test of the cell as it is as well.
    runs = value.startswith(FORMULA_STARTS) or value.lstrip().startswith(FORMULA_STARTS)
    return "'" + value if runs else value


def _neutral_text(series: pd.Series) -> pd.Series:
    if not (pd.api.types.is_object_dtype(series) or pd.api.types.is_string_dtype(series)):
        return series  # numbers, dates, booleans: no formula
    # Each distinct text once: a cell at a time was 0.5 s of a build over 60,000-row tables
    # whose columns repeat a few hundred values, nearly none of them a formula.
    changed = {v: cell for v in set(series.to_numpy(dtype=object))
               if isinstance(v, str) and (cell := text_cell(v)) != v}
    if not changed:
        return series
    return series.mask(series.isin(list(changed)), series.map(changed))


def csv_bytes(frame: pd.DataFrame, columns: tuple[str, ...]) -> bytes:
    """Return `frame`'s `columns` as CSV, text cells through `text_cell`; a frame without one
    of them is a bug here."""
    missing = [c for c in columns if c not in frame.columns]
    if missing:
        raise ValueError(f"the table has no column {missing}, the file has {list(columns)}")
    table = pd.DataFrame({c: _neutral_text(frame[c]) for c in columns})
    return table.to_csv(index=False, lineterminator="\n").encode("utf-8")


def records(frame: pd.DataFrame, columns: tuple[str, ...]) -> list[dict]:
    """Return the rows of `frame` as plain dicts with `columns` in order, None where missing or
    not finite. Column by column (`tolist` gives Python values at C speed): pandas' own
    `to_dict` boxes every cell, seconds at a year's 60,000 hardware rows."""
    lists = []
    for column in columns:
        series = frame[column]
        if pd.api.types.is_float_dtype(series):
            values = series.to_numpy(dtype=float, na_value=np.nan)
            finite = np.isfinite(values)
            plain = values.tolist()
            lists.append(plain if finite.all() else [v if ok else None
                                                     for v, ok in zip(plain, finite)])
        elif isinstance(series.dtype, pd.api.extensions.ExtensionDtype):
            lists.append(series.astype(object).where(series.notna(), None).tolist())
        else:
            lists.append(series.tolist())
    return [dict(zip(columns, row)) for row in zip(*lists)]


def json_bytes(doc: object) -> bytes:
    """Return `doc` (plain lists, dicts and scalars) as compact JSON and a final newline."""
    return (json.dumps(doc, ensure_ascii=False, allow_nan=False, separators=(",", ":"))
            + "\n").encode("utf-8")
