"""Make text safe for the formats we write: Markdown pages and plain-text editions.

Python-Markdown passes raw HTML and `javascript:` links through, and jinja2 does not autoescape
Markdown templates (ARCHITECTURE.md), so text is escaped here before it enters a template.
"""

from __future__ import annotations

import html
import re

_MD_SPECIAL = re.compile(r"([\\`*_{}\[\]()#+\-.!|~>])")


def md_text(text: str) -> str:
    """Return `text` as Markdown that renders as exactly that text: HTML-escaped, specials escaped."""
    flat = " ".join(str(text).split())
    return _MD_SPECIAL.sub(r"\\\1", html.escape(flat, quote=False))


def md_cell(text: str) -> str:
    """Return `text` as inert Markdown inside a table cell: `md_text`, with the pipe as an
    entity (a cell ends at a pipe, escaped or not, in some renderers)."""
    return md_text(text).replace("\\|", "&#124;")


_BACKTICKS = re.compile(r"`+")


def md_code(text: str) -> str:
    """Return `text` as a Markdown code span that shows exactly that text: fenced by one more
    backtick than its longest run (a backtick inside cannot end the span early); the code span
    escapes `<` and `&` itself, and a pipe is an entity, as in `md_cell`."""
    flat = " ".join(str(text).split()).replace("|", "&#124;")
    fence = "`" * (max(map(len, _BACKTICKS.findall(flat)), default=0) + 1)
    pad = " " if flat.startswith("`") or flat.endswith("`") else ""
    return f"{fence}{pad}{flat}{pad}{fence}"


_RAW_TAG = re.compile(r"<(?!(?:https?://|mailto:)[^>\s]*>)")


def md_editor(markdown: str) -> str:
    """Return an editor's Markdown with raw HTML neutralized (autolinks stay links)."""
    return _RAW_TAG.sub("&lt;", markdown)


_LINK = re.compile(r"!?\[([^\]]*)\]\([^)]*\)")
_AUTOLINK = re.compile(r"<((?:https?://|mailto:)[^>\s]+)>")
_EMPHASIS = re.compile(r"(?<!\\)(\*\*|__|\*|_|`)(?=\S)(.+?)(?<=[^\s\\])\1")
_ESCAPED = re.compile(r"\\([\\`*_{}\[\]()#+\-.!|~>])")


def plain_text(markdown: str) -> str:
    """Return Markdown as plain text for the text edition: link text kept, markup dropped."""
    text = _LINK.sub(r"\1", markdown)
    text = _AUTOLINK.sub(r"\1", text)
    text = _EMPHASIS.sub(r"\2", text)
    text = _ESCAPED.sub(r"\1", text)
    text = html.unescape(text)
    return " ".join(text.split())
