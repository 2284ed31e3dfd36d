"""A feed snapshot a pull request changed (issue 37): its links are judged where they are
rendered, by the same rule as every other link (render/safe_links.py), not only at ingest; and
`brief add` on such an item says why in one line."""

from __future__ import annotations

import datetime as dt
import json
from pathlib import Path

import pytest
from conftest import tiny_tree, write_entry
from test_hostile_ids import visit_every_page
from test_hostile_input import brief, refused
from test_xss_feeds import NOW, browser, feed_xml  # noqa: F401

from pipeline.formats.feeds import parse_feed
from pipeline.ingest.feeds import write_snapshot
from pipeline.models.feeds import Feed
from pipeline.normalize.feed_state import Attempt, record_attempt
from pipeline.render.markdown_html import EXTENSION_CONFIGS, EXTENSIONS, markdown_html
from pipeline.render.safe_links import safe_raw_html

LINK = "javascript:alert(11)"


def snapshot_tree(root: Path) -> tuple[Path, str]:
    """Write the tiny tree with one feed whose snapshot's items all link to LINK, as a pull
    request could leave it; return the root and the first item's id."""
    tiny_tree(root)
    feed = Feed(id="f0", url="https://example.org/0/feed.xml", title="Feed 0", region="global",
                language="en")
    (root / "sources" / "feeds.yaml").write_text(
        "topics:\n  pricing: [price, pricing, inference]\nfeeds:\n  - {id: f0, url: "
        "'https://example.org/0/feed.xml', title: Feed 0, region: global}\n", encoding="utf-8")
    parsed = parse_feed(feed_xml("Inference", 0), {"Content-Type": "application/rss+xml"},
                        str(feed.url))
    path = root / "sources" / "snapshots" / "feeds" / "f0.json"
    write_snapshot(path, record_attempt(feed, None, Attempt(status=200, parsed=parsed), NOW))
    doc = json.loads(path.read_text("utf-8"))
    for item in doc["items"]:
        item["url"] = LINK
    path.write_text(json.dumps(doc, indent=1), encoding="utf-8")
    return root, doc["items"][0]["id"]


@pytest.mark.parametrize(("raw", "safe"), [
    ('<a href="javascript:alert(11)">Feed 0</a>', "<a>Feed 0</a>"),
    ("<a href=JaVa&#9;Script:alert(1) title=t>x</a>", '<a title="t">x</a>'),
    ('<img src=x onerror=alert(1) alt="a &amp; b"/>', '<img src="x" alt="a &amp; b" />'),
    ('<svg><a xlink:href="data:text/html,x">y</a></svg>', "<svg><a>y</a></svg>"),
    ('<p style="position:fixed">z</p>', "<p>z</p>"),
    # What the rule keeps keeps its bytes.
    ("<a href='https://example.org/?a=1&amp;b=2'  class=c>ok</a><br>",
     "<a href='https://example.org/?a=1&amp;b=2'  class=c>ok</a><br>"),
    ('<li id="src-1"><a href="../x/">in the site</a> <a href="mailto:a@b.example">m</a></li>',
     '<li id="src-1"><a href="../x/">in the site</a> <a href="mailto:a@b.example">m</a></li>'),
])
def test_the_link_rule_applies_to_raw_html(raw: str, safe: str) -> None:
    assert safe_raw_html(raw) == safe


def test_raw_html_in_rendered_markdown_gets_the_same_rule() -> None:
    # The Sources list of an edition is raw HTML in its template: Markdown never parses it.
    assert markdown_html(f'<ol>\n<li id="src-1"><a href="{LINK}">Feed 0</a></li>\n</ol>\n\n'
                         'Text <a href="vbscript:x" onclick="y">inline</a>.') == (
        '<ol>\n<li id="src-1"><a>Feed 0</a></li>\n</ol>\n\n<p>Text <a>inline</a>.</p>')


def test_raw_html_is_judged_under_headings_and_in_each_document_of_one_renderer() -> None:
    # toc renders each heading through the postprocessors over the page's stash, and the guard
    # judges each block once: a heading's own raw link, the blocks after it, and, with one
    # Markdown instance reset between pages (as feeds render items), the next page's blocks at
    # the same places of the stash.
    import markdown

    md = markdown.Markdown(extensions=list(EXTENSIONS), extension_configs=EXTENSION_CONFIGS)
    page = ('# One <a href="javascript:a()">x</a>\n\n<p onclick="b()">kept</p>\n\n'
            '## Two\n\n<a href="https://example.org/">ok</a>\n')
    assert md.convert(page) == (
        '<h1 id="one-x">One <a>x</a></h1>\n<p>kept</p>\n\n<h2 id="two">Two</h2>\n'
        '<p><a href="https://example.org/">ok</a></p>')
    md.reset()
    assert md.convert('# Three\n\n<a href="vbscript:c" onmouseover="d()">no</a>\n') == (
        '<h1 id="three">Three</h1>\n<p><a>no</a></p>')


def test_brief_add_on_an_item_with_a_script_link_says_why(tmp_path: Path) -> None:
    root, item = snapshot_tree(tmp_path / "repo")
    done = brief(root, "add", item[:8])
    assert done.returncode == 1
    assert done.stderr == (f"Error: item {item} links to '{LINK}', not an http or https page, "
                           "so an entry cannot cite it; check sources/snapshots/feeds/f0.json\n")
    assert not (root / "sources" / "entries" / "2026" / "09-10-inference-price.yaml").exists()


@pytest.fixture(scope="module")
def snapshot_site(tmp_path_factory: pytest.TempPathFactory) -> Path:
    from pipeline.orchestrate.site import build_site

    root, _ = snapshot_tree(tmp_path_factory.mktemp("snap") / "repo")
    build_site(root, root / "public", today=dt.date(2026, 11, 30))
    return root / "public"


def test_a_script_link_in_a_snapshot_is_no_link_anywhere(snapshot_site: Path,
                                                         browser) -> None:  # noqa: F811
    public = snapshot_site
    pages = [p.relative_to(public).as_posix() for p in public.rglob("*")
             if p.suffix in (".html", ".xml", ".json") and LINK in p.read_text("utf-8")]
    # The item is in the edition, cited as source 2. Before, its link was live in the edition,
    # the home page, the e-mail page and both feeds; now it is in none of them, not even as text.
    assert pages == []
    paths, dialogs, findings = visit_every_page(public, browser)
    assert "briefings/2026-09-12/index.html" in paths
    assert dialogs == []
    assert findings == []
    edition = (public / "briefings" / "2026-09-12" / "index.html").read_text("utf-8")
    assert '<li id="src-2">Feed 0</li>' in edition
    text = (public / "briefings" / "2026-09-12.txt").read_text("utf-8")
    assert LINK not in text and "[2] Feed 0\n" in text



# Invisible text and deep nesting (issue 37).
@pytest.mark.parametrize(("text", "said"), [
    ("Prices \u202efall\u202c today", "invisible control characters (U+202E RIGHT-TO-LEFT "
     "OVERRIDE, U+202C POP DIRECTIONAL FORMATTING)"),
    ("Prices\u2066 fall", "an invisible control character (U+2066 LEFT-TO-RIGHT ISOLATE)"),
    ("Zero\u200bwidth", "an invisible control character (U+200B ZERO WIDTH SPACE)"),
])
def test_invisible_control_characters_in_curated_text_are_a_problem(tmp_path: Path, text: str,
                                                                     said: str) -> None:
    root = tiny_tree(tmp_path / "repo")
    write_entry(root, "2026-09-12", "price-figure", section="numbers", headline=text)
    name = "sources/entries/2026/09-12-price-figure.yaml"
    message = f"holds {said}: readers would see other text than the file shows; delete it"
    # Where an editor's terminal jumps to: the line of each field (write_entry's order).
    assert refused(root, "check") == [f"{name}:3:1: headline: {message}",
                                    f"{name}:4:1: summary: {message}"]


def test_joiners_that_scripts_need_are_not_refused(tmp_path: Path) -> None:
    root = tiny_tree(tmp_path / "repo")
    write_entry(root, "2026-09-12", "price-figure", section="numbers",
                headline="\u0645\u06cc\u200c\u062e\u0648\u0627\u0647\u0645 and \U0001f469\u200d\U0001f4bb")
    assert brief(root, "check").returncode == 0


@pytest.mark.parametrize(("fmt", "name", "text"), [
    ("litellm", "deep.json", "[" * 100_000 + "]" * 100_000),
    ("llm-prices", "deep.json", '{"models": ' + "[" * 100_000 + "]" * 100_000 + "}"),
    ("genai-prices", "deep.yml", "[" * 100_000 + "]" * 100_000),
])
def test_brief_import_of_a_deeply_nested_file_says_so_in_one_line(tmp_path: Path, fmt: str,
                                                                  name: str, text: str) -> None:
    root = tiny_tree(tmp_path / "repo")
    path = tmp_path / name
    path.write_text(text, encoding="utf-8")
    done = brief(root, "import", fmt, str(path), "--dry-run", capped=True)
    assert (done.returncode, done.stdout, done.stderr) == (
        1, "", f"Error: {path}: not a {fmt} price map (nested too deeply to read)\n")
