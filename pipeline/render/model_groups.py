"""Pure: a page's rows folded into one group per model, for the Discrepancies and Changes pages
(issue 39: the Discrepancies page had grown to 20,000 px of one table).

Each group is an HTML `<details>`, folded. Its `<summary>` holds an `<h3>` naming the model,
then what the group holds: Material's search starts an entry at each heading with an id, so each
group is one entry, found by the model's id, its text the summary's words. The rows inside are a
Markdown table in a `data-search-exclude` block: in the index they would be every row of every
table, under the section's heading. The heading is in no table of contents (hundreds of models
would fill the sidebar). site/docs/assets/groups.css lays the groups out.
"""

from __future__ import annotations

import html
import re
from collections.abc import Iterable, Iterator

from pipeline.render.verbatim import verbatim

_NOT_IN_ID = re.compile(r"[^a-z0-9]+")


def group_ids(prefix: str, models: Iterable[str]) -> Iterator[str]:
    """Return an HTML id for each of `models`, `prefix` and the model's letters and digits, each
    unique on the page (two ids that differ only in punctuation get a number)."""
    seen: set[str] = set()
    for model in models:
        base = f"{prefix}-{_NOT_IN_ID.sub('-', model.casefold()).strip('-') or 'model'}"
        anchor, n = base, 1
        while anchor in seen:
            n += 1
            anchor = f"{base}-{n}"
        seen.add(anchor)
        yield anchor


def group_md(anchor: str, model: str, said: str, table: list[str]) -> list[str]:
    """Return the Markdown of one folded group: `model` as its heading, `said` beside it (both
    plain text, escaped here), `table` (Markdown lines, already escaped) inside."""
    # The lines around the table pass through as written (render/verbatim.py): the heading is
    # then not in the tree Markdown's toc walks, so it gets no permalink and no line in the
    # page's table of contents, and the table between them stays Markdown.
    head = (f'<details class="model-group"><summary><h3 id="{anchor}">{html.escape(model)}</h3> '
            f"{html.escape(said)}</summary><div data-search-exclude>")
    return [verbatim(head), "", *table, "", verbatim("</div></details>"), ""]


def folded_md(groups: list[list[str]], shown: int, said: str) -> list[str]:
    """Return `groups` (each group_md's lines) with the first `shown` as they are and the rest in
    one more folded box, `said` its summary (plain text, escaped here): a page of hundreds of
    models stays a screenful of the largest gaps, the rest one click away."""
    lines = [line for group in groups[:shown] for line in group]
    if len(groups) > shown:
        head = (f'<details class="model-groups-more"><summary>{html.escape(said)}</summary>'
                "<div>")
        lines += [verbatim(head), "", *(line for group in groups[shown:] for line in group),
                  verbatim("</div></details>"), ""]
    return lines
