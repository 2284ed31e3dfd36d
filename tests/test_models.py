"""The schemas on their own: good input accepted, bad input rejected with the exact message."""

from __future__ import annotations

import datetime as dt
from pathlib import Path

import pytest
from pydantic import ValidationError

from pipeline.load.read import validation_problems
from pipeline.models.entries import Correction, Entry, Link
from pipeline.models.series import Series

GOOD_SERIES = dict(title="T {date}", description="d", site_url="https://e.org/",
                   source_url="https://e.org/r/", dates=["2026-09-12"],
                   sections=[{"id": "top", "title": "Top"}])


def messages(model: type, data: dict) -> list[str]:
    with pytest.raises(ValidationError) as info:
        model.model_validate(data)
    return [str(p) for p in validation_problems(info.value, model, "f.yaml", {})]


def test_series_good() -> None:
    s = Series.model_validate(GOOD_SERIES)
    assert s.edition_title(dt.date(2026, 9, 12)) == "T 2026-09-12"
    assert s.sections[0].quota == 4


@pytest.mark.parametrize("change, expected", [
    ({"cadence": {"start": "2026-09-01", "every_days": 7}},
     "f.yaml: give either `dates` or `cadence`, not both and not neither"),
    ({"dates": []}, "f.yaml: give either `dates` or `cadence`, not both and not neither"),
    ({"sections": [{"id": "top", "title": "A"}, {"id": "top", "title": "B"}]},
     "f.yaml: a section id appears twice in `sections`"),
    ({"sections": [{"id": "gossip", "title": "A"}]},
     "f.yaml: sections.0.id: Input should be 'top', 'local', 'numbers' or 'radar' (got 'gossip')"),
    ({"site_url": "not a url"},
     "f.yaml: site_url: Input should be a valid URL, relative URL without a base (got 'not a url')"),
    ({"sections": [{"id": "top", "title": "A", "quta": 3}]},
     "f.yaml: sections.0.quta: unknown key; did you mean `quota`?"),
])
def test_series_bad(change: dict, expected: str) -> None:
    assert messages(Series, {**GOOD_SERIES, **change}) == [expected]


def test_link_defaults_and_bad() -> None:
    link = Link(url="https://e.org/a", publisher="P")
    assert (link.region, link.language) == ("global", "en")
    assert messages(Link, {"url": "mailto:a@b.c", "publisher": "P"}) == [
        "f.yaml: url: link must start with http:// or https://"]
    assert messages(Link, {"url": "https://e.org", "publisher": ""}) == [
        "f.yaml: publisher: empty; write who published it, as readers know them: "
        "`SemiAnalysis`, `Sohu`, `DeepSeek API docs`"]


def test_correction() -> None:
    assert Correction(date="2026-09-14", note="Fixed a unit.").date == dt.date(2026, 9, 14)
    assert messages(Correction, {"date": "14/09/2026", "note": "x"}) == [
        "f.yaml: date: expected a date as YYYY-MM-DD: invalid character in year "
        "(got '14/09/2026')"]


@pytest.mark.parametrize(("value", "message"), [
    ("2026-12-3", "expected a date as YYYY-MM-DD: input is too short (got '2026-12-3')"),
    ("2026-02-30", "expected a date as YYYY-MM-DD: day value is outside expected range "
     "(got '2026-02-30')"),
    ("3 December 2026", "expected a date as YYYY-MM-DD: invalid character in year "
     "(got '3 December 2026')"),
    (["2026-12-03"], "expected a date as YYYY-MM-DD"),
    ("2026-12-03T10:00:00", "expected a date as YYYY-MM-DD: without a time of day "
     "(got '2026-12-03T10:00:00')"),
])
def test_a_date_error_shows_the_expected_form(value: object, message: str) -> None:
    assert messages(Correction, {"date": value, "note": "x"}) == [f"f.yaml: date: {message}"]


def test_a_price_time_error_shows_the_expected_forms() -> None:
    from pipeline.models.prices import PriceRecord

    record = {"model": "m", "from": "31/05/2026", "prices": [{"meter": "input", "price": 1}],
              "source_url": "https://example.com/p", "checked": "2026-01-02"}
    assert messages(PriceRecord, record) == [
        "f.yaml: from: expected a date as YYYY-MM-DD (2026-09-10) or a UTC time as "
        "YYYY-MM-DDTHH:MM:SSZ (2026-05-31T15:59:00Z) (got '31/05/2026')"]


def test_entry_tags_unique_and_slugs() -> None:
    base = {"date": "2026-09-10", "section": "top", "headline": "H", "summary": "S",
            "links": [{"url": "https://e.org", "publisher": "P"}]}
    assert Entry.model_validate({**base, "tags": ["pricing"]}).tags == ["pricing"]
    assert messages(Entry, {**base, "tags": ["pricing", "pricing"]}) == [
        "f.yaml: tags: tags repeat; list each once"]
    assert messages(Entry, {**base, "tags": ["Pricing"]}) == [
        "f.yaml: tags.0: String should match pattern '^[a-z0-9][a-z0-9-]*$' (got 'Pricing')"]


def test_bundled_series_is_valid() -> None:
    from pipeline.load.parse import read_model

    root = Path(__file__).resolve().parents[1]
    sourced, problems = read_model(root / "sources" / "editions.yaml", Series, root)
    assert problems == [] and sourced is not None
    assert [s.id for s in sourced.model.sections] == ["top", "local", "numbers", "radar"]
