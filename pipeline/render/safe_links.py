"""A Markdown extension that lets no unsafe link out of any page we render, whoever wrote it.

Editors' text is checked by the entry schema and third-party text is escaped before it becomes
Markdown (render/escape.py); this is the last guard, on the HTML tree itself, after every other
step that can set a link or an attribute (attr_list's `{: onclick=... }` among them): a link or
image whose scheme is not http, https or mailto loses its address (the text stays), event
handler attributes are removed, and a `style` other than the column alignment the tables
extension writes. Listed in site/mkdocs.yml and in markdown_html.EXTENSIONS, so
pages, feeds and e-mail are rendered alike.
"""

from __future__ import annotations

import re

from markdown import Extension, Markdown
from markdown.treeprocessors import Treeprocessor

from pipeline.models.links import is_allowed_link

URL_ATTRIBUTES = frozenset({"href", "src", "srcset", "action", "formaction", "poster", "cite",
                            "background", "data", "xlink:href", "ping"})
_ALIGNMENT = re.compile(r"text-align: (?:left|right|center);")


class _SafeLinks(Treeprocessor):
    def run(self, root) -> None:
        for element in root.iter():
            for name in list(element.attrib):
                lower = name.lower()
                value = element.attrib[name]
                if lower.startswith("on") or (
                        lower == "style" and not _ALIGNMENT.fullmatch(value)) or (
                        lower in URL_ATTRIBUTES and not is_allowed_link(value)):
                    del element.attrib[name]


class SafeLinks(Extension):
    def extendMarkdown(self, md: Markdown) -> None:  # noqa: N802 (Python-Markdown's name)
        # After every other tree step: inline links (20), attr_list (8), toc (5), unescaping
        # attributes (0) and mkdocs' link rewriting (0).
        md.treeprocessors.register(_SafeLinks(md), "brief_safe_links", -100)


def makeExtension(**kwargs: object) -> SafeLinks:  # noqa: N802 (how Markdown loads it by name)
    return SafeLinks(**kwargs)
