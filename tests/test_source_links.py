"""A claim links the page that states it: `brief check` warns on a home-page link (an error with
`--strict`) unless the link is the site itself (`site: true`); a source with no known page is named
by publisher and day, and every Sources list prints it unlinked, escaped (issue 21)."""

from __future__ import annotations

import datetime as dt
import re
from pathlib import Path
from urllib.parse import urlsplit

import pytest
from click.testing import CliRunner
from conftest import REPO, write_entry

from pipeline.cli.main import main
from pipeline.compose.edition import compose_editions
from pipeline.load.sources import load_sources
from pipeline.load.yaml_lines import parse_yaml
from pipeline.render.pages import edition_page, text_edition

PATH = "sources/entries/2026/09-10-case.yaml"
HEAD = "date: 2026-09-10\nsection: top\nheadline: Case\nsummary: A case.\nlinks:\n"
HOME_PAGE = ("is a home page, not the page that states the claim: link that page; if none is "
             "known, replace `url` with `published: YYYY-MM-DD` (the day the publisher stated it); "
             "if the link is the site itself (a dashboard, a catalogue), add `site: true`")


def check(root: Path, *args: str) -> tuple[int, list[str]]:
    """Run `brief check`; return its exit code and the lines naming the case's file."""
    result = CliRunner().invoke(main, ["check", "--root", str(root), *args])
    return result.exit_code, [line for line in result.output.splitlines() if PATH in line]


@pytest.mark.parametrize("url", ["https://www.sohu.com/", "https://www.sohu.com",
                                 "http://example.org/"])
def test_home_page_link_warns_and_fails_strict(tiny: Path, url: str) -> None:
    write_entry(tiny, "2026-09-10", "case", body=HEAD + f"  - url: {url}\n    publisher: Sohu\n")
    # pydantic writes a bare host with its `/`, so both spellings are reported alike.
    shown = url if url.endswith("/") else url + "/"
    expected = f"{PATH}:6:1: links.0.url: warning: {shown} {HOME_PAGE}"
    assert check(tiny) == (0, [expected])
    assert check(tiny, "--strict") == (1, [expected.replace("warning: ", "")])
    code, lines = check(tiny, "--format", "github")
    assert code == 0 and lines == [f"::warning file={PATH},line=6,title=links.0.url::{shown} "
                                   f"{HOME_PAGE}"]


@pytest.mark.parametrize("link", [
    "  - url: https://models.dev/\n    site: true\n    publisher: models.dev\n",
    "  - url: https://www.sohu.com/a/123\n    publisher: Sohu\n",
    "  - url: https://example.org/?p=123\n    publisher: Example\n",
    "  - publisher: Sohu\n    published: 2026-09-10\n",
])
def test_article_site_or_named_source_passes_strict(tiny: Path, link: str) -> None:
    write_entry(tiny, "2026-09-10", "case", body=HEAD + link)
    assert check(tiny, "--strict")[1] == []


@pytest.mark.parametrize(("link", "message"), [
    ("  - publisher: Sohu\n", "links.0: give the `url` of the page that states the claim; when "
     "no such page is known, give the day the publisher stated it instead (`published: "
     "YYYY-MM-DD`)"),
    ("  - publisher: Sohu\n    site: true\n    published: 2026-09-10\n",
     "links.0: `site: true` marks a link to a site's home page; give its `url`"),
])
def test_a_source_needs_a_page_or_a_day(tiny: Path, link: str, message: str) -> None:
    write_entry(tiny, "2026-09-10", "case", body=HEAD + link)
    assert check(tiny) == (1, [f"{PATH}:6:1: {message}"])


def test_named_source_is_listed_unlinked_and_escaped(tiny: Path) -> None:
    write_entry(tiny, "2026-09-10", "case", body=HEAD + (
        "  - url: https://example.org/a\n    publisher: Example\n"
        "  - publisher: 'Sohu <b>&amp;</b>'\n    published: 2026-09-11\n"))
    editions = compose_editions(load_sources(tiny), [dt.date(2026, 9, 5), dt.date(2026, 9, 12)])
    edition = editions[1]
    text = text_edition(edition)
    sources = text[text.index("\nSources\n"):].splitlines()
    # Top developments lists the tiny tree's 09-06 entry first, then ours with its two sources.
    assert sources[3:6] == ["[1] Example News: https://example.org/after-boundary",
                            "[2] Example: https://example.org/a", "[3] Sohu <b>&amp;</b>, 2026-09-11"]
    page = edition_page(edition, load_sources(tiny).series, following=None, home=False)
    assert ('<li id="src-3">Sohu &lt;b&gt;&amp;amp;&lt;/b&gt;, 2026-09-11</li>') in page
    # The story's marker points at that item, like any other source's.
    story = page[page.index("### Case"):page.index("## Local view")]
    assert "<sup>[2](#src-2)</sup> <sup>[3](#src-3)</sup>" in story


def test_named_source_in_the_built_page_and_e_mail(tiny: Path, tmp_path: Path) -> None:
    write_entry(tiny, "2026-09-10", "case", body=HEAD + "  - publisher: 'Sohu <i>x</i>'\n"
                "    published: 2026-09-11\n")
    out = tmp_path / "public"
    result = CliRunner().invoke(main, ["build", "--root", str(tiny), "--out", str(out),
                                       "--today", "2026-11-30"])
    assert result.exit_code == 0, result.output
    for page in ("briefings/2026-09-12/index.html", "briefings/2026-09-12/email.html"):
        html = (out / page).read_text(encoding="utf-8")
        assert "Sohu &lt;i&gt;x&lt;/i&gt;, 2026-09-11</li>" in html, page
        assert "<i>x</i>" not in html, page


def bundled_links() -> list[tuple[str, dict]]:
    found = []
    for path in sorted((REPO / "sources" / "entries").rglob("*.yaml")):
        doc, _, problems = parse_yaml(path.read_bytes(), path.name)
        assert problems == []
        found += [(path.name, link) for link in doc["links"]]
    return found


def test_bundled_links_state_their_claims() -> None:
    # Read straight from the files, not through the check under test.
    home_pages = [(name, link["url"]) for name, link in bundled_links() if "url" in link
                  and urlsplit(link["url"]).path in ("", "/") and not link.get("site")]
    assert home_pages == []
    sites = sorted({link["url"] for _, link in bundled_links() if link.get("site")})
    assert sites == ["https://inferencex.semianalysis.com/", "https://models.dev/"]
    named = sorted({(link["publisher"], link["published"]) for _, link in bundled_links()
                    if "url" not in link})
    assert named == [("CSDN", "2026-09-12"), ("SemiAnalysis", "2026-02-16"),
                     ("SemiAnalysis", "2026-09-12"), ("Sohu", "2026-09-12"),
                     ("Yotta Labs", "2026-09-12"), ("d-Matrix", "2026-09-12")]


def test_bundled_sources_pass_strict() -> None:
    result = CliRunner().invoke(main, ["check", "--root", str(REPO), "--strict"])
    assert result.exit_code == 0, result.output
    assert re.fullmatch(r"0 problems; \d+ entries checked\.\n", result.output), result.output


def test_named_source_in_the_radar_calendar(tiny: Path) -> None:
    from pipeline.render.ics import radar_calendar

    write_entry(tiny, "2026-09-10", "case", body="event_date: 2026-10-01\n" + HEAD.replace(
        "section: top", "section: radar") + "  - publisher: Sohu\n    published: 2026-09-11\n")
    sources = load_sources(tiny)
    editions = compose_editions(sources, [dt.date(2026, 9, 5), dt.date(2026, 9, 12)])
    ics = radar_calendar(editions, sources.series).decode()
    unfolded = ics.replace("\r\n ", "")
    assert "Sources: Sohu\\, 2026-09-11" in unfolded  # RFC 5545 escapes the comma
