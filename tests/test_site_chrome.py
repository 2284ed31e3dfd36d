"""The site's chrome around the editions (issue 21, Reading): edition titles and descriptions in
the head and the search index, the 404 page at any depth, and `brief serve` as a host serves.

Real builds of small trees made here (mkdocs-material), a real preview server on 127.0.0.1 and the
real `brief serve`; the browser's view of the same is in test_browser_chrome.py.
"""

from __future__ import annotations

import datetime as dt
import http.client
import json
import os
import re
import socket
import subprocess
import sys
import threading
import urllib.error
import urllib.request
from collections.abc import Iterator
from email.message import Message
from html.parser import HTMLParser
from pathlib import Path
from urllib.parse import urlsplit

import pytest
import yaml
from click.testing import CliRunner
from conftest import REPO, SERIES, stop, write_entry

from pipeline.cli.main import main
from pipeline.compose.titles import edition_title
from pipeline.compose.types import Citation, Edition, Figure, SectionContent, Story
from pipeline.models.series import Series
from pipeline.orchestrate.site import build_site
from pipeline.publish.preview import preview_server
from pipeline.render.pages import edition_description, edition_page

TODAY = dt.date(2026, 11, 30)
# A lead headline with everything that must not reach the head as markup.
HOSTILE = 'Cuts "50 %" & more <b>bold</b> </title><script>alert(1)</script>'


# Titles and descriptions, on hand-made editions ----------------------------------------------

CITATION = Citation("Example", "https://example.org/a", "sources/x.yaml")


def _story(headline: str, summary_md: str = "A paragraph.") -> Story:
    return Story(id=headline.lower().replace(" ", "-"), headline=headline, summary_md=summary_md,
                 citations=(CITATION,))


def _edition(*sections: SectionContent) -> Edition:
    return Edition(date=dt.date(2026, 9, 12), title="Test Brief — 2026-09-12", previous=None,
                   sections=sections, sources=(CITATION,))


def test_edition_title_is_the_date_and_the_first_story() -> None:
    figure = Figure(label="Price", text_md="It fell.", citations=())
    edition = _edition(SectionContent("numbers", "Numbers", (figure,)),
                       SectionContent("top", "Top", (_story("DeepSeek  cuts\nprices"),
                                                     _story("Second story"))),
                       SectionContent("local", "Local", (_story("Local story"),)))
    assert edition_title(edition) == "2026-09-12: DeepSeek cuts prices"
    # No story (a topic's cut): the date and the first item's label; nothing at all: the series
    # title of the date, which names the date.
    assert edition_title(_edition(SectionContent("numbers", "Numbers", (figure,)))) == (
        "2026-09-12: Price")
    assert edition_title(_edition(SectionContent("numbers", "Numbers", ()))) == (
        "Test Brief — 2026-09-12")


def test_edition_description_is_the_lead_summary_in_plain_text_cut_to_fit() -> None:
    short = _edition(SectionContent("top", "Top", (_story(
        "Lead", "Prices *fell* by [a third](https://example.org/p) on `v4`."),)))
    assert edition_description(short) == "Prices fell by a third on v4."
    # 150 characters, then a sentence that does not fit in 200: cut after the first.
    first = "A" * 148 + "."
    long = _edition(SectionContent("top", "Top", (_story("Lead", f"{first} {'b ' * 40}end."),)))
    assert edition_description(long) == first
    # One long sentence: cut at the last whole word within 200 characters, marked.
    words = _edition(SectionContent("top", "Top", (_story("Lead", "word, " * 50),)))
    # 33 "word, " end at 198; the 34th "word," would end at 203.
    assert edition_description(words) == "word, " * 32 + "word…"
    assert edition_description(_edition()) == ""


def test_the_line_under_the_title_lists_our_other_stories_not_the_feeds() -> None:
    series = Series.model_validate(yaml.safe_load(SERIES))
    feed = Story(id="feed-1", headline="A feed's story", summary_md="From a feed.", citations=(),
                 origin="feed")
    edition = _edition(SectionContent("top", "Top", (_story("Lead"), _story("Second & last"), feed)),
                       SectionContent("local", "Local", (_story("Local one"),)))
    page = edition_page(edition, series, following=None, home=False)
    assert ('<p class="edition-also">Also in this edition: <a href="#second-&amp;-last">Second '
            '&amp; last</a> · <a href="#local-one">Local one</a></p>') in page
    # Not in the copies for feeds and e-mail, which keep their body as it was.
    assert "edition-also" not in edition_page(edition, series, following=None, home=False,
                                              base_url="https://example.org/brief/")


# A built tree ------------------------------------------------------------------------------------

class _Head(HTMLParser):
    """The <title> text and the meta tags of a page, as a browser reads them (entities decoded)."""

    def __init__(self) -> None:
        super().__init__()
        self.title = ""
        self.meta: dict[str, str] = {}
        self.links: list[str] = []
        self._in_title = False

    def handle_starttag(self, tag: str, attrs: list) -> None:
        a = dict(attrs)
        if tag == "title":
            self._in_title = True
        elif tag == "meta" and "content" in a:
            self.meta[a.get("property") or a.get("name") or ""] = a["content"]

    def handle_endtag(self, tag: str) -> None:
        self._in_title = self._in_title and tag != "title"

    def handle_data(self, data: str) -> None:
        if self._in_title:
            self.title += data


def _head(page: Path) -> _Head:
    parser = _Head()
    parser.feed(page.read_text("utf-8").split("</head>")[0])
    return parser


def _tree(root: Path, site_url: str) -> Path:
    (root / "sources").mkdir(parents=True)
    (root / "sources" / "editions.yaml").write_text(
        SERIES.replace("https://example.org/brief/", site_url), encoding="utf-8")
    write_entry(root, "2026-09-01", "early-news", headline="Early news")
    write_entry(root, "2026-09-06", "hostile", headline=HOSTILE, body=f"""\
        date: 2026-09-06
        section: top
        headline: '{HOSTILE}'
        summary: 'Prices fell "sharply" & <i>fast</i>; see [the list](https://example.org/l).'
        links:
          - url: https://example.org/hostile
            publisher: Example News
        """)
    write_entry(root, "2026-09-12", "local-story", section="local", headline="Local story")
    return root


@pytest.fixture(scope="module")
def site(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A tiny tree under a site path (https://example.org/brief/), built into root/public."""
    root = _tree(tmp_path_factory.mktemp("chrome") / "repo", "https://example.org/brief/")
    build_site(root, root / "public", today=TODAY)
    return root / "public"


def test_an_edition_page_has_its_own_title_description_and_open_graph(site: Path) -> None:
    raw = (site / "briefings" / "2026-09-12" / "index.html").read_text("utf-8")
    head = _head(site / "briefings" / "2026-09-12" / "index.html")
    # The entry's own text, as the browser decodes it: escaped in the HTML, never markup.
    assert head.title == f"2026-09-12: {HOSTILE} - Inference Brief"
    assert head.meta["og:title"] == f"2026-09-12: {HOSTILE}"
    # The editor's raw HTML is shown as text on the page (md_editor), and here too.
    said = 'Prices fell "sharply" & <i>fast</i>; see the list.'
    assert head.meta["description"] == head.meta["og:description"] == said
    assert "<i>fast" not in raw and "&lt;i&gt;fast" in raw
    assert head.meta["og:type"] == "article"
    assert head.meta["og:url"] == "https://example.org/brief/briefings/2026-09-12/"
    assert "<script>alert(1)" not in raw and "<b>bold</b>" not in raw
    # The first edition, led by the story of its own window.
    first = _head(site / "briefings" / "2026-09-05" / "index.html")
    assert first.title == "2026-09-05: Early news - Inference Brief"
    assert first.meta["description"] == "A short paragraph about Early news."


def test_home_and_other_pages_have_the_site_defaults(site: Path) -> None:
    home = _head(site / "index.html")
    assert home.title == "Inference Brief"
    assert home.meta["og:title"] == "Inference Brief" and home.meta["og:type"] == "website"
    assert home.meta["description"] == home.meta["og:description"] == "A tiny series for tests."
    assert home.meta["og:url"] == "https://example.org/brief/"
    about = _head(site / "about" / "index.html")  # its own front matter (site/docs/about.md)
    assert about.title == "About - Inference Brief" and about.meta["og:title"] == "About"
    assert about.meta["og:description"] == (
        "What the Inference Brief covers and how its figures are computed.")
    market = _head(site / "market" / "index.html")  # none of its own: site/mkdocs.yml's
    assert market.meta["og:description"] == market.meta["description"] == (
        "What a million tokens costs, what an accelerator delivers per dollar, and what moved.")
    # On every page the preview says what the head says.
    for page in site.rglob("index.html"):
        head = _head(page)
        assert head.meta["og:description"] == head.meta["description"], page
        assert head.title in (f"{head.meta['og:title']} - Inference Brief", "Inference Brief"), page


def test_search_index_lists_each_edition_once_by_its_title_without_the_nav_line(site: Path) -> None:
    docs = json.loads((site / "search" / "search_index.json").read_text("utf-8"))["docs"]
    pages = {d["location"]: d for d in docs if "#" not in d["location"]}
    # Home shows the newest edition again: only the edition's own address is indexed.
    assert "" not in pages and all(not d["location"].startswith("#") for d in docs)
    assert pages["briefings/2026-09-05/"]["title"] == "2026-09-05: Early news"
    assert pages["briefings/2026-09-12/"]["title"] == (
        '2026-09-12: Cuts "50 %" &amp; more &lt;b&gt;bold&lt;/b&gt; '
        "&lt;/title&gt;&lt;script&gt;alert(1)&lt;/script&gt;")
    # The navigation line ("← 2026-09-05 · Text edition · …") was each edition's snippet.
    assert not [d["location"] for d in docs if "Text edition" in d["text"]]
    # What shows under the title instead: the edition's other stories.
    assert pages["briefings/2026-09-12/"]["text"] == "<p>Also in this edition: Local story</p>"
    assert pages["briefings/2026-09-05/"]["text"] == ""  # it has one story


def _not_found_links(page: Path) -> list[str]:
    html = page.read_text("utf-8")
    block = html.split('<ul class="not-found-links">')[1].split("</ul>")[0]
    return [part.split('"')[0] for part in block.split('href="')[1:]]


def test_404_page_links_home_archive_and_search_by_the_site_path(site: Path,
                                                                 tmp_path: Path) -> None:
    assert _not_found_links(site / "404.html") == ["/brief/", "/brief/archive/", "/brief/?q="]
    at_root = _tree(tmp_path / "repo", "https://example.org/")
    build_site(at_root, at_root / "public", today=TODAY)
    assert _not_found_links(at_root / "public" / "404.html") == ["/", "/archive/", "/?q="]


# The preview server ------------------------------------------------------------------------------

@pytest.fixture(scope="module")
def served(site: Path) -> Iterator[str]:
    server = preview_server(site, 0, site_path="/brief/")
    threading.Thread(target=server.serve_forever, daemon=True).start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}"
    finally:
        server.shutdown()
        server.server_close()


def _get(url: str, method: str = "GET") -> tuple[int, Message, bytes]:
    """Return the status, headers (case-insensitive) and body of a request."""
    request = urllib.request.Request(url, method=method)
    try:
        with urllib.request.urlopen(request, timeout=10) as r:
            return r.status, r.headers, r.read()
    except urllib.error.HTTPError as err:
        return err.code, err.headers, err.read()


def _redirect(url: str) -> tuple[int, str | None]:
    """Return the status and Location of a request, without following a redirect."""
    parts = urlsplit(url)
    connection = http.client.HTTPConnection(parts.hostname, parts.port, timeout=10)
    try:
        connection.request("GET", parts.path)
        response = connection.getresponse()
        return response.status, response.getheader("Location")
    finally:
        connection.close()


def _checks_as_a_host(base: str, site: Path) -> None:
    not_found = (site / "404.html").read_bytes()
    # Folders the build leaves without an index.html (issue 39): a host answers them with the
    # 404 page, with or without the last slash; the stdlib listed their files.
    assert not (site / "briefings" / "index.html").exists()
    assert not (site / "search" / "index.html").exists()
    for path in ("/no-such-page", "/brief/no/such/page/", "/briefings/2026-09-13/",
                 "/briefings/", "/brief/briefings/", "/briefings", "/search/", "/brief/search/",
                 "/brief/assets/"):
        status, headers, body = _get(base + path)
        assert b"Directory listing" not in body, path
        assert (status, headers["Content-Type"], body) == (404, "text/html; charset=utf-8",
                                                          not_found), path
        assert _redirect(base + path)[0] == 404, path  # at once, not after a redirect
    # A folder with an index.html: its page, and a path without the slash is sent to it.
    for path in ("/market", "/brief/market"):
        assert _redirect(base + path) == (301, path + "/")
        status, headers, body = _get(base + path + "/")
        assert (status, body) == (200, (site / "market" / "index.html").read_bytes()), path
    status, headers, body = _get(base + "/brief/nothing", method="HEAD")
    assert (status, headers["Content-Length"], body) == (404, str(len(not_found)), b"")
    for link in _not_found_links(site / "404.html"):  # /brief/…: the site under its path
        status, headers, body = _get(base + link)
        assert status == 200 and headers["Content-Type"] == "text/html; charset=utf-8", link
    assert _get(base + "/")[2] == _get(base + "/brief/")[2] == (site / "index.html").read_bytes()
    for path in ("/briefings/2026-09-12.txt", "/brief/briefings/2026-09-12.txt"):
        status, headers, body = _get(base + path)
        assert (status, headers["Content-Type"]) == (200, "text/plain; charset=utf-8")
        assert body.decode("utf-8").startswith("Test Brief — 2026-09-12\n")
    assert _get(base + "/brief/search/search_index.json")[1]["Content-Type"] == (
        "application/json; charset=utf-8")
    assert _get(base + "/brief/assets/extra.css")[1]["Content-Type"] == "text/css; charset=utf-8"


def test_preview_server_serves_like_a_host(served: str, site: Path) -> None:
    _checks_as_a_host(served, site)


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@pytest.mark.parametrize("verbose", [False, True], ids=["quiet", "verbose"])
def test_brief_serve_no_build_serves_the_built_site(site: Path, verbose: bool) -> None:
    port = _free_port()
    process = subprocess.Popen(
        [sys.executable, "-m", "pipeline.cli.main", "serve", "--no-build", "--root",
         str(site.parent), "--port", str(port), *(["--verbose"] if verbose else [])],
        stdout=subprocess.PIPE, stderr=subprocess.PIPE,
        text=True, env={**os.environ, "PYTHONPATH": str(REPO)})
    try:
        line = process.stdout.readline()  # printed once the socket is bound
        assert line == (f"serving {site} on http://127.0.0.1:{port}/ and under /brief/ "
                        "(Ctrl-C to stop)\n"), (line, process.poll())
        _checks_as_a_host(f"http://127.0.0.1:{port}", site)
    finally:
        stop(process)
    logged = process.stdout.read() + process.stderr.read()
    # The stdlib's line of a request: '127.0.0.1 - - [06/Dec/2026 07:00:00] "GET / HTTP/1.1" 200 -'
    requests = re.findall(r'"(GET|HEAD) (\S+) HTTP/1\.1" (\d{3})', logged)
    if verbose:  # every one: the pages, the redirects and the missing files
        assert {status for _, _, status in requests} == {"200", "301", "404"}, logged
        assert ("GET", "/brief/", "200") in requests
    else:  # only the answers a reader of the site would take for a fault: its missing files
        assert requests and {status for _, _, status in requests} == {"404"}, logged
        assert ("GET", "/no-such-page", "404") in requests
        assert "code 404, message" not in logged  # the stdlib's second line of each


def test_brief_serve_says_when_its_port_is_in_use(site: Path) -> None:
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        result = subprocess.run(
            [sys.executable, "-m", "pipeline.cli.main", "serve", "--no-build", "--root",
             str(site.parent), "--port", str(port)], capture_output=True, text=True,
            env={**os.environ, "PYTHONPATH": str(REPO)}, timeout=60)
    assert (result.returncode, result.stdout) == (1, "")
    assert result.stderr == f"error: port {port} is in use; pick another with --port\n"


def test_brief_serve_refuses_a_port_that_cannot_be(site: Path) -> None:
    result = CliRunner().invoke(main, ["serve", "--no-build", "--root", str(site.parent),
                                       "--port", "70000"])
    assert result.exit_code == 2  # click's usage error, before anything is read
    assert "Invalid value for '--port': 70000 is not in the range 0<=x<=65535." in result.output


def test_brief_serve_says_when_there_is_nothing_built(tmp_path: Path) -> None:
    result = subprocess.run([sys.executable, "-m", "pipeline.cli.main", "serve", "--no-build",
                             "--root", str(tmp_path)], capture_output=True, text=True,
                            env={**os.environ, "PYTHONPATH": str(REPO)}, timeout=60)
    assert result.returncode == 1 and "Traceback" not in result.stderr
    assert f"{(tmp_path / 'public').resolve()} does not exist: run `brief build` first" in result.stderr


# The bundled site --------------------------------------------------------------------------------

BUNDLED_TITLES = {  # each edition's date and the headline of its first top story's entry
    "2026-08-21": "DeepSeek starts charging double during weekday peak hours",
    "2026-09-04": "Claude Sonnet 5 moves to its full price",
    "2026-09-12": "DeepSeek takes Flash prices close to zero",
    "2026-09-25": "LiteLLM learns off-peak pricing",
    "2026-10-16": ("MLPerf v6.1: DeepSeek-R1 results on Blackwell racks, publication date still "
                   "unconfirmed"),
    "2026-11-20": "Analysis: DeepSeek's price moves since February 2025",
}


def test_bundled_editions_each_have_their_own_title_and_description(bundled_site: Path) -> None:
    descriptions = set()
    for day, headline in BUNDLED_TITLES.items():
        head = _head(bundled_site / "briefings" / day / "index.html")
        assert head.title == f"{day}: {headline} - Inference Brief"
        assert head.meta["og:title"] == f"{day}: {headline}"
        assert head.meta["og:description"] == head.meta["description"]
        assert 80 <= len(head.meta["description"]) <= 201, (day, head.meta["description"])
        descriptions.add(head.meta["description"])
    assert len(descriptions) == len(BUNDLED_TITLES)
    head = _head(bundled_site / "briefings" / "2026-09-12" / "index.html")
    # sources/entries/2026/09-10-deepseek-flash-price-cut.yaml, its first sentence and on.
    assert head.meta["description"].startswith(
        "DeepSeek lowered the prices of its Flash models on 10 September 2026, with immediate "
        "effect. ")
    home = _head(bundled_site / "index.html")
    assert home.title == home.meta["og:title"] == "Inference Brief"
    assert home.meta["description"].startswith("A briefing on the economics of AI inference")
