"""Corrections, not rewrites (issue 36): what each dated edition printed is sealed in
sources/snapshots/printed.csv; when a source later changes a figure's numbers, the edition shows
the figure as it is now with a dated note of what it first said, and its feed entry and e-mail
page say so (compose/corrections.py, `brief seal`)."""

from __future__ import annotations

import datetime as dt
import html
import json
import re
from pathlib import Path

import click
import pandas as pd
from click.testing import CliRunner
from conftest import REPO

from pipeline.cli.main import main
from pipeline.compose.corrections import empty_ledger, figure_corrections, sealed
from pipeline.compose.types import Edition, Figure, SectionContent


def edition(date: str, *figures: tuple[str, str]) -> Edition:
    items = tuple(Figure(label=label, text_md=text, citations=(), lane="prices")
                  for label, text in figures)
    return Edition(date=dt.date.fromisoformat(date), title="t", previous=None,
                   sections=(SectionContent("numbers", "Context & numbers", items),))


def test_a_figure_whose_numbers_change_is_a_dated_correction():
    first = edition("2026-09-12", ("Blended prices since 2026-09-04", "[Flash](x) $0.40 (+5%)."))
    ledger = sealed(empty_ledger(), [first], dt.date(2026, 9, 12))
    assert ledger.to_dict("records") == [{
        "edition": "2026-09-12", "figure": "prices: Blended prices since #-#-#",
        "label": "Blended prices since 2026-09-04",
        "text": "Blended prices since 2026-09-04: Flash $0.40 (+5%).",
        "printed": "2026-09-12", "replaced": ""}]
    # Sealing again the same figures, or a later edition's not yet dated, changes nothing.
    later = edition("2026-12-31", ("A", "1"))
    assert sealed(ledger, [first, later], dt.date(2026, 10, 1)).equals(ledger)
    # Reworded by new code, same numbers: re-recorded, not a correction.
    reworded = edition("2026-09-12", ("Blended prices since 2026-09-04", "Flash: $0.40 (+5%)."))
    again = sealed(ledger, [reworded], dt.date(2026, 10, 1))
    assert list(again["replaced"]) == [""] and again["text"][0].endswith("Flash: $0.40 (+5%).")
    assert figure_corrections(again, dt.date(2026, 9, 12)) == ()
    # A source changed the figure's numbers.
    corrected = edition("2026-09-12", ("Blended prices since 2026-09-04", "Flash $0.38 (+0%)."))
    after = sealed(again, [corrected], dt.date(2026, 12, 5))
    assert list(zip(after["text"], after["printed"], after["replaced"], strict=True)) == [
        ("Blended prices since 2026-09-04: Flash: $0.40 (+5%).", "2026-09-12", "2026-12-05"),
        ("Blended prices since 2026-09-04: Flash $0.38 (+0%).", "2026-12-05", "")]
    assert figure_corrections(after, dt.date(2026, 9, 12)) == ((
        dt.date(2026, 12, 5), "", "this edition first printed “Blended prices since "
        "2026-09-04: Flash: $0.40 (+5%).”; the figure above is corrected."),)


def text_of(page: Path) -> str:
    return " ".join(html.unescape(re.sub(r"<[^>]+>", " ", page.read_text())).split())


def test_an_edited_record_is_shown_as_a_correction_on_its_past_edition(copy_few_models_sources):
    # The bundled editions and curated prices, which every sealed figure is computed from; few
    # catalogue models, so the two builds write ~120 model pages each, not ~1,600.
    root = copy_few_models_sources()
    out = root / "public"
    runner = CliRunner()

    def brief(*args: str) -> str:
        result = runner.invoke(main, [*args, "--root", str(root)])
        assert result.exit_code == 0, result.output
        return result.output

    # The copy's catalogues hold few models, so the figures read from them (the same-model
    # index, a catalogue's moves) are not those the repository's ledger holds: it seals its own.
    (root / "sources" / "snapshots" / "printed.csv").unlink()
    assert brief("seal", "--today", "2026-12-05").startswith("sealed 6 editions")
    brief("build", "--today", "2026-12-05")
    page = out / "briefings" / "2026-08-21" / "index.html"
    assert "Corrections" not in text_of(page)
    assert "output, off-peak: $0.66 per Mtok (was $0.28, +136%)" in text_of(page)

    # An editor corrects a past record: DeepSeek's Flash output, off-peak, from 2026-08-16.
    prices = root / "sources" / "prices" / "deepseek.yaml"
    text = prices.read_text()
    slip = "          - {meter: output, price: 0.66}\n"
    assert text.count(slip) == 1
    prices.write_text(text.replace(slip, "          - {meter: output, price: 0.60}\n"))
    # The entries that state the price are held to it (their claims): check names both, and
    # the editor corrects their figures too.
    result = runner.invoke(main, ["check", "--root", str(root)])
    assert result.exit_code == 1
    entries = root / "sources" / "entries" / "2026"
    for name, day in (("08-16-deepseek-peak-off-peak-billing.yaml", "2026-08-17"),
                      ("11-13-frontier-list-prices.yaml", "2026-11-13")):
        assert (f"sources/entries/2026/{name}" in result.output
                and "states 0.66 but our figure is 0.6 (+10.0%)" in result.output), result.output
        claim = (f"    model: deepseek-v4-flash\n    meter: output\n    at: {day}\n"
                 "    stated_usd_per_mtok: 0.66\n")
        entry = (entries / name).read_text()
        assert entry.count(claim) == 1
        (entries / name).write_text(entry.replace(claim, claim.replace("0.66", "0.60")))
    # Two figures of 2026-08-21 printed the price; the same-model index reads it from
    # 2026-08-16 on, so the editions whose printed change of it moved are corrected too.
    said = brief("seal", "--today", "2026-12-06")
    ledger = pd.read_csv(root / "sources" / "snapshots" / "printed.csv", dtype=str,
                         keep_default_na=False)
    corrected = ledger[ledger["replaced"] == "2026-12-06"]
    others = corrected[corrected["figure"] != "economics-index"]
    assert len(others) == 2 and set(others["edition"]) == {"2026-08-21"}, corrected
    assert len(corrected) > 2  # the index's line of at least one edition
    assert said.endswith(f"; {len(corrected)} corrected today\n")
    brief("build", "--today", "2026-12-06")

    shown = text_of(page)
    assert "output, off-peak: $0.60 per Mtok (was $0.28, +114%)" in shown
    # Two figures of that edition printed it: the blends that moved, and the list's move.
    assert ("Corrections ¶ 2026-12-06: this edition first printed “Blended prices in the 7 "
            "days to 2026-08-21 (first edition): 2 of 16 tracked models moved:") in shown
    assert ("2026-12-06: this edition first printed “DeepSeek deepseek-v4-flash (USD list): "
            "rise from 2026-08-16: cached input, off-peak: $0.007 per Mtok (was $0.0028, +150%); "
            "cached input, peak: $0.014 per Mtok; input, off-peak: $0.22 per Mtok (was $0.14, "
            "+57%); input, peak: $0.44 per Mtok; output, off-peak: $0.66 per Mtok (was $0.28, "
            "+136%); output, peak: $1.32 per Mtok.”; the figure above is corrected.") in shown
    plain = (out / "briefings" / "2026-08-21.txt").read_text()
    assert "Corrections\n\n• 2026-12-06: this edition first printed" in plain
    assert "this edition first printed" in (out / "briefings" / "2026-08-21" / "email.html"
                                            ).read_text()
    feed = json.loads((out / "feed.json").read_text())
    updated = {i["id"].rstrip("/").rsplit("/", 1)[-1]: i.get("date_modified", "")
               for i in feed["items"]}
    # An edition's feed entry is updated when, and only when, a figure it printed was corrected.
    assert {day for day, when in updated.items() if when.startswith("2026-12-06")} == set(
        corrected["edition"])
    # Editions none of whose figures changed are not noted.
    for day in set(updated) - set(corrected["edition"]):
        assert "Corrections" not in text_of(out / "briefings" / day / "index.html"), day


def test_the_repositorys_ledger_records_every_figure_its_editions_print() -> None:
    # CI's guard (issue 52): a change of code or sources that adds or alters a printed figure
    # fails here until `brief seal` is run and printed.csv committed, instead of the publish
    # workflow's seal recording it days later as printed that day.
    ledger = REPO / "sources" / "snapshots" / "printed.csv"
    before = ledger.read_bytes()
    result = CliRunner().invoke(main, ["seal", "--check", "--root", str(REPO),
                                       "--today", "2026-12-06"])
    assert result.exit_code == 0, result.output
    assert result.output == ("sources/snapshots/printed.csv records every figure the 6 editions "
                             "print\n")
    assert ledger.read_bytes() == before



def test_a_ledger_that_lags_names_each_figure_it_lacks() -> None:
    from pipeline.cli.main import _not_sealed

    first = edition("2026-09-12", ("Blended prices since 2026-09-04", "Flash $0.40 (+5%)."),
                    ("Context", "12 models listed."))
    before = sealed(empty_ledger(), [edition("2026-09-12", ("Context", "10 models listed."))],
                    dt.date(2026, 9, 12))
    after = sealed(before, [first], dt.date(2026, 12, 6))

    @click.command()
    def check() -> None:
        _not_sealed(before, after)

    result = CliRunner().invoke(check)
    assert result.exit_code == 1
    assert result.stderr.splitlines() == [
        "sources/snapshots/printed.csv: 2026-09-12 prices: Blended prices since #-#-#: not recorded",
        "sources/snapshots/printed.csv: 2026-09-12 prices: Context: recorded as it printed before",
        "sources/snapshots/printed.csv is not current: 2 figure(s) the editions print are not "
        "sealed; run `brief seal` and commit it"]
