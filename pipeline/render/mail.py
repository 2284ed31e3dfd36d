"""The e-mail edition: an edition's HTML laid out for mail clients, and a multipart .eml of it.

Mail clients drop <style> blocks and scripts and know little CSS, so the layout is tables and the
CSS is inlined into each element with css-inline (keeping @media rules for those that read them,
and never fetching a stylesheet: the build is offline). On the site the e-mail page's images are
absolute URLs; in a message they are inline parts.
"""

from __future__ import annotations

import datetime as dt
import email.policy
import email.utils
import hashlib
import textwrap
from collections.abc import Mapping
from email.header import Header
from email.message import EmailMessage
from pathlib import Path
from urllib.parse import urlsplit

from pipeline.compose.titles import edition_title
from pipeline.compose.types import Edition
from pipeline.models.series import Series
from pipeline.paths import TEMPLATES
from pipeline.render.feeds import edition_url, series_name
from pipeline.render.pages import environment

TEXT_COLUMNS = 76
"""The text part's width: under the 78 of RFC 5322, so no client rewraps it."""


class _Policy(email.policy.EmailPolicy):
    """SMTP's policy, but a non-ASCII header folds as encoded words only: the standard folder
    leaves a space on each side of a fold before an encoded word, which decodes as two
    ("Hardware  — 2026-09-12"); adjacent encoded words decode with nothing between them."""

    def fold(self, name: str, value: str) -> str:
        if name.lower() in _ENCODED and not str(value).isascii():
            words = Header(str(value), "utf-8", header_name=name).encode(linesep=self.linesep)
            return f"{name}: {words}{self.linesep}"
        return super().fold(name, value)

    def fold_binary(self, name: str, value: str) -> bytes:
        return self.fold(name, value).encode("ascii") if name.lower() in _ENCODED and not (
            str(value).isascii()) else super().fold_binary(name, value)


_ENCODED = {"subject"}
_POLICY = _Policy(linesep="\r\n")
# For a recipient whose address is beyond ASCII: an encoded word cannot stand inside an address
# (RFC 2047 §5), so the headers are raw UTF-8 (RFC 6532), a message only a server offering
# SMTPUTF8 takes (publish/mail_send.py sends it so, and no such message otherwise).
_UTF8_POLICY = _POLICY.clone(utf8=True)


def email_html(edition: Edition, series: Series, body_html: str,
               templates: Path = TEMPLATES) -> str:
    """Return the e-mail edition's HTML, CSS inlined; `body_html` is the edition, links absolute."""
    import css_inline

    site = str(series.site_url)
    page = environment(templates).get_template("email.html.j2").render(
        edition=edition, name=series_name(series), description=series.description,
        site_url=site, page_url=edition_url(series, edition.date),
        text_url=f"{site}briefings/{edition.date.isoformat()}.txt", body_html=body_html,
        unsubscribe=unsubscribe_text(series))
    inliner = css_inline.CSSInliner(keep_at_rules=True, load_remote_stylesheets=False)
    return inliner.inline(page).rstrip("\n") + "\n"


def default_sender(series: Series) -> str:
    """Return the From address used when none is given: `mail.sender` in editions.yaml, else the
    series' name at the site's host."""
    if series.mail is not None:
        return series.mail.sender
    host = urlsplit(str(series.site_url)).hostname or "localhost"
    return email.utils.formataddr((series_name(series), f"briefing@{host}"))


def unsubscribe_text(series: Series) -> str:
    """Return the line that tells a reader how to leave the list ("" without `mail:`)."""
    mail = series.mail
    if mail is None:
        return ""
    page = f" or open {mail.unsubscribe_url}" if mail.unsubscribe_url else ""
    return (f"To unsubscribe, write to {mail.unsubscribe} with the subject "
            f"\"unsubscribe\"{page}.")


def wrap_text(text: str, width: int = TEXT_COLUMNS) -> str:
    """Return the text edition wrapped for mail: every line at most `width` columns where it
    has spaces to break at (an address is never broken), bullets and references hanging."""
    out = []
    for line in text.splitlines():
        if len(line) <= width:
            out.append(line)
            continue
        hang = "  " if line.startswith("• ") else " " * (line.index("]") + 2) if (
            line.startswith("[") and "] " in line) else ""
        out.append(textwrap.fill(line, width, subsequent_indent=hang, break_long_words=False,
                                 break_on_hyphens=False))
    return "\n".join(out) + "\n"


def message_id(edition: Edition, series: Series, to: str | None) -> str:
    """Return the Message-ID of the edition's message to `to`: unique per edition and recipient
    (a hash of the address, not the address), stable when a send is run again."""
    host = urlsplit(str(series.site_url)).hostname or "localhost"
    if to is None:
        return f"<briefing-{edition.date.isoformat()}@{host}>"
    _, address = email.utils.parseaddr(to)
    digest = hashlib.sha256(address.strip().lower().encode()).hexdigest()[:20]
    return f"<briefing-{edition.date.isoformat()}-{digest}@{host}>"


def email_message(edition: Edition, series: Series, html: str, text: str, *,
                  sender: str | None = None, to: str | None = None,
                  images: Mapping[str, bytes] | None = None,
                  sent_at: dt.datetime | None = None) -> bytes:
    """Return a multipart/alternative message (RFC 5322, CRLF) of the edition: the text edition
    wrapped for mail, then the HTML with its charts as inline parts (multipart/related).

    `images`: PNG bytes by the absolute URL the HTML shows them at; each becomes a `cid:` part,
    so the mail reads offline and with remote images blocked. `sent_at`: the Date header (the
    edition's date when not given). Deterministic: the same arguments give the same bytes.
    """
    host = urlsplit(str(series.site_url)).hostname or "localhost"
    msg = EmailMessage(policy=_POLICY if email.utils.parseaddr(to or "")[1].isascii()
                       else _UTF8_POLICY)
    msg["Subject"] = edition_title(edition)
    msg["From"] = sender or default_sender(series)
    if to:
        msg["To"] = to
    when = sent_at or dt.datetime.combine(edition.date, dt.time(0, 0), tzinfo=dt.UTC)
    msg["Date"] = email.utils.format_datetime(when)
    msg["Message-ID"] = message_id(edition, series, to)
    msg["List-Id"] = f"{series_name(series)} <briefing.{host}>"
    if series.mail is not None:
        links = [f"<mailto:{series.mail.unsubscribe}?subject=unsubscribe>"]
        if series.mail.unsubscribe_url is not None:
            links.append(f"<{series.mail.unsubscribe_url}>")
            msg["List-Unsubscribe-Post"] = "List-Unsubscribe=One-Click"  # RFC 8058
        msg["List-Unsubscribe"] = ", ".join(links)  # RFC 2369
    msg["Archived-At"] = f"<{edition_url(series, edition.date)}>"  # RFC 5064
    leave = unsubscribe_text(series)
    msg.set_content(wrap_text(text + (f"\n{leave}\n" if leave else "")), cte="quoted-printable")
    inline = []
    for n, (url, png) in enumerate(sorted((images or {}).items()), start=1):
        cid = f"chart{n}.{edition.date.isoformat()}@{host}"
        if f'src="{url}"' in html:
            html = html.replace(f'src="{url}"', f'src="cid:{cid}"')
            inline.append((cid, png, url.rsplit("/", 1)[-1]))
    msg.add_alternative(html, subtype="html", cte="quoted-printable")
    digest = hashlib.sha256((text + html).encode()).hexdigest()[:24]
    if inline:
        part = msg.get_payload()[1]
        for cid, png, name in inline:
            part.add_related(png, maintype="image", subtype="png", cid=f"<{cid}>", filename=name,
                             disposition="inline")
        part.set_boundary(f"=_brief_related_{digest}")
    msg.set_boundary(f"=_brief_{digest}")
    return msg.as_bytes()
