"""The module-level lists that decide what is safe, each tested through the function that uses it.

`make mutate` (mutmut) changes code inside functions only; the allowed link schemes, HTML tags
and attributes, the refused address ranges and the escaping patterns are module-level constants,
so they get tests of their own. Every entry of an allow-list has a case that must pass, so
dropping it fails; every entry of a hostile list has a case that must be refused, so adding it
to an allow-list fails. Expected outcomes are written by hand, or judged by the browser's own
rule for a link's scheme (the XSS corpus README's oracle, `browser_scheme`), never by the code
under test. Unit level, no browser: tests/test_xss_*.py render the corpus in Chromium.
"""

from __future__ import annotations

import asyncio
import datetime as dt
import ipaddress
import re
from html.parser import HTMLParser

import markdown
import pytest
from pydantic import TypeAdapter, ValidationError
from test_xss_feeds import payloads

from pipeline.formats.feeds import RawItem
from pipeline.ingest.http import FetchSettings, Refused, check_url
from pipeline.models.catalogues import Catalogue
from pipeline.models.entries import Entry, HttpUrl, Link
from pipeline.models.feeds import Feed
from pipeline.models.links import is_allowed_link, link_scheme, refused_links
from pipeline.models.prices import PriceRecord
from pipeline.normalize import items
from pipeline.render import escape
from pipeline.render.markdown_html import EXTENSIONS, markdown_html

SAFE_SCHEMES = {"http", "https", "mailto"}
ALLOWED_LINKS = ["http://example.org/a", "https://example.org/a?b=1", "mailto:desk@example.org"]
HOSTILE_LINKS = [
    "javascript:alert(1)",
    "JaVaScRiPt:alert(1)",
    "javascript://host/%0Aalert(1)",  # has a host name: passes a check of the host alone
    "vbscript:msgbox(1)",
    "data:text/html;base64,PHNjcmlwdD5hbGVydCgxKTwvc2NyaXB0Pg==",
    "data:image/svg+xml,<svg onload=alert(1)>",
    "file:///etc/passwd",
    "ftp://example.org/x",
    "blob:https://example.org/0b6c",
    "about:blank",
    "view-source:https://example.org/",  # a scheme with a hyphen
    "ms-msdt:/id%20PCWDiagnostic",
    "web+app:x",  # and with a plus
    "z39.50s://example.org/",  # and with digits and a dot
    " javascript:alert(1)",  # browsers strip leading spaces and C0 controls
    "\x00javascript:alert(1)",
    "\x01javascript:alert(1)",
    "\x1fjavascript:alert(1)",
    "\x7fjavascript:alert(1)",
    "java\tscript:alert(1)",  # and tabs and newlines anywhere
    "java\nscript:alert(1)",
    "java\rscript:alert(1)",
    "jav&#x09;ascript:alert(1)",  # and decode character references in an attribute
    "&#106;avascript:alert(1)",
    "javascript&colon;alert(1)",
]
RELATIVE_LINKS = ["../prices/", "#src-1", "/about/"]
# The attributes a browser follows a URL from (HTML, SVG).
URL_ATTRIBUTES = ["href", "src", "srcset", "action", "formaction", "poster", "cite",
                  "background", "data", "xlink:href", "ping"]


def browser_scheme(url: str) -> str | None:
    """Return the scheme a browser follows an attribute's `url` with (already entity-decoded,
    as the HTML parser gives it), by the WHATWG URL parser's first steps: leading and trailing
    C0 controls and spaces stripped, tabs and newlines removed anywhere; None when relative."""
    text = url.strip("".join(map(chr, range(0x21))))
    text = text.replace("\t", "").replace("\n", "").replace("\r", "")
    head, colon, _ = text.partition(":")
    scheme_chars = set("abcdefghijklmnopqrstuvwxyz0123456789+-.")
    if colon and head[:1].isascii() and head[:1].isalpha() and set(head.lower()) <= scheme_chars:
        return head.lower()
    return None


class _Attributes(HTMLParser):
    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.found: list[tuple[str, str, str | None]] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self.found += [(tag, name, value) for name, value in attrs]
        self.found.append((tag, "", None))  # the element itself, for the tag checks


def attributes(html: str) -> list[tuple[str, str, str | None]]:
    """Return (tag, attribute, decoded value) of every attribute in `html`, and (tag, "", None)
    for every element."""
    parser = _Attributes()
    parser.feed(html)
    parser.close()
    return parser.found


def unsafe_urls(html: str) -> list[str]:
    """Return the URL attributes' values in `html` a browser would follow with a scheme other
    than http, https or mailto."""
    return [value for _, name, value in attributes(html) if name in URL_ATTRIBUTES
            and value is not None and browser_scheme(value) not in (None, *SAFE_SCHEMES)]


# --- Link schemes: pipeline/models/links.py ALLOWED_SCHEMES (and its _IGNORED and _SCHEME
# patterns), the judge of every link in Markdown we render or an editor writes.

@pytest.mark.parametrize("url", HOSTILE_LINKS)
def test_the_link_judge_refuses_every_hostile_link(url: str) -> None:
    assert not is_allowed_link(url)


@pytest.mark.parametrize("url", ALLOWED_LINKS + RELATIVE_LINKS)
def test_the_link_judge_passes_web_mail_and_relative_links(url: str) -> None:
    assert is_allowed_link(url)


# The characters a browser drops inside a scheme are removed, not replaced: the scheme named is
# the one it follows, so a web link with a tab in it is still a web link.
@pytest.mark.parametrize(("url", "scheme"), [
    ("java\tscript:alert(1)", "javascript"), ("JAVA\nSCRIPT:alert(1)", "javascript"),
    ("jav&#x09;ascript:alert(1)", "javascript"), (" \x01https://example.org/a", "https"),
    ("ht\r\ntps://example.org/a", "https"), ("mail\tto:desk@example.org", "mailto")])
def test_the_link_judge_names_the_scheme_without_the_characters_a_browser_drops(
        url: str, scheme: str) -> None:
    assert link_scheme(url) == scheme
    assert is_allowed_link(url) == (scheme in SAFE_SCHEMES)


def test_the_oracle_tells_a_hostile_link_from_a_safe_one() -> None:
    # Every hostile link a browser would follow by its scheme is one the oracle calls unsafe:
    # the tests below that use it can fail.
    assert unsafe_urls('<a href="jav&#x09;ascript:x"><img src=" JAVA\nSCRIPT:y">') == [
        "jav\tascript:x", " JAVA\nSCRIPT:y"]
    assert unsafe_urls('<a href="https://e.org/" cite="mailto:a@b" ping="x:y/../">') == ["x:y/../"]
    assert unsafe_urls('<a href="\x7fjavascript:x" src="../a:b" title="javascript:">') == []


# Where editors' Markdown puts a link: inline, image, reference definition, autolink.
FORMS = {"inline": "See [the table]({}).", "image": "![chart]({})",
         "reference": "See [the table][r].\n\n[r]: {}", "autolink": "See <{}>."}


def _in_markdown(form: str, url: str) -> bool:
    """Does Markdown read `url` as a link in `form`? A reference definition or an autolink ends
    at white space, and an autolink starts with its scheme (else it is a tag)."""
    if form == "reference":
        return not any(c.isspace() for c in url)
    if form == "autolink":
        return re.fullmatch(r"[A-Za-z][A-Za-z0-9+.\-]*:[^\s<>]*", url) is not None
    return True


def entry(summary: str) -> Entry:
    return Entry.model_validate({"date": "2026-09-10", "section": "top", "headline": "H",
                                 "summary": summary,
                                 "links": [{"url": "https://example.org/a", "publisher": "X"}]})


@pytest.mark.parametrize(("form", "url"), [(f, u) for f in FORMS for u in HOSTILE_LINKS
                                           if _in_markdown(f, u)])
def test_a_curated_entry_with_a_hostile_link_is_refused(form: str, url: str) -> None:
    with pytest.raises(ValidationError, match="a link uses the .*: scheme; only http, https and "
                                              "mailto links"):
        entry(FORMS[form].format(url))


@pytest.mark.parametrize(("form", "url"), [(f, u) for f in ("inline", "image", "reference")
                                           for u in ALLOWED_LINKS + RELATIVE_LINKS]
                         + [("autolink", u) for u in ALLOWED_LINKS])
def test_a_curated_entry_with_a_web_mail_or_site_link_is_accepted(form: str, url: str) -> None:
    assert refused_links(entry(FORMS[form].format(url)).summary) == []


@pytest.mark.parametrize("form", ["inline", "image", "reference"])
@pytest.mark.parametrize("url", HOSTILE_LINKS)
def test_the_renderer_lets_no_hostile_link_out_of_markdown(form: str, url: str) -> None:
    # The last guard (render/safe_links.py) for Markdown the entry schema never saw.
    html = markdown_html(FORMS[form].format(url))
    assert unsafe_urls(html) == []


@pytest.mark.parametrize("url", ALLOWED_LINKS + RELATIVE_LINKS)
def test_the_renderer_keeps_web_mail_and_site_links(url: str) -> None:
    assert attributes(markdown_html(f"[x]({url})")) == [("p", "", None), ("a", "href", url),
                                                        ("a", "", None)]


# --- The renderer's attribute guard: pipeline/render/safe_links.py URL_ATTRIBUTES and
# _ALIGNMENT, on attributes attr_list (`{: name="value" }`) sets on any element.


@pytest.mark.parametrize("name", URL_ATTRIBUTES)
@pytest.mark.parametrize("url", ["javascript:alert(1)", "java&#x09;script:alert(1)",
                                 "data:text/html,<script>alert(1)</script>"])
def test_a_hostile_url_in_any_url_attribute_is_removed(name: str, url: str) -> None:
    html = markdown_html(f'[x](https://example.org/){{: {name}="{url}" }}\n\n'
                         f'A paragraph.\n{{: {name}="{url}" }}')
    assert not [a for a in attributes(html) if a[1] == name], html


@pytest.mark.parametrize("name", URL_ATTRIBUTES)
def test_a_web_url_in_a_url_attribute_is_kept(name: str) -> None:
    html = markdown_html(f'A paragraph.\n{{: {name}="https://example.org/x" }}')
    assert ("p", name, "https://example.org/x") in attributes(html)


@pytest.mark.parametrize("name", ["onclick", "onmouseover", "OnLoad", "ONERROR"])
def test_an_event_handler_attribute_is_removed_whatever_its_case(name: str) -> None:
    html = markdown_html(f'[x](https://example.org/){{: {name}="alert(1)" }}\n\n'
                         f'A paragraph.\n{{: {name}="alert(1)" title="t" }}')
    assert attributes(html) == [("p", "", None), ("a", "href", "https://example.org/"), ("a", "", None),
                                ("p", "title", "t"), ("p", "", None)]


@pytest.mark.parametrize("align", ["left", "right", "center"])
def test_the_column_alignment_style_of_tables_is_kept(align: str) -> None:
    rule = {"left": ":--", "right": "--:", "center": ":-:"}[align]
    html = markdown_html(f"| a |\n|{rule}|\n| 1 |")
    assert [v for _, n, v in attributes(html) if n == "style"] == [f"text-align: {align};"] * 2


@pytest.mark.parametrize("style", [
    "position: fixed; inset: 0", "text-align: right; position: fixed",
    "background: url(javascript:alert(1))", "text-align: justify;", "text-align: left;;",
    "TEXT-ALIGN: LEFT;"])
def test_any_other_style_is_removed(style: str) -> None:
    html = markdown_html(f'A paragraph.\n{{: style="{style}" }}')
    assert not [a for a in attributes(html) if a[1] == "style"]


# --- Editors' raw HTML: pipeline/render/escape.py _RAW_TAG, which lets only http(s) and
# mailto autolinks through md_editor.

@pytest.mark.parametrize("url", ALLOWED_LINKS)
def test_an_editors_web_or_mail_autolink_stays_a_link(url: str) -> None:
    assert escape.md_editor(f"See <{url}>.") == f"See <{url}>."


@pytest.mark.parametrize("raw", [f"<{u}>" for u in HOSTILE_LINKS if _in_markdown("autolink", u)]
                         + ["<https://example.org/ onmouseover=alert(1)>",
                            "<script>alert(1)</script>", "<img src=x onerror=alert(1)>",
                            '<a href="javascript:alert(1)">x</a>', "<!-- x -->", "<svg/onload=1>"])
def test_an_editors_raw_html_or_other_autolink_is_made_text(raw: str) -> None:
    assert escape.md_editor(f"See {raw}") == "See &lt;" + raw[1:].replace("<", "&lt;")


# --- Feed items: the http/https check of pipeline/normalize/items.py canonical_url (a feed
# item's link must be a web page: mailto too is refused), on the way to every page and feed.

FEED = "https://feed.example/blog/feed.xml"


def raw_item(link: str | None, guid: str | None = None) -> RawItem:
    return RawItem(guid=guid, link=link, title="T", summary="S", published=None, language=None,
                   author=None)


def normalized(raw: RawItem):
    return items.normalize_item(raw, feed_url=FEED, feed_language="en",
                                first_seen=dt.datetime(2026, 9, 10, tzinfo=dt.UTC),
                                now=dt.datetime(2026, 9, 12, tzinfo=dt.UTC))


def _on_the_feeds_site(url: str | None) -> bool:
    # A link that a browser reads as relative is resolved against the feed: a page of its site.
    return url is None or url.startswith("https://feed.example/")


@pytest.mark.parametrize("url", [*HOSTILE_LINKS, "mailto:desk@example.org",
                                 "mailto://desk@example.org/"])  # has a host name
def test_a_feed_items_hostile_link_or_id_becomes_no_link(url: str) -> None:
    by_link = normalized(raw_item(url)).url
    by_guid = normalized(raw_item(None, guid=url)).url  # an id that is a URL stands in
    if browser_scheme(url) is None:  # not a scheme to a browser either: a path of the feed's site
        assert _on_the_feeds_site(by_link) and _on_the_feeds_site(by_guid)
    else:
        assert (by_link, by_guid) == (None, None)
    assert items.md_link("Label", url) == "Label"


@pytest.mark.parametrize(("url", "canonical"), [
    ("http://example.org/a", "http://example.org/a"),
    ("HTTPS://Example.ORG/a?b=1", "https://example.org/a?b=1"),
    ("/a", "https://feed.example/a"),
])
def test_a_feed_items_web_link_is_kept(url: str, canonical: str) -> None:
    assert normalized(raw_item(url)).url == canonical
    assert normalized(raw_item(None, guid=url)).url == canonical


# --- Editors' and catalogues' addresses: pipeline/models/entries.py HttpUrl (allowed_schemes
# http, https), the type of every source's and citation's URL field.

def _with_url(model: type, url: str) -> dict:
    return {
        Link: {"url": url, "publisher": "X"},
        Feed: {"id": "f", "url": url, "title": "F"},
        Catalogue: {"id": "c", "name": "C", "url": url, "page": url, "format": "litellm",
                    "licence": "MIT", "attribution": "A", "use": "published"},
        PriceRecord: {"model": "m", "from": "2026-01-01", "checked": "2026-01-01",
                      "prices": [{"meter": "input", "price": 1}], "source_url": url},
    }[model]


SOURCE_MODELS = [Link, Feed, Catalogue, PriceRecord]


@pytest.mark.parametrize("url", [*HOSTILE_LINKS, "mailto:desk@example.org"])
def test_the_web_address_type_refuses_every_other_scheme(url: str) -> None:
    # The type of the hardware files' URLs too, and of any model to come.
    with pytest.raises(ValidationError):
        TypeAdapter(HttpUrl).validate_python(url)


@pytest.mark.parametrize("model", SOURCE_MODELS, ids=lambda m: m.__name__)
@pytest.mark.parametrize("url", [*HOSTILE_LINKS, "mailto:desk@example.org"])
def test_a_source_url_that_is_not_a_web_address_is_refused(model: type, url: str) -> None:
    with pytest.raises(ValidationError):
        model.model_validate(_with_url(model, url))


@pytest.mark.parametrize("model", SOURCE_MODELS, ids=lambda m: m.__name__)
@pytest.mark.parametrize("url", ALLOWED_LINKS[:2])
def test_a_source_url_that_is_a_web_address_is_accepted(model: type, url: str) -> None:
    model.model_validate(_with_url(model, url))


# --- Feed summaries' HTML: pipeline/normalize/items.py ALLOWED_TAGS, ALLOWED_ATTRIBUTES,
# URL_SCHEMES and the elements dropped with their content (_CLEANER, _TEXT_ONLY).

REL = ' rel="noopener noreferrer nofollow ugc"'


@pytest.mark.parametrize(("html", "cleaned"), [
    ('<a href="https://e.org/x" title="t">x</a>', f'<a href="https://e.org/x" title="t"{REL}>x</a>'),
    ('<abbr title="t">x</abbr>', '<abbr title="t">x</abbr>'),
    ("a<br>b", "a<br>b"),
    *[(f"<{t}>x</{t}>", f"<{t}>x</{t}>") for t in ("b", "blockquote", "code", "em", "i", "li",
                                                  "ol", "p", "pre", "q", "strong", "sub", "sup",
                                                  "ul")],
])
def test_the_sanitizer_keeps_each_allowed_element(html: str, cleaned: str) -> None:
    assert items.clean_html(html) == cleaned


# Elements that run script, load or embed something, take input, restyle the page or make the
# HTML parser read what follows differently.
HOSTILE_TAGS = ["script", "style", "iframe", "frameset", "object", "embed", "applet",
                "param", "svg", "math", "img", "picture", "source", "video", "audio",
                "track", "form", "input", "button", "select", "option", "textarea", "keygen",
                "isindex", "base", "link", "meta", "title", "head", "body", "html", "template",
                "slot", "noscript", "noembed", "noframes", "xmp", "plaintext", "listing",
                "marquee", "details", "dialog", "canvas", "portal", "area", "map", "bgsound",
                "font", "center", "foreignobject", "animate", "set"]


@pytest.mark.parametrize("tag", HOSTILE_TAGS)
def test_the_sanitizer_removes_each_hostile_element(tag: str) -> None:
    for html in (f"<p>a<{tag} id=x>b</{tag}>c</p>", f"<{tag.upper()}/>", f"<{tag}>"):
        assert not [a for a in attributes(items.clean_html(html)) if a[0] == tag], html


def test_no_public_xss_payload_leaves_a_hostile_element_attribute_or_link(real_data) -> None:
    # The corpus of tests/test_xss_*.py at the unit level, through the three ways text enters
    # a page: a feed's HTML (clean_html), third-party text (md_text), an editor's Markdown.
    vectors = payloads(real_data)
    assert len(vectors) == 437
    for payload in vectors:
        for html in (items.clean_html(payload), markdown_html(items.md_text(payload)),
                     markdown_html(escape.md_editor(payload))):
            found = attributes(html)
            assert not [a for a in found if a[0] in HOSTILE_TAGS or a[1].startswith("on")], html
            assert unsafe_urls(html) == [], html


# Dropped with their content: script source or a style sheet is no summary, and an unclosed
# svg or math would swallow what follows.
DROPPED_WITH_CONTENT = ["script", "style", "svg", "math", "template", "noscript", "iframe",
                        "object", "textarea", "title"]


@pytest.mark.parametrize("tag", DROPPED_WITH_CONTENT)
def test_script_style_and_their_kin_leave_no_text(tag: str) -> None:
    html = f"<p>before <{tag}>secret</{tag}> after</p>"
    assert items.clean_html(html) == "<p>before  after</p>"
    assert items.plain_text(html) == "before after"


@pytest.mark.parametrize("name", [
    "onclick", "onmouseover", "onerror", "onfocus", "style", "id", "name", "class", "target",
    "src", "srcset", "action", "formaction", "ping", "download", "form", "xmlns", "xlink:href",
    "data-x", "tabindex", "autofocus", "contenteditable", "accesskey", "background", "lowsrc",
    "dynsrc", "cite", "srcdoc"])
def test_the_sanitizer_removes_each_hostile_attribute(name: str) -> None:
    for html in (f'<a href="https://e.org/" {name}="javascript:alert(1)">x</a>',
                 f'<a href="https://e.org/" {name}="https://tracker.example/">x</a>',
                 f'<abbr {name}="x">y</abbr>', f'<p {name}="x">y</p>',
                 f'<blockquote {name}="https://e.org/">y</blockquote>'):
        assert name not in [a[1] for a in attributes(items.clean_html(html))], html


@pytest.mark.parametrize("url", ALLOWED_LINKS + RELATIVE_LINKS)
def test_the_sanitizer_keeps_web_mail_and_relative_links(url: str) -> None:
    assert ("a", "href", url) in attributes(items.clean_html(f'<a href="{url}">x</a>'))


@pytest.mark.parametrize("url", HOSTILE_LINKS)
def test_the_sanitizer_lets_no_hostile_link_out(url: str) -> None:
    for html in (f'<a href="{url}">x</a>', f"<a href='{url}'>x</a>", f'<q cite="{url}">x</q>'):
        assert unsafe_urls(items.clean_html(html)) == [], html


# --- Text made inert: pipeline/normalize/items.py _MD_SPECIAL and _CONTROL, and
# pipeline/render/escape.py _MD_SPECIAL, for third-party text put into Markdown.

# (text, where a template puts it, the HTML Markdown must make of it) for each character the
# escaping must cover: the text comes out as itself, no element is formed.
INERT = [
    ("*a*", "{}", "<p>*a*</p>"),
    ("_a_", "{}", "<p>_a_</p>"),
    ("`a`", "{}", "<p>`a`</p>"),
    ("\\*a\\*", "{}", "<p>\\*a\\*</p>"),
    ("# a", "{}", "<p># a</p>"),
    ("+ a", "{}", "<p>+ a</p>"),
    ("- a", "{}", "<p>- a</p>"),
    ("1. a", "{}", "<p>1. a</p>"),
    ("[a](https://e.org/)", "{}", "<p>[a](https://e.org/)</p>"),
    ("![a](https://e.org/i.png)", "{}", "<p>![a](https://e.org/i.png)</p>"),
    ("a {: onclick=alert(1) }", "### {}", '<h3 id="a-onclickalert1">a {: onclick=alert(1) }</h3>'),
    ("a | b", "| h |\n|---|\n| {} |", "<td>a | b</td>"),
    ("a]b", "[{}](https://e.org/)", '<a href="https://e.org/">a]b</a>'),  # a link's label
    ("a[b", "[{}](https://e.org/)", '<a href="https://e.org/">a[b</a>'),
]


@pytest.mark.parametrize("md_text", [items.md_text, escape.md_text],
                         ids=["normalize.items", "render.escape"])
@pytest.mark.parametrize(("text", "context", "html"), INERT)
def test_third_party_text_forms_no_markdown(md_text, text: str, context: str, html: str) -> None:
    rendered = markdown.markdown(context.format(md_text(text)), extensions=list(EXTENSIONS))
    assert html in rendered.replace("&#x27;", "'").replace("&quot;", '"'), rendered


def test_quotes_in_markdown_text_stay_quotes_in_a_heading_and_its_anchor() -> None:
    # An escaped quote (&#x27;) would have its # escaped too: the heading would show the entity
    # and its anchor would read "itx27s" (the toc double-escaped it).
    text = 'it\'s "x"'
    assert escape.md_text(text) == text
    rendered = markdown.markdown(f"### {escape.md_text(text)}", extensions=list(EXTENSIONS))
    assert rendered == '<h3 id="its-x">it\'s "x"</h3>', rendered


def test_a_table_cells_pipe_is_an_entity() -> None:
    # md_text's `\|` ends a cell in some renderers; the entity never does, and shows as a pipe.
    assert escape.md_cell("a | b") == "a &#124; b"
    assert escape.md_cell("*x*|<y>") == "\\*x\\*&#124;&lt;y&gt;"
    rendered = markdown.markdown(f"| h |\n|---|\n| {escape.md_cell('a | b')} |",
                                 extensions=list(EXTENSIONS))
    assert "<td>a &#124; b</td>" in rendered, rendered


# Controls, zero-width and direction marks and overrides (a reversed file name, a hidden word):
# one of each end of each range the pattern removes.
INVISIBLE = ["\x00", "\x08", "\x0b", "\x0c", "\x0e", "\x1f", "\x7f", "\u200b", "\u200f",
             "\u2028", "\u202a", "\u202e", "\u2066", "\u2069"]


@pytest.mark.parametrize("char", INVISIBLE, ids=lambda c: f"U+{ord(c):04X}")
def test_invisible_and_direction_characters_are_removed(char: str) -> None:
    assert items.plain_text(f"pay{char}load") == "payload"
    assert items.md_text(f"pay{char}load") == "payload"


@pytest.mark.parametrize("char", ["\t", "\n", "\r", " ", "\u00a0"], ids=repr)
def test_white_space_stays_a_space(char: str) -> None:
    assert items.plain_text(f"a{char}b") == "a b"


# --- Refused addresses: pipeline/ingest/addresses.py (_NAT64, _NAT64_LOCAL and the address
# properties it reads) through ingest/http.py check_url, with FetchSettings' default of no
# allowed network.

def _teredo(client: str) -> str:
    """The Teredo address (2001::/32) of `client` behind the server 65.54.227.120: the client's
    bits are stored inverted (RFC 4380)."""
    c = int.from_bytes(bytes(map(int, client.split(".")))) ^ 0xFFFFFFFF
    return f"2001:0:4136:e378:0:0:{c >> 16:x}:{c & 0xFFFF:x}"


REFUSED_HOSTS = [
    "127.0.0.1", "127.255.255.254", "localhost", "127.1", "2130706433", "0x7f000001",
    "10.0.0.1", "10.255.255.254", "172.16.0.1", "172.31.255.254", "192.168.0.1",
    "192.168.255.254", "169.254.169.254", "169.254.0.1", "0.0.0.0", "0.1.2.3", "100.64.0.1",
    "100.127.255.254", "224.0.0.1", "239.255.255.250", "255.255.255.255", "192.0.2.1",
    "198.18.0.1", "198.51.100.1", "203.0.113.1", "240.0.0.1",
    "[::1]", "[::]", "[fc00::1]", "[fdff:ffff::1]", "[fe80::1]", "[febf::1]", "[fec0::1]",
    "[ff02::1]", "[ff0e::1]", "[2001:db8::1]", "[100::1]", "[::ffff:127.0.0.1]",
    "[::ffff:10.0.0.1]", "[::ffff:169.254.169.254]", "[::10.0.0.1]", "[64:ff9b::7f00:1]",
    "[64:ff9b:1::5db8:d822]", "[2002:c0a8:101::1]", f"[{_teredo('10.0.0.1')}]",
    "[::1:a00:1]",  # ::/8 (reserved) with more than 32 bits set: carries no IPv4 address
]
PUBLIC_HOSTS = [
    "93.184.216.34", "8.8.8.8", "1.1.1.1", "[2606:2800::1]", "[2001:4860:4860::8888]",
    "[::ffff:93.184.216.34]", "[64:ff9b::5db8:d822]", "[2002:5db8:d822::1]",
    f"[{_teredo('93.184.216.34')}]",
]


def check(url: str, settings: FetchSettings | None = None) -> None:
    asyncio.run(check_url(url, settings or FetchSettings()))


@pytest.mark.parametrize("host", REFUSED_HOSTS)
def test_a_non_public_address_is_refused(host: str) -> None:
    with pytest.raises(Refused, match=r"^refused: .* address \(not fetched, to protect internal "
                                      r"services\)$"):
        check(f"http://{host}/feed.xml")


# The kind the refusal names (ingest/addresses.py address_kind), by hand from the IANA
# special-purpose registries as Python's ipaddress reads them: one case per kind, per way IPv6
# carries IPv4, and at the edges of the IPv4-compatible form ::a.b.c.d (more than :: and ::1,
# at most 32 bits).
REFUSED_KINDS = {
    "127.0.0.1": "loopback",
    "169.254.169.254": "link-local",
    "10.0.0.1": "private",
    "224.0.0.1": "multicast",
    "100.64.0.1": "non-public",  # shared address space (RFC 6598): neither private nor global
    "::1": "loopback",
    "::2": "private (as 0.0.0.2 inside IPv6)",  # 0.0.0.0/8 is private
    "::1:a00:1": "reserved",  # 2**32 + 10.0.0.1: one bit too many for ::a.b.c.d
    "fe80::1": "link-local",
    "fd00::1": "private",
    "ff02::1": "multicast",
    "fec0::1": "site-local",
    "64:ff9b:1::a00:1": "local NAT64",
    "::ffff:127.0.0.1": "loopback (as 127.0.0.1 inside IPv6)",
    "::10.0.0.1": "private (as 10.0.0.1 inside IPv6)",
    "64:ff9b::a00:1": "private (as 10.0.0.1 inside IPv6)",
    "2002:a00:1::1": "private (as 10.0.0.1 inside IPv6)",
    _teredo("10.0.0.1"): "private (as 10.0.0.1 inside IPv6)",
}


@pytest.mark.parametrize(("address", "kind"), REFUSED_KINDS.items())
def test_a_refusal_names_the_kind_of_address(address: str, kind: str) -> None:
    host = f"[{address}]" if ":" in address else address
    ip = ipaddress.ip_address(address)
    with pytest.raises(Refused) as refused:
        check(f"http://{host}/feed.xml")
    assert str(refused.value) == (f"refused: {address} is at {ip}, a {kind} address (not fetched, "
                                  "to protect internal services)")


@pytest.mark.parametrize("host", PUBLIC_HOSTS)
def test_a_public_address_passes(host: str) -> None:
    check(f"https://{host}/feed.xml")  # resolved, not connected to


def test_an_allowed_network_opens_that_network_only() -> None:
    loopback = FetchSettings(allowed_networks=("127.0.0.0/8",))
    check("http://127.0.0.1/", loopback)
    check("http://[::ffff:127.0.0.1]/", loopback)
    with pytest.raises(Refused):
        check("http://10.0.0.1/", loopback)


@pytest.mark.parametrize("url", [*HOSTILE_LINKS, "mailto:desk@example.org"])
def test_ingest_fetches_only_http_and_https(url: str) -> None:
    with pytest.raises(Refused, match="is not an http"):
        check(url.replace("example.org", "93.184.216.34"))


@pytest.mark.parametrize("url", ["http://93.184.216.34/feed.xml", "https://93.184.216.34/feed.xml"])
def test_ingest_fetches_http_and_https(url: str) -> None:
    check(url)
