"""The pages of the market beyond the table: a page per tracked model, the Changes and the
Discrepancies pages, on the bundled sources."""

from __future__ import annotations

import datetime as dt
import html
import re

import pytest
from conftest import REPO

from pipeline.compose.model_pages import model_page, model_slug, tracked_models
from pipeline.load.sources import load_sources

AS_OF = dt.date(2026, 11, 20)


@pytest.fixture(scope="module")
def sources():
    return load_sources(REPO)


def text_of(page) -> str:
    body = page.read_text()
    body = body[body.find("<article"):body.find("</article>")]
    return html.unescape(re.sub(r"\s+", " ", re.sub(r"<[^>]+>", " ", body)))


def test_tracked_are_the_curated_models_then_the_track_list(sources):
    pairs = tracked_models(sources)
    assert pairs[0][0] == "anthropic" and ("zhipu", "glm-5.2") in pairs
    assert pairs[-6:] == [("openai", "o3"), ("openai", "gpt-4o"), ("google", "gemini-2.5-pro"),
                          ("google", "gemini-2.5-flash"), ("deepseek", "deepseek-reasoner"),
                          ("anthropic", "claude-3-5-sonnet-20241022")]
    assert len(pairs) == len(set(pairs)) == 16 + 6
    assert model_slug("google", "gemini-2.5-pro") == "google-gemini-2-5-pro"


def test_a_curated_model_has_every_record_of_each_list(sources):
    page = model_page(sources, "deepseek", "deepseek-v4-flash", AS_OF)
    cny, usd = page.lists
    # sources/prices/deepseek.yaml: the CNY record of 2026-09-10 gives base cached input only
    # (its input is a peak-window price); the USD list two records.
    assert [(r.date, r.prices) for r in cny.rows] == [(dt.date(2026, 9, 10), (None, 0.02, None))]
    assert [(r.date, r.prices, r.note) for r in usd.rows] == [
        (dt.date(2026, 4, 26), (0.14, 0.0028, 0.28), "until 2026-08-16"),
        (dt.date(2026, 8, 16), (0.22, 0.007, 0.66),
         "off-peak tier outside its time windows")]
    assert usd.rows[1].url == "https://github.com/Portkey-AI/models/issues/900"
    # The chart is of the USD list, one step line per meter, to its last change.
    # ... and on to the CNY list's cut of 2026-09-10, which the chart marks (issue 36).
    assert page.chart.end == dt.date(2026, 9, 10)
    assert [name for name, _ in page.chart.lines] == ["Input", "Cached input", "Output"]


def test_a_tracked_catalogue_model_is_its_catalogue_history(sources):
    # LiteLLM's history of o3: launched at 10/2.50/40, cut 80 % on 2025-06-10 (first seen in
    # the map the next day).
    (history,) = model_page(sources, "openai", "o3", AS_OF).lists
    assert history.title == "LiteLLM model price map"
    assert [(r.date, r.prices) for r in history.rows] == [
        (dt.date(2025, 4, 16), (10.0, 2.5, 40.0)), (dt.date(2025, 6, 11), (2.0, 0.5, 8.0))]
    # Not priced by any source as of a date before it was listed.
    assert model_page(sources, "openai", "o3", dt.date(2025, 1, 1)).lists == ()


def test_the_built_pages(bundled_site):
    o3 = text_of(bundled_site / "models" / "openai-o3" / "index.html")
    assert "2025-06-11 $2.00 $0.50 $8.00 LiteLLM model price map" in o3
    page = (bundled_site / "models" / "openai-o3" / "index.html").read_text()
    assert 'src="../../charts/model-openai-o3.svg"' in page
    assert (bundled_site / "charts" / "model-openai-o3.svg").read_bytes().startswith(b"<?xml")
    index = text_of(bundled_site / "models" / "index.html")
    assert "22 models with a dated history of their own" in index
    changes = text_of(bundled_site / "changes" / "2025-06" / "index.html")
    assert ("2025-06-11 00:35 UTC · LiteLLM model price map · seen by our fetch · 3 moves openai "
            "o3 cached input $2.50 $0.50 -80.0%") in changes
    assert "openai o3 output $40.00 $8.00 -80.0%" in changes
    found = text_of(bundled_site / "discrepancies" / "index.html")
    # Google's curated gemini-3.6-flash (0.75/3.75 from 2026-08-13) against LiteLLM's map.
    assert ("google gemini-3.6-flash input $0.75 (Google (curated)) $1.50 (LiteLLM model price "
            "map) +100.0% 2026-08-13 (still; 100 days)") in found


def test_a_catalogue_models_rows_carry_every_price_in_force_and_end_when_it_went(sources):
    # LiteLLM's gemini-2.5-pro: a cached-input price added, then cut; input and output held.
    (history,) = model_page(sources, "google", "gemini-2.5-pro", AS_OF).lists
    assert [(r.date, r.prices) for r in history.rows] == [
        (dt.date(2025, 6, 18), (1.25, None, 10.0)), (dt.date(2025, 7, 15), (1.25, 0.3125, 10.0)),
        (dt.date(2026, 1, 13), (1.25, 0.125, 10.0))]
    # claude-3-5-sonnet-20241022 went on 2026-03-11, was back for a day, and went again.
    page = model_page(sources, "anthropic", "claude-3-5-sonnet-20241022", AS_OF)
    assert [(r.date, r.note) for r in page.lists[0].rows][-3:] == [
        (dt.date(2026, 3, 11), "no longer listed"), (dt.date(2026, 3, 12), ""),
        (dt.date(2026, 3, 12), "no longer listed")]
    assert page.chart.end == dt.date(2026, 3, 12)
