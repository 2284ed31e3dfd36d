"""Rendered editions reused from an earlier build: pages, text editions, HTML and e-mail HTML.

Rendering a year of editions twice over (site and feeds), converting their Markdown and inlining
the e-mail's CSS was most of a rebuild; each is kept in the memo under the digest of what it is
rendered from: the edition, its neighbours, the series, its charts' links and `salt` (the digest
of the code, templates and library versions).
"""

from __future__ import annotations

import datetime as dt
import hashlib
from collections.abc import Sequence
from pathlib import Path
from typing import Any, Literal

from pipeline.cache.memo import Memo
from pipeline.compose.types import Edition
from pipeline.models.series import Series
from pipeline.paths import TEMPLATES
from pipeline.render.channels import Renderer
from pipeline.render.charts import Chart
from pipeline.render.pages import neighbours, series_render_json


class ReusedRenderer(Renderer):
    """A Renderer whose results come from `memo` when their key is there."""

    def __init__(self, memo: Memo, salt: str, series: Series,
                 templates: Path = TEMPLATES) -> None:
        super().__init__(series, templates)
        self.memo, self.salt = memo, salt
        self._series_json = series_render_json(series)
        self._digests: dict[dt.date, Any] = {}

    def key(self, kind: str, edition: Edition, *extra: object) -> str:
        """Return the memo key of something made of `edition` and `extra` (by their repr)."""
        # One edition a date: its repr is made and digested once, for all its keys.
        edition_digest = self._digests.get(edition.date)
        if edition_digest is None:
            edition_digest = self._digests[edition.date] = hashlib.sha256(
                f"{self.salt}\0{self._series_json}\0{edition!r}\0".encode())
        digest = edition_digest.copy()
        digest.update(repr(extra).encode())
        return f"{kind} {digest.hexdigest()}"

    def page(self, edition: Edition, editions: list[Edition], *, home: bool,
             charts: Sequence[Chart] = (), base_url: str | None = None,
             image: Literal["svg", "png"] = "svg") -> str:
        links = [c.markdown("^", image) for c in charts]
        key = self.key("page", edition, neighbours(editions, edition), home, base_url, links)
        return self.memo.get(key, lambda: super(ReusedRenderer, self).page(
            edition, editions, home=home, charts=charts, base_url=base_url, image=image))

    def text(self, edition: Edition) -> str:
        return self.memo.get(self.key("text", edition),
                             lambda: super(ReusedRenderer, self).text(edition))

    def body_html(self, body_md: str) -> str:
        digest = hashlib.sha256(body_md.encode()).hexdigest()
        return self.memo.get(f"body-html {self.salt} {digest}",
                             lambda: super(ReusedRenderer, self).body_html(body_md))

    def email_html(self, edition: Edition, body_html: str) -> bytes:
        return self.memo.get(self.key("email-html", edition, body_html),
                             lambda: super(ReusedRenderer, self).email_html(edition, body_html))
