"""A Markdown extension that keeps each number of a table cell on one line, and the same for the
tables our renderers write as HTML.

A browser breaks a date after its hyphens and, where a column may wrap anywhere to fit a phone
(a model id has no spaces), a figure between its digits: "2,95 / 9", "$0.1 / 26" read as $0.1
(issue 52). Each number of a cell (a date, a price, a count, a percentage with its sign and
unit) goes into a `<span class="brief-nobr">`, which assets/extra.css keeps on one line; the
words around it wrap as before, and a table too wide for the screen scrolls in its own box.
Only numbers standing alone are marked: a digit inside an id (`llama-3.2-1b`, `v5.1`) is part
of the id.
"""

from __future__ import annotations

import re
from xml.etree.ElementTree import Element

from markdown import Extension, Markdown
from markdown.treeprocessors import Treeprocessor

CLASS = "brief-nobr"
NUMBER = re.compile(
    # Not the tail of an id (`jamba-1.5-mini@001`), of a longer number, or of Markdown's
    # placeholder ("\x02wzxhzdk:3").
    r"(?<![\w.,:/@\-−+$€¥£\x02])"
    r"(?:\d{4}-\d{2}(?:-\d{2})?"                                # a date, or a month
    r"|[~≈<>≤≥]?(?:[−+\-]?[$€¥£]?\d[\d,.]*\d|[−+\-]?[$€¥£]\d|[−+\-]\d)"  # a figure; not "8"
    r"(?:[ \u00a0\u202f]?[%×])?"                                 # with its unit
    r")(?![\w/\-])")
"""A number standing alone in text: a date, or a figure with its sign, currency and unit."""


def nobr_numbers(escaped: str) -> str:
    """Return HTML text (escaped, without tags) with each number in a `brief-nobr` span."""
    return NUMBER.sub(lambda m: f'<span class="{CLASS}">{m[0]}</span>', escaped)


def _spans(parent: Element, text: str, at: int) -> str:
    """Put each number of `text` and the text after it into a span inserted into `parent`
    from child `at` on; return the text before the first number."""
    parts = NUMBER.split(text)
    for n, (number, after) in enumerate(zip(NUMBER.findall(text), parts[1:], strict=True)):
        span = Element("span", {"class": CLASS})
        span.text, span.tail = number, after
        parent.insert(at + n, span)
    return parts[0]


def _mark(element: Element) -> None:
    """Mark the numbers of `element`'s own text and of each child's tail, then its children."""
    if element.get("class") == CLASS or element.tag in ("code", "pre"):
        return
    children = list(element)
    if element.text and NUMBER.search(element.text):
        element.text = _spans(element, element.text, 0)
    for child in children:
        _mark(child)
        if child.tail and NUMBER.search(child.tail):
            child.tail = _spans(element, child.tail, list(element).index(child) + 1)


class _TableNumbers(Treeprocessor):
    def run(self, root: Element) -> None:
        for cell in [e for e in root.iter() if e.tag in ("td", "th")]:
            _mark(cell)


class TableNumbers(Extension):
    def extendMarkdown(self, md: Markdown) -> None:  # noqa: N802 (Python-Markdown's name)
        # After inline Markdown (20): the text of links and emphasis is in the tree by then.
        md.treeprocessors.register(_TableNumbers(md), "brief_table_numbers", 10)


def makeExtension(**kwargs: object) -> TableNumbers:  # noqa: N802 (how Markdown loads it by name)
    return TableNumbers(**kwargs)
