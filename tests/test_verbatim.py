"""A marked block of HTML comes out of Markdown as an unmarked raw block would, unparsed."""

from __future__ import annotations

from pipeline.render.markdown_html import markdown_html
from pipeline.render.verbatim import END, START, verbatim

TABLE = ('<table id="t"><tbody>\n<tr data-x="1"><td>*not emphasis* &amp; [no](link)</td></tr>\n'
         "<tr><td>a_b_c</td></tr>\n</tbody></table>")


def test_a_marked_block_is_the_raw_block_markdown_would_have_copied() -> None:
    page = "# Title\n\nBefore *it*.\n\n{}\n\nAfter.\n"
    marked, raw = markdown_html(page.format(verbatim(TABLE))), markdown_html(page.format(TABLE))
    assert marked == raw
    assert TABLE in marked and START not in marked and END not in marked
    assert "<em>it</em>" in marked and "<p>After.</p>" in marked  # the rest is Markdown still


def test_two_blocks_each_come_back_in_place() -> None:
    page = "{}\n\ntext\n\n{}\n"
    marked = markdown_html(page.format(verbatim("<div>one</div>"), verbatim("<div>two</div>")))
    assert marked == markdown_html(page.format("<div>one</div>", "<div>two</div>"))
    assert marked.replace("\n", "") == "<div>one</div><p>text</p><div>two</div>"


def test_a_start_without_an_end_is_read_as_written() -> None:
    page = f"{START}\n<div>*kept*</div>\n\nSome *text*.\n"
    assert markdown_html(page) == markdown_html(page.replace(START, "<!-- verbatim -->"))
    assert "<em>text</em>" in markdown_html(page)
