"""The plain-text edition against a golden file (regenerate with `pytest --regen-golden`)."""

from __future__ import annotations

import datetime as dt
from pathlib import Path

import pytest

from pipeline.compose.edition import compose_editions
from pipeline.load.sources import load_sources
from pipeline.render.escape import md_text, plain_text
from pipeline.render.pages import text_edition

GOLDEN = Path(__file__).parent / "golden"


def check_golden(name: str, actual: str, regen: bool) -> None:
    path = GOLDEN / name
    if regen:
        # Rewritten, not checked: comparing the file with what was just written would pass
        # whatever the output is. The run says so; review the diff, then commit it.
        path.write_text(actual, encoding="utf-8")
        pytest.skip(f"rewrote {path.name}: review `git diff {path}` before committing it")
    assert path.exists(), f"{path} is missing: run pytest --regen-golden"
    assert actual == path.read_text(encoding="utf-8"), f"{name} differs from its golden file"


def test_tiny_text_edition(tiny: Path, regen_golden: bool) -> None:
    editions = compose_editions(load_sources(tiny), [dt.date(2026, 9, 5), dt.date(2026, 9, 12)])
    check_golden("tiny-2026-09-12.txt", text_edition(editions[1]), regen_golden)


def test_bundled_text_edition(regen_golden: bool) -> None:
    root = Path(__file__).resolve().parents[1]
    sources = load_sources(root)
    editions = compose_editions(sources, sources.series.edition_dates(dt.date(2026, 11, 30)))
    edition = next(e for e in editions if e.date == dt.date(2026, 9, 12))
    text = text_edition(edition)
    check_golden("bundled-2026-09-12.txt", text, regen_golden)
    # Laid out like the example edition: title line, then the four sections in order.
    lines = text.splitlines()
    assert lines[0].endswith("— 2026-09-12")
    heads = [lines.index(h) for h in ("Top developments", "Local view", "Context & numbers",
                                      "On the radar", "Sources")]
    assert heads == sorted(heads)


def test_plain_text_drops_markup() -> None:
    assert plain_text("A [link](https://e.org) with **bold**, `code` and <https://x.org>.") == \
        "A link with bold, code and https://x.org."
    assert plain_text(md_text("5.1-0069 *not* <b>html</b> & [x](y)")) == \
        "5.1-0069 *not* <b>html</b> & [x](y)"


def test_text_markers_match_the_sources_list_and_the_html_edition() -> None:
    """Each story and bullet of the text edition ends in the markers of its sources, numbered as
    in its Sources list, the same numbers as the HTML page's <sup> markers."""
    import re

    from pipeline.render.pages import edition_page

    root = Path(__file__).resolve().parents[1]
    sources = load_sources(root)
    editions = compose_editions(sources, sources.series.edition_dates(dt.date(2026, 11, 30)))
    for edition in editions:
        text = text_edition(edition)
        body, _, listed = text.partition("\nSources\n")
        # "[n] Publisher: URL", or "[n] Publisher, date" for a claim whose article is unknown.
        numbers = {int(n): key for n, key in re.findall(r"^\[(\d+)\] (.*)$", listed, re.M)}
        assert sorted(numbers) == list(range(1, len(edition.sources) + 1))
        page = edition_page(edition, sources.series, editions, home=False)
        number_of = {c.key: n for n, c in enumerate(edition.sources, start=1)}
        for n, c in enumerate(edition.sources, start=1):
            assert numbers[n] == (f"{c.label}: {c.url}" if c.url else c.text)
        for section in edition.sections:
            for item in section.items:
                keys = list(dict.fromkeys(c.key for c in item.citations))
                want = "".join(f" [{number_of[k]}]" for k in keys)
                assert want in body, (edition.date, item)  # "" for a figure with no source
        # Every number the body cites is in the list, and every listed source is cited.
        cited = {int(n) for n in re.findall(r" \[(\d+)\]", body)}
        assert cited == set(numbers), edition.date
        assert cited == {int(n) for n in re.findall(r"<sup>\[(\d+)\]", page)}, edition.date
