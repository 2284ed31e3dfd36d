"""The editions' rendered files, each from the store when what it is rendered from is unchanged:
the pages and text editions, the feeds and the e-mail editions.

Rendering a year of editions twice over (site and feeds), converting their Markdown and inlining
the e-mail's CSS was most of a rebuild; each edition's renderings are kept under the digest of
the edition, the series as rendering reads it, its neighbours and its charts' links.
"""

from __future__ import annotations

import datetime as dt
import hashlib
from collections.abc import Sequence
from functools import partial
from pathlib import Path

from pipeline.cache.store import Store
from pipeline.compose.topics import entry_tags
from pipeline.compose.types import Edition
from pipeline.models.sources import Sources
from pipeline.render.channels import channel_files, channel_html, topic_charts, topic_cuts
from pipeline.render.charts import Chart
from pipeline.render.pages import edition_page, following, series_render_json, text_edition


def edition_files(sources: Sources, editions: list[Edition],
                  charts_of: dict[dt.date, list[Chart]], store: Store,
                  templates: Path) -> dict[str, str | bytes]:
    """Return each edition's page and text edition, the home page and the channels' files."""
    series = sources.series
    digest = _Digests(series_render_json(series))

    def page(edition: Edition, *, home: bool) -> str:
        charts, after = charts_of[edition.date], following(editions, edition)
        return store.cached("render", partial(
            edition_page, edition, series, following=after, home=home, charts=charts,
            templates=templates), ("page", digest(edition), after, home, _links(charts)))

    files: dict[str, str | bytes] = {}
    for edition in editions:
        day = edition.date.isoformat()
        files[f"briefings/{day}.md"] = page(edition, home=False)
        files[f"briefings/{day}.txt"] = store.cached(
            "render", partial(text_edition, edition, templates), ("text", digest(edition)))
    files["index.md"] = page(editions[-1], home=True)

    # As the channels carry them: each reads only the editions up to it (no "next" link).
    def html(edition: Edition, charts: Sequence[Chart], *extra: object, email: bool) -> object:
        return store.cached("render", partial(
            channel_html, edition, series, charts, templates, email=email),
            ("channel", digest(edition), _links(charts),
             email, *extra))

    # A cut is keyed by itself (its digest covers the items the topic's tags selected), not
    # by every entry's tags: a new edition's entries would change the key of every cut.
    tags = entry_tags(sources.entries)
    cuts = {(topic.id, cut.date): html(cut, topic_charts(topic, charts_of, cut.date), topic.id,
                                       email=False)
            for topic in series.topics for cut in topic_cuts(topic, editions, tags)}
    files.update(channel_files(
        editions, series, charts_of, tags, templates=templates, cut_html=cuts,
        html={e.date: html(e, charts_of[e.date], email=True) for e in editions}))
    return files


def _links(charts: Sequence[Chart]) -> list[str]:
    return [c.markdown("^", "svg") for c in charts]


class _Digests:
    """Each edition's digest, with the series as rendering reads it: an edition's repr is made
    and digested once a build, for all its keys (by the object, which the build holds)."""

    def __init__(self, series_json: str) -> None:
        self._series = series_json
        self._made: dict[int, tuple[Edition, str]] = {}

    def __call__(self, edition: Edition) -> str:
        made = self._made.get(id(edition))
        if made is None or made[0] is not edition:
            made = self._made[id(edition)] = (edition, hashlib.sha256(
                f"{self._series}\0{edition!r}".encode()).hexdigest())
        return made[1]
