"""The e-mail edition: an edition's HTML laid out for mail clients, and a multipart .eml of it.

Mail clients drop <style> blocks and scripts and know little CSS, so the layout is tables and the
CSS is inlined into each element with css-inline (keeping @media rules for those that read them,
and never fetching a stylesheet: the build is offline). Images are absolute URLs on the site.
"""

from __future__ import annotations

import datetime as dt
import email.policy
import email.utils
import hashlib
from email.message import EmailMessage
from pathlib import Path
from urllib.parse import urlsplit

from pipeline.compose.types import Edition
from pipeline.models.series import Series
from pipeline.paths import TEMPLATES
from pipeline.render.feeds import edition_url, series_name
from pipeline.render.pages import environment


def email_html(edition: Edition, series: Series, body_html: str,
               templates: Path = TEMPLATES) -> str:
    """Return the e-mail edition's HTML, CSS inlined; `body_html` is the edition, links absolute."""
    import css_inline

    site = str(series.site_url)
    page = environment(templates).get_template("email.html.j2").render(
        edition=edition, name=series_name(series), description=series.description,
        site_url=site, page_url=edition_url(series, edition.date),
        text_url=f"{site}briefings/{edition.date.isoformat()}.txt", body_html=body_html)
    inliner = css_inline.CSSInliner(keep_at_rules=True, load_remote_stylesheets=False)
    return inliner.inline(page).rstrip("\n") + "\n"


def default_sender(series: Series) -> str:
    """Return the From address used when none is given: the series' name at the site's host."""
    host = urlsplit(str(series.site_url)).hostname or "localhost"
    return email.utils.formataddr((series_name(series), f"briefing@{host}"))


def email_message(edition: Edition, series: Series, html: str, text: str, *,
                  sender: str | None = None, to: str | None = None) -> bytes:
    """Return a multipart/alternative message (RFC 5322, CRLF) of the edition: text, then HTML.

    Deterministic: the Date header is the edition's date, the Message-ID and the MIME boundary
    are derived from the edition, so the same edition gives the same bytes.
    """
    host = urlsplit(str(series.site_url)).hostname or "localhost"
    msg = EmailMessage(policy=email.policy.SMTP)
    msg["Subject"] = edition.title
    msg["From"] = sender or default_sender(series)
    if to:
        msg["To"] = to
    when = dt.datetime.combine(edition.date, dt.time(0, 0), tzinfo=dt.UTC)
    msg["Date"] = email.utils.format_datetime(when)
    msg["Message-ID"] = f"<briefing-{edition.date.isoformat()}@{host}>"
    msg["List-Id"] = f"{series_name(series)} <briefing.{host}>"
    msg["Archived-At"] = f"<{edition_url(series, edition.date)}>"  # RFC 5064
    msg.set_content(text, cte="quoted-printable")
    msg.add_alternative(html, subtype="html", cte="quoted-printable")
    digest = hashlib.sha256((text + html).encode()).hexdigest()[:24]
    msg.set_boundary(f"=_brief_{digest}")
    return msg.as_bytes()
