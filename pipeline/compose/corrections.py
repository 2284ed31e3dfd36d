"""Pure: corrections, not rewrites. The figures each dated edition printed are kept in a ledger
(`sources/snapshots/printed.csv`, written by `brief seal`, which the scheduled job runs before it
builds); when a source later changes a figure an edition printed, the edition shows the figure
as it is now with a dated note of what it said before, and its feed entry is updated then.

A figure is one bullet of Context & numbers, known by its id, else by its lane and its label with
the numbers masked (`Blended prices since #-#-#: # of # tracked models moved`). Only a change of
its numbers is a correction: a figure reworded by new code, with the same numbers, is re-recorded
silently. The ledger is a table: one row per figure and the text it printed, from the day that
was sealed (`printed`) to the day a correction replaced it (`replaced`, empty while it holds).
"""

from __future__ import annotations

import datetime as dt
import re
from collections.abc import Iterable

import pandas as pd

from pipeline.compose.types import Edition, Figure

LEDGER_COLUMNS = ["edition", "figure", "label", "text", "printed", "replaced"]
_NUMBER = re.compile(r"\d+(?:[.,]\d+)*")
_LINK = re.compile(r"\[([^\]]*)\]\([^)]*\)")


def empty_ledger() -> pd.DataFrame:
    """Return a ledger without rows."""
    return pd.DataFrame({c: pd.Series(dtype=object) for c in LEDGER_COLUMNS})


def printed_figures(edition: Edition) -> list[tuple[str, str, str]]:
    """Return (figure key, label, text) of every figure an edition prints, in order; the text
    is the label and the sentence, links reduced to their words."""
    seen: dict[str, int] = {}
    out = []
    for section in edition.sections:
        for item in section.items:
            if not isinstance(item, Figure):
                continue
            key = item.id or f"{item.lane}: {_NUMBER.sub('#', item.label)}"
            seen[key] = seen.get(key, 0) + 1
            if seen[key] > 1:
                key = f"{key} ({seen[key]})"
            out.append((key, item.label, _LINK.sub(r"\1", f"{item.label}: {item.text_md}")))
    return out


def sealed(ledger: pd.DataFrame, editions: Iterable[Edition], today: dt.date) -> pd.DataFrame:
    """Return the ledger after sealing `editions` (those dated on or before `today`) as they
    compose now: a figure first seen is recorded; one whose numbers changed is replaced, its old
    row closed `today` (a correction); one reworded with the same numbers is re-recorded."""
    day = today.isoformat()
    rows = ledger.copy()
    now = rows["replaced"] == ""
    current = {(r.edition, r.figure): i for i, r in rows[now].iterrows()}
    added = []
    for edition in editions:
        if edition.date > today:
            continue
        date = edition.date.isoformat()
        for key, label, text in printed_figures(edition):
            i = current.get((date, key))
            if i is None:
                added.append((date, key, label, text, day, ""))
            elif rows.at[i, "text"] != text:
                if _NUMBER.findall(rows.at[i, "text"]) == _NUMBER.findall(text):
                    rows.loc[i, ["label", "text"]] = [label, text]
                else:
                    rows.at[i, "replaced"] = day
                    added.append((date, key, label, text, day, ""))
    table = pd.concat([rows, pd.DataFrame(added, columns=LEDGER_COLUMNS)], ignore_index=True)
    return table.sort_values(["edition", "figure", "printed"], kind="stable",
                             ignore_index=True)[LEDGER_COLUMNS]


def figure_corrections(ledger: pd.DataFrame | None, date: dt.date
                       ) -> tuple[tuple[dt.date, str, str], ...]:
    """Return (date, "", note) for each correction of the edition of `date`'s figures, oldest
    first: what the figure said before (the edition prints the date before the note)."""
    if ledger is None or ledger.empty:
        return ()
    mine = ledger[(ledger["edition"] == date.isoformat()) & (ledger["replaced"] != "")]
    return tuple((dt.date.fromisoformat(r.replaced), "",
                  f"this edition first printed “{r.text}”; the figure above is corrected.")
                 for r in mine.sort_values(["replaced", "figure"], kind="stable").itertuples())
