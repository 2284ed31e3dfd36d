"""Which links may leave any Markdown we render: `http`, `https` and `mailto`, or a link within
the site (no scheme). The entry schema refuses others in an editor's text (`brief check` names
the field), and the renderer drops any that reach it anyway (render/safe_links.py)."""

from __future__ import annotations

import html
import re

ALLOWED_SCHEMES = frozenset({"http", "https", "mailto"})

# Browsers drop ASCII tabs and newlines anywhere in a URL and leading control characters and
# spaces, and decode character references in an attribute: `java&#9;script:` runs as
# `javascript:`. The scheme is judged after the same clean-up.
_IGNORED = re.compile(r"[\x00-\x20\x7f]+")
_SCHEME = re.compile(r"([a-z][a-z0-9+.\-]*):")


def link_scheme(url: str) -> str | None:
    """Return the scheme a browser would follow `url` with, lower-case; None for a relative link."""
    text = _IGNORED.sub("", html.unescape(url)).lower()
    match = _SCHEME.match(text)
    return match[1] if match else None


def is_allowed_link(url: str) -> bool:
    """May `url` be a link or an image source on a page, a feed or an e-mail of ours?"""
    scheme = link_scheme(url)
    return scheme is None or scheme in ALLOWED_SCHEMES


# Inline links and images `[text](target "title")` (the target optionally in <>), reference
# definitions `[id]: target`, and autolinks `<scheme:...>`.
_INLINE = re.compile(r"\]\(\s*<?([^)>]*)")
_REFERENCE = re.compile(r"^ {0,3}\[[^\]]+\]:\s*<?(\S+?)>?(?:\s|$)", re.MULTILINE)
_AUTOLINK = re.compile(r"<([a-zA-Z][a-zA-Z0-9+.\-]*:[^>\s]*)>")


def refused_links(markdown: str) -> list[str]:
    """Return the link targets in `markdown` whose scheme is not allowed, in order."""
    found = [*_INLINE.findall(markdown), *_REFERENCE.findall(markdown),
             *_AUTOLINK.findall(markdown)]
    return [url for url in found if not is_allowed_link(url)]
