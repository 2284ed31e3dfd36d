"""Every catalogue move joined to the commit that made it (tables/catalogue_records.py
`committed_moves`), and the Changes pages made of them (render/changes_page.py): an index of
the months, a page per month grouped by commit, each commit linked with its subject line."""

from __future__ import annotations

import datetime as dt
import html
import json
import re

import pandas as pd

from pipeline.models.catalogues import Catalogue
from pipeline.render.changes_page import changes_files
from pipeline.render.shell_page import ShellPage
from pipeline.tables.catalogue_history import catalogue_changes, empty_history
from pipeline.tables.catalogue_records import MOVE_COLUMNS, committed_moves

SHA_A, SHA_B, SHA_C = "a" * 40, "b" * 40, "c" * 40
REPLAYED = Catalogue(id="replayed", name="Replayed prices", url="https://r.example/d.json",
                     page="https://r.example/", format="genai-prices", licence="MIT",
                     attribution="a", use="published",
                     repository="https://github.com/owner/replayed")
FETCHED = Catalogue(id="fetched", name="Fetched map", url="https://f.example/m.json",
                    page="https://f.example/", format="litellm", licence="MIT",
                    attribution="a", use="published")


def period(model: str, price: float, first: str, gone: str = "", commit: str = "",
           meter: str = "input") -> dict:
    row = {c: "" for c in empty_history().columns}
    row.update(provider="acme", catalogue_provider="acme", model=model, meter=meter,
               context_above_tokens="0", mode="realtime", usd_per_mtok=price,
               first_seen=first, gone_seen=gone, commit=commit,
               dated_by="commit" if commit else "fetch")
    return row


# A replayed history: its first commit lists m1 and m2 (the start, not moves); the second cuts
# m1; the third lists m3, drops m2, and raises m1.
HISTORY = pd.DataFrame([
    period("m1", 2.0, "2026-05-01T10:00Z", "2026-05-20T12:00Z", SHA_A),
    period("m1", 1.0, "2026-05-20T12:00Z", "2026-06-02T09:30Z", SHA_B),
    period("m1", 1.5, "2026-06-02T09:30Z", "", SHA_C),
    period("m2", 3.0, "2026-05-01T10:00Z", "2026-06-02T09:30Z", SHA_A),
    period("m3", 4.0, "2026-06-02T09:30Z", "", SHA_C),
])
LOG = pd.DataFrame([
    {"commit": SHA_A, "at": "2026-05-01T10:00Z", "subject": "first prices", "moves": "2",
     "file": "", "problem": ""},
    # A file of that commit that did not read: a row of its own, not a second commit.
    {"commit": SHA_A, "at": "2026-05-01T10:00Z", "subject": "first prices", "moves": "0",
     "file": "x.json", "problem": "not JSON"},
    {"commit": SHA_B, "at": "2026-05-20T12:00Z", "subject": "fix: correct m1 pricing",
     "moves": "1", "file": "", "problem": ""},
    {"commit": SHA_C, "at": "2026-06-02T09:30Z", "subject": "Add m3 <beta> & drop m2",
     "moves": "3", "file": "", "problem": ""},
])
# A fetched history: no log, one move seen by our fetch.
FETCHED_HISTORY = pd.DataFrame([
    period("f1", 5.0, "2026-05-03T06:00Z", "2026-06-04T06:00Z"),
    period("f1", 4.0, "2026-06-04T06:00Z"),
])


def moves() -> pd.DataFrame:
    changes = catalogue_changes({"replayed": HISTORY, "fetched": FETCHED_HISTORY}, {})
    return committed_moves(changes, {"replayed": LOG})


def test_each_move_of_a_replayed_catalogue_has_the_commit_that_made_it() -> None:
    joined = moves()
    assert list(joined.columns) == list(MOVE_COLUMNS)
    assert joined[["catalogue", "model", "kind", "at", "commit", "subject"]].values.tolist() == [
        ["replayed", "m1", "cut", "2026-05-20T12:00Z", SHA_B, "fix: correct m1 pricing"],
        ["replayed", "m1", "rise", "2026-06-02T09:30Z", SHA_C, "Add m3 <beta> & drop m2"],
        ["replayed", "m2", "removed", "2026-06-02T09:30Z", SHA_C, "Add m3 <beta> & drop m2"],
        ["replayed", "m3", "new", "2026-06-02T09:30Z", SHA_C, "Add m3 <beta> & drop m2"],
        ["fetched", "f1", "cut", "2026-06-04T06:00Z", "", ""],
    ]


def test_a_fetched_catalogue_and_a_time_its_log_lacks_have_no_commit() -> None:
    changes = catalogue_changes({"replayed": HISTORY}, {})
    # A fetch after the replay: the log has no commit at that time.
    later = changes.iloc[[0]].assign(at="2026-07-01T00:00Z")
    joined = committed_moves(pd.concat([changes, later], ignore_index=True), {"replayed": LOG})
    assert joined["commit"].tolist()[-1] == "" and joined["subject"].tolist()[-1] == ""
    assert committed_moves(changes, {})["commit"].eq("").all()
    none = committed_moves(changes.iloc[:0], {"replayed": LOG})
    assert none.empty and list(none.columns) == list(MOVE_COLUMNS)


def test_the_changes_index_lists_each_month_and_each_month_is_a_page_of_its_own() -> None:
    files = changes_files(moves(), [FETCHED, REPLAYED], set(), dt.date(2026, 6, 30))
    assert sorted(files) == ["changes.md", "changes/2026-05/index.html",
                             "changes/2026-06/index.html"]
    index = files["changes.md"]
    assert "5 moves of the public catalogues' prices" in index
    assert "| [June 2026](2026-06/) | 4 | 1 | 1 | 1 | 1 | Fetched map 1, Replayed prices 3 |" in index
    assert "| [May 2026](2026-05/) | 1 | 1 | 0 | 0 | 0 | Replayed prices 1 |" in index
    assert index.index("June 2026") < index.index("May 2026")  # newest first
    june = files["changes/2026-06/index.html"]
    assert isinstance(june, ShellPage) and june.title == "Price changes, June 2026"
    # The search index gets one line per month, no row.
    assert june.search_text == ("4 moves first seen in June 2026 (UTC): 1 cut, 1 rise, 1 new "
                                "listing, 1 no longer listed. By catalogue: Fetched map 1, "
                                "Replayed prices 3.")
    assert "$" not in june.search_text


def test_a_month_groups_its_moves_by_commit_newest_first_price_moves_first() -> None:
    june = changes_files(moves(), [FETCHED, REPLAYED], set(), dt.date(2026, 6, 30))[
        "changes/2026-06/index.html"].body_html
    bodies = re.findall(r'<tbody data-catalogue="([^"]+)">(.*?)</tbody>', june, re.S)
    assert [c for c, _ in bodies] == ["fetched", "replayed"]  # 06-04 before 06-02
    fetched, replayed = (b for _, b in bodies)
    assert "seen by our fetch" in fetched and "href" not in fetched
    href = f"https://github.com/owner/replayed/commit/{SHA_C}"
    assert f'<a href="{href}"><code>ccccccc</code></a>' in replayed
    # The subject is the catalogue's text: escaped.
    assert "“Add m3 &lt;beta&gt; &amp; drop m2”" in replayed and "3 moves" in replayed
    rows = re.findall(r'<tr data-provider="acme" data-meter="input" data-kind="(\w+)">'
                      r"<td>acme</td><td>(\w+)</td>", replayed)
    assert rows == [("rise", "m1"), ("removed", "m2"), ("new", "m3")]  # the rise first
    assert ('<td class="brief-num">$1.00</td><td class="brief-num">$1.50</td>'
            '<td class="brief-num">+50.0%</td>') in replayed
    # Every filter's field has a label; the table a caption and column headers.
    assert re.findall(r'<select name="(\w+)">', june) == ["catalogue", "provider", "meter"]
    assert "<caption>Moves first seen in June 2026, by commit, newest first</caption>" in june
    assert '<a href="../2026-05/">May 2026</a>' in june and '<a href="../">all months</a>' in june


def test_a_move_after_the_newest_edition_is_left_out_and_no_moves_say_so() -> None:
    files = changes_files(moves(), [FETCHED, REPLAYED], set(), dt.date(2026, 5, 31))
    assert sorted(files) == ["changes.md", "changes/2026-05/index.html"]
    none = changes_files(moves(), [FETCHED, REPLAYED], set(), dt.date(2026, 5, 1))
    assert none == {"changes.md": "# Price changes in the catalogues\n\nNo catalogue price has "
                                  "moved since its first snapshot.\n"}
    assert "follows no price catalogue" in changes_files(moves().iloc[:0], [], set(),
                                                         dt.date(2026, 6, 30))["changes.md"]


def test_only_a_checked_sha_of_the_catalogues_repository_is_linked() -> None:
    """A commit that is not 40 hex digits (the readers refuse one; a frame built by hand may
    hold one) or a catalogue without a repository gives no link: the former says nothing of a
    commit, the latter names it."""
    odd = moves().assign(commit=lambda t: t["commit"].where(t["commit"] == "",
                                                           "javascript:alert(1)"))
    june = changes_files(odd, [FETCHED, REPLAYED], set(), dt.date(2026, 6, 30))[
        "changes/2026-06/index.html"].body_html
    assert "javascript:" not in june and "/commit/" not in june
    bare = REPLAYED.model_copy(update={"repository": None})
    june = changes_files(moves(), [FETCHED, bare], set(), dt.date(2026, 6, 30))[
        "changes/2026-06/index.html"].body_html
    assert "/commit/" not in june and "<code>ccccccc</code>" in june
    text = html.unescape(re.sub(r"<[^>]+>", "", june))
    assert text.count("seen by our fetch") == 1


COMMIT_LINK = re.compile(r"https://github\.com/(pydantic/genai-prices|anomalyco/models\.dev)"
                         r"/commit/[0-9a-f]{40}")


def test_the_bundled_changes_pages_hold_every_move_each_with_its_commit(bundled_site) -> None:
    index = (bundled_site / "changes" / "index.html").read_text("utf-8")
    # A count of two digits or more is in a span that keeps it on one line
    # (render/table_numbers.py).
    months = re.findall(r'<td><a href="(\d{4}-\d\d)/">[^\n]*?</a></td>\s*<td[^>]*>'
                        r'(?:<span class="brief-nobr">)?([\d,]+)(?:</span>)?</td>', index)
    total = int(re.search(r"([\d,]+) moves of the public catalogues", index)[1].replace(",", ""))
    assert len(months) > 10 and sum(int(n.replace(",", "")) for _, n in months) == total
    data = pd.read_csv(bundled_site / "data" / "changes.csv", dtype=str, keep_default_na=False)
    assert list(data.columns) == list(MOVE_COLUMNS)
    # LiteLLM's moves were seen by our fetch; the replayed catalogues' each have a commit.
    assert data.loc[data["catalogue"] == "litellm", "commit"].eq("").all()
    assert data.loc[data["catalogue"] != "litellm", "commit"].str.fullmatch("[0-9a-f]{40}").all()
    for month, n in months:
        page = (bundled_site / "changes" / month / "index.html").read_text("utf-8")
        rows = page.count("<tr data-provider=")
        assert rows == int(n.replace(",", "")), month
        said = [int(m.replace(",", "")) for m in re.findall(r"([\d,]+) moves?</th>", page)]
        assert sum(said) == rows, month
        links = re.findall(r'<th scope="rowgroup"[^>]*>.*?</th>', page)
        for heading in links:
            hrefs = re.findall(r'href="([^"]+)"', heading)
            assert all(COMMIT_LINK.fullmatch(h) for h in hrefs), hrefs
            assert hrefs or "seen by our fetch" in heading, heading
    june = (bundled_site / "changes" / "2025-06" / "index.html").read_text("utf-8")
    litellm = re.search(r'<tbody data-catalogue="litellm"><tr class="changes-commit">'
                        r'<th[^>]*><span class="brief-date">2025-06-11 [^<]*</span> · LiteLLM '
                        r"model price map · seen by our fetch · \d+ moves?</th></tr>(.*?)</tbody>",
                        june)
    assert ('<td>openai</td><td>o3</td><td>output</td><td class="brief-num">$40.00</td>'
            '<td class="brief-num">$8.00</td><td class="brief-num">-80.0%</td>') in litellm[1]


def test_the_search_index_has_a_line_per_month_of_changes_and_no_row(bundled_site) -> None:
    docs = json.loads((bundled_site / "search" / "search_index.json").read_text("utf-8"))["docs"]
    months = {d["location"]: d for d in docs
              if re.fullmatch(r"changes/\d{4}-\d\d/", d["location"])}
    built = {f"changes/{p.parent.name}/" for p in (bundled_site / "changes").glob("*/index.html")}
    assert set(months) == built and len(built) > 10
    assert all("$" not in d["text"] and len(d["text"]) < 300 for d in months.values())
    assert months["changes/2026-06/"]["title"] == "Price changes, June 2026"
