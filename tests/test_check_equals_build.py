"""`brief check` finds first whatever `brief build` would refuse, with the file and line (issue 50):
a date past what the build can count to, a page or file name too long for the disk, a page over
its size limit, two tracked models whose pages would share one name, edition dates out of
order or twice. Each case runs both commands on the same tree: they print the same problems,
exit 1, and the build writes nothing."""

from __future__ import annotations

from pathlib import Path

import pytest
from conftest import tiny_tree
from test_hostile_ids import acme_tree
from test_hostile_input import brief, refused

from pipeline.load.sources import load_sources
from pipeline.problems import SourceError

EDITIONS = "sources/editions.yaml"
ACME = "sources/prices/acme.yaml"
LOCAL = "sources/entries/2026/09-12-local-story.yaml"
CATALOGUES = "sources/catalogues.yaml"


def edit(root: Path, name: str, old: str, new: str) -> None:
    path = root / name
    text = path.read_text(encoding="utf-8")
    assert old in text
    path.write_text(text.replace(old, new, 1), encoding="utf-8")


def check_and_build(root: Path) -> list[str]:
    """Return the problems `brief check` prints, having asserted that `brief build` prints the
    same ones and publishes nothing."""
    checked = refused(root, "check")
    assert refused(root, "build", "--today", "2026-09-20") == checked
    assert not (root / "public").exists()
    return [line for line in checked if ": warning: " not in line]


@pytest.mark.parametrize(("name", "old", "new", "expected"), [
    (EDITIONS, "dates: [2026-09-05, 2026-09-12]", "dates: [2026-09-05, 2026-09-12, 9999-12-31]",
     f"{EDITIONS}:5:1: dates.2: 9999-12-31 is outside the dates the build can count to, "
     "2000-01-01 to 2099-12-31 (pipeline/limits.py); check the year"),
    (EDITIONS, "dates: [2026-09-05, 2026-09-12]", "dates: [1969-12-31, 2026-09-05, 2026-09-12]",
     f"{EDITIONS}:5:1: dates.0: 1969-12-31 is outside the dates the build can count to, "
     "2000-01-01 to 2099-12-31 (pipeline/limits.py); check the year"),
    (ACME, "from: 2026-01-01", "from: 9999-12-31",
     f"{ACME}:7:1: lists.0.records.0.from: 9999-12-31 is outside the dates the build can count "
     "to, 2000-01-01 to 2099-12-31 (pipeline/limits.py); check the year"),
    (LOCAL, "date: 2026-09-12", "date: 2026-09-12\nevent_date: 2100-01-01",
     f"{LOCAL}:2:1: event_date: 2100-01-01 is outside the dates the build can count to, "
     "2000-01-01 to 2099-12-31 (pipeline/limits.py); check the year"),
])
def test_a_date_the_build_cannot_count_to_is_refused_by_both(tmp_path, name, old, new,
                                                             expected) -> None:
    root = acme_tree(tmp_path / "repo", "acme-1")
    edit(root, name, old, new)
    assert check_and_build(root) == [expected]


def test_ids_that_make_a_file_name_too_long_are_refused_by_both(tmp_path) -> None:
    provider = "p" * 80
    root = acme_tree(tmp_path / "repo", "m" * 200)
    edit(root, ACME, "provider: acme", f"provider: {provider}")
    (root / ACME).rename(root / f"sources/prices/{provider}.yaml")
    assert check_and_build(root) == [
        f"sources/prices/{provider}.yaml:6:1: lists.0.records.0.model: the model's chart would "
        "be named model-<provider>-<model>.svg, 291 bytes, more than the 255 a file name may "
        "have (pipeline/limits.py); shorten the provider or the model id"]


def test_the_longest_ids_the_build_can_name_pass_both(tmp_path) -> None:
    # 80 + 1 + 164 makes a chart name of exactly 255 bytes.
    provider = "p" * 80
    root = acme_tree(tmp_path / "repo", "m" * 164)
    edit(root, ACME, "provider: acme", f"provider: {provider}")
    (root / ACME).rename(root / f"sources/prices/{provider}.yaml")
    for command in ("check", "build"):
        done = brief(root, command, *(("--today", "2026-09-20") if command == "build" else ()))
        assert done.returncode == 0, done.stderr
    assert (root / f"public/models/{provider}-{'m' * 164}/index.html").is_file()


def test_a_topic_id_too_long_for_its_feeds_file_name_is_refused_by_both(tmp_path) -> None:
    root = tiny_tree(tmp_path / "repo")
    with (root / EDITIONS).open("a", encoding="utf-8") as f:
        f.write("topics:\n  - {id: " + "t" * 300 + ", title: T, sections: [top]}\n")
    assert check_and_build(root) == [
        f"{EDITIONS}:12:1: topics.0.id: String should have at most 80 characters"]


def test_an_entry_too_large_for_its_page_is_refused_by_both(tmp_path, monkeypatch) -> None:
    root = tiny_tree(tmp_path / "repo")
    # Just over the limit in text, so the edition's page is over it too.
    edit(root, LOCAL, "summary: A short paragraph about Local story.",
         "summary: " + "word " * (4 * 1024 * 1024))
    assert check_and_build(root) == [
        f"{LOCAL}:4:1: summary: the edition of 2026-09-12 would print 20,971,632 bytes of its "
        "entries' text, more than the 16,777,216 a page may have (pipeline/limits.py); shorten "
        "the text or move an entry to another edition"]


def test_tracked_ids_that_share_a_page_name_are_refused_by_both(tmp_path) -> None:
    root = acme_tree(tmp_path / "repo", "gpt-4o")
    text = (root / ACME).read_text(encoding="utf-8")
    record = text[text.index("      - model"):]
    (root / ACME).write_text(text + record.replace('"gpt-4o"', '"GPT-4o"')
                             + record.replace('"gpt-4o"', '"gpt.4o"'), encoding="utf-8")
    assert check_and_build(root) == [
        f"{ACME}:13:1: lists.0.records.1.model: acme GPT-4o and acme gpt-4o ({ACME}:6) would "
        "share the page models/acme-gpt-4o/, one overwriting the other; spell the model as its "
        "provider's API does, in one way",
        f"{ACME}:20:1: lists.0.records.2.model: acme gpt.4o and acme gpt-4o ({ACME}:6) would "
        "share the page models/acme-gpt-4o/, one overwriting the other; spell the model as its "
        "provider's API does, in one way"]


def test_tracked_catalogue_models_that_share_a_page_name_are_refused(
        copy_repo_sources) -> None:
    root = copy_repo_sources()
    edit(root, CATALOGUES, "  - {provider: openai, model: gpt-4o}\n",
         "  - {provider: openai, model: gpt-4o}\n  - {provider: openai-gpt, model: 4o}\n")
    problems = refused(root, "check")
    line = next(n for n, text in enumerate((root / CATALOGUES).read_text().splitlines(), 1)
                if "model: 4o}" in text)
    first = next(n for n, text in enumerate((root / CATALOGUES).read_text().splitlines(), 1)
                 if "model: gpt-4o}" in text)
    assert problems == [
        f"{CATALOGUES}:{line}:1: track.2.model: openai-gpt 4o and openai gpt-4o "
        f"({CATALOGUES}:{first}) would share the page models/openai-gpt-4o/, one overwriting the "
        "other; spell the model as its provider's API does, in one way"]


def test_edition_dates_out_of_order_or_twice_are_refused_by_both(tmp_path) -> None:
    root = tiny_tree(tmp_path / "repo")
    edit(root, EDITIONS, "dates: [2026-09-05, 2026-09-12]",
         "dates:\n  - 2026-09-12\n  - 2026-09-05\n  - 2026-09-12")
    assert check_and_build(root) == [
        f"{EDITIONS}:7:1: dates.1: 2026-09-05 is listed after 2026-09-12 (line 6); list the "
        "dates oldest first",
        f"{EDITIONS}:8:1: dates.2: 2026-09-12 is listed twice, on lines 6 and 8; list each "
        "date once"]


def test_the_entries_of_every_edition_over_the_site_limit_are_refused(tiny, monkeypatch) -> None:
    # The limit lowered, as tests/test_limits.py does: the five entries in an edition hold 245
    # bytes of headlines and summaries (the 09-13 one, in no edition, is not counted).
    monkeypatch.setattr("pipeline.load.entries.MAX_SITE_BYTES", 200)
    with pytest.raises(SourceError) as checked:
        load_sources(tiny)
    assert [p.located() for p in checked.value.problems if p.severity == "error"] == [
        "sources/entries/2026/09-06-after-boundary.yaml:4:1: summary: the editions would print "
        "245 bytes of their entries' text, more than the 200 the site may have "
        "(pipeline/limits.py); shorten the text or move an entry to another edition"]
