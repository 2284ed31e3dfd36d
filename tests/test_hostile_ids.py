"""Ids that would reach markup (issue 37): a model id is checked against the id characters
(models/ids.py) wherever it is read, and every id that reaches a page, a feed or an e-mail is
escaped there even when that check is bypassed, which a real browser shows."""

from __future__ import annotations

import csv
import datetime as dt
import json
import re
import subprocess
import sys
import xml.etree.ElementTree as ET
from pathlib import Path

import pandas as pd
import pytest
from conftest import REPO, tiny_tree
from test_hostile_input import brief, refused
from test_xss_feeds import browser, served_page, settle  # noqa: F401

from pipeline.formats.genai_prices import read_genai_data
from pipeline.formats.litellm import read_litellm
from pipeline.formats.llm_prices import read_llm_prices
from pipeline.ingest.catalogues import ingest_file
from pipeline.models.catalogues import CataloguesFile
from pipeline.models.ids import id_problem
from pipeline.tables.frames import csv_bytes, text_cell

TITLE_BREAKER = "</title><img src=x onerror=alert(9)>"
CHARACTERS = "ASCII letters, digits and ._:/@+~-"
ACME = """\
provider: acme
name: {name}
lists:
  - currency: USD
    records:
      - model: "{model}"
        from: 2026-01-01
        source_url: https://example.org/acme/pricing
        checked: 2026-01-02
        prices:
          - {{meter: input, price: 1}}
          - {{meter: output, price: 2}}
"""


def acme_tree(root: Path, model: str, name: str = "Acme") -> Path:
    tiny_tree(root)
    (root / "sources" / "prices").mkdir()
    (root / "sources" / "prices" / "acme.yaml").write_text(
        ACME.format(model=model, name=name), encoding="utf-8")
    return root


def test_a_model_id_with_markup_is_refused_by_check(tmp_path: Path) -> None:
    root = acme_tree(tmp_path / "repo", TITLE_BREAKER)
    assert refused(root, "check", "--strict") == [
        "sources/entries/2026/09-13-too-late.yaml:1:1: date: 2026-09-13 is after the last edition "
        "(2026-09-12), so this entry will appear in no edition; add an edition date on or after "
        "2026-09-13 to `dates:` in sources/editions.yaml",
        f"sources/prices/acme.yaml:6:1: lists.0.records.0.model: an id holds only {CHARACTERS}; "
        "this one also has ' ' '(' ')' '<' '=' '>' (got '</title><img src=x onerror=alert(9)>')"]


@pytest.mark.parametrize(("value", "why"), [
    ("gpt-4o", None), ("anthropic.claude-3-5-sonnet-20240620-v1:0", None),
    ("claude-3-5-sonnet@20240620", None), ("~openai/gpt-latest", None),
    ("", "an id may not be empty"),
    ("a\u202eb", f"an id holds only {CHARACTERS}; this one also has U+202E"),
    ("x" * 201, "an id is at most 200 characters; this one has 201"),
    ("=HYPERLINK(1)", f"an id holds only {CHARACTERS}; this one also has '(' ')' '='"),
])
def test_the_id_characters(value: str, why: str | None) -> None:
    assert id_problem(value) == why


def test_every_id_of_the_real_price_maps_is_an_id(real_data: Path) -> None:
    # The set is stated so that every real id passes: none is refused, none renamed.
    results = [read_litellm((real_data / "litellm" / "model_prices_and_context_window.json")
                            .read_bytes()),
               read_genai_data((real_data / "genai-prices" / "v2" / "data.json").read_bytes())]
    results += [read_llm_prices(p.read_bytes())
                for p in sorted((real_data / "llm-prices" / "data").glob("*.json"))]
    assert sum(len(r.prices) for r in results) > 5000
    assert [r.refused_ids for r in results if r.refused_ids] == []


def litellm_map(*models: str) -> bytes:
    return json.dumps({m: {"litellm_provider": "openai", "mode": "chat",
                           "input_cost_per_token": 1e-6, "output_cost_per_token": 2e-6}
                       for m in models}).encode()


def test_brief_import_leaves_out_an_id_with_markup_and_counts_it(tmp_path: Path) -> None:
    root = tiny_tree(tmp_path / "repo")
    path = tmp_path / "map.json"
    path.write_bytes(litellm_map("gpt-ok", f"openai/{TITLE_BREAKER}"))
    done = brief(root, "import", "litellm", str(path), "--since", "2026-07-01",
                 "--out", str(tmp_path / "out"))
    assert done.returncode == 0, done.stderr
    assert done.stdout.splitlines() == [
        "wrote 1 provider file(s) to " + str(tmp_path / "out"),
        "read 1 models, 2 prices",
        f"  skipped: provider or model id outside the id characters ({CHARACTERS}): 1"]
    written = (tmp_path / "out" / "openai.yaml").read_text("utf-8")
    assert "gpt-ok" in written and "onerror" not in written


def test_a_catalogue_id_with_markup_is_its_recorded_problem_and_left_out(tmp_path: Path) -> None:
    catalogues = CataloguesFile.model_validate({"catalogues": [{
        "id": "litellm", "name": "LiteLLM", "url": "https://example.org/map.json",
        "page": "https://example.org/", "format": "litellm", "licence": "MIT",
        "attribution": "a", "use": "published"}]})
    run = ingest_file(tmp_path, catalogues, catalogues.catalogues[0],
                      litellm_map("gpt-ok", TITLE_BREAKER), {}, None,
                      at=dt.datetime(2026, 9, 1, tzinfo=dt.UTC))
    assert run.ok and run.message == "2 prices of 1 models; 2 moves"
    folder = tmp_path / "sources" / "snapshots" / "prices"
    health = json.loads((folder / "litellm.health.json").read_text("utf-8"))
    assert health["problems"] == [
        f"'openai' '{TITLE_BREAKER}': an id holds only {CHARACTERS}; this one also has ' ' '(' "
        "')' '<' '=' '>'; left out"]
    assert "onerror" not in (folder / "litellm.csv").read_text("utf-8")


def test_an_id_with_markup_in_a_catalogue_history_is_not_read(tmp_path: Path) -> None:
    root = tiny_tree(tmp_path / "repo")
    (root / "sources" / "catalogues.yaml").write_text(
        "catalogues:\n  - id: litellm\n    name: LiteLLM\n    url: https://example.org/m.json\n"
        "    page: https://example.org/m\n    format: litellm\n    licence: MIT\n"
        "    attribution: a\n    use: published\n", encoding="utf-8")
    history = root / "sources" / "snapshots" / "prices" / "litellm.csv"
    history.parent.mkdir(parents=True)
    history.write_text(
        "provider,catalogue_provider,model,meter,ttl_minutes,context_above_tokens,mode,"
        "window_utc,from_date,to_date,usd_per_mtok,first_seen,gone_seen,checked,"
        f"context_window_tokens\nopenai,openai,\"{TITLE_BREAKER}\",input,,0,realtime,,,,1,"
        "2026-07-24T18:23Z,,2026-07-24,\n", encoding="utf-8")
    assert refused(root, "check", "--strict")[1:] == [
        f"sources/snapshots/prices/litellm.csv: not a readable price history (line 2: model "
        f"'{TITLE_BREAKER}' is not an id: an id holds only {CHARACTERS}; this one also has ' ' "
        "'(' ')' '<' '=' '>'); the next ingest starts it over"]


# The render edge, with the id check bypassed: an id that got past it by any route (a check
# changed, a history written by hand) is still text, never markup, on every page.
BUILD = """
import datetime as dt, re, sys
from pathlib import Path
import pipeline.models.ids as ids
ids._ID = re.compile(r".+", re.S)  # the check bypassed
from pipeline.orchestrate.site import build_site
root = Path(sys.argv[1])
build_site(root, root / "public", today=dt.date(2026, 11, 30))
"""


@pytest.fixture(scope="module")
def unchecked_site(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = acme_tree(tmp_path_factory.mktemp("ids") / "repo", TITLE_BREAKER,
                     name="'Acme <img src=x onerror=alert(8)>'")
    # In a process of its own: the bypass must not outlive this build.
    done = subprocess.run([sys.executable, "-c", BUILD, str(root)], cwd=REPO,
                          capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr
    return root / "public"


OBJECTS_JS = """() => [...document.querySelectorAll('*')].flatMap(el => [...el.attributes]
  .filter(a => a.name.toLowerCase().startsWith('on') || (
    ['href', 'src', 'action', 'formaction', 'xlink:href', 'srcset', 'data', 'poster']
      .includes(a.name.toLowerCase()) &&
    /^[a-z][a-z0-9+.-]*:/.test(a.value.replace(/[\\u0000-\\u0020]+/g, '').toLowerCase()) &&
    !/^(https?|mailto):/.test(a.value.replace(/[\\u0000-\\u0020]+/g, '').toLowerCase())))
  .map(a => el.tagName + ' ' + a.name + '=' + a.value))"""
"""Each attribute a page keeps that could run script: an event handler, or a link or source
whose scheme is not http, https or mailto."""


def _feed_html(public: Path) -> list[str]:
    """Return every HTML text the feeds carry (Atom content and summaries, JSON content_html)."""
    found = []
    for path in public.glob("*.xml"):
        for element in ET.parse(path).iter():
            if element.get("type") == "html" and element.text:
                found.append(element.text)
    for path in public.glob("*.json"):
        found += [item.get("content_html", "") for item in
                  json.loads(path.read_text("utf-8")).get("items", [])]
    return found


def visit_every_page(public: Path, browser) -> tuple[list[str], list[str], list[str]]:  # noqa: F811
    """Open every HTML page and SVG of a built site, and every HTML text of its feeds, in
    Chromium; return (the paths, the dialogs that opened, the attributes OBJECTS_JS found)."""
    findings: list[str] = []
    paths = sorted(p.relative_to(public).as_posix() for p in
                   [*public.rglob("*.html"), *public.rglob("*.svg")])
    with served_page(public, browser) as (page, base, dialogs):
        for path in paths:
            page.goto(base + path, wait_until="load")
            settle(page)
            findings += [f"{path}: {f}" for f in page.evaluate(OBJECTS_JS)]
        for n, fragment in enumerate(_feed_html(public)):
            page.set_content(f"<!doctype html><meta charset=utf-8><main>{fragment}</main>",
                             wait_until="load")
            settle(page)
            findings += [f"feed fragment {n}: {f}" for f in page.evaluate(OBJECTS_JS)]
    return paths, dialogs, findings


def test_ids_with_markup_stay_text_on_every_page_feed_and_email(unchecked_site: Path,
                                                                  browser) -> None:  # noqa: F811
    public = unchecked_site
    # The payload's model has two pages, each titled by the payload: its provider's dated
    # history, and the model across its providers (a shell page, render/shell_page.py).
    titles = sorted(re.search(r"<title>(.*?)</title>", p.read_text("utf-8"))[1]
                    for p in public.glob("models/*/index.html"))
    # The provider's page is titled by its curated name (a payload too) and the id; the other
    # by the canonical id (the id's last path part, spaces as `-`: normalize/model_ids.py).
    assert titles == ["Acme &lt;img src=x onerror=alert(8)&gt; &lt;/title&gt;&lt;img src=x "
                      "onerror=alert(9)&gt; - Inference Brief",
                      "title&gt;&lt;img-src=x-onerror=alert(9)&gt; - Inference Brief"]
    paths, dialogs, findings = visit_every_page(public, browser)
    assert "prices/index.html" in paths and len(paths) > 20
    assert dialogs == []
    assert findings == []


# Formula injection (issue 37): an id may start with `-`, `+` or `@` (all id characters), and
# a spreadsheet runs a cell starting with one of them, `=`, a tab or a carriage return.
FORMULA = "-1+1@acme"


def _formula_cells(public: Path) -> dict[str, list[str]]:
    """Return, per published CSV, its cells a spreadsheet would run: starting as a formula
    does (also behind blanks, or with a full-width ＝＋－＠), and not a number."""
    found: dict[str, list[str]] = {}
    for path in sorted(public.glob("data/*.csv")):
        with path.open(encoding="utf-8", newline="") as f:
            for row in csv.reader(f):
                for cell in row:
                    starts = ("=", "+", "-", "@", "\t", "\r", "＝", "＋", "－", "＠")
                    if cell.startswith(starts) or cell.lstrip().startswith(starts):
                        try:
                            float(cell)
                        except ValueError:
                            found.setdefault(path.name, []).append(cell)
    return found


def test_no_published_csv_holds_a_live_formula(tmp_path: Path) -> None:
    from pipeline.orchestrate.site import build_site

    root = acme_tree(tmp_path / "repo", FORMULA, name="'@SUM(1+1)'")
    build_site(root, root / "public", today=dt.date(2026, 11, 30))
    public = root / "public"
    assert _formula_cells(public) == {}
    prices = (public / "data" / "prices.csv").read_text("utf-8")
    assert f"acme,'{FORMULA},USD,1.0,input," in prices  # the text, shown as it is
    assert ",'@SUM(1+1) (curated)," in (public / "data" / "market.csv").read_text("utf-8")
    chart = (public / "data" / "tokens-per-dollar-chat-3-1-2026-09-12.csv").read_text("utf-8")
    # (The last column: the notes of a move in a list no blend quotes; none here.)
    assert f"'@SUM(1+1) {FORMULA},0.8,0.8," in chart.splitlines()


@pytest.mark.parametrize(("cell", "written"), [
    ("=HYPERLINK(\"http://x.example\")", "'=HYPERLINK(\"http://x.example\")"), ("+1", "'+1"),
    ("-2+3", "'-2+3"), ("@SUM(A1)", "'@SUM(A1)"), ("\tx", "'\tx"), ("\rx", "'\rx"),
    ("gpt-4o", "gpt-4o"), ("", ""), ("1-2", "1-2"),
    # Issue 50: the full-width forms, which spreadsheets read as their ASCII kin, and a formula
    # behind blanks (a spreadsheet that trims a cell runs what is left).
    ("\uff1dHYPERLINK(\"http://x.example\")", "'\uff1dHYPERLINK(\"http://x.example\")"),
    ("\uff0b1", "'\uff0b1"), ("\uff0d2+3", "'\uff0d2+3"), ("\uff20SUM(A1)", "'\uff20SUM(A1)"),
    ("  =1+1", "'  =1+1"), ("\u3000\uff1d1+1", "'\u3000\uff1d1+1"), (" \t=1", "' \t=1"),
    ("\xa0@SUM(A1)", "'\xa0@SUM(A1)"), ("\n-x", "'\n-x"), ("  gpt-4o", "  gpt-4o"),
    ("a\uff1d1", "a\uff1d1"), ("   ", "   "),
])
def test_a_text_cell_that_would_run_is_neutralized(cell: str, written: str) -> None:
    assert text_cell(cell) == written


def test_negative_numbers_stay_numbers_in_a_csv() -> None:
    frame = pd.DataFrame({"model": ["=1+1", "-x", "ok"], "change": [-0.25, 1.5, -3.0],
                          "tokens": pd.array([-1, None, 2], dtype="Int64")})
    assert csv_bytes(frame, ("model", "change", "tokens")).decode() == (
        "model,change,tokens\n'=1+1,-0.25,-1\n'-x,1.5,\nok,-3.0,2\n")
    # Issue 50: full-width and blank-led formulas in text columns; the numbers still numbers.
    frame = pd.DataFrame({"model": ["\uff1d1+1", " \uff0dx", "\t@a"], "change": [-0.5, -1e-9, 0.0]})
    assert csv_bytes(frame, ("model", "change")).decode() == (
        "model,change\n'\uff1d1+1,-0.5\n' \uff0dx,-1e-09\n'\t@a,0.0\n")
