"""Every public XSS payload, placed in every text field of a feed, stays inert in a real browser.

Path: feed bytes → parse_feed → record_attempt (nh3, canonical URLs) → feed_stories, Sources page
and an item list (md_text / md_link / the cleaned summary HTML) → Python-Markdown with mkdocs'
extensions → headless Chromium. No dialog may fire; no script element, on* attribute or
non-http(s)/mailto URL may survive in the DOM.
"""

from __future__ import annotations

import contextlib
import datetime as dt
import http.server
import json
import os
import threading
from collections.abc import Iterator
from functools import partial
from pathlib import Path
from xml.sax.saxutils import escape

import markdown
import pytest

from pipeline.compose.rank import feed_stories
from pipeline.compose.sources_page import items_in_window
from pipeline.formats.feeds import parse_feed
from pipeline.models.feeds import Feed
from pipeline.normalize.feed_state import Attempt, record_attempt
from pipeline.normalize.items import md_link, md_text
from pipeline.render.sources_page import sources_page_md

CHROMIUM = "/usr/bin/chromium"
ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking",
        "--disable-component-update", "--no-first-run"]
EXTENSIONS = ["toc", "tables", "attr_list", "md_in_html", "admonition"]
NOW = dt.datetime(2026, 9, 12, 6, tzinfo=dt.UTC)
BATCH = 60

CHECK_JS = """() => {
  const root = document.getElementById('content');
  const bad = [];
  const banned = 'script,iframe,object,embed,svg,math,form,base,meta,link,style,frame,applet';
  for (const el of root.querySelectorAll(banned)) bad.push('element ' + el.tagName);
  const urlAttrs = ['href','src','action','formaction','xlink:href','poster','background',
                    'data','srcset','ping'];
  for (const el of root.querySelectorAll('*')) {
    for (const a of el.attributes) {
      const name = a.name.toLowerCase();
      if (name.startsWith('on')) bad.push('attribute ' + name + ' on ' + el.tagName);
      if (urlAttrs.includes(name)) {
        const v = a.value.replace(/[\\u0000-\\u0020]+/g, '').toLowerCase();
        const m = v.match(/^([a-z][a-z0-9+.-]*):/);
        if (m && !['http','https','mailto'].includes(m[1])) bad.push(name + '=' + a.value);
      }
    }
  }
  return bad;
}"""


SETTLE_JS = """() => new Promise(done => requestAnimationFrame(() => requestAnimationFrame(
  () => setTimeout(done))))"""


@contextlib.contextmanager
def served_page(folder: Path, browser) -> Iterator[tuple[object, str, list[str]]]:
    """Serve `folder` on 127.0.0.1 and give (a Chromium page that may reach nothing else, the
    site's base URL, the messages of every dialog that opens: a script that ran)."""
    handler = partial(http.server.SimpleHTTPRequestHandler, directory=str(folder))
    handler.log_message = lambda *a: None  # type: ignore[method-assign]
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    base = f"http://127.0.0.1:{server.server_address[1]}/"
    page = browser.new_page()
    page.route("**/*", lambda route: route.continue_() if route.request.url.startswith(base)
               else route.abort())
    dialogs: list[str] = []
    page.on("dialog", lambda d: (dialogs.append(d.message), d.dismiss()))
    try:
        yield page, base, dialogs
    finally:
        page.close()
        server.shutdown()


def settle(page) -> None:
    """Return once the page has run what its load queued: two rendering updates (autofocus and
    the like happen there) and a task after them (zero-delay timers queued before it). A
    dialog blocks the page's scripts until our handler dismisses it, so every dialog opened by
    then has been recorded when this returns: a point the page reaches, not a guessed delay."""
    page.evaluate(SETTLE_JS)


def payloads(real_data: Path) -> list[str]:
    out = []
    for path in sorted((real_data / "xss-vectors").glob("*.json")):
        doc = json.loads(path.read_text("utf-8"))
        for v in doc.get("vectors") or doc.get("cases") or []:
            out.append(v.get("payload", v.get("input", "")))
    return out


def feed_xml(payload: str, n: int) -> bytes:
    """An RSS feed with `payload` as the feed title and in every text field of one item."""
    text = escape(payload)
    cdata = payload.replace("]]>", "]]]]><![CDATA[>")
    return f"""<?xml version="1.0" encoding="utf-8"?>
<rss version="2.0" xmlns:content="http://purl.org/rss/1.0/modules/content/">
<channel><title>{text}</title><link>https://example.org/</link><language>zh</language>
<item><title>{text} price</title><link>{text}</link><guid>g{n}</guid>
<pubDate>Thu, 10 Sep 2026 08:00:00 GMT</pubDate><description><![CDATA[{cdata} inference]]>
</description><content:encoded><![CDATA[{cdata}]]></content:encoded><author>{text}</author></item>
<item><title>{text} pricing second</title><link>https://example.org/{n}?x={text}</link>
<description>{text} pricing</description><guid>h{n}</guid>
<pubDate>Thu, 10 Sep 2026 09:00:00 GMT</pubDate></item>
</channel></rss>""".encode()


def render_markdown(payload: str, n: int) -> str:
    """Return the Markdown our templates would produce for a feed carrying `payload`."""
    feed = Feed(id=f"f{n}", url="https://example.org/feed.xml", title=payload[:120].strip() or "x",
                region="cn", language="zh")
    parsed = parse_feed(feed_xml(payload, n), {"Content-Type": "application/rss+xml"},
                        str(feed.url))
    snap = record_attempt(feed, None, Attempt(status=200, parsed=parsed), NOW)
    parts = [f"### {md_text(snap.title or '')}"]
    for item in snap.items:
        parts += [f"#### {md_link(item.title, item.url)}", "", md_text(item.summary_text), "",
                  md_text(item.author or ""), "", f"<div>{item.summary_html}</div>", ""]
    topics = {"pricing": ["price", "pricing", "inference"]}
    for story in feed_stories([feed], {feed.id: snap}, topics, dt.date(2026, 9, 12), None,
                              local=True, limit=5, exclude_urls=set()):
        parts += [f"## {md_text(story.headline)}", f"*{md_text(story.original_headline or '')}*",
                  "", story.summary_md, ""]
        parts += [f"- {md_link(c.label, c.url)}" for c in story.citations]
        parts.append("")
    day, snaps = dt.date(2026, 9, 12), {feed.id: snap}
    parts.append(sources_page_md([feed], snaps, day, None,
                                 items_in_window([feed], snaps, day, None)))
    return "\n".join(parts)


@pytest.fixture(scope="module")
def browser():
    if not Path(CHROMIUM).exists():
        if os.environ.get("CI") == "true":
            pytest.fail(f"{CHROMIUM} is missing (CI=true requires it)")
        pytest.skip(f"{CHROMIUM} not installed")
    from playwright.sync_api import sync_playwright
    with sync_playwright() as pw:
        b = pw.chromium.launch(executable_path=CHROMIUM, args=ARGS)
        yield b
        b.close()


def test_no_payload_executes_or_survives_in_the_dom(real_data: Path, browser) -> None:
    vectors = payloads(real_data)
    assert len(vectors) == 437  # 425 distinct third-party payloads + the 12-case regression list
    page = browser.new_page()
    page.route("**/*", lambda route: route.abort())  # nothing leaves the machine
    dialogs: list[str] = []
    page.on("dialog", lambda d: (dialogs.append(d.message), d.dismiss()))
    findings: list[str] = []
    for start in range(0, len(vectors), BATCH):
        batch = vectors[start:start + BATCH]
        body = "\n".join(markdown.markdown(render_markdown(p, start + i), extensions=EXTENSIONS)
                         for i, p in enumerate(batch))
        page.set_content(f"<!doctype html><html><head><meta charset='utf-8'></head>"
                         f"<body><main id='content'>{body}</main></body></html>",
                         wait_until="load")
        settle(page)  # let zero-delay timers and autofocus handlers fire if any survived
        findings += [f"batch {start}: {f}" for f in page.evaluate(CHECK_JS)]
    page.close()
    executed = len(dialogs)
    print(f"\nXSS: {len(vectors)} payloads × 5 fields rendered, {executed} executed, "
          f"{len(findings)} DOM findings")
    assert dialogs == []
    assert findings == []


def test_the_oracle_catches_an_unescaped_payload(browser) -> None:
    page = browser.new_page()
    page.route("**/*", lambda route: route.abort())
    dialogs: list[str] = []
    page.on("dialog", lambda d: (dialogs.append(d.message), d.dismiss()))
    raw = markdown.markdown('<img src=x onerror=alert(1)> [x](javascript:alert(2))',
                            extensions=EXTENSIONS)
    # Handlers that run only after load (a zero-delay timer, autofocus, a details toggle) have
    # fired by the time settle() returns.
    later = ("<script>setTimeout(() => alert(3))</script><input autofocus onfocus=alert(4)>"
             "<details open ontoggle=alert(5)></details>")
    page.set_content(f"<main id='content'>{raw}{later}</main>", wait_until="load")
    settle(page)
    findings = page.evaluate(CHECK_JS)
    page.close()
    assert sorted(dialogs) == ["1", "3", "4", "5"]
    assert "attribute onerror on IMG" in findings
