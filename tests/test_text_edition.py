"""The plain-text edition against golden files. The tests only compare: the files change only
by `python -m scripts.regen_golden`, whose diff (`git diff tests/golden`) is read before commit."""

from __future__ import annotations

import datetime as dt
from pathlib import Path

from pipeline.compose.edition import compose_editions
from pipeline.load.sources import load_sources
from pipeline.render.escape import md_text, plain_text
from pipeline.render.pages import following, text_edition

GOLDEN = Path(__file__).parent / "golden"
TINY, BUNDLED = "tiny-2026-09-12.txt", "bundled-2026-09-12.txt"
REGEN = "python -m scripts.regen_golden"


def tiny_text(tiny: Path) -> str:
    """The text edition of 2026-09-12 of the tiny tree (conftest.tiny_tree): golden file TINY."""
    editions = compose_editions(load_sources(tiny), [dt.date(2026, 9, 5), dt.date(2026, 9, 12)])
    return text_edition(editions[1])


def bundled_text() -> str:
    """The text edition of 2026-09-12 of the bundled sources: golden file BUNDLED."""
    sources = load_sources(Path(__file__).resolve().parents[1])
    editions = compose_editions(sources, sources.series.edition_dates(dt.date(2026, 11, 30)))
    return text_edition(next(e for e in editions if e.date == dt.date(2026, 9, 12)))


def check_golden(name: str, actual: str) -> None:
    path = GOLDEN / name
    assert path.exists(), f"{path} is missing: write it with `{REGEN}`, then read it"
    assert actual == path.read_text(encoding="utf-8"), (
        f"{name} differs from its golden file: if the change is meant, run `{REGEN}` and read "
        "`git diff tests/golden` before committing it")


def test_tiny_text_edition(tiny: Path) -> None:
    check_golden(TINY, tiny_text(tiny))


def test_bundled_text_edition() -> None:
    text = bundled_text()
    check_golden(BUNDLED, text)
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
        page = edition_page(edition, sources.series, following=following(editions, edition),
                            home=False)
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
