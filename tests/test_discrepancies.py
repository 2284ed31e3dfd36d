"""Where two price lists disagree by more than 5 % for more than 7 days: catalogue lag against
the curated record, and catalogues against each other."""

from __future__ import annotations

import datetime as dt

import pandas as pd

from pipeline.tables.discrepancies import PERIOD_COLUMNS, disagreements

UTC = dt.UTC


def day(d: int) -> pd.Timestamp:
    return pd.Timestamp(dt.datetime(2026, 9, 1, tzinfo=UTC) + dt.timedelta(days=d))


def periods(source: str, *rows: tuple[str, str, float, int, int | None]) -> pd.DataFrame:
    """(model, meter, usd_per_mtok, start day, end day or None)."""
    return pd.DataFrame([("acme", m, meter, price, day(a), None if b is None else day(b), source,
                          f"https://{source}.example/")
                         for m, meter, price, a, b in rows], columns=PERIOD_COLUMNS).astype(
        {"start": "datetime64[ns, UTC]", "end": "datetime64[ns, UTC]"})


CURATED = periods("curated",
                  ("lagged", "input", 2.0, 0, 10), ("lagged", "input", 1.0, 10, None),
                  ("brief", "input", 1.0, 0, None), ("close", "input", 1.00, 0, None),
                  ("free", "input", 1.0, 0, None), ("moving", "output", 10.0, 0, None))
CATALOGUE = periods("cat",
                    # The cut of day 10 shown from day 20: ten days behind.
                    ("lagged", "input", 2.0, 0, 20), ("lagged", "input", 1.0, 20, None),
                    ("brief", "input", 2.0, 0, 5), ("brief", "input", 1.0, 5, None),  # 5 days
                    ("close", "input", 1.04, 0, None),  # 4 %: agrees
                    ("free", "input", 0.0, 0, None),  # free: never compared
                    # Moves, and still disagrees: one stretch of 30 days.
                    ("moving", "output", 12.0, 0, 15), ("moving", "output", 11.0, 15, None))
OTHER = periods("other", ("lagged", "input", 1.0, 0, None))


def test_catalogue_lag_is_a_stretch_of_more_than_seven_days():
    found = disagreements([CURATED, CATALOGUE], day(30).to_pydatetime())
    got = [(r.model, r.usd_per_mtok_a, r.usd_per_mtok_b, round(r.difference, 6),
            r.since, r.until, r.days, r.ongoing) for r in found.itertuples()]
    assert got == [
        ("moving", 10.0, 11.0, 0.1, day(0), day(30), 30.0, True),
        ("lagged", 1.0, 2.0, 1.0, day(10), day(20), 10.0, False)]
    assert list(found["source_a"]) == ["curated", "curated"]
    assert list(found["url_b"]) == ["https://cat.example/"] * 2


def test_two_catalogues_and_the_build_day_as_the_end():
    found = disagreements([CURATED, CATALOGUE, OTHER], day(30).to_pydatetime())
    pairs = {(r.model, r.source_a, r.source_b, r.since, r.days) for r in found.itertuples()}
    # cat against other: 2.0 vs 1.0 from day 0 to day 20; other had the cut before we did.
    assert ("lagged", "cat", "other", day(0), 20.0) in pairs
    assert ("lagged", "curated", "other", day(0), 10.0) in pairs
    assert len(pairs) == 4
    # As of day 8 the lag is eight days old but its figures are not yet known beyond that.
    early = disagreements([CURATED, CATALOGUE], day(8).to_pydatetime())
    assert [(r.model, r.days, r.ongoing) for r in early.itertuples()] == [("moving", 8.0, True)]


def test_exactly_five_percent_agrees_ends_after_the_page_are_open_and_case_is_one_model():
    curated = periods("curated", ("five", "input", 2.0, 0, None), ("GLM-5.2", "input", 1.0, 0, 60))
    catalogue = periods("cat", ("five", "input", 2.1, 0, None), ("glm-5.2", "input", 2.0, 0, 50))
    found = disagreements([curated, catalogue], day(20).to_pydatetime())
    # 2.10 against 2.00 is 5 %, not more; both GLM periods end after day 20: still open then.
    assert [(r.model, r.days, r.ongoing, r.until) for r in found.itertuples()] == [
        ("GLM-5.2", 20.0, True, day(20))]
