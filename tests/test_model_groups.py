"""The Discrepancies page folded into one group per model (issue 39), read from the built
bundled site (the Changes pages are a page per month since issue 49: tests/test_changes_pages.py): each group a closed <details> whose summary names the model in an <h3>, its
rows inside; and the search index, which lists each group as an entry under the model's id and
none of the rows."""

from __future__ import annotations

import html
import json
import re
from dataclasses import dataclass
from pathlib import Path

import markdown

from pipeline.render.escape import md_cell
from pipeline.render.markdown_html import EXTENSIONS
from pipeline.render.model_groups import group_ids, group_md

GROUP = re.compile(r'<details class="model-group"(?P<attrs>[^>]*)><summary><h3 id="(?P<id>[^"]+)">'
                   r"(?P<model>[^<]*)</h3> (?P<said>[^<]*)</summary>(?P<body>.*?)</details>", re.S)
SECTION = re.compile(r'<h2 id="[^"]+">([^<]*)')


@dataclass
class Group:
    id: str
    model: str
    said: str
    open: bool
    head: list[str]
    rows: list[list[str]]
    """The cells of each row, as text."""

    def column(self, name: str) -> list[str]:
        return [row[self.head.index(name)] for row in self.rows]


def _text(cell: str) -> str:
    # A span (a number kept whole, render/table_numbers.py) is inline: no space in its place.
    inline = re.sub(r"</?span[^>]*>", "", cell)
    return html.unescape(" ".join(re.sub(r"<[^>]+>", " ", inline).split()))


def groups_of(page: Path) -> dict[str, list[Group]]:
    """Return the groups of a built page by the heading of their section ("" before any)."""
    text = page.read_text("utf-8")
    article = text[text.index("<article"):text.index("</article>")]
    parts = SECTION.split(article)
    found: dict[str, list[Group]] = {}
    for title, body in zip(["", *parts[1::2]], parts[::2], strict=True):
        found[html.unescape(title)] = [
            Group(m["id"], html.unescape(m["model"]), html.unescape(m["said"]),
                  "open" in m["attrs"],
                  [_text(c) for c in re.findall(r"<th[^>]*>(.*?)</th>", m["body"], re.S)],
                  [[_text(c) for c in re.findall(r"<td[^>]*>(.*?)</td>", row, re.S)]
                   for row in re.findall(r"<tr>(.*?)</tr>", m["body"], re.S)[1:]])
            for m in GROUP.finditer(body)]
    return found


def test_the_search_index_lists_each_group_by_its_model_and_none_of_the_rows(
        bundled_site: Path) -> None:
    index = bundled_site / "search" / "search_index.json"
    docs = json.loads(index.read_text("utf-8"))["docs"]
    for page in ("discrepancies",):
        entries = {d["location"]: d for d in docs if d["location"].startswith(f"{page}/")}
        groups = [g for gs in groups_of(bundled_site / page / "index.html").values() for g in gs]
        # One entry per group, at its heading, titled by the model; the page's own entries
        # (its lead and its sections) beside them.
        assert {f"{page}/#{g.id}": g.model for g in groups} == {
            loc: d["title"] for loc, d in entries.items() if "#" in loc and
            loc.split("#")[1] in {g.id for g in groups}}
        for g in groups:
            assert entries[f"{page}/#{g.id}"]["text"] == g.said
        # The tables are left out: no entry carries a price.
        assert not [loc for loc, d in entries.items() if "$" in d["text"]]
    found = {d["location"]: d for d in docs}["discrepancies/#curated-gemini-3-6-flash"]
    assert (found["title"], found["text"]) == (
        "gemini-3.6-flash", "1 listing against our curated price; the largest gap +100.0%")
    # It was 97,731 bytes with neither page in it; the groups add about 20 KB, and the 1,600
    # model pages (tests/test_models_across.py) about 150 KB, by their ids only. The Changes
    # pages add a line per month (tests/test_changes_pages.py), the providers' pages a line per
    # provider and the Market's entry their names, about 17 KB (tests/test_provider_pages.py).
    assert index.stat().st_size < 400_000


def test_a_group_is_folded_escaped_and_its_id_unique():
    assert list(group_ids("held", ["GLM-4.6", "glm_4.6", "glm 4 6", "<b>", "'"])) == [
        "held-glm-4-6", "held-glm-4-6-2", "held-glm-4-6-3", "held-b", "held-model"]
    hostile = '<img src=x onerror=alert(1)> [x](javascript:alert(2)) *em* "q" {: .md-button }'
    # As the site reads it: mkdocs.yml's extensions, with permalinks.
    md = markdown.Markdown(extensions=list(EXTENSIONS), extension_configs={"toc": {"permalink": True}})
    page = md.convert("\n".join([
        "## Section", "",
        *group_md("held-x", hostile, f"{hostile} said",
                  ["| Model |", "|---|", f"| {md_cell('<b>bold</b>')} |"])]))
    assert "<img" not in page and "<b>" not in page and "href" not in page.replace(
        'href="#section"', "")
    assert "<em>" not in page and "md-button" not in page.replace(".md-button", "")
    shown = html.unescape(re.sub(r"<[^>]+>", "", page))
    assert f"{hostile} {hostile} said" in " ".join(shown.split())
    # Folded (no `open`), the heading in the summary, the table inside, kept out of search.
    assert re.search(r'<details class="model-group"><summary><h3 id="held-x">[^<]*</h3> '
                     r"[^<]*</summary><div data-search-exclude>\s*<table>.*<td>&lt;b&gt;bold"
                     r"&lt;/b&gt;</td>.*</table>\s*</div></details>", page, re.S)
    # The heading is in no table of contents and has no permalink: hundreds of models would
    # fill the page's sidebar.
    assert [(t["id"], t["children"]) for t in md.toc_tokens] == [("section", [])]
    assert page.count("headerlink") == 1
