"""A Markdown extension that lets no unsafe link out of any page we render, whoever wrote it.

Editors' text is checked by the entry schema and third-party text is escaped before it becomes
Markdown (render/escape.py); this is the last guard, on the HTML tree itself, after every other
step that can set a link or an attribute (attr_list's `{: onclick=... }` among them): a link or
image whose scheme is not http, https or mailto loses its address (the text stays), event
handler attributes are removed, and a `style` other than the column alignment the tables
extension writes. Listed in site/mkdocs.yml and in markdown_html.EXTENSIONS, so
pages, feeds and e-mail are rendered alike.

Raw HTML never reaches that tree: Python-Markdown keeps it aside (its "stash": the tags our
templates write around a snapshot's link, `<br>` in a table cell) and puts it back last. The
same rule is applied to each kept tag before it goes back (`_SafeRawHtml`), so a link read from
a snapshot a pull request changed is judged where it is rendered, whatever template wrote it.
A tag the rule leaves alone keeps its bytes.
"""

from __future__ import annotations

import html
import re
from html.parser import HTMLParser
from xml.etree.ElementTree import Element

from markdown import Extension, Markdown
from markdown.postprocessors import Postprocessor
from markdown.treeprocessors import Treeprocessor

from pipeline.models.links import is_allowed_link

URL_ATTRIBUTES = frozenset({"href", "src", "srcset", "action", "formaction", "poster", "cite",
                            "background", "data", "xlink:href", "ping"})
_ALIGNMENT = re.compile(r"text-align: (?:left|right|center);")


def refused_attribute(name: str, value: str | None) -> bool:
    """Does the rule drop this attribute: an event handler, a style other than a column's
    alignment, a link or source whose scheme is not allowed?"""
    lower = name.lower()
    return lower.startswith("on") or (
        lower == "style" and not _ALIGNMENT.fullmatch(value or "")) or (
        lower in URL_ATTRIBUTES and not is_allowed_link(value or ""))


def _clean_tree(root: Element) -> None:
    for element in root.iter():
        for name in [n for n, v in element.attrib.items() if refused_attribute(n, v)]:
            del element.attrib[name]


class _SafeLinks(Treeprocessor):
    def run(self, root) -> None:
        _clean_tree(root)


class _RefusedTags(HTMLParser):
    """Find the start tags of a piece of raw HTML that carry a refused attribute: each with
    its place, its text and the tag without them (HTMLParser reads tags as browsers do:
    unquoted values, `/` between attributes, character references in values)."""

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.found: list[tuple[tuple[int, int], str, str]] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        kept = [(n, v) for n, v in attrs if not refused_attribute(n, v)]
        if len(kept) < len(attrs):
            text = self.get_starttag_text() or ""
            rest = "".join(f" {n}" if v is None else f' {n}="{html.escape(v)}"' for n, v in kept)
            self.found.append((self.getpos(), text,
                               f"<{tag}{rest}{' /' if text.endswith('/>') else ''}>"))


_HANDLER_OR_STYLE = re.compile(r"""(?:^|[\s/"'])(?:on[^\s=/>]*|style)\s*=""", re.I)
_URL_NAMES = "|".join(re.escape(a) for a in sorted(URL_ATTRIBUTES, key=len, reverse=True))
_URL_VALUE = re.compile(
    r"""(?:^|[\s/"'])(?:""" + _URL_NAMES + r""")\s*=\s*(?:"([^"]*)"|'([^']*)'|([^\s>]+))""",
    re.I)


def _plainly_safe(raw: str) -> bool:
    """Is it plain without parsing that the rule changes nothing in `raw`: no handler or style
    attribute anywhere, and every link or source allowed? (The Market page's 1.4 MB table is one
    raw block: parsing its 160,000 tags took seconds a build.) Conservative: any doubt, and
    the block is parsed."""
    if _HANDLER_OR_STYLE.search(raw):
        return False
    return all(is_allowed_link(html.unescape(a or b or c))
               for a, b, c in _URL_VALUE.findall(raw))


def safe_raw_html(raw: str) -> str:
    """Return raw HTML with the rule applied to each start tag; a tag it keeps is unchanged."""
    if "=" not in raw or _plainly_safe(raw):
        return raw  # no attribute at all (the common `<br>`, `</div>`), or none it refuses
    parser = _RefusedTags()
    parser.feed(raw)
    parser.close()
    if not parser.found:
        return raw
    starts = [0, *(i + 1 for i, c in enumerate(raw) if c == "\n")]
    out, done = [], 0
    for (line, column), text, tag in parser.found:
        at = starts[line - 1] + column
        if raw.startswith(text, at):
            out += [raw[done:at], tag]
            done = at + len(text)
    return "".join([*out, raw[done:]])


class _SafeRawHtml(Postprocessor):
    """Applies the rule to each raw block of the stash once. The postprocessors run again for
    each heading (toc renders a heading's text through them, over the same stash), and judging
    every block again each time cost 4 s of a cold build of the bundled sources: the Market's
    1.4 MB table once per heading of the page. A string it made is not judged again (the rule
    changes nothing the second time), one put in its place is; a tree (md_in_html's) is
    cleaned every time, as other steps may still add to it."""

    def __init__(self, md: Markdown) -> None:
        super().__init__(md)
        self._made: dict[int, str] = {}  # place in the stash: the string the rule gave it

    def run(self, text: str) -> str:
        blocks = self.md.htmlStash.rawHtmlBlocks
        for i, block in enumerate(blocks):
            if not isinstance(block, str):  # md_in_html keeps some blocks as trees
                _clean_tree(block)
            elif self._made.get(i) is not block:  # held here, so never another's by identity
                blocks[i] = self._made[i] = safe_raw_html(block)
        return text


class SafeLinks(Extension):
    def extendMarkdown(self, md: Markdown) -> None:  # noqa: N802 (Python-Markdown's name)
        # After every other tree step: inline links (20), attr_list (8), toc (5), unescaping
        # attributes (0) and mkdocs' link rewriting (0).
        md.treeprocessors.register(_SafeLinks(md), "brief_safe_links", -100)
        # Before raw HTML is put back (30).
        md.postprocessors.register(_SafeRawHtml(md), "brief_safe_raw_html", 40)


def makeExtension(**kwargs: object) -> SafeLinks:  # noqa: N802 (how Markdown loads it by name)
    return SafeLinks(**kwargs)
