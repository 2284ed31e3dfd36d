"""Pure: the benchmark results a piece of text states from a round the site leaves out of its
figures (tables.hardware.is_public: its publication date is not set, or is after the day).

`brief check` warns about an editor's entry that does this (load/hardware.py), and an edition
says so beside the figures of any story that does (compose/round_notes.py): both find them here,
so they agree on which figures are a round's.
"""

from __future__ import annotations

import datetime as dt
import re
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass

from pipeline.models.hardware_results import HardwareRow
from pipeline.tables.hardware import is_public

# A figure as editors write one: 679,740 or 679740 or 35,316.7 (four digits or more, so that a
# count such as "72 GPUs" is not taken for a result). The decimal point may be escaped (`\.`):
# feed summaries are Markdown-escaped before an edition reads them.
_FIGURE = re.compile(
    r"(?<![\d.,])(?:\d{1,3}(?:,\d{3})+|\d{4,})(?:\\?\.\d+)?(?![\d,]|\\?\.\d)")


@dataclass(frozen=True)
class RoundQuote:
    """The figures a text states from one left-out round of one benchmark file."""

    suite: str
    round: str
    source_file: str
    published: dt.date | None
    """The round's publication date; None when the benchmark index does not set it."""
    figures: tuple[str, ...]
    """As the text writes them, in the order first stated: `679,740`."""
    citation_ids: tuple[str, ...]
    """The results they are: `v6.1#307`."""
    end: int
    """Where the last of these figures ends in the text."""


def _value(figure: str) -> float:
    return float(figure.replace(",", "").replace("\\", ""))


ByValue = Mapping[float, Sequence[HardwareRow]]
"""Results by their value, what a figure a text states is looked up in (`by_value`)."""


def by_value(rows: Iterable[HardwareRow]) -> dict[float, list[HardwareRow]]:
    """Return the rows by their value, in their order: made once, it serves every text of a
    build (a year's 20,000 rows scanned for each story took most of composing a year)."""
    index: dict[float, list[HardwareRow]] = {}
    for row in rows:
        index.setdefault(row.value, []).append(row)
    return index


def left_out_quotes(text: str, rows: Iterable[HardwareRow] | ByValue,
                    as_of: dt.date | None = None) -> list[RoundQuote]:
    """Return, per round and file, the figures of `text` that are results of a round left out of
    the figures as of `as_of` (without it: a round whose date is not set), in the order the
    rounds are first stated. `rows`: the results, or `by_value` of them."""
    index = rows if isinstance(rows, Mapping) else by_value(rows)

    def left(value: float) -> list[HardwareRow]:
        return [row for row in index.get(value, ())
                if (row.published is None if as_of is None else not is_public(row, as_of))]

    found: dict[str, tuple[list[str], list[HardwareRow], int]] = {}
    for m in _FIGURE.finditer(text):
        for r in left(_value(m[0])):
            figures, matched, _ = found.setdefault(r.source_file, ([], [], 0))
            if m[0] not in figures:
                figures.append(m[0])
            matched.append(r)
            found[r.source_file] = (figures, matched, m.end())
    return [RoundQuote(rs[0].suite, rs[0].round, path, rs[0].published, tuple(figures),
                       tuple(dict.fromkeys(r.citation_id for r in rs)), end)
            for path, (figures, rs, end) in found.items()]


def stated(quotes: Sequence[RoundQuote]) -> tuple[str, ...]:
    """Return the figures of `quotes`, once each, in the order first stated."""
    return tuple(dict.fromkeys(f for q in quotes for f in q.figures))
