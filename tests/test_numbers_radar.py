"""How figures are written (compose/numbers.py) and how the radar merges and dates its items
(compose/radar.py), on values made for the test."""

from __future__ import annotations

import datetime as dt

from pipeline.compose.numbers import money, three_figures
from pipeline.compose.radar import radar_section
from pipeline.compose.types import Citation, RadarItem, Story
from pipeline.models.entries import Entry
from pipeline.models.sourced import CuratedEntry

D = dt.date.fromisoformat


def test_a_price_keeps_its_source_digits_and_a_computed_one_three_figures() -> None:
    # As the source wrote them: every digit, never fewer than two decimals.
    assert [money(v, "USD") for v in (0.435, 0.007, 0.1, 2.5, 15.0, 0.0029823)] == [
        "$0.435", "$0.007", "$0.10", "$2.50", "$15.00", "$0.0029823"]
    assert money(0.02, "CNY") == "¥0.02" and money(3.0, "CHF") == "3.00 CHF"
    # Computed (a blend, a conversion): three significant figures below $1, cents above.
    assert [money(v, "USD", computed=True) for v in (1 / 6.177506, 0.39875, 0.02 / 6.7063,
                                                     0.544, 11.25, 3.7600000000000002)] == [
        "$0.162", "$0.399", "$0.00298", "$0.544", "$11.25", "$3.76"]
    # A float with a long tail is computed, whatever the caller says.
    assert money(0.16187903, "USD") == "$0.162"
    assert [three_figures(v) for v in (6_177_506, 14_798_033, 873_456, 1_234, 999, 999_999,
                                       1.5e9)] == [
        "6.18 M", "14.8 M", "873 k", "1.23 k", "999", "1.00 M", "1.50 bn"]


def _entry(**kw) -> CuratedEntry:
    doc = {"date": "2026-08-21", "section": "radar", "headline": "Intro price ends",
           "summary": "The record says so.", "links": [{"url": "https://p.example/a",
                                                        "publisher": "P"}], **kw}
    return CuratedEntry("x", Entry.model_validate(doc), "sources/entries/2026/08-21-x.yaml")


def _computed(provider: str, due: str, known: str) -> RadarItem:
    return RadarItem(label=f"{provider} m: new prices", text_md="Per Mtok: input $3.00.",
                     citations=(Citation(f"{provider} pricing", f"https://{provider}.example/p",
                                         f"sources/prices/{provider}.yaml", "r"),),
                     due=D(due), known=D(known), provider=provider)


def test_an_entry_and_the_record_it_announces_are_one_item_dated_once() -> None:
    entry = _entry(tags=["pricing", "acme"], event_date="2026-09-01")
    item = RadarItem(label="Intro price ends", text_md="The record says so.",
                     citations=(Citation("P", "https://p.example/a", entry.path, "x"),),
                     due=D("2026-09-01"), id="x")
    twin, other = _computed("acme", "2026-09-01", "2026-08-01"), _computed("zeta", "2026-09-01",
                                                                             "2026-08-01")
    dates = [D("2026-08-21")]
    merged, rest = radar_section([(entry, item)], [twin, other], dates, D("2026-08-21"))
    assert merged.text_md == "The record says so. Per Mtok: input $3.00."
    assert [c.label for c in merged.citations] == ["P", "acme pricing"]
    assert merged.when == "due 2026-09-01"
    # Another provider's change on the same day is its own item; its tags do not name zeta.
    assert rest.provider == "zeta" and rest.since is None


def test_a_carried_item_says_since_the_first_edition_that_knew_it() -> None:
    dates = [D("2026-08-21"), D("2026-09-04"), D("2026-09-12")]
    item = _computed("acme", "2027-01-01", "2026-08-25")  # known after the first edition
    (first,) = radar_section([], [item], dates, D("2026-09-04"))
    assert first.since is None and first.when == "due 2027-01-01"
    (later,) = radar_section([], [item], dates, D("2026-09-12"))
    assert later.when == "due 2027-01-01; on the radar since 2026-09-04"


def test_items_other_than_computed_ones_and_items_newer_than_every_edition_are_left_as_they_are() -> None:
    story = Story(id="s", headline="A story on the radar", summary_md="Text.", citations=())
    fresh = _computed("acme", "2027-01-01", "2026-09-20")  # known after the last edition listed
    dates = [D("2026-08-21"), D("2026-09-04")]
    assert radar_section([], [story, fresh], dates, D("2026-09-25")) == [story, fresh]
    assert fresh.since is None
