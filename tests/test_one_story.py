"""One story per edition (issue 36): a price move in a list no blend quotes reads the same on
every page that tells it, and no edition says "no move" of a model whose prices moved."""

from __future__ import annotations

import datetime as dt
import html
import re
from pathlib import Path

import pandas as pd

from pipeline.compose.edition import compose_editions, edition_inputs, windows
from pipeline.compose.edition_tables import FIRST_EDITION_LOOKBACK, EditionTables
from pipeline.load.sources import load_sources
from pipeline.render.changes_page import changes_files
from pipeline.tables.catalogue_history import CHANGE_COLUMNS, day_changes
from pipeline.tables.catalogue_records import committed_moves
from pipeline.tables.cost import day_end

REPO = Path(__file__).resolve().parents[1]

# The CNY record of 2026-09-10 against the USD record of 2026-08-16: ¥0.10 / 6.7063 = $0.01491
# against $0.44 (−96.6 %), ¥0.02 / 6.7063 = $0.002982 against $0.007 (−57.4 %).
COMPARISON = ("input, peak: $0.44 (USD list) → ¥0.10 ≈ $0.0149 (CNY list), ≈ −97 %; "
              "cached input, off-peak: $0.007 (USD list) → ¥0.02 ≈ $0.00298 (CNY list), ≈ −57 %, "
              "at the ECB rate of 2026-09-10 (6.7063 CNY per USD)")
WHY = ("no blended price comes from it: the CNY record gives only cached input and input prices "
       "(no output price), and the blends quote DeepSeek's USD list, unchanged since 2026-08-16")
SENTENCE = f"DeepSeek deepseek-v4-flash: CNY list cut on 2026-09-10 ({COMPARISON}); {WHY}."


def _text(page: Path) -> str:
    """The visible text of a built page, tags dropped, entities read, spaces joined."""
    raw = page.read_text()
    raw = raw[raw.index("<article"):raw.index("</article>")]
    raw = re.sub(r"</?(?:strong|em|a|code|small|span)\b[^>]*>", "", raw)  # inline: no space
    return re.sub(r"\s+", " ", html.unescape(re.sub(r"<[^>]+>", " ", raw)))


def _alts(page: Path) -> list[str]:
    return [html.unescape(a) for a in re.findall(r'<img alt="([^"]*)"', page.read_text())]


def test_the_five_pages_agree_on_the_flash_cut_of_2026_09_10(bundled_site: Path) -> None:
    edition = _text(bundled_site / "briefings/2026-09-12/index.html")
    # The edition's own figure, and the blends' figure naming it instead of "no move".
    assert ("DeepSeek deepseek-v4-flash (CNY list): cut from 2026-09-10: "
            f"{COMPARISON}. {WHY[0].upper()}{WHY[1:]}.") in edition
    assert ("Blended prices since 2026-09-04: No blended price moved across the 16 tracked models "
            "(Chat (3:1 input:output, no cache)). DeepSeek deepseek-v4-flash's prices did move, "
            f"in its CNY list on 2026-09-10 (above), but {WHY}.") in edition
    assert "no move" not in edition.casefold()
    # The chart: the bar marked as moved, its note drawn, the alt text and the CSV telling it.
    chart = [a for a in _alts(bundled_site / "briefings/2026-09-12/index.html")
             if a.startswith("Horizontal bar chart: Most tokens per US dollar")]
    assert len(chart) == 1
    assert chart[0].endswith(
        "Moved since 2026-09-04: DeepSeek deepseek-v4-flash unchanged at 2.508, its prices moved "
        f"in another list: CNY list cut on 2026-09-10 ({COMPARISON}); {WHY}.")
    svg = (bundled_site / "charts/tokens-per-dollar-chat-3-1-2026-09-12.svg").read_text()
    assert "no move since" not in svg and "moved since 2026-09-04" in svg
    assert "2.51 *" in svg and "* DeepSeek deepseek-v4-flash: CNY list cut" in svg
    csv = pd.read_csv(bundled_site / "data/tokens-per-dollar-chat-3-1-2026-09-12.csv")
    noted = csv.set_index("Model")["Moved in a list no blend quotes"].dropna()
    assert noted.to_dict() == {"DeepSeek deepseek-v4-flash": SENTENCE.split(": ", 1)[1][:-1]}
    # The Prices page: the newest record in force in any list, and its story.
    prices = _text(bundled_site / "prices/index.html")
    assert ("The prices in force. The newest of them took effect on 2026-09-10 (UTC): DeepSeek "
            f"deepseek-v4-flash (CNY list). {SENTENCE[:-1]}. Every price") in prices
    # The Market page: Since names the day and the list, and the story under the table.
    market = (bundled_site / "market/index.html").read_text()
    assert ('<td><a href="#since-deepseek-deepseek-v4-flash">2026-09-10, CNY list</a></td>'
            in market)
    assert f'<li id="since-deepseek-deepseek-v4-flash">{html.escape(SENTENCE)}</li>' in market
    rows = pd.read_csv(bundled_site / "data/market.csv").set_index(["provider", "model"])
    assert rows.loc[("deepseek", "deepseek-v4-flash"), "last_change"] == "2026-09-10"
    # The model page: the chart runs to the move and marks it; the text and alt text tell it.
    page = bundled_site / "models/deepseek-deepseek-v4-flash/index.html"
    assert f"Marked on the chart: {SENTENCE}" in _text(page)
    assert _alts(page)[0].endswith(f"from the table below. Marked: {SENTENCE}")
    drawn = (bundled_site / "charts/model-deepseek-deepseek-v4-flash.svg").read_text()
    assert "CNY list cut on 2026-09-10" in drawn and "CNY list, ≈ USD" in drawn


def test_every_price_record_an_edition_links_is_among_its_moves() -> None:
    """A record whose page an edition's entries link, taking effect in the edition's window, is
    a move the edition computed and its figures cite: never a story the figures call no move."""
    sources = load_sources(REPO)
    dates = sorted(sources.series.edition_dates(dt.date(2026, 12, 31)))
    parts = EditionTables(sources, dates)
    editions = compose_editions(sources, dates, {d: edition_inputs(parts, d, p)
                                                 for d, p in windows(dates)})
    checked = 0
    for edition in editions:
        date, previous = edition.date, edition.previous
        start = previous if previous is not None else date - FIRST_EDITION_LOOKBACK
        begin, end = day_end(start), day_end(date)
        links = {str(link.url) for c in parts.entries_in(date, previous)
                 for link in c.entry.links if link.url}
        linked = [(provider, plist.currency, r) for provider, s in sources.prices.items()
                  for plist in s.model.lists for r in plist.records
                  if str(r.source_url) in links and begin < r.from_ <= end]
        moved = parts.moves(start, date).between(begin, end)
        cited = {c.ref for section in edition.sections for item in section.items
                 for c in item.citations}
        for _provider, currency, record in linked:
            assert any(m.record is record for m in moved), (date, record.model)
            assert f"{currency.lower()}-{record.model}-{record.from_:%Y%m%d%H%M}" in cited
            checked += 1
    # The Flash CNY record of 2026-09-10, linked by the 2026-09-12 edition's entries.
    assert checked >= 1


def test_the_first_edition_names_no_day_without_an_edition(bundled_site: Path) -> None:
    text = (bundled_site / "briefings/2026-08-21.txt").read_text()
    assert "2026-08-14" not in text
    assert ("• Blended prices in the 7 days to 2026-08-21 (first edition): 2 of 16 tracked models "
            "moved: Chat (3:1 input:output, no cache), each in its list's currency: DeepSeek "
            "deepseek-v4-flash (USD list) $0.175 → $0.399 per Mtok (+127.9%, from 2026-08-16); "
            "DeepSeek deepseek-v4-pro (USD list) $0.544 → $1.20 per Mtok (+120.0%, from "
            "2026-08-16). [2]") in text
    # Each later edition's "since" is the previous edition's date.
    for date, previous in (("2026-09-04", "2026-08-21"), ("2026-09-12", "2026-09-04")):
        body = (bundled_site / f"briefings/{date}.txt").read_text()
        assert re.findall(r"Blended prices (since \S+|in the .*?):", body) == [
            f"since {previous}"]


def _move(at: str, kind: str, old: float | None, new: float | None,
          model: str = "claude-3-5-sonnet-20241022") -> dict:
    return {"catalogue": "litellm", "provider": "anthropic", "catalogue_provider": "anthropic",
            "model": model, "meter": "input", "ttl_minutes": "", "context_above_tokens": "0",
            "mode": "realtime", "window_utc": "", "from_date": "", "to_date": "", "kind": kind,
            "old_usd_per_mtok": old, "new_usd_per_mtok": new, "at": at}


def test_a_price_withdrawn_and_listed_again_within_a_day_is_said_once() -> None:
    nan = float("nan")
    changes = pd.DataFrame([
        _move("2026-03-11T18:26Z", "removed", 3.0, nan),
        _move("2026-03-12T04:40Z", "new", nan, 3.0),
        _move("2026-03-12T20:14Z", "removed", 3.0, nan),
        _move("2026-03-13T04:40Z", "new", nan, 3.0),
        _move("2026-03-13T20:14Z", "removed", 3.0, nan),
        _move("2026-03-14T01:00Z", "removed", 2.0, nan, model="other"),
        _move("2026-03-14T20:00Z", "new", nan, 1.5, model="other"),
    ], columns=list(CHANGE_COLUMNS))
    said = day_changes(changes)
    assert said[["at", "model", "kind"]].values.tolist() == [
        ["2026-03-11T18:26Z", "claude-3-5-sonnet-20241022", "removed"],
        ["2026-03-12T20:14Z", "claude-3-5-sonnet-20241022", "withdrawn"],
        ["2026-03-13T20:14Z", "claude-3-5-sonnet-20241022", "withdrawn"],
        ["2026-03-14T20:00Z", "other", "cut"]]
    assert said["old_usd_per_mtok"].tolist()[-1] == 2.0
    page = changes_files(committed_moves(changes, {}), [], set(), dt.date(2026, 3, 31))[
        "changes/2026-03/index.html"].body_html
    assert page.count("<td>claude-3-5-sonnet-20241022</td>") == 3
    assert ('<tr data-provider="anthropic" data-meter="input" data-kind="day"><td>anthropic</td>'
            "<td>claude-3-5-sonnet-20241022</td><td>input</td><td class=\"brief-num\"></td>"
            '<td class="brief-num"></td><td>listed, then no longer listed the same day</td></tr>'
            in page)
    assert ('<td>other</td><td>input</td><td class="brief-num">$2.00</td>'
            '<td class="brief-num">$1.50</td><td class="brief-num">-25.0%</td>' in page)


def test_the_bundled_changes_page_says_claude_3_5_sonnet_once_a_day(bundled_site: Path) -> None:
    page = (bundled_site / "changes/2026-03/index.html").read_text()
    days: dict[tuple[str, str, str], int] = {}
    for catalogue, group in re.findall(r'<tbody data-catalogue="([^"]+)">(.*?)</tbody>', page,
                                       flags=re.S):
        day = re.search(r'<span class="brief-date">(\d{4}-\d\d-\d\d)', group)[1]
        for meter in re.findall(r"<td>claude-3-5-sonnet-20241022</td><td>([^<]*)</td>", group):
            days[(catalogue, day, meter)] = days.get((catalogue, day, meter), 0) + 1
    assert ("litellm", "2026-03-12", "input") in days and max(days.values()) == 1
