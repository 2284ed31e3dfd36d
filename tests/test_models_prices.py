"""The price-history schema: what editors may write and what they are told when it is wrong."""

from __future__ import annotations

import datetime as dt

import pytest
from pydantic import ValidationError

from pipeline.models.prices import PriceFile, PriceRecord, WorkloadProfile
from pipeline.models.series import Series


def record(**over):
    base = {"model": "m", "from": "2026-01-01", "prices": [{"meter": "input", "price": 1}],
            "source_url": "https://example.com/p", "checked": "2026-01-02"}
    return {**base, **over}


def test_dates_and_utc_datetimes_become_utc_instants():
    r = PriceRecord.model_validate(record(to="2026-05-31T15:59:00Z"))
    assert r.from_ == dt.datetime(2026, 1, 1, tzinfo=dt.UTC)
    assert r.to == dt.datetime(2026, 5, 31, 15, 59, tzinfo=dt.UTC)


def test_datetime_without_offset_is_refused():
    with pytest.raises(ValidationError, match="needs its offset"):
        PriceRecord.model_validate(record(to="2026-05-31T15:59:00"))


def test_to_before_from_is_refused():
    with pytest.raises(ValidationError, match="`to` must be after `from`"):
        PriceRecord.model_validate(record(to="2025-01-01"))


def test_unknown_window_name_is_refused():
    doc = {"provider": "p", "name": "P", "lists": [
        {"currency": "USD", "records": [record(prices=[{"meter": "input", "price": 1,
                                                         "window": "peak"}])]}]}
    with pytest.raises(ValidationError, match="uses window 'peak'; this list defines: none"):
        PriceFile.model_validate(doc)


def test_misspelt_key_is_refused():
    with pytest.raises(ValidationError, match="Extra inputs"):
        PriceRecord.model_validate(record(cheked="2026-01-01"))


def test_series_ships_the_two_default_profiles():
    series = Series.model_validate({"title": "t", "description": "d", "site_url": "https://x",
                                    "source_url": "https://y", "dates": ["2026-09-12"],
                                    "sections": [{"id": "top", "title": "Top"}]})
    assert [p.id for p in series.profiles] == ["chat-3-1", "cached-agent"]
    agent = series.profiles[1]
    assert (agent.input_share, agent.cache_hit_rate) == (0.9, 0.8)


def test_profile_shares_are_fractions():
    with pytest.raises(ValidationError):
        WorkloadProfile(id="x", title="x", input_share=1.5)
