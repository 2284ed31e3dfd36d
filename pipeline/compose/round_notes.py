"""Pure: a story that quotes results of a round the site leaves out of its figures says so
beside them.

The site compares a benchmark round's results only once its publication date is set and has
passed (tables.hardware.is_public); until then the Hardware page lists the round as waiting and
no figure uses it. A story written elsewhere (a feed item) or an editor's entry may still quote
its throughputs: the edition keeps the story and adds, after the sentence holding the last of
those figures, a note that they are from that round and why the site's figures leave it out.
"""

from __future__ import annotations

import dataclasses
import datetime as dt
import re
from collections.abc import Sequence

from pipeline.compose.types import Figure, Item, Story
from pipeline.models.hardware_results import HardwareRow
from pipeline.normalize.items import md_text
from pipeline.tables.round_quotes import ByValue, RoundQuote, left_out_quotes, stated

# The end of the sentence a figure is in: a full stop (escaped or not), ! or ?, then a space or
# the end of the text; a closing parenthesis or quote (escaped or not) may follow the stop.
_SENTENCE_END = re.compile(r"[.!?](?:\\?[)\"'”’])*(?=\s|$)")


def round_note(quotes: Sequence[RoundQuote]) -> str:
    """Return the note, as Markdown: `(679,740 and 395,940 are results of MLPerf Inference v6.1,
    a round whose publication date is not set: the site's figures and comparisons leave it out
    until its date is set.)`"""
    # Figures read from Markdown may carry an escaped point (`35,316\\.7`): md_text escapes it.
    figures = [f.replace("\\", "") for f in stated(quotes)]
    rounds = [f"{suite} {round_}, " + ("a round whose publication date is not set"
                                       if published is None else
                                       f"a round published on {published.isoformat()}, after "
                                       "this edition")
              for suite, round_, published in dict.fromkeys(
                  (q.suite, q.round, q.published) for q in quotes)]
    if len(rounds) > 1:
        leave = "them out"
    else:
        leave = "it out until its date is set" if quotes[0].published is None else "it out"
    return md_text(f"({' and '.join(figures)} "
                   f"{'is a result' if len(figures) == 1 else 'are results'} of "
                   f"{' and '.join(rounds)}: the site's figures and comparisons leave {leave}.)")


def with_round_note(text_md: str, rows: Sequence[HardwareRow] | ByValue, date: dt.date) -> str:
    """Return `text_md` with the note after the sentence that holds the last figure it quotes
    from a round left out as of `date`; unchanged when it quotes none. `rows`: the results, or
    tables.round_quotes.by_value of them (made once for many texts)."""
    quotes = left_out_quotes(text_md, rows, date)
    if not quotes:
        return text_md
    last = max(q.end for q in quotes)
    stop = _SENTENCE_END.search(text_md, last)
    at = stop.end() if stop else len(text_md)
    return f"{text_md[:at]} {round_note(quotes)}{text_md[at:]}"


def noted(item: Item, rows: Sequence[HardwareRow] | ByValue, date: dt.date) -> Item:
    """Return a story or an editor's figure with the note its quoted figures call for. The site's
    own figures are left alone: they never read a left-out round."""
    if isinstance(item, Story):
        text = with_round_note(item.summary_md, rows, date)
        return item if text == item.summary_md else dataclasses.replace(item, summary_md=text)
    if isinstance(item, Figure) and not item.lane:
        text = with_round_note(item.text_md, rows, date)
        return item if text == item.text_md else dataclasses.replace(item, text_md=text)
    return item
