"""Editions → Markdown pages and text editions, through the jinja2 templates in `templates/`."""

from __future__ import annotations

import datetime as dt
import html
import itertools
from collections.abc import Sequence
from functools import cache
from pathlib import Path
from typing import Literal

import jinja2

from pipeline.compose.titles import edition_title, lead_story
from pipeline.compose.types import Edition, Story
from pipeline.models.links import is_allowed_link
from pipeline.models.series import Series
from pipeline.paths import TEMPLATES
from pipeline.render.charts import Chart
from pipeline.render.escape import md_editor, md_text, plain_text


@cache
def environment(templates: Path = TEMPLATES) -> jinja2.Environment:
    """Return the jinja2 environment; Markdown and text are not autoescaped, so filters escape."""
    env = jinja2.Environment(
        loader=jinja2.FileSystemLoader(templates),
        autoescape=jinja2.select_autoescape(enabled_extensions=("html", "xml"),
                                            default_for_string=False),
        undefined=jinja2.StrictUndefined,
        keep_trailing_newline=True,
        trim_blocks=False,
    )
    env.filters.update(md=md_text, safe_md=md_editor, plain=plain_text)
    # `url is link`: may it be a link (models/links.py)? A source's address read from a
    # snapshot is judged here, where it is rendered, not only at ingest.
    env.tests["link"] = lambda url: bool(url) and is_allowed_link(str(url))
    return env


def _numbers(edition: Edition) -> dict[str, int]:
    return {c.key: i for i, c in enumerate(edition.sources, start=1)}


def following(editions: Sequence[Edition], edition: Edition) -> dt.date | None:
    """Return the date of the edition after `edition` among `editions` (sorted), if any."""
    dates = [e.date for e in editions]
    i = dates.index(edition.date)
    return dates[i + 1] if i + 1 < len(dates) else None


def edition_page(edition: Edition, series: Series, *, following: dt.date | None, home: bool,
                 charts: Sequence[Chart] = (), base_url: str | None = None,
                 image: Literal["svg", "png"] = "svg", templates: Path = TEMPLATES) -> str:
    """Return the Markdown page of an edition (`home=True`: the site's front page), linked to the
    edition before it (`edition.previous`) and to `following`, the date of the one after it.

    `base_url` (the site's URL) makes every link absolute, for the copies in feeds and e-mail,
    which are read away from the site. Their charts are the site's SVGs, but for the e-mail
    that is sent (`image="png"`): mail clients do not show SVG, so it carries each chart's PNG
    inline (render/channels.py, mail_parts).
    """
    if base_url is not None:
        link_prefix, root_prefix, asset_prefix = base_url + "briefings/", base_url, base_url
    elif home:
        link_prefix, root_prefix, asset_prefix = "briefings/", "", ""
    else:
        # Raw HTML links are relative to the page's URL (briefings/DAY/); Markdown images are
        # relative to its file (briefings/DAY.md), which mkdocs then rewrites.
        link_prefix, root_prefix, asset_prefix = "../", "../../", "../"
    return environment(templates).get_template("briefing.md.j2").render(
        edition=edition, series=series, numbers=_numbers(edition), home=home,
        # The copies in feeds and e-mail head their body with the series title: their entry
        # title and Subject are `edition_title`, the date and the lead story.
        title=edition.title if base_url is not None else edition_title(edition),
        page_url=f"{base_url}briefings/{edition.date.isoformat()}/" if base_url is not None else "",
        head=_head(edition, series, home), on_site=base_url is None, also=_also(edition),
        previous=edition.previous, following=following, source_url=str(series.source_url),
        link_prefix=link_prefix, root_prefix=root_prefix,
        charts_md=[c.markdown(asset_prefix, image) for c in charts],
    )


def _also(edition: Edition) -> list[Story]:
    """Return the edition's other stories of our own, for the line under its title. Not the
    feeds': a feed item is shown with what says where it is from (and whether it is a sample),
    which a list of headlines would leave out."""
    lead = lead_story(edition)
    return [item for section in edition.sections for item in section.items
            if isinstance(item, Story) and item is not lead and item.origin == "curated"]


DESCRIPTION_CHARS = 200
"""About what a search engine or a link preview shows of a description before cutting it."""


def edition_description(edition: Edition) -> str:
    """Return the edition's description as plain text: its lead story's summary, cut after the
    last sentence that fits in DESCRIPTION_CHARS (or the last word, with "…"); else ""."""
    lead = lead_story(edition)
    if lead is None:
        return ""
    text = plain_text(lead.summary_md)
    if len(text) <= DESCRIPTION_CHARS:
        return text
    head = text[:DESCRIPTION_CHARS + 1]
    end = head.rfind(". ")
    if end >= DESCRIPTION_CHARS // 2:
        return head[:end + 1]
    return head[:head.rfind(" ")].rstrip(" ,;:") + "…"


def _head(edition: Edition, series: Series, home: bool) -> dict[str, str]:
    """Return the front matter's title and description: the edition's own, but on the home page
    (titled by the site's name) what the series is about."""
    description = "" if home else edition_description(edition)
    # Material writes a page's front-matter title and description into its <head> and header
    # unescaped, and a lead headline may be a feed's: the values are HTML, escaped here.
    return {"title": html.escape(edition_title(edition)),
            "description": html.escape(description or series.description)}


def text_edition(edition: Edition, templates: Path = TEMPLATES) -> str:
    """Return the plain-text edition, laid out like the editions we publish by e-mail."""
    text = environment(templates).get_template("briefing.txt.j2").render(
        edition=edition, numbers=_numbers(edition))
    # Collapse runs of blank lines the template's conditionals leave behind.
    lines = [line.rstrip() for line in text.splitlines()]
    out: list[str] = []
    for line in lines:
        if line or (out and out[-1]):
            out.append(line)
    return "\n".join(out).strip() + "\n"


def headline_of(edition: Edition) -> str:
    """Return the edition's lead headline for listings: its first story, else its title."""
    lead = lead_story(edition)
    return edition.title if lead is None else lead.headline


def archive_page(editions: list[Edition], charts: Sequence[Chart] = (),
                 templates: Path = TEMPLATES) -> str:
    """Return the archive page: every edition, newest first, grouped by month, after its charts."""
    newest = sorted(editions, key=lambda e: e.date, reverse=True)
    months = [(f"{month:%B %Y}", list(group)) for month, group in
              itertools.groupby(newest, key=lambda e: e.date.replace(day=1))]
    return environment(templates).get_template("archive.md.j2").render(
        editions=newest, months=months, headline_of=headline_of,
        charts_md=[c.markdown("", "svg") for c in charts])


def series_render_json(series: Series) -> str:
    """Return the series as rendering reads it: without its schedule (dates, cadence), which
    decides which editions exist, not how one reads (its neighbours are keyed apart). With it,
    every new edition would change every page's key."""
    return series.model_dump_json(exclude={"dates", "cadence"})
