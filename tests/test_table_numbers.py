"""render/table_numbers.py: each number of a table cell in a span kept on one line (issue 52),
and nothing else touched: ids with digits, raw HTML in a cell, text outside tables."""

from __future__ import annotations

import markdown

from pipeline.render.markdown_html import EXTENSIONS
from pipeline.render.table_numbers import nobr_numbers


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
