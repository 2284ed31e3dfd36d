"""Pure: turn a publisher's raw item into one we can store and render safely.

Every function takes its inputs (including "now") as arguments. Two outputs are safe to render:
`clean_html` (HTML cleaned to a small allow-list) and `md_text` (any string made inert inside a
Markdown template). Everything else here is plain text that still needs `md_text` on its way out.
"""

from __future__ import annotations

import datetime as dt
import hashlib
import html
import re
import unicodedata
from typing import TYPE_CHECKING
from urllib.parse import parse_qsl, quote, urlencode, urljoin, urlsplit, urlunsplit

import nh3

from pipeline.models.feeds import SnapshotItem

if TYPE_CHECKING:
    # A type only: the build ranks kept items without importing feedparser (~0.03 s).
    from pipeline.formats.feeds import RawItem

# Small on purpose: text structure and links only. No svg/math (an unclosed one swallows what
# follows: ARCHITECTURE.md), no form, no style, no img (tracking pixels, layout breakage).
ALLOWED_TAGS = {"a", "abbr", "b", "blockquote", "br", "code", "em", "i", "li", "ol", "p", "pre",
                "q", "strong", "sub", "sup", "ul"}
ALLOWED_ATTRIBUTES = {"a": {"href", "title"}, "abbr": {"title"}}
URL_SCHEMES = {"http", "https", "mailto"}
_CLEANER = nh3.Cleaner(tags=ALLOWED_TAGS, attributes=ALLOWED_ATTRIBUTES, url_schemes=URL_SCHEMES,
                       link_rel="noopener noreferrer nofollow ugc", strip_comments=True,
                       clean_content_tags={"script", "style", "svg", "math", "template",
                                           "noscript", "iframe", "object", "textarea", "title"})
_TEXT_ONLY = nh3.Cleaner(tags=set(), attributes={}, strip_comments=True,
                         clean_content_tags={"script", "style", "svg", "math", "template",
                                             "noscript", "iframe", "object", "textarea", "title"})

# Query parameters that only say where a click came from; removing them makes the same story
# from two newsletters one URL.
_TRACKING_EXACT = {"fbclid", "gclid", "dclid", "msclkid", "mc_cid", "mc_eid", "igshid", "yclid",
                   "_hsenc", "_hsmi", "mkt_tok", "ref_src", "ref_url", "spm", "share_source",
                   "from_source", "vero_id", "oly_enc_id", "oly_anon_id", "rss", "ncid"}
_TRACKING_PREFIX = ("utm_", "pk_", "mtm_", "hsa_")

# Markdown's own escapable characters (Python-Markdown ESCAPED_CHARS plus `|` for tables).
_MD_SPECIAL = re.compile(r"([\\`*_{}\[\]()#+\-.!|])")
_CONTROL = re.compile(r"[\x00-\x08\x0b\x0c\x0e-\x1f\x7f\u200b-\u200f\u2028-\u202e\u2066-\u2069]")
_SPACE = re.compile(r"\s+")

SUMMARY_CHARS = 280
"""Length of the plain-text summary, cut at a word boundary."""
TITLE_CHARS = 200
FIELD_CAP_BYTES = 64 * 1024
"""The most a snapshot keeps of one item's field (its HTML summary; a longer link is dropped):
snapshots are committed every day, and one item of a real feed carried 2.4 MB of HTML."""
FUTURE_SLACK = dt.timedelta(minutes=15)
"""Clock skew we forgive before a date counts as in the future."""


def canonical_url(link: str | None, base: str) -> str | None:
    """Return `link` made absolute against `base`, tracking parameters removed; None unless http(s)."""
    if not link:
        return None
    link = _CONTROL.sub("", link).strip()
    try:
        parts = urlsplit(urljoin(base, link))
        port = parts.port
    except ValueError:
        return None
    scheme = parts.scheme.lower()
    if scheme not in ("http", "https") or not parts.hostname:
        return None
    host = parts.hostname.lower().rstrip(".")
    if ":" in host:
        host = f"[{host}]"
    if port and (scheme, port) not in (("http", 80), ("https", 443)):
        host = f"{host}:{port}"
    query = [(k, v) for k, v in parse_qsl(parts.query, keep_blank_values=True)
             if k.lower() not in _TRACKING_EXACT and not k.lower().startswith(_TRACKING_PREFIX)]
    # Re-quote so no raw space, quote or angle bracket survives into an href.
    path = quote(parts.path or "/", safe="/%:@!$&'*+,;=-._~")
    return urlunsplit((scheme, host, path, urlencode(query, quote_via=quote), ""))


def item_id(guid: str | None, url: str | None, title: str, summary: str) -> str:
    """Return a stable id: a hash of the GUID, else of the canonical URL, else of title+summary."""
    if guid and guid.strip():
        key = "guid:" + guid.strip()
    elif url:
        key = "url:" + url
    else:
        key = "text:" + plain_text(title) + "\n" + plain_text(summary)
    return hashlib.sha256(key.encode("utf-8")).hexdigest()[:20]


def clean_html(fragment: str) -> str:
    """Return `fragment` cleaned to the allow-list; links get rel=noopener … and http(s)/mailto."""
    return _CLEANER.clean(fragment or "")


def plain_text(fragment: str) -> str:
    """Return the text of an HTML (or text) fragment: no tags, entities decoded, spaces collapsed."""
    text = html.unescape(_TEXT_ONLY.clean(fragment or ""))
    return _SPACE.sub(" ", _CONTROL.sub("", text)).strip()


def cut_at_word(text: str, max_chars: int) -> str:
    """Return `text` cut to at most `max_chars` at a word boundary, with an ellipsis when cut."""
    if len(text) <= max_chars:
        return text
    cut = text[: max_chars - 1]
    space = cut.rfind(" ")
    # Scripts without spaces (Chinese, Japanese) have no word boundary to find: cut anywhere.
    if space > max_chars // 2:
        cut = cut[:space]
    return cut.rstrip(" ,;:.-") + "…"


def md_text(s: str) -> str:
    """Return `s` safe anywhere in a Markdown template: one line, HTML-escaped, Markdown inert.

    HTML escaping makes tags and entities text; the backslash escapes stop emphasis, links,
    attribute lists (`{: onclick=…}`), headings, lists and table cells from forming.
    """
    one_line = _SPACE.sub(" ", _CONTROL.sub("", s or "")).strip()
    # Backslashes first, entities second: escaping after would break `&#x27;` into `&\#x27;`.
    return html.escape(_MD_SPECIAL.sub(r"\\\1", one_line), quote=True)


def md_link(label: str, url: str | None) -> str:
    """Return a Markdown link to `url` (only http/https), or just the escaped label."""
    safe = canonical_url(url, "about:blank") if url else None
    if not safe:
        return md_text(label)
    href = safe.replace("(", "%28").replace(")", "%29").replace(" ", "%20")
    return f"[{md_text(label)}]({href})"


def utc_date(published: dt.datetime | None, first_seen: dt.datetime,
             now: dt.datetime) -> tuple[dt.datetime, str | None]:
    """Return (UTC publication time, flag): missing → first-seen, future → now, flagged."""
    if published is None:
        return first_seen, "missing"
    if published.tzinfo is None:
        published = published.replace(tzinfo=dt.UTC)
    published = published.astimezone(dt.UTC)
    if published > now + FUTURE_SLACK:
        return now, "future"
    return published, None


def normalize_item(raw: RawItem, *, feed_url: str, feed_language: str | None,
                   first_seen: dt.datetime, now: dt.datetime) -> SnapshotItem:
    """Return the stored form of `raw`: canonical URL, stable id, cleaned text, UTC date."""
    url = canonical_url(raw.link, feed_url)
    # An id that is a URL stands in only for a missing link: a link we refused (javascript:,
    # ftp:) means the item has no link, not the one its id spells.
    if raw.link is None and raw.guid:
        url = canonical_url(raw.guid, feed_url)
    title = cut_at_word(plain_text(raw.title), TITLE_CHARS)
    summary_text = cut_at_word(plain_text(raw.summary), SUMMARY_CHARS)
    published, flag = utc_date(raw.published, first_seen, now)
    cut = []
    summary_html = clean_html(raw.summary)
    if len(summary_html.encode()) > FIELD_CAP_BYTES:
        # Cut, then cleaned again, which closes the elements the cut left open; the margin
        # leaves room for the closing tags.
        head = summary_html.encode()[:FIELD_CAP_BYTES - 1024].decode("utf-8", "ignore")
        if head.rfind("<") > head.rfind(">"):  # cut inside a tag: drop its start
            head = head[:head.rfind("<")]
        summary_html = clean_html(head)
        cut.append("summary_html")
    if url is not None and len(url.encode()) > FIELD_CAP_BYTES:
        url = None
        cut.append("url")
    return SnapshotItem(
        id=item_id(raw.guid, url, raw.title, raw.summary), url=url, title=title,
        summary_html=summary_html, summary_text=summary_text, cut=cut,
        published=published, date_flag=flag, first_seen=first_seen,
        language=_language(raw.language or feed_language),
        author=cut_at_word(plain_text(raw.author), 120) if raw.author else None)


def _language(tag: str | None) -> str | None:
    if not tag:
        return None
    tag = tag.strip().replace("_", "-")
    return tag.lower() if re.fullmatch(r"[A-Za-z]{2,3}(-[A-Za-z0-9]{1,8})*", tag) else None


def title_key(title: str) -> str:
    """Return `title` reduced for comparison: case-folded, NFKC, punctuation and spaces removed."""
    folded = unicodedata.normalize("NFKC", title).casefold()
    return "".join(filter(str.isalnum, folded))
