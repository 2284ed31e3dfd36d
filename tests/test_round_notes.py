"""A story that quotes results of a round the site leaves out of its figures says so beside them
(issue 36): the 2026-09-12 edition's MLPerf v6.1 sample story quoted 679,740 and 395,940 tokens
per second of a round whose publication date is not set, which the Hardware page and the
2026-10-16 edition say are not quoted."""

from __future__ import annotations

import dataclasses
import datetime as dt
import json

import pytest
from conftest import REPO

from pipeline.compose.round_notes import noted, with_round_note
from pipeline.compose.types import Citation, Figure, Story
from pipeline.load.hardware import load_hardware
from pipeline.normalize.items import md_text
from pipeline.render.escape import plain_text

SEPT_12 = dt.date(2026, 9, 12)
NOTE = ("(679,740 and 395,940 are results of MLPerf Inference v6.1, a round whose publication "
        "date is not set: the site's figures and comparisons leave it out until its date is set.)")


@pytest.fixture(scope="module")
def rows():
    _, rows, _ = load_hardware(REPO)
    return rows


def sample_summary() -> str:
    """The bundled MLCommons sample item's summary, as an edition reads it (Markdown-escaped)."""
    snapshot = json.loads((REPO / "sources/snapshots/feeds/mlcommons.json").read_text())
    (item,) = snapshot["items"]
    return md_text(item["summary_text"])


def test_the_v61_sample_story_says_its_round_is_left_out_beside_its_figures(rows) -> None:
    story = Story("feed-x", "MLPerf Inference v6.1 results", sample_summary(), (), origin="feed")
    text = noted(story, rows, SEPT_12).summary_md
    # The note follows the one sentence that states the figures; 167,578 is a v5.1 result
    # (published 2025-09-09), not named in it.
    assert plain_text(text) == (
        "In the v6.1 round a GB300 NVL72 system processed 679,740 tokens per second on "
        "DeepSeek-R1 in the Offline scenario across 72 GPUs, and the same GB200 NVL72 hardware "
        "more than doubled its Server result from 167,578 to 395,940 tokens per second between "
        f"rounds. {NOTE}")
    assert text == f"{sample_summary()} {md_text(NOTE)}"


def test_the_note_goes_after_the_sentence_of_the_last_figure(rows) -> None:
    text = md_text("A GB300 NVL72 did 679,740 tokens/s. Others were slower (by far). Next year?")
    assert plain_text(with_round_note(text, rows, SEPT_12)) == (
        "A GB300 NVL72 did 679,740 tokens/s. (679,740 is a result of MLPerf Inference v6.1, a "
        "round whose publication date is not set: the site's figures and comparisons leave it "
        "out until its date is set.) Others were slower (by far). Next year?")
    # No full stop after it: the note ends the text.
    assert plain_text(with_round_note(md_text("679740 tokens/s"), rows, SEPT_12)).startswith(
        "679740 tokens/s (679740 is a result of MLPerf Inference v6.1,")


def test_a_round_published_after_the_edition_and_the_texts_left_alone(rows) -> None:
    dated = [dataclasses.replace(r, published=dt.date(2026, 9, 20)) if r.round == "v6.1" else r
             for r in rows]
    text = md_text("GB300 NVL72: 679,740 tokens/s.")
    # Left out of the edition of 09-12, which is before the round's date; in it from 09-20.
    assert plain_text(with_round_note(text, dated, SEPT_12)) == (
        "GB300 NVL72: 679,740 tokens/s. (679,740 is a result of MLPerf Inference v6.1, a round "
        "published on 2026-09-20, after this edition: the site's figures and comparisons leave "
        "it out.)")
    assert with_round_note(text, dated, dt.date(2026, 9, 20)) == text
    # A published round's figure, a count of GPUs, a year: no note.
    quiet = md_text("167,578 on 72 GPUs in 2026, 679 of them.")
    assert with_round_note(quiet, rows, SEPT_12) == quiet
    # The site's own figures (a lane's) never read a left-out round: left as they are; an
    # editor's figure (no lane) is noted like a story.
    computed = Figure("Hardware", md_text("679,740 tokens/s."), (Citation("x", "", "y"),),
                      lane="hardware")
    assert noted(computed, rows, SEPT_12) is computed
    editor = dataclasses.replace(computed, lane="")
    assert noted(editor, rows, SEPT_12).text_md.endswith(
        md_text("(679,740 is a result of MLPerf Inference v6.1, a round whose publication date "
                "is not set: the site's figures and comparisons leave it out until its date is "
                "set.)"))
