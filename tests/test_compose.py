"""Edition windows and what goes into each section."""

from __future__ import annotations

import datetime as dt
from pathlib import Path

from pipeline.compose.edition import compose_editions
from pipeline.compose.types import Figure, Story, in_window
from pipeline.load.sources import load_sources

D = dt.date.fromisoformat
REPO = Path(__file__).resolve().parents[1]


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


def test_the_radar_carries_one_item_per_change_dated_once_and_says_since_when() -> None:
    """On the bundled sources: the Sonnet 5 entry and the price record it announces are one item;
    Gemini 3.6 Flash's 2027 prices (checked 2026-08-13, so first carried by the edition of
    2026-08-21) say since when in every later edition, and each date is printed once."""
    root = Path(__file__).resolve().parents[1]
    sources = load_sources(root)
    editions = {e.date: e for e in compose_editions(sources, sources.series.dates)}

    def radar(date: str) -> list:
        return next(s for s in editions[D(date)].sections if s.id == "radar").items

    first = radar("2026-08-21")
    sonnet = [i for i in first if "Sonnet 5" in i.label or "claude-sonnet-5" in i.label]
    assert len(sonnet) == 1
    (item,) = sonnet
    assert item.when == "due 2026-09-01"
    assert item.text_md.endswith("Per Mtok: input $3.00 (now $2.00), output $15.00 (now $10.00).")
    assert {c.label for c in item.citations} >= {"Anthropic pricing", "Anthropic"}
    gemini = [i for i in first if "gemini-3.6-flash" in i.label]
    assert [(i.label, i.when) for i in gemini] == [
        ("Google gemini-3.6-flash: new prices", "due 2027-01-01")]
    for date in ("2026-09-04", "2026-09-12", "2026-11-20"):
        (later,) = [i for i in radar(date) if "gemini-3.6-flash" in i.label]
        assert later.when == "due 2027-01-01; on the radar since 2026-08-21", date


def _refs_ahead(date: dt.date) -> set[str]:
    """The oracle, from the price files as YAML: every record that starts after the edition's
    day and was checked on or before it, named as its citation's anchor."""
    import yaml

    refs = set()
    for path in sorted((REPO / "sources" / "prices").glob("*.yaml")):
        for plist in yaml.safe_load(path.read_text())["lists"]:
            for record in plist["records"]:
                start = record["from"]
                start = start if isinstance(start, dt.datetime) else dt.datetime.combine(start, dt.time())
                if start.date() > date and record["checked"] <= date:
                    refs.add(f"{plist['currency'].lower()}-{record['model']}-{start:%Y%m%d%H%M}")
    return refs


def test_no_edition_puts_on_its_radar_a_price_nobody_had_checked_by_then() -> None:
    """The look-ahead guard on every bundled edition: the radar announces exactly the records
    that start later and were checked by the edition's day. The DeepSeek cut of 2026-09-10,
    checked on 09-11, is on no radar of 08-21 or 09-04."""
    sources = load_sources(REPO)
    editions = compose_editions(sources, list(sources.series.dates))
    assert len(editions) >= 6
    for edition in editions:
        radar = {c.ref for item in edition.section("radar").items for c in item.citations
                 if c.source_path.startswith("sources/prices/")}
        assert radar == _refs_ahead(edition.date), edition.date
        if edition.date < D("2026-09-10"):
            assert not any("202609100000" in ref for ref in radar), edition.date
