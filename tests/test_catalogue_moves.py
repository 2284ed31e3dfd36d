"""An edition's catalogue figure: the moves first seen in its window, curated models left out,
biggest move first, each with the date a snapshot first showed it."""

from __future__ import annotations

import datetime as dt
import html
import re

import pandas as pd

from pipeline.compose.catalogue_moves import (
    catalogue_figures,
    move_words,
    window_moves,
    without_models,
)
from pipeline.formats.price_map import ImportedPrice
from pipeline.models.catalogues import Catalogue
from pipeline.tables.catalogue_history import (
    CHANGE_COLUMNS,
    empty_history,
    history_changes,
    snapshot_table,
    update_history,
)
from pipeline.tables.cost import day_end

CAT = Catalogue(id="cat", name="Cat map", url="https://c.example/m.json",
                page="https://c.example/map", format="litellm", licence="MIT",
                attribution="a", use="published")


def move(model: str, kind: str, old: float | None, new: float | None, at: str,
         provider: str = "acme", meter: str = "input", **key: str) -> dict:
    row = {c: "" for c in CHANGE_COLUMNS}
    row.update(catalogue="cat", provider=provider, catalogue_provider=provider, model=model,
               meter=meter, context_above_tokens="0", mode="realtime", kind=kind,
               old_usd_per_mtok=float("nan") if old is None else old,
               new_usd_per_mtok=float("nan") if new is None else new, at=at)
    row.update(key)
    return row


CHANGES = pd.DataFrame([
    move("early", "cut", 2.0, 1.0, "2026-09-04T23:59Z"),  # the end of the previous edition's day
    move("small", "rise", 1.0, 1.1, "2026-09-05T00:00Z"),
    move("big", "cut", 4.0, 1.0, "2026-09-08T10:00Z"),
    move("big", "cut", 8.0, 6.0, "2026-09-09T10:00Z", meter="output"),
    move("fresh", "new", None, 0.0, "2026-09-10T12:00Z"),
    move("fresh", "new", None, 3.0, "2026-09-10T12:00Z", meter="output"),
    move("old", "removed", 0.5, None, "2026-09-11T08:00Z", mode="batch"),
    move("kept", "cut", 9.0, 1.0, "2026-09-11T09:00Z", provider="curated-co"),
    move("late", "cut", 2.0, 1.0, "2026-09-12T00:00Z"),  # after the edition's day
])


def test_a_window_is_what_snapshots_first_showed_in_it_without_curated_models():
    uncurated = without_models(CHANGES, {("curated-co", "kept")})
    got = window_moves(uncurated, day_end(dt.date(2026, 9, 4)), day_end(dt.date(2026, 9, 11)))
    assert list(got["model"]) == ["small", "big", "big", "fresh", "fresh", "old"]


def test_the_figure_lists_every_move_biggest_first_with_first_seen_dates():
    moves = window_moves(without_models(CHANGES, {("curated-co", "kept")}),
                         day_end(dt.date(2026, 9, 4)), day_end(dt.date(2026, 9, 11)))
    (figure,) = catalogue_figures(moves, [CAT], "since 2026-09-04")
    assert figure.label == ("Cat map since 2026-09-04: 4 models moved (2 repriced, 1 newly "
                            "listed, 1 no longer listed)")
    assert figure.text_md.endswith(
        "Repriced, biggest move first: acme big: input $4.00 → $1.00 (-75%); output $8.00 → "
        "$6.00 (-25%) (first seen 2026-09-08); acme small: input $1.00 → $1.10 (+10%) (first "
        "seen 2026-09-05). Newly listed: acme fresh: input free; output $3.00 (first seen "
        "2026-09-10). No longer listed: acme old: input, batch $0.50 (first seen 2026-09-11).")
    assert [c.url for c in figure.citations] == ["https://c.example/map"]
    assert figure.citations[0].source_path == "sources/snapshots/prices/cat.csv"


def test_no_moves_no_figure_and_third_party_names_are_inert():
    assert catalogue_figures(CHANGES.iloc[0:0], [CAT], "since 2026-09-04") == []
    hostile = pd.DataFrame([move("<img src=x onerror=alert(1)>*[x](javascript:1)", "cut", 2.0,
                                 1.0, "2026-09-05T00:00Z")])
    (figure,) = catalogue_figures(hostile, [CAT], "since 2026-09-04")
    assert "<img" not in figure.text_md and "](javascript" not in figure.text_md


def test_a_move_in_words_names_its_tier():
    row = pd.DataFrame([move("m", "rise", 0.04, 0.05, "2026-09-05T00:00Z", meter="cached_input",
                             ttl_minutes="60", context_above_tokens="200000", mode="batch",
                             window_utc="16:30-00:30")])
    (row,) = row.itertuples(index=False)
    assert move_words(row) == ("cached input (60 min), 16:30-00:30 UTC, prompts over 200,000 "
                               "tokens, batch $0.04 → $0.05 (+25%)")


def test_a_price_back_after_a_gap_is_a_move_even_before_the_whole_catalogue():
    """A history may begin model by model (the bundled LiteLLM history of 22 models): a price
    first seen before the first whole snapshot is where its history starts, but one that went
    and came back did move, whenever it came back."""
    days = [dt.datetime(2026, 9, d, 6, tzinfo=dt.UTC) for d in (1, 2, 3, 4)]
    a, z = ImportedPrice("openai", "a", "input", 1.0), ImportedPrice("openai", "z", "input", 5.0)
    history = history_of((days[0], [a]), (days[1], []), (days[2], [a]), (days[3], [a, z]))
    moves = history_changes(history, "c", whole_since=days[3])
    assert [(r.model, r.kind, r.at) for r in moves.itertuples()] == [
        ("a", "removed", "2026-09-02T06:00Z"), ("a", "new", "2026-09-03T06:00Z")]


def history_of(*snapshots: tuple[dt.datetime, list[ImportedPrice]]) -> pd.DataFrame:
    history = empty_history()
    for at, prices in snapshots:
        history = update_history(history, snapshot_table(prices, {}, at.date()), at).history
    return history


def test_a_price_gone_and_back_in_one_window_is_its_net_move():
    flaps = pd.DataFrame([
        move("same", "removed", 2.5, None, "2026-09-06T06:00Z"),
        move("same", "new", None, 2.5, "2026-09-07T06:00Z"),  # back as it was: no move
        move("lower", "removed", 1.0, None, "2026-09-06T06:00Z"),
        move("lower", "new", None, 0.5, "2026-09-08T06:00Z"),  # back cheaper: one cut
        move("twice", "cut", 4.0, 3.0, "2026-09-06T06:00Z"),
        move("twice", "cut", 3.0, 2.0, "2026-09-09T06:00Z"),  # two cuts: one of -50 %
    ])
    (figure,) = catalogue_figures(flaps, [CAT], "since 2026-09-04")
    assert figure.label == "Cat map since 2026-09-04: 2 models moved (2 repriced)"
    assert figure.text_md.endswith(
        "Repriced, biggest move first: acme lower: input $1.00 → $0.50 (-50%) (first seen "
        "2026-09-08); acme twice: input $4.00 → $2.00 (-50%) (first seen 2026-09-09).")


def test_catalogue_names_stay_text_on_every_page_they_reach():
    """A model id that is Markdown or HTML renders as its characters on a month's page (HTML
    put into a shell, never through Markdown), and a commit subject too."""
    from pipeline.render.changes_page import changes_files
    from pipeline.tables.catalogue_records import committed_moves

    name = "gpt-x [claim free credits](https://evil.example/){: class=md-button } | <b>x</b>"
    changes = pd.DataFrame([move(name, "cut", 2.0, 1.0, "2026-09-05T00:00Z")])
    log = pd.DataFrame([{"commit": "a" * 40, "at": "2026-09-05T00:00Z",
                         "subject": '<img src=x onerror=alert(1)> "fix" & <a href=javascript:x>',
                         "moves": "1", "file": "", "problem": ""}])
    cat = CAT.model_copy(update={"repository": "https://github.com/o/cat"})
    page = changes_files(committed_moves(changes, {"cat": log}), [cat], set(),
                         dt.date(2026, 9, 30))["changes/2026-09/index.html"]
    body = page.body_html
    assert "<b>" not in body and "<img" not in body and "javascript:" not in body.replace(
        "href=javascript:x", "")
    assert 'href="https://evil.example/"' not in body
    assert re.findall(r'href="([^"]+)"', body.split("<table", 1)[1]) == [
        f"https://github.com/o/cat/commit/{'a' * 40}"]
    text = html.unescape(re.sub(r"<[^>]+>", "", body))
    assert name in text and '<img src=x onerror=alert(1)> "fix" & <a href=javascript:x>' in text


def test_a_model_the_catalogue_lists_under_two_of_our_providers_names_each_listing():
    """LiteLLM lists gemini-2.5-flash under `gemini` and `vertex_ai`, both google for us: a move
    the same in both is said once, naming both; moves that differ each name their listing."""
    def listed(catalogue_provider: str, meter: str, old: float, new: float) -> dict:
        return move("g-flash", "cut" if new < old else "rise", old, new, "2026-09-06T06:00Z",
                    provider="google", meter=meter, catalogue_provider=catalogue_provider)

    moves = pd.DataFrame([listed("vertex_ai", "input", 0.30, 0.15),
                          listed("gemini", "input", 0.30, 0.15),
                          listed("gemini", "output", 2.50, 2.00),
                          listed("vertex_ai", "output", 2.50, 3.00)])
    (figure,) = catalogue_figures(moves, [CAT], "since 2026-09-04")
    assert figure.label == "Cat map since 2026-09-04: 1 model moved (1 repriced)"
    assert figure.text_md.endswith(
        "Repriced, biggest move first: google g\\-flash: input $0.30 → $0.15 (-50%) (as gemini, "
        "vertex\\_ai); output $2.50 → $2.00 (-20%) (as gemini); output $2.50 → $3.00 (+20%) "
        "(as vertex\\_ai) (first seen 2026-09-06).")
    # Under one listing, as before: no id said.
    (one,) = catalogue_figures(moves[moves["catalogue_provider"] == "gemini"], [CAT],
                               "since 2026-09-04")
    assert one.text_md.endswith("google g\\-flash: input $0.30 → $0.15 (-50%); output $2.50 → "
                                "$2.00 (-20%) (first seen 2026-09-06).")


def test_the_changes_page_keeps_the_catalogues_own_provider_id_beside_ours():
    from pipeline.render.changes_page import changes_files
    from pipeline.tables.catalogue_records import committed_moves

    moves = pd.DataFrame([
        move("g-flash", "cut", 0.30, 0.15, "2026-09-06T06:00Z", provider="google",
             catalogue_provider="vertex_ai"),
        move("g-flash", "cut", 0.30, 0.15, "2026-09-06T06:00Z", provider="google",
             catalogue_provider="google")])
    page = changes_files(committed_moves(moves, {}), [CAT], set(), dt.date(2026, 9, 30))[
        "changes/2026-09/index.html"]
    sellers = re.findall(r'<tr data-provider="google"[^>]*><td>([^<]*)</td>', page.body_html)
    assert sellers == ["google", "google (vertex_ai)"]
