"""The Market's table sorted without JavaScript (render/market_sorts.py): each order a page of
its own whose rows are in that order, its heading marked with aria-sort and every heading with
a page linking to it, out of the search index and naming market/ as its canonical page; and the
Batch input column, market.csv's figure beside Batch output."""

from __future__ import annotations

import csv
import json
import math
import posixpath
from html.parser import HTMLParser
from pathlib import Path

import pandas as pd
import pytest

from pipeline.render.market_sorts import SORTS, Sort


class _Market(HTMLParser):
    """The Market page's heading cells (attributes, link, text), each row's attributes and its
    cells (data-value, text), and the canonical link."""

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.heads: list[dict] = []
        self.rows: list[tuple[dict, list[tuple[str | None, str]]]] = []
        self.canonical: str | None = None
        self._cell: list | None = None  # [attrs, text, href]
        self._in_table = self._in_body = False

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        a = dict(attrs)
        if tag == "link" and a.get("rel") == "canonical":
            self.canonical = a["href"]
        elif tag == "table" and a.get("id") == "market-table":
            self._in_table = True
        elif not self._in_table:
            return
        elif tag == "tbody":
            self._in_body = True
        elif tag == "tr" and self._in_body:
            self.rows.append((a, []))
        elif tag in ("th", "td"):
            self._cell = [a, "", None]
        elif tag == "a" and self._cell is not None:
            self._cell[2] = a.get("href")

    def handle_data(self, data: str) -> None:
        if self._cell is not None:
            self._cell[1] += data

    def handle_endtag(self, tag: str) -> None:
        if tag == "table":
            self._in_table = self._in_body = False
        elif tag in ("th", "td") and self._cell is not None:
            attrs, text, href = self._cell
            if tag == "th":
                self.heads.append({**attrs, "text": text, "href": href})
            else:
                self.rows[-1][1].append((attrs.get("data-value"), text))
            self._cell = None


def _url(sort: Sort) -> str:
    return f"market/{sort.slug}/" if sort.slug else "market/"


@pytest.fixture(scope="module")
def pages(bundled_site: Path) -> dict[Sort, _Market]:
    out = {}
    for sort in SORTS:
        parser = _Market()
        parser.feed((bundled_site / _url(sort) / "index.html").read_text("utf-8"))
        out[sort] = parser
    return out


def test_an_order_ranks_rows_without_a_value_last_and_free_models_after_the_priced() -> None:
    # In the build's order (by output price, free last); ties keep it.
    table = pd.DataFrame({
        "model": ["a", "b", "c", "d", "e", "f"],
        "input_usd_per_mtok": [3.0, None, 1.0, 3.0, 0.0, 2.0],
        "context_window_tokens": pd.array([8_000, 128_000, None, 128_000, 32_000, 8_000],
                                          dtype="Int64"),
        "released": ["2025-01-02", "", None, "2026-03-01", "2024-12-31", "2025-01-02"],
        "free": [False, False, False, False, True, False]})

    def models(column: str) -> list[str]:
        sort = next(s for s in SORTS if s.column == column)
        return list(table["model"].to_numpy()[sort.order(table)])

    assert models("output_usd_per_mtok") == ["a", "b", "c", "d", "e", "f"]  # the table's own
    assert models("input_usd_per_mtok") == ["c", "f", "a", "d", "b", "e"]  # free e: after b
    assert models("context_window_tokens") == ["b", "d", "e", "a", "f", "c"]
    assert models("released") == ["d", "a", "f", "e", "b", "c"]


@pytest.mark.parametrize("sort", SORTS, ids=lambda s: s.slug or "market")
def test_each_sorted_page_has_every_row_in_its_order(pages: dict[Sort, _Market],
                                                      bundled_site: Path, sort: Sort) -> None:
    page = pages[sort]
    heads = [h["data-column"] for h in page.heads]
    at = heads.index(sort.column)
    # Its heading, and only it, says the page's order.
    assert [h.get("aria-sort") for h in page.heads] == [
        ("ascending" if sort.ascending else "descending") if c == sort.column else None
        for c in heads]
    # Every heading with a page links to it, from this page's URL; the rest are plain text.
    for head in page.heads:
        target = next((s for s in SORTS if s.column == head["data-column"]), None)
        if target is None:
            assert head["href"] is None, head
        else:
            assert posixpath.normpath(posixpath.join(_url(sort), head["href"])) + "/" == \
                _url(target), head
    # The same rows as the Market page's, by their ids.
    assert sorted(r[0]["id"] for r in page.rows) == sorted(r[0]["id"]
                                                           for r in pages[SORTS[0]].rows)
    number = page.heads[at]["data-kind"] == "number"
    price = sort.column.endswith("_usd_per_mtok")
    ranked = []
    for attrs, cells in page.rows:
        value, text = cells[at]
        key = (float(value) if value else None) if number else (text or None)
        ranked.append(((2 if price and "data-free" in attrs else 0) + (key is None), key))
    ranks = [r for r, _ in ranked]
    assert ranks == sorted(ranks)  # priced, unpriced, then free (in a price's order)
    values = [v for r, v in ranked if r == 0]
    assert values == sorted(values, reverse=not sort.ascending) and len(values) > 5000
    if sort.slug:
        # A copy: the Market page is its canonical page, and the search index has it not.
        assert page.canonical is not None and page.canonical.endswith("/market/")
        index = json.loads((bundled_site / "search" / "search_index.json").read_text("utf-8"))
        assert not [d for d in index["docs"] if d["location"].startswith(_url(sort))]


def test_batch_input_is_market_csvs_figure_formatted_as_batch_output(
        pages: dict[Sort, _Market], bundled_site: Path) -> None:
    # market.csv's rows are in the Market page's order (a text starting `=`, `+`, `-` or `@`
    # written after a `'`, as a spreadsheet formula is defused).
    with (bundled_site / "data" / "market.csv").open(encoding="utf-8", newline="") as f:
        listed = list(csv.DictReader(f))
    page = pages[SORTS[0]]
    heads = [h["text"] for h in page.heads]
    at = heads.index("Batch input")
    assert heads[at + 1] == "Batch output" and len(listed) == len(page.rows)
    shown = 0
    texts: dict[str, str] = {}
    for row, (attrs, cells) in zip(listed, page.rows, strict=True):
        model = row["model"][1:] if row["model"][:2] in ("'=", "'+", "'-", "'@") else row["model"]
        assert (row["provider"], model) == (attrs["data-provider"], cells[1][1])
        figure = row["batch_input_usd_per_mtok"]
        value, text = cells[at]
        assert (value == "") == (figure == ""), (attrs, figure)
        if figure:
            assert math.isclose(float(value), float(figure), rel_tol=1e-12), (attrs, figure)
            texts[value] = text
            shown += 1
        else:
            assert text == ""
    # The figures the bundled sources list (68 of ~6,500 rows), each written as Batch output's
    # cell writes the same number.
    assert shown > 50
    outputs = {v: t for _, cells in page.rows for v, t in [cells[at + 1]] if v}
    same = [v for v in texts if v in outputs]
    assert same and all(texts[v] == outputs[v] for v in same)
