"""Edition windows and what goes into each section."""

from __future__ import annotations

import datetime as dt
from pathlib import Path

from pipeline.compose.edition import compose_editions
from pipeline.compose.types import Figure, Story, in_window
from pipeline.load.sources import load_sources

D = dt.date.fromisoformat


def test_window_boundaries() -> None:
    assert in_window(D("2026-09-05"), None, D("2026-09-05"))
    assert in_window(D("2020-01-01"), None, D("2026-09-05"))  # the first edition takes all before
    assert not in_window(D("2026-09-06"), None, D("2026-09-05"))
    assert not in_window(D("2026-09-05"), D("2026-09-05"), D("2026-09-12"))  # previous: excluded
    assert in_window(D("2026-09-06"), D("2026-09-05"), D("2026-09-12"))
    assert in_window(D("2026-09-12"), D("2026-09-05"), D("2026-09-12"))  # own date: included
    assert not in_window(D("2026-09-13"), D("2026-09-05"), D("2026-09-12"))


def test_editions_take_their_windows(tiny: Path) -> None:
    sources = load_sources(tiny)
    first, second = compose_editions(sources, [D("2026-09-12"), D("2026-09-05")])
    assert (first.date, first.previous) == (D("2026-09-05"), None)
    assert [i.id for i in first.section("top").items] == ["early-news", "boundary-news"]
    assert second.previous == D("2026-09-05")
    assert [i.id for i in second.section("top").items] == ["after-boundary"]
    assert [i.id for i in second.section("local").items] == ["local-story"]
    (figure,) = second.section("numbers").items
    assert isinstance(figure, Figure) and figure.label == "Price figure"
    assert second.title == "Test Brief — 2026-09-12"
    assert [s.title for s in second.sections] == [
        "Top developments", "Local view", "Context & numbers", "On the radar"]


def test_sources_are_numbered_once(tiny: Path) -> None:
    sources = load_sources(tiny)
    edition = compose_editions(sources, [D("2026-09-12")])[0]
    urls = [c.url for c in edition.sources]
    assert len(urls) == len(set(urls)) == 5  # every entry up to 09-12, each its own link
    story = edition.section("top").items[0]
    assert isinstance(story, Story)
    assert story.citations[0].source_path == "sources/entries/2026/09-01-early-news.yaml"


def test_quota_limits_a_section(tiny: Path) -> None:
    sources = load_sources(tiny)
    sources.series = sources.series.model_copy(update={"sections": (
        sources.series.sections[0].model_copy(update={"quota": 1}), *sources.series.sections[1:])})
    edition = compose_editions(sources, [D("2026-09-05")])[0]
    assert len(edition.section("top").items) == 1


def test_cadence_dates() -> None:
    from pipeline.models.series import Cadence, Series

    base = dict(title="T {date}", description="d", site_url="https://e.org/",
                source_url="https://e.org/", sections=[{"id": "top", "title": "Top"}])
    s = Series(**base, cadence=Cadence(start=D("2026-11-01"), every_days=7))
    assert s.edition_dates(D("2026-11-15")) == [D("2026-11-01"), D("2026-11-08"), D("2026-11-15")]
    assert s.edition_dates(D("2026-10-01")) == []
    s = Series(**base, cadence=Cadence(start=D("2026-11-01"), every_days=1, until=D("2026-11-03")))
    assert len(s.edition_dates(D("2027-01-01"))) == 3
