"""render/table_numbers.py: each number of a table cell in a span kept on one line (issue 52),
and nothing else touched: ids with digits, raw HTML in a cell, text outside tables."""

from __future__ import annotations

from html.parser import HTMLParser
from pathlib import Path

import markdown

from pipeline.render.markdown_html import EXTENSIONS
from pipeline.render.table_numbers import NUMBER, nobr_numbers


def _html(text: str) -> str:
    return markdown.markdown(text, extensions=list(EXTENSIONS))


def test_each_number_of_a_cell_is_kept_whole_and_ids_are_left_alone() -> None:
    html = _html("| Model | Price | Change |\n| --- | ---: | ---: |\n"
                 "| llama-3.2-1b v5.1 | [$0.126](https://example.org/p)<br>from 2025-06-11 | "
                 "−62.0 % |\n\nOutside a table, 2,959 stays as it is.")
    assert '<td>llama-3.2-1b v5.1</td>' in html
    assert '<a href="https://example.org/p"><span class="brief-nobr">$0.126</span></a>' in html
    assert '<br>from <span class="brief-nobr">2025-06-11</span>' in html
    assert '<span class="brief-nobr">−62.0 %</span>' in html
    assert "Outside a table, 2,959 stays" in html


def test_text_of_an_html_table_gets_the_same_spans() -> None:
    assert nobr_numbers("input, prompts over 200,000 tokens, until 2026-03-13") == (
        'input, prompts over <span class="brief-nobr">200,000</span> tokens, until '
        '<span class="brief-nobr">2026-03-13</span>')
    assert nobr_numbers("3:1 blend, gpt-4o, (5.1-0070), 8 items") == (
        "3:1 blend, gpt-4o, (5.1-0070), 8 items")


class _LooseNumbers(HTMLParser):
    """The numbers of a page's table cells that nothing keeps on one line: outside a
    `brief-nobr` span or `brief-date` element and outside a `brief-num` cell (white-space:
    nowrap, assets/extra.css and market.css)."""

    def __init__(self) -> None:
        super().__init__()
        self.stack: list[tuple[str, bool]] = []  # (tag, keeps its text whole)
        self.cell: list[str] | None = None
        self.loose: list[str] = []

    def handle_starttag(self, tag: str, attrs: list) -> None:
        classes = (dict(attrs).get("class") or "").split()
        whole = bool({"brief-nobr", "brief-date"} & set(classes)) or (
            tag in ("td", "th") and "brief-num" in classes)
        if tag in ("br", "img", "input", "wbr"):
            return
        self.stack.append((tag, whole))
        if tag in ("td", "th"):
            self.cell = []

    def handle_endtag(self, tag: str) -> None:
        while self.stack:
            if self.stack.pop()[0] == tag:
                break
        if tag in ("td", "th") and self.cell is not None:
            self.loose += NUMBER.findall("".join(self.cell))
            self.cell = None

    def handle_data(self, data: str) -> None:
        if self.cell is not None and not any(whole for _, whole in self.stack):
            self.cell.append(data)


def test_every_model_and_provider_page_keeps_each_number_of_its_tables_whole(
        bundled_site: Path) -> None:
    # Chromium checks a dozen model pages at two widths (test_browser_layout.py); here every
    # one of them, and every provider page, holds each number of a cell in what keeps it whole.
    pages = [*sorted((bundled_site / "models").glob("*/index.html")),
             *sorted((bundled_site / "providers").glob("*/index.html"))]
    assert len(pages) > 1000
    loose = {}
    for page in pages:
        parser = _LooseNumbers()
        parser.feed(page.read_text(encoding="utf-8"))
        if parser.loose:
            loose[page.parent.name] = parser.loose[:3]
    assert loose == {}, f"{len(loose)} pages: {dict(list(loose.items())[:5])}"
