"""Loading and validating curated sources: each problem with its file, field and exact message."""

from __future__ import annotations

from pathlib import Path

import pytest
from conftest import write_entry

from pipeline.load.sources import load_sources
from pipeline.problems import SourceError


def problems_of(root: Path) -> list[str]:
    """Return the errors loading `root` raises (the tiny tree's `too-late` entry also warns that
    it falls after the last edition: test_entry_after_the_last_edition_warns)."""
    with pytest.raises(SourceError) as info:
        load_sources(root)
    return [str(p) for p in info.value.problems if p.severity == "error"]


def test_tiny_tree_loads(tiny: Path) -> None:
    sources = load_sources(tiny)
    assert [c.id for c in sources.entries] == [
        "early-news", "boundary-news", "after-boundary", "local-story", "price-figure", "too-late"]
    assert sources.entries[0].path == "sources/entries/2026/09-01-early-news.yaml"


def test_bad_entry_reports_three_problems(tiny: Path) -> None:
    write_entry(tiny, "2026-09-10", "bad", body="""\
        date: 2026-09-31
        section: top
        sumary: Misspelt key and no headline.
        links:
          - url: https://example.org/x
            publisher: X
        """)
    assert problems_of(tiny) == [
        "sources/entries/2026/09-10-bad.yaml: date: expected a date as YYYY-MM-DD: "
        "day value is outside expected range (got '2026-09-31')",
        "sources/entries/2026/09-10-bad.yaml: headline: required field is missing",
        "sources/entries/2026/09-10-bad.yaml: summary: required field is missing",
        "sources/entries/2026/09-10-bad.yaml: sumary: unknown key; did you mean `summary`?",
    ]


CASES = {
    "wrong type": ("headline: [not, a, string]", "headline: Input should be a valid string"),
    "unknown section": ("section: gossip",
                        "section: unknown section 'gossip'; editions.yaml has: "
                        "local, numbers, radar, top"),
    "non-http link": ("links: [{url: 'javascript:alert(1)', publisher: X}]",
                      "links.0.url: link must start with http:// or https://"),
    "ftp link": ("links: [{url: 'ftp://example.org/f', publisher: X}]",
                 "links.0.url: link must start with http:// or https://"),
    # An empty field says what to write there, from its docstring (not "Input should be a
    # valid string", issue 52): left blank, an empty text, an empty list.
    "empty summary": ("summary:", "summary: empty; write a paragraph in Markdown, in our words; "
                      "facts from the links, never their sentences"),
    "blank headline": ("headline: '  '", "headline: empty; write the headline, in our words"),
    "empty links": ("links: []",
                    "links: empty; write the pages this entry is based on, the first the primary "
                    "source: each the page that states the claim, or the publication and day when "
                    "no page is known"),
    "bad language": ("links: [{url: 'https://e.org', publisher: X, language: English}]",
                     "links.0.language: String should match pattern "
                     "'^[a-z]{2,3}(-[A-Za-z0-9]+)*$' (got 'English')"),
}


@pytest.mark.parametrize("case", CASES)
def test_field_problem(tiny: Path, case: str) -> None:
    override, expected = CASES[case]
    key = override.split(":")[0]
    base = {
        "date": "2026-09-10", "section": "top", "headline": "H", "summary": "S",
        "links": "[{url: 'https://example.org', publisher: X}]",
    }
    body = "\n".join(f"{k}: {v}" for k, v in base.items() if k != key) + "\n" + override + "\n"
    write_entry(tiny, "2026-09-10", "case", body=body)
    assert problems_of(tiny) == [f"sources/entries/2026/09-10-case.yaml: {expected}"]


def test_duplicate_ids(tiny: Path) -> None:
    write_entry(tiny, "2026-09-11", "early-news")
    assert problems_of(tiny) == [
        "sources/entries/2026/09-11-early-news.yaml: id: duplicate entry id 'early-news' "
        "(also used by sources/entries/2026/09-01-early-news.yaml)"]


def test_explicit_duplicate_id(tiny: Path) -> None:
    write_entry(tiny, "2026-09-11", "other", body="id: boundary-news\ndate: 2026-09-11\n"
                "section: top\nheadline: H\nsummary: S\nlinks: [{url: 'https://e.org', publisher: X}]\n")
    assert problems_of(tiny) == [
        "sources/entries/2026/09-11-other.yaml: id: duplicate entry id 'boundary-news' "
        "(also used by sources/entries/2026/09-05-boundary-news.yaml)"]


def test_empty_file(tiny: Path) -> None:
    write_entry(tiny, "2026-09-10", "empty", body="# nothing yet\n")
    assert problems_of(tiny) == ["sources/entries/2026/09-10-empty.yaml: the file is empty"]


def test_not_utf8(tiny: Path) -> None:
    path = write_entry(tiny, "2026-09-10", "latin1")
    path.write_bytes("date: 2026-09-10\nheadline: Caf\u00e9\n".encode("latin-1"))
    assert problems_of(tiny) == [
        "sources/entries/2026/09-10-latin1.yaml:2: not valid UTF-8 (byte 30, line 2); "
        "save the file as UTF-8"]


def test_yaml_syntax_error_has_line_and_column(tiny: Path) -> None:
    write_entry(tiny, "2026-09-10", "broken", body="date: 2026-09-10\nheadline: [unclosed\n")
    (problem,) = problems_of(tiny)
    assert problem.startswith("sources/entries/2026/09-10-broken.yaml:3: YAML syntax error at "
                              "line 3, column 1:")


def test_norway_no_and_off_stay_strings(tiny: Path) -> None:
    # YAML 1.1 would read `no` as false; we read it as the language code it is.
    write_entry(tiny, "2026-09-10", "norway", body="""\
        date: 2026-09-10
        section: top
        headline: off
        summary: S
        links: [{url: 'https://e.org', publisher: X, language: no, region: off}]
        """)
    entry = next(c.entry for c in load_sources(tiny).entries if c.id == "norway")
    assert entry.headline == "off"
    assert entry.links[0].language == "no" and entry.links[0].region == "off"


def test_duplicate_key(tiny: Path) -> None:
    write_entry(tiny, "2026-09-10", "dupkey", body="date: 2026-09-10\nsection: top\nheadline: A\n"
                "headline: B\nsummary: S\nlinks: [{url: 'https://e.org', publisher: X}]\n")
    assert problems_of(tiny) == [
        "sources/entries/2026/09-10-dupkey.yaml: headline: key appears twice (lines 3 and 4); "
        "keep one"]


def test_file_name_must_match_date(tiny: Path) -> None:
    path = write_entry(tiny, "2026-09-10", "moved")
    path.rename(path.with_name("09-11-moved.yaml"))
    assert problems_of(tiny) == [
        "sources/entries/2026/09-11-moved.yaml: date: the file should be named "
        "2026/09-10-<slug>.yaml for date 2026-09-10"]


def test_top_level_must_be_mapping(tiny: Path) -> None:
    write_entry(tiny, "2026-09-10", "list", body="- a\n- b\n")
    assert problems_of(tiny) == ["sources/entries/2026/09-10-list.yaml:1: expected a mapping of "
                                 "keys to values at the top, found list"]


def test_every_problem_collected_across_files(tiny: Path) -> None:
    write_entry(tiny, "2026-09-10", "one", body="date: nope\n")
    write_entry(tiny, "2026-09-11", "two", body="")
    found = problems_of(tiny)
    assert len(found) == 6  # one: date, section, headline, summary, links; two: empty
    assert found[-1] == "sources/entries/2026/09-11-two.yaml: the file is empty"


LATE = ("sources/entries/2026/09-13-too-late.yaml: date: warning: 2026-09-13 is after the last "
        "edition (2026-09-12), so this entry will appear in no edition; add an edition date on or "
        "after 2026-09-13 to `dates:` in sources/editions.yaml")


def test_entry_after_the_last_edition_warns(tiny: Path) -> None:
    # The tiny series' editions are 2026-09-05 and 2026-09-12; `too-late` is dated 09-13.
    assert [str(p) for p in load_sources(tiny).warnings] == [LATE]
    with pytest.raises(SourceError) as info:
        load_sources(tiny, strict=True)
    assert [str(p) for p in info.value.problems] == [LATE.replace("warning: ", "")]


def test_an_edition_date_on_or_after_the_entry_clears_the_warning(tiny: Path) -> None:
    series = tiny / "sources" / "editions.yaml"
    series.write_text(series.read_text().replace("2026-09-12]", "2026-09-12, 2026-09-13]"))
    assert load_sources(tiny, strict=True).warnings == []


def test_a_cadence_warns_only_when_it_ends(tiny: Path) -> None:
    series = tiny / "sources" / "editions.yaml"
    text = series.read_text()
    series.write_text(text.replace("dates: [2026-09-05, 2026-09-12]",
                                   "cadence: {start: 2026-09-05, every_days: 7}"))
    assert load_sources(tiny, strict=True).warnings == []  # no `until`: editions go on
    series.write_text(text.replace("dates: [2026-09-05, 2026-09-12]",
                                   "cadence: {start: 2026-09-05, every_days: 7, until: 2026-09-12}"))
    assert [str(p) for p in load_sources(tiny).warnings] == [
        "sources/entries/2026/09-13-too-late.yaml: date: warning: 2026-09-13 is after the last "
        "edition (2026-09-12), so this entry will appear in no edition; move `cadence.until` to "
        "2026-09-13 or later in sources/editions.yaml"]


def test_every_bundled_entry_falls_in_an_edition() -> None:
    import yaml
    from conftest import REPO

    # Read straight from the files: the last date in editions.yaml, and each entry's date.
    last = max(yaml.safe_load((REPO / "sources" / "editions.yaml").read_text())["dates"])
    dates = [yaml.safe_load(p.read_text())["date"]
             for p in (REPO / "sources" / "entries").rglob("*.yaml")]
    assert dates and max(dates) <= last
    assert [p for p in load_sources(REPO).warnings if "last edition" in p.message] == []


def test_a_symlink_leading_out_of_the_repository_is_refused(tiny: Path, tmp_path: Path) -> None:
    # Issue 37: a link under sources/ to a file outside was followed and published.
    secret = tmp_path / "outside.yaml"
    secret.write_text("id: secret\n")
    entries = tiny / "sources" / "entries"
    link = next(entries.rglob("*.yaml")).parent / "leak.yaml"
    link.symlink_to(secret)
    (tiny / "sources" / "dangling").symlink_to(tmp_path / "nothing-here")
    inside = tiny / "notes.yaml"
    inside.write_text("a: 1\n")
    (tiny / "sources" / "inside.yaml").symlink_to(inside)  # inside the repository: read as usual
    rel_link = link.relative_to(tiny).as_posix()
    assert sorted(problems_of(tiny)) == sorted([
        f"sources/dangling: a symbolic link to {tmp_path / 'nothing-here'}, outside the repository "
        "(or to nothing): sources are read only from inside it; put the file itself here",
        f"{rel_link}: a symbolic link to {secret}, outside the repository (or to nothing): sources "
        "are read only from inside it; put the file itself here"])


@pytest.mark.parametrize(("written", "why"), [
    ("1e-400", "1e-400 is too small to be told from 0 (it would read as 0, a free price); write "
               "the figure itself"),
    ("1" + "0" * 400, "10000000000000000000… (401 characters) is beyond the range of numbers "
                      "these files hold; write the figure itself"),
])
def test_a_curated_number_no_float_holds_is_refused(tiny: Path, written: str, why: str) -> None:
    # Issue 37: a curated 1e-400 silently became 0.0, a free price.
    path = tiny / "sources" / "prices" / "acme.yaml"
    path.parent.mkdir()
    path.write_text(f"""provider: acme
name: Acme
lists:
  - currency: USD
    records:
      - model: m
        from: 2026-01-01
        source_url: https://acme.example/pricing
        checked: 2026-01-01
        prices:
          - {{meter: input, price: {written}}}
""")
    assert problems_of(tiny) == [f"sources/prices/acme.yaml: lists.0.records.0.prices.0.price: {why}"]
