"""Every channel of an edition: Atom and JSON feeds, e-mail, radar calendar, Data page, stability."""

from __future__ import annotations

import datetime as dt
import email
import email.policy
import hashlib
import io
import json
import re
from pathlib import Path

import feedparser
import icalendar
import pytest
import yaml
from click.testing import CliRunner
from conftest import REPO, tree_digest, write_entry
from PIL import Image
from test_xss_feeds import payloads

from pipeline.cache.store import Store
from pipeline.cli.main import main
from pipeline.compose.edition import compose_editions
from pipeline.compose.types import Citation, Edition, RadarItem, SectionContent
from pipeline.load.sources import load_sources
from pipeline.orchestrate.charts import ChartCache
from pipeline.orchestrate.files import site_files
from pipeline.orchestrate.site import build_site
from pipeline.problems import BuildError
from pipeline.render.datasets import DATA_FILES, Column, DataFile, published_data
from pipeline.render.escape import plain_text
from pipeline.render.ics import radar_calendar
from pipeline.render.markdown_html import EXTENSIONS

TODAY = dt.date(2026, 11, 30)
BUNDLED_DATES = ["2026-08-21", "2026-09-04", "2026-09-12", "2026-09-25", "2026-10-16", "2026-11-20"]
SITE = "https://inference-brief.github.io/inference-brief/"
D = dt.date.fromisoformat


# Feeds ---------------------------------------------------------------------------------------

def test_atom_feed_parses_with_the_required_fields(bundled_site: Path) -> None:
    d = feedparser.parse((bundled_site / "feed.xml").read_bytes())
    assert d.version == "atom10" and not d.bozo
    # RFC 4287 §4.1.1: a feed has id, title, updated, and an author (here at feed level).
    assert d.feed.id == SITE and d.feed.title and d.feed.updated == "2026-11-20T00:00:00Z"
    assert d.feed.author and any(link.rel == "self" for link in d.feed.links)
    assert [e.id for e in d.entries] == [f"{SITE}briefings/{day}/" for day in
                                         reversed(BUNDLED_DATES)]
    for entry in d.entries:
        # §4.1.2: each entry has id, title, updated; content here, full text.
        assert entry.title and entry.updated and entry.link == entry.id
        assert entry.content[0].type == "text/html"
        assert "<h2" in entry.content[0].value and "Sources" in entry.content[0].value
    # Links inside the content are absolute: a feed reader has no page to resolve them against.
    assert not re.search(r'(?:href|src)="(?!https?://|#)', d.entries[0].content[0].value)


def test_json_feed_has_the_required_fields(bundled_site: Path) -> None:
    # feedparser 6.0 reads no JSON Feed (support is unreleased), so check the 1.1 spec's
    # required and recommended fields directly.
    doc = json.loads((bundled_site / "feed.json").read_bytes())
    assert doc["version"] == "https://jsonfeed.org/version/1.1"
    assert doc["title"] and doc["home_page_url"] == SITE and doc["feed_url"] == f"{SITE}feed.json"
    assert [i["id"] for i in doc["items"]] == [f"{SITE}briefings/{d}/" for d in reversed(BUNDLED_DATES)]
    for item in doc["items"]:
        assert isinstance(item["id"], str) and item["url"] == item["id"]
        assert item["content_html"] and item["content_text"]
        assert re.fullmatch(r"\d{4}-\d\d-\d\dT00:00:00Z", item["date_modified"])
    atom = feedparser.parse((bundled_site / "feed.xml").read_bytes())
    # feedparser re-serializes void elements (`<img … />` → `<img …>`); the content is the same.
    def same(html: str) -> str:
        return html.replace(" />", ">")
    assert same(doc["items"][0]["content_html"]) == same(atom.entries[0].content[0].value)


def test_feeds_are_linked_from_every_page(bundled_site: Path) -> None:
    for page in ("index.html", "archive/index.html", "about/index.html", "data/index.html",
                 "briefings/2026-09-12/index.html"):
        head = (bundled_site / page).read_text().split("</head>")[0]
        assert 'type="application/atom+xml"' in head and 'feed.xml"' in head, page
        assert 'type="application/feed+json"' in head, page


# E-mail ---------------------------------------------------------------------------------------

def test_email_html_is_for_mail_clients(bundled_site: Path) -> None:
    page = (bundled_site / "briefings" / "2026-09-12" / "email.html").read_text()
    assert "<script" not in page.lower() and 'rel="stylesheet"' not in page
    assert 'role="presentation"' in page and 'style="' in page  # tables, CSS inlined
    assert "@media (prefers-color-scheme: dark)" in page  # at-rules kept for clients that read them
    assert not re.search(r'(?:href|src)="(?!https?://|#)', page)
    assert "— 2026-09-12</h1>" in page and "Top developments" in page
    assert "2026-09-25" not in page  # no "next edition" link: a sent mail never changes


def test_brief_email_writes_a_multipart_message(tmp_path: Path, bundled_site: Path) -> None:
    out = tmp_path / "e.eml"
    result = CliRunner().invoke(main, ["email", "2026-09-12", "--root", str(REPO),
                                       "--out", str(out), "--to", "reader@example.org"])
    assert result.exit_code == 0, result.output
    raw = out.read_bytes()
    assert b"\r\n" in raw and b"\n" not in raw.replace(b"\r\n", b"")
    msg = email.message_from_bytes(raw, policy=email.policy.default)
    assert msg.get_content_type() == "multipart/alternative"
    assert msg["Date"] == "Sat, 12 Sep 2026 00:00:00 +0000"
    # Unique per edition and recipient: a hash of the address, never the address.
    reader = hashlib.sha256(b"reader@example.org").hexdigest()[:20]
    assert msg["Message-ID"].strip() == f"<briefing-2026-09-12-{reader}@inference-brief.github.io>"
    assert msg["To"] == "reader@example.org"
    # The date and the lead story: editions told apart in an inbox.
    assert msg["Subject"] == "2026-09-12: DeepSeek takes Flash prices close to zero"
    text = msg.get_body(("plain",)).get_content().replace("\r\n", "\n")
    html = msg.get_body(("html",)).get_content().replace("\r\n", "\n")
    # The text edition, wrapped at 76 columns (a web address is never broken), then how to leave.
    site_text = (bundled_site / "briefings" / "2026-09-12.txt").read_text()
    assert " ".join(text.split()) == " ".join(site_text.split()) + (
        ' To unsubscribe, write to unsubscribe@inference-brief.github.io with the subject '
        '"unsubscribe".')
    assert all(len(line) <= 76 or " " not in line.strip() for line in text.splitlines())
    # The HTML of the site's e-mail page, but for its charts: each the PNG drawn for the mail,
    # an inline part, where the site's page shows the SVG (mail clients do not show SVG).
    images = [p for p in msg.walk() if p.get_content_type() == "image/png"]
    assert [p.get_filename() for p in images] == ["tokens-per-dollar-chat-3-1-2026-09-12.png"]
    for part in images:
        with Image.open(io.BytesIO(part.get_content())) as png:
            assert png.format == "PNG" and png.size == (500, 528)
        cid = part["Content-ID"].strip().strip("<>")
        assert html.count(f'src="cid:{cid}"') == 1
        html = html.replace(f"cid:{cid}", f"{SITE}charts/{part.get_filename()[:-4]}.svg")
    assert html == (bundled_site / "briefings" / "2026-09-12" / "email.html").read_text()
    again = tmp_path / "again.eml"
    CliRunner().invoke(main, ["email", "2026-09-12", "--root", str(REPO), "--out", str(again),
                              "--to", "reader@example.org"])
    assert again.read_bytes() == raw


def test_the_site_publishes_its_charts_as_svg_only(bundled_site: Path) -> None:
    # A chart's PNG is drawn only when an e-mail is made; the site's pages, its e-mail pages
    # and the feeds show the SVG, by its absolute URL away from the site.
    assert list((bundled_site / "charts").glob("*.svg"))
    assert not list((bundled_site / "charts").rglob("*.png"))
    assert sorted(p.name for p in (bundled_site / "charts").glob("tokens-per-dollar-*")) == [
        f"tokens-per-dollar-chat-3-1-{day}.svg" for day in BUNDLED_DATES]
    for path in ("feed.xml", "feed.json", "feed-prices.xml", "feed-prices.json",
                 "briefings/2026-09-12/email.html"):
        text = (bundled_site / path).read_text()
        assert "charts/tokens-per-dollar-chat-3-1-2026-09-12.png" not in text, path
        assert f"{SITE}charts/tokens-per-dollar-chat-3-1-2026-09-12.svg" in text, path


def test_brief_email_refuses_a_day_without_edition() -> None:
    result = CliRunner().invoke(main, ["email", "2026-09-13", "--root", str(REPO)])
    assert result.exit_code == 1
    assert result.output == ("error: 2026-09-13 is not an edition date (latest editions up to "
                             "it: 2026-08-21, 2026-09-04, 2026-09-12)\n")


# Calendar -------------------------------------------------------------------------------------

def _lines_are_rfc5545(raw: bytes) -> None:
    """CRLF only, and every physical line within 75 octets (RFC 5545 §3.1)."""
    assert raw.endswith(b"\r\n") and b"\n" not in raw.replace(b"\r\n", b"")
    assert all(len(line) <= 75 for line in raw.split(b"\r\n"))


def test_radar_calendar_is_rfc5545(bundled_site: Path) -> None:
    # Every calendar the build writes, read back by icalendar's parser (not by our writer's code).
    found = sorted(bundled_site.rglob("*.ics"))
    assert [p.relative_to(bundled_site).as_posix() for p in found] == ["radar.ics"]
    editions = {dt.datetime.combine(D(day), dt.time(), dt.UTC) for day in BUNDLED_DATES}
    for path in found:
        raw = path.read_bytes()
        _lines_are_rfc5545(raw)
        calendar = icalendar.Calendar.from_ical(raw)
        assert calendar["VERSION"] == "2.0" and calendar["PRODID"] and not calendar.errors
        # An X- property is read back as written: TEXT, its commas escaped.
        assert calendar["X-WR-CALNAME"].to_ical() == (b"Inference Efficiency: MLPerf\\, Tokens "
                                                      b"per Dollar\\, Hardware: on the radar")
        events = calendar.walk("VEVENT")
        assert events and all(not e.errors for e in events)
        uids = [str(e["UID"]) for e in events]
        assert len(set(uids)) == len(uids)  # §3.8.4.7: unique
        for e in events:
            assert {"UID", "DTSTAMP", "DTSTART", "DTEND", "SUMMARY", "URL"} <= set(e)
            # All-day: a DATE, ending the next day; stamped at an edition's midnight UTC, never
            # at the build's time (the session builds on 2026-11-30, no edition date).
            assert type(e.start) is dt.date and e.end == e.start + dt.timedelta(days=1)
            assert e.DTSTAMP in editions
            assert str(e["URL"]).startswith(f"{SITE}briefings/")
    # An editor's entry: its UID is its id (stable across builds and editions), stamped with
    # the edition that announced it.
    calendar = icalendar.Calendar.from_ical((bundled_site / "radar.ics").read_bytes())
    (intro,) = [e for e in calendar.walk("VEVENT")
                if e["UID"] == "sonnet-5-intro-price-ends@inference-brief.github.io"]
    assert dt.datetime(2026, 8, 21, tzinfo=dt.UTC) == intro.DTSTAMP
    assert (intro.start, intro.end) == (D("2026-09-01"), D("2026-09-02"))
    assert intro["SUMMARY"] == "Claude Sonnet 5's introductory price ends"
    assert intro["URL"] == f"{SITE}briefings/2026-08-21/"


def test_hostile_text_stays_inside_its_calendar_property(real_data: Path) -> None:
    # Third-party text (the XSS vectors, and lines that try to start properties and events of
    # their own) as the label and text of radar items: read back, each is one event whose
    # SUMMARY and DESCRIPTION are exactly the text, and nothing else came in.
    injections = ["x\r\nEND:VEVENT\r\nBEGIN:VEVENT\r\nUID:evil", "a;b,c\\d:e\nURL:javascript:x",
                  "价格" * 60, "€😀" * 40 + ";" * 30]
    texts = [p for p in payloads(real_data) if p.strip()] + injections
    series = load_sources(REPO).series
    due = D("2027-01-01")
    items = tuple(RadarItem(label=text, text_md=text, due=due, id=f"item-{n}",
                            citations=(Citation("P, Inc.; x", "", "sources/x.yaml", "",
                                                D("2026-09-01")),))
                  for n, text in enumerate(texts))
    edition = Edition(D("2026-09-12"), "t", None, (SectionContent("radar", "Radar", items),))
    raw = radar_calendar([edition], series)
    _lines_are_rfc5545(raw)
    events = icalendar.Calendar.from_ical(raw).walk("VEVENT")
    keys = sorted(f"item-{n}" for n in range(len(texts)))  # one day: in the order of the ids
    assert [str(e["UID"]) for e in events] == [f"{k}@inference-brief.github.io" for k in keys]
    for event in events:
        text = texts[int(str(event["UID"]).split("@")[0].removeprefix("item-"))]
        assert set(event) == {"UID", "DTSTAMP", "DTSTART", "DTEND", "SUMMARY", "DESCRIPTION",
                              "URL", "TRANSP"}
        assert event["SUMMARY"] == plain_text(text)
        assert event["DESCRIPTION"] == plain_text(text) + " Sources: P, Inc.; x, 2026-09-01"
    assert radar_calendar([edition], series) == raw  # the same bytes on every build


# Data page -------------------------------------------------------------------------------------

def test_every_listed_data_file_is_published(bundled_site: Path) -> None:
    page = (bundled_site / "data" / "index.html").read_text()
    for d in DATA_FILES:
        assert (bundled_site / d.path).is_file(), d.path
        assert d.title in page and all(f"<code>{c.name}</code>" in page for c in d.columns)
    header = (bundled_site / "data" / "editions.csv").read_text().splitlines()[0]
    declared = next(d for d in DATA_FILES if d.path == "data/editions.csv")
    assert header.split(",") == [c.name for c in declared.columns]
    # The Data page is reached from the home page and from every edition page.
    assert 'href="data/"' in (bundled_site / "index.html").read_text()
    edition = (bundled_site / "briefings" / "2026-09-12" / "index.html").read_text()
    assert 'href="../../data/"' in edition
    # The per-edition chart CSVs appear once, as their pattern, shown as written (not as a tag).
    assert page.count("<code>data/tokens-per-dollar-chat-3-1-&lt;YYYY-MM-DD&gt;.csv</code>") == 1
    assert "tokens-per-dollar-chat-3-1-2026-" not in page


def csv_of(d: DataFile) -> bytes:
    """A CSV with the declared header and no rows."""
    return (",".join(c.name for c in d.columns) + "\n").encode()


UNDECLARED = ("written under data/ but not declared in DATA_FILES (so the Data page would not "
              "describe it): ")

CHART_CSVS = DataFile("data/chart-<YYYY-MM-DD>.csv", "Behind each chart", "One per edition.",
                      (Column("Model", "The model."), Column("Value", "Its value.")))


def test_data_registry_and_files_must_agree() -> None:
    extra = DataFile("data/prices.csv", "Prices", "x", ())
    files = {d.path: csv_of(d) for d in DATA_FILES}
    assert published_data(files) == tuple(sorted(DATA_FILES, key=lambda d: d.path))
    # A declared file this tree does not write (no prices here) is simply not listed.
    assert extra not in published_data(files, DATA_FILES + (extra,))
    with pytest.raises(BuildError) as stray:
        published_data({**files, "data/stray.json": b"{}"})
    assert str(stray.value) == UNDECLARED + "data/stray.json"


def test_a_family_is_listed_once_and_only_with_files() -> None:
    files = {d.path: csv_of(d) for d in DATA_FILES}
    declared = DATA_FILES + (CHART_CSVS,)
    # No file of the family in this tree: it is not listed.
    assert CHART_CSVS not in published_data(files, declared)
    members = {f"data/chart-2026-09-{day}.csv": csv_of(CHART_CSVS) for day in ("05", "12", "19")}
    assert published_data({**files, **members}, declared).count(CHART_CSVS) == 1
    # Only a date stands for <YYYY-MM-DD>: a file named otherwise is still undeclared.
    with pytest.raises(BuildError) as stray:
        published_data({**files, **members, "data/chart-latest.csv": csv_of(CHART_CSVS)},
                       declared)
    assert str(stray.value) == UNDECLARED + "data/chart-latest.csv"


def test_a_csv_must_have_the_columns_it_is_declared_with() -> None:
    # One description stands for every file of a family, so each file's header is checked.
    files = {**{d.path: csv_of(d) for d in DATA_FILES},
             "data/chart-2026-09-05.csv": csv_of(CHART_CSVS),
             "data/chart-2026-09-12.csv": b"Model,Price\nA,1\n"}
    with pytest.raises(BuildError) as wrong:
        published_data(files, DATA_FILES + (CHART_CSVS,))
    assert str(wrong.value) == (
        "data/chart-2026-09-12.csv: its header is Model, Price but its declaration "
        "(data/chart-<YYYY-MM-DD>.csv) describes the columns Model, Value; make the two agree, "
        "so the Data page describes the file truly")


def test_a_family_pattern_takes_only_known_placeholders() -> None:
    with pytest.raises(ValueError, match="unknown placeholder <profile>"):
        DataFile("data/chart-<profile>.csv", "x", "x", ())


def bundled_files(root: Path, charts: ChartCache) -> dict[str, bytes]:
    """Every generated file of `root`'s site as of the test day (no mkdocs); the page families'
    values kept beside the charts, in their store (by what each reads), for the next call."""
    sources = load_sources(root)
    return site_files(sources, compose_editions(sources, sources.series.edition_dates(TODAY)),
                      store=charts.store, charts=charts)


def test_data_page_is_the_same_after_a_new_edition(copy_few_models_sources) -> None:
    # Issue 8: a page that changes with every edition is converted and indexed on every build.
    # Few catalogue models: every data file the bundled sources make, ~120 model pages rendered
    # twice instead of ~1,600.
    root = copy_few_models_sources()
    # The families the new edition leaves unread (the Market, the model pages) are not
    # computed again (one in-memory store, kept between the two calls, as a build keeps one).
    charts = ChartCache(Store(None, {}))
    before = bundled_files(root, charts)
    page = before["data.md"].decode()
    per_edition = [p for p in before if p.startswith("data/tokens-per-dollar-")]
    assert len(per_edition) == len(BUNDLED_DATES)
    assert not [p for p in per_edition if p in page]
    assert page.count("## Tokens per dollar behind each edition's chart") == 1
    assert page.count("`data/tokens-per-dollar-chat-3-1-<YYYY-MM-DD>.csv`") == 1
    assert "| `Model` |" in page and "| `Million tokens per USD` |" in page

    series = root / "sources" / "editions.yaml"
    series.write_text(series.read_text().replace("  - 2026-11-20\n",
                                                 "  - 2026-11-20\n  - 2026-11-27\n"))
    write_entry(root, "2026-11-25", "new-edition-story", headline="A story of the new edition")
    after = bundled_files(root, charts)
    assert "data/tokens-per-dollar-chat-3-1-2026-11-27.csv" in after
    assert after["data.md"] == before["data.md"]


def test_feed_html_uses_the_sites_markdown_extensions() -> None:
    config = yaml.safe_load((REPO / "site" / "mkdocs.yml").read_text())
    names = [next(iter(x)) if isinstance(x, dict) else x for x in config["markdown_extensions"]]
    assert tuple(names) == EXTENSIONS


# Stability and corrections ----------------------------------------------------------------------

CORRECTED = """\
date: 2026-09-06
section: top
headline: After Boundary
summary: A short paragraph about After Boundary.
links:
  - url: https://example.org/after-boundary
    publisher: Example News
corrections:
  - date: 2026-10-03
    note: The price was per million output tokens, not input tokens.
"""


def test_a_later_entry_leaves_earlier_editions_as_they_were(tiny: Path, tmp_path: Path) -> None:
    build_site(tiny, tmp_path / "before", today=TODAY)
    write_entry(tiny, "2026-09-10", "later-price-change", section="numbers",
                headline="Later price change")
    build_site(tiny, tmp_path / "after", today=TODAY)
    before, after = tree_digest(tmp_path / "before"), tree_digest(tmp_path / "after")
    for path in ("briefings/2026-09-05/index.html", "briefings/2026-09-05.txt",
                 "briefings/2026-09-05/email.html"):
        assert before[path] == after[path], path
    assert before["briefings/2026-09-12/index.html"] != after["briefings/2026-09-12/index.html"]
    feed = lambda root: {e.id: (e.updated, e.content[0].value) for e in
                         feedparser.parse((root / "feed.xml").read_bytes()).entries}
    old, new = feed(tmp_path / "before"), feed(tmp_path / "after")
    key = "https://example.org/brief/briefings/2026-09-05/"
    assert old[key] == new[key]


def test_a_correction_shows_on_the_edition_and_moves_its_feed_entry(tiny: Path,
                                                                    tmp_path: Path) -> None:
    build_site(tiny, tmp_path / "before", today=TODAY)
    write_entry(tiny, "2026-09-06", "after-boundary", body=CORRECTED)
    build_site(tiny, tmp_path / "after", today=TODAY)
    page = (tmp_path / "after" / "briefings" / "2026-09-12" / "index.html").read_text()
    assert "Correction, 2026-10-03" in page
    assert "The price was per million output tokens, not input tokens." in page
    updated = lambda root: {e.id: e.updated for e in
                            feedparser.parse((root / "feed.xml").read_bytes()).entries}
    key = "https://example.org/brief/briefings/2026-09-12/"
    assert updated(tmp_path / "before")[key] == "2026-09-12T00:00:00Z"
    assert updated(tmp_path / "after")[key] == "2026-10-03T00:00:00Z"
    doc = json.loads((tmp_path / "after" / "feed.json").read_bytes())
    assert doc["items"][0]["date_modified"] == "2026-10-03T00:00:00Z"
    assert doc["items"][0]["date_published"] == "2026-09-12T00:00:00Z"


def test_two_builds_give_identical_charts_and_feeds(tmp_path: Path, bundled_site: Path) -> None:
    # A second build, without the chart cache of the first (a fresh root), must match it.
    other = build_site(REPO, tmp_path / "again", today=TODAY).out
    for path in ("charts/editions-per-month.svg",
                 "data/editions-per-month.csv", "data/editions.csv", "feed.xml", "feed.json",
                 "radar.ics", "briefings/2026-09-12/email.html"):
        assert (bundled_site / path).read_bytes() == (other / path).read_bytes(), path
